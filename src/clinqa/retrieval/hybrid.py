"""Hybrid retrieval: dense top-k and BM25 top-k under the same pre-filters, fused by the convex
combination of their normalised scores or by weighted RRF (``retrieval.fusion``;
:mod:`clinqa.retrieval.fusion`). ``timings_ms``: ``dense`` and ``bm25`` each ranking's own time (and
``rows``, reading the hits' rows, where the store does that once for both: LanceDB), ``lookups`` all the
store calls together. With ``retrieval.expand_synonyms`` the BM25 query is the question plus the
equivalents of its lay, abbreviated and drug-class phrases (:func:`clinqa.retrieval.synonyms.expand`);
the dense query is the question as typed. With ``retrieval.document_weight`` above 0 a third list,
``documents``, ranks whole documents by their overview chunk (title, metadata and the first model
window of the text, :func:`clinqa.chunking.hierarchical.overview_text`), searched densely under the
same filters; it is a *parent* list: each chunk gains its document's term (see
:func:`fuse_hits`), and overview chunks are still never answered from. ``timings_ms["documents"]`` is
its search time."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from clinqa.chunking.base import Chunk, content_levels
from clinqa.embedding.base import Encoder
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.fusion import FLOORS, convex, parent_convex, parent_rrf, rrf
from clinqa.retrieval.synonyms import expand
from clinqa.settings import RetrievalSettings
from clinqa.text import normalize

if TYPE_CHECKING:  # annotations only: clinqa.store.base loads pyarrow
    from clinqa.store.base import Hit, Store


@dataclass
class Retrieved:
    """A fused result: the chunk, its RRF score and fused rank, and per-list provenance
    (``ranks``/``scores`` keyed by ``"dense"`` (cosine) and ``"bm25"``; absent when the chunk
    was not in that list; ``"document"`` is the rank and cosine of the chunk's document in the
    document list, when used). ``duplicates`` are lower-ranked near-copies of this chunk that were
    folded into it (copied-forward note text, :mod:`clinqa.retrieval.dedup`)."""

    chunk: Chunk
    score: float
    rank: int
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    duplicates: list[Chunk] = field(default_factory=list)


@dataclass
class RetrievalResult:
    """Everything one retrieval produced, for the answer stage and the logs. ``query`` is the question
    as typed; ``expansion`` maps each phrase of it that the synonym table knows to the terms added to
    the BM25 query (:class:`clinqa.retrieval.synonyms.Expansion`; empty when none or when
    ``retrieval.expand_synonyms`` is off). ``dense_extra``: the exact cosine of each BM25 hit that the
    dense top-k left out (convex fusion only; :meth:`clinqa.store.base.Store.dense_scores`)."""

    query: str
    filters: Filters
    hits: list[Retrieved]
    dense: list[Hit]
    bm25: list[Hit]
    query_vector: np.ndarray
    timings_ms: dict[str, float] = field(default_factory=dict)
    expansion: dict[str, list[str]] = field(default_factory=dict)
    documents: list[tuple[str, float]] = field(default_factory=list)
    dense_extra: dict[str, float] = field(default_factory=dict)

    @property
    def top_dense_cosine(self) -> float | None:
        """Cosine similarity of the best dense hit (the refusal gate's signal)."""
        return self.dense[0].score if self.dense else None


def hybrid_search(
    store: Store,
    encoder: Encoder,
    query: str,
    filters: Filters,
    settings: RetrievalSettings,
    top_k: int | None = None,
    query_vector: np.ndarray | None = None,
    more: dict[str, tuple[str, ...]] | None = None,
) -> RetrievalResult:
    """Dense + BM25 retrieval fused as configured (:func:`fuse_scored`); returns the top ``top_k`` fused chunks
    (default ``settings.top_k``). ``query_vector`` skips encoding when already known. The BM25 list
    searches ``expand(query).text`` when ``settings.expand_synonyms`` (the expansion is reported in
    ``RetrievalResult.expansion``); the dense list always the query as typed. The document list
    (``settings.document_k`` overview chunks, ``RetrievalResult.documents``) is searched only when
    ``settings.document_weight`` is above 0 and ``filters`` leave overview chunks out (the
    question-answering filters; a search that asks for overview chunks gets them as chunks). ``more``: a question
    word -> other names of it (the lexicon's, :meth:`clinqa.lexicon.Lexicon.search_terms`), appended to the BM25
    query with the table's when ``settings.expand_synonyms``."""
    t0 = time.perf_counter()
    query = normalize(query)  # as chunk text is: "ﬁbrillation" and "μmol" find "fibrillation" and "µmol"
    qv = encoder.encode_queries([query])[0] if query_vector is None else query_vector
    t1 = time.perf_counter()
    # both lists in one store call: LanceDB ranks them from ids and scores (BM25 in a second thread beside
    # the dense product), then reads all their rows in one take (Store.hybrid_lists)
    expansion = expand(query) if settings.expand_synonyms else None
    if expansion is not None and more:
        expansion = expansion.with_terms(more)
    dense, bm25, list_ms = store.hybrid_lists(qv, expansion.text if expansion else query, settings.dense_k,
                                              settings.bm25_k, filters)
    extra: dict[str, float] = {}
    if settings.fusion == "convex":  # the true dense score of a BM25 hit, not the dense list's last one
        extra = store.dense_scores(qv, bm25_only([h.chunk.chunk_id for h in dense],
                                                 [h.chunk.chunk_id for h in bm25]), filters)
    t3 = time.perf_counter()
    documents: list[tuple[str, float]] = []
    if settings.document_weight > 0 and "document" in filters.exclude_levels:
        documents = store.dense_search_docs(qv, settings.document_k, document_filters(filters))
    t4 = time.perf_counter()
    hits_out = fuse_hits(dense, bm25, settings, top_k or settings.top_k, documents, extra)
    t5 = time.perf_counter()
    timings = {"embed_query": (t1 - t0) * 1e3, **list_ms,
               **({"documents": (t4 - t3) * 1e3} if documents else {}),
               "lookups": (t4 - t1) * 1e3, "fusion": (t5 - t4) * 1e3}
    added = {k: list(v) for k, v in expansion.added.items()} if expansion else {}
    return RetrievalResult(query, filters, hits_out, dense, bm25, qv, timings, added, documents, extra)


def bm25_only(dense: Iterable[str], bm25: Iterable[str]) -> list[str]:
    """The chunk ids of the BM25 list (in its order) that the dense list does not hold: the hits whose
    cosine convex fusion asks for (``RetrievalResult.dense_extra``)."""
    in_dense = set(dense)
    return [c for c in bm25 if c not in in_dense]


def document_filters(filters: Filters) -> Filters:
    """``filters`` with only overview (``document``-level) chunks let through: the same patient,
    years, sources and documents, every content level excluded."""
    return replace(filters, exclude_levels=content_levels())


def fuse_scored(dense: list[tuple[str, float]], bm25: list[tuple[str, float]], settings: RetrievalSettings,
                doc_of: dict[str, str], documents: list[tuple[str, float]] | None = None,
                dense_extra: dict[str, float] | None = None) -> list[tuple[str, float]]:
    """The configured fusion (``settings.fusion``) of a dense and a BM25 list of ``(chunk_id, score)``
    best first, with the document list ``(doc_id, cosine)`` as a parent list when given and
    ``settings.document_weight`` is above 0 (``doc_of``: chunk id -> document id). The lists are taken to
    have been asked for ``settings.dense_k``, ``bm25_k`` and ``document_k`` entries (a shorter one is
    exhausted, :func:`clinqa.retrieval.fusion.normalize_scores`). ``dense_extra`` (convex only): exact
    cosines of chunks outside the dense list, joined to it below its last entry, so a BM25 hit is scored
    by its own cosine instead of the list's last. Returns ``[(chunk_id,
    fused score), ...]`` best first. The one fusion code path of ``clinqa ask``, ``clinqa search`` and
    ``clinqa eval retrieval``."""
    weights = {"dense": settings.dense_weight, "bm25": settings.bm25_weight}
    use_docs = bool(documents) and settings.document_weight > 0
    if settings.fusion == "convex":
        # a list shorter than asked for is exhausted: a chunk absent from it scores nothing there
        if dense_extra:
            seen = {c for c, _ in dense}
            dense = dense + sorted(((c, v) for c, v in dense_extra.items() if c not in seen), key=lambda cv: -cv[1])
        fused = convex({"dense": dense, "bm25": bm25}, weights, depths={"dense": settings.dense_k,
                                                                        "bm25": settings.bm25_k})
        if use_docs:
            assert documents is not None
            fused = parent_convex(fused, doc_of, documents, settings.document_weight, FLOORS["documents"],
                                  settings.document_k)
        return fused
    fused = rrf({"dense": [c for c, _ in dense], "bm25": [c for c, _ in bm25]}, weights, k=settings.rrf_k)
    if use_docs:
        assert documents is not None
        fused = parent_rrf(fused, doc_of, [d for d, _ in documents], settings.document_weight, settings.rrf_k)
    return fused


def fuse_hits(dense: list[Hit], bm25: list[Hit], settings: RetrievalSettings,
              top_k: int | None = None, documents: list[tuple[str, float]] | None = None,
              dense_extra: dict[str, float] | None = None) -> list[Retrieved]:
    """The configured fusion (:func:`fuse_scored`: the convex combination of normalised scores, or
    weighted RRF) of a dense and a BM25 list of hits into :class:`Retrieved` chunks, best first, each
    with its per-list ranks and scores; the first ``top_k`` (all when None).

    ``documents`` (``(doc_id, cosine)`` of the overview chunks, best first) is a parent list: a chunk found
    by the dense or BM25 list gains ``settings.document_weight`` times its document's normalised cosine
    (convex, :func:`parent_convex`) or ``settings.document_weight / (rrf_k + r)`` where ``r`` is its
    document's rank there (rrf, :func:`parent_rrf`); chunks are never added by it. ``dense_extra``: exact
    cosines of BM25 hits outside the dense list (:func:`fuse_scored`); they also fill those chunks'
    ``scores["dense"]`` (without a dense rank)."""
    doc_of = {h.chunk.chunk_id: h.chunk.doc_id for h in (*dense, *bm25)}
    fused = fuse_scored([(h.chunk.chunk_id, h.score) for h in dense], [(h.chunk.chunk_id, h.score) for h in bm25],
                        settings, doc_of, documents, dense_extra)
    doc_rank: dict[str, tuple[int, float]] = {}
    if documents:
        for r, (d, cos) in enumerate(documents, start=1):
            doc_rank.setdefault(d, (r, cos))
    by_id: dict[str, Chunk] = {}
    ranks: dict[str, dict[str, int]] = {}
    scores: dict[str, dict[str, float]] = {}
    for name, hits in (("dense", dense), ("bm25", bm25)):
        for h in hits:
            by_id.setdefault(h.chunk.chunk_id, h.chunk)
            ranks.setdefault(h.chunk.chunk_id, {}).setdefault(name, h.rank)
            scores.setdefault(h.chunk.chunk_id, {}).setdefault(name, h.score)
    for cid, cos in (dense_extra or {}).items():
        if cid in scores:
            scores[cid].setdefault("dense", cos)
    for cid, chunk in by_id.items():
        parent = doc_rank.get(chunk.doc_id)
        if parent is not None:
            ranks[cid]["document"], scores[cid]["document"] = parent
    return [Retrieved(by_id[cid], s, i + 1, ranks[cid], scores[cid]) for i, (cid, s) in enumerate(fused[:top_k])]
