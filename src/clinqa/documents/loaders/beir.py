"""BEIR corpus loader (``corpus.jsonl``; Thakur et al., NeurIPS 2021 Datasets & Benchmarks).

One JSON object per line: ``{"_id": str, "title": str, "text": str, "metadata": {...}}``;
``_id`` and ``text`` are required. ``text`` is parsed as Markdown with the shared parser of
:mod:`clinqa.documents.loaders.markdown` (``## Methods`` opens a section; plain text simply
becomes paragraphs). Known metadata keys are mapped: year, source, url, doi, authors,
topics/meshes/keywords/focus. The file is streamed line by line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clinqa.documents.loaders._common import norm_ws, parse_year, str_list
from clinqa.documents.loaders._io import iter_jsonl
from clinqa.documents.loaders.markdown import markdown_parser, parse_markdown
from clinqa.documents.model import Document
from clinqa.errors import LoadError

_TOPIC_KEYS = ("topics", "meshes", "mesh", "keywords", "tags", "focus")


def _metadata(doc: Document, meta: dict[str, Any]) -> None:
    year = parse_year(meta.get("year"))
    if year is None and meta.get("date") is not None:
        year = parse_year(str(meta.get("date")))
    doc.year = year
    for key in ("source", "url", "doi", "organization"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            setattr(doc, key, value.strip())
    if doc.doi and not doc.url:
        doc.url = f"https://doi.org/{doc.doi}"
    doc.authors = str_list(meta.get("authors"))
    topics: list[str] = []
    for key in _TOPIC_KEYS:
        for t in str_list(meta.get(key)):
            if t not in topics:
                topics.append(t)
    doc.topics = topics


def iter_load(path: Path) -> Iterator[Document]:
    """Stream the Documents of a BEIR corpus file, one per line, in file order.

    Raises LoadError (at the failing line, after yielding the lines before it): "line N:
    invalid JSON (...)", "line N: missing required field '_id'", "line N: field 'text'
    must be a string", and the reading errors of :func:`~._io.iter_jsonl`.
    """
    md = markdown_parser()
    default_source = path.parent.name
    for line_no, rec in iter_jsonl(path):
        for field in ("_id", "text"):
            if field not in rec or rec[field] is None:
                raise LoadError(path, f"line {line_no}: missing required field {field!r}")
        doc_id = rec["_id"]
        if not isinstance(doc_id, str | int) or isinstance(doc_id, bool) or not str(doc_id).strip():
            raise LoadError(path, f"line {line_no}: field '_id' must be a non-empty string")
        text = rec["text"]
        if not isinstance(text, str):
            raise LoadError(path, f"line {line_no}: field 'text' must be a string")
        title = rec.get("title")
        title = norm_ws(title) if isinstance(title, str) else ""
        md_title, sections = parse_markdown(text, md)
        doc = Document(
            doc_id=str(doc_id).strip(),
            title=title or md_title,
            source=default_source,
            path=str(path),
            format="beir",
            sections=sections,
        )
        meta = rec.get("metadata")
        if isinstance(meta, dict):
            _metadata(doc, meta)
        yield doc


def load(path: Path) -> list[Document]:
    """Load a whole BEIR ``corpus.jsonl``: one Document per line.

    doc_id = ``_id`` (unchanged, so qrels match), title = ``title`` (or the text's first
    H1), source = ``metadata.source`` or the parent directory name (the dataset). Raises
    LoadError like :func:`iter_load`; a bad line fails the whole file.
    """
    return list(iter_load(path))
