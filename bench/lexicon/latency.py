"""What the lexicon (issue 49) costs per question: ``ask`` with ``answer.lexicon`` on and off, interleaved on one
warm store so the machine's load falls on both alike.

    python bench/lexicon/latency.py --data-dir /tmp/demo bench/answers/vocab_dev.jsonl bench/answers/blind_dev.jsonl

Prints p50 / p95 / mean of the wall time of ``Pipeline.ask`` (milliseconds) for each setting, after one warm-up
question per setting (model load, the lexicon's resources read once per process: WordNet and the cached drug
names), and the one-time load of the resources measured in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from clinqa.evaluation.facts import load_questions
from clinqa.pipeline import Pipeline
from clinqa.settings import load_settings


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--output", type=Path)
    a = ap.parse_args()
    questions = [q.question for path in a.sets for q in load_questions(path)]
    base = load_settings()
    pipes = {}
    for on in (True, False):
        s = base.model_copy(update={"data_dir": a.data_dir,
                                    "answer": base.answer.model_copy(update={"lexicon": on})})
        pipes[on] = Pipeline(s)
        pipes[on].ask(questions[0])  # warm-up
    times: dict[bool, list[float]] = {True: [], False: []}
    for q in questions:
        for on in (True, False):
            t0 = time.perf_counter()
            pipes[on].ask(q)
            times[on].append((time.perf_counter() - t0) * 1e3)
    load = subprocess.run([sys.executable, "-c", "import time; t=time.perf_counter(); "
                           "from clinqa.lexicon.wordnet import wordnet; wordnet(); "
                           "from clinqa.lexicon.drugs import drug_names; drug_names(); "
                           "print((time.perf_counter()-t)*1e3)"], capture_output=True, text=True, check=True)
    out = {"questions": len(questions), "resources_load_ms": round(float(load.stdout.strip()), 1)}
    for on in (True, False):
        xs = times[on]
        out["lexicon" if on else "no_lexicon"] = {"p50_ms": round(pct(xs, 0.5), 1), "p95_ms": round(pct(xs, 0.95), 1),
                                                  "mean_ms": round(statistics.mean(xs), 1)}
    print(json.dumps(out, indent=1))
    if a.output:
        a.output.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
