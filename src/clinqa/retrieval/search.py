"""The search a question runs: hybrid retrieval over the candidate pool, then near-copies folded
(patient-scoped queries), cross-encoder reranking and newest-first fusion, each when it applies."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from clinqa.errors import ConfigError
from clinqa.retrieval.dedup import collapse_near_duplicates
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import RetrievalResult, hybrid_search
from clinqa.retrieval.recency import newest_first, recency_rerank

if TYPE_CHECKING:
    import numpy as np

    from clinqa.embedding import Encoder
    from clinqa.rerank import Reranker
    from clinqa.settings import RetrievalSettings
    from clinqa.store import Store


def query_filters(rs: RetrievalSettings, patient_id: str | None = None, since: int | None = None,
                  until: int | None = None, sources: Sequence[str] = (), include_overview: bool = False) -> Filters:
    """Filters for a question-answering query: the patient's notes only with ``patient_id`` (read without
    surrounding spaces, "P-1 " is P-1; a blank one raises :class:`ConfigError`), the year bounds ``since`` /
    ``until``, the ``sources``, and the levels of ``rs.exclude_levels`` left out (overview chunks) unless
    ``include_overview``."""
    if patient_id is not None:
        patient_id = patient_id.strip()
        if not patient_id:
            raise ConfigError("the patient id is empty")
    levels = () if include_overview else tuple(rs.exclude_levels)
    return Filters(patient_id=patient_id, year_min=since, year_max=until, sources=tuple(sources),
                   exclude_levels=levels, keep_undated=rs.keep_undated)


def deepened(rs: RetrievalSettings, depth: int | None) -> RetrievalSettings:
    """``rs`` with both ranked lists at least ``depth`` deep (``dense_k``, ``bm25_k``, ``document_k``), for
    one call (the evaluation harness); ``rs`` itself when ``depth`` is None."""
    if depth is None:
        return rs
    return rs.model_copy(update={"dense_k": max(depth, rs.dense_k), "bm25_k": max(depth, rs.bm25_k),
                                 "document_k": max(depth, rs.document_k)})


def search(store: Store, encoder: Encoder, query: str, filters: Filters, rs: RetrievalSettings, k: int,
           reranker: Reranker | None = None, recency: bool = False,
           query_vector: np.ndarray | None = None, more: dict[str, tuple[str, ...]] | None = None) -> RetrievalResult:
    """Hybrid retrieval (:func:`clinqa.retrieval.hybrid.hybrid_search`) over the candidate pool (union of
    dense top-``rs.dense_k`` and BM25 top-``rs.bm25_k``), then, in order: near-copies folded together for
    patient-scoped queries (``rs.copy_threshold``, :func:`clinqa.retrieval.dedup.collapse_near_duplicates`;
    with ``recency`` the newest copy speaks for its group), ``reranker`` (its time in
    ``timings_ms["rerank"]``), newest-first fusion (``recency``, :func:`clinqa.retrieval.recency.
    recency_rerank`); returns ``k`` hits. Every step sees only chunks that passed ``filters`` in the store."""
    fold = filters.patient_id is not None and rs.copy_threshold is not None
    whole_pool = reranker is not None or recency or fold
    result = hybrid_search(store, encoder, query, filters, rs, top_k=rs.dense_k + rs.bm25_k if whole_pool else k,
                           query_vector=query_vector, more=more)
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
