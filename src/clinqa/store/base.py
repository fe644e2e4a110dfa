"""The Store protocol: one place for vectors, text, the BM25 index and metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import pyarrow as pa

from clinqa.chunking.base import Chunk
from clinqa.store.filters import Filters

ScoreKind = Literal["cosine", "bm25"]

#: per-document fields :meth:`Store.documents` returns beside doc_id, title, year, source, patient_id and
#: chunks: the file it was loaded from, its format, where its source came from and when it was stored
#: (``""`` for documents of a store written before ``source_from``/``ingested_at`` existed)
DOCUMENT_EXTRAS: tuple[str, ...] = ("path", "format", "source_from", "ingested_at")


def document_row(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (one document of :meth:`Store.documents`) with every :data:`DOCUMENT_EXTRAS` field, ``""``
    where the store has none (a column an older store lacks, or a null in it)."""
    return {**row, **{k: row.get(k) or "" for k in DOCUMENT_EXTRAS}}


def check_vectors(chunks: list[Chunk], vectors: np.ndarray, dim: int | None) -> np.ndarray:
    """``vectors`` as ``(n, d)`` float32, checked before a store writes anything: as many rows as
    ``chunks``, every value finite, ``d == dim`` when the store already has a width (``None``: not yet).
    Raises ``ValueError`` naming what is wrong, so a rejected batch leaves the store as it was."""
    v = np.asarray(vectors, dtype=np.float32)
    if not chunks and v.size == 0:
        return v.reshape(0, dim or 0)
    if v.ndim != 2 or len(v) != len(chunks):
        raise ValueError(f"{len(chunks)} chunks but vectors of shape {v.shape}")
    if dim is not None and v.shape[1] != dim:
        raise ValueError(f"vectors of width {v.shape[1]}, but the store holds vectors of width {dim}")
    bad = np.flatnonzero(~np.isfinite(v).all(axis=1))
    if len(bad):
        first = chunks[int(bad[0])].chunk_id
        raise ValueError(f"{len(bad)} vector(s) with NaN or infinite values (first: chunk {first!r})")
    return v


#: what to do instead of a second process on one Qdrant Edge folder (:mod:`clinqa.store.qdrant_edge`'s errors and
#: ``clinqa serve --workers N`` say it)
EDGE_ALTERNATIVES = ("use one process (clinqa serve --workers 1), or move the store to a Qdrant server "
                     "(clinqa migrate --to qdrant --qdrant-url URL; store.backend: qdrant) or to LanceDB "
                     "(store.backend: lancedb), which several processes can open")


@dataclass
class Hit:
    """One chunk in a ranked list. ``rank`` starts at 1; ``kind`` says what ``score`` is
    (cosine similarity in [-1, 1] or a BM25 score), so scores of different kinds are never
    compared by accident."""

    chunk: Chunk
    score: float
    rank: int
    kind: ScoreKind


class Store(Protocol):
    """A chunk store with dense and BM25 search under the same pre-filters.

    Implementations: :class:`clinqa.store.lancedb.LanceStore` (embedded default) and
    :class:`clinqa.store.qdrant.QdrantStore`; :func:`clinqa.store.build_store` picks one from the
    settings. ``tests/store/test_contract.py`` runs the same contract on both. Every read on a
    store with nothing written yet returns an empty result (``[]``, ``{}``, ``0``, ``None``).

    The last four methods (:meth:`stale_indexes`, :meth:`count_matches`, :meth:`hybrid_lists`,
    :meth:`drop_caches`) have default implementations here; a store that subclasses ``Store`` (both do)
    gets them and overrides them where it can do better. Callers call them on every store, never look them up.
    """

    def sync(self) -> bool:
        """Catch up with writes made elsewhere (another store object or process) where the
        backend needs it; returns whether the store holds a table/collection yet."""
        ...

    @property
    def dim(self) -> int | None:
        """Dimension of the stored vectors, ``None`` while nothing is stored."""
        ...

    def version(self) -> int:
        """A number that grows with every write (ingest, removal), also one made by another
        process; 0 while nothing is stored. Keys the answer cache."""
        ...

    def replace_documents(self, doc_ids: list[str], chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Replace all chunks of ``doc_ids`` by ``chunks`` (``vectors``: ``(n, dim)`` float, row
        ``i`` for ``chunks[i]``): chunks of those documents not in ``chunks`` are deleted. Creates
        the store on the first write. Raises ``ValueError`` when lengths differ.

        LanceDB does this in one commit (readers see the old or the new chunks of each document,
        never a mix); Qdrant cannot (see :mod:`clinqa.store.qdrant` for what a reader may see).
        """
        ...

    def delete_document(self, doc_id: str) -> int:
        """Delete a document's chunks; returns how many were deleted."""
        ...

    def dense_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[Hit]:
        """Exact top-``k`` by cosine similarity among chunks passing ``filters`` (``vector``:
        ``(dim,)``); hits of kind ``"cosine"``, ranks from 1, best first."""
        ...

    def dense_search_docs(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """``[(doc_id, cosine), ...]`` of the same top-``k`` chunks as :meth:`dense_search`, best first,
        without reading the chunks (the document list of :func:`clinqa.retrieval.hybrid.hybrid_search`
        needs only which documents and in what order)."""
        ...

    def dense_scores(self, vector: np.ndarray, chunk_ids: list[str], filters: Filters) -> dict[str, float]:
        """``{chunk_id: cosine}`` of ``vector`` with each listed chunk that passes ``filters``, exact, without
        reading the chunks (ids unknown or filtered out are left out): the dense score of a chunk the BM25
        list found beyond the dense top-k, for :func:`clinqa.retrieval.fusion.convex`."""
        ...

    def bm25_search(self, query: str, k: int, filters: Filters) -> list[Hit]:
        """Top-``k`` by BM25 among chunks passing ``filters`` that share a term with ``query``;
        hits of kind ``"bm25"``; ``[]`` for a query without words (punctuation only)."""
        ...

    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks by id (missing ids are left out), in the order asked."""
        ...

    def doc_hashes(self) -> dict[str, str]:
        """``{doc_id: doc_hash}`` of every stored document."""
        ...

    def documents(self) -> list[dict[str, Any]]:
        """One row per document, sorted by id: doc_id, title, year, source, patient_id, chunks, and the
        :data:`DOCUMENT_EXTRAS` (path, format, source_from, ingested_at; ``""`` where unknown)."""
        ...

    def count(self) -> int:
        """Number of chunks."""
        ...

    def level_counts(self) -> dict[str, int]:
        """``{hierarchy_level: number of chunks}`` for the levels that have chunks."""
        ...

    def sample_texts(self, n: int, exclude_levels: tuple[str, ...] = ("document",)) -> list[str]:
        """The ``text`` of the first ``n`` chunks by chunk id, leaving out ``exclude_levels``."""
        ...

    def export(self, columns: list[str], filters: Filters) -> pa.Table:
        """The ``columns`` (names of :class:`Chunk` fields, or ``vector``: a fixed-size list of
        float32 of width ``dim``) of every chunk ``filters`` admit, one row per chunk, in no
        particular order. Raises when a column is unknown."""
        ...

    def refresh_indexes(self) -> None:
        """Bring the BM25 (and any other) index up to date after writes (a no-op where the
        index follows every write)."""
        ...

    # -- with defaults ----------------------------------------------------------------------------
    def stale_indexes(self) -> bool:
        """True when rows were written that the BM25 (or another) index does not cover yet, e.g. by
        an ingest killed before its final :meth:`refresh_indexes`; ingest then refreshes even when no
        document changed. Default: ``False``, for stores whose indexes follow every write (Qdrant)."""
        return False

    def count_matches(self, query: str, cap: int, filters: Filters) -> int:
        """How many chunks under ``filters`` share a term with ``query`` (the BM25 matches), counted up
        to ``cap``: a cheap document frequency for :func:`clinqa.evidence.coverage.term_counts`.
        Default: ``len(self.bm25_search(query, cap, filters))``; LanceDB reads ids only and caches."""
        return len(self.bm25_search(query, cap, filters))

    def hybrid_lists(self, vector: np.ndarray, query: str, dense_k: int, bm25_k: int,
                     filters: Filters) -> tuple[list[Hit], list[Hit], dict[str, float]]:
        """Both ranked lists of one question, ``(dense hits, BM25 hits, timings_ms)``: exactly
        :meth:`dense_search` and :meth:`bm25_search` under the same ``filters``; ``timings_ms`` has
        ``dense`` and ``bm25`` (and ``rows`` where a store reads the hits' rows in one go). Default: the
        two calls, timed; LanceDB ranks both from ids and scores first, then reads every hit's row in one
        take (one take of 50 rows costs about 2/3 of two takes of 30 and 20 at 300k chunks)."""
        import time

        t0 = time.perf_counter()
        dense = self.dense_search(vector, dense_k, filters)
        t1 = time.perf_counter()
        bm25 = self.bm25_search(query, bm25_k, filters)
        t2 = time.perf_counter()
        return dense, bm25, {"dense": (t1 - t0) * 1e3, "bm25": (t2 - t1) * 1e3}

    def drop_caches(self) -> None:
        """Forget rows, counts and other results kept in memory (benchmarks call it so that repeated
        questions do not time a cache). Default: nothing is kept, nothing to do."""
