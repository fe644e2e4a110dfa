"""Sweep the learned decision's thresholds offline, on the rows of one `clinqa eval answers` run (issue 39).

Run the question set once with the key-term refusals off and the learned signals on, so every signal is
recorded and nothing is refused for it:

    clinqa eval answers bench/answers/blind_dev.jsonl --data-dir /tmp/demo --output runs/sig_dev \\
        --set answer.key_terms=warn --set answer.decisive_words=model \\
        [--set answer.answer_model=MODEL --set answer.answer_model_threshold=0]

then ``python bench/answerability/learned.py runs/sig_dev/answers.json`` prints, per threshold pair, what the
decision "refuse when some missing term's decisive probability reaches T_word, or the answer model's best
score is below T_model" would give: every key fact quoted, answerable refused, uncovered refused. A refusal the
run made for another reason (the gate, no quote) stays a refusal. Choose on the dev half only; the held-out
half is then run end to end with the chosen values (the simulation ignores the context choice the
classifier also steers, so the end-to-end figure is the one reported).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def simulate(rows: list[dict], t_word: float | None, t_model: float | None) -> dict[str, float]:
    """The three rates under the thresholds (None: that signal off)."""
    ans = [r for r in rows if r["doc_id"]]
    unc = [r for r in rows if not r["doc_id"]]

    def refused(r: dict) -> bool:
        if r["refused"]:
            return True
        probs = r.get("decisive_probability") or {}
        if t_word is not None and probs and max(probs.values()) >= t_word:
            return True
        score = r.get("answer_model_score")
        return t_model is not None and score is not None and score < t_model

    facts = sum(1 for r in ans if not refused(r) and r.get("all_facts")) / max(len(ans), 1)
    return {"facts": facts, "answerable_refused": sum(map(refused, ans)) / max(len(ans), 1),
            "uncovered_refused": sum(map(refused, unc)) / max(len(unc), 1)}


def main(path: str) -> None:
    rows = json.loads(Path(path).read_text())["rows"]
    has_model = any("answer_model_score" in r for r in rows)
    words = [None, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    models = [None, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6] if has_model else [None]
    print(f"{'T_word':>7} {'T_model':>7}  facts  ans_ref  unc_ref")
    for tw in words:
        for tm in models:
            s = simulate(rows, tw, tm)
            print(f"{tw!s:>7} {tm!s:>7}  {s['facts']:.3f}  {s['answerable_refused']:.3f}    "
                  f"{s['uncovered_refused']:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
