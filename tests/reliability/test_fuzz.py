"""Property-based fuzzing (hypothesis) of every loader and every chunking strategy.

Loaders: arbitrary bytes, arbitrary text and format-shaped garbage under each supported
extension give Documents or a one-line LoadError naming the file, never another exception.
Chunkers: arbitrary Documents give chunks with the invariants each strategy promises.

CI runs a few examples per property, the same ones every run (``derandomize``); the soak
(``bench/soak/fuzz.py``, or ``CLINQA_FUZZ_EXAMPLES=2000 pytest tests/reliability/test_fuzz.py``)
runs many random ones.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from clinqa.chunking import FixedChunker, HierarchicalChunker, HybridChunker, SectionChunker
from clinqa.chunking.tokens import WordCounter
from clinqa.documents.loaders import FORMATS, Skipped, iter_documents, load_file
from clinqa.documents.model import Block, Document, Section
from clinqa.embedding.shipped import minilm_folder
from clinqa.embedding.tokens import HFTokenCounter
from clinqa.errors import LoadError
from clinqa.settings import IngestSettings
from tiny_data import WordsPlusSpecial

#: CLINQA_FUZZ_EXAMPLES=N: N random examples per property (soak); unset: a few fixed ones (CI)
SOAK = int(os.environ.get("CLINQA_FUZZ_EXAMPLES", "0") or 0)


def fuzz(examples: int) -> Callable:
    """Hypothesis settings: ``examples`` fixed examples in CI, ``$CLINQA_FUZZ_EXAMPLES`` random ones in a soak."""
    return settings(
        max_examples=SOAK or examples,
        deadline=timedelta(seconds=10),  # per example; a hang is caught by the test's time limit too
        derandomize=not SOAK,
        database=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no "explain": it traces, slowly
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
    )


#: per-test wall-clock limit (conftest.py): generous in CI, scaled for a soak
LIMIT_S = 120 if not SOAK else 120 + SOAK * 3
pytestmark = pytest.mark.time_limit(LIMIT_S)

EXTENSIONS = (".md", ".markdown", ".txt", ".html", ".htm", ".xhtml", ".pdf", ".nxml", ".xml", ".json", ".jsonl",
              ".ndjson", ".csv")
SMALL_LIMITS = IngestSettings(max_block_chars=5000, max_heading_chars=500, max_parse_seconds=5)


def check_load(path: Path, limits: IngestSettings | None = None) -> list[Document]:
    """Load ``path``: Documents (checked) or a LoadError (checked, returns []); anything else fails."""
    try:
        docs = load_file(path, limits=limits)
    except LoadError as err:
        message = str(err)
        assert message.startswith(f"{path}: ") and "\n" not in message and err.reason.strip(), message
        return []
    limits = limits or IngestSettings()
    for doc in docs:
        assert doc.doc_id.strip() and doc.format in FORMATS and doc.path == str(path)
        assert len(doc.title) <= limits.max_heading_chars
        for _, section in doc.walk():
            assert len(section.title) <= limits.max_heading_chars
            for block in section.blocks:
                assert block.text.strip(), (path, block)
                assert len(block.text) <= limits.max_block_chars
        doc.content_hash()  # serialisable (no lone surrogates)
        json.dumps(doc.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    items = list(iter_documents([path], limits=limits))
    assert all(isinstance(i, Document | LoadError | Skipped) for i in items)
    assert len([i for i in items if isinstance(i, Document)]) == len(docs)
    return docs


def write_and_load(suffix: str, content: bytes, limits: IngestSettings | None = None) -> list[Document]:
    with tempfile.TemporaryDirectory(prefix="clinqa-fuzz-") as d:
        path = Path(d) / f"fuzz{suffix}"
        path.write_bytes(content)
        return check_load(path, limits)


# ------------------------------------------------------------------ loaders: any bytes, any text

@pytest.mark.parametrize("suffix", EXTENSIONS)
@fuzz(30)
@given(content=st.binary(max_size=3000))
def test_any_bytes_load_or_fail_cleanly(suffix: str, content: bytes) -> None:
    write_and_load(suffix, content)


@pytest.mark.parametrize("suffix", EXTENSIONS)
@fuzz(30)
@given(text=st.text(max_size=2000))
def test_any_text_loads_or_fails_cleanly(suffix: str, text: str) -> None:
    write_and_load(suffix, text.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------ loaders: format-shaped garbage

MARKUP = "#*_[]()`>-|!<&;:.=~\\+1aZ é\n\n  \t"
markdown_text = st.text(alphabet=MARKUP, max_size=3000)


@fuzz(150)
@given(text=markdown_text, front=st.booleans())
def test_markdown_markup(text: str, front: bool) -> None:
    body = ("---\ntitle: [x\nauthors: {a: 1}\n---\n" if front else "") + text
    for suffix in (".md", ".txt"):
        write_and_load(suffix, body.encode("utf-8"), SMALL_LIMITS)


HTML_PARTS = ["<p>", "</p>", "<div>", "</div>", "<h1>", "</h1>", "<h3>", "</h3>", "<ul>", "<ol start='x'>", "<li>",
              "</li>", "<table>", "<tr>", "<td>", "<th>", "</table>", "<pre>", "</pre>", "<blockquote>", "<script>",
              "</script>", "<!--", "-->", "<dl><dt>", "<dd>", "<br>", "<meta name='citation_title' content='T'>",
              "<meta charset='latin-1'>", "<title>", "</title>", "&amp;", "&#0;", "&#xD800;", "<?xml version='1.0'?>",
              "<svg>", "<a href='javascript:x'>", "text", "More words.", " ", "\n", "é", "\u202e", "<", ">", "&",
              # CSS that hides text (documents/loaders/_hidden.py): rules, broken rules, inline styles
              "<style>", "</style>", ".x{display:none}", "p > b.y, #z{color:#fff", "}", "@media print{", "::before{",
              "a:hover{visibility:hidden}", "[x='a:b']{font:1px/1 a}", "<p class='x'>", "<b class='y' id='z'>",
              "<p style='color:#fff;font-size:1px'>", "<div style='background:url(x) #000'>",
              "<span style='position:absolute;left:-9999px;clip:rect(0,0,0,0);opacity:0'>", "<p style='color:'>"]


@fuzz(150)
@given(parts=st.lists(st.sampled_from(HTML_PARTS), max_size=120))
def test_html_fragments(parts: list[str]) -> None:
    write_and_load(".html", "".join(parts).encode("utf-8"), SMALL_LIMITS)


XML_PARTS = ["<front>", "</front>", "<article-meta>", "</article-meta>", "<title-group>", "<article-title>",
             "</article-title>", "</title-group>", "<body>", "</body>", "<sec>", "</sec>", "<title>", "</title>",
             "<p>", "</p>", "<list list-type='order'>", "<list-item>", "</list-item>", "</list>", "<table-wrap>",
             "<table>", "<tr>", "<td>", "</td>", "</tr>", "</table>", "</table-wrap>", "<abstract>", "</abstract>",
             "<QAPairs>", "</QAPairs>", "<QAPair>", "</QAPair>", "<Question qtype='x'>", "</Question>", "<Answer>",
             "</Answer>", "<Focus>", "</Focus>", "text", "More. ", "&amp;", "&lt;", "&#0;", "&unknown;",
             "<![CDATA[x]]>", "<!-- c -->", "<?pi x?>", "é", " ", "\n", "<", "&"]


@fuzz(150)
@given(parts=st.lists(st.sampled_from(XML_PARTS), max_size=120), medquad=st.booleans(), declared=st.booleans())
def test_xml_fragments(parts: list[str], medquad: bool, declared: bool) -> None:
    root = ('<Document id="1" source="S">', "</Document>") if medquad else ("<article>", "</article>")
    text = ("<?xml version='1.0' encoding='utf-8'?>\n" if declared else "") + root[0] + "".join(parts) + root[1]
    write_and_load(".xml", text.encode("utf-8"), SMALL_LIMITS)
    write_and_load(".nxml", text.encode("utf-8"), SMALL_LIMITS)


json_scalars = st.none() | st.booleans() | st.integers(-10, 3000) | st.floats(allow_nan=True) | st.text(max_size=60)
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)
NOTE_KEYS = ["patient_id", "note_id", "date", "note_type", "text", "title", "author_role"]
BEIR_KEYS = ["_id", "title", "text", "metadata"]
fieldish = st.one_of(json_values, st.sampled_from(["2024-01-31", "2024-02-30T10:00:00Z", "P1", "N1", "HPI: x\n- a"]))


@fuzz(150)
@given(records=st.lists(st.dictionaries(st.sampled_from(NOTE_KEYS + BEIR_KEYS), fieldish, max_size=7), max_size=6),
       ascii_only=st.booleans(), cut=st.integers(0, 400), blank=st.booleans())
def test_jsonl_records(records: list[dict], ascii_only: bool, cut: int, blank: bool) -> None:
    lines = [json.dumps(r, ensure_ascii=ascii_only) for r in records]
    text = ("\n\n" if blank else "\n").join(lines) + "\n"
    for suffix in (".jsonl", ".ndjson"):
        write_and_load(suffix, text.encode("utf-8", "surrogatepass"))
        write_and_load(suffix, text.encode("utf-8", "surrogatepass")[: cut or None])  # cut mid-record


@fuzz(150)
@given(header=st.lists(st.sampled_from([*NOTE_KEYS, "", "x"]), max_size=8),
       rows=st.lists(st.lists(st.text(max_size=40) | st.sampled_from(["2024-01-01", "P1", "N1"]), max_size=8),
                     max_size=6))
def test_csv_notes(header: list[str], rows: list[list[str]]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows(rows)
    write_and_load(".csv", buf.getvalue().encode("utf-8", "surrogatepass"))


@fuzz(100)
@given(data=st.dictionaries(st.text(alphabet="0123456789x ", max_size=6),
                            st.dictionaries(st.sampled_from(["QUESTION", "CONTEXTS", "LABELS", "MESHES", "YEAR",
                                                             "LONG_ANSWER"]), json_values, max_size=6)
                            | json_values, max_size=4))
def test_pubmedqa_json(data: dict) -> None:
    write_and_load(".json", json.dumps(data).encode("utf-8"))


def _pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=16)
    pdf.cell(0, 10, "1. Dosing")
    pdf.ln(12)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Give heparin 80 units/kg as a bolus. Then 18 units/kg/h by infusion. " * 3)
    return bytes(pdf.output())


PDF = _pdf()


@fuzz(60)
@given(edits=st.lists(st.tuples(st.integers(0, len(PDF) - 1), st.binary(min_size=1, max_size=8)), min_size=1,
                      max_size=6), cut=st.integers(0, len(PDF)))
def test_mutated_pdf(edits: list[tuple[int, bytes]], cut: int) -> None:
    data = bytearray(PDF)
    for at, patch in edits:
        data[at : at + len(patch)] = patch
    write_and_load(".pdf", bytes(data))
    write_and_load(".pdf", bytes(data[:cut]) + b"\n%%EOF\n")


# ------------------------------------------------------------------ chunkers

SENTENCE_PARTS = ["The dose is 5 mg.", "Give it twice daily!", "Is it safe?", "See Dr. Smith et al. 2020.",
                  "e.g. in children", "vs. placebo", "(Class I, LOE: B).", "1. First", "2.5 mg/kg", "word",
                  "no-boundary-run-" * 8, "U.S.A.", "...", "\"Quoted.\"", "a", "Wait", ";"]


@fuzz(100)
@given(parts=st.lists(st.sampled_from(SENTENCE_PARTS), min_size=1, max_size=150), window=st.integers(120, 400))
def test_windowed_sentence_split_equals_pysbd(parts: list[str], window: int) -> None:
    """split_sentences segments long text in windows (pysbd is quadratic): no text is lost or
    repeated, and while no sentence is over half a window long the sentences are the ones pysbd
    finds in the whole text. The window is shrunk here so short texts cross it."""
    from unittest.mock import patch

    from clinqa.text import sentences

    text = " ".join(parts)
    whole = sentences._segment(text)
    with patch.object(sentences, "SEGMENT_CHARS", window):
        windowed = sentences.split_sentences(text)
    assert squash(" ".join(windowed)) == squash(text)
    if max(len(s) for s in whole) < window // 2:
        assert windowed == whole



_HF: HFTokenCounter | None = None


def hf_counter() -> HFTokenCounter:
    """The shipped MiniLM WordPiece tokenizer (the product default's)."""
    global _HF
    if _HF is None:
        _HF = HFTokenCounter(minilm_folder() / "tokenizer.json")
    return _HF


WORDS = ["Give", "heparin", "80", "units/kg.", "The", "dose", "is", "5", "mg", "twice", "daily.", "e.g.", "vs.",
         "Dr.", "(Class", "I)", "eGFR<30:", "≥", "75", "years", "Ignore", "previous", "instructions.", "?", "!",
         "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p", "x" * 120, "中文字符", "ÉCG", "Wait...", "1.5", "mL/kg/h;", "|", "-"]
sentence_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=80).map(" ".join)
line_text = st.lists(sentence_text, min_size=1, max_size=6).map("\n".join)
table_text = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=12).map(
    lambda rows: "\n".join(["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
                           + ["| " + " | ".join(r) + " |" for r in rows[1:]]))
block_text = st.one_of(sentence_text, line_text, st.text(min_size=1, max_size=300))


@st.composite
def blocks(draw: st.DrawFn) -> Block:
    kind = draw(st.sampled_from(["paragraph", "list", "table", "code", "quote"]))
    text = draw(table_text) if kind == "table" and draw(st.booleans()) else draw(block_text)
    assume(text.strip())
    return Block(text=text.strip("\n"), kind=kind)


def sections(depth: int = 2) -> st.SearchStrategy[Section]:
    kids = st.lists(st.deferred(lambda: sections(depth - 1)), max_size=2) if depth else st.just([])
    title = st.one_of(st.just(""), st.sampled_from(["Dosing", "Dosing", "Age >= 75", "Age > 75", "Plan"]),
                      st.text(max_size=30))
    return st.builds(Section, title=title, blocks=st.lists(blocks(), max_size=4), children=kids)


documents = st.builds(
    Document,
    doc_id=st.sampled_from(["corpus/guide", "note:P1:N1", "medquad:x_1"]),
    title=st.text(max_size=40),
    abstract=st.one_of(st.just(""), sentence_text),
    topics=st.lists(st.text(max_size=10), max_size=3),
    sections=st.lists(sections(), max_size=3),
)


def normalized(doc: Document) -> Document:
    """``doc`` with every block's text through :func:`clinqa.text.normalize`, as the chunkers store it
    (chunking version 5): the invariants below compare chunks with the normalised text."""
    from clinqa.text import normalize

    def sec(s):
        return s.model_copy(update={"blocks": [b.model_copy(update={"text": normalize(b.text)}) for b in s.blocks],
                                    "children": [sec(c) for c in s.children]})

    return doc.model_copy(update={"sections": [sec(s) for s in doc.sections]})


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def common_invariants(doc: Document, chunks: list) -> None:
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), ids
    for c in chunks:
        assert c.doc_id == doc.doc_id and c.chunk_id.startswith(doc.doc_id + "#")
        assert c.body.strip(), c
        assert c.content_hash == hashlib.sha256(c.text.encode("utf-8")).hexdigest()
        assert c.text.endswith(c.body)


def section_bodies(doc: Document) -> dict[tuple[str, ...], list[Block]]:
    out: dict[tuple[str, ...], list[Block]] = {}
    for path, sec in doc.walk():
        out.setdefault(path, []).extend(sec.blocks)  # two sections can share a path
    return out


@fuzz(200)
@given(doc=documents, max_tokens=st.sampled_from([24, 40, 64, 256]), target=st.sampled_from([16, 30, 200]),
       overlap=st.integers(0, 3), paragraphs=st.booleans(), real_tokenizer=st.booleans())
def test_hierarchical_invariants(doc: Document, max_tokens: int, target: int, overlap: int, paragraphs: bool,
                                 real_tokenizer: bool) -> None:
    """Hierarchical: unique ids, non-empty bodies; every section/paragraph chunk within the model
    limit unless its header alone leaves under 16 tokens (then its body is within the limit);
    a non-split chunk is a run of whole consecutive blocks of its section; a split chunk is a
    contiguous piece of one block (a table window: the table's header rows then some of its rows)."""
    doc = normalized(doc)
    counter = hf_counter() if real_tokenizer else WordsPlusSpecial()
    chunker = HierarchicalChunker(counter, max_tokens, target, overlap, 2000, paragraphs)
    chunks = chunker.chunk(doc)
    common_invariants(doc, chunks)
    assert chunks == chunker.chunk(doc)  # deterministic
    special = counter.special_tokens
    by_path = section_bodies(doc)
    for c in chunks:
        if c.hierarchy_level == "document":
            assert c.chunk_id == f"{doc.doc_id}#document#0"
            continue
        header_cost = counter.count(c.text[: len(c.text) - len(c.body)].rstrip("\n")) - special
        body_cost = counter.count(c.body) - special
        if max_tokens - special - header_cost >= 16:
            assert c.n_tokens <= max_tokens, (c.n_tokens, c.text)
        else:
            assert body_cost <= max_tokens - special, (body_cost, c.body)
        texts = [b.text for b in by_path[tuple(c.section_path)]]
        if not c.split:
            runs = {"\n\n".join(texts[i:j]) for i in range(len(texts)) for j in range(i + 1, len(texts) + 1)}
            assert c.body in runs, c.body
            if c.hierarchy_level == "paragraph":
                assert c.body in texts
        else:
            assert any(_window_of(c.body, b) for b in by_path[tuple(c.section_path)]), c.body


def _window_of(window: str, block: Block) -> bool:
    """A piece of ``block``: contiguous in it, or (tables) each line a piece of one of its rows."""
    if block.kind == "table":
        rows = [squash(ln) for ln in block.text.splitlines()]
        return all(any(squash(ln) in row for row in rows) for ln in window.split("\n"))
    return squash(window) in squash(block.text)


@fuzz(150)
@given(doc=documents, size=st.integers(1, 40), overlap=st.integers(0, 45))
def test_fixed_invariants(doc: Document, size: int, overlap: int) -> None:
    """Fixed: windows of at most ``size`` words that advance by ``max(1, size - overlap)`` and
    end at the last word; without overlap they are exactly the document's words."""
    doc = normalized(doc)
    chunks = FixedChunker(WordCounter(), size, overlap).chunk(doc)
    common_invariants(doc, chunks)
    words = [w for _, s in doc.walk() for b in s.blocks for w in b.text.split()]
    assert all(len(c.body.split()) <= size and c.hierarchy_level == "window" for c in chunks)
    if not words:
        assert chunks == []
        return
    assert chunks[-1].body.split()[-1] == words[-1]
    if overlap == 0:
        assert [w for c in chunks for w in c.body.split()] == words


@fuzz(150)
@given(doc=documents)
def test_section_invariants(doc: Document) -> None:
    """Section: one chunk per section with blocks, its body the blocks joined by blank lines."""
    doc = normalized(doc)
    chunks = SectionChunker(WordCounter()).chunk(doc)
    common_invariants(doc, chunks)
    expected = ["\n\n".join(b.text for b in s.blocks) for _, s in doc.walk() if s.blocks]
    assert [c.body for c in chunks] == expected


@fuzz(150)
@given(doc=documents, max_tokens=st.sampled_from([16, 40, 256]), window=st.integers(1, 30))
def test_hybrid_invariants(doc: Document, max_tokens: int, window: int) -> None:
    """Hybrid: a section within the limit is one whole chunk; a longer one becomes windows of at
    most ``window`` words that are exactly its words."""
    doc = normalized(doc)
    counter = hf_counter()
    chunks = HybridChunker(counter, max_tokens, window).chunk(doc)
    common_invariants(doc, chunks)
    for c in chunks:
        if c.hierarchy_level == "section":
            assert c.n_tokens <= max_tokens
        else:
            assert len(c.body.split()) <= window
    for path, blocks_ in section_bodies(doc).items():
        if not blocks_:
            continue
        mine = [c for c in chunks if tuple(c.section_path) == path]
        words = [w for b in blocks_ for w in b.text.split()]
        assert [w for c in mine for w in c.body.split()] == words
