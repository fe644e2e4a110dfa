"""Store benchmark (issue 41): LanceDB against Qdrant Edge (Qdrant's engine in the process), and
qdrant-client's local mode at 10k only (it scans in Python), on the **same synthetic chunks and vectors**.

Per store and size, two fresh processes: ``build`` writes the chunks through ``replace_documents``
(the ingest write path; documents of 1-6 chunks, ``--batch`` chunks per call) and then
``refresh_indexes``; ``search`` opens the store and times 100 seeded queries per route, one call at a
time, after one untimed pass: dense exact top-30 and BM25 top-30, each without a patient filter and
restricted to one random patient, and ``hybrid_lists`` (both lists, as a question asks). Each process
reports its peak resident memory (``ru_maxrss``); ``build`` also the size on disk.

Data (seeded): random unit vectors (384-d, as all-MiniLM-L6-v2), texts of 12-40 words drawn from a
Zipf distribution over 20,000 made-up words (so a few words are in most chunks and most are rare), 20%
of the documents patient notes of ``n / 300`` patients, years 2005-2025, five sources. Queries: 3-5
words of middling frequency (ranks 30-3,000), and (``bm25_frequent``) the same with two of the 30 most
frequent words added; query vectors: random unit vectors.

    python bench/store/edge_vs_lance.py --out /tmp/storebench --sizes 10000 100000 300000

Results are written to ``<out>/results.json`` after each (store, size) (a re-run skips those done, so
it can be stopped and resumed); ``--report`` prints the Markdown table.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DIM = 384
VOCAB = 20_000
SYLL = ["ba", "co", "di", "fe", "gu", "ha", "ji", "ko", "lu", "ma", "ne", "po", "ra", "si", "tu", "ve", "xa",
        "yo", "ze", "ri", "mo", "ta", "ni", "pe", "lo", "ka", "de", "fu", "gi", "so"]
SOURCES = ["NICE", "BTS", "WHO", "ESC", "AHA"]


def vocabulary(seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        words["".join(rng.choice(SYLL, size=int(rng.integers(2, 5))))] = None
    return list(words)


def corpus(n: int, seed: int = 13):
    """``(chunks, vectors (n, DIM) float32 unit)``: documents of 1-6 chunks until ``n`` chunks."""
    from clinqa.chunking.base import Chunk

    rng = np.random.default_rng(seed)
    words = vocabulary()
    patients = max(1, n // 300)
    chunks: list[Chunk] = []
    d = 0
    while len(chunks) < n:
        k = min(int(rng.integers(1, 7)), n - len(chunks))
        pid = f"P{int(rng.integers(patients)):05d}" if rng.random() < 0.2 else None
        doc = f"note:{pid}:{d}" if pid else f"g{d:07d}"
        year, source = int(rng.integers(2005, 2026)), ("EHR" if pid else SOURCES[d % 5])
        for j in range(k):
            idx = np.minimum(rng.zipf(1.15, size=int(rng.integers(12, 41))) - 1, VOCAB - 1)
            text = " ".join(words[i] for i in idx)
            chunks.append(Chunk(chunk_id=f"{doc}#s#{j}", doc_id=doc, text=text, body=text, patient_id=pid,
                                year=year, source=source, title=f"doc {d}", doc_hash=f"h{d}",
                                hierarchy_level="section", section_path=["S", str(j)]))
        d += 1
    v = rng.standard_normal((n, DIM), dtype=np.float32)
    return chunks, v / np.linalg.norm(v, axis=1, keepdims=True)


def open_store(kind: str, path: Path):
    if kind == "lancedb":
        from clinqa.store import LanceStore

        return LanceStore(path)
    if kind == "qdrant-edge":
        from clinqa.store.qdrant_edge import EdgeStore

        return EdgeStore(path)
    from clinqa.store.qdrant import QdrantStore

    return QdrantStore(path)


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def disk_mb(path: Path) -> float:
    """Apparent size (what ``ls`` shows; the Edge WAL pre-allocates 32 MiB files, sparsely)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def disk_alloc_mb(path: Path) -> float:
    """Blocks allocated on disk (what ``du`` shows)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 1e6


def build(kind: str, n: int, path: Path, batch: int) -> dict:
    chunks, vecs = corpus(n)
    shutil.rmtree(path, ignore_errors=True)
    store = open_store(kind, path)
    t0 = time.perf_counter()
    i = 0
    while i < len(chunks):  # whole documents per call, about `batch` chunks
        j = min(i + batch, len(chunks))
        while j < len(chunks) and chunks[j].doc_id == chunks[j - 1].doc_id:
            j += 1
        store.replace_documents(sorted({c.doc_id for c in chunks[i:j]}), chunks[i:j], vecs[i:j])
        i = j
    t1 = time.perf_counter()
    store.refresh_indexes()
    t2 = time.perf_counter()
    assert store.count() == n, store.count()
    if hasattr(store, "close") and kind != "lancedb":
        store.close()
    return {"write_s": t1 - t0, "index_s": t2 - t1, "chunks_per_s": n / (t2 - t0), "disk_mb": disk_mb(path),
            "disk_alloc_mb": disk_alloc_mb(path), "build_peak_mib": peak_mib()}


def pct(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs) * 1e3
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}


def search(kind: str, n: int, path: Path, queries: int) -> dict:
    from clinqa.store.filters import Filters

    t_open = time.perf_counter()
    store = open_store(kind, path)
    store.sync()
    open_s = time.perf_counter() - t_open
    rng = np.random.default_rng(7)
    words = vocabulary()
    qtexts = [" ".join(words[i] for i in rng.integers(30, 3000, size=int(rng.integers(3, 6)))) for _ in range(queries)]
    # the same queries with two of the most frequent words added (ranks 0-29: in a large share of chunks)
    qfreq = [" ".join([*(words[i] for i in rng.integers(0, 30, size=2)), q]) for q in qtexts]
    qv = rng.standard_normal((queries, DIM), dtype=np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    patients = max(1, n // 300)
    pf = [Filters(patient_id=f"P{int(rng.integers(patients)):05d}") for _ in range(queries)]
    routes = {
        "dense": lambda i: store.dense_search(qv[i], 30, Filters()),
        "dense_patient": lambda i: store.dense_search(qv[i], 30, pf[i]),
        "bm25": lambda i: store.bm25_search(qtexts[i], 30, Filters()),
        "bm25_patient": lambda i: store.bm25_search(qtexts[i], 30, pf[i]),
        "bm25_frequent": lambda i: store.bm25_search(qfreq[i], 30, Filters()),
        "hybrid_lists": lambda i: store.hybrid_lists(qv[i], qtexts[i], 30, 30, Filters()),
    }
    out: dict = {"open_s": open_s}
    for name, fn in routes.items():
        for i in range(queries):  # untimed pass: loads what a first query loads
            fn(i)
        store.drop_caches()
        times = []
        for i in range(queries):
            t = time.perf_counter()
            fn(i)
            times.append(time.perf_counter() - t)
        out[name] = pct(times)
    out["search_peak_mib"] = peak_mib()
    return out


def report(results: dict) -> str:
    lines = ["| store | chunks | ingest chunks/s (write + index) | dense p50 / p95 | dense, patient p50 / p95 | "
             "BM25 p50 / p95 | BM25, patient p50 / p95 | BM25, frequent words p50 / p95 | both lists p50 / p95 | "
             "peak RSS build / search | "
             "on disk (du / apparent) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(results, key=lambda k: (int(k.split(":")[1]), k)):
        r = results[key]
        kind, n = key.split(":")
        s = r.get("search", {})

        def cell(name: str, s: dict = s) -> str:
            return f"{s[name]['p50']:.1f} / {s[name]['p95']:.1f}" if name in s else "-"

        b = r["build"]
        lines.append(f"| {kind} | {int(n):,} | {b['chunks_per_s']:,.0f} ({b['write_s']:.1f} s + {b['index_s']:.1f} s) "
                     f"| {cell('dense')} | {cell('dense_patient')} | {cell('bm25')} | {cell('bm25_patient')} "
                     f"| {cell('bm25_frequent')} "
                     f"| {cell('hybrid_lists')} | {b['build_peak_mib']:.0f} / {s.get('search_peak_mib', 0):.0f} MiB "
                     f"| {b.get('disk_alloc_mb', float('nan')):.0f} / {b['disk_mb']:.0f} MB |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/storebench"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    ap.add_argument("--stores", nargs="+", default=["lancedb", "qdrant-edge", "qdrant-local"])
    ap.add_argument("--local-max", type=int, default=10_000, help="largest size for qdrant-client's local mode")
    ap.add_argument("--batch", type=int, default=1000, help="chunks per replace_documents call")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--keep", action="store_true", help="keep the stores (default: deleted after each size)")
    ap.add_argument("--report", action="store_true", help="print the table of <out>/results.json and stop")
    ap.add_argument("--child", nargs=3, metavar=("STEP", "KIND", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        step, kind, n = a.child[0], a.child[1], int(a.child[2])
        path = a.out / f"{kind}-{n}"
        res = build(kind, n, path, a.batch) if step == "build" else search(kind, n, path, a.queries)
        print("RESULT " + json.dumps(res), flush=True)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    rfile = a.out / "results.json"
    results = json.loads(rfile.read_text()) if rfile.exists() else {}
    if a.report:
        print(report(results))
        return
    for n in a.sizes:
        for kind in a.stores:
            key = f"{kind}:{n}"
            if (kind == "qdrant-local" and n > a.local_max) or "search" in results.get(key, {}):
                continue
            entry = {}
            for step in ("build", "search"):
                cmd = [sys.executable, __file__, "--out", str(a.out), "--batch", str(a.batch), "--queries",
                       str(a.queries), "--child", step, kind, str(n)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
                if proc.returncode or not line:
                    raise SystemExit(f"{key} {step} failed:\n{proc.stderr[-3000:]}")
                entry[step] = json.loads(line[0][7:])
                print(key, step, json.dumps(entry[step]), flush=True)
            results[key] = entry
            rfile.write_text(json.dumps(results, indent=1))
            if not a.keep:
                shutil.rmtree(a.out / f"{kind}-{n}", ignore_errors=True)
    print(report(results))


if __name__ == "__main__":
    main()
