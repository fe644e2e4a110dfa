"""Stores: the Store protocol, the embedded LanceDB implementation (default) and Qdrant, and the
filters they share (:mod:`clinqa.store.filters`).

``Hit``, ``Store`` and ``LanceStore`` are imported on first use (PEP 562), so that
``clinqa.store.filters`` (imported by retrieval, the cache keys and the query log) does not load
LanceDB and pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinqa.store._lance_import import DEFERRED as _LANCE_REST_CLIENT_DEFERRED  # noqa: F401 (before lancedb)

if TYPE_CHECKING:
    from clinqa.settings import Settings
    from clinqa.store.base import Hit, Store
    from clinqa.store.lancedb import LanceStore

__all__ = ["STORES", "Hit", "LanceStore", "Store", "build_store", "open_store"]


def __getattr__(name: str) -> Any:
    """``Hit``, ``Store`` (from :mod:`clinqa.store.base`) and ``LanceStore`` on first access."""
    if name in ("Hit", "Store"):
        from clinqa.store import base

        return getattr(base, name)
    if name == "LanceStore":
        from clinqa.store.lancedb import LanceStore

        return LanceStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``(settings, data dir) -> Store``
StoreBuilder = Callable[["Settings", Path], "Store"]


def _lancedb(settings: Settings, data_dir: Path) -> Store:
    from clinqa.store.lancedb import LanceStore

    return LanceStore(data_dir / "lancedb", scoped_bm25=settings.store.bm25_statistics == "scope")


def _qdrant(settings: Settings, data_dir: Path) -> Store:
    from clinqa.extras import extra_needed

    with extra_needed("store.backend: qdrant"):
        from clinqa.store.qdrant import QdrantStore  # imported only when configured

    cfg = settings.store
    url = cfg.resolved_url()
    common = {"collection": cfg.collection, "shard_by_patient": cfg.shard_by_patient}
    if url == ":memory:":
        return QdrantStore(":memory:", **common)
    if url:
        return QdrantStore(url=url, api_key=cfg.resolved_api_key(), **common)
    return QdrantStore(data_dir / "qdrant", **common)


def _qdrant_edge(settings: Settings, data_dir: Path) -> Store:
    from clinqa.extras import extra_needed

    with extra_needed("store.backend: qdrant-edge"):
        from clinqa.store.qdrant_edge import EdgeStore  # imported only when configured

    return EdgeStore(data_dir / "qdrant-edge")



def check_workers(settings: Settings, workers: int) -> None:
    """Raise :class:`clinqa.errors.ConfigError` when ``workers`` processes (``clinqa serve --workers``)
    cannot share the configured store: ``qdrant-edge`` is held by one process, so only one worker could
    open it."""
    if settings.store.backend == "qdrant-edge" and workers > 1:
        from clinqa.errors import ConfigError
        from clinqa.store.base import EDGE_ALTERNATIVES

        raise ConfigError(f"store.backend: qdrant-edge is held by one process, so clinqa serve runs one worker, "
                          f"not {workers}: {EDGE_ALTERNATIVES}")


#: the stores by ``store.backend`` (the settings ``Literal`` names these keys; tests/test_registries.py
#: checks it). Each imports its client only when built.
STORES: dict[str, StoreBuilder] = {"lancedb": _lancedb, "qdrant": _qdrant, "qdrant-edge": _qdrant_edge}


def build_store(settings: Settings, data_dir: Path | None = None) -> Store:
    """The store ``settings.store`` configures (:data:`STORES`), for ``data_dir`` (default
    ``settings.data_dir``): ``lancedb`` -> :class:`LanceStore` in ``<data_dir>/lancedb``; ``qdrant`` ->
    :class:`clinqa.store.qdrant.QdrantStore` on ``store.qdrant_url`` (else ``$QDRANT_URL``), else
    in local mode in ``<data_dir>/qdrant`` (``":memory:"`` as URL: in memory); ``qdrant-edge`` ->
    :class:`clinqa.store.qdrant_edge.EdgeStore` in ``<data_dir>/qdrant-edge``. Raises
    :class:`clinqa.errors.ConfigError` for an unknown backend or an unusable Qdrant configuration (an
    unset ``env:VAR`` API key, ``shard_by_patient`` in local mode, a local folder held by another
    process; an Edge folder held by another process) and :class:`clinqa.extras.MissingExtra` when
    qdrant-client / qdrant-edge-py is not installed (``clinqa[qdrant]``)."""
    builder = STORES.get(settings.store.backend)
    if builder is None:
        from clinqa.errors import ConfigError

        raise ConfigError(f"unknown store.backend {settings.store.backend!r}; choose from {', '.join(STORES)}")
    return builder(settings, Path(data_dir if data_dir is not None else settings.data_dir))


#: the former name of :func:`build_store`, kept for callers not yet moved (``clinqa.cli``)
open_store = build_store


def require_store(settings: Settings, data_dir: Path, opened: Store | None, open_store: Callable[[], Store],
                  empty_ok: bool = False) -> None:
    """Raise :class:`clinqa.errors.ConfigError` when there is nothing to search: no store folder at
    ``data_dir`` (a read never creates it: a typo in ``--data-dir``) or, unless ``empty_ok``, an empty store
    (an existing folder without a table is not given one). ``opened``: the store when already open (then
    the folder tests are skipped); ``open_store()`` opens it to count its chunks."""
    from clinqa.errors import ConfigError

    data_dir = Path(data_dir)
    local = settings.store.resolved_url() is None
    if opened is None and not data_dir.exists() and local:
        raise ConfigError(f"there is no store in {data_dir}: run `clinqa ingest PATH` first (or check --data-dir)")
    if empty_ok:
        return
    folder = {"lancedb": "lancedb", "qdrant-edge": "qdrant-edge"}.get(settings.store.backend)
    if opened is None and local and folder and not (data_dir / folder).exists():
        raise ConfigError(f"the store in {data_dir} is empty: run `clinqa ingest PATH` first")
    if open_store().count() == 0:
        raise ConfigError(f"the store in {data_dir} is empty: run `clinqa ingest PATH` first")
