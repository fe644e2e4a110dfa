"""The Qdrant point layout and every :class:`~clinqa.store.base.Store` method on it, written once for
two transports: :class:`clinqa.store.qdrant.QdrantStore` (qdrant-client: a server, a cluster, local
mode) and :class:`clinqa.store.qdrant_edge.EdgeStore` (qdrant-edge-py: Qdrant's Rust engine in the
process). See docs/qdrant.md.

Layout. One point per chunk; the point id is ``uuid5(NAMESPACE, chunk_id)`` (:func:`point_id`), so
re-writing a chunk overwrites it. Each point has a named dense vector ``dense`` (cosine distance;
Qdrant's engine, on a server or in Edge, stores it unit-normalised, so ``export`` returns unit vectors
there; qdrant-client's local mode keeps it as given) and a named sparse vector
``bm25`` with the IDF modifier, and as payload the whole :class:`~clinqa.chunking.base.Chunk` plus
``source_lc`` (the lower-cased source, for case-insensitive source filters) and ``doc_chunks`` (how
many chunks the document has in the write that stored it). The filtered fields have payload indexes
(:data:`PAYLOAD_INDEXES`; ``patient_id`` as the tenant key) where the transport has them. Beside the
points, meta data: the store's version counter, the BM25 ``avgdl``, the dimension, ``bm25_scopes``, and
the BM25 statistics of each scope.

Filters become Qdrant conditions by the one mapping :func:`clinqa.store.filters.to_qdrant`, in the
transport's :class:`~clinqa.store.filters.QdrantDialect`; they are passed inside every query
(pre-filtering). Dense search is exact (``exact=True``): filtered recall is 1.0, as in LanceDB.

BM25 (:mod:`clinqa.store.sparse`): each point's ``bm25`` vector holds the BM25 term-frequency part
``tf * (k1+1) / (tf + k1 * (1 - b + b * dl/avgdl))`` of its terms; the query carries, per term,
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` with N and df over what the search's scope may see (the
reference chunks, plus the patient's for a patient-scoped search: :mod:`clinqa.store.bm25_stats`), and
Qdrant takes the plain dot product (no IDF modifier). The counts of each scope are kept beside the points
(``_t_stats_read`` / ``_t_stats_write``) and updated by every write from the chunks it replaces or deletes
(:meth:`QdrantLayout._restat`), so a deletion counts at once. A collection made before issue 51 (the
sparse vector with Qdrant's ``Modifier.IDF``, idf over the whole collection; no ``bm25_scopes`` in its
meta) keeps weight 1 per query term (:meth:`QdrantLayout.scoped_bm25`).
``avgdl`` is fixed when the collection is created: the ``avgdl``
given (``clinqa migrate`` passes the corpus mean), else the mean term count of the first write.

Writes. A batch is checked before anything is written (:func:`clinqa.store.base.check_vectors`: as
many finite vectors as chunks, of the store's width), so a rejected batch leaves the store as it was.
Qdrant has no multi-operation transaction: :meth:`QdrantLayout.replace_documents` upserts the new
points, then deletes the documents' points that were not re-produced. A process killed in between
(or, in local mode, inside the upsert, which commits point by point) leaves a document whose chunks
carry two hashes, or fewer chunks than ``doc_chunks`` says; :meth:`QdrantLayout.doc_hashes` reports
such a document's hash as ``""``, so the next ingest redoes it. The version is raised before and after
every write, so an answer cached under the old version is missed also after a killed write.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, get_args

import numpy as np
import pyarrow as pa

from clinqa.chunking.base import Chunk, Level
from clinqa.errors import ConfigError
from clinqa.store.base import DOCUMENT_EXTRAS, Hit, Store, check_vectors, document_row
from clinqa.store.bm25_stats import Bm25Stats, ScopeStats, scope_key
from clinqa.store.filters import Filters, QdrantDialect, to_qdrant
from clinqa.store.schema import chunk_schema
from clinqa.store.sparse import bm25_weights, index_terms, query_weights

DENSE = "dense"
SPARSE = "bm25"
#: namespace of the point ids: ``uuid5(NAMESPACE_URL, "https://clinqa/chunk")``
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://clinqa/chunk")
#: the payload indexes of the filtered fields: (field, "keyword" | "integer"); ``patient_id`` is the tenant
PAYLOAD_INDEXES: tuple[tuple[str, str], ...] = (("patient_id", "keyword"), ("year", "integer"),
                                                ("source_lc", "keyword"), ("hierarchy_level", "keyword"),
                                                ("doc_id", "keyword"))
#: payload keys beside the chunk's fields
DOC_CHUNKS = "doc_chunks"


def point_id(chunk_id: str) -> str:
    """The Qdrant point id of a chunk: ``str(uuid5(NAMESPACE, chunk_id))``."""
    return str(uuid.uuid5(NAMESPACE, chunk_id))


def chunk_payload(chunk: Chunk, doc_chunks: int | None = None) -> dict[str, Any]:
    """The payload of a chunk's point: its fields, ``source_lc`` and (when known) ``doc_chunks``."""
    d = chunk.model_dump(mode="json")
    d["source_lc"] = chunk.source.lower()
    if doc_chunks is not None:
        d[DOC_CHUNKS] = doc_chunks
    return d


def payload_chunk(payload: dict[str, Any] | None) -> Chunk:
    """The chunk a point's payload holds (keys that are not chunk fields ignored)."""
    return Chunk.model_validate({k: v for k, v in (payload or {}).items() if k in Chunk.model_fields})


@dataclass
class PointSpec:
    """One point, transport-neutral: id, dense vector, sparse ``(indices, values)``, payload."""

    id: str
    dense: list[float]
    sparse: tuple[list[int], list[float]]
    payload: dict[str, Any]


class QdrantLayout(Store):
    """The :class:`~clinqa.store.base.Store` methods on the layout of the module docstring, over the
    transport methods (``_t_*``) a subclass implements: collection existence and creation, meta data,
    writes, queries, scroll, count, retrieve. ``self._dialect`` spells the conditions, ``self._lock``
    (a context manager) guards read-modify-write of the meta data."""

    _dialect: QdrantDialect
    _lock: Any = contextlib.nullcontext()

    def _layout_init(self, avgdl: float | None) -> None:
        self._avgdl = avgdl
        self._exists = False
        self._scopes: bool | None = None  # per-scope BM25 statistics kept (meta ``bm25_scopes``)
        self._stats_lock = threading.Lock()
        self._stats_version = -1
        self._stats_cache: dict[str, ScopeStats] = {}

    # -- the transport ----------------------------------------------------------------------------
    def _t_exists(self) -> bool:
        raise NotImplementedError

    def _t_create(self, dim: int, avgdl: float) -> None:
        """Create the collection (dense + sparse vectors, payload indexes) and its meta data."""
        raise NotImplementedError

    def _t_dim(self) -> int:
        raise NotImplementedError

    def _t_meta(self) -> dict[str, Any]:
        raise NotImplementedError

    def _t_set_meta(self, values: dict[str, Any]) -> None:
        raise NotImplementedError

    def _t_write(self, chunks: list[Chunk], points: list[PointSpec], deletes: list[Any]) -> None:
        """Upsert ``points`` (of ``chunks``), then delete the points of each filter in ``deletes``."""
        raise NotImplementedError

    def _t_query(self, using: str, query: list[float] | tuple[list[int], list[float]], k: int, flt: Any,
                 fields: bool | list[str], patient_id: str | None) -> list[tuple[dict[str, Any], float]]:
        """``[(payload, score)]`` of the top ``k`` under ``flt``, exact, best first."""
        raise NotImplementedError

    def _t_scroll(self, fields: list[str], flt: Any = None,
                  vectors: bool = False) -> Iterator[tuple[dict[str, Any], list[float] | None]]:
        raise NotImplementedError

    def _t_count(self, flt: Any = None) -> int:
        raise NotImplementedError

    def _t_retrieve(self, ids: list[str]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _t_drop(self) -> None:
        raise NotImplementedError

    def _t_stats_read(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """``{key: record}`` of the stored BM25 scope statistics named (:mod:`clinqa.store.bm25_stats`;
        keys never written are left out)."""
        raise NotImplementedError

    def _t_stats_write(self, records: dict[str, dict[str, Any]]) -> None:
        """Store (replace) these scope statistics; a record with ``n == 0`` may be deleted instead."""
        raise NotImplementedError

    # -- collection and meta ------------------------------------------------------------------
    def sync(self) -> bool:
        """Whether the collection exists (every read is answered from the engine's latest state)."""
        if not self._exists:
            self._exists = self._t_exists()
        return self._exists

    @property
    def dim(self) -> int | None:
        """Vector dimension of the stored chunks, ``None`` while no collection exists."""
        return self._t_dim() if self.sync() else None

    def _bump(self) -> None:
        """Raise the version: ``max(old + 1, now in microseconds)``, so two writers that read the same old
        value (on a server) still leave distinct versions."""
        with self._lock:
            version = max(int(self._t_meta().get("version", 0)) + 1, time.time_ns() // 1000)
            self._t_set_meta({"version": version})

    def avgdl(self) -> float | None:
        """The BM25 average document length fixed at creation (index terms), ``None`` while empty."""
        if self._avgdl is None and self.sync():
            value = self._t_meta().get("avgdl")
            self._avgdl = float(value) if value else None
        return self._avgdl

    def fix_avgdl(self, avgdl: float) -> None:
        """Set the BM25 average document length (index terms per chunk) the first write will fix (e.g. the
        corpus mean, measured by :mod:`clinqa.store.migrate`). Raises :class:`~clinqa.errors.ConfigError`
        once the collection exists (stored weights use its own)."""
        if self.sync():
            raise ConfigError("the store's collection exists: its avgdl is fixed")
        if avgdl <= 0:
            raise ValueError(f"avgdl must be positive, got {avgdl}")
        self._avgdl = float(avgdl)

    def drop(self) -> None:
        """Delete everything this store holds."""
        self._t_drop()
        self._exists = False
        self._avgdl = None
        self._scopes = None
        with self._stats_lock:
            self._stats_version, self._stats_cache = -1, {}

    # -- writes -------------------------------------------------------------------------------
    def _points(self, chunks: list[Chunk], vectors: np.ndarray) -> list[PointSpec]:
        """The points of ``chunks`` (checked first: nothing is created or written for a bad batch);
        creates the collection on the first write."""
        vectors = check_vectors(chunks, vectors, self.dim if self.sync() else None)
        terms = [index_terms(c.text) for c in chunks]
        if not chunks:
            return []
        if not self.sync():
            avgdl = self._avgdl or max(float(np.mean([len(t) for t in terms])), 1.0)
            self._t_create(int(vectors.shape[1]), avgdl)
            self._t_set_meta({"bm25_scopes": True})
            self._exists = True
        avgdl = self.avgdl() or 1.0
        per_doc: dict[str, int] = {}
        for c in chunks:
            per_doc[c.doc_id] = per_doc.get(c.doc_id, 0) + 1
        out = []
        for c, v, t in zip(chunks, vectors, terms, strict=True):
            w = bm25_weights(t, avgdl)
            out.append(PointSpec(point_id(c.chunk_id), v.tolist(), (list(w), list(w.values())),
                                 chunk_payload(c, per_doc[c.doc_id])))
        return out

    def _stale(self, doc_ids: list[str], chunks: list[Chunk], points: list[PointSpec]) -> list[Any]:
        """The delete filters of a replace: the points of ``doc_ids`` that are not among ``points``."""
        d = self._dialect
        return [d.filter([d.match_any("doc_id", list(doc_ids))],
                         [d.has_id([p.id for p in points])] if points else None)]

    def replace_documents(self, doc_ids: list[str], chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Replace the chunks of ``doc_ids`` by ``chunks`` (``vectors``: ``(n, dim)`` float): upsert them,
        then delete the documents' points not among them. Not a transaction (module docstring). Raises
        ``ValueError`` (writing nothing) when the vectors do not fit the chunks or the store."""
        if not doc_ids:
            return
        points = self._points(chunks, vectors)
        if not self.sync():  # nothing stored and nothing to store
            return
        d = self._dialect
        old = self._old_chunks(d.filter([d.match_any("doc_id", list(doc_ids))]))
        self._bump()
        self._t_write(chunks, points, self._stale(doc_ids, chunks, points))
        self._restat(old, chunks)
        self._bump()

    def upsert_chunks(self, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Bulk load: write ``chunks`` with their ``vectors`` (``(n, dim)``), deleting nothing (for
        :mod:`clinqa.store.migrate`, which writes whole documents; ingest uses :meth:`replace_documents`)."""
        points = self._points(chunks, vectors)
        if points:
            old = ([(p.get("patient_id"), p.get("text") or "") for p in self._t_retrieve([p.id for p in points])]
                   if self.scoped_bm25() else [])
            self._bump()
            self._t_write(chunks, points, [])
            self._restat(old, chunks)
            self._bump()

    def delete_document(self, doc_id: str) -> int:
        """Delete ``doc_id``'s chunks; returns the number deleted (0 for an unknown document)."""
        if not self.sync():
            return 0
        f = self._dialect.filter([self._dialect.match("doc_id", doc_id)])
        n = self._t_count(f)
        if n:
            old = self._old_chunks(f)
            self._bump()
            self._t_write([], [], [f])
            self._restat(old, [])
            self._bump()
        return int(n)

    # -- per-scope BM25 statistics ------------------------------------------------------------
    def scoped_bm25(self) -> bool:
        """Whether this collection keeps per-scope BM25 statistics and ranks by them (every collection
        created since issue 51: its sparse vector has no IDF modifier, the query carries the idf). An
        older collection (``Modifier.IDF``, idf over the whole collection) is searched as before until
        it is re-created (``clinqa migrate --overwrite``)."""
        if self._scopes is None and self.sync():
            self._scopes = bool(self._t_meta().get("bm25_scopes"))
        return bool(self._scopes)

    def _old_chunks(self, flt: Any) -> list[tuple[str | None, str]]:
        """``(patient_id, text)`` of the stored chunks under ``flt`` (what a write will replace or delete),
        ``[]`` where no statistics are kept."""
        if not self.scoped_bm25():
            return []
        return [(p.get("patient_id"), p.get("text") or "") for p, _ in self._t_scroll(["patient_id", "text"], flt)]

    def _restat(self, old: list[tuple[str | None, str]], new: list[Chunk]) -> None:
        """Take the ``old`` chunks out of their scopes' statistics and count the ``new`` ones in (read,
        changed and written back under the store's lock; between the two version bumps of the write)."""
        if not self.scoped_bm25() or not (old or new):
            return
        keys = sorted({scope_key(pid) for pid, _ in old} | {scope_key(c.patient_id) for c in new})
        with self._lock:
            stats = Bm25Stats.from_records(self._t_stats_read(keys))
            stats.remove(old)
            stats.add((c.patient_id, c.text) for c in new)
            self._t_stats_write(stats.to_records(list(stats.changed())))

    def bm25_stats(self, patient_id: str | None) -> Bm25Stats:
        """The statistics a search in ``patient_id``'s scope ranks with (the reference scope's and, for a
        patient, theirs), as stored at the current version (read once per version and scope)."""
        version = self.version()
        keys = [scope_key(None)] + ([] if patient_id is None else [scope_key(patient_id)])
        with self._stats_lock:
            if version != self._stats_version:
                self._stats_version, self._stats_cache = version, {}
            have = {k: self._stats_cache[k] for k in keys if k in self._stats_cache}
        missing = [k for k in keys if k not in have]
        if missing:
            recs = self._t_stats_read(missing)
            fresh = {k: ScopeStats.from_record(recs[k]) if k in recs else ScopeStats() for k in missing}
            with self._stats_lock:
                if version == self._stats_version:
                    self._stats_cache.update(fresh)
            have.update(fresh)
        return Bm25Stats(have)

    def refresh_indexes(self) -> None:
        """Nothing to do: Qdrant updates the sparse and payload indexes with every write."""

    # -- searches -----------------------------------------------------------------------------
    def _filter(self, filters: Filters) -> Any:
        return to_qdrant(filters, self._dialect)

    def dense_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[Hit]:
        """Exact cosine top-``k`` under ``filters`` (pre-filtered); ``score`` is the cosine similarity.
        Empty while no collection exists or for ``k < 1``."""
        if k < 1 or not self.sync():
            return []
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        res = self._t_query(DENSE, q, k, self._filter(filters), True, filters.patient_id)
        return [Hit(payload_chunk(p), s, i + 1, "cosine") for i, (p, s) in enumerate(res)]

    def dense_scores(self, vector: np.ndarray, chunk_ids: list[str], filters: Filters) -> dict[str, float]:
        """Exact cosines of the listed chunks under ``filters``: one query restricted to their point ids,
        returning only the ``chunk_id`` payload field."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or not self.sync():
            return {}
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        d = self._dialect
        flt = d.filter([d.has_id([point_id(c) for c in ids]), self._filter(filters)])
        res = self._t_query(DENSE, q, len(ids), flt, ["chunk_id"], filters.patient_id)
        return {str(p["chunk_id"]): s for p, s in res}

    def dense_search_docs(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """``[(doc_id, cosine), ...]`` of the exact top-``k`` under ``filters``; only ``doc_id`` is read."""
        if k < 1 or not self.sync():
            return []
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        return [(str(p["doc_id"]), s)
                for p, s in self._t_query(DENSE, q, k, self._filter(filters), ["doc_id"], filters.patient_id)]

    def bm25_search(self, query: str, k: int, filters: Filters) -> list[Hit]:
        """BM25 top-``k`` under ``filters`` (pre-filtered; see :mod:`clinqa.store.sparse`); only chunks
        sharing a term with the query. Empty for a query with no terms (punctuation, stop words)."""
        weights = query_weights(query)
        if k < 1 or not weights or not self.sync():
            return []
        if self.scoped_bm25():  # the idf of what the scope may see (see the module docstring)
            weights = self.bm25_stats(filters.patient_id).idf(weights, filters.patient_id)
            if not weights:
                return []
        sv = (list(weights), list(weights.values()))
        res = self._t_query(SPARSE, sv, k, self._filter(filters), True, filters.patient_id)
        return [Hit(payload_chunk(p), s, i + 1, "bm25") for i, (p, s) in enumerate(res)]

    # -- reads --------------------------------------------------------------------------------
    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks by id in the order asked; unknown ids are skipped."""
        if not chunk_ids or not self.sync():
            return []
        by_id = {c.chunk_id: c for c in (payload_chunk(p) for p in self._t_retrieve(
            list({point_id(c) for c in chunk_ids})))}
        return [by_id[c] for c in chunk_ids if c in by_id]

    def doc_hashes(self) -> dict[str, str]:
        """``{doc_id: doc_hash}``; ``""`` for a document written only in part (its chunks carry different
        hashes, or fewer than their ``doc_chunks``: a write that failed or was killed half-way), so the
        next ingest redoes it."""
        if not self.sync():
            return {}
        out: dict[str, str] = {}
        seen: dict[str, int] = {}
        want: dict[str, int] = {}
        for p, _ in self._t_scroll(["doc_id", "doc_hash", DOC_CHUNKS]):
            d, h = p["doc_id"], p.get("doc_hash", "")
            out[d] = h if out.get(d, h) == h else ""
            seen[d] = seen.get(d, 0) + 1
            if p.get(DOC_CHUNKS) is not None:
                want[d] = max(want.get(d, 0), int(p[DOC_CHUNKS]))
        for d, n in want.items():
            if seen[d] != n:
                out[d] = ""
        return out

    def documents(self) -> list[dict[str, Any]]:
        """One dict per document (doc_id, title, year, source, patient_id, chunks, and
        :data:`~clinqa.store.base.DOCUMENT_EXTRAS`; ``""`` where a payload has none), sorted by id."""
        if not self.sync():
            return []
        keys = ["doc_id", "title", "year", "source", "patient_id", *DOCUMENT_EXTRAS]
        docs: dict[str, dict[str, Any]] = {}
        for p, _ in self._t_scroll(keys):
            d = docs.setdefault(p["doc_id"], {**{k: p.get(k) for k in keys}, "chunks": 0})
            d["chunks"] += 1
        return [document_row(docs[k]) for k in sorted(docs)]

    def sample_texts(self, n: int, exclude_levels: tuple[str, ...] = ("document",)) -> list[str]:
        """The embedded texts of the first ``n`` chunks by chunk id (deterministic)."""
        if not self.sync():
            return []
        rows = sorted((p for p, _ in self._t_scroll(["chunk_id", "text", "hierarchy_level"])
                       if p.get("hierarchy_level") not in exclude_levels), key=lambda p: p["chunk_id"])
        return [p["text"] for p in rows[:n]]

    def export(self, columns: list[str], filters: Filters) -> pa.Table:
        """The ``columns`` of every chunk that ``filters`` admit, as an Arrow table with the column types
        of :func:`clinqa.store.schema.chunk_schema`, as in the LanceDB store (``vector``: fixed-size list
        of float32, unit-normalised by Qdrant). Raises ``ValueError`` for a column the store does not have."""
        if not self.sync():
            return pa.table({c: [] for c in columns})
        full = chunk_schema(self.dim or 1)
        unknown = [c for c in columns if c not in full.names]
        if unknown:
            raise ValueError(f"unknown column(s) {unknown}; known: {full.names}")
        want_vec = "vector" in columns
        rows = [{c: (v if c == "vector" else p.get(c)) for c in columns}
                for p, v in self._t_scroll([c for c in columns if c != "vector"], self._filter(filters), want_vec)]
        return pa.Table.from_pylist(rows, schema=pa.schema([full.field(c) for c in columns]))

    def version(self) -> int:
        """Grows with every write (ingest, removal); 0 when no collection exists. Keys cached answers."""
        if not self.sync():
            return 0
        return int(self._t_meta().get("version", 0))

    def count(self) -> int:
        """Number of chunks."""
        return self._t_count() if self.sync() else 0

    def level_counts(self) -> dict[str, int]:
        """Chunks per hierarchy level (levels without chunks left out)."""
        if not self.sync():
            return {}
        out: dict[str, int] = {}
        for lv in get_args(Level):
            n = self._t_count(self._dialect.filter([self._dialect.match("hierarchy_level", lv)]))
            if n:
                out[lv] = n
        return out
