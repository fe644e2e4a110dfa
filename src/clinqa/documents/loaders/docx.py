"""Word loader (``.docx``, Office Open XML) on python-docx.

Structure, in body order (paragraphs and tables interleaved as in the file):

- paragraphs styled ``Heading 1`` .. ``Heading 9`` (or carrying an outline level) open sections
  nested by level; a ``Title`` paragraph is the document title (else the core property
  ``title``, else the file stem);
- numbered or bulleted paragraphs (a ``w:numPr`` or a ``List ...`` style) become list blocks,
  one per top-level item with its nested items indented beneath it (``"- Give oxygen\\n  - target
  SpO2 94-98%"``; numbered lists keep their numbers);
- tables become one table block each (a Markdown pipe table, first row as header), kept whole;
  a table nested in a cell contributes its text to that cell;
- other paragraphs are paragraph blocks; empty ones are dropped.

Superscript and subscript runs (``w:vertAlign``, set on the run or by its character style: python-docx's
``run.font.superscript``/``subscript``) and Unicode super/subscript characters are written in the
plain-text forms of :mod:`clinqa.text.scripts` (issue 42): ``40 x 10`` + superscript ``9`` + ``/L`` is
``40 x 10^9/L``, never "109/L"; ``CO`` + subscript ``2`` is ``CO2``; a superscript citation after a word
is ``trial[12]``. Adjacent runs with the same alignment are read as one script.

Authors come from the core property ``author`` (the year, as for PDFs, from a registry sidecar).

The file is untrusted: it is a ZIP archive, so before python-docx opens it the archive's member
list is checked (the unpacked size may not exceed ``ingest.max_file_mb``, no member may expand
more than 200-fold: a zip bomb), XML parts with a ``<!DOCTYPE`` or ``<!ENTITY`` are refused, and
parsing checks the ``ingest.max_parse_seconds`` clock every 200 paragraphs. lxml parses with
``resolve_entities=False`` and its default depth limit. An encrypted Word file (an OLE container,
not a ZIP) and an old ``.doc`` are refused with their own reasons.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

from clinqa.documents.loaders._common import SectionBuilder, has_content, norm_ws, path_doc_id, pipe_table
from clinqa.documents.loaders._io import check_deadline, current_limits, read_bytes, xml_limit_reason
from clinqa.documents.loaders._scripts import unicode_in_sections
from clinqa.documents.model import Document
from clinqa.errors import LoadError
from clinqa.text.scripts import subscript, superscript, unicode_scripts

#: A member that expands more than this many times over its compressed size is a zip bomb.
MAX_RATIO = 200
_HEADING = re.compile(r"^heading\s*(\d)$", re.I)
_LIST_STYLE = re.compile(r"^list", re.I)
#: core-property titles that templates leave behind (python-docx writes "Word Document")
_PLACEHOLDER_TITLES = {"word document", "document", "untitled", "title"}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _check_archive(path: Path, data: bytes) -> None:
    """Refuse what is not a safe .docx before python-docx reads it (see module docstring)."""
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise LoadError(path, "encrypted Word document or old .doc format (an OLE container, not .docx): "
                              "remove the password or save it as .docx")
    if not data.startswith(b"PK"):
        raise LoadError(path, "not a Word .docx file (not a ZIP archive)")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise LoadError(path, f"corrupt or truncated .docx: {norm_ws(str(exc))}") from None
    with zf:
        infos = zf.infolist()
        names = {i.filename for i in infos}
        if "word/document.xml" not in names:
            raise LoadError(path, "not a Word .docx file (no word/document.xml in the archive)")
        limit = int(current_limits().max_file_mb * 1024 * 1024)
        total = sum(i.file_size for i in infos)
        if total > limit:
            raise LoadError(path, f"unpacks to {total / 1048576:.1f} MB (> {limit / 1048576:.0f} MB limit: "
                                  "setting ingest.max_file_mb)")
        for info in infos:
            if info.file_size > 1_000_000 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise LoadError(path, f"zip bomb refused: {info.filename} expands "
                                      f"{info.file_size // max(info.compress_size, 1):,}-fold")
            if info.filename.endswith((".xml", ".rels")):
                try:
                    with zf.open(info) as fh:
                        head = fh.read(8192)  # a DTD (where entities are declared) is in the prolog
                except (zipfile.BadZipFile, OSError, EOFError) as exc:
                    raise LoadError(path, f"corrupt or truncated .docx: {norm_ws(str(exc))}") from None
                if b"<!ENTITY" in head or b"<!DOCTYPE" in head:
                    raise LoadError(path, f"XML entity declarations are not allowed (possible XML bomb) in "
                                          f"{info.filename}")


def _style_name(par: Any) -> str:
    try:
        style = par.style
    except (KeyError, ValueError, AttributeError):
        return ""
    return str(getattr(style, "name", "") or "")


def _heading_level(par: Any, style: str) -> int:
    """1-9 for a heading paragraph, 0 otherwise (style ``Heading N`` or a ``w:outlineLvl``)."""
    m = _HEADING.match(style.strip())
    if m:
        return int(m.group(1)) or 1
    ppr = par._p.pPr
    lvl = ppr.find(f"{_W}outlineLvl") if ppr is not None else None
    if lvl is not None:
        try:
            val = int(lvl.get(f"{_W}val", "9"))
        except ValueError:
            return 0
        return val + 1 if 0 <= val <= 8 else 0
    return 0


def _list_info(par: Any, style: str) -> tuple[bool, int, bool]:
    """(is a list item, nesting level from 0, numbered) from ``w:numPr`` / the style name."""
    ppr = par._p.pPr
    numpr = ppr.find(f"{_W}numPr") if ppr is not None else None
    if numpr is not None:
        ilvl = numpr.find(f"{_W}ilvl")
        try:
            level = int(ilvl.get(f"{_W}val", "0")) if ilvl is not None else 0
        except ValueError:
            level = 0
        numbered = "number" in style.lower()
        return True, max(0, min(level, 8)), numbered
    if _LIST_STYLE.match(style):
        m = re.search(r"(\d)$", style.strip())
        return True, (int(m.group(1)) - 1) if m else 0, "number" in style.lower()
    return False, 0, False


def _alignment(run: Any) -> str:
    """``"superscript"``, ``"subscript"`` or ``""`` for a python-docx Run: its own ``w:vertAlign``, else
    its character style's (styles based on others are followed by python-docx)."""
    try:
        font = run.font
        if font.superscript:
            return "superscript"
        if font.subscript:
            return "subscript"
        rpr = run._r.rPr
        styled = rpr is not None and rpr.rStyle is not None  # else the default style: never raised
        if font.superscript is None and font.subscript is None and styled and run.style is not None:
            style_font = run.style.font
            if style_font.superscript:
                return "superscript"
            if style_font.subscript:
                return "subscript"
    except (KeyError, ValueError, AttributeError):
        pass
    return ""


def _par_text(par: Any) -> str:
    """The paragraph's text as python-docx's ``Paragraph.text`` reads it (runs and hyperlinks, tabs and
    breaks as ``\t``/``\n``), with superscript and subscript runs written by
    :func:`clinqa.text.scripts.superscript` / :func:`~clinqa.text.scripts.subscript`; consecutive runs
    of one alignment are one script ("1" + "2" superscript after "10" is "10^12")."""
    runs: list[Any] = []
    for item in par.iter_inner_content():
        runs.extend(item.runs if hasattr(item, "runs") else [item])
    out = ""
    script, content = "", ""

    def close() -> str:
        if not script:
            return out
        return out + (superscript(out, content) if script == "superscript" else subscript(out, content))

    for run in runs:
        text = run.text
        align = _alignment(run)
        if align != script:
            out = close()
            script, content = align, ""
        if script:
            content += text
        else:
            out += text
    out = close()
    return out


def _cell_text(cell: Any) -> str:
    parts = [norm_ws(_par_text(p)) for p in cell.paragraphs]
    for inner in cell.tables:
        parts.extend(norm_ws(" ".join(_par_text(p) for p in c.paragraphs)) for row in inner.rows for c in row.cells)
    return " ".join(p for p in parts if p)


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:  # a merged cell is returned once per grid column it spans
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(_cell_text(cell))
        rows.append(cells)
    return rows


def load(path: Path) -> list[Document]:
    """Load one ``.docx`` as one Document (see module docstring for the structure kept).

    Raises LoadError: "not a Word .docx file (not a ZIP archive)", "encrypted Word document or old
    .doc format ...", "corrupt or truncated .docx: ...", "unpacks to N MB (> M MB limit ...)",
    "zip bomb refused: ...", "XML entity declarations are not allowed ...", "no text in the document",
    and the size limits of :func:`~clinqa.documents.loaders._io.read_bytes`.
    """
    import docx
    from lxml import etree

    data = read_bytes(path)
    _check_archive(path, data)
    try:
        document = docx.Document(io.BytesIO(data))
    except etree.XMLSyntaxError as exc:
        limit = xml_limit_reason(str(exc))
        raise LoadError(path, f"XML {limit}" if limit else f"corrupt .docx: XML is not well-formed: "
                                                            f"{norm_ws(str(exc))[:200]}") from None
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise LoadError(path, f"corrupt or truncated .docx: {norm_ws(str(exc))[:200] or type(exc).__name__}") from None

    builder = SectionBuilder()
    title = ""
    item: list[str] = []  # the open top-level list item and its nested lines
    counters: dict[int, int] = {}

    def flush_item() -> None:
        if item:
            builder.add("\n".join(item), "list")
        item.clear()

    for n, element in enumerate(document.iter_inner_content()):
        if n % 200 == 0:
            check_deadline(f"parsing Word document (element {n + 1})")
        if isinstance(element, docx.table.Table):
            flush_item()
            counters.clear()
            rows = [r for r in _table_rows(element) if any(c for c in r)]
            if rows:
                if len(rows) == 1 or max(len(r) for r in rows) == 1:  # a one-cell "box": its text is prose
                    builder.add("\n".join(" ".join(c for c in r if c) for r in rows))
                else:
                    builder.add(pipe_table(rows), "table")
            continue
        text = norm_ws(_par_text(element))
        if not text:
            continue
        style = _style_name(element)
        if style.strip().lower() == "title" and not title:
            title = text
            continue
        level = _heading_level(element, style)
        if level:
            flush_item()
            counters.clear()
            builder.heading(level, text)
            continue
        is_item, depth, numbered = _list_info(element, style)
        if is_item:
            counters[depth] = counters.get(depth, 0) + 1
            for deeper in [d for d in counters if d > depth]:
                del counters[deeper]
            marker = f"{counters[depth]}." if numbered else "-"
            if depth == 0:
                flush_item()
            elif not item:  # a nested item with no parent: it starts its own block
                depth = 0
            item.append(f"{'  ' * depth}{marker} {text}")
            continue
        flush_item()
        counters.clear()
        builder.add(text)
    flush_item()

    sections = builder.sections()
    unicode_in_sections(sections)
    if not has_content(sections):
        raise LoadError(path, "no text in the document")
    props = document.core_properties
    meta_title = norm_ws(props.title or "")
    if meta_title.lower() in _PLACEHOLDER_TITLES:
        meta_title = ""
    title = unicode_scripts(title or meta_title)
    authors = [norm_ws(a) for a in re.split(r";|,|\band\b", props.author or "") if norm_ws(a)]
    return [
        Document(
            doc_id=path_doc_id(path),
            title=title or path.stem,
            authors=authors,
            source=path.parent.name,
            path=str(path),
            format="docx",
            sections=sections,
        )
    ]
