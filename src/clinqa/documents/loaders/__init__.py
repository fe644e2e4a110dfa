"""Document loaders: files in many formats -> :class:`~clinqa.documents.model.Document`.

Public API:

- :data:`FORMATS` - the format names;
- :func:`detect_format` - format from the extension, sniffing content where it is ambiguous;
- :func:`load_file` - one file -> list of Documents (corpora give many), LoadError on failure;
- :func:`iter_documents` - files and directories -> Documents, :class:`Skipped` notices and
  LoadErrors, one failing file never stopping the others; applies registry sidecars
  (:mod:`clinqa.documents.registry`).

Each format has its own module with a ``load(path) -> list[Document]`` function.

Limits (:class:`~clinqa.settings.IngestSettings`, ``limits=`` of :func:`load_file` and
:func:`iter_documents`): a file over ``max_file_mb`` is refused unread; Markdown and text with
a line over ``max_block_chars`` are refused before parsing; a loaded document with a block over
``max_block_chars`` or a title/heading over ``max_heading_chars`` fails its file; Markdown and
PDF parsing stops after ``max_parse_seconds``. Each is a LoadError naming the setting.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from clinqa.documents import registry as _registry
from clinqa.documents.loaders._common import path_doc_id
from clinqa.documents.loaders._io import (
    MEDQUAD_ROOTS,
    NATIVE_ID_FORMATS,
    applying_limits,
    check_document_limits,
    iter_jsonl,
    read_head,
    sniff_xml_root,
)
from clinqa.documents.model import Document
from clinqa.errors import LoadError
from clinqa.settings import IngestSettings

__all__ = ["FORMATS", "Skipped", "detect_format", "iter_documents", "load_file"]

FORMATS: tuple[str, ...] = ("markdown", "text", "html", "pdf", "docx", "jats", "medquad", "pubmedqa", "beir", "notes")

#: format -> its module under clinqa.documents.loaders, imported on first use (pdfplumber, lxml and
#: markdown-it cost ~0.3 s of start-up that `clinqa ask` does not need)
_LOADER_MODULES: dict[str, str] = {name: name for name in FORMATS}


def _loader(fmt: str) -> Callable[[Path], list[Document]] | None:
    """The ``load(path)`` function of format ``fmt``, importing its module on first use; None for an
    unknown format."""
    module = _LOADER_MODULES.get(fmt)
    if module is None:
        return None
    return importlib.import_module(f"clinqa.documents.loaders.{module}").load
_SNIFF = "?"
_EXTENSIONS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".nxml": "jats",
    ".xml": _SNIFF,
    ".json": _SNIFF,
    ".jsonl": _SNIFF,
    ".ndjson": _SNIFF,
    ".csv": "notes",
}
#: Formats whose doc_id falls back to the file path (the others carry native ids).
_PATH_ID_FORMATS = frozenset(FORMATS) - NATIVE_ID_FORMATS
_SKIP_PREFIXES = ("readme", "license", "licence", "changelog")


@dataclass(frozen=True)
class Skipped:
    """A file :func:`iter_documents` passed over on purpose (not an error).

    ``reason`` is one line, e.g. ``"skipped: unsupported file type '.foo'"``.
    """

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def detect_format(path: Path) -> str:
    """The format name (one of :data:`FORMATS`) for a file.

    By extension; where it is ambiguous the content is sniffed: ``.xml`` by its root element
    (JATS ``<article>`` vs MedQuAD ``<Document>``/``<doc>``/``<DiseaseFile>``), ``.json``
    must be a PubMedQA object (PMID -> record), ``.jsonl``/``.ndjson`` by the first record
    (``patient_id`` -> notes, ``_id`` -> BEIR), ``.csv`` is notes. Raises LoadError for an
    unknown extension ("unsupported file type '.foo'"), unrecognised content, or an
    unreadable/empty file when sniffing.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    fmt = _EXTENSIONS.get(suffix)
    if fmt is None:
        raise LoadError(path, f"unsupported file type {suffix!r}" if suffix else "unsupported file type (no extension)")
    if fmt != _SNIFF:
        return fmt
    if suffix == ".xml":
        head = read_head(path)
        if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise LoadError(path, "binary content, not text (NUL bytes)")
        root = sniff_xml_root(head)
        if root == "article":
            return "jats"
        if root is not None and root.lower() in MEDQUAD_ROOTS:
            return "medquad"
        if root is None:
            raise LoadError(path, "XML is not well-formed: no root element found")
        raise LoadError(
            path, f"unrecognised XML (root element <{root}>; expected JATS <article> or MedQuAD <Document>)"
        )
    if suffix == ".json":
        head = read_head(path, 4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        if b"\x00" in head:
            raise LoadError(path, "binary content, not text (NUL bytes)")
        if not head:
            raise LoadError(path, "empty file (only whitespace)")
        if head[:1] != b"{":
            raise LoadError(path, "unrecognised JSON: expected a PubMedQA object mapping PMID -> record")
        return "pubmedqa"
    gen = iter_jsonl(path)
    try:
        _, first = next(gen)
    finally:
        gen.close()
    if "patient_id" in first:
        return "notes"
    if "_id" in first:
        return "beir"
    raise LoadError(path, "unrecognised JSONL: line 1 has neither '_id' (BEIR corpus) nor 'patient_id' (notes)")


def _load(path: Path, format: str | None, base_dir: Path | None, limits: IngestSettings | None) -> list[Document]:
    fmt = format
    try:
        with applying_limits(limits, path):
            fmt = format or detect_format(path)
            loader = _loader(fmt)
            if loader is None:
                raise LoadError(path, f"unknown format {fmt!r} (expected one of: {', '.join(FORMATS)})")
            docs = loader(path)
            check_document_limits(path, docs)
    except LoadError:
        raise
    except RecursionError:
        raise LoadError(path, f"could not parse as {fmt or 'unknown format'}: nested too deeply") from None
    except MemoryError:
        raise LoadError(path, f"could not parse as {fmt or 'unknown format'}: out of memory") from None
    except Exception as exc:  # the contract is LoadError and nothing else
        detail = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise LoadError(path, f"could not parse as {fmt or 'unknown format'}: {detail}") from exc
    if base_dir is not None and fmt in _PATH_ID_FORMATS:
        fallback = path_doc_id(path)
        for doc in docs:
            if doc.doc_id == fallback:
                doc.doc_id = path_doc_id(path, base_dir)
    return docs


def load_file(path: Path, format: str | None = None, limits: IngestSettings | None = None) -> list[Document]:
    """Load one file; ``format`` (one of :data:`FORMATS`) overrides detection; ``limits``
    (default: :class:`~clinqa.settings.IngestSettings` defaults) caps sizes and parse time.

    Returns the file's Documents (one for Markdown/text/HTML/PDF/Word/JATS/MedQuAD; one per
    record for PubMedQA JSON, BEIR corpora and notes files). doc_id is the format's native
    id, else the slugged file stem. No registry is applied (see :func:`iter_documents`).
    Raises :class:`~clinqa.errors.LoadError` and nothing else: unexpected failures become
    ``LoadError(path, "could not parse as <format>: <error>")``.
    """
    return _load(Path(path), format, None, limits)


def _skip_name(name: str) -> str | None:
    lower = name.lower()
    if lower in _registry.REGISTRY_NAMES:
        return "skipped: registry sidecar (applied to the documents beside it)"
    if lower.startswith(_SKIP_PREFIXES):
        return "skipped: README/LICENSE/CHANGELOG file"
    return None


def _registries(
    directory: Path, inherited: dict[str, _registry.RegistryEntry], errors: list[LoadError]
) -> dict[str, _registry.RegistryEntry]:
    mapping = dict(inherited)
    for reg_path in _registry.find_registries(directory):
        try:
            mapping.update(_registry.load_registry(reg_path))
        except LoadError as err:
            errors.append(err)
    return mapping


def _load_one(
    path: Path,
    format: str | None,
    base_dir: Path | None,
    entries: dict[str, _registry.RegistryEntry],
    limits: IngestSettings | None,
) -> Iterator[Document | LoadError | Skipped]:
    if format is None and base_dir is not None:  # in a walk, unknown types are skipped
        suffix = path.suffix.lower()
        if suffix not in _EXTENSIONS:
            yield Skipped(
                str(path),
                f"skipped: unsupported file type {suffix!r}"
                if suffix
                else "skipped: unsupported file type (no extension)",
            )
            return
    try:
        docs = _load(path, format, base_dir, limits)
    except LoadError as err:
        from clinqa.documents.loaders.medquad import NoAnsweredPairs

        yield Skipped(str(path), f"skipped: {err.reason}") if isinstance(err, NoAnsweredPairs) else err
        return
    entry = entries.get(path.stem)
    if entry is not None and len(docs) == 1:
        _registry.apply_entry(docs[0], entry)
    yield from docs


def _walk(
    directory: Path,
    base_dir: Path,
    format: str | None,
    inherited: dict[str, _registry.RegistryEntry],
    seen: set[str],
    exclude: frozenset[Path] = frozenset(),
    limits: IngestSettings | None = None,
) -> Iterator[Document | LoadError | Skipped]:
    real = os.path.realpath(directory)
    if real in seen:
        return
    seen.add(real)
    try:
        children = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        yield LoadError(directory, f"cannot list directory: {exc.strerror or exc}")
        return
    errors: list[LoadError] = []
    entries = _registries(directory, inherited, errors)
    yield from errors
    for child in children:
        if child.name.startswith(".") or child in exclude:
            continue
        if child.is_dir():
            entry = entries.get(child.name)
            grouped: frozenset[Path] = frozenset()
            if entry is not None and format in (None, "markdown"):
                try:
                    md_files = sorted(
                        f
                        for f in child.iterdir()
                        if f.is_file()
                        and not f.name.startswith(".")
                        and _skip_name(f.name) is None
                        and _EXTENSIONS.get(f.suffix.lower()) == "markdown"
                    )
                except OSError:
                    md_files = []  # the recursive walk below reports the unreadable directory
                if md_files:
                    with applying_limits(limits, child):
                        doc, errs = _registry.load_registry_folder(child, entry, md_files)
                        try:
                            check_document_limits(child, [doc] if doc is not None else [])
                        except LoadError as err:
                            errs.append(err)
                            doc = None
                    yield from errs
                    if doc is not None:
                        yield doc
                    grouped = frozenset(md_files)
            yield from _walk(child, base_dir, format, entries, seen, grouped, limits)
        elif child.is_file():
            reason = _skip_name(child.name)
            if reason is not None:
                yield Skipped(str(child), reason)
                continue
            yield from _load_one(child, format, base_dir, entries, limits)


def iter_documents(
    paths: Sequence[Path], format: str | None = None, limits: IngestSettings | None = None
) -> Iterator[Document | LoadError | Skipped]:
    """Load files and directories, yielding Documents, Skipped notices and LoadErrors.

    Directories are walked recursively in sorted order; hidden files and directories are
    ignored; README*/LICENSE*/CHANGELOG*, registry files and files of unknown type are
    yielded as :class:`Skipped`. A file that fails yields its LoadError and the walk goes on.
    ``format`` forces one format for every file. Registry sidecars (see
    :mod:`clinqa.documents.registry`) are read from each walked directory (the passed one and
    those below it); for a file passed directly, from the file's own directory. doc_ids of
    path-identified formats are the slugged path relative to the passed directory, without
    extension (the slugged stem for a file passed directly). ``limits`` (default: the
    :class:`~clinqa.settings.IngestSettings` defaults) caps sizes and parse time per file.
    Never raises for bad input.
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from _walk(path, path, format, {}, set(), limits=limits)
        elif path.is_file():
            reason = _skip_name(path.name) if path.name.lower() in _registry.REGISTRY_NAMES else None
            if reason is not None:
                yield Skipped(str(path), reason)
                continue
            errors: list[LoadError] = []
            entries = _registries(path.parent, {}, errors)
            yield from errors
            yield from _load_one(path, format, None, entries, limits)
        elif path.exists():
            yield LoadError(path, "not a regular file or directory")
        else:
            yield LoadError(path, "no such file or directory")
