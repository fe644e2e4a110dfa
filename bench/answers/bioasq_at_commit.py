"""BioASQ exact-answer containment of an *older* clinqa, scored by today's harness.

``clinqa eval answers --bioasq`` did not exist at every commit an issue compares against. This script
asks every factoid/list question of BioASQ dev with whatever clinqa is importable (point ``PYTHONPATH``
at an older checkout's ``src``) and dumps what the scorer needs; ``score`` then turns the dump into an
``answers.json`` with today's :func:`clinqa.evaluation.facts.score_exact`, usable as ``--baseline``.

    git worktree add /tmp/wt-old 2e6a24b
    PYTHONPATH=/tmp/wt-old/src python bench/answers/bioasq_at_commit.py dump ../shared/data/bioasq \\
        --data-dir /tmp/cq --output /tmp/old.json
    python bench/answers/bioasq_at_commit.py score ../shared/data/bioasq /tmp/old.json --output runs/bq-old
    clinqa eval answers --bioasq ../shared/data/bioasq --data-dir /tmp/cq --output runs/bq-now --baseline runs/bq-old

``dump`` uses only APIs that older commits have (``load_dataset``, ``build_eval_pipeline``,
``Pipeline.ask``); the full corpus is ingested into that code's own evaluation store (the embedding
cache in ``--data-dir`` is shared, so only changed chunks are embedded).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from types import SimpleNamespace


def dump(dataset: Path, data_dir: Path, output: Path) -> None:
    """Ask every factoid/list question that has an exact answer (extractive, no language model)."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.settings import Settings

    ds = load_dataset(dataset)
    pipe, _, _ = build_eval_pipeline(ds, Settings(data_dir=data_dir), None, 0, progress=False)
    out = {}
    for q in ds.queries:
        md = q.metadata or {}
        if md.get("type") not in ("factoid", "list") or not md.get("exact_answer"):
            continue
        t = time.perf_counter()
        a = pipe.ask(q.text, generate=False)
        out[q.qid] = {"refused": a.refused, "answer": a.answer, "ms": (time.perf_counter() - t) * 1e3,
                      "citations": [{"quote": c.quote, "doc_id": c.doc_id} for c in a.citations]}
    output.write_text(json.dumps(out))
    print(f"{len(out)} questions -> {output}")


def score(dataset: Path, dumped: Path, output: Path) -> None:
    """``answers.json`` of the dump, scored as ``clinqa eval answers --bioasq`` scores (today's code)."""
    from clinqa.evaluation import facts as F
    from clinqa.evaluation.datasets import load_dataset

    old = json.loads(dumped.read_text())
    rows = []
    for q in F.exact_questions(load_dataset(dataset)):
        if q.qid not in old:
            continue
        o = old[q.qid]
        answer = SimpleNamespace(refused=o["refused"], answer=o["answer"], timings_ms={"total": o["ms"]},
                                 citations=[SimpleNamespace(**c) for c in o["citations"]])
        rows.append(F.score_exact(q, answer))  # type: ignore[arg-type]
    output.mkdir(parents=True, exist_ok=True)
    body = {"benchmark": "bioasq", "dataset": str(dataset), "summary": F.summarize_exact(rows), "rows": rows}
    (output / "answers.json").write_text(json.dumps(body, indent=2, ensure_ascii=False))
    print(F.markdown(body))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("dataset", type=Path)
    d.add_argument("--data-dir", type=Path, required=True)
    d.add_argument("--output", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("dataset", type=Path)
    s.add_argument("dumped", type=Path)
    s.add_argument("--output", type=Path, required=True)
    a = ap.parse_args()
    if a.cmd == "dump":
        dump(a.dataset, a.data_dir, a.output)
    else:
        score(a.dataset, a.dumped, a.output)


if __name__ == "__main__":
    main()
