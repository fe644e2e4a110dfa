"""Word patterns, stop lists and stemmers of :mod:`clinqa.text` (expected values worked out by hand
from the rules in the docstrings)."""

from __future__ import annotations

import re

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


def test_whole_word_is_not_found_inside_a_word_or_a_hyphenated_compound() -> None:
    from clinqa.text.words import whole_word
    assert whole_word("iron").search("oral iron daily") is not None
    assert whole_word("iron").search("irons and iron-deficiency") is None
    assert whole_word("k+").findall("K+ 3.1, k+ 4") == ["k+"]  # escaped: "+" is taken literally
    assert len(whole_word("k+", re.I).findall("K+ 3.1, k+ 4")) == 2
    assert (whole_word("before").sub("after", "before-surgery, before surgery", count=1)
            == "before-surgery, after surgery")


def test_bounded_word_is_bounded_by_a_hyphen_too() -> None:
    from clinqa.text.words import bounded_word
    assert bounded_word("before").search("before-surgery").group(0) == "before"  # type: ignore[union-attr]
    assert bounded_word("pre").search("prednisolone") is None
    assert bounded_word("IV", re.I).sub("oral", "give iv now") == "give oral now"


def test_the_shared_runs_split_as_the_copies_they_replace_did() -> None:
    from clinqa.text.blocks import BLANK_LINE, PARAGRAPH_BREAK, REFERENCES_TITLE
    from clinqa.text.words import ALNUM_RUN, LETTER_RUN, SPACE_OR_HYPHEN, TYPED_TOKEN
    assert LETTER_RUN.findall("sglt2 inhibitor, iv") == ["sglt", "inhibitor", "iv"]
    assert ALNUM_RUN.findall("sglt2-inhibitor") == ["sglt2", "inhibitor"]
    assert SPACE_OR_HYPHEN.split("beta - blocker  use") == ["beta", "blocker", "use"]
    assert TYPED_TOKEN.findall("Reye's syndrome, 5mg") == ["Reye's", "syndrome", ",", "5", "mg"]
    assert BLANK_LINE.split("a\n \nb\n\n\nc") == ["a", "b", "\nc"]
    assert PARAGRAPH_BREAK.split("a\n \nb\n\n\nc") == ["a", "b", "c"]
    assert REFERENCES_TITLE.match("4. Bibliography") and not REFERENCES_TITLE.match("References to dosing")
