"""Hostile input: malformed, malicious and absurd files, generated here (nothing big is committed).

Every file either fails with a one-line LoadError "<path>: <reason>" that names the problem,
or loads cleanly; nothing raises anything else and nothing runs past its time limit (see
conftest.py). An ingest of a folder of them reports each in ``report.failed`` and leaves the
documents already in the store untouched.
"""

from __future__ import annotations

import io
import os
import random
import signal
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fpdf import FPDF
from fpdf.enums import EncryptionMethod

from clinqa.documents.loaders import Skipped, iter_documents, load_file
from clinqa.documents.loaders.markdown import MAX_INLINE_CHARS
from clinqa.documents.model import Document
from clinqa.errors import ConfigError, LoadError
from clinqa.pipeline import Pipeline
from clinqa.settings import IngestSettings, Settings, load_settings

pytestmark = pytest.mark.time_limit(30)  # per test; a few below set their own

MB = 1024 * 1024
NOTE = b'{"patient_id": "P1", "note_id": "N%d", "date": "2024-01-0%d", "note_type": "progress", "text": "Stable."}\n'
CSV_HEADER = b"patient_id,note_id,date,note_type,text\n"


def pdf_bytes(user_password: str | None = None, owner_password: str | None = None,
              method: EncryptionMethod = EncryptionMethod.AES_128) -> bytes:
    """A one-page text PDF made by fpdf2, encrypted when a password is given."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Heparin dosing. Give 80 units/kg as an intravenous bolus. " * 4)
    if owner_password is not None:
        pdf.set_encryption(owner_password=owner_password, user_password=user_password, encryption_method=method)
    return bytes(pdf.output())


def zip_bytes(name: str, payload: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        z.writestr(name, payload)
    return buf.getvalue()


LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE %(root)s [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
%(body)s
"""
JATS_BODY = b"<article><front><article-meta><title-group><article-title>&lol9;</article-title></title-group>" \
            b"</article-meta></front><body><p>&lol9;</p></body></article>"
MEDQUAD_BODY = b'<Document id="1" source="X"><Focus>&lol9;</Focus><QAPairs><QAPair><Question>q?</Question>' \
               b"<Answer>&lol9;</Answer></QAPair></QAPairs></Document>"
XXE_JATS = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<article><front><article-meta><title-group><article-title>T</article-title></title-group></article-meta></front>
<body><sec><title>S</title><p>&xxe;</p></sec></body></article>
"""
XXE_MEDQUAD = b"""<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Document id="1" source="X"><Focus>F</Focus><QAPairs><QAPair><Question>q?</Question><Answer>&xxe;</Answer>
</QAPair></QAPairs></Document>
"""
XXE_PARAM = b'<?xml version="1.0"?>\n<!DOCTYPE article [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>\n<article/>'
QUADRATIC = (b'<?xml version="1.0"?>\n<!DOCTYPE Document [<!ENTITY a "' + b"x" * 50_000 + b'">]>\n'
             b'<Document id="1" source="X"><Focus>F</Focus><QAPairs><QAPair><Question>q?</Question><Answer>'
             + b"&a;" * 2_000 + b"</Answer></QAPair></QAPairs></Document>")


def nested(open_tag: bytes, close_tag: bytes, depth: int, inner: bytes = b"<p>deep text</p>") -> bytes:
    return open_tag * depth + inner + close_tag * depth


def write_lines(path: Path, head: bytes, line: bytes, total: int) -> None:
    """Write ``head`` then ``line`` repeated to ``total`` bytes, in 1 MB pieces (no 100 MB object)."""
    with path.open("wb") as fh:
        fh.write(head)
        left = total - len(head)
        piece = line * (MB // len(line))
        while left > 0:
            fh.write(piece[:left])
            left -= len(piece)


def docx_bytes(document_xml: bytes | None = None, extra: dict[str, bytes] | None = None) -> bytes:
    """A real .docx made by python-docx, with ``word/document.xml`` replaced and members added."""
    import docx

    doc = docx.Document()
    doc.add_heading("Protocol", 1)
    doc.add_paragraph("Give oxygen to keep SpO2 at 94-98%.")
    buf = io.BytesIO()
    doc.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "word/document.xml" and document_xml is not None:
                body = document_xml
            z.writestr(info.filename, body)
        for name, body in (extra or {}).items():
            z.writestr(name, body)
    return out.getvalue()


_W_NS = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
DOCX_LAUGHS = LAUGHS % {b"root": b"w:document", b"body": b"<w:document " + _W_NS + b"><w:body><w:p><w:r><w:t>&lol9;"
                        b"</w:t></w:r></w:p></w:body></w:document>"}
DOCX_XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
            b"<w:document " + _W_NS + b"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>")
DOCX_DEEP = (b"<w:document " + _W_NS + b"><w:body>" + nested(b"<w:tbl><w:tr><w:tc>", b"</w:tc></w:tr></w:tbl>", 300,
             b"<w:p><w:r><w:t>deep</w:t></w:r></w:p>") + b"</w:body></w:document>")


@dataclass(frozen=True)
class Case:
    """A hostile file: how to write it and the reason its LoadError must contain."""

    name: str
    write: Callable[[Path], None]
    reason: str
    limit_s: float = 10.0


def data(content: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(content)


_RANDOM = random.Random(20240101).randbytes(64 * 1024)
_GOOD_PDF = pdf_bytes()
_EMPTY_EXTS = (".md", ".markdown", ".mdown", ".mkd", ".txt", ".text", ".html", ".htm", ".xhtml", ".pdf", ".nxml",
               ".xml", ".json", ".jsonl", ".ndjson", ".csv", ".docx")
LATIN1_MD = "# Titre\n\nLe café est prêt.\n".encode("latin-1")

CASES: list[Case] = [
    # PDFs
    Case("truncated.pdf", data(_GOOD_PDF[: len(_GOOD_PDF) * 6 // 10]),
         "corrupt or truncated PDF: no %%EOF marker at the end of the file"),
    Case("truncated_eof.pdf", data(_GOOD_PDF[: len(_GOOD_PDF) * 6 // 10] + b"\n%%EOF\n"), "corrupt or truncated PDF: "),
    Case("encrypted_aes.pdf", data(pdf_bytes("secret", "owner")), "encrypted PDF (password required)"),
    Case("encrypted_rc4.pdf", data(pdf_bytes("secret", "owner", EncryptionMethod.RC4)),
         "encrypted PDF (password required)"),
    Case("pdf_named.md", data(_GOOD_PDF), "binary content, not text (a PDF document: give it the extension .pdf)"),
    # archives under a document's name, and a zip bomb (50 MB of zeros in 50 KB); never unpacked
    Case("archive.md", data(zip_bytes("notes.md", b"# Notes\n\nText.\n", zipfile.ZIP_STORED)),
         "binary content, not text (a ZIP archive or an Office file: name a Word file .docx, save others as text)"),
    Case("archive.pdf", data(zip_bytes("guide.pdf", _GOOD_PDF)), "not a PDF (no %PDF header)"),
    Case("archive.xml", data(zip_bytes("a.xml", b"<article/>")), "binary content, not text (NUL bytes)"),
    Case("zipbomb.md", data(zip_bytes("zeros", bytes(50 * MB))), "binary content, not text (a ZIP archive"),
    Case("zipbomb.jsonl", data(zip_bytes("zeros", bytes(50 * MB))), "line 1: binary content, not text (NUL bytes)"),
    Case("zipbomb.xml", data(zip_bytes("zeros", bytes(50 * MB))), "binary content, not text (NUL bytes)"),
    # Word files: a zip bomb inside, XML bombs in the document part, encrypted (OLE), not a ZIP, cut short
    Case("bomb.docx", data(docx_bytes(extra={"word/media/zeros.bin": bytes(50 * MB)})),
         "zip bomb refused: word/media/zeros.bin expands"),
    Case("laughs.docx", data(docx_bytes(DOCX_LAUGHS)), "XML entity declarations are not allowed (possible XML bomb) "
         "in word/document.xml"),
    Case("xxe.docx", data(docx_bytes(DOCX_XXE)), "XML entity declarations are not allowed"),
    Case("deep.docx", data(docx_bytes(DOCX_DEEP)), "XML is nested too deeply"),
    Case("encrypted.docx", data(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096)),
         "encrypted Word document or old .doc format"),
    Case("text.docx", data(b"# Protocol\n\nPlain text under a Word name.\n"), "not a Word .docx file (not a ZIP"),
    Case("nodoc.docx", data(zip_bytes("notes.md", b"# Notes\n")), "not a Word .docx file (no word/document.xml"),
    Case("truncated.docx", data(docx_bytes()[:2000]), "corrupt or truncated .docx"),
    # XML bombs and external entities, as JATS and as MedQuAD
    Case("laughs_jats.xml", data(LAUGHS % {b"root": b"article", b"body": JATS_BODY}),
         "XML entity declarations are not allowed (possible XML bomb)"),
    Case("laughs.nxml", data(LAUGHS % {b"root": b"article", b"body": JATS_BODY}),
         "XML entity declarations are not allowed (possible XML bomb)"),
    Case("laughs_medquad.xml", data(LAUGHS % {b"root": b"Document", b"body": MEDQUAD_BODY}),
         "XML entity declarations are not allowed (possible XML bomb)"),
    Case("quadratic_medquad.xml", data(QUADRATIC), "XML entity declarations are not allowed (possible XML bomb)"),
    Case("xxe_jats.nxml", data(XXE_JATS), "XML entity declarations are not allowed"),
    Case("xxe_medquad.xml", data(XXE_MEDQUAD), "XML entity declarations are not allowed"),
    Case("xxe_param.xml", data(XXE_PARAM), "XML entity declarations are not allowed"),
    # invalid text
    Case("latin1.md", data(LATIN1_MD), "invalid UTF-8 at byte 15 (line 3)"),
    Case("latin1.txt", data(LATIN1_MD), "invalid UTF-8 at byte 15 (line 3)"),
    Case("latin1_notes.jsonl", data(NOTE % (1, 1) + (NOTE % (2, 2)).replace(b"Stable", b"Stab\xe9le")),
         "line 2: invalid UTF-8 at byte"),
    Case("latin1_notes.csv", data(CSV_HEADER + b"P1,N1,2024-01-01,progress,ok\nP1,N2,2024-01-02,progress,caf\xe9\n"),
         "invalid UTF-8 at byte 97 (line 3)"),
    Case("surrogate_notes.jsonl", data(NOTE.replace(b"Stable.", b"x \\ud800 y") % (1, 1)),
         "line 1: invalid JSON string: a \\uD800-\\uDFFF escape that is not part of a surrogate pair"),
    Case("utf16.md", data("# Title\n\nText.".encode("utf-16")), "UTF-16 text is not supported (convert to UTF-8)"),
    Case("random.md", data(_RANDOM), "binary content, not text (NUL bytes)"),
    Case("random_no_nul.md", data(_RANDOM.replace(b"\x00", b"")), "invalid UTF-8 at byte 0 (line 1)"),
    Case("nul.txt", data(b"Heparin\x00dosing\n"), "binary content, not text (NUL bytes)"),
    Case("nul.html", data(b"<p>Heparin\x00dosing</p>"), "binary content, not text (NUL bytes)"),
    Case("nul.json", data(b'{"1": {"CONTEXTS": ["a\x00b"]}}'), "binary content, not text (NUL bytes)"),
    Case("nul_notes.csv", data(CSV_HEADER + b"P1,N1,2024-01-01,progress,a\x00b\n"),
         "binary content, not text (NUL bytes)"),
    # absurd sizes: 100 MB on one line fails in about a second, before any parsing
    Case("huge_line.md", lambda p: write_lines(p, b"# Huge\n\n", b"word ", 100 * MB),
         "line 3 is 104,857,592 characters long (limit 200,000: setting ingest.max_block_chars)", 30.0),
    Case("huge_line.txt", lambda p: write_lines(p, b"", b"word ", 100 * MB),
         "line 1 is 104,857,600 characters long (limit 200,000: setting ingest.max_block_chars)", 30.0),
    Case("huge_paragraph.txt", data(b"Title\n\n" + b"A line of a text with no blank lines.\n" * 8_000),
         "a paragraph block of 303,999 characters (limit 200,000: setting ingest.max_block_chars)"),
    Case("huge_note.jsonl", data(NOTE.replace(b"Stable.", b"word " * 50_000) % (1, 1)),
         "document 'note:P1:N1': a paragraph block of 249,999 characters (limit 200,000: setting "
         "ingest.max_block_chars)"),
    Case("huge_heading.md", data(b"# Title\n\n## " + b"word " * 3_000 + b"\n\nText.\n"),
         "a heading of 14,999 characters (limit 10,000: setting ingest.max_heading_chars)"),
    # deep nesting: libxml2 stops at 256 levels (and returned nothing, silently, for HTML)
    Case("deep.html", data(nested(b"<div>", b"</div>", 300)),
         "HTML is nested too deeply (more than 256 levels of elements)"),
    Case("deep_lists.html", data(b"<ul><li>" * 5_000 + b"x"), "HTML is nested too deeply (more than 256 levels"),
    Case("deep_jats.xml", data(b"<article><body>" + nested(b"<sec>", b"</sec>", 300) + b"</body></article>"),
         "XML is nested too deeply (more than 256 levels of elements)"),
    Case("deep_medquad.xml", data(b'<Document id="1" source="X"><QAPairs><QAPair><Question>q?</Question><Answer>'
                                  + nested(b"<b>", b"</b>", 300, b"a") + b"</Answer></QAPair></QAPairs></Document>"),
         "XML is nested too deeply (more than 256 levels of elements)"),
    Case("deep.json", data(b'{"1": {"CONTEXTS": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"),
         "invalid JSON (nested too deeply)"),
    Case("deep_notes.jsonl", data(b'{"patient_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"),
         "line 1: invalid JSON (nested too deeply)"),
    # broken notes
    Case("broken_notes.jsonl", data(NOTE % (1, 1) + NOTE % (2, 2) + (NOTE % (3, 3))[:100] + b"\n" + NOTE % (4, 4)),
         "line 3: invalid JSON (Unterminated string starting at column 94)"),
    Case("missing_column_notes.csv", data(b"patient_id,note_id,date,text\nP1,N1,2024-01-01,hi\n"),
         "line 1: missing required column 'note_type' in CSV header"),
    Case("short_row_notes.csv", data(CSV_HEADER + b"P1,N1,2024-01-01,progress,hi\nP1,N2,2024-01-02\n"),
         "line 3: missing required field 'note_type'"),
    *(Case(f"empty{ext}", data(b""), "empty file") for ext in _EMPTY_EXTS),
    Case("blank.md", data(b" \n\t\n\n"), "empty file (only whitespace)"),
]
CASES_BY_NAME = {c.name: c for c in CASES}
assert len(CASES_BY_NAME) == len(CASES)


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every hostile file, written once (the two 100 MB files included, deleted afterwards)."""
    d = tmp_path_factory.mktemp("hostile") / "corpus"
    d.mkdir()
    for case in CASES:
        case.write(d / case.name)
    yield d
    for path in d.iterdir():
        path.unlink()


@pytest.mark.time_limit(90)
@pytest.mark.parametrize("name", list(CASES_BY_NAME))
def test_hostile_file_is_a_clear_load_error(hostile_dir: Path, name: str) -> None:
    case = CASES_BY_NAME[name]
    path = hostile_dir / name
    t0 = time.perf_counter()
    with pytest.raises(LoadError) as err:
        load_file(path)
    seconds = time.perf_counter() - t0
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert case.reason in err.value.reason, message
    assert seconds < case.limit_s, f"{name}: {seconds:.1f} s"
    # the walk reports the same error for the file, and goes on
    [item] = list(iter_documents([path]))
    assert isinstance(item, LoadError) and item.reason == err.value.reason


def test_nothing_of_etc_passwd_is_read(hostile_dir: Path, tmp_path: Path) -> None:
    """External DTDs and XInclude are never fetched: the documents load without the file's text."""
    dtd = tmp_path / "external_dtd.nxml"
    dtd.write_bytes(b'<?xml version="1.0"?>\n<!DOCTYPE article SYSTEM "file:///etc/passwd">\n<article><front>'
                    b"<article-meta><title-group><article-title>T</article-title></title-group></article-meta>"
                    b"</front><body><sec><title>S</title><p>Body text.</p></sec></body></article>")
    xinclude = tmp_path / "xinclude.nxml"
    xinclude.write_bytes(b'<article xmlns:xi="http://www.w3.org/2001/XInclude"><front><article-meta><title-group>'
                         b"<article-title>T</article-title></title-group></article-meta></front><body><sec>"
                         b'<title>S</title><p>Body text.<xi:include href="file:///etc/passwd" parse="text"/></p>'
                         b"</sec></body></article>")
    for path in (dtd, xinclude):
        [doc] = load_file(path)
        assert doc.text() == "Body text." and doc.title == "T"


def test_hostile_but_valid_files_load(tmp_path: Path) -> None:
    # a PDF with only an owner password opens without one, like in any reader
    owner_only = tmp_path / "owner_only.pdf"
    owner_only.write_bytes(pdf_bytes(None, "owner"))
    [doc] = load_file(owner_only)
    assert "Give 80 units/kg as an intravenous bolus." in doc.text()
    # an escaped surrogate PAIR is a character (the emoji), only a lone one is refused
    pair = tmp_path / "pair.jsonl"
    pair.write_bytes(b'{"_id": "a", "text": "Smile \\ud83d\\ude00 daily."}\n')
    [doc] = load_file(pair)
    assert doc.text() == "Smile \U0001f600 daily."
    # extra CSV columns are ignored, an unterminated quote at the end of the file closes the field
    extra = tmp_path / "extra.csv"
    extra.write_bytes(CSV_HEADER + b'P1,N1,2024-01-01,progress,"Stable, no change",surplus\nP1,N2,2024-01-02,x,"open\n')
    docs = load_file(extra)
    assert [d.text() for d in docs] == ["Stable, no change", "open"]


@pytest.mark.time_limit(60)
def test_pathological_markdown_is_plain_text_not_minutes(tmp_path: Path) -> None:
    """markdown-it spends ~50 µs a character on "[[[[": a paragraph over MAX_INLINE_CHARS keeps
    its markup as text instead of taking seconds to minutes."""
    path = tmp_path / "brackets.md"
    line = "[" * 999 + "\n"
    path.write_text("# Brackets\n\n" + line * 150, encoding="utf-8")  # one 150,000-character paragraph
    assert MAX_INLINE_CHARS < 150 * 1000
    t0 = time.perf_counter()
    [doc] = load_file(path)
    assert time.perf_counter() - t0 < 10
    [block] = [b for _, s in doc.walk() for b in s.blocks]
    assert block.text == "\n".join(["[" * 999] * 150)


@pytest.mark.time_limit(60)
def test_parse_time_limit(tmp_path: Path) -> None:
    """Many paragraphs of pathological markup, each under MAX_INLINE_CHARS: ~1 s apiece, so the file
    would take minutes; ingest.max_parse_seconds stops it."""
    path = tmp_path / "slow.md"
    path.write_text(("[" * 15_000 + "\n\n") * 200, encoding="utf-8")
    t0 = time.perf_counter()
    with pytest.raises(LoadError) as err:
        load_file(path, limits=IngestSettings(max_parse_seconds=1))
    assert time.perf_counter() - t0 < 15
    assert err.value.reason == ("parsing Markdown took longer than 1 s: the file is too large or its markup too "
                                "complex (limit: setting ingest.max_parse_seconds)")
    pdf = tmp_path / "guide.pdf"
    pdf.write_bytes(_GOOD_PDF)
    assert load_file(pdf)[0].text().startswith("Heparin dosing.")
    with pytest.raises(LoadError, match=r"guide.pdf: parsing PDF \(page 1\) took longer than 1e-06 s"):
        load_file(pdf, limits=IngestSettings(max_parse_seconds=1e-6))


def test_limits_are_settings(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text("# Guide\n\n## Dosing\n\n" + "Give the dose.\n" * 100, encoding="utf-8")
    assert len(load_file(path)) == 1
    with pytest.raises(LoadError) as err:
        load_file(path, limits=IngestSettings(max_block_chars=1000))
    assert err.value.reason == ("a paragraph block of 1,499 characters in section 'Guide > Dosing' "
                                "(limit 1,000: setting ingest.max_block_chars)")
    long_title = tmp_path / "title.md"
    long_title.write_text("# " + "Heparin " * 20 + "\n\nText.\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"title.md: a title of 159 characters \(limit 100: setting ingest.max_heading"):
        load_file(long_title, limits=IngestSettings(max_heading_chars=100))
    config = tmp_path / "clinqa.yaml"
    config.write_text("ingest:\n  max_file_mb: 0.5\n  max_block_chars: 5000\n", encoding="utf-8")
    s = load_settings(config)
    assert s.ingest == IngestSettings(max_file_mb=0.5, max_block_chars=5000)
    config.write_text("ingest:\n  max_block_chars: 10\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ingest\.max_block_chars: Input should be greater than or equal to 1000"):
        load_settings(config)
    # the limits shape what is loaded, never an answer: the config hash ignores them
    a = Pipeline(Settings(data_dir=tmp_path / "a"))
    b = Pipeline(Settings(data_dir=tmp_path / "a", ingest=IngestSettings(max_file_mb=1)))
    assert a.config_hash() == b.config_hash()


def test_docx_unpacked_size_is_held_to_max_file_mb(tmp_path: Path) -> None:
    """A .docx under the file-size limit that unpacks to more than it is refused before python-docx reads it."""
    rng = random.Random(7)
    words = [b"heparin", b"bolus", b"units", b"infusion", b"aPTT", b"dose", b"hour", b"weight"]
    text = b" ".join(rng.choice(words) for _ in range(190_000))  # ~1.2 MB, compresses ~4x (not a bomb)
    path = tmp_path / "big.docx"
    path.write_bytes(docx_bytes(extra={"word/media/a.txt": text, "word/media/b.txt": text}))
    assert path.stat().st_size < 1 * MB
    with pytest.raises(LoadError, match=r"unpacks to [23]\.\d MB \(> 2 MB limit: setting ingest\.max_file_mb\)"):
        load_file(path, limits=IngestSettings(max_file_mb=2))
    assert load_file(path)[0].text() == "Give oxygen to keep SpO2 at 94-98%."


def test_registry_folder_obeys_the_limits(tmp_path: Path) -> None:
    """A registry-id folder (its Markdown files are one document's sections) is held to the same limits."""
    root = tmp_path / "guides"
    (root / "sepsis").mkdir(parents=True)
    (root / "registry.json").write_text('[{"id": "sepsis", "title": "Sepsis"}]', encoding="utf-8")
    (root / "sepsis" / "fluids.md").write_text("# Fluids\n\n" + "Give fluids.\n" * 200, encoding="utf-8")
    (root / "sepsis" / "big.md").write_bytes(b"")
    out = list(iter_documents([root]))
    assert [type(o).__name__ for o in out] == ["Skipped", "LoadError", "Document"]
    out = list(iter_documents([root], limits=IngestSettings(max_block_chars=1000, max_file_mb=1)))
    errors = [(Path(o.path).name, o.reason) for o in out if isinstance(o, LoadError)]
    assert errors == [("big.md", "empty file"),
                      ("sepsis", "a paragraph block of 2,599 characters in section 'Fluids' (limit 1,000: setting "
                                 "ingest.max_block_chars)")]
    assert not any(isinstance(o, Document) for o in out)


def test_the_time_limit_stops_a_hang(time_limit: float) -> None:
    """The per-test limit (conftest.py) interrupts a test that hangs, with an exception no loader catches."""
    assert time_limit == 30
    signal.setitimer(signal.ITIMER_REAL, 0.2)  # the fixture's alarm, brought forward
    t0 = time.perf_counter()
    with pytest.raises(BaseException) as hang:
        load_file_forever()
    assert type(hang.value).__name__ == "Hang" and not isinstance(hang.value, Exception)
    assert time.perf_counter() - t0 < 5


def load_file_forever() -> None:
    """A loader stuck in a loop that swallows every Exception (as ``_load`` turns them into LoadErrors)."""
    while True:
        try:
            time.sleep(0.05)
        except Exception:  # the point: Hang is not an Exception
            continue


def test_fifo_never_blocks(tmp_path: Path) -> None:
    """Opening a named pipe blocks until a writer comes: loaders must not open one."""
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)
    [item] = list(iter_documents([fifo]))
    assert isinstance(item, LoadError) and item.reason == "not a regular file or directory"
    with pytest.raises(LoadError, match="empty file"):
        load_file(fifo)
    (tmp_path / "good.md").write_text("# Good\n\nText.", encoding="utf-8")
    out = list(iter_documents([tmp_path]))
    assert [type(o) for o in out] == [Document]


GOOD = {
    "alpha.md": "# Alpha guideline\n\n## Dosing\n\nGive apixaban 5 mg twice daily for stroke prevention.\n",
    "beta.md": "# Beta guideline\n\n## Fluids\n\nGive 30 mL/kg of crystalloid within 3 hours in sepsis.\n",
    "gamma.md": "# Gamma guideline\n\n## Gout\n\nAllopurinol lowers urate; titrate to below 6 mg/dL.\n",
}
NEW_GOOD = {
    "delta.md": "# Delta guideline\n\n## Asthma\n\nInhaled corticosteroids control persistent asthma.\n",
    "epsilon.md": "# Epsilon guideline\n\n## Warfarin\n\nKeep the INR between 2 and 3 in atrial fibrillation.\n",
}


@pytest.mark.time_limit(240)
def test_ingest_of_hostile_folder_keeps_the_store(hostile_dir: Path, tmp_path: Path) -> None:
    """The good files are ingested, every hostile one is reported with its path, and what the
    store held before is unchanged -- also a document whose id a hostile file shares."""
    first = tmp_path / "v1" / "corpus"
    first.mkdir(parents=True)
    for name, text in GOOD.items():
        (first / name).write_text(text, encoding="utf-8")
    pipe = Pipeline(Settings(data_dir=tmp_path / "store"))
    report = pipe.ingest([first], progress=False)
    assert report.failed == [] and report.documents == 3
    hashes = pipe.store.doc_hashes()
    chunks = {d["doc_id"]: d["chunks"] for d in pipe.store.documents()}
    top = pipe.search("What dose of apixaban prevents stroke?", k=1).hits[0].chunk
    assert sorted(hashes) == ["corpus/alpha", "corpus/beta", "corpus/gamma"]

    # the same folder name, so "alpha.md" below has the id of the stored "corpus/alpha"
    (hostile_dir / "alpha.md").write_bytes(_RANDOM)
    for name, text in NEW_GOOD.items():
        (hostile_dir / name).write_text(text, encoding="utf-8")
    try:
        errors: list[tuple[str, str]] = []
        report = pipe.ingest([hostile_dir], progress=False, on_error=lambda p, r: errors.append((p, r)))
    finally:
        for name in ("alpha.md", *NEW_GOOD):
            (hostile_dir / name).unlink()
    failed = {Path(p).name: reason for p, reason in report.failed}
    assert report.failed == errors
    assert all(Path(p).parent == hostile_dir for p, _ in report.failed)
    assert set(failed) == {*CASES_BY_NAME, "alpha.md"}
    for name, reason in failed.items():
        expected = CASES_BY_NAME[name].reason if name != "alpha.md" else "binary content, not text (NUL bytes)"
        assert expected in reason, (name, reason)
    assert report.documents == 2 and report.skipped == []

    after = pipe.store.doc_hashes()
    assert {k: after[k] for k in hashes} == hashes
    assert sorted(after) == ["corpus/alpha", "corpus/beta", "corpus/delta", "corpus/epsilon", "corpus/gamma"]
    counts = {d["doc_id"]: d["chunks"] for d in pipe.store.documents()}
    assert {k: counts[k] for k in chunks} == chunks
    again = pipe.search("What dose of apixaban prevents stroke?", k=1).hits[0].chunk
    assert (again.chunk_id, again.text) == (top.chunk_id, top.text)
    assert "apixaban 5 mg twice daily" in again.body
    asthma = pipe.search("What controls persistent asthma?", k=1).hits[0].chunk
    assert asthma.doc_id == "corpus/delta"


def test_skips_stay_skips(tmp_path: Path) -> None:
    """Unknown types in a walk are skipped, not errors; a README full of NULs is never read."""
    (tmp_path / "README.md").write_bytes(b"\x00" * 100)
    (tmp_path / "image.png").write_bytes(_RANDOM[:100])
    out = list(iter_documents([tmp_path]))
    assert sorted((Path(o.path).name, o.reason) for o in out if isinstance(o, Skipped)) == [
        ("README.md", "skipped: README/LICENSE/CHANGELOG file"),
        ("image.png", "skipped: unsupported file type '.png'"),
    ]
    assert len(out) == 2
