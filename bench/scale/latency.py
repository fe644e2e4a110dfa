"""Query latency at 10k / 100k / 300k chunks: hybrid search and extractive ``ask``, with and
without a patient filter, on the stores ``bench/scale/build.py`` writes.

Each timed call is what a user runs: ``Pipeline.search`` (question embedding, dense exact top-k and
BM25 under the filters, weighted RRF) and ``Pipeline.ask`` (search, coverage check, refusal gate,
extractive answer), one at a time, on whatever cores the machine has. Questions: the LiveQA-MedQuAD
and PubMedQA dev questions (real, written by others), ``--queries`` of them, seeded. Patient-filtered
calls restrict each question to one seeded patient of the store.

Before timing, one untimed pass asks every question once: it loads the encoder and the store's
in-memory dense index, and embeds the quotable units of the retrieved passages into the embedding
cache, which is what ingest does for every passage when ``answer.precompute_units`` is on (the
default). Timings therefore show a warm service on a store ingested with the defaults. The store's
in-memory caches of hit rows and word counts are dropped before each timed pass, so a question does
not find its own rows from the warm-up; within a pass, distinct questions share them as in service.

    python bench/scale/latency.py --stores /tmp/scale --sizes 10000 100000 300000 --output runs/scale
    python bench/scale/latency.py --sizes 300000 --set answer.lexicon=false --output runs/scale-nolex
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from clinqa.cli.common import parse_set
from clinqa.pipeline import Pipeline
from clinqa.retrieval.filters import Filters
from clinqa.settings import Settings, apply_overrides

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def questions(n: int, seed: int) -> list[str]:
    """``n`` dev questions (LiveQA-MedQuAD first, then PubMedQA), seeded sample."""
    qs: list[str] = []
    for name in ("liveqa-medquad", "pubmedqa"):
        with open(DATA / name / "queries.jsonl") as f:
            qs.extend(json.loads(line)["text"] for line in f if line.strip())
    return random.Random(seed).sample(qs, min(n, len(qs)))


def pct(xs: list[float]) -> dict[str, float]:
    """p50 / p95 / max in milliseconds."""
    a = np.asarray(xs) * 1e3
    return {"p50_ms": round(float(np.percentile(a, 50)), 1), "p95_ms": round(float(np.percentile(a, 95)), 1),
            "max_ms": round(float(a.max()), 1), "n": len(xs)}


def rss_mib() -> float:
    """This process's resident memory (VmRSS) in MiB; 0 where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def run_size(store_dir: Path, qs: list[str], seed: int, cache: Path, sets: list[str] | None = None) -> dict:
    """Timings for one store, with the settings' defaults and each ``KEY=VALUE`` of ``sets`` applied
    (``answer.lexicon=false``: as ``clinqa --set``)."""
    overrides = [(*parse_set(s), f"--set {s}") for s in sets or []]
    pipe = Pipeline(apply_overrides(Settings(data_dir=store_dir), overrides), cache_path=cache)
    patients = sorted({d["patient_id"] for d in pipe.store.documents() if d["patient_id"]})
    rng = random.Random(seed)
    scoped = [Filters(patient_id=rng.choice(patients)) for _ in qs]
    plain = [pipe.filters() for _ in qs]
    # the in-memory indexes (dense, and with store.bm25_statistics: scope the BM25 one): their build time
    # at open and the process's resident memory before and after
    rss0 = rss_mib()
    t0 = time.perf_counter()
    index = getattr(pipe.store, "dense_index", None)
    if index is not None:
        index()
    opened = {"open_s": round(time.perf_counter() - t0, 2), "rss_before_mib": rss0, "rss_after_mib": rss_mib(),
              "bm25_build": {k: round(v, 2) for k, v in getattr(pipe.store, "bm25_build", {}).items()}}
    print(store_dir.name, "indexes", json.dumps(opened), flush=True)
    t0 = time.perf_counter()
    for q, fp, fs in zip(qs, plain, scoped, strict=True):  # warm-up: see module docstring
        pipe.ask(q, fp)
        pipe.ask(q, fs)
    warm = time.perf_counter() - t0
    out: dict = {"chunks": pipe.store.count(), "patients": len(patients), "warmup_s": round(warm, 1),
                 "indexes": opened, "sets": list(sets or [])}
    for label, filt in (("no filter", plain), ("patient filter", scoped)):
        for route in ("search", "ask"):
            # the warm-up asked these very questions: forget the rows and word counts it left in memory
            pipe.store.drop_caches()
            ts: list[float] = []
            parts: dict[str, list[float]] = {}
            refused = 0
            for q, f in zip(qs, filt, strict=True):
                t = time.perf_counter()
                if route == "search":
                    r = pipe.search(q, f)
                    timings = r.timings_ms
                else:
                    a = pipe.ask(q, f)
                    timings = a.timings_ms
                    refused += a.refused
                ts.append(time.perf_counter() - t)
                for k, v in timings.items():
                    parts.setdefault(k, []).append(v)
            row = pct(ts)
            row["stages_p50_ms"] = {k: round(float(np.percentile(v, 50)), 1) for k, v in parts.items()}
            if route == "ask":
                row["refused"] = refused
            out[f"{route}, {label}"] = row
            print(store_dir.name, route, label, json.dumps(row), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stores", type=Path, default=Path("/tmp/scale"))
    ap.add_argument("--sizes", nargs="+", default=["10000", "100000", "300000"])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--output", type=Path, default=Path("runs/scale"))
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting, as clinqa's --set (repeatable): answer.lexicon=false")
    a = ap.parse_args()
    qs = questions(a.queries, a.seed)
    results = {"queries": len(qs), "sets": a.sets, "sizes": {}}
    for size in a.sizes:
        results["sizes"][size] = run_size(a.stores / size, qs, a.seed, a.stores / "embeddings.sqlite", a.sets)
    a.output.mkdir(parents=True, exist_ok=True)
    (a.output / "latency.json").write_text(json.dumps(results, indent=2))
    print(f"wrote {a.output / 'latency.json'}")


if __name__ == "__main__":
    main()
