"""The answer's weights and cut-offs are settings (``answer.scoring``, ``answer.rarity``): their defaults are
today's values, a changed value reaches the rule that reads it, and the config hash covers them.

Zipf frequencies quoted in the comments are wordfreq's (``clinqa.text.zipf``): magnesium 3.49, sulfate 3.19
(and a salt word), hypertension 3.41, erectile 2.84, approved 4.64."""

from __future__ import annotations

from clinqa.answer.extractive import default_scoring
from clinqa.question.asks import condition_words
from clinqa.question.repair import repair_question
from clinqa.question.terms import default_rarity, dosed_words, misspelt_common_word
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.settings import Settings, UnitScoring, WordRarity, config_hash


def test_defaults_are_the_values_the_rules_were_chosen_with() -> None:
    r, sc = WordRarity(), UnitScoring()
    assert (r.repair_below, r.decisive_below, r.dosed_below, r.condition_below, r.misspelt_common_above) == (
        2.5, 3.0, 4.0, 4.5, 4.5)
    assert (sc.unit_weight, sc.lexical_weight, sc.list_bonus, sc.number_bonus, sc.qualifier_bonus, sc.cell_bonus,
            sc.heading_bonus, sc.max_units, sc.max_list_items, sc.max_words) == (
        0.6, 0.3, 0.25, 0.1, 0.15, 0.15, 0.15, 120, 12, 150)
    assert default_rarity() == Settings().answer.rarity and default_scoring() == Settings().answer.scoring


def test_dosed_below_decides_which_words_name_the_drug() -> None:
    q = "magnesium sulfate dose for eclampsia"
    assert dosed_words(q) == {"magnesium", "sulfate"}  # 3.49 < 4.0; sulfate is a salt word
    assert dosed_words(q, 3.0) == {"sulfate"}  # magnesium is now too common: the name stops at the salt


def test_repair_below_decides_what_is_a_misspelling() -> None:
    vocab = Vocabulary({"elective": 5, "surgery": 9})
    assert repair_question("erectile surgery", vocab) == ("erectile surgery", {})  # 2.84 >= 2.5: a word
    assert repair_question("erectile surgery", vocab, 5.0) == ("elective surgery", {"erectile": "elective"})


def test_misspelt_common_above_and_condition_below() -> None:
    assert misspelt_common_word("apprived")  # one edit from "approved" (4.64 >= 4.5)
    assert not misspelt_common_word("apprived", 6.0)
    q = "What blood pressure target is recommended in hypertension?"
    assert condition_words(q) == {"hypertension"}
    assert condition_words(q, 3.0) == set()  # 3.41 is no longer rare enough


def test_config_hash_covers_the_knobs() -> None:
    base = Settings()
    weighted = base.model_copy(update={"answer": base.answer.model_copy(
        update={"scoring": UnitScoring(unit_weight=0.5)})})
    cut = base.model_copy(update={"answer": base.answer.model_copy(update={"rarity": WordRarity(dosed_below=3.0)})})
    hashes = {config_hash(s, "m") for s in (base, weighted, cut)}
    assert len(hashes) == 3


def test_decisive_below_decides_which_words_refuse() -> None:
    from clinqa.decision.answerability import is_decisive
    from clinqa.question.terms import KeyTerm

    term = KeyTerm("molecule", "specific", "molecule", typed="molecule")  # Zipf 3.67: general academic English
    assert not is_decisive(term, True)  # 3.67 >= 3.0: a passage need not repeat it
    assert is_decisive(term, True, 4.0)
