"""Sentence and unit splitting.

Sentences come from pysbd (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence Boundary
Disambiguation", rule-based, handles abbreviations such as "e.g." and "vs."). pysbd's time grows
with the square of its input (a 40,000-character paragraph takes seconds, 200,000 minutes), so
longer text is segmented in windows of :data:`SEGMENT_CHARS` (see :func:`split_sentences`).
Lists, tables and code are split into lines instead: a table row or list item is the unit
a reader can quote.
"""

from __future__ import annotations

from functools import lru_cache

import pysbd

#: Text longer than this is given to pysbd in windows of this many characters.
SEGMENT_CHARS = 5000


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def _segment(text: str) -> list[str]:
    return [s.strip() for s in _segmenter().segment(text) if s.strip()]


def _spans(window: str, sents: list[str]) -> list[tuple[int, int]] | None:
    """(start, end) of each sentence in ``window``, in order; None if one is not found verbatim."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sent in sents:
        at = window.find(sent, cursor)
        if at < 0:
            return None
        cursor = at + len(sent)
        spans.append((at, cursor))
    return spans


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, stripped, empty ones dropped; joining them with single spaces
    gives back the text up to whitespace.

    Text over :data:`SEGMENT_CHARS` characters is segmented window by window, in linear time:
    a window keeps the sentences that end before its last fifth (each boundary is decided
    with that much text after it) and the next window starts where the first sentence it
    did not keep starts; a window with no sentence boundary at all is carried into the next
    one as the start of the same sentence. While no sentence is over half a window (2,500
    characters) the sentences are those of pysbd on the whole text (checked on every block
    over 5,000 characters of the shipped and MedQuAD corpora); after a longer one, the next
    window starts without its left context and pysbd may place the next boundary
    differently. No text is lost or repeated either way.
    """
    text = text.strip()
    if not text:
        return []
    if len(text) <= SEGMENT_CHARS:
        return _segment(text)
    out: list[str] = []
    pos, n = 0, len(text)
    pending: int | None = None  # start offset of a sentence no window has ended yet

    def close(sents: list[str], window_at: int) -> None:
        """Prefix the pending sentence start to ``sents[0]`` (which begins at ``window_at``)."""
        nonlocal pending
        if pending is not None and sents:
            at = text.find(sents[0], window_at)
            end = at + len(sents[0]) if at >= 0 else window_at
            sents[0] = text[pending:end].strip() if at >= 0 else f"{text[pending:window_at].strip()} {sents[0]}"
            pending = None

    while n - pos > SEGMENT_CHARS:
        window = text[pos : pos + SEGMENT_CHARS]
        sents = _segment(window)
        spans = _spans(window, sents) if len(sents) > 1 else None
        if spans is not None:
            settled = len(window) - SEGMENT_CHARS // 5
            keep = min(max(1, sum(end <= settled for _, end in spans)), len(sents) - 1)  # never the last
            start = spans[keep][0]
        elif len(sents) > 1 and window.rfind(sents[-1]) > 0:  # segments not verbatim: keep all but the last
            keep, start = len(sents) - 1, window.rfind(sents[-1])
        else:
            keep = 0
        if keep:
            kept = sents[:keep]
            close(kept, pos)
            out.extend(kept)
        else:  # no boundary in the whole window: the sentence goes on into the next one
            if pending is None:
                pending = pos
            space = window.rfind(" ", SEGMENT_CHARS // 2)
            start = space if space > 0 else SEGMENT_CHARS
        pos += start
        while pos < n and text[pos].isspace():
            pos += 1
    tail = _segment(text[pos:])
    if pending is not None and not tail:
        tail = [text[pending:].strip()]
    close(tail, pos)
    out.extend(tail)
    return [s for s in out if s]


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
