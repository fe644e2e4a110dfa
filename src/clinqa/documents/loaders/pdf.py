"""PDF loader (pdfplumber on pdfminer.six; OCR of pages without a text layer through tesseract).

Layout recovery, per page in reading order:

- columns: words are grouped into rows, and :func:`find_gutter` looks for a vertical gap in the
  middle of the page that only full-width rows cross; on such a page a row becomes one line per
  column, the page is cut into bands at every full-width element (title, abstract, a table or
  figure caption spanning both columns, footnotes), and each band is read left column, then right
  column. A one-column page is read top to bottom;
- tables found by ``page.find_tables()`` (ruled tables, at least 2 rows x 2 columns) become
  one table block each (a Markdown pipe table) and their text is kept out of the paragraphs;
- figure and table captions ("Figure 2.", "Table 1:") and footnotes (small text below the
  page's body text) become blocks of their own; like tables, one that interrupts a sentence is
  placed after the paragraph it interrupts, and the paragraph goes on;
- headings: lines whose font size is clearly larger than the body's modal size (>= 1.15x),
  bold short lines, and numbered short lines (``"2."``, ``"2.3 Methods"``), never text smaller
  than the body. Nesting follows font size first, then numbering depth. After a "References"
  heading every numbered entry is one list block (the chunker marks the section's chunks
  level ``references``);
- paragraphs are rebuilt from lines (a paragraph ends at a larger vertical gap, a short
  line ending a sentence, an indented first line; at a column or page break only when the
  line before ends a sentence), line-end hyphens are removed when the word continues in lower
  case on the next line; bullet/numbered lines become list blocks; page numbers in the
  top/bottom margin and running heads repeated on most pages are dropped.

Every block keeps its 1-based page range (``page_start``/``page_end``).

Superscripts and subscripts (issue 42): pdfplumber splits words where the font size changes, so a
raised smaller word after a number is a word of its own ("10", "9", "/L"); :func:`_same_row` keeps it in
the row it is set in and :func:`_row_text` writes it in the plain-text forms of
:mod:`clinqa.text.scripts` when it is at most :data:`SCRIPT_SIZE_RATIO` of its neighbour's size with the
baseline raised (superscript) or lowered (subscript): "40 x 10^9/L", "CO2", "trial[12]", never
"40 x 109/L" or "10 9 /L". Table cells are read the same way (:func:`_table_cells`). Not detected: a
superscript set at the body's size (only raised), and pages read by OCR (tesseract gives no sizes or
baselines of its own: a raised "9" is read as a word of the line or lost). Unicode super/subscript
characters in the text layer take the same forms.

Text a reader would not see is dropped before layout: characters under 3 pt
(:data:`MIN_CHAR_SIZE`) and white characters (``non_stroking_color`` white in gray, RGB or CMYK)
that do not lie on a filled non-white rectangle (white on a dark table header stays). Colours set
by patterns or images behind the text are not seen, nor text hidden by render mode 3.

Title: the PDF's ``/Title`` metadata (unless it looks like a file name), else the largest
text on page 1.
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
from clinqa.documents.loaders._io import check_deadline, current_limits, read_bytes
from clinqa.documents.loaders._scripts import unicode_in_sections
from clinqa.documents.model import BlockKind, Document
from clinqa.errors import LoadError
from clinqa.text.blocks import REFERENCES_TITLE
from clinqa.text.quantities import DIGITS
from clinqa.text.scripts import subscript, superscript, unicode_scripts

#: A line this much larger than the body's modal font size is a heading candidate.
HEADING_SIZE_RATIO = 1.15
#: Column detection (:func:`find_gutter`): narrowest gutter in points, the largest share of a page's
#: rows that may cross it (full-width title, abstract, tables), rows needed on each side.
MIN_GUTTER = 6
GUTTER_SHARE = 0.35
MIN_COLUMN_ROWS = 6
#: Horizontal gap (points) that separates words; pdfplumber's default 3 glues words in
#: tightly set PDFs (TeX, InDesign) that position words without space characters.
X_TOLERANCE = 1.5
#: Characters smaller than this (points) are not readable text: dropped as hidden.
MIN_CHAR_SIZE = 3.0
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(?=[A-Z])")
_ITEM = re.compile(r"^(?:[\u2022\u25aa\u25cf\u2013\u2014\u00b7*-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+\S")
_PAGE_NO = re.compile(r"^\s*(?:(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[ivxlc]{1,7})\s*$", re.I)
_LEADER_DOTS = re.compile(r"(?:\.\s?){4,}\s*\d*\s*$")
#: a figure or table caption starts a block of its own ("Figure 2.", "Table 1:", "Fig. 3.")
_CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|Table|TABLE|Box|Supplementary (?:Figure|Table))\s+S?\d{1,3}[A-Za-z]?"
                      r"\s*[.:|]\s*\S")
#: the title of a reference list (kept as its own section; the chunker marks it level "references")
_REFERENCES = REFERENCES_TITLE
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
    col: int = 0  # 0: full width (or a one-column page), 1: left column, 2: right column
    band: int = 0  # the stretch of the page between two full-width elements (reading order: band by band)
    ocr: bool = False

    @property
    def is_table(self) -> bool:
        return self.table is not None


#: Superscripts and subscripts (:func:`_script_kind`): a word at most this share of its neighbour's
#: font size whose baseline is raised by at least SUP_RAISE, or lowered by at least SUB_DROP, of the
#: neighbour's size. Word raises superscripts by about a third of the size and lowers subscripts by about
#: a seventh; TeX and fpdf2 similarly (fpdf2: 0.40 and 0.15 of the size, measured in
#: tests/documents/test_scripts_pdf.py).
SCRIPT_SIZE_RATIO = 0.85
SUP_RAISE = 0.15
SUB_DROP = 0.08
#: Baseline estimate: pdfminer's character box runs from the font's descent below the baseline to
#: ``size`` above that, and the descent of common text fonts is about a fifth of the size (Helvetica
#: 0.21, Times 0.22, Arial 0.21), so the baseline is about ``bottom - DESCENT * size`` (top-down y).
DESCENT = 0.2


def _baseline(w: dict[str, Any]) -> float:
    return float(w["bottom"]) - DESCENT * float(w.get("size", 0.0))


def _script_kind(w: dict[str, Any], ref: dict[str, Any]) -> str:
    """``"sup"`` when word ``w`` is set smaller than ``ref`` (a full-size word of its row) with its
    baseline raised, ``"sub"`` when lowered, else ``""`` (module constants :data:`SCRIPT_SIZE_RATIO`,
    :data:`SUP_RAISE`, :data:`SUB_DROP`)."""
    size, ref_size = float(w.get("size", 0.0)), float(ref.get("size", 0.0))
    if ref_size <= 0 or size > SCRIPT_SIZE_RATIO * ref_size:
        return ""
    shift = _baseline(ref) - _baseline(w)  # > 0: raised
    if shift >= SUP_RAISE * ref_size:
        return "sup"
    if -shift >= SUB_DROP * ref_size:
        return "sub"
    return ""


def _row_text(words: list[dict[str, Any]]) -> str:
    """The text of one row's words (left to right), joined by spaces, except that superscripts and
    subscripts (:func:`_script_kind` against the nearest full-size word before them, else after them)
    are written by :func:`clinqa.text.scripts.superscript` / :func:`~clinqa.text.scripts.subscript`:
    ``"10"`` then a raised smaller ``"9"`` then ``"/L"`` is ``"10^9/L"``, not ``"10 9 /L"`` (issue 42).
    A script is glued to the word before it, and the word after it to the script, when the gap between
    them is at most :data:`X_TOLERANCE` (pdfplumber split them only because their sizes differ)."""
    kinds: list[str] = []
    for i, w in enumerate(words):
        before = [v for v in words[:i] if float(v.get("size", 0.0)) > SCRIPT_SIZE_RATIO * float(w.get("size", 0.0))]
        after = [v for v in words[i + 1:] if float(v.get("size", 0.0)) > SCRIPT_SIZE_RATIO * float(w.get("size", 0.0))]
        ref = before[-1] if before else after[0] if after else None
        kinds.append(_script_kind(w, ref) if ref is not None else "")
    out = ""
    for i, w in enumerate(words):
        text = str(w["text"])
        glued = i > 0 and float(w["x0"]) - float(words[i - 1]["x1"]) <= X_TOLERANCE
        if kinds[i]:
            lead = out if glued or not out else out + " "
            out = lead + (superscript(lead, text) if kinds[i] == "sup" else subscript(lead, text))
        elif out and not (glued and kinds[i - 1]):
            out = f"{out} {text}"
        else:
            out += text
    return out


def _row_line(page_no: int, words: list[dict[str, Any]]) -> _Line | None:
    """One text line from its words (left to right; superscripts and subscripts by :func:`_row_text`):
    modal size, bold when 90% of its characters are."""
    words = [w for w in words if str(w.get("text", "")).strip()]
    if not words:
        return None
    text = norm_ws(_row_text(words))
    sizes: Counter[float] = Counter()
    bold = 0
    for w in words:
        n = len(str(w["text"]))
        sizes[round(float(w.get("size", 0.0)) * 2) / 2] += n
        bold += n if _BOLD.search(str(w.get("fontname", ""))) else 0
    return _Line(page_no, min(float(w["top"]) for w in words), max(float(w["bottom"]) for w in words),
                 min(float(w["x0"]) for w in words), max(float(w["x1"]) for w in words), text,
                 sizes.most_common(1)[0][0], bold >= 0.9 * sum(sizes.values()))


def _same_row(w: dict[str, Any], row: list[dict[str, Any]]) -> bool:
    """Whether word ``w`` belongs to ``row``: its top is within 40% of the font size of the row's first
    word, or it is a smaller word (a superscript or subscript) whose box overlaps the row's largest
    word's box by at least half its own height."""
    ref = row[0]
    if abs(float(w["top"]) - float(ref["top"])) <= 0.4 * max(float(ref.get("size", 10.0)), 1.0):
        return True
    big = max(row, key=lambda v: float(v.get("size", 0.0)))
    small, large = (w, big) if float(w.get("size", 0.0)) <= float(big.get("size", 0.0)) else (big, w)
    if float(small.get("size", 0.0)) > SCRIPT_SIZE_RATIO * float(large.get("size", 0.0)):
        return False
    overlap = min(float(small["bottom"]), float(large["bottom"])) - max(float(small["top"]), float(large["top"]))
    return overlap >= 0.5 * (float(small["bottom"]) - float(small["top"]))


def _rows(words: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Words grouped into visual rows (:func:`_same_row`: tops within 40% of the font size, and
    superscripts and subscripts with the row they are set in), each row left to right."""
    rows: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (float(w["top"]), float(w["x0"]))):
        if rows and _same_row(w, rows[-1]):
            rows[-1].append(w)
            continue
        rows.append([w])
    return [sorted(r, key=lambda w: float(w["x0"])) for r in rows]


def find_gutter(rows: list[list[dict[str, Any]]], x_min: float, x_max: float) -> tuple[float, float] | None:
    """The x-interval ``(left, right)`` (points) between two text columns, or None for a one-column page.

    Method: for every x (1 pt steps) count the rows with a word covering it; in the middle 30-70% of
    the text width, the gutter is the longest run of at least :data:`MIN_GUTTER` points whose count
    stays within a tolerance (5% of the rows) of the minimum there. The rows crossing it (full-width
    title, abstract, footnotes) may be at most :data:`GUTTER_SHARE` of all, and at least
    :data:`MIN_COLUMN_ROWS` rows that do not cross it must have text on each side. Measured on the generated
    articles of ``tests/documents/journal_pdfs.py``: rows crossing the gutter are the full-width ones only.
    """
    width = int(x_max - x_min) + 1
    if width < 100 or len(rows) < 2 * MIN_COLUMN_ROWS:
        return None
    cover = [0] * (width + 1)
    for row in rows:
        seen = bytearray(width + 1)
        for w in row:
            a, b = max(0, int(float(w["x0"]) - x_min)), min(width, int(float(w["x1"]) - x_min) + 1)
            seen[a:b] = b"\x01" * (b - a)
        for i, v in enumerate(seen):
            cover[i] += v
    lo, hi = int(0.3 * width), int(0.7 * width)
    # the floor: rows crossing the emptiest x of the middle (full-width rows), plus a tolerance for the
    # spaces between the words of those rows, which dip below it
    low = min(cover[lo:hi]) + max(1, int(0.05 * len(rows)))
    if low > GUTTER_SHARE * len(rows):
        return None
    a = b = lo
    i = lo
    while i < hi:
        if cover[i] <= low:
            j = i
            while j < hi and cover[j] <= low:
                j += 1
            if j - i > b - a:
                a, b = i, j
            i = j
        else:
            i += 1
    if b - a < MIN_GUTTER:
        return None
    left, right = x_min + a, x_min + b

    def crosses(r: list[dict[str, Any]]) -> bool:
        return any(float(w["x0"]) < right - 1 and float(w["x1"]) > left + 1 for w in r)

    n_left = sum(1 for r in rows if not crosses(r) and any(float(w["x1"]) <= left + 1 for w in r))
    n_right = sum(1 for r in rows if not crosses(r) and any(float(w["x0"]) >= right - 1 for w in r))
    if n_left < MIN_COLUMN_ROWS or n_right < MIN_COLUMN_ROWS:
        return None
    return left, right


def _reading_order(items: list[_Line], gutter: tuple[float, float] | None) -> list[_Line]:
    """Items of one page in reading order. One column: top to bottom. Two columns: the page is cut
    into bands at every full-width item (crossing the gutter); band by band, the left column top to
    bottom, then the right column, then the full-width item that closes the band."""
    if gutter is None:
        return sorted(items, key=lambda i: (round(i.top, 1), i.x0))
    mid = (gutter[0] + gutter[1]) / 2
    full = sorted((i for i in items if i.x0 < mid < i.x1), key=lambda i: i.top)
    out: list[_Line] = []
    cols = [i for i in items if not i.x0 < mid < i.x1]
    for i in cols:
        i.col = 1 if i.x1 <= mid else 2
        i.band = sum(1 for f in full if f.top < i.top)
    for band in range(len(full) + 1):
        for col in (1, 2):
            out.extend(sorted((i for i in cols if i.band == band and i.col == col), key=lambda i: i.top))
        if band < len(full):
            full[band].band = band + 1
            full[band].col = 0
            out.append(full[band])
    return out


#: Resolution pages are rendered at for OCR (tesseract reads 300 dpi scans best).
OCR_DPI = 300
#: Words tesseract is less sure of than this (its confidence, 0-100) are dropped.
OCR_MIN_CONF = 30
#: Font size / tesseract word-box height: a 10.1 pt line (42 px at 300 dpi) has 8.0 pt boxes (measured in
#: tests/documents/test_pdf_ocr.py), so OCR and text-layer pages of one PDF compare font sizes alike.
OCR_SIZE_FACTOR = 1.26
OCR_HINT = "pip install 'clinqa[ocr]' and Debian's tesseract-ocr tesseract-ocr-eng"


def ocr_available() -> str | None:
    """None when OCR can run (the ``pytesseract`` binding of the ``ocr`` extra and the ``tesseract``
    program), else the reason it cannot."""
    try:
        import pytesseract
    except ImportError:
        return f"the OCR extra is not installed ({OCR_HINT})"
    try:
        pytesseract.get_tesseract_version()
    except (pytesseract.TesseractNotFoundError, OSError):
        return f"the tesseract program is not installed ({OCR_HINT})"
    return None


def _page_has_image(page: Any) -> bool:
    return bool(page.images)


def _ocr_words(page: Any) -> list[dict[str, Any]]:
    """Words of a page image read by tesseract (English), as pdfplumber-style word dicts in PDF points.

    The page is rendered at :data:`OCR_DPI` (pdfplumber on pypdfium2) and read with
    ``pytesseract.image_to_data``; each word's ``size`` is the median word height of its tesseract
    line (a font-size estimate for heading detection); words below :data:`OCR_MIN_CONF` are dropped.
    """
    import pytesseract

    image = page.to_image(resolution=OCR_DPI).original.convert("L")
    data = pytesseract.image_to_data(image, lang="eng", output_type=pytesseract.Output.DICT)
    scale = float(page.width) / image.width
    lines: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for i, text in enumerate(data["text"]):
        text = str(text).strip()
        try:
            conf = float(data["conf"][i])
        except (TypeError, ValueError):
            conf = -1.0
        if not text or conf < OCR_MIN_CONF:
            continue
        x, y, w, h = (float(data[k][i]) * scale for k in ("left", "top", "width", "height"))
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines.setdefault(key, []).append({"text": text, "x0": x, "x1": x + w, "top": y, "bottom": y + h,
                                          "fontname": "", "height": h})
    heights = {key: median(w["height"] for w in line) for key, line in lines.items()}
    body = median(heights.values()) if heights else 10.0
    words: list[dict[str, Any]] = []
    for key, line in lines.items():
        # word heights vary with ascenders and descenders: a line within 25% of the page's median
        # height is body text, set to that size; only clearly larger lines keep their own (headings)
        size = body if abs(heights[key] - body) <= 0.25 * body else heights[key]
        size = round(size * OCR_SIZE_FACTOR * 2) / 2 or 10.0
        top = min(w["top"] for w in line)
        for w in line:  # one top per line, so rows group as in a text PDF
            w["size"] = size
            w["top"] = top
            words.append(w)
    return words


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


def _extract(pdf: Any, ocr: str = "never") -> tuple[list[list[_Line]], int]:
    """Lines and tables of every page in reading order, and the number of pages read by OCR.

    ``ocr``: ``"auto"`` OCRs pages with an image and no text layer (when OCR is available), ``"always"``
    every page (ignoring its text layer), ``"never"`` none."""
    pages: list[list[_Line]] = []
    n_ocr = 0
    for page_no, page in enumerate(pdf.pages):
        check_deadline(f"parsing PDF (page {page_no + 1})")
        page = _visible_filter(page)
        items: list[_Line] = []
        filtered = page
        for table in page.find_tables():
            rows = [[c or "" for c in row] for row in _table_cells(table)]
            rows = [r for r in rows if any(c.strip() for c in r)]
            if len(rows) < 2 or max((len(r) for r in rows), default=0) < 2:
                continue
            x0, top, x1, bottom = table.bbox
            items.append(_Line(page_no, top, bottom, x0, x1, "", 0.0, False, table=pipe_table(rows)))
            filtered = filtered.outside_bbox(table.bbox)
        words = filtered.extract_words(x_tolerance=X_TOLERANCE, keep_blank_chars=False,
                                       extra_attrs=["size", "fontname"])
        from_ocr = False
        wanted = ocr == "always" or (ocr == "auto" and not words and not items and _page_has_image(page))
        if wanted and ocr_available() is None:
            words = _ocr_words(page)
            items = []  # the page is read from its image alone
            from_ocr = True
            n_ocr += 1
        rows = _rows(words)
        text_rows = [r for r in rows if r]
        x_min = min((float(w["x0"]) for w in words), default=0.0)
        x_max = max((float(w["x1"]) for w in words), default=0.0)
        height = float(page.height or 0) or 792.0
        body_rows = [r for r in text_rows  # running heads and page numbers say nothing about columns
                     if float(r[0]["top"]) > 0.07 * height and float(r[0]["bottom"]) < 0.93 * height]
        gutter = find_gutter(body_rows, x_min, x_max)
        mid = (gutter[0] + gutter[1]) / 2 if gutter is not None else 0.0
        for row in text_rows:
            parts = [row]
            if gutter is not None:  # a row with a gap at the gutter holds one line per column
                left = [w for w in row if float(w["x1"]) <= mid]
                right = [w for w in row if float(w["x0"]) >= mid]
                if len(left) + len(right) == len(row) and (not left or not right or min(
                        float(w["x0"]) for w in right) - max(float(w["x1"]) for w in left) >= MIN_GUTTER):
                    parts = [p for p in (left, right) if p]
            for part in parts:
                line = _row_line(page_no, part)
                if line is not None:
                    line.ocr = from_ocr
                    items.append(line)
        kept = []
        for item in items:
            margin = item.top < 0.07 * height or item.bottom > 0.93 * height
            if margin and not item.is_table and _PAGE_NO.match(item.text):
                continue
            kept.append(item)
        pages.append(_reading_order(kept, gutter))
    return _drop_running_heads(pages), n_ocr


def _table_cells(table: Any) -> list[list[str | None]]:
    """The text of a pdfplumber table's cells, row by row (None for a cell merged into another), as
    ``Table.extract`` reads them (the characters whose midpoint lies in the cell) but with the body
    text's words, rows and superscripts/subscripts (:func:`_rows`, :func:`_row_text`): "10" and a
    raised "9" in a cell are "10^9", where ``Table.extract`` would write "109"."""
    from pdfplumber.utils import extract_words

    def inside(char: dict[str, Any], bbox: tuple[float, float, float, float]) -> bool:
        v_mid, h_mid = (char["top"] + char["bottom"]) / 2, (char["x0"] + char["x1"]) / 2
        return bbox[0] <= h_mid < bbox[2] and bbox[1] <= v_mid < bbox[3]

    chars = table.page.chars
    out: list[list[str | None]] = []
    for row in table.rows:
        row_chars = [c for c in chars if inside(c, row.bbox)]
        cells: list[str | None] = []
        for cell in row.cells:
            if cell is None:
                cells.append(None)
                continue
            words = extract_words([c for c in row_chars if inside(c, cell)], x_tolerance=X_TOLERANCE,
                                  keep_blank_chars=False, extra_attrs=["size", "fontname"])
            cells.append("\n".join(_row_text(r) for r in _rows(words) if r))
        out.append(cells)
    return out


def _drop_running_heads(pages: list[list[_Line]]) -> list[list[_Line]]:
    """Drop lines repeated (same text modulo digits, same size) at the top or bottom of most pages."""
    if len(pages) < 3:
        return pages

    def key(ln: _Line) -> tuple[str, float]:
        return DIGITS.sub("#", ln.text), ln.size

    def edges(lines: list[_Line]) -> list[_Line]:  # the two highest and the two lowest lines of the page
        text = sorted((ln for ln in lines if not ln.is_table), key=lambda ln: ln.top)
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
    if line.size < body - 0.25:  # smaller than the body text: captions, footnotes, references
        return False, 0
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


def _ends_sentence(text: str) -> bool:
    return text.rstrip(")]\"'\u201d\u2019*").endswith((".", "!", "?", ":"))


def _build(pages: list[list[_Line]], title_hint: str) -> tuple[str, SectionBuilder]:
    text_lines = [ln for page in pages for ln in page if not ln.is_table]
    weights: Counter[float] = Counter()
    for ln in text_lines:
        weights[ln.size] += len(ln.text)
    body = weights.most_common(1)[0][0] if weights else 10.0

    def is_body(ln: _Line) -> bool:
        return abs(ln.size - body) < 0.6

    def same_flow(a: _Line, b: _Line) -> bool:
        """``b`` follows ``a`` down the same column of the same page (no column, band or page break)."""
        return a.page == b.page and a.col == b.col and a.band == b.band and b.top >= a.top - 1

    gaps = []
    for page in pages:
        prev: _Line | None = None
        for ln in page:
            if not ln.is_table and prev is not None and is_body(ln) and is_body(prev) and same_flow(prev, ln):
                gaps.append(ln.top - prev.bottom)
            prev = None if ln.is_table else ln
    gap_limit = (median(gaps) if gaps else body * 0.3) + max(2.0, 0.4 * body)
    # left and right text edges per page and column (ragged or justified columns have their own)
    edges: dict[tuple[int, int], tuple[float, float]] = {}
    for ln in text_lines:
        if is_body(ln):
            lo, hi = edges.get((ln.page, ln.col), (ln.x0, ln.x1))
            edges[(ln.page, ln.col)] = (min(lo, ln.x0), max(hi, ln.x1))
    right_all = max((ln.x1 for ln in text_lines), default=0.0)
    left_all = min((ln.x0 for ln in text_lines), default=0.0)
    # the lowest body line of each page: smaller text below it is a footnote
    body_bottom: dict[int, float] = {}
    for ln in text_lines:
        if is_body(ln):
            body_bottom[ln.page] = max(body_bottom.get(ln.page, 0.0), ln.bottom)

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
    para: list[_Line] = []
    para_kind: BlockKind = "paragraph"
    prev: _Line | None = None
    caption: list[_Line] = []
    footnote: list[_Line] = []
    deferred: list[tuple[str, BlockKind, list[_Line]]] = []
    in_refs = False

    def add(text: str, kind: BlockKind, lines: list[_Line]) -> None:
        builder.add(text, kind, page_start=min(ln.page for ln in lines) + 1,
                    page_end=max(ln.page for ln in lines) + 1, ocr=any(ln.ocr for ln in lines))

    def flush() -> None:
        nonlocal para_kind
        if para:
            add(_join([ln.text for ln in para]), para_kind, list(para))
        para.clear()
        para_kind = "paragraph"
        for text, kind, lines in deferred:
            add(text, kind, lines)
        deferred.clear()

    def float_block(text: str, kind: BlockKind, lines: list[_Line]) -> None:
        """A table, caption or footnote: a block of its own, after the paragraph it interrupts."""
        if para and not _ends_sentence(para[-1].text):
            deferred.append((text, kind, lines))
        else:
            flush()
            add(text, kind, lines)

    def close_caption() -> None:
        if caption:
            float_block(_join([ln.text for ln in caption]), "caption", list(caption))
        caption.clear()

    def close_footnote() -> None:
        if footnote:
            float_block(_join([ln.text for ln in footnote]), "paragraph", list(footnote))
        footnote.clear()

    pending_heading: list[_Line] = []

    def flush_heading() -> None:
        nonlocal in_refs
        if pending_heading:
            h = pending_heading[0]
            depth = heads[id(h)][1] or 1
            title = " ".join(x.text for x in pending_heading)
            builder.heading((-h.size, depth), title)
            in_refs = bool(_REFERENCES.match(title))
        pending_heading.clear()

    for page in pages:
        for ln in page:
            if ln.is_table:
                close_caption()
                close_footnote()
                flush_heading()
                float_block(ln.table or "", "table", [ln])
                continue
            if id(ln) in title_ids:
                prev = None
                continue
            if caption:
                last = caption[-1]
                if (abs(ln.size - last.size) < 0.3 and same_flow(last, ln) and not _CAPTION.match(ln.text)
                        and ln.top - last.bottom < max(gap_limit, 0.8 * ln.size)):
                    caption.append(ln)
                    continue
                close_caption()
            if footnote:
                if ln.page == footnote[-1].page and ln.size <= 0.85 * body and ln.top >= footnote[-1].top:
                    footnote.append(ln)
                    continue
                close_footnote()
            if not in_refs and _CAPTION.match(ln.text):
                flush_heading()
                caption.append(ln)
                continue
            if not in_refs and ln.size <= 0.85 * body and ln.top > body_bottom.get(ln.page, 1e9):
                flush_heading()
                footnote.append(ln)
                continue
            is_head, _depth = heads[id(ln)]
            if in_refs and ln.size < body * HEADING_SIZE_RATIO:
                is_head = False
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
                if not same_flow(prev, ln):  # next column, band or page: a paragraph goes on mid-sentence
                    new_para = _ends_sentence(prev.text) and not in_refs
                else:
                    gap = ln.top - prev.bottom
                    left, right = edges.get((prev.page, prev.col), (left_all, right_all))
                    short = prev.x1 < right - 3 * body and _ends_sentence(prev.text)
                    indented = ln.x0 > max(prev.x0, left) + body and _ends_sentence(prev.text)
                    new_para = (gap > gap_limit or short or indented or abs(ln.size - prev.size) > 1) and not (
                        in_refs and not item and gap <= gap_limit)
            if new_para:
                flush()
                para_kind = "list" if item else "paragraph"
            para.append(ln)
            prev = ln
    close_caption()
    close_footnote()
    flush_heading()
    flush()
    return title_hint, builder


def _no_text_reason() -> str:
    if current_limits().ocr == "never":
        return "no extractable text (scanned PDF? OCR is off: setting ingest.ocr: never)"
    why = ocr_available()
    if why is not None:
        return f"no extractable text (scanned PDF? OCR is not available: {why})"
    return "no extractable text (no text layer and no page image to OCR)"


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
            pages, n_ocr = _extract(pdf, current_limits().ocr)
    except LoadError:
        raise
    except Exception as exc:  # pdfminer raises many unrelated types
        raise _pdf_error(path, exc) from None
    if not any(pages):
        raise LoadError(path, _no_text_reason())

    meta_title = meta.get("Title")
    if isinstance(meta_title, bytes):
        meta_title = meta_title.decode("utf-8", "replace")
    meta_title = norm_ws(meta_title) if isinstance(meta_title, str) else ""
    if _FILENAME_TITLE.search(meta_title):
        meta_title = ""
    title, builder = _build(pages, meta_title)
    sections = builder.sections()
    unicode_in_sections(sections)
    if not has_content(sections):
        raise LoadError(path, "no extractable text (OCR found no words)" if n_ocr else _no_text_reason())
    author = meta.get("Author")
    if isinstance(author, bytes):
        author = author.decode("utf-8", "replace")
    authors = [norm_ws(a) for a in re.split(r";|\band\b", author) if norm_ws(a)] if isinstance(author, str) else []
    return [
        Document(
            doc_id=path_doc_id(path),
            title=unicode_scripts(title) or path.stem,
            authors=authors,
            source=path.parent.name,
            path=str(path),
            format="pdf",
            sections=sections,
        )
    ]
