"""The document model every loader produces and every chunker consumes.

A :class:`Document` is a tree: sections hold blocks (paragraphs, lists, tables, code)
and child sections. Loaders keep the structure the source has (headings, JATS
``<sec>``, MedQuAD QA pairs, PubMedQA section labels); chunkers decide how to cut it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

BlockKind = Literal["paragraph", "list", "table", "code", "quote", "caption"]


class Block(BaseModel):
    """One unit of body text that a chunker must never cut in the middle of a paragraph.

    ``kind="table"`` blocks are kept whole (a table row is meaningless without its header);
    ``kind="list"`` is one top-level list item with its nested items; ``kind="caption"`` is a
    figure or table caption (PDF).
    ``page_start``/``page_end`` are the 1-based pages of a paginated source (PDF) the block
    lies on (``None`` where the source has no pages); ``ocr`` is true when its text was read
    from a page image by OCR.
    """

    text: str
    kind: BlockKind = "paragraph"
    page_start: int | None = None
    page_end: int | None = None
    ocr: bool = False


class Section(BaseModel):
    """A titled section: its own blocks followed by its child sections, in reading order."""

    title: str = ""
    blocks: list[Block] = Field(default_factory=list)
    children: list[Section] = Field(default_factory=list)

    def walk(self, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Section]]:
        """Return ``[(section_path, section), ...]`` depth-first, this section included.

        ``section_path`` is the tuple of titles from the top-level section down to this one;
        untitled sections add nothing to the path.
        """
        here = path + ((self.title,) if self.title else ())
        out = [(here, self)]
        for child in self.children:
            out.extend(child.walk(here))
        return out


class Document(BaseModel):
    """A loaded document with its metadata and section tree.

    Metadata fields are copied onto every chunk (see :mod:`clinqa.chunking`), so filters on
    ``year``, ``source``, ``patient_id`` and ``note_date`` work at chunk level in the store.
    ``abstract`` (if any) feeds the document-overview chunk. ``source_from`` says where ``source``
    came from (:data:`SOURCE_ORIGINS`); left empty by a loader, the ingest infers it
    (:func:`source_origin`). Neither it nor ``path`` is part of :meth:`content_hash`.
    """

    doc_id: str
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
    abstract: str = ""
    path: str = ""
    format: str = ""
    source_from: str = ""
    sections: list[Section] = Field(default_factory=list)

    def walk(self) -> list[tuple[tuple[str, ...], Section]]:
        """All sections depth-first as ``(section_path, section)`` pairs."""
        out: list[tuple[tuple[str, ...], Section]] = []
        for s in self.sections:
            out.extend(s.walk())
        return out

    def text(self) -> str:
        """The whole body as plain text, blocks separated by blank lines."""
        return "\n\n".join(b.text for _, s in self.walk() for b in s.blocks)

    def content_hash(self) -> str:
        """SHA-256 (hex) over metadata and body: unchanged documents can be skipped on re-ingest."""
        payload = self.model_dump(mode="json", exclude={"path", "source_from"})
        for sec in _sections(payload.get("sections", [])):
            for block in sec.get("blocks", []):  # unset page fields leave the hash of older versions
                for key, default in (("page_start", None), ("page_end", None), ("ocr", False)):
                    if block.get(key) == default:
                        block.pop(key, None)
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _sections(sections: list[dict]) -> list[dict]:
    """Every section dict of a dumped section tree, depth-first."""
    out: list[dict] = []
    for sec in sections:
        out.append(sec)
        out.extend(_sections(sec.get("children", [])))
    return out


def page_range(blocks: list[Block]) -> tuple[int | None, int | None]:
    """``(first page, last page)`` over ``blocks`` (1-based; ``(None, None)`` when none has pages)."""
    starts = [b.page_start for b in blocks if b.page_start is not None]
    ends = [b.page_end if b.page_end is not None else b.page_start for b in blocks if b.page_start is not None]
    return (min(starts), max(e for e in ends if e is not None)) if starts else (None, None)


#: where a document's ``source`` came from: the file's or its registry's own metadata (front matter, JATS
#: journal title, HTML citation meta, a registry's organization, a MedQuAD source attribute), the ingest's
#: ``--source`` option, the name of the folder the file lies in (when nothing better is known), or the fixed
#: source of a loader (``pubmed`` for PubMedQA, ``notes`` for patient notes)
SOURCE_ORIGINS: tuple[str, ...] = ("metadata", "--source", "folder", "loader default")
#: formats whose loader gives every document the same source
_FIXED_SOURCE_FORMATS = frozenset({"pubmedqa", "notes"})


def source_origin(doc: Document) -> str:
    """Where ``doc.source`` came from (one of :data:`SOURCE_ORIGINS`, ``""`` when it has no source):
    ``doc.source_from`` when a loader or the ingest set it, else inferred: ``loader default`` for the
    formats with a fixed source; ``folder`` when the source is the name of the folder ``doc.path`` lies in
    (for MedQuAD, that name after ``medquad:``), which is what the file loaders fall back to; else
    ``metadata``."""
    from pathlib import PurePath

    if doc.source_from:
        return doc.source_from
    if not doc.source:
        return ""
    if doc.format in _FIXED_SOURCE_FORMATS:
        return "loader default"
    folder = PurePath(doc.path).parent.name if doc.path else None
    name = doc.source.removeprefix("medquad:") if doc.format == "medquad" else doc.source
    return "folder" if folder is not None and name == folder else "metadata"
