"""The BM25 route alone on a LanceDB store, per-scope statistics (``store.bm25_statistics: scope``, the
in-memory index of :mod:`clinqa.store.bm25_index`) against LanceDB's full-text index (``table``, the
ranking before issue 51), in one process on the same store (issue 51 item 2).

For each mode: the time to build the in-memory indexes at open, then ``bm25_search`` top-30 of ``--queries``
seeded dev questions (the questions of :mod:`bench.scale.latency`), with no patient and restricted to one
seeded patient, after one untimed pass, one at a time (the ranking alone: ids and scores, what
``hybrid_lists`` waits for; and ``bm25_search``, which also reads the hits' rows); and how often the two
modes' top-30 share a chunk.
``--tokenize N`` also times the tokenizing of ``N`` distinct chunk texts (what a first open of a store
without its term file, or an ingest, pays per new text).

    python bench/store/lance_scoped_bm25.py /tmp/scale/300000/lancedb --queries 100 --tokenize 20000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from latency import pct, questions

from clinqa.store.bm25_index import TermRows
from clinqa.store.filters import Filters
from clinqa.store.lancedb import LanceStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path, help="a LanceDB folder (<data_dir>/lancedb); only read")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tokenize", type=int, default=0)
    ap.add_argument("--output", type=Path)
    a = ap.parse_args()
    qs = questions(a.queries, a.seed)
    out: dict = {"queries": len(qs), "k": a.k}
    ranked: dict[str, dict[str, list[list[str]]]] = {}
    firsts: dict[str, dict[str, list[str]]] = {}  # the top hit's content hash (copies of a text share it)
    for mode in ("table", "scope"):
        store = LanceStore(a.store, scoped_bm25=mode == "scope")
        t0 = time.perf_counter()
        store.dense_index()
        res: dict = {"open_s": round(time.perf_counter() - t0, 2), "bm25_build": store.bm25_build}
        patients = sorted({d["patient_id"] for d in store.documents() if d["patient_id"]})
        rng = random.Random(a.seed)
        scoped = [Filters(patient_id=rng.choice(patients)) for _ in qs]
        for label, filters in (("no patient", [Filters()] * len(qs)), ("one patient", scoped)):
            for q, f in zip(qs, filters, strict=True):  # untimed pass
                store.bm25_search(q, a.k, f)
            store.drop_caches()
            ts, rank_ts, lists, texts = [], [], [], []
            for q, f in zip(qs, filters, strict=True):
                t = time.perf_counter()
                store._bm25_ranked(q, a.k, f)  # ids and scores only (what hybrid_lists waits for)
                rank_ts.append(time.perf_counter() - t)
                t = time.perf_counter()
                hits = store.bm25_search(q, a.k, f)  # and the hits' rows
                ts.append(time.perf_counter() - t)
                lists.append([h.chunk.chunk_id for h in hits])
                texts.append(hits[0].chunk.content_hash if hits else "")
            res[label] = {"ranking": pct(rank_ts), "bm25_search": pct(ts)}
            ranked.setdefault(label, {})[mode] = lists
            firsts.setdefault(label, {})[mode] = texts
        out[mode] = res
        print(mode, json.dumps(res), flush=True)
    for label, by in ranked.items():
        overlap = [len(set(x) & set(y)) / max(1, len(set(x) | set(y))) for x, y in zip(by["table"], by["scope"],
                                                                                    strict=True)]
        out[f"jaccard, {label}"] = round(float(np.mean(overlap)), 3)
        out[f"same top-1, {label}"] = sum(bool(x) and bool(y) and x[0] == y[0]
                                          for x, y in zip(by["table"], by["scope"], strict=True))
        out[f"same top-1 text, {label}"] = sum(bool(x) and x == y for x, y in zip(
            firsts[label]["table"], firsts[label]["scope"], strict=True))
    if a.tokenize:
        t = LanceStore(a.store, scoped_bm25=False)._columns(["content_hash", "text"])
        seen: dict[str, str] = {}
        for h, text in zip(t.column("content_hash").to_pylist(), t.column("text").to_pylist(), strict=True):
            if len(seen) >= a.tokenize:
                break
            seen.setdefault(h, text)
        t0 = time.perf_counter()
        TermRows.tokenize(list(seen), list(seen.values()))
        dt = time.perf_counter() - t0
        out["tokenize"] = {"texts": len(seen), "s": round(dt, 2), "ms_per_text": round(dt / len(seen) * 1e3, 3)}
    print(json.dumps({k: v for k, v in out.items() if k not in ("table", "scope")}), flush=True)
    if a.output:
        a.output.mkdir(parents=True, exist_ok=True)
        (a.output / "lance_scoped_bm25.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
