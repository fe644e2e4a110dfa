"""Identifier screen on the hand-made set: precision, recall and F1 per type and overall.

    python bench/identifiers/run.py [--data tests/answer/data/identifiers.jsonl] [--json]

Every sentence is screened with no evidence (so everything found is redacted). A gold identifier
counts as found when a detected span overlaps it and has a type of the same family (MRN and
US_SSN form one family, "ID_NUMBER"; every other type is its own); a detection counts as correct
when it overlaps a gold identifier of the same family. Per-type recall is by gold type,
per-type precision by detected type. Also prints the sentences with false positives, the
missed identifiers, the engine load time and the screen latency per answer after warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "answer" / "data" / "identifiers.jsonl"

FAMILY = {"MRN": "ID_NUMBER", "US_SSN": "ID_NUMBER"}


def family(kind: str) -> str:
    """The type family used for matching (MRN and US_SSN share one; others are their own)."""
    return FAMILY.get(kind, kind)


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """Rows of the JSONL set: ``{"text", "identifiers": [{"type", "text"}]}``."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _gold_spans(row: dict[str, Any]) -> list[tuple[str, int, int]]:
    spans = []
    for g in row["identifiers"]:
        start = row["text"].index(g["text"])
        spans.append((g["type"], start, start + len(g["text"])))
    return spans


def _overlap(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    return family(a[0]) == family(b[0]) and a[1] < b[2] and b[1] < a[2]


def _prf(tp_p: int, n_pred: int, tp_r: int, n_gold: int) -> dict[str, float]:
    p = tp_p / n_pred if n_pred else 1.0
    r = tp_r / n_gold if n_gold else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(f, 3), "n_gold": n_gold, "n_pred": n_pred}


def evaluate(rows: list[dict[str, Any]], screen: Any = None) -> dict[str, Any]:
    """Score ``screen`` (default :func:`clinqa.answer.identifiers.screen_identifiers`) on ``rows``.

    Returns ``{"overall": {precision, recall, f1, n_gold, n_pred}, "per_type": {type: ...},
    "false_positives": [{"text", "found": [(type, span)]}], "missed": [{"text", "type", "gold"}]}``.
    """
    if screen is None:
        from clinqa.answer.identifiers import screen_identifiers as screen
    counts: dict[str, list[int]] = {}  # type -> [tp_pred, n_pred, tp_gold, n_gold]
    false_positives, missed = [], []
    for row in rows:
        gold = _gold_spans(row)
        found = [(i.type, i.start, i.end) for i in screen(row["text"], []).found]
        for g in gold:
            c = counts.setdefault(g[0], [0, 0, 0, 0])
            c[3] += 1
            if any(_overlap(g, f) for f in found):
                c[2] += 1
            else:
                missed.append({"text": row["text"], "type": g[0], "gold": row["text"][g[1]:g[2]]})
        wrong = []
        for f in found:
            c = counts.setdefault(f[0], [0, 0, 0, 0])
            c[1] += 1
            if any(_overlap(f, g) for g in gold):
                c[0] += 1
            else:
                wrong.append((f[0], row["text"][f[1]:f[2]]))
        if wrong:
            false_positives.append({"text": row["text"], "found": wrong})
    total = [sum(c[i] for c in counts.values()) for i in range(4)]
    return {"overall": _prf(*total), "per_type": {k: _prf(*c) for k, c in sorted(counts.items())},
            "false_positives": false_positives, "missed": missed}


def latency(rows: list[dict[str, Any]], per_answer: int = 5, repeats: int = 3) -> dict[str, float]:
    """Milliseconds to screen one answer (``per_answer`` consecutive sentences joined), after a
    warm-up pass; median and max over ``repeats`` passes."""
    from clinqa.answer.identifiers import screen_identifiers

    texts = [r["text"] for r in rows]
    answers = [" ".join(texts[i:i + per_answer]) for i in range(0, len(texts), per_answer)]
    for a in answers[:2]:
        screen_identifiers(a, [])
    times = []
    for _ in range(repeats):
        for a in answers:
            t0 = time.perf_counter()
            screen_identifiers(a, [a[: len(a) // 2]])
            times.append((time.perf_counter() - t0) * 1e3)
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
            "answers": len(answers), "mean_chars": round(statistics.mean(len(a) for a in answers))}


def main(argv: list[str] | None = None) -> int:
    """Print the report (or JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    from clinqa.answer.identifiers import get_analyzer

    rows = load(args.data)
    t0 = time.perf_counter()
    get_analyzer()
    load_s = time.perf_counter() - t0
    report = evaluate(rows)
    report["engine_load_s"] = round(load_s, 2)
    report["latency"] = latency(rows)
    report["sentences"] = len(rows)
    report["with_identifiers"] = sum(bool(r["identifiers"]) for r in rows)
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    print(f"{len(rows)} sentences ({report['with_identifiers']} with identifiers); engine load {load_s:.1f} s "
          "(imports + spaCy model)")
    print(f"{'type':14} {'P':>6} {'R':>6} {'F1':>6} {'gold':>5} {'pred':>5}")
    for kind, m in [*report["per_type"].items(), ("OVERALL", report["overall"])]:
        print(f"{kind:14} {m['precision']:6.3f} {m['recall']:6.3f} {m['f1']:6.3f} {m['n_gold']:5d} {m['n_pred']:5d}")
    lat = report["latency"]
    print(f"\nlatency per answer ({lat['answers']} answers of ~{lat['mean_chars']} chars, after warm-up): "
          f"median {lat['median_ms']} ms, max {lat['max_ms']} ms")
    print(f"\nfalse positives ({len(report['false_positives'])} sentences):")
    for fp in report["false_positives"]:
        print(f"  {fp['found']}  <- {fp['text']}")
    print(f"\nmissed ({len(report['missed'])}):")
    for m in report["missed"]:
        print(f"  {m['type']} {m['gold']!r}  <- {m['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
