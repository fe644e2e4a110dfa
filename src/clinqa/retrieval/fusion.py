"""Fusion of ranked lists: weighted reciprocal rank fusion and the convex combination of normalised
scores, each with a *parent* form that adds a document list's term to its chunks.

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

Convex combination (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval",
ACM TOIS 42(1), 2023), the default since it was measured against RRF on the four dev sets
(docs/benchmarks.md, "Retrieval levers, third pass"):

    score(d) = sum over lists i of  w_i * phi_i(s_i(d)),    phi_i(x) = (x - m_i) / (M_i - m_i)

with the *theoretical* min-max normalisation (TM2C2 in the paper): ``m_i`` the list's theoretical
minimum (0 for a cosine of these encoders and for BM25, :data:`FLOORS`), ``M_i`` its best score for
this question. Unlike RRF it keeps how far apart the scores are: a passage far ahead in one list stays
ahead. Edge cases:
- a chunk missing from a list scores ``phi`` of that list's *last* score (it ranks at best below the
  list's cut, so the last score is its upper bound; 0 would punish a list's cut-off more than its
  scores do); but when the list is *exhausted* (fewer entries than were asked for: a BM25 list of every
  chunk that has a question word, a dense list of one patient's few chunks) a missing chunk is known to
  score nothing there and gets 0;
- a list whose best score is not above its minimum (no signal) adds nothing, and a score below the
  minimum (a negative cosine on a small corpus) counts as the minimum: every term lies in [0, w_i];
- ties are broken by the best single-list rank, then by id, as in RRF.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: theoretical minimum score of each list for :func:`convex` (cosine similarities of sentence encoders
#: are rarely below 0 for text of one language; BM25 is never below 0)
FLOORS: dict[str, float] = {"dense": 0.0, "bm25": 0.0, "documents": 0.0}


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


def normalize_scores(scored: Sequence[tuple[str, float]], floor: float = 0.0,
                     depth: int | None = None) -> tuple[dict[str, float], float]:
    """Theoretical-min-max normalisation of one list: ``({id: phi}, phi for an id not in it)`` with
    ``phi(x) = max(x - floor, 0) / (best - floor)`` (see the module docstring), in [0, 1]. ``scored``:
    ``(id, score)`` best first; a repeated id keeps its first (best) score. An id not in the list gets the last score's
    ``phi``, or 0 when ``depth`` (how many were asked for) shows the list exhausted (``len(scored) <
    depth``). Empty input, or a best score not above ``floor``, gives ``({}, 0.0)`` (no signal).

    >>> normalize_scores([("a", 2.0), ("b", 1.5), ("c", 1.0)])
    ({'a': 1.0, 'b': 0.75, 'c': 0.5}, 0.5)
    """
    if not scored or scored[0][1] <= floor:
        return {}, 0.0
    span = scored[0][1] - floor
    out: dict[str, float] = {}
    for i, s in scored:
        out.setdefault(i, max(s - floor, 0.0) / span)  # below the minimum (a negative cosine): nothing
    exhausted = depth is not None and len(scored) < depth
    return out, 0.0 if exhausted else max(scored[-1][1] - floor, 0.0) / span


def convex(
    lists: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    floors: Mapping[str, float] | None = None,
    depths: Mapping[str, int] | None = None,
) -> list[tuple[str, float]]:
    """Fuse scored lists by the convex combination of their normalised scores (module docstring).

    ``lists`` maps a list name to ``(id, score)`` best first; ``weights`` maps names to weights
    (missing names weigh 1.0; only their ratios matter); ``floors`` to theoretical minima (default
    :data:`FLOORS`, else 0); ``depths`` to how many entries were asked for (a shorter list is
    exhausted: see :func:`normalize_scores`). Returns ``[(id, score), ...]`` by descending fused score.
    Raises ``ValueError`` for a negative weight.

    >>> convex({"dense": [("a", 0.8), ("b", 0.4)], "bm25": [("b", 10.0), ("c", 5.0)]})
    [('a', 1.5), ('b', 1.5), ('c', 1.0)]

    (``a``: 1 + 0.5, absent from BM25 so its last score's 0.5; ``b``: 0.5 + 1; ``c``: 0.5 + 0.5; ``a`` and
    ``b`` tie at best rank 1 and go by id.)
    """
    weights = dict(weights or {})
    if any(w < 0 for w in weights.values()):
        raise ValueError("fusion weights must be >= 0")
    floors = {**FLOORS, **(floors or {})}
    score: dict[str, float] = {}
    best: dict[str, int] = {}
    depths = depths or {}
    norm = {name: normalize_scores(scored, floors.get(name, 0.0), depths.get(name))
            for name, scored in lists.items()}
    for scored in lists.values():
        for rank, (i, _) in enumerate(scored, start=1):
            best[i] = min(best.get(i, rank), rank)
            score.setdefault(i, 0.0)
    for name, (phi, last) in norm.items():
        if not phi:
            continue
        w = weights.get(name, 1.0)
        for i in score:
            score[i] += w * phi.get(i, last)
    return sorted(score.items(), key=lambda kv: (-kv[1], best[kv[0]], kv[0]))


def parent_convex(
    fused: Sequence[tuple[str, float]],
    parent_of: Mapping[str, str],
    parents: Sequence[tuple[str, float]],
    weight: float = 1.0,
    floor: float = 0.0,
    depth: int | None = None,
) -> list[tuple[str, float]]:
    """Add a parent list's normalised score to fused child scores: the convex form of
    :func:`parent_rrf`.

    ``fused``: ``[(child_id, score), ...]`` best first (the output of :func:`convex`); ``parent_of``
    maps a child to its parent; ``parents``: ``(parent_id, score)`` best first (the document list's
    cosines). Each child gains ``weight * phi(its parent's score)``, or ``phi`` of the list's last
    score when its parent is not listed (as a missing chunk in :func:`convex`: 0 when the list, asked for
    ``depth`` parents, came back shorter); children are re-sorted,
    ties kept in ``fused`` order; parents add no children. Raises ``ValueError`` for a negative
    ``weight``.

    >>> parent_convex([("a1", 1.0), ("b1", 0.9)], {"a1": "A", "b1": "B"}, [("B", 0.6), ("A", 0.3)], weight=0.5)
    [('b1', 1.4), ('a1', 1.25)]
    """
    if weight < 0:
        raise ValueError("fusion weights must be >= 0")
    phi, last = normalize_scores(parents, floor, depth)
    if not phi:
        return list(fused)
    out = [(c, s + weight * phi.get(parent_of.get(c, ""), last)) for c, s in fused]
    return sorted(out, key=lambda cs: -cs[1])  # stable: ties stay in fused order
