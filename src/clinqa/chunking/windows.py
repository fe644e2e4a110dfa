"""Sentence windows: the fallback for a block longer than the model's token limit."""

from __future__ import annotations

from clinqa.chunking.base import TokenCounter
from clinqa.chunking.sentences import split_units


def _tokens(text: str, counter: TokenCounter) -> int:
    return counter.count(text) - counter.special_tokens


def _cut_word(word: str, budget: int, counter: TokenCounter) -> list[str]:
    """Cut one "word" that alone is over ``budget`` tokens (a run of punctuation-separated
    tokens with no space, e.g. ``"a,b,c,..."``) into character runs that each fit."""
    pieces: list[str] = []
    rest = word
    while rest:
        # the longest prefix that fits (at least one character): widen by doubling, then bisect,
        # so each cut costs O(piece length x log) and the whole word O(n log n)
        lo, hi = 1, min(len(rest), 4 * budget)
        while _tokens(rest[:hi], counter) <= budget:
            if hi == len(rest):
                pieces.append(rest)
                return pieces
            lo, hi = hi, min(len(rest), 2 * hi)
        hi -= 1  # rest[:hi + 1] is over the budget
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _tokens(rest[:mid], counter) <= budget:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(rest[:lo])
        rest = rest[lo:]
    return pieces


def _hard_split(unit: str, budget: int, counter: TokenCounter) -> list[str]:
    """Cut one over-long unit (a sentence with no boundary in reach) into word runs that
    each fit ``budget`` tokens. The only place a sentence is ever cut; a single word over the
    budget is cut between characters.

    Words are counted once each and runs grow while the sum fits (exact for WordPiece, which
    tokenises words independently); a run whose real count is over (other tokenizers) is cut
    again, so the result is right for any tokenizer in linear time.
    """
    words: list[str] = []
    raw = unit.split()
    for w, cost in zip(raw, counter.count_many(raw), strict=True):
        words.extend([w] if cost - counter.special_tokens <= budget else _cut_word(w, budget, counter))
    costs = [c - counter.special_tokens for c in counter.count_many(words)]
    runs: list[list[str]] = []
    cur: list[str] = []
    total = 0
    for w, cost in zip(words, costs, strict=True):
        if cur and total + cost > budget:
            runs.append(cur)
            cur, total = [], 0
        cur.append(w)
        total += cost
    if cur:
        runs.append(cur)
    pieces: list[str] = []
    for run in runs:
        if len(run) > 1 and _tokens(" ".join(run), counter) > budget:
            half = len(run) // 2
            pieces.extend(_hard_split(" ".join(run[:half]), budget, counter))
            pieces.extend(_hard_split(" ".join(run[half:]), budget, counter))
        else:
            pieces.append(" ".join(run))
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
    window instead of overlapping rows, unless they leave fewer than 8 tokens for rows.
    ``budget`` counts body tokens only (no special tokens). Returns ``[text]`` when the
    whole block fits.

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
    if budget - pre_cost < 8:  # header rows leave no room for a row: window the rows without them
        prefix, units, pre_cost = [], prefix + units, 0
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
