"""The decisive-word classifier (issue 39): features by hand, the shipped weights load, the key-term test
uses the model's probability when given one, and a patient's age puts a question in a population."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinqa.decision.decisive_words import FEATURES, SHIPPED, DecisiveModel, PassageWords, best_trigram, features, save
from clinqa.errors import ConfigError
from clinqa.key_term_test import check
from clinqa.question.terms import KeyTerm, age_population, patient_age_years, read_terms


def test_trigram_similarity_by_hand() -> None:
    # "#ab#" -> {#ab, ab#}; "#abc#" -> {#ab, abc, bc#}: 1 shared of 4
    assert best_trigram("ab", PassageWords.of(["abc"])) == pytest.approx(0.25)
    # 5 shared (sem emi mid ide de#) of 14 trigrams
    assert best_trigram("frusemide", PassageWords.of(["furosemide 40 mg"])) == pytest.approx(5 / 14)


def test_features_by_hand() -> None:
    f = dict(zip(FEATURES, features(KeyTerm("67f", "specific", "67f", typed="67F"), False, None,
                                    PassageWords.of(["apixaban"]), 2, 1), strict=True))
    assert f["bias"] == 1 and f["age_sex"] == 1 and f["has_digit"] == 1 and f["upper"] == 1
    assert f["in_corpus"] == 0 and f["share_missing"] == 0.5 and f["one_term"] == 0
    pop = dict(zip(FEATURES, features(KeyTerm("children", "population", "children"), True, None,
                                      PassageWords.of([""]), 1, 1), strict=True))
    assert pop["population"] == 1 and pop["zipf"] == 0 and pop["one_term"] == 1


def test_model_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    coef = [0.0] * len(FEATURES)
    coef[FEATURES.index("population")] = 2.0
    save(path, coef, 0.7, {"note": "test"})
    m = DecisiveModel(path)
    assert m.threshold == 0.7
    p = m.prob([[1.0] + [0.0] * (len(FEATURES) - 1), [0.0] * FEATURES.index("population") + [1.0]
                + [0.0] * (len(FEATURES) - FEATURES.index("population") - 1)])
    assert p[0] == pytest.approx(0.5) and p[1] == pytest.approx(1 / (1 + 2.718281828 ** -2), rel=1e-6)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"features": ["x"], "coef": [1]}))
    with pytest.raises(ConfigError, match="other features"):
        DecisiveModel(bad)


def test_shipped_model_loads() -> None:
    m = DecisiveModel(SHIPPED)
    assert 0 < m.threshold < 1 and m.coef.shape == (len(FEATURES),)


def test_check_uses_the_learned_probability(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    coef = [-5.0] + [0.0] * (len(FEATURES) - 1)  # nothing is decisive
    save(path, coef, 0.5, {})
    a = check("apixaban dose in pregnancy", ["Apixaban 5 mg twice daily."], max_zipf=4.0, decider=DecisiveModel(path))
    assert [t.text for t in a.missing] == ["pregnancy"] and a.learned is not None and a.decisive == []
    rules = check("apixaban dose in pregnancy", ["Apixaban 5 mg twice daily."], max_zipf=4.0)
    assert [t.text for t in rules.decisive] == ["pregnancy"]


@pytest.mark.parametrize(("question", "age", "group"), [
    ("67F, AF, CrCl 26 - apixaban dose?", 67, None), ("10yo boy, BP 122/78", 10, "children"),
    ("6 month old with fever", 0.5, "infants"), ("15yo F, moderate MDD", 15, "children"),
    ("76F on warfarin, 4F-PCC dose", 76, None), ("72 kg man, AF", None, None), ("aged 4, wheeze", 4, "children"),
])
def test_patient_age(question: str, age: float | None, group: str | None) -> None:
    assert patient_age_years(question) == age and age_population(question) == group


def test_age_shorthand_is_context_and_a_child_is_a_population() -> None:
    terms = read_terms("67F, AF - apixaban dose?", max_zipf=4.0).key_terms
    assert "67f" not in {t.text for t in terms}
    child = read_terms("4yo boy with croup - dexamethasone dose?", max_zipf=4.0).key_terms
    assert ("children", "population") in {(t.text, t.kind) for t in child}
