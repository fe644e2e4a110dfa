"""A scripted pilot session against the real service, then the pilot report, the content-gap
report and a replay diff.

What it does (nothing here is mocked; the service runs in its own process over HTTP):

1. Builds (or reuses) the LiveQA-MedQuAD dev store: every judged passage plus 2,000 seeded
   distractors (``clinqa eval`` subset rule, embedding cache reused).
2. Starts ``clinqa serve`` on it with one API key, a fresh query log and a fresh answer cache.
3. Asks the real questions of the refusal dev set (``../shared/data/refusal``: TREC LiveQA 2017
   consumer questions labelled in_scope / thin / out_of_scope, plus Natural Questions general
   questions) through ``POST /ask``: all in_scope and thin ones and the first
   ``--out-of-scope`` out-of-scope ones, then repeats ``--repeats`` of them (a second clinician
   asking the same thing: cache hits).
4. Sends scripted feedback for 4 of every 5 answers (a pilot never gets feedback on all),
   from the NIST judgments of liveqa-medquad (grades 1-4 per passage):
   - in_scope: answered citing a passage graded >= 3 -> 1.0; citing grade 2 -> 0.6; else 0.2
     ``retrieval_miss``; refused -> 0.2 ``retrieval_miss`` (the corpus has the answer);
   - thin: answered citing grade >= 2 -> 0.6; refused -> 0.6 (a helpful refusal is acceptable);
     else 0.2 ``content_missing``;
   - out_of_scope: refused -> 1.0; answered -> 0.2 ``wrong_answer``.
5. Stops the service; runs ``clinqa report pilot``, ``clinqa report gaps`` and ``clinqa replay``
   with the published clinical-notes fusion weights (dense 0.3 / BM25 0.7) to show what would
   change.

Usage: ``python bench/pilot/run.py --output runs/pilot`` (about 5 minutes on 2 cores once the
store exists; building the store embeds ~6,600 chunks the first time).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
KEY = "pilot-key-not-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_store(subset: int) -> Path:
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.settings import load_settings

    pipe, _, _ = build_eval_pipeline(load_dataset(DATA / "liveqa-medquad"), load_settings(), subset, 0,
                                     progress=sys.stderr.isatty())
    return pipe.data_dir


def grades() -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in (DATA / "liveqa-medquad" / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, d, g = line.split("\t")
        out.setdefault(q, {})[d] = int(g)
    return out


def feedback_for(bucket: str, refused: bool, cited_grade: int) -> tuple[float, str | None]:
    """The scripted rating (see module docstring)."""
    if bucket == "out_of_scope":
        return (1.0, None) if refused else (0.2, "wrong_answer")
    if bucket == "in_scope":
        if refused:
            return 0.2, "retrieval_miss"
        return (1.0, None) if cited_grade >= 3 else (0.6, None) if cited_grade == 2 else (0.2, "retrieval_miss")
    if refused:
        return 0.6, None
    return (0.6, None) if cited_grade >= 2 else (0.2, "content_missing")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--subset", type=int, default=2000)
    ap.add_argument("--out-of-scope", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out: Path = args.output.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("querylog.sqlite", "querylog.sqlite-wal", "querylog.sqlite-shm"):
        (out / stale).unlink(missing_ok=True)
    store = build_store(args.subset)
    for stale in ("cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"):
        (store / stale).unlink(missing_ok=True)
    cfg = {"data_dir": str(store), "log": {"path": str(out / "querylog.sqlite")}, "cache": {"backend": "sqlite"},
           "service": {"api_keys": [{"name": "pilot-clinician", "key": "env:CLINQA_PILOT_KEY", "patients": []}]}}
    (out / "pilot.yaml").write_text(yaml.safe_dump(cfg))
    alt = {**cfg, "retrieval": {"dense_weight": 0.3, "bm25_weight": 0.7}}
    (out / "replay-bm25-heavy.yaml").write_text(yaml.safe_dump(alt))

    queries = [json.loads(x) for x in (DATA / "refusal" / "queries.jsonl").read_text().splitlines() if x.strip()]
    chosen = [q for q in queries if q["metadata"]["bucket"] in ("in_scope", "thin")]
    chosen += [q for q in queries if q["metadata"]["bucket"] == "out_of_scope"][: args.out_of_scope]
    chosen += chosen[: args.repeats]
    qrels = grades()

    port = free_port()
    # the config names the store; $CLINQA_DATA_DIR would override it
    env = {k: v for k, v in os.environ.items() if k != "CLINQA_DATA_DIR"}
    env.update({"CLINQA_PILOT_KEY": KEY, "HF_HUB_OFFLINE": "1"})
    clinqa = str(Path(sys.executable).with_name("clinqa"))
    server = subprocess.Popen([clinqa, "serve", "--config", str(out / "pilot.yaml"), "--port", str(port)], env=env,
                              stdout=(out / "serve.log").open("w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    rows = []
    try:
        with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=120) as http:
            for _ in range(600):
                try:
                    if http.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.5)
            else:
                raise SystemExit(f"the service did not start; see {out / 'serve.log'}")
            for i, q in enumerate(chosen):
                bucket = q["metadata"]["bucket"]
                t0 = time.perf_counter()
                r = http.post("/ask", json={"question": q["text"]})
                wall = (time.perf_counter() - t0) * 1e3
                r.raise_for_status()
                ans = r.json()
                gold = qrels.get(q["_id"], {})
                cited = max((gold.get(c["doc_id"], 0) for c in ans["citations"]), default=0)
                score, category = feedback_for(bucket, ans["refused"], cited)
                rated = i % 5 != 4
                if rated:
                    fb = http.post("/feedback", json={"query_id": ans["query_id"], "score": score,
                                                      "category": category, "comment": f"scripted ({bucket})"})
                    fb.raise_for_status()
                rows.append({"qid": q["_id"], "bucket": bucket, "refused": ans["refused"], "cited_grade": cited,
                             "cache_hit": ans.get("cache_hit"), "wall_ms": round(wall, 1),
                             "feedback": score if rated else None, "category": category if rated else None})
                print(f"{i + 1:>3}/{len(chosen)} {bucket:<12} {'refused ' if ans['refused'] else 'answered'} "
                      f"grade {cited} {wall:7.0f} ms{' (cache)' if ans.get('cache_hit') else ''}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    (out / "session.json").write_text(json.dumps(rows, indent=2))
    cfg_path, log = str(out / "pilot.yaml"), str(out / "querylog.sqlite")
    for step in (["report", "pilot", "--config", cfg_path, "--output", str(out)],
                 ["report", "gaps", "--config", cfg_path, "--output", str(out)],
                 ["replay", "--config", str(out / "replay-bm25-heavy.yaml"), "--log", log, "--output",
                  str(out / "replay")]):
        subprocess.run([clinqa, *step], env=env, check=True)


if __name__ == "__main__":
    main()
