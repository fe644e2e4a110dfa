"""``clinqa migrate --to qdrant``: copy a data directory's LanceDB store into Qdrant.

Every chunk is copied with its stored vector (nothing is re-embedded), document by document in
batches of about ``batch_chunks`` chunks, read through the public :class:`~clinqa.store.base.Store`
API (``export`` per patient scope and batch of document ids), with a tqdm progress bar. Before
the first write the corpus's mean BM25 document length is measured (a pass over the texts only)
and fixed as the Qdrant collection's ``avgdl`` (see :mod:`clinqa.store.qdrant`). Afterwards the
chunk count and the chunks per document of both stores are compared; a mismatch raises.

The LanceDB store is only read: the data directory keeps working with ``store.backend: lancedb``
until the config says otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.errors import ClinqaError, ConfigError
from clinqa.store.base import Store
from clinqa.store.filters import Filters
from clinqa.store.qdrant import QdrantStore
from clinqa.store.schema import NOT_NULL_COLUMNS, ROW_COLUMNS, VECTOR
from clinqa.store.sparse import index_terms

COLUMNS = [*ROW_COLUMNS, VECTOR]


@dataclass
class MigrateReport:
    """What a migration did: ``chunks`` and ``documents`` copied, ``avgdl`` fixed for BM25 (index
    terms per chunk), ``seconds`` of wall time, and the ``config`` lines that select the target."""

    chunks: int = 0
    documents: int = 0
    avgdl: float = 0.0
    seconds: float = 0.0
    target: str = ""
    config: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dict(self.__dict__)


def _batches(source: Store, batch_chunks: int) -> Iterator[Filters]:
    """Filters that together admit every chunk of ``source`` exactly once: per patient scope (no
    patient, then each patient id), document ids grouped up to ``batch_chunks`` chunks (a document
    is never split)."""
    scopes: dict[str | None, list[tuple[str, int]]] = {}
    for d in source.documents():
        scopes.setdefault(d["patient_id"], []).append((d["doc_id"], d["chunks"]))
    for pid in sorted(scopes, key=lambda p: (p is not None, p or "")):
        group: list[str] = []
        n = 0
        for doc_id, chunks in scopes[pid]:
            if group and n + chunks > batch_chunks:
                yield Filters(patient_id=pid, exclude_levels=(), doc_ids=tuple(group))
                group, n = [], 0
            group.append(doc_id)
            n += chunks
        if group:
            yield Filters(patient_id=pid, exclude_levels=(), doc_ids=tuple(group))


def migrate_to_qdrant(source: Store, target: QdrantStore, batch_chunks: int = 256, progress: bool = True,
                      overwrite: bool = False) -> MigrateReport:
    """Copy every chunk and vector of ``source`` into ``target`` (see the module docstring).

    Raises :class:`ConfigError` when ``source`` is empty or ``target`` already holds chunks (unless
    ``overwrite``: then its collections are dropped first), :class:`ClinqaError` when the counts do
    not match afterwards.
    """
    t0 = time.perf_counter()
    n = source.count()
    if n == 0:
        raise ConfigError("the LanceDB store is empty: nothing to migrate (run `clinqa ingest` first)")
    if target.count():
        if not overwrite:
            raise ConfigError(f"the Qdrant collection {target.collection!r} already holds {target.count()} chunks; "
                              "use --overwrite to replace it, or another store.collection")
        target.drop()
    batches = list(_batches(source, batch_chunks))
    # pass 1: BM25 average document length over the whole corpus, fixed at collection creation
    lengths = [len(index_terms(t)) for f in batches for t in source.export(["text"], f).column("text").to_pylist()]
    avgdl = max(float(np.mean(lengths)), 1.0)
    target.fix_avgdl(avgdl)
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="migrate", unit="chunk")
    copied = 0
    for f in batches:
        table = source.export(COLUMNS, f)
        rows = table.drop_columns([VECTOR]).to_pylist()
        vectors = np.asarray(table.column(VECTOR).to_pylist(), dtype=np.float32)
        # page_start/page_end/ocr, source_from/ingested_at (null in rows written before those columns existed)
        # are copied as they are; a null flag or string is the Chunk default
        target.upsert_chunks([Chunk.model_validate({k: v for k, v in r.items()
                                                    if not (k in NOT_NULL_COLUMNS and v is None)}) for r in rows],
                             vectors)
        copied += len(rows)
        if bar is not None:
            bar.update(len(rows))
    if bar is not None:
        bar.close()
    want = {d["doc_id"]: d["chunks"] for d in source.documents()}
    got = {d["doc_id"]: d["chunks"] for d in target.documents()}
    if copied != n or target.count() != n or got != want:
        diff = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))[:5]
        raise ClinqaError(f"migration incomplete: LanceDB has {n} chunks, Qdrant {target.count()} "
                          f"(copied {copied}); documents that differ: {diff}")
    where = f"url {target.url}" if target.url else f"local mode at {target.path or ':memory:'}"
    config = ["store:", "  backend: qdrant"]
    if target.url:
        config.append(f"  qdrant_url: {target.url}")
    if target.collection != "clinqa_chunks":
        config.append(f"  collection: {target.collection}")
    return MigrateReport(chunks=n, documents=len(want), avgdl=avgdl, seconds=time.perf_counter() - t0,
                         target=f"Qdrant {where}, collection {target.collection!r}", config=config)
