"""PDF loader (pdfplumber on pdfminer.six; text PDFs only, no OCR).

Layout recovery, per page in reading order (single column, top to bottom):

- tables found by ``page.find_tables()`` (ruled tables, at least 2 rows x 2 columns) become
  one table block each (a Markdown pipe table) and their text is kept out of the paragraphs;
- headings: lines whose font size is clearly larger than the body's modal size (>= 1.15x),
  bold short lines, and numbered short lines (``"2."``, ``"2.3 Methods"``). Nesting follows
  font size first, then numbering depth;
- paragraphs are rebuilt from lines (a paragraph ends at a larger vertical gap, a short
  line ending a sentence, an indented first line or a page break), line-end hyphens are
  removed when the word continues in lower case on the next line; bullet/numbered lines
  become list blocks; page numbers in the top/bottom margin are dropped.

Text a reader would not see is dropped before layout: characters under 3 pt
(:data:`MIN_CHAR_SIZE`) and white characters (``non_stroking_color`` white in gray, RGB or CMYK)
that do not lie on a filled non-white rectangle (white on a dark table header stays). Colours set
by patterns or images behind the text are not seen, nor text hidden by render mode 3.

Title: the PDF's ``/Title`` metadata (unless it looks like a file name), else the largest
text on page 1. Multi-column layouts are read line by line across columns (a known limit).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

from clinqa.documents.loaders._common import SectionBuilder, has_content, norm_ws, path_doc_id, pipe_table
from clinqa.documents.loaders._io import check_deadline, read_bytes
from clinqa.documents.model import BlockKind, Document
from clinqa.errors import LoadError

#: A line this much larger than the body's modal font size is a heading candidate.
HEADING_SIZE_RATIO = 1.15
#: Horizontal gap (points) that separates words; pdfplumber's default 3 glues words in
#: tightly set PDFs (TeX, InDesign) that position words without space characters.
X_TOLERANCE = 1.5
#: Characters smaller than this (points) are not readable text: dropped as hidden.
MIN_CHAR_SIZE = 3.0
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(?=[A-Z])")
_ITEM = re.compile(r"^(?:[\u2022\u25aa\u25cf\u2013\u2014\u00b7*-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+\S")
_PAGE_NO = re.compile(r"^\s*(?:(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[ivxlc]{1,7})\s*$", re.I)
_LEADER_DOTS = re.compile(r"(?:\.\s?){4,}\s*\d*\s*$")
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_FILENAME_TITLE = re.compile(r"(^microsoft\s+\w+\s+-)|(\.(docx?|pdf|tex|dvi|rtf|indd|pptx?)$)|^untitled", re.I)


@dataclass
class _Line:
    page: int
    top: float
    bottom: float
    x0: float
    x1: float
    text: str
    size: float
    bold: bool
    table: str | None = None  # a table element carries its rendered text here

    @property
    def is_table(self) -> bool:
        return self.table is not None


def _line_from(page_no: int, raw: dict[str, Any]) -> _Line | None:
    text = norm_ws(raw.get("text", ""))
    chars = [c for c in raw.get("chars", []) if str(c.get("text", "")).strip()]
    if not text or not chars:
        return None
    sizes = Counter(round(float(c.get("size", 0.0)) * 2) / 2 for c in chars)
    size = sizes.most_common(1)[0][0]
    bold = sum(1 for c in chars if _BOLD.search(str(c.get("fontname", "")))) >= 0.9 * len(chars)
    return _Line(page_no, float(raw["top"]), float(raw["bottom"]), float(raw["x0"]), float(raw["x1"]), text, size, bold)


def _is_white(color: Any) -> bool:
    """Whether a pdfplumber colour (gray, RGB or CMYK tuple, or one number) is white."""
    if color is None:
        return False
    values = [color] if isinstance(color, int | float) else list(color) if isinstance(color, list | tuple) else []
    if not values or not all(isinstance(v, int | float) for v in values):
        return False  # pattern colours and the like: unknown, keep
    if len(values) == 4:  # CMYK: no ink
        return all(v <= 0.01 for v in values)
    return all(v >= 0.99 for v in values)


def _visible_filter(page: Any) -> Any:
    """``page`` without the characters a reader would not see (module docstring)."""
    backgrounds = [(r["x0"], r["top"], r["x1"], r["bottom"]) for r in page.rects
                   if r.get("fill") and not _is_white(r.get("non_stroking_color"))]

    def on_background(obj: dict[str, Any]) -> bool:
        cx, cy = (obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2
        return any(x0 <= cx <= x1 and top <= cy <= bottom for x0, top, x1, bottom in backgrounds)

    def keep(obj: dict[str, Any]) -> bool:
        if obj.get("object_type") != "char":
            return True
        if float(obj.get("size") or 0.0) < MIN_CHAR_SIZE and str(obj.get("text", "")).strip():
            return False
        return not (_is_white(obj.get("non_stroking_color")) and not on_background(obj))

    return page.filter(keep)


def _extract(pdf: Any) -> list[list[_Line]]:
    pages: list[list[_Line]] = []
    for page_no, page in enumerate(pdf.pages):
        check_deadline(f"parsing PDF (page {page_no + 1})")
        page = _visible_filter(page)
        items: list[_Line] = []
        filtered = page
        for table in page.find_tables():
            rows = [[c or "" for c in row] for row in table.extract(x_tolerance=X_TOLERANCE)]
            rows = [r for r in rows if any(c.strip() for c in r)]
            if len(rows) < 2 or max((len(r) for r in rows), default=0) < 2:
                continue
            x0, top, x1, bottom = table.bbox
            items.append(_Line(page_no, top, bottom, x0, x1, "", 0.0, False, table=pipe_table(rows)))
            filtered = filtered.outside_bbox(table.bbox)
        for raw in filtered.extract_text_lines(return_chars=True, strip=True, x_tolerance=X_TOLERANCE):
            line = _line_from(page_no, raw)
            if line is not None:
                items.append(line)
        height = float(page.height or 0) or 792.0
        kept = []
        for item in items:
            margin = item.top < 0.07 * height or item.bottom > 0.93 * height
            if margin and not item.is_table and _PAGE_NO.match(item.text):
                continue
            kept.append(item)
        kept.sort(key=lambda i: (round(i.top, 1), i.x0))
        pages.append(kept)
    return _drop_running_heads(pages)


def _drop_running_heads(pages: list[list[_Line]]) -> list[list[_Line]]:
    """Drop lines repeated (same text modulo digits, same size) at the top or bottom of most pages."""
    if len(pages) < 3:
        return pages

    def key(ln: _Line) -> tuple[str, float]:
        return re.sub(r"\d+", "#", ln.text), ln.size

    def edges(lines: list[_Line]) -> list[_Line]:
        text = [ln for ln in lines if not ln.is_table]
        return text[:2] + text[-2:] if len(text) > 4 else text

    counts: Counter[tuple[str, float]] = Counter()
    for lines in pages:
        counts.update({key(ln) for ln in edges(lines)})
    repeated = {k for k, n in counts.items() if n >= max(3, len(pages) // 2)}
    out = []
    for lines in pages:
        drop = {id(ln) for ln in edges(lines) if key(ln) in repeated}
        out.append([ln for ln in lines if id(ln) not in drop])
    return out


def _pdf_error(path: Path, exc: BaseException) -> LoadError:
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in chain:
        chain.append(cur)
        nested = [a for a in getattr(cur, "args", ()) if isinstance(a, BaseException)]
        cur = nested[0] if nested else (cur.__cause__ or cur.__context__)
    for e in chain:
        if isinstance(e, PDFPasswordIncorrect):
            return LoadError(path, "encrypted PDF (password required)")
        if isinstance(e, PDFEncryptionError):
            return LoadError(path, f"encrypted PDF (unsupported encryption: {norm_ws(str(e)) or type(e).__name__})")
    last = chain[-1]
    msg = norm_ws(str(last)) or type(last).__name__
    return LoadError(path, f"corrupt or truncated PDF: {msg[:200]}")


def _heading_info(line: _Line, body: float) -> tuple[bool, int]:
    """(is_heading, numbering depth or 0) for a text line."""
    text = line.text
    m = _NUMBERED.match(text)
    depth = m.group(1).count(".") + 1 if m else 0
    words = len(text.split())
    if _LEADER_DOTS.search(text):  # a table-of-contents entry
        return False, 0
    if line.size >= body * HEADING_SIZE_RATIO and len(text) <= 150:
        return True, depth
    ends_sentence = text.endswith((".", ",", ";")) and not (m and words <= 1)
    if line.bold and len(text) <= 100 and words <= 15 and not ends_sentence:
        return True, depth
    if m and len(text) <= 80 and words <= 10 and not text.endswith((".", ",", ";", ":")):
        return True, depth
    return False, 0


def _join(lines: list[str]) -> str:
    out = ""
    for text in lines:
        if not out:
            out = text
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and text[:1].islower():
            out = out[:-1] + text
        else:
            out = f"{out} {text}"
    return out


def _build(pages: list[list[_Line]], title_hint: str) -> tuple[str, SectionBuilder]:
    text_lines = [ln for page in pages for ln in page if not ln.is_table]
    weights: Counter[float] = Counter()
    for ln in text_lines:
        weights[ln.size] += len(ln.text)
    body = weights.most_common(1)[0][0] if weights else 10.0

    gaps = []
    for page in pages:
        prev: _Line | None = None
        for ln in page:
            if not ln.is_table and prev is not None and abs(ln.size - body) < 0.6 and abs(prev.size - body) < 0.6:
                gaps.append(ln.top - prev.bottom)
            prev = None if ln.is_table else ln
    gap_limit = (median(gaps) if gaps else body * 0.3) + max(2.0, 0.4 * body)
    right = max((ln.x1 for ln in text_lines), default=0.0)
    left = min((ln.x0 for ln in text_lines), default=0.0)

    heads = {id(ln): _heading_info(ln, body) for ln in text_lines}

    # Title: the largest text on page 1, when nothing later in the document is as large.
    title_ids: set[int] = set()
    first = [ln for ln in (pages[0] if pages else []) if not ln.is_table]
    if first:
        biggest = max(ln.size for ln in first)
        run = {id(ln) for ln in first if ln.size == biggest}
        rivals = any(ln.size >= biggest for ln in text_lines if id(ln) not in run)
        if biggest >= body * HEADING_SIZE_RATIO and not rivals:
            title_ids = run
            if not title_hint:
                title_hint = _join([ln.text for ln in first if id(ln) in run])

    builder = SectionBuilder()
    para: list[str] = []
    para_kind: BlockKind = "paragraph"
    prev: _Line | None = None

    def flush() -> None:
        nonlocal para_kind
        if para:
            builder.add(_join(para), para_kind)
        para.clear()
        para_kind = "paragraph"

    pending_heading: list[_Line] = []

    def flush_heading() -> None:
        if pending_heading:
            h = pending_heading[0]
            depth = heads[id(h)][1] or 1
            builder.heading((-h.size, depth), " ".join(x.text for x in pending_heading))
        pending_heading.clear()

    for page in pages:
        for ln in page:
            if ln.is_table:
                flush_heading()
                flush()
                builder.add(ln.table or "", "table")
                prev = None
                continue
            if id(ln) in title_ids:
                prev = None
                continue
            is_head, _depth = heads[id(ln)]
            if is_head:
                flush()
                last = pending_heading[-1] if pending_heading else None
                if (
                    last is not None
                    and last.page == ln.page
                    and last.size == ln.size
                    and last.bold == ln.bold
                    and not _NUMBERED.match(ln.text)
                    and ln.top - last.bottom < max(gap_limit, ln.size * 0.6)
                ):
                    pending_heading.append(ln)  # a heading wrapped over two lines
                else:
                    flush_heading()
                    pending_heading.append(ln)
                prev = None
                continue
            flush_heading()
            item = bool(_ITEM.match(ln.text))
            new_para = prev is None or item
            if prev is not None and not new_para:
                if ln.page != prev.page:
                    new_para = prev.text.endswith((".", "!", "?", ":")) or not ln.text[:1].islower()
                else:
                    gap = ln.top - prev.bottom
                    short = prev.x1 < right - 3 * body and prev.text.endswith((".", "!", "?", ":"))
                    indented = ln.x0 > max(prev.x0, left) + body and prev.text.endswith((".", "!", "?", ":"))
                    new_para = gap > gap_limit or short or indented or abs(ln.size - prev.size) > 1
            if new_para:
                flush()
                para_kind = "list" if item else "paragraph"
            para.append(ln.text)
            prev = ln
    flush_heading()
    flush()
    return title_hint, builder


def load(path: Path) -> list[Document]:
    """Load one PDF as one Document (sections from recovered headings, see module doc).

    Raises LoadError: "not a PDF (no %PDF header)", "encrypted PDF (password required)"
    (after trying the empty password), "corrupt or truncated PDF: ...", "no extractable
    text (scanned PDF? OCR is not supported)", plus the reading errors of ``_io``.
    """
    data = read_bytes(path)
    if b"%PDF-" not in data[:1024]:
        raise LoadError(path, "not a PDF (no %PDF header)")
    if b"%%EOF" not in data[-4096:]:
        raise LoadError(path, "corrupt or truncated PDF: no %%EOF marker at the end of the file")
    try:
        with pdfplumber.open(io.BytesIO(data), password="") as pdf:
            meta = dict(pdf.metadata or {})
            pages = _extract(pdf)
    except LoadError:
        raise
    except Exception as exc:  # pdfminer raises many unrelated types
        raise _pdf_error(path, exc) from None
    if not any(pages):
        raise LoadError(path, "no extractable text (scanned PDF? OCR is not supported)")

    meta_title = meta.get("Title")
    if isinstance(meta_title, bytes):
        meta_title = meta_title.decode("utf-8", "replace")
    meta_title = norm_ws(meta_title) if isinstance(meta_title, str) else ""
    if _FILENAME_TITLE.search(meta_title):
        meta_title = ""
    title, builder = _build(pages, meta_title)
    sections = builder.sections()
    if not has_content(sections):
        raise LoadError(path, "no extractable text (scanned PDF? OCR is not supported)")
    author = meta.get("Author")
    if isinstance(author, bytes):
        author = author.decode("utf-8", "replace")
    authors = [norm_ws(a) for a in re.split(r";|\band\b", author) if norm_ws(a)] if isinstance(author, str) else []
    return [
        Document(
            doc_id=path_doc_id(path),
            title=title or path.stem,
            authors=authors,
            source=path.parent.name,
            path=str(path),
            format="pdf",
            sections=sections,
        )
    ]
