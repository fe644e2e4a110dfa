"""Qdrant store: the same :class:`clinqa.store.base.Store` on Qdrant (local mode, a server or a cluster).

Layout, filters, BM25 and write order are shared with the Edge store and described in
:mod:`clinqa.store.qdrant_layout` (one mapping, two transports); this module is the qdrant-client
transport. One collection (``collection``, default ``clinqa_chunks``) holds the points; a second,
tiny collection ``<collection>_meta`` holds one point with the store's version counter, the BM25
``avgdl`` and the dimension. On a server the filtered fields have payload indexes (``patient_id``
as the tenant key); local mode has no payload indexes (it scans in Python, and warns if asked to
build one), so none are made there. Dense search is ``SearchParams(exact=True)`` on a server; local
mode always is exact. :meth:`QdrantStore.replace_documents` sends the upsert and the deletion in one
``batch_update_points`` request, applied in that order; each point write is atomic, the request as a
whole is not (a concurrent reader may see, for a moment, part of a document's new chunks beside old
ones; never a document vanishing).

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
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from clinqa.chunking.base import Chunk
from clinqa.errors import ConfigError
from clinqa.store.filters import qdrant_dialect, qdrant_patient_condition
from clinqa.store.qdrant_layout import (  # noqa: F401 (re-exported: the layout's names, as before)
    DENSE,
    NAMESPACE,
    PAYLOAD_INDEXES,
    SPARSE,
    PointSpec,
    QdrantLayout,
    chunk_payload,
    payload_chunk,
    point_id,
)

GENERAL_SHARD = "_general"
_META_ID = 0
_SCROLL = 1024
_INDEX_KINDS = {"keyword": qm.PayloadSchemaType.KEYWORD, "integer": qm.PayloadSchemaType.INTEGER}


def _stale_per_document(doc_ids: list[str], chunks: list[Chunk], points: list[Any]) -> list[qm.Filter]:
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


def _stats_point(key: str) -> str:
    """The meta collection's point id of a scope's BM25 statistics: ``uuid5(NAMESPACE, "bm25:" + key)``."""
    return str(uuid.uuid5(NAMESPACE, f"bm25:{key}"))


def _already_exists(exc: Exception) -> bool:
    return "already exists" in str(exc).lower()


class QdrantStore(QdrantLayout):
    """:class:`clinqa.store.base.Store` on Qdrant through qdrant-client; the layout and every Store
    method are :class:`~clinqa.store.qdrant_layout.QdrantLayout`'s, this class is the transport.

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
        self._dialect = qdrant_dialect("client")
        self._layout_init(avgdl)
        self.collection = collection
        self.meta_collection = f"{collection}_meta"
        self.url = url
        self.local = url is None
        self.shard_by_patient = shard_by_patient
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

    # -- the transport ------------------------------------------------------------------------------
    def _t_exists(self) -> bool:
        with self._lock:
            return self._client.collection_exists(self.collection)

    def _t_dim(self) -> int:
        with self._lock:
            vectors = self._client.get_collection(self.collection).config.params.vectors
        return int(vectors[DENSE].size)  # type: ignore[index]

    def _t_create(self, dim: int, avgdl: float) -> None:
        """Create both collections (and, on a server, the payload indexes); a collection created
        meanwhile by another process is kept as it is."""
        with self._lock:
            if not self._client.collection_exists(self.collection):
                try:
                    self._client.create_collection(
                        self.collection,
                        vectors_config={DENSE: qm.VectorParams(size=dim, distance=qm.Distance.COSINE)},
                        sparse_vectors_config={SPARSE: qm.SparseVectorParams()},  # idf: the query's
                        sharding_method=qm.ShardingMethod.CUSTOM if self.shard_by_patient else None,
                    )
                    if not self.local:  # local mode has no payload indexes (and warns when asked for one)
                        for name, kind in PAYLOAD_INDEXES:
                            schema: Any = _INDEX_KINDS[kind]
                            if name == "patient_id":
                                schema = qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True)
                            self._client.create_payload_index(self.collection, name, field_schema=schema)
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

    def _t_meta(self) -> dict[str, Any]:
        with self._lock:
            if not self._client.collection_exists(self.meta_collection):
                return {}
            recs = self._client.retrieve(self.meta_collection, [_META_ID], with_payload=True)
        return dict(recs[0].payload or {}) if recs else {}

    def _t_set_meta(self, values: dict[str, Any]) -> None:
        with self._lock:
            self._client.set_payload(self.meta_collection, values, points=[_META_ID])

    def _t_drop(self) -> None:
        with self._lock:
            for name in (self.collection, self.meta_collection):
                if self._client.collection_exists(name):
                    self._client.delete_collection(name)

    def _t_stats_read(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The scope statistics from the meta collection (one point per scope, id :func:`_stats_point`)."""
        if not keys:
            return {}
        with self._lock:
            recs = self._client.retrieve(self.meta_collection, [_stats_point(k) for k in keys], with_payload=True)
        return {str(r.payload["key"]): dict(r.payload) for r in recs if r.payload}

    def _t_stats_write(self, records: dict[str, dict[str, Any]]) -> None:
        """One upsert of every changed scope's point (an emptied scope's point deleted)."""
        keep = [qm.PointStruct(id=_stats_point(k), vector=[1.0], payload={"key": k, **r})
                for k, r in records.items() if r.get("n")]
        gone = [_stats_point(k) for k, r in records.items() if not r.get("n")]
        with self._lock:
            if keep:
                self._client.upsert(self.meta_collection, keep)
            if gone:
                self._client.delete(self.meta_collection, qm.PointIdsList(points=gone))

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

    def _stale(self, doc_ids: list[str], chunks: list[Chunk], points: list[PointSpec]) -> list[Any]:
        if self.shard_by_patient:  # a point may sit in another shard under the same id: delete per document
            return _stale_per_document(doc_ids, chunks, points)
        return super()._stale(doc_ids, chunks, points)

    def _t_write(self, chunks: list[Chunk], points: list[PointSpec], deletes: list[Any]) -> None:
        """One ``batch_update_points`` request: the upsert (per shard key when sharded), then the deletes."""
        structs = [qm.PointStruct(id=p.id, payload=p.payload, vector={
            DENSE: p.dense, SPARSE: qm.SparseVector(indices=p.sparse[0], values=p.sparse[1])}) for p in points]
        ops: list[Any] = []
        if structs and not self.shard_by_patient:
            ops.append(qm.UpsertOperation(upsert=qm.PointsList(points=structs)))
        elif structs:
            groups: dict[str, list[qm.PointStruct]] = {}
            for c, p in zip(chunks, structs, strict=True):
                groups.setdefault(self._shard_key(c.patient_id) or GENERAL_SHARD, []).append(p)
            for key in groups:
                self._ensure_shard_key(key)
            ops += [qm.UpsertOperation(upsert=qm.PointsList(points=ps, shard_key=k)) for k, ps in groups.items()]
        ops += [qm.DeleteOperation(delete=qm.FilterSelector(filter=f)) for f in deletes]
        if ops:
            with self._lock:
                self._client.batch_update_points(self.collection, ops, wait=True)

    def _t_query(self, using: str, query: Any, k: int, flt: Any, fields: bool | list[str],
                 patient_id: str | None) -> list[tuple[dict[str, Any], float]]:
        if isinstance(query, tuple):
            query = qm.SparseVector(indices=query[0], values=query[1])
        params = None if self.local else qm.SearchParams(exact=True)  # local mode is always exact
        with self._lock:
            points = self._client.query_points(
                self.collection, query=query, using=using, query_filter=flt, limit=k, with_payload=fields,
                search_params=params, shard_key_selector=self._shard_key(patient_id)).points
        return [(dict(p.payload or {}), float(p.score)) for p in points]

    def _t_scroll(self, fields: list[str], flt: Any = None,
                  vectors: bool = False) -> Iterator[tuple[dict[str, Any], list[float] | None]]:
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

    def _t_count(self, flt: Any = None) -> int:
        with self._lock:
            return int(self._client.count(self.collection, count_filter=flt, exact=True).count)

    def _t_retrieve(self, ids: list[str]) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(r.payload or {}) for r in self._client.retrieve(self.collection, ids, with_payload=True)]
