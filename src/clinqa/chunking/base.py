"""The Chunk record, the Chunker protocol and the helpers every strategy shares.

Ids are deterministic: ``chunk_id = f"{doc_id}#{section_slug}#{index}"`` where
``section_slug`` is the slugged section path joined by ``/`` (``document`` for the overview
chunk) and ``index`` counts chunks within that section. Re-chunking an unchanged document
with the same settings yields the same ids and content hashes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import date
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, Field

from clinqa.documents.model import Block, Document, page_range
from clinqa.text import normalize
from clinqa.text.blocks import REFERENCES_TITLE

Level = Literal["document", "section", "paragraph", "window", "references"]

def content_levels() -> tuple[str, ...]:
    """Every chunk level but ``document`` (the overview chunks), in :data:`Level` order:
    ``("section", "paragraph", "window", "references")``."""
    return tuple(lv for lv in get_args(Level) if lv != "document")


def level_for(section_path: list[str] | tuple[str, ...], level: Level) -> Level:
    """``"references"`` for a section (or subsection) of a reference list, else ``level``."""
    return "references" if any(REFERENCES_TITLE.match(p.strip()) for p in section_path) else level

HEADER_SEP = " > "


class Chunk(BaseModel):
    """A retrievable passage with its provenance and every document metadata field.

    ``text`` is what gets embedded and BM25-indexed (context header + body); ``body`` is
    the passage alone, used for quoting. ``n_tokens`` counts ``text`` with the embedding
    model's own tokenizer (special tokens included); ``n_words`` counts whitespace words
    of ``body``. ``split`` is true when the chunk is one sentence window of a paragraph
    that was too long for the model. ``page_start``/``page_end`` are the 1-based pages of
    the source its blocks lie on (PDFs; ``None`` for sources without pages; a window of a
    block spanning two pages gets the block's range); ``ocr`` is true when any of its text
    was read from a page image by OCR. ``source_from`` and ``ingested_at`` are the document's, set
    by the ingest (empty in stores written before them).
    """

    chunk_id: str
    doc_id: str
    text: str
    body: str
    section_path: list[str] = Field(default_factory=list)
    hierarchy_level: Level = "section"
    chunk_index: int = 0
    content_hash: str = ""
    n_words: int = 0
    n_tokens: int = 0
    split: bool = False
    page_start: int | None = None
    page_end: int | None = None
    ocr: bool = False
    # copied from the Document
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    source: str = ""
    url: str = ""
    doi: str = ""
    organization: str = ""
    topics: list[str] = Field(default_factory=list)
    patient_id: str | None = None
    note_date: date | None = None
    note_type: str = ""
    author_role: str = ""
    format: str = ""
    path: str = ""
    doc_hash: str = ""
    # set by the ingest (clinqa.ingest), the same on every chunk of a document
    source_from: str = ""  # where ``source`` came from: metadata, --source, folder, loader default
    ingested_at: str = ""  # when the document was stored (ISO 8601, UTC, seconds)

    @property
    def section(self) -> str:
        """The section path as one string, ``"A > B > C"``."""
        return HEADER_SEP.join(self.section_path)


class TokenCounter(Protocol):
    """Counts tokens the way the embedding model will see them."""

    def count(self, text: str) -> int:
        """Tokens in ``text`` including the model's special tokens ([CLS]/[SEP])."""
        ...

    def count_many(self, texts: list[str]) -> list[int]:
        """:meth:`count` for each text, batched."""
        ...

    @property
    def special_tokens(self) -> int:
        """How many special tokens :meth:`count` adds to any text (2 for BERT models)."""
        ...


class Chunker(Protocol):
    """Turns one Document into an ordered list of Chunks."""

    name: str

    def chunk(self, doc: Document) -> list[Chunk]:
        """Chunks of ``doc`` in reading order, overview chunk (if any) first."""
        ...


_slug_re = re.compile(r"[^a-z0-9]+")
# comparison and other signs that distinguish clinical headings ("Age >= 75" vs "Age < 75")
_SIGNS = {">=": " ge ", "<=": " le ", "≥": " ge ", "≤": " le ", ">": " gt ", "<": " lt ", "=": " eq ",
          "+": " plus ", "%": " pct "}
_signs_re = re.compile("|".join(re.escape(k) for k in sorted(_SIGNS, key=len, reverse=True)))


def slug(text: str, max_len: int = 60) -> str:
    """Lower-case ASCII slug: comparison signs become words (``>=`` -> ``ge``), other runs of
    non-alphanumerics become ``-``; cut to ``max_len``."""
    s = _signs_re.sub(lambda m: _SIGNS[m.group(0)], text.lower())
    s = _slug_re.sub("-", s).strip("-")
    return s[:max_len].rstrip("-") or "x"


def unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    """Make chunk ids unique within one document's chunk list, deterministically.

    Two sections can share a slugged path (same title twice under one parent); the second
    and later occurrences get ``~2``, ``~3`` ... appended to the id.
    """
    seen: dict[str, int] = {}
    out: list[Chunk] = []
    for c in chunks:
        n = seen.get(c.chunk_id, 0) + 1
        seen[c.chunk_id] = n
        out.append(c if n == 1 else c.model_copy(update={"chunk_id": f"{c.chunk_id}~{n}"}))
    return out


def chunk_id(doc_id: str, section_path: list[str] | tuple[str, ...], index: int) -> str:
    """``doc_id#slug/of/path#index``; an empty path is written ``document``."""
    path = "/".join(slug(p) for p in section_path) if section_path else "document"
    return f"{doc_id}#{path}#{index}"


def header_for(doc: Document, section_path: list[str] | tuple[str, ...]) -> str:
    """Context header prepended to a chunk body: document title then the section path.

    Notes get their date and type. A first path element equal to the title is not repeated.
    Example: ``"2014 ACC/AHA Guideline ... > Perioperative Beta-Blocker Management > RCRI >= 3"``.
    """
    parts: list[str] = []
    title = doc.title.strip()
    if doc.note_date or doc.note_type:
        meta = " ".join(x for x in (doc.note_type, "note", str(doc.note_date or "")) if x)
        if meta not in title:
            title = f"{title} ({meta})" if title else meta
    if title:
        parts.append(title)
    for p in section_path:
        if p and (not parts or p.strip() != parts[-1]):
            parts.append(p.strip())
    return HEADER_SEP.join(parts)


def compose(header: str, body: str) -> str:
    """The text that is embedded and indexed: header, blank line, body."""
    return f"{header}\n\n{body}" if header else body


def make_chunk(
    doc: Document,
    *,
    body: str,
    section_path: list[str] | tuple[str, ...],
    index: int,
    level: Level,
    counter: TokenCounter | None,
    header: str | None = None,
    split: bool = False,
    doc_hash: str = "",
    blocks: Sequence[Block] = (),
) -> Chunk:
    """Build a Chunk for ``doc``: id, composed text, hash, counts and copied metadata. Header and
    body are Unicode-normalised (:func:`clinqa.text.normalize`: ligatures, micro sign, dashes,
    quotes), as queries are, so "ﬁbrillation" finds "fibrillation"; the id keeps the raw path. Its page
    range and ``ocr`` flag come from ``blocks``, the blocks its body was taken from."""
    page_start, page_end = page_range(list(blocks))
    head = normalize(header_for(doc, section_path) if header is None else header)
    body = normalize(body)
    text = compose(head, body)
    if level != "document":
        level = level_for(section_path, level)
    return Chunk(
        chunk_id=chunk_id(doc.doc_id, section_path, index),
        doc_id=doc.doc_id,
        text=text,
        body=body,
        section_path=list(section_path),
        hierarchy_level=level,
        chunk_index=index,
        content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        n_words=len(body.split()),
        n_tokens=counter.count(text) if counter else len(text.split()),
        split=split,
        page_start=page_start,
        page_end=page_end,
        ocr=any(b.ocr for b in blocks),
        title=doc.title,
        authors=doc.authors,
        year=doc.year,
        source=doc.source,
        url=doc.url,
        doi=doc.doi,
        organization=doc.organization,
        topics=doc.topics,
        patient_id=doc.patient_id,
        note_date=doc.note_date,
        note_type=doc.note_type,
        author_role=doc.author_role,
        format=doc.format,
        path=doc.path,
        doc_hash=doc_hash or doc.content_hash(),
        source_from=doc.source_from,
    )
