"""Where a citation's quote lies in its passage: :func:`highlight_spans`, the offsets ``GET /chunks/{id}``
returns for the web page to mark (moved out of :mod:`clinqa.service.app`, issue 48)."""

from __future__ import annotations

import bisect
import re
import unicodedata

from clinqa.text.blocks import BLANK_LINE

#: the tokens quotes and passages are compared by: runs of digits, runs of letters ("5mg" = "5 mg"), and the
#: comparison signs; everything else (spaces, punctuation, list and table markup, "…") is skipped
_HL_TOKEN = re.compile(r"\d+|[^\W\d_]+|[<>≤≥]")
#: a break in the passage between two quoted words that ends a highlight: an empty line, or a line break with
#: anything but spaces and sentence punctuation around it (a list marker, a table's "|")
_HL_PARAGRAPH = BLANK_LINE
_HL_SOFT = " \t\r\n.,;:!?"
#: a stretch of the quote shorter than this many tokens is highlighted only on a line of the passage that
#: holds a longer one (a table row's label cell beside its quoted dose)
_HL_MIN_RUN = 3


def _hl_tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), unicodedata.normalize("NFKC", m.group()).casefold())
            for m in _HL_TOKEN.finditer(text)]


def highlight_spans(body: str, text: str) -> list[tuple[int, int]]:
    """``[start, end)`` offsets in ``body`` (code points) of every stretch of ``text`` (a citation's quote)
    that occurs in it, sorted.

    A quote is not always a verbatim slice of its passage: the extractive answer joins several units
    (sentences, list items, table rows) with spaces, prefixes list items with their lead-in label
    ("Dosing: Apixaban 5 mg BID", the label once per item), quotes a table row with its column headers
    ("Drug: Apixaban; Dose: 5 mg BID") and drops list markers and emphasis; a generated answer's evidence
    may be clipped with "…". So both are compared as token sequences (:data:`_HL_TOKEN`: words and numbers,
    case- and Unicode-compatibility-folded, punctuation and markup skipped): from each position of the
    quote, the longest run of tokens that follows in the passage is found (first such place on a tie). A run
    of at least :data:`_HL_MIN_RUN` tokens (or the whole quote) is highlighted; a shorter one only on a
    line that holds such a run (a row's label cell, a clause after an elision), so a lone word of a quoted
    header is not marked elsewhere. A run is split at paragraph breaks and at line breaks with markup (no
    list marker or table rule inside a highlight), not at a line wrapped inside a sentence; each span
    keeps the punctuation the quote has next to its ends ("(Class I)") and the passage's full stop after
    it. Spans separated by spaces only are merged."""
    b, q = _hl_tokens(body), _hl_tokens(text)
    if not b or not q:
        return []
    where: dict[str, list[int]] = {}
    for j, (_, _, tok) in enumerate(b):
        where.setdefault(tok, []).append(j)
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", body)]

    def line(pos: int) -> int:
        return bisect.bisect_right(line_starts, pos) - 1

    long_runs: list[tuple[int, int, int]] = []  # (quote index, body index, length)
    short: list[tuple[int, list[int], int]] = []  # (quote index, candidate body indexes, length)
    i = 0
    while i < len(q):
        best, at = 0, []
        for j in where.get(q[i][2], ()):
            n = 1
            while i + n < len(q) and j + n < len(b) and q[i + n][2] == b[j + n][2]:
                n += 1
            if n > best:
                best, at = n, [j]
            elif n == best:
                at.append(j)
        if best >= _HL_MIN_RUN or best == len(q):
            long_runs.append((i, at[0], best))
            i += best
            continue
        if best and not (short and i < short[-1][0] + short[-1][2]):
            short.append((i, at, best))
        i += 1
    anchored = {ln for _, j, n in long_runs for ln in range(line(b[j][0]), line(b[j + n - 1][0]) + 1)}
    runs = list(long_runs)
    for i, at, n in short:
        toks = [t for _, _, t in q[i:i + n]]
        if sum(map(len, toks)) < 3 and not any(t.isdigit() for t in toks):
            continue  # "a", "of": too common to place
        j = next((j for j in at if line(b[j][0]) in anchored and line(b[j + n - 1][0]) in anchored), None)
        if j is not None:
            runs.append((i, j, n))

    def stretch(s: int, e: int, qs: int, qe: int) -> tuple[int, int]:
        """``[s, e)`` widened by the punctuation next to it that the quote has next to ``[qs, qe)``."""
        for _ in range(3):
            if s > 0 and qs > 0 and body[s - 1] == text[qs - 1] and not (body[s - 1].isalnum()
                                                                         or body[s - 1].isspace()):
                s, qs = s - 1, qs - 1
            if e < len(body) and qe < len(text) and body[e] == text[qe] and not (body[e].isalnum()
                                                                                 or body[e].isspace()):
                e, qe = e + 1, qe + 1
        return s, e

    def breaks(gap: str) -> bool:  # a paragraph break, or a line break with list or table markup
        return "\n" in gap and (_HL_PARAGRAPH.search(gap) is not None or bool(gap.strip(_HL_SOFT)))

    spans: list[tuple[int, int]] = []
    for i, j, n in runs:
        k = 0
        while k < n:  # one span per paragraph, list item or table row of the passage
            m = k
            while m + 1 < n and not breaks(body[b[j + m][1]:b[j + m + 1][0]]):
                m += 1
            s, e = stretch(b[j + k][0], b[j + m][1], q[i + k][0], q[i + m][1])
            if e < len(body) and body[e] in ".!?" and body[e - 1] not in ".!?":
                e += 1  # the passage's full stop, also when the quote has none there
            spans.append((s, e))
            k = m + 1
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and (s <= merged[-1][1] or not body[merged[-1][1]:s].strip(" \t")):
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
