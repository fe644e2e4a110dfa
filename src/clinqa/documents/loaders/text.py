"""Plain-text loader: paragraphs are separated by blank lines; no other structure is assumed."""

from __future__ import annotations

from pathlib import Path

from clinqa.documents.loaders._common import path_doc_id, year_line
from clinqa.documents.loaders._io import check_line_lengths, read_text
from clinqa.documents.model import Block, Document, Section
from clinqa.text.blocks import BLANK_LINE

_BLANK_LINES = BLANK_LINE
#: A first line shorter than this is taken as the title.
MAX_TITLE_CHARS = 120


def split_paragraphs(text: str) -> list[str]:
    """Split text on blank lines; each paragraph keeps its inner line breaks (right-stripped)."""
    out: list[str] = []
    for para in _BLANK_LINES.split(text):
        lines = [line.rstrip() for line in para.split("\n")]
        joined = "\n".join(lines).strip("\n")
        if joined.strip():
            out.append(joined)
    return out


def load(path: Path) -> list[Document]:
    """Load one UTF-8 text file as one Document with one untitled section.

    Title = the first line when it is shorter than 120 characters (that line is then not
    repeated as a paragraph if it stands alone), else the file stem. doc_id = the slugged
    stem, source = the parent directory name, year = a ``Year:``/``Date:`` line among the first lines
    (:func:`~clinqa.documents.loaders._common.year_line`). Raises LoadError for unreadable, empty,
    binary or non-UTF-8 files and for a line longer than ``ingest.max_block_chars``.
    """
    text = read_text(path)
    check_line_lengths(path, text)
    paragraphs = split_paragraphs(text)
    first_line = paragraphs[0].split("\n", 1)[0].strip() if paragraphs else ""
    if first_line and len(first_line) < MAX_TITLE_CHARS:
        title = first_line
        if paragraphs[0].strip() == first_line and len(paragraphs) > 1:
            paragraphs = paragraphs[1:]
    else:
        title = path.stem
    section = Section(blocks=[Block(text=p) for p in paragraphs])
    return [
        Document(
            doc_id=path_doc_id(path),
            title=title,
            source=path.parent.name,
            path=str(path),
            format="text",
            year=year_line(text),
            sections=[section],
        )
    ]
