"""Fitting the decisive-word classifier from pairs (issue 39): labels as the module says, a file that loads."""

from __future__ import annotations

import gzip
import json
from dataclasses import asdict
from pathlib import Path

from clinqa.decision.decisive_words import FEATURES, DecisiveModel
from clinqa.training.decisive import swapped_term, train, word_rows
from clinqa.training.pairs import Pair


def _pairs() -> list[Pair]:
    passage = "Apixaban 5 mg twice daily for atrial fibrillation; 2.5 mg twice daily when two criteria apply."
    out = []
    for i in range(6):
        out.append(Pair(f"q{i}", "toy", "positive", "apixaban dose atrial fibrillation pt", passage, 1.0))
        out.append(Pair(f"q{i}", "toy", "rewrite", "67F, hx HTN - apixaban dose atrial fibrillation", passage, 1.0,
                        inserted=["67F", "hx", "HTN"]))
        out.append(Pair(f"q{i}", "toy", "swap", "dabigatran dose atrial fibrillation", passage, 0.0,
                        swapped="dabigatran"))
        out.append(Pair(f"q{i}", "toy", "swap", "apixaban dose atrial fibrillation in pregnancy?", passage, 0.0,
                        swapped="pregnancy"))
    return out


def test_labels_follow_the_kind() -> None:
    x, y, counts = word_rows(_pairs(), per_kind=100)
    assert x.shape[1] == len(FEATURES)
    # each swap gives its swapped term twice (as found, and as if the corpus lacked it): 2 swaps x 6 x 2
    assert counts["toy/decisive"] == 24 and int(y.sum()) == 24
    assert counts["toy/not_decisive"] >= 6  # the positives' "pt" and the rewrites' shorthand


def test_swapped_term_finds_populations_by_group() -> None:
    from clinqa.question.terms import KeyTerm

    terms = [KeyTerm("pregnant", "population", "pregnancy", typed="pregnant")]
    assert swapped_term(terms, "pregnancy") is terms[0]
    assert swapped_term(terms, "dialysis") is None


def test_train_writes_a_loadable_file(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for p in _pairs():
            f.write(json.dumps(asdict(p)) + "\n")
    card = train(path, tmp_path / "w.json", threshold=0.4, per_kind=100)
    m = DecisiveModel(tmp_path / "w.json")
    assert m.threshold == 0.4 and card["rows"]["toy/decisive"] == 24 and 0.5 <= card["train_accuracy"] <= 1.0
