"""The cost of per-scope BM25 statistics (issue 51 item 2) on Qdrant Edge: the same synthetic store built
and searched by two versions of clinqa's code, ``before`` (a source tree without the change, e.g.
``git archive <commit> src | tar -x -C /tmp/before``) and ``after`` (this tree), each in fresh processes.

Data and queries are :mod:`bench.store.edge_vs_lance`'s (seeded; random unit vectors, Zipf texts, 20% of
the documents notes of ``n / 300`` patients: 1,000 patients at 300k chunks). Timed per version, after one
untimed pass, 100 queries each, one at a time: BM25 top-30 restricted to one random patient (the route
the change touches), BM25 top-30 without a patient, dense top-30 restricted to one patient, and both lists
of a patient-scoped question (``hybrid_lists``, what ``/search`` and ``ask`` run); and the build time
(``replace_documents`` in batches of about 1,000 chunks, as ingest writes).

    python bench/store/scoped_bm25.py --before /tmp/before/src --n 300000 --out /tmp/scopedbench
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(n: int, path: Path, queries: int, batch: int) -> dict:
    sys.path.insert(0, str(HERE))
    import numpy as np
    from edge_vs_lance import DIM, build, corpus, pct, vocabulary  # noqa: F401 (corpus: build's data)

    from clinqa.store.filters import Filters
    from clinqa.store.qdrant_edge import EdgeStore

    out = {"build": build("qdrant-edge", n, path, batch)}
    store = EdgeStore(path)
    rng = np.random.default_rng(7)
    words = vocabulary()
    qtexts = [" ".join(words[i] for i in rng.integers(30, 3000, size=int(rng.integers(3, 6)))) for _ in range(queries)]
    qv = rng.standard_normal((queries, DIM), dtype=np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    patients = max(1, n // 300)
    pf = [Filters(patient_id=f"P{int(rng.integers(patients)):05d}") for _ in range(queries)]
    routes = {
        "bm25_patient": lambda i: store.bm25_search(qtexts[i], 30, pf[i]),
        "bm25": lambda i: store.bm25_search(qtexts[i], 30, Filters()),
        "dense_patient": lambda i: store.dense_search(qv[i], 30, pf[i]),
        "hybrid_patient": lambda i: store.hybrid_lists(qv[i], qtexts[i], 30, 30, pf[i]),
    }
    for name, fn in routes.items():
        for i in range(queries):
            fn(i)
        times = []
        for i in range(queries):
            t = time.perf_counter()
            fn(i)
            times.append(time.perf_counter() - t)
        out[name] = pct(times)
    out["scoped"] = bool(getattr(store, "scoped_bm25", lambda: False)())
    store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the src/ folder of the code without the change")
    ap.add_argument("--n", type=int, default=300_000)
    ap.add_argument("--out", type=Path, default=Path("/tmp/scopedbench"))
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--child", nargs=1, metavar="N", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print("RESULT " + json.dumps(child(int(a.child[0]), a.out / "store", a.queries, a.batch)), flush=True)
        shutil.rmtree(a.out / "store", ignore_errors=True)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    results = {}
    for label, src in (("before", a.before.resolve()), ("after", HERE.parents[1] / "src")):
        env = {**os.environ, "PYTHONPATH": str(src)}
        cmd = [sys.executable, __file__, "--out", str(a.out / label), "--queries", str(a.queries),
               "--batch", str(a.batch), "--before", str(a.before), "--child", str(a.n)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        if proc.returncode or not line:
            raise SystemExit(f"{label} failed:\n{proc.stderr[-3000:]}")
        results[label] = json.loads(line[0][7:])
        print(label, json.dumps(results[label]), flush=True)
    (a.out / "results.json").write_text(json.dumps(results, indent=1))
    b, f = results["before"], results["after"]
    print(f"| route (n = {a.n:,}) | before p50 / p95 ms | after p50 / p95 ms | p95 after / before |")
    print("|---|---|---|---|")
    for r in ("bm25_patient", "bm25", "dense_patient", "hybrid_patient"):
        print(f"| {r} | {b[r]['p50']:.2f} / {b[r]['p95']:.2f} | {f[r]['p50']:.2f} / {f[r]['p95']:.2f} "
              f"| {f[r]['p95'] / b[r]['p95']:.2f}x |")
    print(f"| build (write + index) s | {b['build']['write_s'] + b['build']['index_s']:.1f} | "
          f"{f['build']['write_s'] + f['build']['index_s']:.1f} | |")


if __name__ == "__main__":
    main()
