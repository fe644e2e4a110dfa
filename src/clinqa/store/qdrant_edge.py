"""Qdrant Edge store (``store.backend: qdrant-edge``): Qdrant's own Rust engine, in the process.

``qdrant-edge-py`` (the ``qdrant`` extra) runs the shard code of the Qdrant server inside this process:
filtered queries with payload indexes, sparse vectors with the IDF modifier, exact and HNSW search, a
write-ahead log. :class:`EdgeStore` is a thin transport under the layout shared with the server
backend (:mod:`clinqa.store.qdrant_layout`): the same point ids, named ``dense`` and ``bm25`` vectors,
payload and payload indexes, and the one mapping from :class:`~clinqa.store.filters.Filters` to Qdrant
conditions (:func:`clinqa.store.filters.to_qdrant` in the Edge dialect). So the filters, the sparse
IDF and the patient isolation a cluster runs are run by the engine a cluster runs.

On disk, in ``path`` (``<data_dir>/qdrant-edge``): ``shard/`` (the Edge shard: segments and WAL) and
``meta.json`` (version counter, BM25 ``avgdl``, dimension; replaced atomically) and ``stats/`` (the BM25
statistics of each scope, :mod:`clinqa.store.bm25_stats`: one JSON file per scope, replaced atomically).

One process. An Edge shard is held by one process: a second ``EdgeShard.load`` of an open folder fails
(the WAL is locked). Within a process all stores on one folder share one shard (and one lock); another
process gets a :class:`~clinqa.errors.ConfigError` naming the folder and the alternatives (one process,
a Qdrant server, or LanceDB, which several processes open at once); ``clinqa serve --workers 2`` is
refused up front (:func:`clinqa.store.check_workers`).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from clinqa.chunking.base import Chunk
from clinqa.errors import ConfigError
from clinqa.store.base import EDGE_ALTERNATIVES
from clinqa.store.filters import qdrant_dialect
from clinqa.store.qdrant_layout import DENSE, PAYLOAD_INDEXES, SPARSE, PointSpec, QdrantLayout

SHARD = "shard"
META = "meta.json"
STATS = "stats"
_SCROLL = 1024


def locked_error(path: Path) -> ConfigError:
    """The error a second process gets for an Edge folder another process holds."""
    return ConfigError(f"{path}: this Qdrant Edge store is open in another process (an Edge shard is held by one "
                       f"process); stop that process, or {EDGE_ALTERNATIVES}")


def _index_schema(name: str, kind: str) -> Any:
    if name == "patient_id":
        return qe.KeywordIndexParams(is_tenant=True)
    return {"keyword": qe.PayloadSchemaType.Keyword, "integer": qe.PayloadSchemaType.Integer}[kind]


@dataclass
class _Shared:
    key: str
    path: Path
    shard: Any  # qe.EdgeShard | None until the first write creates it
    lock: threading.RLock
    users: int = 0


_SHARDS: dict[str, _Shared] = {}
_GUARD = threading.Lock()


def _load(path: Path) -> Any:
    try:
        return qe.EdgeShard.load(str(path / SHARD))
    except Exception as exc:
        if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
            raise locked_error(path) from exc
        raise


def _open(path: Path) -> _Shared:
    key = str(path.resolve())
    with _GUARD:
        sh = _SHARDS.get(key)
        if sh is None:
            shard = _load(path) if (path / SHARD / "edge_config.json").exists() else None
            sh = _SHARDS[key] = _Shared(key, path, shard, threading.RLock())
        sh.users += 1
        return sh


def _close(sh: _Shared) -> None:
    if sh.shard is not None:
        with contextlib.suppress(Exception):
            sh.shard.flush()
        sh.shard.close()
        sh.shard = None


@atexit.register
def _close_all() -> None:
    """Flush and close every open shard before the interpreter tears down modules."""
    with _GUARD:
        for sh in _SHARDS.values():
            with contextlib.suppress(Exception):
                _close(sh)
        _SHARDS.clear()


class EdgeStore(QdrantLayout):
    """:class:`clinqa.store.base.Store` on a Qdrant Edge shard in ``path`` (see the module docstring);
    the layout and every Store method are :class:`~clinqa.store.qdrant_layout.QdrantLayout`'s. ``avgdl``
    fixes the BM25 average document length when this store creates the shard. Raises
    :class:`~clinqa.errors.ConfigError` when another process holds the folder."""

    def __init__(self, path: Path | str, *, avgdl: float | None = None) -> None:
        self._dialect = qdrant_dialect("edge")
        self._layout_init(avgdl)
        self.path = Path(path)
        self.collection = "qdrant-edge"  # for messages shared with the server store
        self.url: str | None = None
        self._shared: _Shared | None = _open(self.path)
        self._lock = self._shared.lock

    @property
    def _sh(self) -> _Shared:
        if self._shared is None:
            raise RuntimeError(f"the Edge store at {self.path} is closed")
        return self._shared

    def close(self) -> None:
        """Release the shard (flushed and closed, and the folder's lock freed, once no store in this
        process uses it)."""
        if self._shared is None:
            return
        with _GUARD:
            self._shared.users -= 1
            if self._shared.users == 0:
                with self._shared.lock:
                    _close(self._shared)
                _SHARDS.pop(self._shared.key, None)
        self._shared = None

    # -- the transport ------------------------------------------------------------------------------
    def _t_exists(self) -> bool:
        return self._sh.shard is not None

    def _t_dim(self) -> int:
        meta = self._t_meta()
        if meta.get("dim"):
            return int(meta["dim"])
        cfg = json.loads((self.path / SHARD / "edge_config.json").read_text())  # a shard without our meta
        return int(cfg["vectors"][DENSE]["size"])

    def _t_create(self, dim: int, avgdl: float) -> None:
        with self._lock:
            if self._sh.shard is not None:
                return
            self._write_meta({"version": 0, "avgdl": float(avgdl), "dim": dim})
            cfg = qe.EdgeConfig(vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
                                sparse_vectors={SPARSE: qe.EdgeSparseVectorParams()})  # idf: the query's
            shard = qe.EdgeShard.create(str(self.path / SHARD), cfg)
            for name, kind in PAYLOAD_INDEXES:
                shard.update(qe.UpdateOperation.create_field_index(name, _index_schema(name, kind)))
            self._sh.shard = shard

    def _t_meta(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.path / META).read_text()))
        except FileNotFoundError:
            return {}

    def _write_meta(self, meta: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.path / f".{META}.tmp"
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, self.path / META)

    def _t_set_meta(self, values: dict[str, Any]) -> None:
        with self._lock:
            self._write_meta({**self._t_meta(), **values})

    def _t_drop(self) -> None:
        with self._lock:
            if self._sh.shard is not None:
                self._sh.shard.close()
                self._sh.shard = None
            shutil.rmtree(self.path / SHARD, ignore_errors=True)
            shutil.rmtree(self.path / STATS, ignore_errors=True)
            (self.path / META).unlink(missing_ok=True)

    def _stats_file(self, key: str) -> Path:
        return self.path / STATS / f"{hashlib.sha1(key.encode('utf-8')).hexdigest()}.json"

    def _t_stats_read(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        out = {}
        for k in keys:
            with contextlib.suppress(FileNotFoundError):
                out[k] = json.loads(self._stats_file(k).read_text())
        return out

    def _t_stats_write(self, records: dict[str, dict[str, Any]]) -> None:
        """One file per scope (``stats/<sha1 of the key>.json``), each replaced atomically; an empty scope's
        file is deleted."""
        (self.path / STATS).mkdir(parents=True, exist_ok=True)
        for k, rec in records.items():
            f = self._stats_file(k)
            if not rec.get("n"):
                f.unlink(missing_ok=True)
                continue
            tmp = f.with_suffix(".tmp")
            tmp.write_text(json.dumps({"key": k, **rec}))
            os.replace(tmp, f)

    def _t_write(self, chunks: list[Chunk], points: list[PointSpec], deletes: list[Any]) -> None:
        """The upsert, then each delete: separate engine operations, each logged to the WAL whole."""
        pts = [qe.Point(p.id, {DENSE: p.dense, SPARSE: qe.SparseVector(*p.sparse)}, p.payload) for p in points]
        with self._lock:
            shard = self._sh.shard
            if pts:
                shard.update(qe.UpdateOperation.upsert_points(pts))
            for f in deletes:
                shard.update(qe.UpdateOperation.delete_points_by_filter(f))

    def _t_query(self, using: str, query: Any, k: int, flt: Any, fields: bool | list[str],
                 patient_id: str | None) -> list[tuple[dict[str, Any], float]]:
        vec = qe.SparseVector(*query) if isinstance(query, tuple) else query
        req = qe.QueryRequest(limit=k, query=qe.Query.Nearest(vec, using=using), filter=flt, with_payload=fields,
                              with_vector=False, params=qe.SearchParams(exact=True))
        with self._lock:
            res = self._sh.shard.query(req)
        return [(dict(p.payload or {}), float(p.score)) for p in res]

    def _t_scroll(self, fields: list[str], flt: Any = None,
                  vectors: bool = False) -> Iterator[tuple[dict[str, Any], list[float] | None]]:
        offset = None
        while True:
            req = qe.ScrollRequest(offset=offset, limit=_SCROLL, filter=flt, with_payload=fields or False,
                                   with_vector=[DENSE] if vectors else False)
            with self._lock:
                recs, offset = self._sh.shard.scroll(req)
            for r in recs:
                vec = r.vector.get(DENSE) if vectors and isinstance(r.vector, dict) else None
                yield dict(r.payload or {}), vec
            if offset is None:
                return

    def _t_count(self, flt: Any = None) -> int:
        with self._lock:
            return int(self._sh.shard.count(qe.CountRequest(exact=True, filter=flt)))

    def _t_retrieve(self, ids: list[str]) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(r.payload or {}) for r in self._sh.shard.retrieve(ids, with_payload=True, with_vector=False)]
