"""Unit splitting: the quotable units of a block.

Sentences come from :func:`clinqa.text.sentences.split_sentences` (pysbd, windowed for long text;
re-exported here). Lists, tables and code are split into lines instead: a table row or list item is
the unit a reader can quote.
"""

from __future__ import annotations

from clinqa.text.sentences import split_sentences

__all__ = ["split_sentences", "split_units"]


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
