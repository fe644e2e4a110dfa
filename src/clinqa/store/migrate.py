"""``clinqa migrate --to qdrant`` / ``--to qdrant-edge``: copy a data directory's LanceDB store into
Qdrant (a server or cluster, local mode) or into Qdrant's engine in the process (``<data_dir>/qdrant-edge``).
Both targets are :class:`~clinqa.store.qdrant_layout.QdrantLayout` stores: the copy is the same code, only
the transport differs (so the URL path is tested as far as it shares code with Edge and local mode).

Every chunk is copied with its stored vector (nothing is re-embedded), document by document in
batches of about ``batch_chunks`` chunks, read through the public :class:`~clinqa.store.base.Store`
API (``export`` per patient scope and batch of document ids), with a tqdm progress bar. Before
the first write the corpus's mean BM25 document length is measured (a pass over the texts only)
and fixed as the Qdrant collection's ``avgdl`` (see :mod:`clinqa.store.qdrant`). Afterwards the
chunk count and the chunks per document of both stores are compared, and (``verify``) every chunk is
read back from the target: the same ids, the same payload (every row column; a null an older store has
for a column it lacked counts as the default the copy writes) and the same vector after
unit normalisation (Qdrant stores cosine vectors normalised), within ``1e-6`` per component; a mismatch
raises.

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
from clinqa.store.qdrant_layout import QdrantLayout
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
    #: chunks whose ids, payloads and vectors were compared after the copy (0: not verified), and the
    #: largest absolute difference of a vector component after unit normalisation
    verified: int = 0
    max_vector_diff: float = 0.0

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


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(n == 0, 1, n)


def _as_written(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the copy writes it: a null flag or string of an older store (a column it lacked) is the
    :class:`Chunk` default (``source_from``/``ingested_at`` ``""``, ``ocr`` ``False``)."""
    return {k: (Chunk.model_fields[k].default if k in NOT_NULL_COLUMNS and v is None else v) for k, v in row.items()}


def verify_copy(source: Store, target: Store, batches: list[Filters], tol: float = 1e-6) -> tuple[int, float]:
    """Compare every chunk of ``batches`` in ``source`` and ``target``: ids, every row column, and vectors
    after unit normalisation. Returns ``(chunks compared, largest vector difference)``; raises
    :class:`ClinqaError` naming the first chunk that differs (or a difference above ``tol``)."""
    compared, worst = 0, 0.0
    for f in batches:
        a, b = (sorted(s.export(COLUMNS, f).to_pylist(), key=lambda r: r["chunk_id"]) for s in (source, target))
        if [r["chunk_id"] for r in a] != [r["chunk_id"] for r in b]:
            missing = sorted({r["chunk_id"] for r in a} ^ {r["chunk_id"] for r in b})[:5]
            raise ClinqaError(f"migration check: chunk ids differ ({missing})")
        for ra, rb in zip(a, b, strict=True):
            pa_, pb_ = (_as_written({k: v for k, v in r.items() if k != VECTOR}) for r in (ra, rb))
            if pa_ != pb_:
                diff = sorted(k for k in pa_ if pa_[k] != pb_.get(k))
                raise ClinqaError(f"migration check: chunk {ra['chunk_id']!r} differs in {diff}")
        if a:
            va = _unit(np.asarray([r[VECTOR] for r in a], dtype=np.float64))
            vb = _unit(np.asarray([r[VECTOR] for r in b], dtype=np.float64))
            worst = max(worst, float(np.abs(va - vb).max()))
        compared += len(a)
    if worst > tol:
        raise ClinqaError(f"migration check: vectors differ by up to {worst:.2e} after unit normalisation (> {tol})")
    return compared, worst


def migrate_to_qdrant(source: Store, target: QdrantLayout, batch_chunks: int = 256, progress: bool = True,
                      overwrite: bool = False, verify: bool = True) -> MigrateReport:
    """Copy every chunk and vector of ``source`` into ``target`` (a :class:`~clinqa.store.qdrant.QdrantStore`
    or :class:`~clinqa.store.qdrant_edge.EdgeStore`; see the module docstring).

    Raises :class:`ConfigError` when ``source`` is empty or ``target`` already holds chunks (unless
    ``overwrite``: then its collections are dropped first), :class:`ClinqaError` when the counts do
    not match afterwards or (``verify``) a chunk's id, payload or vector differs.
    """
    t0 = time.perf_counter()
    n = source.count()
    if n == 0:
        raise ConfigError("the LanceDB store is empty: nothing to migrate (run `clinqa ingest` first)")
    edge = type(target).__name__ == "EdgeStore"
    name = f"the Qdrant Edge store at {target.path}" if edge else f"the Qdrant collection {target.collection!r}"  # type: ignore[attr-defined]
    if target.count():
        if not overwrite:
            raise ConfigError(f"{name} already holds {target.count()} chunks; "
                              "use --overwrite to replace it" + ("" if edge else ", or another store.collection"))
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
    verified, worst = verify_copy(source, target, batches) if verify else (0, 0.0)
    url = getattr(target, "url", None)
    if edge:
        where, config = f"Qdrant Edge at {target.path}", ["store:", "  backend: qdrant-edge"]  # type: ignore[attr-defined]
    else:
        where = f"Qdrant url {url}" if url else f"Qdrant local mode at {target.path or ':memory:'}"  # type: ignore[attr-defined]
        where += f", collection {target.collection!r}"  # type: ignore[attr-defined]
        config = ["store:", "  backend: qdrant"]
        if url:
            config.append(f"  qdrant_url: {url}")
        if target.collection != "clinqa_chunks":  # type: ignore[attr-defined]
            config.append(f"  collection: {target.collection}")  # type: ignore[attr-defined]
    return MigrateReport(chunks=n, documents=len(want), avgdl=avgdl, seconds=time.perf_counter() - t0,
                         target=where, config=config, verified=verified, max_vector_diff=worst)
