"""Sentence and unit splitting.

Sentences come from pysbd (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence Boundary
Disambiguation", rule-based, handles abbreviations such as "e.g." and "vs.").
Lists, tables and code are split into lines instead: a table row or list item is the unit
a reader can quote.
"""

from __future__ import annotations

from functools import lru_cache

import pysbd


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, stripped, empty ones dropped; joining them with single spaces
    gives back the text up to whitespace."""
    text = text.strip()
    if not text:
        return []
    return [s.strip() for s in _segmenter().segment(text) if s.strip()]


def split_units(text: str, kind: str = "paragraph") -> list[str]:
    """Quotable units of a block: sentences of a paragraph/quote, lines of a list/table/code.

    A list line is further split into sentences when it holds several.
    """
    if kind in ("table", "code"):
        return [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if kind == "list":
        out: list[str] = []
        for line in text.splitlines():
            if line.strip():
                out.extend(split_sentences(line))
        return out
    return split_sentences(" ".join(text.split()))
