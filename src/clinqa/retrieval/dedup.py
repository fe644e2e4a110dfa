"""Near-duplicate collapsing for copied-forward clinical text.

Clinical notes copy text forward: the same HPI or medication paragraph, sometimes lightly
edited, reappears in many of a patient's notes. Retrieval then fills its top-k with copies
of one paragraph. This module groups such copies so one representative is kept.

Method: w-shingling and Jaccard resemblance (Broder 1997, "On the resemblance and
containment of documents", Compression and Complexity of Sequences). A text becomes the set
``S(t)`` of its contiguous word n-grams (shingles); the resemblance of two texts is

    r(a, b) = |S(a) & S(b)| / |S(a) | S(b)|

computed exactly here (no min-hash sketching: the lists are short, <= 100 items).

How much one edit costs: in an L-word text (L >= n), changing one word that lies at least
n - 1 words from both ends touches n of its L - n + 1 shingles, so
r = (L - 2n + 1) / (L + 1). For a 40-word paragraph that is 35/41 = 0.85 at n = 3 and
31/41 = 0.76 at n = 5; hence the default n = 3 with threshold 0.8 (a single edit in a
paragraph of 29 words or more still collapses at n = 3; at n = 5 it would need 49).

Only the chunk body is compared: chunk texts begin with a context header (title, note
type and date, section path) that differs between notes even when the body is a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from clinqa.text.blocks import BLANK_LINE
from clinqa.text.words import joined_words

__all__ = ["body_text", "collapse_near_duplicates", "jaccard", "shingles"]

T = TypeVar("T")

# The blank line that clinqa.chunking.base.compose puts between header and body.
_BLANK = BLANK_LINE


def body_text(chunk_text: str) -> str:
    """The body of a composed chunk text, without its context header.

    :func:`clinqa.chunking.base.compose` writes ``header + "\\n\\n" + body`` and the body
    alone when there is no header. The header (:func:`clinqa.chunking.base.header_for`, or
    the document title) is one line: title, ``" (progress note 2023-04-01)"`` for a note
    whose title lacks it, then the section path, joined with ``" > "``, e.g.
    ``"progress note 2023-04-01 > HPI"``.

    Rule: if the text has a blank line and everything before the first one is a single
    line, that line is the header and is dropped; otherwise the text is returned whole. (A
    multi-line first block cannot be a header, so a headerless multi-paragraph body keeps
    its first paragraph; a headerless body whose first paragraph is one line cannot be told
    apart from a header and loses it. Prefer ``Chunk.body`` where you have the Chunk.)
    """
    m = _BLANK.search(chunk_text)
    if m is None or "\n" in chunk_text[: m.start()]:
        return chunk_text
    return chunk_text[m.end() :]


def shingles(text: str, n: int = 3) -> set[str]:
    """Word n-gram shingles of ``text``: a set of strings, each n words joined by one space.

    Words are lower-cased runs of letters and digits joined by - . / ' (:func:`clinqa.text.words.joined_words`:
    "2.5", "mg/dl"); other punctuation is dropped. A text of fewer than n words (but at least one)
    gives one shingle of all its words; a text with no words gives the empty set. ``n`` must be >= 1.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    words = joined_words(text)
    if not words:
        return set()
    if len(words) < n:
        return {" ".join(words)}
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    """Jaccard resemblance ``|a & b| / |a | b|`` in [0, 1]; 0.0 when both sets are empty."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def collapse_near_duplicates(
    items: Sequence[T],
    text_of: Callable[[T], str],
    threshold: float = 0.8,
    n: int = 3,
) -> list[tuple[T, list[T]]]:
    """Group near-duplicate items, keeping the best-ranked item of each group.

    ``items`` are in rank order (best first); ``text_of(item)`` gives the composed chunk
    text (its header is removed with :func:`body_text`). Greedy, in rank order: an item
    joins the group of the *first* earlier kept item whose body shingle resemblance
    (:func:`shingles` with ``n``, :func:`jaccard`) is ``>= threshold``; otherwise it is
    kept and starts a new group. Items are compared with kept items only, never with other
    duplicates, so grouping does not chain.

    Returns ``[(kept_item, [duplicates in rank order]), ...]`` in the rank order of the
    kept items; every input item appears exactly once. Items without words never collapse
    (resemblance of two empty sets is 0.0). O(len(items)^2) set comparisons.
    """
    groups: list[tuple[T, list[T], set[str]]] = []
    for item in items:
        sh = shingles(body_text(text_of(item)), n)
        for _kept, dups, kept_sh in groups:
            if jaccard(sh, kept_sh) >= threshold:
                dups.append(item)
                break
        else:
            groups.append((item, [], sh))
    return [(kept, dups) for kept, dups, _ in groups]
