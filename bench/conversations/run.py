"""Follow-ups in conversations (issue 40): each follow-up of the blind conversation set asked three ways on one
store: as typed alone (what clinqa did before conversations), as a turn of a conversation (resolved into a
standalone question by :mod:`clinqa.question.followup`), and as the writer's own standalone rewrite (the
ceiling). Per category (answerable, not covered, topic switch) and the standalone question itself.

    python bench/conversations/run.py bench/conversations/dev.jsonl --data-dir /tmp/demo --output /tmp/conv_dev.json

Measured:

- answerable follow-ups: every fact in the answer text (``clinqa.evaluation.facts.contains``), and refused;
- not-covered follow-ups: refused;
- topic switches: searched as typed, less an announcement such as "unrelated -" (nothing of the earlier topic
  inherited); answered exactly as the same question asked alone (same decision and answer text; an announcement
  left in the question alone can change it); every fact;
- the standalone question of answerable and not-covered follow-ups that change a slot: the earlier topic
  present (a topic word of the first turn: a content word that is not a frame word), the new slot value
  present, and the replaced earlier value absent (when the earlier question typed it); the same checks on the
  earlier question glued to the follow-up, which keeps the old value and so fails the last;
- the added time per turn (reading the follow-up) and the bytes a conversation takes on disk.

Rates carry a 95% bootstrap interval (2,000 resamples of the turns, seed 0).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from clinqa.conversation import ask_turn, resolve_turn
from clinqa.evaluation.facts import contains, normalize
from clinqa.logs.conversations import ConversationStore
from clinqa.pipeline import Pipeline
from clinqa.question.followup import FRAME_WORDS
from clinqa.settings import Settings
from clinqa.text.stopwords import QUESTION_STOP_WORDS


def rate(values: list[bool], seed: int = 0) -> dict[str, object]:
    """``{"value", "ci95", "n"}`` of 0/1 values (bootstrap percentile interval)."""
    if not values:
        return {"value": None, "ci95": None, "n": 0}
    a = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = a[rng.integers(0, len(a), (2000, len(a)))].mean(axis=1)
    return {"value": round(float(a.mean()), 3), "ci95": [round(float(np.percentile(means, 2.5)), 3),
                                                        round(float(np.percentile(means, 97.5)), 3)], "n": len(a)}


def topic_words(question: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][\w-]*", question)
            if len(w) >= 3 and w.lower() not in QUESTION_STOP_WORDS and w.lower() not in FRAME_WORDS}


def slot_checks(first: str, earlier: str, standalone: str, turn: dict) -> dict[str, bool | None]:
    """The standalone question's checks (module docstring); None where a check does not apply."""
    low = normalize(standalone)
    topic = topic_words(first)
    new_words = [w for w in re.findall(r"[a-z0-9.]+", normalize(turn.get("slot_value", ""))) if w not in
                 QUESTION_STOP_WORDS and len(w) >= 2]
    old = turn.get("old_value", "")
    old_typed = bool(old) and normalize(old) in normalize(earlier)
    return {"topic_present": any(w in low for w in topic) if topic else None,
            "new_value_present": all(w in low for w in new_words) if new_words else None,
            "old_value_absent": (normalize(old) not in low) if old_typed else None}


def all_facts(answer, facts: list[str]) -> bool:
    return not answer.refused and all(contains(answer.answer, [f]) for f in facts)


def run(path: Path, data_dir: Path) -> dict[str, object]:
    pipe = Pipeline(Settings(data_dir=data_dir))
    pipe.warm_up()
    filters = pipe.filters()
    convs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows: list[dict[str, object]] = []
    resolve_ms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = ConversationStore(Path(tmp) / "conversations.sqlite")
        for c in convs:
            conv = store.start("bench", None, c["id"])
            typed: list[str] = []
            for i, t in enumerate(c["turns"]):
                t0 = time.perf_counter()
                resolve_turn(pipe, conv, t["question"])  # timed alone: what a turn adds before the search
                resolve_ms.append((time.perf_counter() - t0) * 1000)
                earlier_standalone = conv.turns[-1].standalone if conv.turns else ""
                answer, _ = ask_turn(pipe, store, conv, t["question"], filters)
                if i == 0:
                    typed.append(t["question"])
                    continue
                alone = pipe.ask(t["question"], filters)
                ceiling = pipe.ask(t["standalone"], filters)
                row: dict[str, object] = {
                    "id": f"{c['id']}/{i}", "category": t["category"], "question": t["question"],
                    "standalone": answer.standalone_question, "writer_standalone": t["standalone"],
                    "kind": conv.turns[-1].kind,
                    "refused": {"alone": alone.refused, "resolved": answer.refused, "ceiling": ceiling.refused},
                }
                if t["category"] != "not_covered":
                    row["all_facts"] = {"alone": all_facts(alone, t["facts"]),
                                        "resolved": all_facts(answer, t["facts"]),
                                        "ceiling": all_facts(ceiling, t["facts"])}
                if t["category"] == "topic_switch":
                    row["same_as_alone"] = (alone.refused == answer.refused and alone.answer == answer.answer)
                    row["not_inherited"] = conv.turns[-1].kind == "switch"  # searched as typed, less "unrelated -"
                if t["category"] in ("answerable", "not_covered") and t.get("replaces"):
                    glued = f"{typed[-1]} {t['question']}"
                    row["checks"] = slot_checks(c["turns"][0]["question"], typed[-1], answer.standalone_question, t)
                    row["checks_glued"] = slot_checks(c["turns"][0]["question"], typed[-1], glued, t)
                    row["earlier_standalone"] = earlier_standalone
                typed.append(t["question"])
                rows.append(row)
        size = (Path(tmp) / "conversations.sqlite").stat().st_size
        wal = Path(tmp) / "conversations.sqlite-wal"
        size += wal.stat().st_size if wal.exists() else 0

    def pick(cat: str, key: str, mode: str) -> list[bool]:
        return [bool(r[key][mode]) for r in rows if r["category"] == cat and key in r]  # type: ignore[index]

    def check(name: str, which: str = "checks") -> list[bool]:
        return [bool(r[which][name]) for r in rows if which in r and r[which][name] is not None]  # type: ignore[index]

    summary: dict[str, object] = {"conversations": len(convs), "follow_ups": len(rows)}
    for mode in ("alone", "resolved", "ceiling"):
        summary[mode] = {
            "answerable_all_facts": rate(pick("answerable", "all_facts", mode)),
            "answerable_refused": rate(pick("answerable", "refused", mode)),
            "not_covered_refused": rate(pick("not_covered", "refused", mode)),
            "topic_switch_all_facts": rate(pick("topic_switch", "all_facts", mode)),
        }
    summary["topic_switch_same_as_alone"] = rate([bool(r["same_as_alone"]) for r in rows if "same_as_alone" in r])
    summary["topic_switch_not_inherited"] = rate([bool(r["not_inherited"]) for r in rows if "not_inherited" in r])
    summary["standalone"] = {k: rate(check(k)) for k in ("topic_present", "new_value_present", "old_value_absent")}
    summary["glued"] = {k: rate(check(k, "checks_glued")) for k in ("topic_present", "new_value_present",
                                                                     "old_value_absent")}
    summary["resolve_ms_p50_p95"] = [round(float(np.percentile(resolve_ms, 50)), 1),
                                     round(float(np.percentile(resolve_ms, 95)), 1)]
    summary["bytes_per_conversation"] = round(size / max(1, len(convs)))
    return {"set": str(path), "summary": summary, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", type=Path)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--output", type=Path, required=True)
    args = ap.parse_args()
    out = run(args.set, args.data_dir)
    args.output.write_text(json.dumps(out, indent=2))
    print(json.dumps(out["summary"], indent=2))


if __name__ == "__main__":
    main()
