"""Qdrant store: the same :class:`clinqa.store.base.Store` on Qdrant (local mode, a server or a cluster).

Layout. One collection (``collection``, default ``clinqa_chunks``) holds one point per chunk; the
point id is ``uuid5(NAMESPACE, chunk_id)`` (:func:`point_id`), so re-ingesting a chunk overwrites
it. Each point has a named dense vector ``dense`` (cosine distance; Qdrant stores it unit-
normalised, so :meth:`QdrantStore.export` returns unit vectors) and a named sparse vector ``bm25``
with ``modifier=Modifier.IDF``, and the whole :class:`~clinqa.chunking.base.Chunk` as payload plus
``source_lc`` (the lower-cased source, for case-insensitive source filters). A second, tiny
collection ``<collection>_meta`` holds one point with the store's version counter and the BM25
``avgdl`` (see below).

Filters (:func:`clinqa.store.filters.to_qdrant`) become a Qdrant ``Filter`` passed inside every query (pre-filtering:
the top-``k`` is taken among the points that pass). ``patient_id=None`` is ``IsEmpty(patient_id)``,
which matches a null or absent ``patient_id`` only; a patient id is an exact keyword match. On a
server the filtered fields have payload indexes (``patient_id`` as the tenant key); local mode has
no payload indexes (it scans, and warns if asked to build one), so none are made there.

Dense search is exact (``SearchParams(exact=True)`` on a server; local mode always is), so
filtered recall is 1.0, as in the LanceDB store.

BM25 (:mod:`clinqa.store.sparse`): each point's ``bm25`` vector holds the BM25 term-frequency
part ``tf * (k1+1) / (tf + k1 * (1 - b + b * dl/avgdl))`` of its terms; Qdrant multiplies matching
terms by ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` at query time (Qdrant docs, "Sparse vectors:
IDF modifier"), with N and df counted over the whole collection; the query has weight 1 per term.
``avgdl`` cannot follow the corpus (stored weights would go stale), so it is fixed when the
collection is created: the ``avgdl`` argument if given (``clinqa migrate`` passes the corpus
mean), else the mean term count of the chunks of the first write, and kept in the meta point.
Scores therefore differ slightly from LanceDB's FTS (live avgdl, Snowball stemmer); rankings of
clear cases (a rare query term) agree. See docs/qdrant.md.

Atomicity. Qdrant has no multi-operation transactions. :meth:`QdrantStore.replace_documents` sends
the upsert of the new chunks and the deletion of the documents' chunks that were not re-produced
in one ``batch_update_points`` request, applied in that order; each point write is atomic, the
request as a whole is not. A concurrent reader may therefore see, for a moment, a document with
part of its new chunks, or with new chunks beside old ones not yet deleted; it never sees a
document vanish (the upsert comes first). If the request fails half-way, :meth:`doc_hashes` reports
the document's hash as ``""`` while its chunks carry different hashes, so the next ingest redoes it.
The version counter is bumped after each write, so a reader that cached an answer under the old
version misses the cache once the write is complete.

Connections: ``QdrantStore(path)`` is local mode persisted in ``path`` (``":memory:"``: in memory),
single process: local mode locks its folder, so another process (a second ``serve`` worker) gets a
:class:`~clinqa.errors.ConfigError`; within one process all stores on the same folder share one
client (and one lock, since local mode is not thread-safe). ``QdrantStore(url=..., api_key=...)``
talks to a server or cluster; every read goes to the server, so writes by other processes are
seen at once. ``shard_by_patient`` (server/cluster only) creates the collection with custom
sharding, ``patient_id`` (or ``"_general"`` for documents of no patient) as shard key; queries then
name the shard of their patient, and the filter is still applied. A point id is unique per shard
only there, so a replace deletes per document the points that are not its new ones *under its new
patient id* (:func:`_stale_per_document`): a note moved to another patient leaves no copy behind.
Sharding is not exercised by the tests (no server here).
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pyarrow as pa
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from clinqa.chunking.base import Chunk, Level
from clinqa.errors import ConfigError
from clinqa.store.base import DOCUMENT_EXTRAS, Hit, Store, document_row
from clinqa.store.filters import Filters, qdrant_patient_condition, to_qdrant
from clinqa.store.schema import chunk_schema
from clinqa.store.sparse import bm25_weights, index_terms, query_weights

DENSE = "dense"
SPARSE = "bm25"
GENERAL_SHARD = "_general"
#: namespace of the point ids: ``uuid5(NAMESPACE_URL, "https://clinqa/chunk")``
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://clinqa/chunk")
_META_ID = 0
_SCROLL = 1024


def point_id(chunk_id: str) -> str:
    """The Qdrant point id of a chunk: ``str(uuid5(NAMESPACE, chunk_id))``."""
    return str(uuid.uuid5(NAMESPACE, chunk_id))


def _stale_per_document(doc_ids: list[str], chunks: list[Chunk], points: list[qm.PointStruct]) -> list[qm.Filter]:
    """For sharded collections: per document, a filter for its points that are not one of its new
    points *with its new patient id*. With custom sharding a point id is unique per shard only, so a
    note moved to another patient leaves its old copy in the old patient's shard under the same id;
    the patient condition catches it (the delete runs on all shards)."""
    new: dict[str, tuple[str | None, list[Any]]] = {}
    for c, p in zip(chunks, points, strict=True):
        new.setdefault(c.doc_id, (c.patient_id, []))[1].append(p.id)
    out = []
    for d in doc_ids:
        doc = qm.FieldCondition(key="doc_id", match=qm.MatchValue(value=d))
        if d not in new:
            out.append(qm.Filter(must=[doc]))
            continue
        patient_id, keep = new[d]
        out.append(qm.Filter(must=[doc], must_not=[qm.Filter(must=[qm.HasIdCondition(has_id=keep),
                                                                   qdrant_patient_condition(patient_id)])]))
    return out


def _payload(chunk: Chunk) -> dict[str, Any]:
    d = chunk.model_dump(mode="json")
    d["source_lc"] = chunk.source.lower()
    return d


def _chunk(payload: dict[str, Any] | None) -> Chunk:
    return Chunk.model_validate({k: v for k, v in (payload or {}).items() if k in Chunk.model_fields})


@dataclass
class _Local:
    key: str
    client: QdrantClient
    lock: threading.RLock
    users: int = 0


_LOCAL: dict[str, _Local] = {}
_LOCAL_GUARD = threading.Lock()


def _open_local(path: Path) -> _Local:
    key = str(path.resolve())
    with _LOCAL_GUARD:
        loc = _LOCAL.get(key)
        if loc is None:
            path.mkdir(parents=True, exist_ok=True)
            try:
                client = QdrantClient(path=key, force_disable_check_same_thread=True)
            except RuntimeError as exc:
                if "already accessed" not in str(exc):
                    raise
                raise ConfigError(
                    f"{path}: this Qdrant local-mode folder is open in another process (local mode is single-"
                    "process); stop that process, or run a Qdrant server and set store.qdrant_url / $QDRANT_URL"
                ) from exc
            loc = _LOCAL[key] = _Local(key, client, threading.RLock())
        loc.users += 1
        return loc


@atexit.register
def _close_local_clients() -> None:
    """Close the shared local-mode clients before the interpreter tears down modules (closing in
    ``__del__`` at shutdown fails noisily and leaves the folder's lock file open)."""
    with _LOCAL_GUARD:
        for loc in _LOCAL.values():
            with contextlib.suppress(Exception):
                loc.client.close()
        _LOCAL.clear()


def _already_exists(exc: Exception) -> bool:
    return "already exists" in str(exc).lower()


class QdrantStore(Store):
    """:class:`clinqa.store.base.Store` on Qdrant; see the module docstring for the layout.

    Give ``path`` (local mode folder, created if missing, or ``":memory:"``) or ``url`` (a server;
    ``api_key`` optional). ``avgdl`` fixes the BM25 average document length (in index terms) when
    this store creates the collection. ``shard_by_patient`` needs a server; with ``path`` it raises
    :class:`~clinqa.errors.ConfigError`, as does a local folder already open in another process.
    ``stale_indexes``, ``count_matches`` and ``drop_caches`` are the :class:`~clinqa.store.base.Store`
    defaults (the sparse index follows every write; matches are counted by a BM25 search; nothing is
    cached in memory).
    """

    def __init__(self, path: Path | str | None = None, *, url: str | None = None, api_key: str | None = None,
                 collection: str = "clinqa_chunks", shard_by_patient: bool = False,
                 avgdl: float | None = None, timeout_s: int = 60) -> None:
        if (path is None) == (url is None):
            raise ConfigError("QdrantStore needs exactly one of path (local mode) or url (server)")
        self.collection = collection
        self.meta_collection = f"{collection}_meta"
        self.url = url
        self.local = url is None
        self.shard_by_patient = shard_by_patient
        self._avgdl = avgdl
        self._exists = False
        self._shard_keys: set[str] = set()
        self._shared: _Local | None = None
        if url is not None:
            self.path: Path | None = None
            self._client = QdrantClient(url=url, api_key=api_key, timeout=timeout_s)
            self._lock: Any = contextlib.nullcontext()  # the HTTP client is thread-safe
        else:
            if shard_by_patient:
                raise ConfigError("store.shard_by_patient needs a Qdrant server or cluster (store.qdrant_url); "
                                  "local mode has no shards")
            if str(path) == ":memory:":
                self.path = None
                self._client = QdrantClient(location=":memory:", force_disable_check_same_thread=True)
                self._lock = threading.RLock()
            else:
                self.path = Path(path)  # type: ignore[arg-type]
                self._shared = _open_local(self.path)
                self._client, self._lock = self._shared.client, self._shared.lock

    def close(self) -> None:
        """Release the client (local mode: the folder's lock once no store in this process uses it)."""
        if self._shared is not None:
            with _LOCAL_GUARD:
                self._shared.users -= 1
                if self._shared.users == 0:
                    self._shared.client.close()
                    _LOCAL.pop(self._shared.key, None)
            self._shared = None
        elif self.url is not None or self.path is None:
            self._client.close()

    # -- collection and meta ------------------------------------------------------------------
    def sync(self) -> bool:
        """Whether the chunks collection exists. Nothing to refresh otherwise: a server answers every
        read from its latest state, and local mode has one process, whose writes go through this
        client."""
        if not self._exists:
            with self._lock:
                self._exists = self._client.collection_exists(self.collection)
        return self._exists

    @property
    def dim(self) -> int | None:
        """Vector dimension of the stored chunks, ``None`` while no collection exists."""
        if not self.sync():
            return None
        with self._lock:
            vectors = self._client.get_collection(self.collection).config.params.vectors
        return int(vectors[DENSE].size)  # type: ignore[index]

    def _create(self, dim: int, avgdl: float) -> None:
        """Create both collections (and, on a server, the payload indexes); a collection created
        meanwhile by another process is kept as it is."""
        with self._lock:
            if not self._client.collection_exists(self.collection):
                try:
                    self._client.create_collection(
                        self.collection,
                        vectors_config={DENSE: qm.VectorParams(size=dim, distance=qm.Distance.COSINE)},
                        sparse_vectors_config={SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
                        sharding_method=qm.ShardingMethod.CUSTOM if self.shard_by_patient else None,
                    )
                    if not self.local:  # local mode has no payload indexes (and warns when asked for one)
                        tenant = qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True)
                        self._client.create_payload_index(self.collection, "patient_id", field_schema=tenant)
                        for name, kind in (("year", qm.PayloadSchemaType.INTEGER),
                                           ("source_lc", qm.PayloadSchemaType.KEYWORD),
                                           ("hierarchy_level", qm.PayloadSchemaType.KEYWORD),
                                           ("doc_id", qm.PayloadSchemaType.KEYWORD)):
                            self._client.create_payload_index(self.collection, name, field_schema=kind)
                except Exception as exc:  # a concurrent creator won the race
                    if not _already_exists(exc):
                        raise
            if not self._client.collection_exists(self.meta_collection):
                try:
                    self._client.create_collection(
                        self.meta_collection, vectors_config=qm.VectorParams(size=1, distance=qm.Distance.DOT))
                except Exception as exc:
                    if not _already_exists(exc):
                        raise
            if not self._client.retrieve(self.meta_collection, [_META_ID]):
                self._client.upsert(self.meta_collection, [qm.PointStruct(
                    id=_META_ID, vector=[1.0], payload={"version": 0, "avgdl": float(avgdl), "dim": dim})])
        self._exists = True

    def _meta(self) -> dict[str, Any]:
        with self._lock:
            if not self._client.collection_exists(self.meta_collection):
                return {}
            recs = self._client.retrieve(self.meta_collection, [_META_ID], with_payload=True)
        return dict(recs[0].payload or {}) if recs else {}

    def _bump(self) -> None:
        """Raise the version after a write: ``max(old + 1, now in microseconds)``, so two writers that
        read the same old value (on a server) still leave distinct versions."""
        with self._lock:
            meta = self._meta()
            version = max(int(meta.get("version", 0)) + 1, time.time_ns() // 1000)
            self._client.set_payload(self.meta_collection, {"version": version}, points=[_META_ID])

    def avgdl(self) -> float | None:
        """The BM25 average document length fixed at creation (index terms), ``None`` while empty."""
        if self._avgdl is None and self.sync():
            value = self._meta().get("avgdl")
            self._avgdl = float(value) if value else None
        return self._avgdl

    def fix_avgdl(self, avgdl: float) -> None:
        """Set the BM25 average document length (index terms per chunk) the first write will fix
        (e.g. the corpus mean, measured by :mod:`clinqa.store.migrate`). Raises
        :class:`~clinqa.errors.ConfigError` once the collection exists (stored weights use its own)."""
        if self.sync():
            raise ConfigError(f"the collection {self.collection!r} exists: its avgdl is fixed")
        if avgdl <= 0:
            raise ValueError(f"avgdl must be positive, got {avgdl}")
        self._avgdl = float(avgdl)

    def drop(self) -> None:
        """Delete both collections (everything this store holds)."""
        with self._lock:
            for name in (self.collection, self.meta_collection):
                if self._client.collection_exists(name):
                    self._client.delete_collection(name)
        self._exists = False
        self._avgdl = None

    # -- writes -------------------------------------------------------------------------------
    def _shard_key(self, patient_id: str | None) -> str | None:
        return (patient_id or GENERAL_SHARD) if self.shard_by_patient else None

    def _ensure_shard_key(self, key: str) -> None:
        if key in self._shard_keys:
            return
        try:
            self._client.create_shard_key(self.collection, key)
        except Exception as exc:
            if not _already_exists(exc):
                raise
        self._shard_keys.add(key)

    def _points(self, chunks: list[Chunk], vectors: np.ndarray) -> list[qm.PointStruct]:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        terms = [index_terms(c.text) for c in chunks]
        if not self.sync():
            if not chunks:
                return []
            avgdl = self._avgdl or max(float(np.mean([len(t) for t in terms])), 1.0)
            self._create(int(vectors.shape[1]), avgdl)
        avgdl = self.avgdl() or 1.0
        out = []
        for c, v, t in zip(chunks, vectors, terms, strict=True):
            w = bm25_weights(t, avgdl)
            out.append(qm.PointStruct(id=point_id(c.chunk_id), payload=_payload(c), vector={
                DENSE: v.tolist(), SPARSE: qm.SparseVector(indices=list(w), values=list(w.values()))}))
        return out

    def _upserts(self, chunks: list[Chunk], points: list[qm.PointStruct]) -> list[qm.UpsertOperation]:
        if not points:
            return []
        if not self.shard_by_patient:
            return [qm.UpsertOperation(upsert=qm.PointsList(points=points))]
        groups: dict[str, list[qm.PointStruct]] = {}
        for c, p in zip(chunks, points, strict=True):
            groups.setdefault(self._shard_key(c.patient_id) or GENERAL_SHARD, []).append(p)
        for key in groups:
            self._ensure_shard_key(key)
        return [qm.UpsertOperation(upsert=qm.PointsList(points=ps, shard_key=k)) for k, ps in groups.items()]

    def replace_documents(self, doc_ids: list[str], chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Replace the chunks of ``doc_ids`` by ``chunks`` (``vectors``: ``(n, dim)`` float): upsert
        them, then delete the documents' points not among them, in one request. Not a transaction
        (see the module docstring for what a concurrent reader can see). Raises ``ValueError`` when
        ``chunks`` and ``vectors`` differ in length."""
        if not doc_ids:
            return
        points = self._points(chunks, vectors)
        if not self.sync():  # nothing stored and nothing to store
            return
        ops: list[Any] = self._upserts(chunks, points)
        if self.shard_by_patient:  # a point may sit in another shard under the same id: delete per document
            ops += [qm.DeleteOperation(delete=qm.FilterSelector(filter=f)) for f in _stale_per_document(
                doc_ids, chunks, points)]
        else:  # point ids are unique in the collection: the upsert overwrote the re-produced chunks
            stale = qm.Filter(must=[qm.FieldCondition(key="doc_id", match=qm.MatchAny(any=list(doc_ids)))],
                              must_not=[qm.HasIdCondition(has_id=[p.id for p in points])] if points else None)
            ops.append(qm.DeleteOperation(delete=qm.FilterSelector(filter=stale)))
        with self._lock:
            self._client.batch_update_points(self.collection, ops, wait=True)
        self._bump()

    def upsert_chunks(self, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Bulk load: write ``chunks`` with their ``vectors`` (``(n, dim)``), deleting nothing (for
        :mod:`clinqa.store.migrate`; ingest uses :meth:`replace_documents`)."""
        points = self._points(chunks, vectors)
        if points:
            with self._lock:
                self._client.batch_update_points(self.collection, self._upserts(chunks, points), wait=True)
            self._bump()

    def delete_document(self, doc_id: str) -> int:
        """Delete ``doc_id``'s chunks; returns the number deleted (0 for an unknown document)."""
        if not self.sync():
            return 0
        f = qm.Filter(must=[qm.FieldCondition(key="doc_id", match=qm.MatchValue(value=doc_id))])
        with self._lock:
            n = self._client.count(self.collection, count_filter=f, exact=True).count
            if n:
                self._client.delete(self.collection, qm.FilterSelector(filter=f), wait=True)
        if n:
            self._bump()
        return int(n)

    def refresh_indexes(self) -> None:
        """Nothing to do: Qdrant updates the sparse and payload indexes with every write."""

    # -- searches -----------------------------------------------------------------------------
    def _query(self, query: Any, using: str, k: int, filters: Filters,
               payload: bool | list[str] = True) -> list[qm.ScoredPoint]:
        params = None if self.local else qm.SearchParams(exact=True)  # local mode is always exact
        with self._lock:
            return self._client.query_points(
                self.collection, query=query, using=using, query_filter=to_qdrant(filters), limit=k,
                with_payload=payload, search_params=params, shard_key_selector=self._shard_key(filters.patient_id),
            ).points

    def dense_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[Hit]:
        """Exact cosine top-``k`` under ``filters`` (pre-filtered); ``score`` is the cosine similarity.
        Empty while no collection exists or for ``k < 1``."""
        if k < 1 or not self.sync():
            return []
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        return [Hit(_chunk(p.payload), float(p.score), i + 1, "cosine")
                for i, p in enumerate(self._query(q, DENSE, k, filters))]

    def dense_scores(self, vector: np.ndarray, chunk_ids: list[str], filters: Filters) -> dict[str, float]:
        """Exact cosines of the listed chunks under ``filters``: one query restricted to their point ids
        (``HasIdCondition``), returning only the ``chunk_id`` payload field."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or not self.sync():
            return {}
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        flt = to_qdrant(filters)
        flt.must = [qm.HasIdCondition(has_id=[point_id(c) for c in ids]), *(flt.must or [])]
        params = None if self.local else qm.SearchParams(exact=True)
        with self._lock:
            points = self._client.query_points(
                self.collection, query=q, using=DENSE, query_filter=flt, limit=len(ids), with_payload=["chunk_id"],
                search_params=params, shard_key_selector=self._shard_key(filters.patient_id)).points
        return {str((p.payload or {})["chunk_id"]): float(p.score) for p in points}

    def dense_search_docs(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """``[(doc_id, cosine), ...]`` of the exact top-``k`` under ``filters``; only the ``doc_id`` payload
        field is returned by the server."""
        if k < 1 or not self.sync():
            return []
        q = np.asarray(vector, dtype=np.float32).ravel().tolist()
        points = self._query(q, DENSE, k, filters, payload=["doc_id"])
        return [(str((p.payload or {})["doc_id"]), float(p.score)) for p in points]

    def bm25_search(self, query: str, k: int, filters: Filters) -> list[Hit]:
        """BM25 top-``k`` under ``filters`` (pre-filtered; see :mod:`clinqa.store.sparse`); only chunks
        sharing a term with the query. Empty for a query with no terms (punctuation, stop words)."""
        weights = query_weights(query)
        if k < 1 or not weights or not self.sync():
            return []
        sv = qm.SparseVector(indices=list(weights), values=list(weights.values()))
        return [Hit(_chunk(p.payload), float(p.score), i + 1, "bm25")
                for i, p in enumerate(self._query(sv, SPARSE, k, filters))]

    # -- reads --------------------------------------------------------------------------------
    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks by id in the order asked; unknown ids are skipped."""
        if not chunk_ids or not self.sync():
            return []
        with self._lock:
            recs = self._client.retrieve(self.collection, list({point_id(c) for c in chunk_ids}), with_payload=True)
        by_id = {c.chunk_id: c for c in (_chunk(r.payload) for r in recs)}
        return [by_id[c] for c in chunk_ids if c in by_id]

    def _scroll(self, fields: list[str], flt: qm.Filter | None = None,
                vectors: bool = False) -> Iterator[tuple[dict[str, Any], list[float] | None]]:
        """``(payload with fields, dense vector or None)`` of every point passing ``flt``, in pages."""
        offset = None
        while True:
            with self._lock:
                recs, offset = self._client.scroll(
                    self.collection, scroll_filter=flt, limit=_SCROLL, offset=offset,
                    with_payload=qm.PayloadSelectorInclude(include=fields) if fields else False,
                    with_vectors=[DENSE] if vectors else False)
            for r in recs:
                vec = r.vector.get(DENSE) if vectors and isinstance(r.vector, dict) else None
                yield dict(r.payload or {}), vec  # type: ignore[misc]
            if offset is None:
                return

    def doc_hashes(self) -> dict[str, str]:
        """``{doc_id: doc_hash}``; ``""`` for a document whose chunks carry different hashes (a replace
        that failed half-way), so the next ingest redoes it."""
        if not self.sync():
            return {}
        out: dict[str, str] = {}
        for p, _ in self._scroll(["doc_id", "doc_hash"]):
            d, h = p["doc_id"], p.get("doc_hash", "")
            out[d] = h if out.get(d, h) == h else ""
        return out

    def documents(self) -> list[dict[str, Any]]:
        """One dict per document (doc_id, title, year, source, patient_id, chunks, and
        :data:`~clinqa.store.base.DOCUMENT_EXTRAS`; ``""`` where a payload has none), sorted by id."""
        if not self.sync():
            return []
        keys = ["doc_id", "title", "year", "source", "patient_id", *DOCUMENT_EXTRAS]
        docs: dict[str, dict[str, Any]] = {}
        for p, _ in self._scroll(keys):
            d = docs.setdefault(p["doc_id"], {**{k: p.get(k) for k in keys}, "chunks": 0})
            d["chunks"] += 1
        return [document_row(docs[k]) for k in sorted(docs)]

    def sample_texts(self, n: int, exclude_levels: tuple[str, ...] = ("document",)) -> list[str]:
        """The embedded texts of the first ``n`` chunks by chunk id (deterministic), for throughput
        measurements."""
        if not self.sync():
            return []
        rows = sorted((p for p, _ in self._scroll(["chunk_id", "text", "hierarchy_level"])
                       if p.get("hierarchy_level") not in exclude_levels), key=lambda p: p["chunk_id"])
        return [p["text"] for p in rows[:n]]

    def export(self, columns: list[str], filters: Filters) -> pa.Table:
        """The ``columns`` of every chunk that ``filters`` admit, as an Arrow table with the column types
        of :func:`clinqa.store.schema.chunk_schema`, as in the LanceDB store (``vector``: fixed-size list
        of float32, unit-normalised by Qdrant).
        Raises ``ValueError`` for a column the store does not have."""
        if not self.sync():
            return pa.table({c: [] for c in columns})
        full = chunk_schema(self.dim or 1)
        unknown = [c for c in columns if c not in full.names]
        if unknown:
            raise ValueError(f"unknown column(s) {unknown}; known: {full.names}")
        want_vec = "vector" in columns
        rows = []
        for p, v in self._scroll([c for c in columns if c != "vector"], to_qdrant(filters), vectors=want_vec):
            rows.append({c: (v if c == "vector" else p.get(c)) for c in columns})
        return pa.Table.from_pylist(rows, schema=pa.schema([full.field(c) for c in columns]))

    def version(self) -> int:
        """Grows with every write (ingest, removal), also one made by another client of the same
        server; 0 when no collection exists. Used to invalidate cached answers."""
        if not self.sync():
            return 0
        return int(self._meta().get("version", 0))

    def count(self) -> int:
        """Number of chunks."""
        if not self.sync():
            return 0
        with self._lock:
            return int(self._client.count(self.collection, exact=True).count)

    def level_counts(self) -> dict[str, int]:
        """Chunks per hierarchy level (levels without chunks left out)."""
        if not self.sync():
            return {}
        out: dict[str, int] = {}
        for lv in get_args(Level):
            f = qm.Filter(must=[qm.FieldCondition(key="hierarchy_level", match=qm.MatchValue(value=lv))])
            with self._lock:
                n = int(self._client.count(self.collection, count_filter=f, exact=True).count)
            if n:
                out[lv] = n
        return out
