"""Weighted reciprocal rank fusion.

RRF (Cormack, Clarke & Buettcher, SIGIR 2009, "Reciprocal Rank Fusion outperforms Condorcet
and individual rank learning methods"):

    score(d) = sum over lists i of  w_i / (k + rank_i(d))

with ranks starting at 1, k = 60 and all w_i = 1 in the original paper. Weights let one list
count more (e.g. 0.3 dense / 0.7 BM25).

Edge cases, decided here once:
- a chunk missing from a list contributes nothing from that list (as if its rank were
  infinite), so a chunk found by both lists outranks one found by only one at equal ranks;
- an id repeated within one list counts once, at its best (first) rank;
- ties in fused score are broken by the best single-list rank, then by id (deterministic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(
    lists: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
) -> list[tuple[str, float]]:
    """Fuse ranked id lists.

    ``lists`` maps a list name (``"dense"``, ``"bm25"``) to ids best first; ``weights`` maps
    the same names to weights (missing names weigh 1.0). Returns ``[(id, score), ...]`` by
    descending fused score. Raises ``ValueError`` for ``k < 0`` or a negative weight.
    """
    if k < 0:
        raise ValueError("RRF k must be >= 0")
    weights = dict(weights or {})
    if any(w < 0 for w in weights.values()):
        raise ValueError("RRF weights must be >= 0")
    score: dict[str, float] = {}
    best: dict[str, int] = {}
    for name, ids in lists.items():
        w = weights.get(name, 1.0)
        seen: set[str] = set()
        for rank, doc in enumerate(ids, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            score[doc] = score.get(doc, 0.0) + w / (k + rank)
            best[doc] = min(best.get(doc, rank), rank)
    return sorted(score.items(), key=lambda kv: (-kv[1], best[kv[0]], kv[0]))


def parent_rrf(
    fused: Sequence[tuple[str, float]],
    parent_of: Mapping[str, str],
    parents: Sequence[str],
    weight: float = 1.0,
    k: int = 60,
) -> list[tuple[str, float]]:
    """Add a parent list's RRF term to fused child scores.

    ``fused``: ``[(child_id, score), ...]`` best first (the output of :func:`rrf`); ``parent_of``
    maps a child id to its parent id (a chunk to its document); ``parents``: parent ids best first
    (repeats count once, at their first rank). Each child gains ``weight / (k + rank(parent))``,
    nothing when its parent is not listed; children are re-sorted by the new score, ties kept in
    their ``fused`` order. Parents add no children: a document found only by its overview adds no
    passage to cite. This is RRF with the parent list joined to its children (hierarchical or
    "parent document" retrieval; scoring a passage by its document as well as itself, cf. MaxP and
    document-score interpolation, Dai & Callan, SIGIR 2019). Raises ``ValueError`` for ``k < 0`` or
    a negative ``weight``.

    >>> parent_rrf([("a1", 0.5), ("b1", 0.4)], {"a1": "A", "b1": "B"}, ["B", "A"], weight=1.0, k=0)
    [('b1', 1.4), ('a1', 1.0)]
    """
    if k < 0:
        raise ValueError("RRF k must be >= 0")
    if weight < 0:
        raise ValueError("RRF weights must be >= 0")
    term: dict[str, float] = {}
    for rank, p in enumerate(parents, start=1):
        term.setdefault(p, weight / (k + rank))
    out = [(c, s + term.get(parent_of.get(c, ""), 0.0)) for c, s in fused]
    return sorted(out, key=lambda cs: -cs[1])  # stable: ties stay in fused order
