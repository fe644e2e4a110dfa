"""Ingest on a Ray cluster (``clinqa ingest --ray [ADDRESS]``): chunk and embed as a Ray Data pipeline.

Flow (Moritz et al. 2018, "Ray: A Distributed Framework for Emerging AI Applications", OSDI; Ray Data's
streaming executor):

1. **load** on the driver: the same walk as a plain ingest (:func:`clinqa.documents.loaders.iter_documents`:
   registry sidecars, doc ids relative to the folder passed, size limits), then the same skip of unchanged
   documents (:func:`clinqa.ingest.ingest_key`); parse errors are reported as usual;
2. **chunk -> embed** on the workers: ``map_batches`` over a pool of ``workers`` actors, each holding one
   encoder; each batch of documents is chunked with the configured chunker and embedded by
   :func:`clinqa.ingest.embed_chunks`, the plain ingest's own step, into a :class:`LayeredCache` (new vectors
   in memory; what the driver's cache already holds is read, not computed, where the worker can see the file),
   so late-pooled or separate answer units come out exactly as a plain ingest makes them;
3. **write** on the driver, as the batches stream back: chunk and unit vectors into the embedding cache,
   chunks into the store in atomic batches of about ``batch_chunks`` (``Store.replace_documents``), then the
   index refresh: the same LanceDB tables, on a local path or object storage, that ``clinqa ask`` reads.

A store built this way holds the same chunk ids and vectors (within float rounding of other batch paddings,
< 1e-6) as a plain ingest of the same files (tests/test_ingest_ray.py), on ONNX Runtime (the core install, or
``embedding.precision`` fp32 / int8, and auto on a new store). With ``precision`` full on a CPU with bfloat16
units and torch installed,
a batch over 128 texts runs in bf16 and a smaller one in fp32 (both paths), so vectors agree to bf16 rounding
(cosine 0.99997) instead. Without an address a local cluster of
``workers`` CPUs is started and stopped; with one (``auto`` or ``ray://host:10001``) the driver joins it and
every node needs clinqa and the model package installed (docs/scale.md). Needs ``clinqa[ray]``.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.extras import extra_needed
from clinqa.ingest import IngestReport, changed_documents, embed_chunks, ocr_pages, suspicious_count

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline

#: documents per batch handed to one worker
DOCS_PER_BATCH = 8


class ChunkEmbed:
    """A Ray Data actor: chunks a batch of documents and embeds them (one encoder per actor)."""

    def __init__(self, settings_json: str, cache_path: str | None = None) -> None:
        from clinqa.chunking import build_chunker
        from clinqa.embedding import build_encoder
        from clinqa.settings import Settings

        self.settings = Settings.model_validate_json(settings_json)
        # the driver's cache, read where this worker sees it (a local cluster): units it already holds from an
        # earlier batch are not computed again
        self.shared = cache_path if cache_path and Path(cache_path).exists() else None
        self.encoder = build_encoder(self.settings.embedding)
        self.chunker = build_chunker(self.settings.chunking, self.encoder.token_counter, self.encoder.max_tokens)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """``batch["doc"]``: pickled ``(Document, ingest key)`` rows. The batch's chunks are embedded together
        (as a plain ingest embeds a batch), into a :class:`LayeredCache`. Returns one ``payload``: pickled
        ``(documents [(doc_id, path, chunks, error or None)], vectors (n chunks, dim), cache rows
        [(model key, hash, vector bytes)], (chunks computed, units embedded, units pooled))``."""
        docs, chunks = [], []
        for raw in batch["doc"]:
            doc, key = pickle.loads(raw)
            try:
                mine = [c.model_copy(update={"doc_hash": key}) for c in self.chunker.chunk(doc)]
            except Exception as exc:  # as the plain ingest: one bad document never stops the batch
                docs.append((doc.doc_id, doc.path, [], f"could not chunk document {doc.doc_id!r}: {exc}"))
                continue
            docs.append((doc.doc_id, doc.path, mine, None))
            chunks.extend(mine)
        cache = LayeredCache(self.shared) if self.settings.embedding.cache else None
        report = IngestReport()
        vecs, n_new = embed_chunks(self.encoder, chunks, cache, self.settings, report)  # type: ignore[arg-type]
        rows = cache.rows() if cache is not None else []
        payload = (docs, vecs, rows, (n_new, report.units_embedded, report.units_late))
        return {"payload": np.array([pickle.dumps(payload)], dtype=object)}


class LayeredCache:
    """The cache a worker embeds into: :meth:`get` reads its own new vectors, then the driver's cache file
    (read-only, when the worker sees it); :meth:`put` keeps vectors in memory, for :meth:`rows` to return to
    the driver, which alone writes the cache. The ``get`` / ``put`` of :class:`clinqa.embedding.EmbeddingCache`."""

    def __init__(self, shared: str | None = None) -> None:
        from clinqa.embedding import EmbeddingCache

        self.new: dict[tuple[str, str], np.ndarray] = {}
        self.shared = EmbeddingCache(Path(shared), read_only=True) if shared else None

    def get(self, model_id: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Vectors of those ``hashes`` held here or in the driver's cache: ``{hash: (dim,) float32}``."""
        out = {h: self.new[(model_id, h)] for h in hashes if (model_id, h) in self.new}
        if self.shared is not None:
            out.update(self.shared.get(model_id, [h for h in hashes if h not in out]))
        return out

    def put(self, model_id: str, hashes: list[str], vectors: np.ndarray) -> None:
        """Keep ``vectors`` (``(n, dim)``) under ``hashes`` for :meth:`rows`."""
        for h, v in zip(hashes, vectors, strict=True):
            self.new[(model_id, h)] = np.asarray(v, dtype=np.float32)

    def rows(self) -> list[tuple[str, str, bytes]]:
        """Every new ``(model key, hash, vector bytes)``; closes the read-only connection."""
        if self.shared is not None:
            self.shared.close()
        return [(m, h, v.tobytes()) for (m, h), v in self.new.items()]


def ingest_ray(pipe: Pipeline, paths: Sequence[Path], address: str | None = None, workers: int = 2,
               format: str | None = None, progress: bool = True, batch_chunks: int = 512) -> IngestReport:
    """Ingest ``paths`` into ``pipe``'s store on Ray (see the module docstring). ``address``: None starts a
    local cluster of ``workers`` CPUs; otherwise ``ray.init(address)``. ``workers``: encoder actors (each uses
    ``embedding.threads`` or one core's worth of threads). Returns the same :class:`IngestReport` as a plain
    ingest. Raises :class:`clinqa.extras.MissingExtra` without ``clinqa[ray]``, :class:`ConfigError` when the
    store was built with another encoder."""
    with extra_needed("clinqa ingest --ray"):
        import ray
    from clinqa.documents.loaders import iter_documents
    from clinqa.embedding import EmbeddingCache
    from clinqa.ingest import StoreRecord

    t0 = time.perf_counter()
    pipe._check_model()
    encoder, store, settings = pipe.encoder, pipe.store, pipe.settings
    report = IngestReport()
    existing = store.doc_hashes()
    rows: list[bytes] = []
    ocr: dict[str, int] = {}  # OCR-read pages per document, counted as the plain ingest does
    items = iter_documents([Path(p) for p in paths], format, limits=settings.ingest)
    for doc, key in changed_documents(items, settings, encoder.model_id, existing, report,
                                      lambda path, reason: report.failed.append((path, reason))):
        rows.append(pickle.dumps((doc, key)))
        ocr[doc.doc_id] = ocr_pages(doc)
    if rows:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no network at run time
        started = not ray.is_initialized()
        if started:
            import warnings

            with warnings.catch_warnings():  # the raylet is fork-exec'ed: no Python runs in the child
                warnings.filterwarnings("ignore", message="lancedb fork support is experimental")
                ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                         log_to_driver=False, logging_level="ERROR", configure_logging=True)

        try:
            _run(ray, pipe, rows, ocr, workers, progress, batch_chunks, report, EmbeddingCache, StoreRecord)
        finally:
            if started:
                ray.shutdown()
    if report.documents or store.stale_indexes():
        store.refresh_indexes()
    report.seconds = time.perf_counter() - t0
    return report


def _run(ray: Any, pipe: Pipeline, rows: list[bytes], ocr: dict[str, int], workers: int, progress: bool,
         batch_chunks: int, report: IngestReport, cache_cls: Any, record_cls: Any) -> None:
    """Stream the documents through the actors and write what comes back (see :func:`ingest_ray`)."""
    import logging

    from ray.data import ActorPoolStrategy, DataContext

    if not progress:  # Ray Data's own progress lines and notices ("Starting execution of Dataset ...")
        for name in ["ray.data", *[n for n in logging.root.manager.loggerDict if n.startswith("ray.data")]]:
            logging.getLogger(name).setLevel(logging.ERROR)
    DataContext.get_current().enable_progress_bars = progress
    emb = pipe.embedding_settings  # precision auto resolved for this store, as the driver's encoder
    from clinqa.embedding.onnx import usable_cores

    threads = emb.threads or max(1, usable_cores() // workers)
    settings = pipe.settings.model_copy(update={"embedding": emb.model_copy(update={"threads": threads})})
    ds = ray.data.from_items([{"doc": r} for r in rows], override_num_blocks=max(1, min(len(rows), workers * 4)))
    cache = cache_cls(pipe.cache_path) if emb.cache else None  # created first, so workers can read it
    kwargs = {"settings_json": settings.model_dump_json(), "cache_path": str(pipe.cache_path) if cache else None}
    ds = ds.map_batches(ChunkEmbed, fn_constructor_kwargs=kwargs,
                        batch_size=DOCS_PER_BATCH, compute=ActorPoolStrategy(size=workers), num_cpus=1)
    record = record_cls(pipe.data_dir)
    pending_docs: list[str] = []
    pending_chunks: list[Any] = []
    pending_vecs: list[np.ndarray] = []
    suspicious: dict[str, int] = {}

    def flush() -> None:
        if not pending_docs:
            return
        record.write_once(pipe.encoder)
        vecs = np.concatenate(pending_vecs) if pending_vecs else np.zeros((0, pipe.encoder.dim), dtype=np.float32)
        pipe.store.replace_documents(list(pending_docs), list(pending_chunks), vecs)
        report.chunks += len(pending_chunks)
        pending_docs.clear()
        pending_chunks.clear()
        pending_vecs.clear()

    try:
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for raw in batch["payload"]:
                docs, vecs, cache_rows, (n_new, n_units, n_late) = pickle.loads(raw)
                if cache is not None and cache_rows:
                    by_model: dict[str, list[tuple[str, bytes]]] = {}
                    for m, h, v in cache_rows:
                        by_model.setdefault(m, []).append((h, v))
                    for m, hv in by_model.items():
                        cache.put(m, [h for h, _ in hv], np.stack([np.frombuffer(v, dtype=np.float32) for _, v in hv]))
                report.embedded += n_new
                report.units_embedded += n_units
                report.units_late += n_late
                at = 0
                for doc_id, path, chunks, error in docs:
                    if error:
                        report.failed.append((path, error))
                        continue
                    report.documents += 1
                    report.no_year += bool(chunks) and chunks[0].year is None
                    report.ocr_pages += ocr.get(doc_id, 0)
                    n_sus = suspicious_count(chunks)
                    if n_sus:
                        suspicious[path] = suspicious.get(path, 0) + n_sus
                    pending_docs.append(doc_id)
                    pending_chunks.extend(chunks)
                    pending_vecs.append(np.asarray(vecs[at : at + len(chunks)], dtype=np.float32))
                    at += len(chunks)
                    if len(pending_chunks) >= batch_chunks:
                        flush()
        flush()
    finally:
        if cache is not None:
            cache.close()
    report.suspicious = sorted(suspicious.items())
