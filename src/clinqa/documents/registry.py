"""Registry sidecars: per-document metadata beside a folder of source files.

A ``registry.json`` (or ``registry.yaml`` / ``registry.yml``) holds either a list of entries
or a mapping ``id -> entry``; an entry has ``id``, and optionally ``title``, ``doi``,
``year``, ``organization``, ``topics``, ``sections``, ``url``, ``authors``; other keys are
ignored. Example: the open-medicine guideline registry (``raw/guidelines/registry.json``
with ``content/<id>/<section>.md``).

Rules applied by :func:`clinqa.documents.loaders.iter_documents` during a directory walk:

- registries are looked up in each directory from the directory the user passed down to
  the file's own directory; a nearer registry overrides a farther one entry by entry;
- a subdirectory named like a registry id makes ALL its Markdown files ONE Document
  (``doc_id`` = the id): each file is a top-level section (the file's H1 as title, its
  subheadings nested beneath), ordered by the entry's ``sections`` (file stem match), the
  other files after in name order;
- a file whose stem is a registry id gets that entry's metadata;
- registry metadata overrides the file's: title, year, doi (and url
  ``https://doi.org/<doi>``), organization (and source), topics, authors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clinqa.documents.model import Document, Section
from clinqa.errors import LoadError

#: File names recognised as registries, in lookup order.
REGISTRY_NAMES: tuple[str, ...] = ("registry.json", "registry.yaml", "registry.yml")
#: Registries larger than this are refused (they hold metadata, not content).
MAX_REGISTRY_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class RegistryEntry:
    """Metadata for one registry id (see module doc for the keys)."""

    id: str
    title: str = ""
    doi: str = ""
    year: int | None = None
    organization: str = ""
    topics: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    url: str = ""
    authors: tuple[str, ...] = ()
    registry: str = field(default="", compare=False)


def find_registries(directory: Path) -> list[Path]:
    """The registry files present in ``directory`` (in :data:`REGISTRY_NAMES` order)."""
    return [directory / name for name in REGISTRY_NAMES if (directory / name).is_file()]


def _str(path: Path, where: str, entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise LoadError(path, f"{where}: {key!r} must be a string, got {type(value).__name__}")
    return " ".join(str(value).split())


def _str_seq(path: Path, where: str, entry: dict[str, Any], key: str) -> tuple[str, ...]:
    value = entry.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
        raise LoadError(path, f"{where}: {key!r} must be a list of strings")
    out: list[str] = []
    for v in value:
        s = " ".join(str(v).split())
        if s and s not in out:
            out.append(s)
    return tuple(out)


def _entry(path: Path, index: int, raw: Any, key: str | None) -> RegistryEntry:
    where = f"entry {index + 1}" + (f" ({key!r})" if key else "")
    if not isinstance(raw, dict):
        raise LoadError(path, f"{where}: expected a mapping, got {type(raw).__name__}")
    ident = raw.get("id", key)
    if isinstance(ident, bool) or not isinstance(ident, str | int) or not str(ident).strip():
        raise LoadError(path, f"{where}: missing 'id'")
    ident = str(ident).strip()
    where = f"entry {index + 1} ({ident!r})"
    year_raw = raw.get("year")
    year: int | None = None
    if year_raw is not None:
        if isinstance(year_raw, bool) or not (
            isinstance(year_raw, int) or (isinstance(year_raw, str) and year_raw.strip().isdigit())
        ):
            raise LoadError(path, f"{where}: 'year' must be an integer year, got {year_raw!r}")
        year = int(year_raw)
    doi = _str(path, where, raw, "doi")
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if doi.lower().startswith(prefix):
            doi = doi[len(prefix) :]
    return RegistryEntry(
        id=ident,
        title=_str(path, where, raw, "title"),
        doi=doi,
        year=year,
        organization=_str(path, where, raw, "organization"),
        topics=_str_seq(path, where, raw, "topics"),
        sections=_str_seq(path, where, raw, "sections"),
        url=_str(path, where, raw, "url"),
        authors=_str_seq(path, where, raw, "authors"),
        registry=str(path),
    )


def load_registry(path: Path) -> dict[str, RegistryEntry]:
    """Read one registry file into ``{id: RegistryEntry}`` (file order kept).

    Raises LoadError naming the registry file: unreadable/empty/non-UTF-8 file, "invalid
    registry JSON at line L column C: ...", "invalid registry YAML: ...", wrong shape
    ("registry must be a list of entries or a mapping id -> entry"), an entry without
    ``id``, badly typed fields, duplicate ids.
    """
    from clinqa.documents.loaders._io import read_text  # late: loaders imports this module

    text = read_text(path, max_bytes=MAX_REGISTRY_BYTES)
    data: Any
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoadError(path, f"invalid registry JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        except RecursionError:
            raise LoadError(path, "invalid registry JSON (nested too deeply)") from None
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise LoadError(path, f"invalid registry YAML: {' '.join(str(exc).split())}") from None
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        data = data["entries"]
    items: list[tuple[Any, str | None]]
    if isinstance(data, list):
        items = [(raw, None) for raw in data]
    elif isinstance(data, dict):
        items = [(raw, str(key)) for key, raw in data.items()]
    else:
        raise LoadError(path, f"registry must be a list of entries or a mapping id -> entry, got {type(data).__name__}")
    out: dict[str, RegistryEntry] = {}
    for i, (raw, key) in enumerate(items):
        entry = _entry(path, i, raw, key)
        if entry.id in out:
            raise LoadError(path, f"entry {i + 1}: duplicate id {entry.id!r}")
        out[entry.id] = entry
    return out


def apply_entry(doc: Document, entry: RegistryEntry) -> Document:
    """Override ``doc``'s id and metadata with the registry entry's (in place; returns doc).

    Fields the entry leaves empty keep the document's own values.
    """
    doc.doc_id = entry.id
    if entry.title:
        doc.title = entry.title
    if entry.year is not None:
        doc.year = entry.year
    if entry.doi:
        doc.doi = entry.doi
        doc.url = f"https://doi.org/{entry.doi}"
    elif entry.url:
        doc.url = entry.url
    if entry.organization:
        doc.organization = entry.organization
        doc.source = entry.organization
    if entry.topics:
        doc.topics = list(entry.topics)
    if entry.authors:
        doc.authors = list(entry.authors)
    return doc


def _file_section(path: Path, h1: str, sections: list[Section]) -> Section:
    from clinqa.documents.loaders._common import humanize

    preamble = [s for s in sections if not s.title]
    titled = [s for s in sections if s.title]
    if h1 and len(titled) == 1 and titled[0].title == h1:
        top = titled[0]
        lead = [b for s in preamble for b in s.blocks]
        return Section(title=top.title, blocks=lead + top.blocks, children=top.children)
    return Section(
        title=humanize(path.stem),
        blocks=[b for s in preamble for b in s.blocks],
        children=titled,
    )


def order_files(files: Sequence[Path], entry: RegistryEntry) -> list[Path]:
    """Files in the entry's ``sections`` order (stem match), the others after by name."""
    rank = {stem: i for i, stem in enumerate(entry.sections)}
    listed = sorted((f for f in files if f.stem in rank), key=lambda f: (rank[f.stem], f.name))
    rest = sorted((f for f in files if f.stem not in rank), key=lambda f: f.name)
    return listed + rest


def load_registry_folder(
    folder: Path, entry: RegistryEntry, files: Sequence[Path]
) -> tuple[Document | None, list[LoadError]]:
    """Load the Markdown ``files`` of a registry-id folder as ONE Document.

    Returns ``(document, errors)``: a file that fails to load is reported in ``errors`` and
    left out; the document is None only when no file loaded. Never raises.
    """
    from clinqa.documents.loaders._io import read_text
    from clinqa.documents.loaders.markdown import parse_markdown, split_front_matter

    errors: list[LoadError] = []
    sections: list[Section] = []
    for path in order_files(files, entry):
        try:
            _, body = split_front_matter(read_text(path))
            h1, parsed = parse_markdown(body)
        except LoadError as err:
            errors.append(err)
            continue
        except Exception as exc:  # one bad file must not stop the folder
            errors.append(LoadError(path, f"could not parse as markdown: {exc}"))
            continue
        if not parsed:
            errors.append(LoadError(path, "no text content"))
            continue
        sections.append(_file_section(path, h1, parsed))
    if not sections:
        return None, errors
    doc = Document(
        doc_id=entry.id,
        title=entry.title or folder.name,
        source=folder.parent.name,
        path=str(folder),
        format="markdown",
        sections=sections,
    )
    return apply_entry(doc, entry), errors
