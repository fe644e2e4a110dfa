"""Notes benchmark: patient-scoped questions over SYNTHETIC longitudinal notes.

    python bench/notes/generate.py --patients 50 --seed 0 --output /tmp/notes50
    python bench/notes/run.py /tmp/notes50 --data-dir /tmp/notes50-store [--reranker DIR] [--output FILE.json]
        [--no-time] [--no-fold]   (ablations)

For every question of ``questions.jsonl`` (each belongs to one patient and names its gold
notes), runs ``Pipeline.search`` and ``Pipeline.ask`` scoped to that patient and reports:

- Hit@1 / Hit@5 / MRR@10 of the gold notes at note level (a note's rank is its best chunk's);
- answered share and the share of answers citing a gold note;
- per question kind (event_date, in_year, current, since_year);
- copied-forward folding: chunks folded per query, citations listing other notes;
- isolation: chunks of another patient seen on any route (search lists, citations, refusal
  hints) - must be 0;
- latency p50 / p95 of ``ask``.

The notes are synthetic (bench/notes/generate.py); nothing here is patient data.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from clinqa.pipeline import Pipeline
from clinqa.settings import load_settings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notes_dir", type=Path)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--reranker", default=None)
    ap.add_argument("--output", type=Path, default=None)
    ap.add_argument("--no-time", action="store_true", help="ablation: ignore time words in the questions")
    ap.add_argument("--no-fold", action="store_true", help="ablation: do not fold copied-forward text")
    a = ap.parse_args()
    settings = load_settings(None, data_dir=a.data_dir)
    settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={
        "parse_time": not a.no_time, "copy_threshold": None if a.no_fold else settings.retrieval.copy_threshold})})
    if a.reranker:
        settings = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"model": a.reranker})})
    pipe = Pipeline(settings)
    t0 = time.perf_counter()
    rep = pipe.ingest([a.notes_dir / "notes.jsonl"], progress=False)
    ingest_s = time.perf_counter() - t0
    questions = [json.loads(line) for line in (a.notes_dir / "questions.jsonl").open()]
    patients = {json.loads(line)["patient_id"] for line in (a.notes_dir / "notes.jsonl").open()}
    per_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
    leaks = folded = also = 0
    lat: list[float] = []
    for q in questions:
        pid = q["patient_id"]
        gold = {f"note:{pid}:{n}" for n in q["gold_note_ids"]}
        f = pipe.filters(patient_id=pid)
        f2, intent = pipe.time_intent(q["text"], f)
        res = pipe.search(q["text"], f2, k=10, recency=intent.recency)
        docs = list(dict.fromkeys(h.chunk.doc_id for h in res.hits))
        rank = next((i for i, d in enumerate(docs, 1) if d in gold), None)
        t1 = time.perf_counter()
        ans = pipe.ask(q["text"], f)
        lat.append((time.perf_counter() - t1) * 1e3)
        seen = [h.chunk.patient_id for h in res.hits + res.dense + res.bm25]
        leaks += sum(p != pid for p in seen)
        text = json.dumps(ans.to_dict(), default=str)
        leaks += sum(f"note:{o}:" in text for o in patients - {pid})
        folded += sum(len(h.duplicates) for h in res.hits)
        also += sum(1 for c in ans.citations if c.also_in)
        per_kind[q["kind"]].append({
            "hit1": float(rank == 1), "hit5": float(rank is not None and rank <= 5),
            "mrr10": 1.0 / rank if rank else 0.0, "answered": float(not ans.refused),
            "cites_gold": float(bool(gold & {c.doc_id for c in ans.citations}))})

    def agg(rows: list[dict[str, float]]) -> dict[str, float]:
        return {k: round(statistics.mean(r[k] for r in rows), 3) for k in rows[0]} | {"n": len(rows)}

    out = {
        "notes": rep.documents + rep.unchanged, "chunks": pipe.store.count(), "ingest_s": round(ingest_s, 1),
        "questions": len(questions), "reranker": a.reranker, "time_intent": not a.no_time,
        "fold_copies": not a.no_fold,
        "all": agg([r for rows in per_kind.values() for r in rows]),
        "by_kind": {k: agg(v) for k, v in sorted(per_kind.items())},
        "isolation_leaks": leaks, "folded_copies_per_query": round(folded / len(questions), 2),
        "citations_listing_copies": also,
        "ask_ms": {"p50": round(statistics.median(lat)), "p95": round(sorted(lat)[int(0.95 * (len(lat) - 1))])},
    }
    print(json.dumps(out, indent=2))
    if a.output:
        a.output.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
