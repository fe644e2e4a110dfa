"""Sentence windows: the fallback for a block longer than the model's token limit."""

from __future__ import annotations

from clinqa.chunking.base import TokenCounter
from clinqa.chunking.sentences import split_units


def _hard_split(unit: str, budget: int, counter: TokenCounter) -> list[str]:
    """Cut one over-long unit (a sentence with no boundary in reach) into word runs that
    each fit ``budget`` tokens. The only place a sentence is ever cut."""
    words = unit.split()
    pieces: list[str] = []
    cur: list[str] = []
    for w in words:
        cand = [*cur, w]
        if cur and counter.count(" ".join(cand)) - counter.special_tokens > budget:
            pieces.append(" ".join(cur))
            cur = [w]
        else:
            cur = cand
    if cur:
        pieces.append(" ".join(cur))
    return pieces


def sentence_windows(
    text: str,
    kind: str,
    budget: int,
    counter: TokenCounter,
    overlap: int = 2,
) -> list[str]:
    """Split a block into windows of whole units that each fit ``budget`` tokens.

    Units are sentences (paragraphs) or lines (lists, tables, code; see
    :func:`clinqa.chunking.sentences.split_units`). Consecutive windows share ``overlap``
    units (2 by default), unless that would stop the window from advancing. For tables the
    header row(s) (the lines before the ``|---|`` rule) are repeated at the top of every
    window instead of overlapping rows. ``budget`` counts body tokens only (no special
    tokens). Returns ``[text]`` when the whole block fits.

    Token counts of joined units are the sum of the units' counts: WordPiece tokenises
    each whitespace-separated word independently, so this is exact for BERT tokenizers.
    """
    units = split_units(text, kind)
    prefix: list[str] = []
    if kind == "table" and len(units) >= 2 and set(units[1].replace("|", "").strip()) <= set("-: "):
        prefix, units = units[:2], units[2:]
        overlap = 0
    sep = "\n" if kind in ("table", "code", "list") else " "
    # split any single unit that cannot fit on its own
    pre_cost = sum(counter.count(u) - counter.special_tokens for u in prefix)
    fitted: list[str] = []
    for u in units:
        if counter.count(u) - counter.special_tokens > budget - pre_cost:
            fitted.extend(_hard_split(u, max(budget - pre_cost, 8), counter))
        else:
            fitted.append(u)
    units = fitted
    if not units:
        return [text]
    costs = [c - counter.special_tokens for c in counter.count_many(units)]
    windows: list[str] = []
    start = 0
    n = len(units)
    while start < n:
        end = start
        total = pre_cost
        while end < n and total + costs[end] <= budget:
            total += costs[end]
            end += 1
        end = max(end, start + 1)
        windows.append(sep.join(prefix + units[start:end]))
        if end >= n:
            break
        start = max(end - overlap, start + 1)
    return windows
