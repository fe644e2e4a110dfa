"""The Reranker interface: score (question, passage) pairs, higher = more relevant.

A reranker re-orders the candidate pool that hybrid retrieval produced (the union of dense
top-N and BM25 top-N, N = ``retrieval.dense_k``/``bm25_k``); :func:`rerank_hits` applies it
and keeps the fused rank as provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

import numpy as np

from clinqa.retrieval.hybrid import Retrieved


@runtime_checkable
class Reranker(Protocol):
    """Second-stage scorer. ``model_id`` names the weights (path + fingerprint) so calibrations
    and logs can tell models apart."""

    model_id: str

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Relevance of each passage to ``query``: float array of shape ``(len(passages),)``,
        higher is more relevant (a probability in [0, 1] for the cross-encoders clinqa trains)."""
        ...


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[Retrieved], top_k: int) -> list[Retrieved]:
    """Score every hit, sort by score (descending; ties keep the fused order) and return the
    first ``top_k`` with new ranks 1..top_k. Each returned hit keeps its fused rank under
    ``ranks["rrf"]`` and its reranker score under ``scores["rerank"]``; ``score`` becomes the
    reranker score."""
    if not hits:
        return []
    scores = np.asarray(reranker.score(query, [h.chunk.text for h in hits]), dtype=float)
    if scores.shape != (len(hits),):
        raise ValueError(f"reranker returned shape {scores.shape} for {len(hits)} passages")
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], hits[i].rank))
    out = []
    for new_rank, i in enumerate(order[:top_k], start=1):
        h = hits[i]
        out.append(replace(h, score=float(scores[i]), rank=new_rank,
                           ranks={**h.ranks, "rrf": h.rank}, scores={**h.scores, "rerank": float(scores[i])}))
    return out
