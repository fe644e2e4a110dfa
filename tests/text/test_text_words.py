"""Word patterns, stop lists and stemmers of :mod:`clinqa.text` (expected values worked out by hand
from the rules in the docstrings)."""

from __future__ import annotations

import pytest

from clinqa.store.sparse import index_terms
from clinqa.text import (
    ASCII_TOKEN,
    CLAIM_STOP_WORDS,
    LUCENE_STOP_WORDS,
    QUESTION_STOP_WORDS,
    ascii_words,
    joined_words,
    light_stem,
    s_stem,
    snowball_stem,
    terms,
    word_parts,
    words_of,
)

SENTENCE = "Give amoxicillin-clavulanate 0.9 mg/kg IV when eGFR<30."


def test_terms_split_at_every_non_letter_or_digit() -> None:
    assert terms(SENTENCE) == ["give", "amoxicillin", "clavulanate", "0", "9", "mg", "kg", "iv", "when", "egfr",
                               "30"]


def test_words_keep_hyphenated_words_and_add_their_parts() -> None:
    assert words_of(SENTENCE) == ["give", "amoxicillin-clavulanate", "amoxicillin", "clavulanate", "0", "9", "mg",
                                  "kg", "iv", "when", "egfr", "30"]
    assert words_of("Crohn's disease") == ["crohn's", "crohn", "s", "disease"]
    assert word_parts("beta-blocker") == ["beta", "blocker"]
    assert word_parts("warfarin") == ["warfarin"]


def test_joined_words_keep_decimals_and_units() -> None:
    assert joined_words(SENTENCE) == ["give", "amoxicillin-clavulanate", "0.9", "mg/kg", "iv", "when", "egfr", "30"]
    assert joined_words("o\u2019clock, 2-3 times") == ["o\u2019clock", "2-3", "times"]


def test_ascii_words_start_with_a_letter() -> None:
    # numbers are not ASCII words; "<" and "/" split; the trailing apostrophe stays
    assert ascii_words(SENTENCE) == ["give", "amoxicillin-clavulanate", "mg", "kg", "iv", "when", "egfr"]
    assert ascii_words("Patients' \u00b5mol") == ["patients'", "mol"]


def test_ascii_tokens_keep_case_and_hyphens() -> None:
    assert ASCII_TOKEN.findall(SENTENCE) == ["Give", "amoxicillin-clavulanate", "0", "9", "mg", "kg", "IV", "when",
                                             "eGFR", "30"]


def test_bm25_terms_drop_lucene_stop_words_and_fold_plurals() -> None:
    # "the", "of", "in", "with" are Lucene stop words; "s" is left of "'s"; plurals fold (Harman)
    assert index_terms("The doses of statins in children's CKD with eGFR<30") == [
        "dose", "statin", "children", "ckd", "egfr", "30"]


def test_stop_lists_are_the_documented_ones() -> None:
    assert len(LUCENE_STOP_WORDS) == 35  # Lucene's 33 + "s", "t"
    assert {"when", "what", "dose"}.isdisjoint(LUCENE_STOP_WORDS)
    assert {"what", "when", "patient", "patients", "latest", "ago", "tell"} <= QUESTION_STOP_WORDS
    assert "dose" not in QUESTION_STOP_WORDS
    assert {"according", "passage", "states", "the"} <= CLAIM_STOP_WORDS
    assert "patient" not in CLAIM_STOP_WORDS


@pytest.mark.parametrize(("word", "stem"), [
    ("statins", "statin"), ("therapies", "therapy"), ("doses", "dose"),  # -s, -ies -> -y, -es -> -e
    ("diabetes", "diabete"), ("shoes", "shoe"),  # -es -> -e; -oes is not -es: the -s rule applies
    ("virus", "virus"), ("glass", "glass"), ("ics", "ics"), ("keys", "key"),  # -us, -ss kept; 3 letters kept
])
def test_s_stem(word: str, stem: str) -> None:
    assert s_stem(word) == stem


@pytest.mark.parametrize(("word", "stem"), [
    ("deteriorate", "deteriorat"), ("deteriorates", "deteriorat"), ("deteriorated", "deteriorat"),
    ("medications", "medic"), ("monitoring", "monitor"), ("rapidly", "rapid"), ("patches", "patch"),
    ("infections", "infection"),
    ("boxes", "boxe"),  # "es" would leave 3 letters, so only "s" goes
    ("dosing", "dosing"), ("daily", "daily"),  # the suffix would leave 3 letters
])
def test_light_stem(word: str, stem: str) -> None:
    assert light_stem(word) == stem


@pytest.mark.parametrize(("word", "stem"), [
    ("Diabetes", "diabet"), ("diabetic", "diabet"), ("treated", "treat"), ("treating", "treat"),
    ("hypertension", "hypertens"), ("children", "children"),
])
def test_snowball_stem(word: str, stem: str) -> None:
    assert snowball_stem(word) == stem
