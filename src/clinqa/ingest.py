"""Ingest: load, chunk, embed and store documents in atomic batches, and count what the store holds.

``Pipeline.ingest`` / ``Pipeline.ingest_documents`` and ``Pipeline.stats`` call these with the
pipeline's stages; nothing here imports the pipeline.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.chunking import CHUNKING_VERSION, Chunk, build_chunker
from clinqa.chunking.units import embedding_text, embedding_texts, suspicious_units, unit_heading, unit_records
from clinqa.documents.boilerplate import Boilerplate, screened
from clinqa.documents.model import Document, source_origin
from clinqa.embedding import EmbeddingCache, Encoder, encode_with_cache, text_hash
from clinqa.embedding.cache import embedding_bar
from clinqa.embedding.late import late_key, locate
from clinqa.errors import ConfigError, LoadError
from clinqa.retrieval.filters import Filters

if TYPE_CHECKING:
    from clinqa.documents.loaders import Skipped
    from clinqa.settings import Settings
    from clinqa.store import Store


@dataclass
class IngestReport:
    """What one ingest run did. ``failed`` entries are ``(path, reason)``; the run's exit code
    is non-zero when ``failed`` is not empty. ``suspicious`` entries are ``(path, n)``: the files
    ingested in this run holding ``n`` distinct sentences addressed to an AI model
    (:func:`clinqa.text.injection.is_suspicious`), indexed but never quoted. ``ocr_pages`` counts
    the PDF pages of the ingested documents whose text was read by OCR; ``no_year`` the ingested documents
    without a year (metadata, a ``Year:``/``Date:`` line or a registry sidecar gives one). ``boilerplate`` is what
    :mod:`clinqa.documents.boilerplate` left out of this run's documents, per group
    (:meth:`~clinqa.documents.boilerplate.Boilerplate.summary`: group, kinds, lines, documents, examples)."""

    documents: int = 0
    unchanged: int = 0
    chunks: int = 0
    embedded: int = 0
    units_embedded: int = 0
    units_late: int = 0  # of units_embedded, pooled from their chunk's forward pass (embedding.unit_vectors late)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    suspicious: list[tuple[str, int]] = field(default_factory=list)
    ocr_pages: int = 0  # PDF pages read from their image by OCR
    no_year: int = 0  # of documents, those without a year (a year filter leaves them out: retrieval.keep_undated)
    boilerplate: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dict(self.__dict__)


def ingest_key(doc: Document, settings: Settings, model_id: str) -> str:
    """Hash (sha256 hex) of the document and everything that shapes its chunks and vectors: changing the
    chunker settings or the model (``model_id``) re-ingests an otherwise unchanged document."""
    h = hashlib.sha256()
    h.update(doc.content_hash().encode())
    h.update(settings.chunking.model_dump_json().encode())
    h.update(str(CHUNKING_VERSION).encode())
    h.update(model_id.encode())
    return h.hexdigest()


def ingest_documents(
    items: Iterable[Document | LoadError | Skipped],
    settings: Settings,
    store: Store,
    encoder: Encoder,
    cache_path: Path,
    before_first_write: Callable[[], None],
    progress: bool = True,
    batch_chunks: int = 512,
    on_error: Callable[[str, str], None] | None = None,
    total: int | None = None,
    tracker: Any = None,
) -> IngestReport:
    """Chunk, embed and store already-loaded documents; load errors and skips in ``items`` are reported as
    they would be from files. Unchanged documents (same :func:`ingest_key`) are skipped. Each batch of
    about ``batch_chunks`` chunks is written in one atomic store commit (``Store.replace_documents``), so an
    interrupted run keeps the batches it finished and a re-run continues with the rest; bad files are
    reported in ``failed`` and do not stop the run (``on_error(path, reason)`` is called for each).
    ``before_first_write`` runs before each batch is written (the pipeline records its encoder there).
    With ``answer.precompute_units`` the extractive answer's units are embedded into the cache too.
    ``tracker`` (:class:`clinqa.ingest_progress.IngestProgress`) replaces the document bar of ``progress``
    with one over input bytes (an ETA) and chunks/s."""
    t0 = time.perf_counter()
    report = IngestReport()
    chunker = build_chunker(settings.chunking, encoder.token_counter, encoder.max_tokens)
    cache = EmbeddingCache(cache_path) if settings.embedding.cache else None
    existing = store.doc_hashes()
    record = BoilerplateRecord(settings.data_dir)
    boilerplate = record.read()
    known = len(boilerplate.kinds)
    ingested_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    pending_docs: list[str] = []
    pending_chunks: list[Chunk] = []
    suspicious: dict[str, int] = {}

    def flush() -> None:
        if not pending_docs:
            return
        before_first_write()
        vecs, n_new = embed_chunks(encoder, pending_chunks, cache, settings, report,
                                   progress=progress and len(pending_chunks) > 64)
        store.replace_documents(list(pending_docs), list(pending_chunks),
                                vecs if len(pending_chunks) else np.zeros((0, encoder.dim)))
        report.embedded += n_new
        report.chunks += len(pending_chunks)
        if tracker is not None:
            tracker.stored(len(pending_chunks))
        pending_docs.clear()
        pending_chunks.clear()

    def fail(path: str, reason: str) -> None:
        report.failed.append((path, reason))
        if on_error:
            on_error(path, reason)

    if progress and tracker is None:
        from tqdm.auto import tqdm

        items = tqdm(items, desc="ingest", unit="doc", total=total)
    if tracker is not None:
        items = tracker.wrap(items)
    for doc, key in changed_documents(items, settings, encoder.model_id, existing, report, fail, boilerplate):
        try:
            stamp = {"doc_hash": key, "source_from": doc.source_from, "ingested_at": ingested_at}
            chunks = [c.model_copy(update=stamp) for c in chunker.chunk(doc)]
        except Exception as exc:  # a chunker bug must not lose the rest of the batch
            fail(doc.path, f"could not chunk document {doc.doc_id!r}: {exc}")
            continue
        pending_docs.append(doc.doc_id)
        pending_chunks.extend(chunks)
        report.documents += 1
        report.no_year += doc.year is None
        n_suspicious = suspicious_count(chunks)
        if n_suspicious:
            suspicious[doc.path] = suspicious.get(doc.path, 0) + n_suspicious
        report.ocr_pages += ocr_pages(doc)
        if len(pending_chunks) >= batch_chunks:
            flush()
    flush()
    if len(boilerplate.kinds) > known and settings.ingest.boilerplate:
        record.write(boilerplate)
    if report.documents or store.stale_indexes():  # a killed run may have left rows unindexed
        store.refresh_indexes()
    if cache:
        cache.close()
    report.suspicious = sorted(suspicious.items())
    report.seconds = time.perf_counter() - t0
    return report


def changed_documents(items: Iterable[Document | LoadError | Skipped], settings: Settings, model_id: str,
                      existing: dict[str, str], report: IngestReport,
                      fail: Callable[[str, str], None],
                      boilerplate: Boilerplate | None = None) -> Iterator[tuple[Document, str]]:
    """The documents of ``items`` an ingest must (re)write, with their :func:`ingest_key`, in order: skips go to
    ``report.skipped``, load errors and a second document with an id already seen to ``fail(path, reason)``,
    documents whose key equals ``existing[doc_id]`` (the store's :meth:`~clinqa.store.Store.doc_hashes`) are
    counted in ``report.unchanged``. Shared by the plain ingest, the Ray ingest and ``--dry-run``.

    Each document's key is that of its text without the corpus boilerplate
    (:func:`clinqa.documents.boilerplate.screened` with ``boilerplate``, by default what ``<data dir>/
    boilerplate.json`` records; what was left out goes to ``report.boilerplate``), and its ``source_from`` is
    set (:func:`clinqa.documents.model.source_origin`)."""
    from clinqa.documents.loaders import Skipped

    if boilerplate is None:
        boilerplate = BoilerplateRecord(settings.data_dir).read()
    if settings.ingest.boilerplate:
        items = screened(items, boilerplate)
    seen: dict[str, str] = {}
    for item in items:
        if isinstance(item, Skipped):
            report.skipped.append((str(item.path), item.reason))
        elif isinstance(item, LoadError):
            fail(item.path, item.reason)
        elif item.doc_id in seen:
            fail(item.path, f"duplicate doc_id {item.doc_id!r} (already loaded from {seen[item.doc_id]})")
        else:
            seen[item.doc_id] = item.path
            item.source_from = source_origin(item)
            key = ingest_key(item, settings, model_id)
            if existing.get(item.doc_id) == key:
                report.unchanged += 1
            else:
                yield item, key
    report.boilerplate = boilerplate.summary() if settings.ingest.boilerplate else []


def ocr_pages(doc: Document) -> int:
    """How many PDF pages of ``doc`` were read by OCR (``IngestReport.ocr_pages``)."""
    return len({p for _, sec in doc.walk() for b in sec.blocks if b.ocr and b.page_start is not None
                for p in range(b.page_start, (b.page_end or b.page_start) + 1)})


def suspicious_count(chunks: Iterable[Chunk]) -> int:
    """Distinct units addressed to an AI model in ``chunks``, overview chunks left out
    (:func:`clinqa.chunking.units.suspicious_units`; ``IngestReport.suspicious``)."""
    return len(suspicious_units(c.body for c in chunks if c.hierarchy_level != "document"))


def embed_chunks(encoder: Encoder, chunks: list[Chunk], cache: EmbeddingCache | None, settings: Settings,
                 report: IngestReport, progress: bool = False) -> tuple[np.ndarray, int]:
    """The vectors of ``chunks`` (``(n, dim)``) and how many were computed (not cached); with
    ``answer.precompute_units`` (and a cache) their answer units are embedded into ``cache`` too, pooled from
    the chunk's own pass when ``embedding.unit_vectors`` is ``late`` and the encoder can (:func:`embed_late`),
    else encoded on their own. Unit counts go to ``report``. The one embedding step of the plain and the Ray
    ingest (:mod:`clinqa.ingest_ray`), so both give the same vectors."""
    units_wanted = cache is not None and settings.answer.precompute_units
    if units_wanted and settings.embedding.unit_vectors == "late" and getattr(encoder, "pools_spans", False):
        assert cache is not None
        vecs, n_new, separate = embed_late(encoder, chunks, cache, report, progress)
    else:
        vecs, n_new = encode_with_cache(encoder, [c.text for c in chunks], [c.content_hash for c in chunks],
                                        cache, progress=progress)
        separate = ([t for c in chunks if c.hierarchy_level != "document"
                     for t in embedding_texts(c.body, c.section_path)] if units_wanted else [])
    if separate:
        assert cache is not None
        units = list(dict.fromkeys(separate))
        _, n_units = encode_with_cache(encoder, units, [text_hash(u) for u in units], cache,
                                       progress=progress and len(units) > 64)
        report.units_embedded += n_units
    return vecs, n_new


def chunk_units(chunk: Chunk) -> list[tuple[str, tuple[int, int] | None]]:
    """The answer units of ``chunk`` as ``(text it is embedded as, character span in chunk.text or None)``:
    :func:`clinqa.chunking.units.embedding_text` of each of its :func:`~clinqa.chunking.units.unit_records`,
    located in the chunk's body (:func:`clinqa.embedding.late.locate`; a unit whose label is not written beside
    its text, such as a list's lead-in, by its text alone; a table row by its cells). An overview chunk has none."""
    if chunk.hierarchy_level == "document":
        return []
    records = unit_records(chunk.body)
    heading = unit_heading(chunk.section_path)
    start = len(chunk.text) - len(chunk.body) if chunk.text.endswith(chunk.body) else 0
    spans = locate(chunk.text, [u.full for u in records], start)
    missing = [i for i, sp in enumerate(spans) if sp is None]
    if missing:  # a label that is not beside its text ("Steps: Resuscitation: ..."): the text alone
        for i, sp in zip(missing, locate(chunk.text, [records[i].text for i in missing], start), strict=True):
            spans[i] = sp
    rows = [i for i, sp in enumerate(spans) if sp is None and records[i].cells]
    if rows:  # a table row is embedded as "header: cell; ...", written as "| cell | cell |"
        cells = [" ".join(cell for _, cell in records[i].cells) for i in rows]
        for i, sp in zip(rows, locate(chunk.text, cells, start), strict=True):
            spans[i] = sp
    return [(embedding_text(u, heading), span) for u, span in zip(records, spans, strict=True)]


def embed_late(encoder: Encoder, chunks: list[Chunk], cache: EmbeddingCache, report: IngestReport,
               progress: bool = False, slice_size: int = 256) -> tuple[np.ndarray, int, list[str]]:
    """Embed ``chunks`` and their answer units in one forward pass per chunk (``embedding.unit_vectors``
    ``late``; :meth:`clinqa.embedding.onnx.OnnxEncoder.encode_with_spans`). Chunk vectors go to the cache under
    the model id, unit vectors under :func:`~clinqa.embedding.late.late_key`; a chunk whose vector and units are
    all cached is not run. Returns ``(chunk vectors (n, dim), chunks computed, unit texts still to encode on
    their own)``: the units :func:`chunk_units` could not place, or that lie past the model's input limit.
    Counts the pooled units in ``report.units_embedded`` and ``report.units_late``."""
    model, lkey = encoder.model_id, late_key(encoder.model_id)
    units = [chunk_units(c) for c in chunks]
    separate = [t for us in units for t, s in us if s is None]
    # per chunk, its placed units as (text, hash, span): each unit is hashed once
    placed = [[(t, text_hash(t), s) for t, s in us if s is not None] for us in units]
    found = cache.get(model, [c.content_hash for c in chunks])
    have = cache.get(lkey, list(dict.fromkeys(h for us in placed for _, h, _ in us)))
    out = np.zeros((len(chunks), encoder.dim), dtype=np.float32)
    for i, c in enumerate(chunks):
        if c.content_hash in found:
            out[i] = found[c.content_hash]
    run = [i for i, c in enumerate(chunks)
           if c.content_hash not in found or any(h not in have for _, h, _ in placed[i])]
    with embedding_bar(len(run), progress) as bar:
        for k in range(0, len(run), slice_size):
            part = run[k : k + slice_size]
            vecs, pooled = encoder.encode_with_spans(  # type: ignore[attr-defined]
                [chunks[i].text for i in part], [[s for _, _, s in placed[i]] for i in part])
            new = [j for j, i in enumerate(part) if chunks[i].content_hash not in found]
            cache.put(model, [chunks[part[j]].content_hash for j in new], vecs[new])
            out[[part[j] for j in new]] = vecs[new]
            fresh: dict[str, np.ndarray] = {}
            for i, uv in zip(part, pooled, strict=True):
                for (t, h, _), v in zip(placed[i], uv if uv is not None else [], strict=True):
                    if not v.any():  # past the input limit: no token to pool
                        separate.append(t)
                    elif h not in have:  # a unit met twice in the slice keeps its last vector
                        fresh[h] = v
            if fresh:
                cache.put(lkey, list(fresh), np.stack(list(fresh.values())))
                have.update(fresh)
                report.units_embedded += len(fresh)
                report.units_late += len(fresh)
            bar.update(len(part))
    return out, sum(chunks[i].content_hash not in found for i in run), separate


def suspicious_chunks(store: Store, patient_ids: Sequence[str] = ()) -> int:
    """How many chunks (overview chunks left out) hold at least one unit addressed to an AI model
    (:func:`clinqa.chunking.units.suspicious_units`): the documents of no patient plus the notes of each of
    ``patient_ids``, read from the store's chunk bodies (one pass over the store)."""
    n = 0
    for pid in [None, *patient_ids]:
        bodies = store.export(["body"], Filters(patient_id=pid, exclude_levels=("document",)))
        n += sum(1 for b in bodies.column("body").to_pylist() if suspicious_units([b]))
    return n


def store_stats(store: Store, data_dir: Path, model_id: str | None) -> dict[str, Any]:
    """Counts for ``clinqa stats``: documents, chunks, per level, per source, patients, ``model_id`` (the
    store's encoder), and ``suspicious_chunks`` (:func:`suspicious_chunks`)."""
    docs = store.documents()
    sources: dict[str, int] = {}
    for d in docs:
        sources[d["source"] or ""] = sources.get(d["source"] or "", 0) + 1
    patients = sorted({d["patient_id"] for d in docs if d["patient_id"]})
    return {
        "data_dir": str(data_dir),
        "documents": len(docs),
        "chunks": store.count(),
        "levels": store.level_counts(),
        "sources": sources,
        "patients": len(patients),
        "model_id": model_id,
        "suspicious_chunks": suspicious_chunks(store, patients),
    }


class BoilerplateRecord:
    """``<data_dir>/boilerplate.json``: the corpus boilerplate found by earlier ingests
    (:class:`clinqa.documents.boilerplate.Boilerplate`), left out of later ones too."""

    def __init__(self, data_dir: Path) -> None:
        """``data_dir``: the store's data directory."""
        self.path = Path(data_dir) / "boilerplate.json"

    def read(self) -> Boilerplate:
        """What the file records (nothing when it is missing or unreadable)."""
        try:
            return Boilerplate.from_json(json.loads(self.path.read_text()))
        except (OSError, ValueError):
            return Boilerplate()

    def write(self, boilerplate: Boilerplate) -> None:
        """Record ``boilerplate`` (atomically)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(boilerplate.to_json(), indent=2, ensure_ascii=False))
        tmp.replace(self.path)


class StoreRecord:
    """``<data_dir>/store.json``: which encoder built the store (``model_id``, ``dim``, ``max_tokens``), written
    before the first chunk is stored; a store is never searched or extended with another encoder."""

    def __init__(self, data_dir: Path) -> None:
        """``data_dir``: the store's data directory."""
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / "store.json"

    def read(self) -> dict[str, Any]:
        """Contents of ``store.json`` (empty dict before the first ingest)."""
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def write_once(self, encoder: Encoder) -> None:
        """Record ``encoder`` (atomically) unless a record exists."""
        if self.path.exists():
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"model_id": encoder.model_id, "dim": encoder.dim,
                                   "max_tokens": encoder.max_tokens}, indent=2))
        tmp.replace(self.path)

    def check(self, encoder: Encoder) -> None:
        """Raise :class:`ConfigError` when the store was built with another encoder than ``encoder``."""
        model = self.read().get("model_id")
        if model and model != encoder.model_id:
            raise ConfigError(f"the store in {self.data_dir} was built with encoder {model}, but the configured "
                              f"encoder is {encoder.model_id}; use another --data-dir or the same model")
