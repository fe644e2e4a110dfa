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
