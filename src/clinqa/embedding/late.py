"""Late chunking of answer units: where each unit lies in its chunk's text, and the cache key of its vector.

A chunk is encoded once; each quotable unit's vector is the mean of the chunk's contextual token
embeddings inside the unit's characters (Günther et al. 2024, "Late Chunking: Contextual Chunk Embeddings
Using Long-Context Embedding Models", arXiv:2409.04701), pooled by
:meth:`clinqa.embedding.onnx.OnnxEncoder.encode_with_spans`. This module finds the characters.
"""

from __future__ import annotations

from clinqa.text.words import WORD_CHARS

_WORD = WORD_CHARS

#: suffix of the cache's model key for late-pooled unit vectors (they differ from a unit encoded alone,
#: so they never share its key)
LATE = "#late"


def late_key(model_id: str) -> str:
    """The embedding-cache model key of ``model_id``'s late-pooled unit vectors."""
    return model_id + LATE


def locate(text: str, pieces: list[str], start: int = 0) -> list[tuple[int, int] | None]:
    """Character spans ``(start, end)`` of each of ``pieces`` in ``text``, in order, or None for a piece not found.

    A piece is found when its words (``\\w+`` runs, compared case-folded) appear in ``text`` as a contiguous
    run of words, so markup between them (``**``, list markers, table bars, line breaks) does not matter.
    Pieces are searched in reading order from the end of the previous match (from ``start`` for the first),
    then, if not found there, from ``start``: repeated sentences map to their own occurrence. A piece
    without a word is None. Cost: linear in the words of ``text`` per piece.
    """
    words = [(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(text) if m.end() > start]
    seq = [w for w, _, _ in words]
    out: list[tuple[int, int] | None] = []
    cursor = 0
    for piece in pieces:
        target = [w.casefold() for w in _WORD.findall(piece)]
        if not target:
            out.append(None)
            continue
        at = _find(seq, target, cursor)
        if at < 0:
            at = _find(seq, target, 0)
        if at < 0:
            out.append(None)
            continue
        out.append((words[at][1], words[at + len(target) - 1][2]))
        cursor = at + len(target)
    return out


def _find(seq: list[str], target: list[str], start: int) -> int:
    """Index of the first occurrence of ``target`` as a contiguous run in ``seq`` at or after ``start``; -1."""
    first, n = target[0], len(target)
    i = start
    while True:
        try:
            i = seq.index(first, i)
        except ValueError:
            return -1
        if seq[i : i + n] == target:
            return i
        i += 1
