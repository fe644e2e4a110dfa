"""Bad input: every case is a one-line LoadError naming the file and the problem; walks go on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fpdf import FPDF

from clinqa.documents.loaders import FORMATS, Skipped, detect_format, iter_documents, load_file
from clinqa.documents.model import Document
from clinqa.errors import LoadError
from clinqa.settings import IngestSettings

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<article><front><article-meta><title-group><article-title>&lol4;</article-title></title-group>
</article-meta></front></article>
"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Document id="1" source="X"><Focus>&xxe;</Focus><QAPairs/></Document>
"""

CASES: list[tuple[str, bytes, str | None, str]] = [
    # (file name, content, forced format, expected reason)
    ("empty.md", b"", None, "empty file"),
    ("blank.txt", b"  \n\n \t\n", None, "empty file"),
    ("latin1.md", "# Titre\n\ncaf\xe9".encode("latin-1"), None, "invalid UTF-8 at byte 12 (line 3)"),
    ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", None, "binary content, not text"),
    ("utf16.txt", "hello".encode("utf-16"), None, "UTF-16 text is not supported"),
    ("bomb.xml", BOMB, None, "XML entity declarations are not allowed (possible XML bomb)"),
    ("xxe.xml", XXE, "medquad", "XML entity declarations are not allowed"),
    ("broken.xml", b"<?xml version='1.0'?>\n<article><front></article>", None, "XML is not well-formed"),
    ("other.xml", b"<?xml version='1.0'?>\n<rss><channel/></rss>", None, "unrecognised XML (root element <rss>"),
    ("jats_as_medquad.xml", b"<article><front/></article>", "medquad", "not a MedQuAD file (root element <article>"),
    ("notes.md", b"# Notes\n\nNot a PDF at all.\n", "pdf", "not a PDF (no %PDF header)"),
    ("fake.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", None, "corrupt or truncated PDF"),
    ("list.json", b"[1, 2, 3]", None, "unrecognised JSON: expected a PubMedQA object"),
    ("list_forced.json", b"[1, 2, 3]", "pubmedqa", "not PubMedQA JSON: expected an object mapping PMID -> record"),
    ("wrong_keys.json", b'{"abc": {"CONTEXTS": ["x"]}}', None, "not PubMedQA JSON: key 'abc' is not a PMID"),
    ("no_contexts.json", b'{"123": {"QUESTION": "q?"}}', None, "not PubMedQA JSON: record '123': CONTEXTS"),
    ("truncated.json", b'{"123": {"CONTEXTS": ["x"', None, "invalid JSON at line 1"),
    ("corpus.jsonl", b'{"_id": "a", "text": "x"}\n' * 6 + b'{"_id": "b", "text": \n', None, "line 7: invalid JSON"),
    (
        "corpus2.jsonl",
        b'{"_id": "a", "text": "x"}\n{"title": "no id"}\n',
        "beir",
        "line 2: missing required field '_id'",
    ),
    ("unknown.jsonl", b'{"foo": 1}\n', None, "unrecognised JSONL"),
    ("badutf8.jsonl", b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "\xff"}\n', None, "line 2: invalid UTF-8"),
    (
        "notes_missing.jsonl",
        b'{"patient_id": "P1", "note_id": "N1", "date": "2024-01-01", "note_type": "x", "text": "t"}\n'
        b'{"patient_id": "P1", "date": "2024-01-02", "note_type": "x", "text": "t"}\n',
        None,
        "line 2: missing required field 'note_id'",
    ),
    (
        "notes_date.jsonl",
        b'{"patient_id": "P1", "note_id": "N1", "date": "2024-13-45", "note_type": "x", "text": "t"}\n',
        None,
        "line 1: invalid date '2024-13-45'",
    ),
    (
        "notes_dup.jsonl",
        b'{"patient_id": "P1", "note_id": "N1", "date": "2024-01-01", "note_type": "x", "text": "t"}\n' * 2,
        "notes",
        "line 2: duplicate note_id 'N1' for patient 'P1'",
    ),
    (
        "notes_col.csv",
        b"patient_id,note_id,date,text\nP1,N1,2024-01-01,hi\n",
        None,
        "line 1: missing required column 'note_type'",
    ),
    (
        "notes_row.csv",
        b"patient_id,note_id,date,note_type,text\nP1,N1,2024-01-01,x,hi\nP1,N2,,x,hi\n",
        None,
        "line 3: missing required field 'date'",
    ),
    ("notes.docx", b"PK\x03\x04", None, "corrupt or truncated .docx"),
    ("notes.doc", b"\xd0\xcf\x11\xe0", None, "unsupported file type '.doc'"),
    ("html_binary.html", b"<html>\x00\x00</html>", None, "binary content, not text"),
]


@pytest.mark.parametrize(("name", "content", "fmt", "reason"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_load_error(
    tmp_path: Path, name: str, content: bytes, fmt: str | None, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LoadError) as err:
        load_file(path, fmt)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert reason in err.value.reason, message


def test_unknown_format_name_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("# A\n\nx", encoding="utf-8")
    with pytest.raises(LoadError, match="unknown format 'rtf'"):
        load_file(path, "rtf")
    with pytest.raises(LoadError, match="no such file"):
        load_file(tmp_path / "missing.md")
    with pytest.raises(LoadError, match="unsupported file type"):
        detect_format(tmp_path / "x.rtf")
    assert set(FORMATS) == {"markdown", "text", "html", "pdf", "docx", "jats", "medquad", "pubmedqa", "beir", "notes"}


def test_file_too_large(tmp_path: Path) -> None:
    path = tmp_path / "huge.md"
    with path.open("wb") as fh:  # sparse: no 200 MB actually written
        fh.truncate(201 * 1024 * 1024)
    with pytest.raises(LoadError, match=r"file too large \(201.0 MB > 200 MB limit: setting ingest.max_file_mb\)"):
        load_file(path)
    small = tmp_path / "small.md"
    small.write_text("# Small\n\n" + "word " * 300_000, encoding="utf-8")  # 1.5 MB
    with pytest.raises(LoadError, match=r"file too large \(1.4 MB > 1 MB limit: setting ingest.max_file_mb\)"):
        load_file(small, limits=IngestSettings(max_file_mb=1))
    [item] = list(iter_documents([small], limits=IngestSettings(max_file_mb=1)))
    assert isinstance(item, LoadError) and item.reason.startswith("file too large (1.4 MB > 1 MB limit")


def test_deeply_nested_input_does_not_crash(tmp_path: Path) -> None:
    # nesting deeper than the interpreter's recursion limit (RecursionError inside the parsers)
    deep_json = tmp_path / "deep.json"
    deep_json.write_text('{"1": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(LoadError, match="nested too deeply"):
        load_file(deep_json)
    deep_md = tmp_path / "deep.md"
    deep_md.write_text("> " * 5_000 + "- " * 5_000 + "text\n", encoding="utf-8")
    deep_html = tmp_path / "deep.html"
    deep_html.write_text("<div>" * 20_000 + "deep text" + "</div>" * 20_000, encoding="utf-8")
    deep_xml = tmp_path / "deep.xml"
    deep_xml.write_text("<article>" + "<sec>" * 20_000 + "</sec>" * 20_000 + "</article>", encoding="utf-8")
    for path in (deep_md, deep_html, deep_xml):
        try:
            docs = load_file(path)
        except LoadError as err:  # refusing is fine, as long as it is a LoadError naming the file
            assert str(err).startswith(f"{path}: ")
        else:
            assert len(docs) == 1


def test_walk_yields_good_documents_and_errors(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.md").write_text("# Hidden\n\nx", encoding="utf-8")
    (root / ".DS_Store").write_bytes(b"\x00\x01")
    (root / "a.md").write_text("# Alpha\n\nFirst.", encoding="utf-8")
    (root / "b.md").write_bytes(b"")
    (root / "c.xml").write_bytes(BOMB)
    (root / "README.md").write_text("# Readme", encoding="utf-8")
    (root / "CHANGELOG").write_text("v1", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG")
    (root / "sub" / "My Notes.txt").write_text("Note title\n\nBody.", encoding="utf-8")
    (root / "sub" / "cut.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<<")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 10, "A one-line PDF.")
    pdf.output(str(root / "sub" / "one.pdf"))

    out = list(iter_documents([root, tmp_path / "nope.md"]))
    docs = {o.doc_id: o for o in out if isinstance(o, Document)}
    errors = {Path(o.path).name: o.reason for o in out if isinstance(o, LoadError)}
    skipped = {Path(o.path).name: o.reason for o in out if isinstance(o, Skipped)}
    # ids: the passed folder's name, then the path below it (slugged, no extension)
    assert sorted(docs) == ["corpus/a", "corpus/sub/My-Notes", "corpus/sub/one"]
    assert docs["corpus/a"].title == "Alpha" and docs["corpus/sub/My-Notes"].title == "Note title"
    assert errors == {
        "b.md": "empty file",
        "c.xml": "XML entity declarations are not allowed (possible XML bomb)",
        "cut.pdf": "corrupt or truncated PDF: no %%EOF marker at the end of the file",
        "nope.md": "no such file or directory",
    }
    assert skipped == {
        "CHANGELOG": "skipped: README/LICENSE/CHANGELOG file",
        "README.md": "skipped: README/LICENSE/CHANGELOG file",
        "image.png": "skipped: unsupported file type '.png'",
    }
    # sorted, depth-first order
    names = [Path(o.path).name for o in out]
    assert names.index("a.md") < names.index("b.md") < names.index("My Notes.txt")


def test_single_file_of_unknown_type_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "x.png"
    path.write_bytes(b"\x89PNG")
    [item] = list(iter_documents([path]))
    assert isinstance(item, LoadError) and item.reason == "unsupported file type '.png'"


def test_forced_format_applies_to_every_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nx", encoding="utf-8")
    (tmp_path / "b.data").write_text(
        json.dumps({"patient_id": "P", "note_id": "1", "date": "2024-01-01", "note_type": "x", "text": "t"}),
        encoding="utf-8",
    )
    out = list(iter_documents([tmp_path], format="text"))
    assert [type(o) for o in out] == [Document, Document]
    assert all(o.format == "text" for o in out if isinstance(o, Document))
