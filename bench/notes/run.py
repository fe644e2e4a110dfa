"""Notes benchmark: patient-scoped questions over SYNTHETIC longitudinal notes.

    python bench/notes/generate.py --patients 50 --seed 0 --output /tmp/notes50
    python bench/notes/run.py /tmp/notes50 --data-dir /tmp/notes50-store [--reranker DIR] [--output FILE.json]
        [--no-time] [--no-fold] [--no-expand]   (ablations)   [--no-repro]

For every question of ``questions.jsonl`` (each belongs to one patient and names its gold
notes; ``"answerable": false`` questions name none) and of the fixed reproductions
``bench/notes/repro_questions.jsonl`` (hand-made patients P-A, P-B, P-C of ``bench/notes/repro.jsonl``,
the three cases of issue 19 plus three unanswerable ones; ingested into the same store), runs
``Pipeline.search`` and ``Pipeline.ask`` scoped to that patient and reports:

- Hit@1 / Hit@5 / MRR@10 of the gold notes at note level (a note's rank is its best chunk's),
  answerable questions only;
- answered-when-answerable (``answered``) and the share of answers citing a gold note
  (``cites_gold``); refused-when-unanswerable (``refused``);
- per question kind (event_date, in_year, current, since_year: the notes' own words; lay;
  drug_class; unanswerable), per group (own_words, lay, drug_class, unanswerable) and per form;
- copied-forward folding: chunks folded per query, citations listing other notes;
- isolation: chunks of another patient seen on any route (search lists, citations, refusal
  hints), in all and per kind - must be 0;
- the synonym expansion of each question (``retrieval.expand_synonyms``; ``--no-expand`` turns it off);
- latency p50 / p95 of ``ask``.

``all`` and ``by_kind`` keep their earlier meaning for answerable questions (``all``: every
answerable question); unanswerable kinds report ``refused``, ``answered`` and ``leaks``.
The notes are synthetic (bench/notes/generate.py); nothing here is patient data.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from clinqa.pipeline import Pipeline
from clinqa.settings import load_settings

HERE = Path(__file__).resolve().parent


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSONL file; a bad line raises ``SystemExit`` naming the file and line."""
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}: line {i}: invalid JSON ({exc})") from exc
    return out


def evaluate(pipe: Pipeline, q: dict[str, Any], patients: set[str]) -> dict[str, Any]:
    """One question: its search and ask scoped to its patient, as a row of metrics (answerable:
    hit1, hit5, mrr10, answered, cites_gold; unanswerable: refused, answered; both: leaks, folded,
    also_in, ask_ms) plus what was asked and answered."""
    pid = q["patient_id"]
    gold = {f"note:{pid}:{n}" for n in q["gold_note_ids"]}
    answerable = q.get("answerable", bool(gold))
    f = pipe.filters(patient_id=pid)
    f2, intent = pipe.time_intent(q["text"], f)
    res = pipe.search(q["text"], f2, k=10, recency=intent.recency)
    docs = list(dict.fromkeys(h.chunk.doc_id for h in res.hits))
    rank = next((i for i, d in enumerate(docs, 1) if d in gold), None)
    t1 = time.perf_counter()
    ans = pipe.ask(q["text"], f)
    ms = (time.perf_counter() - t1) * 1e3
    seen = [h.chunk.patient_id for h in res.hits + res.dense + res.bm25]
    seen += [d.patient_id for h in res.hits for d in h.duplicates]
    text = json.dumps(ans.to_dict(), default=str)
    leaks = sum(p != pid for p in seen) + sum(f"note:{o}:" in text for o in patients - {pid})
    row: dict[str, Any] = {"leaks": leaks, "folded": sum(len(h.duplicates) for h in res.hits),
                           "also_in": sum(1 for c in ans.citations if c.also_in), "ask_ms": ms}
    if answerable:
        row |= {"hit1": float(rank == 1), "hit5": float(rank is not None and rank <= 5),
                "mrr10": 1.0 / rank if rank else 0.0, "answered": float(not ans.refused),
                "cites_gold": float(bool(gold & {c.doc_id for c in ans.citations}))}
    else:
        row |= {"refused": float(ans.refused), "answered": float(not ans.refused)}
    row["detail"] = {"_id": q["_id"], "patient_id": pid, "text": q["text"], "kind": q["kind"],
                     "answerable": answerable, "gold": sorted(gold), "rank": rank, "refused": ans.refused,
                     "reason": ans.reason, "cited": [c.doc_id for c in ans.citations],
                     "gate": {k: (ans.gate.to_dict() if ans.gate is not None else {}).get(k)
                              for k in ("signal", "threshold", "kind")},
                     "missing_terms": ans.missing_terms,
                     "query_expansion": ans.to_dict().get("query_expansion", {})}
    return row


ANSWERABLE_KEYS = ("hit1", "hit5", "mrr10", "answered", "cites_gold")
UNANSWERABLE_KEYS = ("refused", "answered")


def agg(rows: list[dict[str, Any]], leaks: bool = True) -> dict[str, Any]:
    """Means of the metric keys the rows share (3 decimals), ``n``, and the summed ``leaks``."""
    keys = ANSWERABLE_KEYS if "hit1" in rows[0] else UNANSWERABLE_KEYS
    out: dict[str, Any] = {k: round(statistics.mean(r[k] for r in rows), 3) for k in keys} | {"n": len(rows)}
    if leaks:
        out["leaks"] = sum(r["leaks"] for r in rows)
    return out


def summary(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Answered-when-answerable, refused-when-unanswerable, Hit@1/5, cites-gold and leaks of
    ``(question, row)`` pairs, by kind, group and form."""
    ans = [r for q, r in rows if "hit1" in r]
    una = [r for q, r in rows if "refused" in r]
    out: dict[str, Any] = {"questions": len(rows), "answerable": len(ans), "unanswerable": len(una),
                           "answered_when_answerable": round(statistics.mean(r["answered"] for r in ans), 3)
                           if ans else None,
                           "refused_when_unanswerable": round(statistics.mean(r["refused"] for r in una), 3)
                           if una else None,
                           "leaks": sum(r["leaks"] for _, r in rows)}
    for key in ("kind", "group", "form"):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for q, r in rows:
            groups[str(q.get(key) or q["kind"])].append(r)
        out[f"by_{key}"] = {k: agg(v) for k, v in sorted(groups.items())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notes_dir", type=Path)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--config", type=Path, default=None, help="settings file or preset name (clinqa ask --config)")
    ap.add_argument("--reranker", default=None)
    ap.add_argument("--output", type=Path, default=None)
    ap.add_argument("--no-time", action="store_true", help="ablation: ignore time words in the questions")
    ap.add_argument("--no-fold", action="store_true", help="ablation: do not fold copied-forward text")
    ap.add_argument("--no-expand", action="store_true", help="ablation: no synonym expansion of the BM25 query")
    ap.add_argument("--no-repro", action="store_true", help="leave out the fixed reproductions (bench/notes/repro*)")
    ap.add_argument("--details", type=Path, default=None, help="write one JSON line per question (what was asked, "
                    "ranked, cited, refused)")
    a = ap.parse_args()
    settings = load_settings(a.config, data_dir=a.data_dir)
    settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={
        "parse_time": not a.no_time, "copy_threshold": None if a.no_fold else settings.retrieval.copy_threshold,
        "expand_synonyms": not a.no_expand})})
    if a.reranker:
        settings = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"model": a.reranker})})
    pipe = Pipeline(settings)
    sources = [a.notes_dir / "notes.jsonl"] + ([] if a.no_repro else [HERE / "repro.jsonl"])
    t0 = time.perf_counter()
    rep = pipe.ingest(sources, progress=False)
    ingest_s = time.perf_counter() - t0
    if rep.failed:
        raise SystemExit(f"ingest failed: {rep.failed}")
    questions = read_jsonl(a.notes_dir / "questions.jsonl")
    repro = [] if a.no_repro else read_jsonl(HERE / "repro_questions.jsonl")
    patients = {n["patient_id"] for src in sources for n in read_jsonl(src)}
    rows = [(q, evaluate(pipe, q, patients)) for q in questions]
    repro_rows = [(q, evaluate(pipe, q, patients)) for q in repro]
    every = [r for _, r in rows + repro_rows]
    answerable = [r for _, r in rows if "hit1" in r]
    per_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q, r in rows:
        per_kind[q["kind"]].append(r)
    lat = [r["ask_ms"] for r in every]
    main_summary = summary(rows)
    out = {
        "notes": rep.documents + rep.unchanged, "chunks": pipe.store.count(), "ingest_s": round(ingest_s, 1),
        "questions": len(questions), "reranker": a.reranker, "time_intent": not a.no_time,
        "fold_copies": not a.no_fold, "expand_synonyms": not a.no_expand,
        "all": agg(answerable, leaks=False),
        "by_kind": {k: agg(v) for k, v in sorted(per_kind.items())},
        "isolation_leaks": sum(r["leaks"] for r in every),
        "folded_copies_per_query": round(sum(r["folded"] for _, r in rows) / len(questions), 2),
        "citations_listing_copies": sum(r["also_in"] for _, r in rows),
        "ask_ms": {"p50": round(statistics.median(lat)), "p95": round(sorted(lat)[int(0.95 * (len(lat) - 1))])},
        "answered_when_answerable": main_summary["answered_when_answerable"],
        "refused_when_unanswerable": main_summary["refused_when_unanswerable"],
        "by_group": main_summary["by_group"], "by_form": main_summary["by_form"],
        "repro": summary(repro_rows) | {"questions_detail": [r["detail"] for _, r in repro_rows]} if repro else None,
    }
    print(json.dumps(out, indent=2))
    if a.output:
        a.output.write_text(json.dumps(out, indent=2))
    if a.details:
        with a.details.open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(r["detail"]) + "\n" for r in every)


if __name__ == "__main__":
    main()
