"""How far an ingest has come, without reading the files twice: input bytes done of the bytes under the paths.

:func:`input_sizes` stats the files under the paths once (no parsing) and estimates how many documents
each holds (a line per record in JSONL / CSV files, else one); :class:`IngestProgress` credits a document's
share of its file (or of its folder, for a registry-grouped folder) as it arrives, so the bar's ETA is
the elapsed time scaled by the bytes left, and its postfix gives chunks and chunks/s.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from clinqa.ingest import IngestReport

#: file types read as one record per line
_LINE_FORMATS = {".jsonl", ".ndjson", ".csv"}


def input_sizes(paths: Sequence[Path]) -> dict[str, tuple[int, int]]:
    """``{file path: (bytes, estimated documents)}`` of every non-hidden file under ``paths`` (files and
    folders, walked recursively). Estimated documents: the line count of a JSONL / CSV file (minus a CSV's
    header), else 1. Unreadable entries are left out (the ingest reports them)."""
    out: dict[str, tuple[int, int]] = {}

    def add(p: Path) -> None:
        try:
            size = p.stat().st_size
            docs = 1
            if p.suffix.lower() in _LINE_FORMATS:
                with p.open("rb") as f:
                    docs = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
                docs = max(1, docs - (p.suffix.lower() == ".csv"))
            out[str(p)] = (size, docs)
        except OSError:
            pass

    for raw in paths:
        path = Path(raw)
        if path.is_file():
            add(path)
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    add(Path(root) / name)
    return out


def clock(seconds: float) -> str:
    """``35s``, ``4m10s``, ``1h02m`` (an ETA or an elapsed time; ``seconds`` >= 0)."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class IngestProgress:
    """Progress over input bytes (``total`` = the sum of :func:`input_sizes`), advanced by :meth:`document` with a
    document's share of its file, or of every file under it when the document's ``path`` is a folder (a
    registry-grouped guideline), and by :meth:`stored` with the chunks written.

    On a terminal it is a tqdm bar (postfix: documents, chunks and chunks/s). When ``stream`` (default
    ``sys.stderr``) is not a terminal (a log file, a pipe: ``make demo | tee log``) a bar would be one endless
    line of carriage returns, so instead a line is printed every ``interval`` seconds (``ingest.progress_interval_s``)
    from a background thread: ``ingest: 120/430 documents, 5,312 chunks, 41.2 chunks/s, ETA 2m10s`` (documents
    done of the documents estimated by :func:`input_sizes`; the ETA scales the elapsed time by the input bytes
    left). The documents' total is first the estimate of :func:`input_sizes` (one per file, a line per record);
    it falls as folders read as one document arrive, so a corpus of registry-grouped guidelines ends at its true
    count ("43/43 documents", not "43/146")."""

    def __init__(self, paths: Sequence[Path], enabled: bool = True, interval: float = 10.0,
                 stream: TextIO | None = None) -> None:
        """``enabled`` False: nothing is shown or computed. ``interval``: seconds between the lines printed when
        ``stream`` is not a terminal."""
        from tqdm.auto import tqdm

        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.lines = enabled and not (callable(isatty) and isatty())
        self.sizes = input_sizes(paths) if enabled else {}
        self.total = float(sum(s for s, _ in self.sizes.values()))
        self.total_docs = sum(d for _, d in self.sizes.values())
        self.done = 0.0  # input bytes credited so far
        self.bar = tqdm(total=self.total, unit="B", unit_scale=True, unit_divisor=1024, desc="ingest",
                        disable=not enabled or self.lines, smoothing=0.05, file=self.stream)
        self.t0 = time.perf_counter()
        self.docs = 0
        self.chunks = 0
        self._folders: dict[str, int] = {}
        self.interval = interval
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.lines:
            self._ticker = threading.Thread(target=self._tick, name="ingest-progress", daemon=True)
            self._ticker.start()

    def line(self) -> str:
        """The progress line: ``ingest: 120/430 documents, 5,312 chunks, 41.2 chunks/s, ETA 2m10s`` (``ETA ?``
        before the first document)."""
        elapsed = max(1e-9, time.perf_counter() - self.t0)
        eta = clock(elapsed * (self.total - self.done) / self.done) if self.done > 0 else "?"
        return (f"ingest: {self.docs:,}/{max(self.total_docs, self.docs):,} documents, {self.chunks:,} chunks, "
                f"{self.chunks / elapsed:.1f} chunks/s, ETA {eta}")

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=self.stream, flush=True)

    def _share(self, path: str) -> float:
        if path in self.sizes:
            size, docs = self.sizes[path]
            return size / docs
        if path not in self._folders:  # a folder: every file under it, once
            prefix = path.rstrip(os.sep) + os.sep
            inside = [v for p, v in self.sizes.items() if p.startswith(prefix)]
            self._folders[path] = sum(s for s, _ in inside)
            # its files were counted as documents of their own: they are one (a registry-grouped guideline)
            self.total_docs -= max(0, sum(d for _, d in inside) - 1)
            return float(self._folders[path])
        return 0.0

    def document(self, path: str, counted: bool = True) -> None:
        """One document from ``path`` has been read (``counted`` False: a failed or skipped file, or record, which is
        then no document of the total either: "43/43 documents" when a README beside 43 guidelines was skipped)."""
        self.docs += counted
        if not counted:
            self.total_docs = max(self.docs, self.total_docs - 1)
        share = min(self._share(path), max(0.0, self.total - self.done))
        self.done += share
        self.bar.update(share)
        self._postfix()

    def wrap(self, items: Iterable[Any]) -> Iterator[Any]:
        """``items`` (Documents, LoadErrors, Skipped) passed through, each credited by :meth:`document`."""
        from clinqa.documents.model import Document

        for item in items:
            self.document(str(item.path), counted=isinstance(item, Document))
            yield item

    def stored(self, chunks: int) -> None:
        """``chunks`` more chunks have been embedded and stored."""
        self.chunks += chunks
        self._postfix()

    def _postfix(self) -> None:
        if self.bar.disable:
            return
        rate = self.chunks / max(1e-9, time.perf_counter() - self.t0)
        self.bar.set_postfix_str(f"{self.docs} docs, {self.chunks} chunks, {rate:.1f} chunks/s", refresh=False)

    def beside(self, say: Callable[[str, str], None]) -> Callable[[str, str], None]:
        """``say`` (e.g. the CLI's ``error: <file>: <reason>`` line) run with the bar cleared first and drawn
        again after (tqdm's ``external_write_mode``), so a message starts its own line instead of being
        printed onto the bar ("…7.39kB/s]error: …")."""
        from tqdm.auto import tqdm

        def said(path: str, reason: str) -> None:
            with tqdm.external_write_mode(file=self.bar.fp):
                say(path, reason)

        return said

    def close(self) -> None:
        """Stop the progress lines; fill the bar (the estimate of documents per file may be short) and close it."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self.bar.total and not self.bar.disable:
            self.bar.update(max(0.0, self.bar.total - self.bar.n))
        self.bar.close()

    def __enter__(self) -> IngestProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def ingest_files(paths: Sequence[Path], format: str | None, limits: Any,
                 ingest_items: Callable[..., IngestReport], progress: bool = True, batch_chunks: int = 512,
                 on_error: Callable[[str, str], None] | None = None) -> IngestReport:
    """``clinqa ingest``: load every document under ``paths`` (:func:`clinqa.documents.loaders.iter_documents`,
    ``format`` or by extension, within ``limits``: the ``ingest`` settings; the parsers load on first ingest)
    and hand them to ``ingest_items`` (``Pipeline.ingest_documents``: the items, then ``progress``,
    ``batch_chunks``, ``on_error`` and ``tracker`` by keyword), with an :class:`IngestProgress` over the
    input bytes when ``progress``: a bar on a terminal, else a line every ``limits.progress_interval_s``
    seconds on stderr."""
    from clinqa.documents.loaders import iter_documents

    items = iter_documents([Path(p) for p in paths], format, limits=limits)
    interval = getattr(limits, "progress_interval_s", 10.0)
    with IngestProgress([Path(p) for p in paths], enabled=progress, interval=interval) as tracker:
        bar = progress and not tracker.lines  # no embedding bars either when the output is not a terminal
        said = tracker.beside(on_error) if on_error is not None and bar else on_error
        return ingest_items(items, progress=bar, batch_chunks=batch_chunks, on_error=said,
                            tracker=tracker if progress else None)


def estimate(pipe: Any, paths: Sequence[Path], format: str | None = None, sample: int = 64,
             seed: int = 0) -> dict[str, Any]:
    """``clinqa ingest --dry-run``: how long the ingest of ``paths`` into ``pipe``'s store would take, writing
    nothing. Every file is read and parsed and screened as the ingest screens it
    (:func:`clinqa.ingest.changed_documents`: counts of documents, unchanged ones, failures and skips are
    exact); a seeded uniform sample of ``sample`` changed documents (reservoir sampling,
    Vitter 1985) is chunked and embedded cold (answer units included, as configured) into a throw-away
    in-memory cache. Returns a JSON-ready dict: ``documents`` (to ingest), ``unchanged``, ``failed``,
    ``failed_files`` (``[path, reason]`` of each failure, as the ingest would report it), ``skipped``,
    ``parse_seconds``, ``sample_documents``, ``sample_chunks``, ``sample_seconds``,
    ``chunks_per_second``, ``estimated_chunks`` and ``estimated_seconds`` (parse time plus the estimated
    chunks at the sample's rate; store writes, ~1% of an ingest, are left out). A cold estimate: vectors
    already in the embedding cache would make the real run faster."""
    import random

    from clinqa.documents.loaders import iter_documents
    from clinqa.embedding import EmbeddingCache
    from clinqa.ingest import IngestReport, changed_documents, embed_chunks

    settings, encoder = pipe.settings, pipe.encoder
    existing = pipe.store.doc_hashes() if pipe.data_dir.exists() else {}  # no store is created
    rng = random.Random(seed)
    picked: list[Any] = []
    report = IngestReport()
    n = 0
    t0 = time.perf_counter()
    items = iter_documents([Path(p) for p in paths], format, limits=settings.ingest)
    for doc, _ in changed_documents(items, settings, encoder.model_id, existing, report,
                                    lambda path, reason: report.failed.append((path, reason))):
        n += 1
        if len(picked) < sample:
            picked.append(doc)
        elif (j := rng.randrange(n)) < sample:
            picked[j] = doc
    counts = {"documents": n, "unchanged": report.unchanged, "failed": len(report.failed),
              "skipped": len(report.skipped)}
    parse_s = time.perf_counter() - t0
    from clinqa.chunking import build_chunker

    chunker = build_chunker(settings.chunking, encoder.token_counter, encoder.max_tokens)
    encoder.encode_passages(["warm-up"])  # the model's first run is not ingest time
    t1 = time.perf_counter()
    chunks = [c for d in picked for c in chunker.chunk(d)]
    cache = EmbeddingCache(Path(":memory:")) if settings.embedding.cache else None
    embed_chunks(encoder, chunks, cache, settings, IngestReport())
    sample_s = time.perf_counter() - t1
    rate = len(chunks) / sample_s if sample_s > 0 else 0.0
    est_chunks = round(len(chunks) / len(picked) * counts["documents"]) if picked else 0
    return {**counts, "failed_files": [[str(p), r] for p, r in report.failed],
            "parse_seconds": round(parse_s, 2), "sample_documents": len(picked),
            "sample_chunks": len(chunks), "sample_seconds": round(sample_s, 2),
            "chunks_per_second": round(rate, 2), "estimated_chunks": est_chunks,
            "estimated_seconds": round(parse_s + (est_chunks / rate if rate else 0.0), 1)}
