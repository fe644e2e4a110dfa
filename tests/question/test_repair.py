"""Spelling repair of the question (:func:`clinqa.question.repair.repair_question`): a number typed glued to a
word. Cases written for the mechanism (a new user's "metformin in CKD4?" and "70kg pt enoxaparin dose" were
refused because the corpus has neither "ckd4" nor "70kg")."""

from clinqa.question.repair import repair_question
from clinqa.retrieval.vocabulary import Vocabulary

VOCAB = Vocabulary.from_texts([
    "Metformin is contraindicated in CKD stage 4 (eGFR below 30).",
    "Enoxaparin 1 mg/kg every 12 hours; for a patient over 150 kg seek advice.",
    "CURB-65 score of 3 or more: consider ICU. SpO2 below 92% needs oxygen.",
])


def test_letters_the_corpus_has_glued_to_a_number_are_split_as_typed() -> None:
    assert repair_question("metformin in CKD4?", VOCAB) == ("metformin in CKD 4?", {"CKD4": "CKD 4"})


def test_a_number_glued_to_a_unit_is_split() -> None:
    assert repair_question("70kg pt enoxaparin dose", VOCAB) == ("70 kg pt enoxaparin dose", {"70kg": "70 kg"})
    # "y" is a unit of the unit table (a year), though no passage has it
    assert repair_question("10y old", VOCAB) == ("10 y old", {"10y": "10 y"})


def test_a_word_the_corpus_has_as_typed_or_a_hyphenated_name_is_not_split() -> None:
    # "spo2" is a corpus word as typed: left alone
    assert repair_question("SpO2 target?", VOCAB) == ("SpO2 target?", {})
    # the corpus writes "CURB-65": the hyphen, not a space (the older repair)
    assert repair_question("CURB65 of 3", VOCAB) == ("CURB-65 of 3", {"CURB65": "CURB-65"})


def test_letters_the_corpus_lacks_or_a_suffix_that_is_no_unit_are_not_split() -> None:
    # "xyz" is no corpus word; "rd" (an ordinal's ending) is no unit
    assert repair_question("xyz4 on day 3rd", VOCAB) == ("xyz4 on day 3rd", {})


def test_a_word_the_lexicon_knows_is_not_split() -> None:
    assert repair_question("CKD4 staging", VOCAB, known=lambda w: w == "ckd4") == ("CKD4 staging", {})
