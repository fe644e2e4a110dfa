"""The search a question runs: hybrid retrieval over the candidate pool, then near-copies folded
(patient-scoped queries), cross-encoder reranking and newest-first fusion, each when it applies."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from clinqa.retrieval.dedup import collapse_near_duplicates
from clinqa.retrieval.hybrid import RetrievalResult, hybrid_search
from clinqa.retrieval.recency import newest_first, recency_rerank

if TYPE_CHECKING:
    import numpy as np

    from clinqa.embedding import Encoder
    from clinqa.rerank import Reranker
    from clinqa.retrieval.filters import Filters
    from clinqa.settings import RetrievalSettings
    from clinqa.store import Store


def search(store: Store, encoder: Encoder, query: str, filters: Filters, rs: RetrievalSettings, k: int,
           reranker: Reranker | None = None, recency: bool = False,
           query_vector: np.ndarray | None = None) -> RetrievalResult:
    """Hybrid retrieval (:func:`clinqa.retrieval.hybrid.hybrid_search`) over the candidate pool (union of
    dense top-``rs.dense_k`` and BM25 top-``rs.bm25_k``), then, in order: near-copies folded together for
    patient-scoped queries (``rs.copy_threshold``, :func:`clinqa.retrieval.dedup.collapse_near_duplicates`;
    with ``recency`` the newest copy speaks for its group), ``reranker`` (its time in
    ``timings_ms["rerank"]``), newest-first fusion (``recency``, :func:`clinqa.retrieval.recency.
    recency_rerank`); returns ``k`` hits. Every step sees only chunks that passed ``filters`` in the store."""
    fold = filters.patient_id is not None and rs.copy_threshold is not None
    whole_pool = reranker is not None or recency or fold
    result = hybrid_search(store, encoder, query, filters, rs, top_k=rs.dense_k + rs.bm25_k if whole_pool else k,
                           query_vector=query_vector)
    hits = result.hits
    if fold:
        groups = collapse_near_duplicates(hits, lambda h: h.chunk.body, threshold=rs.copy_threshold or 0.0)
        if recency:  # "current ...?": the newest copy speaks for the group
            groups = [newest_first(kept, dups) for kept, dups in groups]
        hits = [replace(h, rank=i, duplicates=[d.chunk for d in dups]) for i, (h, dups) in enumerate(groups, 1)]
    if reranker is not None:
        from clinqa.rerank import rerank_hits

        t0 = time.perf_counter()
        hits = rerank_hits(reranker, query, hits, len(hits))
        result.timings_ms["rerank"] = (time.perf_counter() - t0) * 1e3
    if recency:
        hits = recency_rerank(hits, rs.recency_weight)  # its own k = 60, as measured on the notes
    result.hits = hits[:k]
    return result
