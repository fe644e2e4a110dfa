"""Small helpers shared by the loaders: ids, whitespace, pipe tables, a section-tree builder."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clinqa.documents.model import Block, BlockKind, Section
from clinqa.text.words import SPACES

_SLUG_BAD = re.compile(r"[^A-Za-z0-9._-]+")
_WS = SPACES
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")


def slug(text: str) -> str:
    """A stable id fragment: runs of characters outside ``[A-Za-z0-9._-]`` become ``-``."""
    return _SLUG_BAD.sub("-", text).strip("-") or "_"


def path_doc_id(path: Path, base_dir: Path | None = None) -> str:
    """Document id for formats without native ids: the folder name plus the file's path.

    With ``base_dir`` (the directory the user passed): ``<base_dir name>/<relative path>``
    slugged, without extension (``"cardio/sub/protocol"``). Without (a file passed directly):
    ``<parent folder name>/<stem>`` (``"cardio/protocol"``), the same id as when its folder is
    passed. Two ``protocol.md`` files in different folders therefore never replace each other.
    """
    if base_dir is not None:
        base = base_dir.resolve()
        try:
            rel = path.resolve().relative_to(base)
        except ValueError:
            rel = Path(path.name)
        parts = [slug(p) for p in rel.with_suffix("").parts]
        return "/".join([slug(base.name), *parts]) if parts else slug(path.stem)
    parent = path.resolve().parent.name
    return f"{slug(parent)}/{slug(path.stem)}" if parent else slug(path.stem)


def norm_ws(text: str) -> str:
    """Collapse every whitespace run to one space and strip."""
    return _WS.sub(" ", text).strip()


def humanize(stem: str) -> str:
    """``"risk_assessment"`` -> ``"Risk assessment"`` (fallback titles from file names)."""
    words = norm_ws(re.sub(r"[_]+", " ", stem))
    return words[:1].upper() + words[1:] if words else stem


def parse_year(value: Any) -> int | None:
    """A plausible year from an int or from the first 4-digit year in a string; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1500 <= value <= 2199 else None
    if isinstance(value, str):
        m = _YEAR.search(value)
        return int(m.group(1)) if m else None
    return None


#: a "Year: 2025" / "Date: 12 March 2024" line (also "**Year:** 2025", "- Date: 2024-03-12")
_YEAR_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?:year|date)(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?"
                        r"[ \t]*(\S.*)$", re.IGNORECASE)
#: how many lines from the top a year line is looked for in
YEAR_LINES = 10


def year_line(text: str, lines: int = YEAR_LINES) -> int | None:
    """The year of the first ``Year:`` or ``Date:`` line among the first ``lines`` non-blank lines of ``text``
    (Markdown and plain-text documents that carry their date in the text, not in front matter):
    ``"Year: 2025"`` -> 2025, ``"**Date:** 12 March 2024"`` -> 2024; None when there is none or its value holds
    no plausible year (:func:`parse_year`)."""
    seen = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        seen += 1
        if seen > lines:
            break
        m = _YEAR_LINE.match(raw)
        if m:
            year = parse_year(m.group(1))
            if year is not None:
                return year
    return None


def str_list(value: Any) -> list[str]:
    """A list of non-empty stripped strings from a string or a list (other items dropped)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    out: list[str] = []
    for v in value:
        if isinstance(v, str | int | float) and not isinstance(v, bool):
            s = norm_ws(str(v))
            if s and s not in out:
                out.append(s)
    return out


def pipe_table(rows: Sequence[Sequence[str | None]]) -> str:
    """Render rows (first row = header) as a Markdown pipe table; ragged rows are padded."""
    clean = [[norm_ws(c or "").replace("|", "\\|") for c in row] for row in rows]
    clean = [r for r in clean if any(r)]
    if not clean:
        return ""
    width = max(len(r) for r in clean)
    clean = [r + [""] * (width - len(r)) for r in clean]
    lines = ["| " + " | ".join(clean[0]) + " |", "|" + "---|" * width]
    lines.extend("| " + " | ".join(r) + " |" for r in clean[1:])
    return "\n".join(lines)


class SectionBuilder:
    """Builds a section tree from a flat stream of headings and blocks.

    ``heading(rank, title)`` opens a section nested under the nearest open section with a
    strictly smaller ``rank`` (ranks are any comparable values: ints for H1..H6, tuples for
    PDF font sizes); blocks go into the innermost open section, or into an untitled leading
    section when no heading has been seen yet.
    """

    def __init__(self) -> None:
        self.roots: list[Section] = []
        self._stack: list[tuple[Any, Section]] = []
        self._preamble: Section | None = None

    def heading(self, rank: Any, title: str) -> Section:
        """Open a new section; returns it."""
        section = Section(title=title)
        while self._stack and not self._stack[-1][0] < rank:
            self._stack.pop()
        if self._stack:
            self._stack[-1][1].children.append(section)
        else:
            self.roots.append(section)
        self._stack.append((rank, section))
        return section

    def current(self) -> Section:
        """The innermost open section (creating the untitled leading one if needed)."""
        if self._stack:
            return self._stack[-1][1]
        if self._preamble is None:
            self._preamble = Section()
            self.roots.append(self._preamble)
        return self._preamble

    def add(self, text: str, kind: BlockKind = "paragraph", page_start: int | None = None,
            page_end: int | None = None, ocr: bool = False) -> None:
        """Append a block (ignored when ``text`` is blank); pages are 1-based (paginated sources)."""
        if text and text.strip():
            self.current().blocks.append(Block(text=text.strip("\n"), kind=kind, page_start=page_start,
                                               page_end=page_end, ocr=ocr))

    def sections(self) -> list[Section]:
        """The finished top-level sections."""
        return self.roots


def has_content(sections: Sequence[Section]) -> bool:
    """Whether any section in the trees has at least one block."""
    for top in sections:
        for _, s in top.walk():
            if s.blocks:
                return True
    return False
