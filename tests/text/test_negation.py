"""The one negation grammar (:mod:`clinqa.text.negation`): its cues, the phrases that negate nothing, and the
words a cue negates (a NegEx-style scope, Chapman et al. 2001), each checked by hand."""

from __future__ import annotations

import pytest

from clinqa.text.negation import negated, negated_words


@pytest.mark.parametrize(("text", "expected"), [
    # a list of negated things: commas and "or" do not end the scope, a bracket does
    ("First DVT, no identifiable trigger (no surgery, immobility or trauma), finished 3 months of apixaban.",
     {"identifiable", "trigger", "surgery", "immobility", "or", "trauma"}),
    ("Unprovoked (no identifiable risk factor)", {"identifiable", "risk", "factor"}),
    ("Provoked by major transient risk factor (surgery, immobilization, trauma)", set()),
    ("cUTI, not septic - abx?", {"septic"}),  # a spaced dash ends it
    ("non-anaphylactic penicillin allergy", {"anaphylactic"}),  # "non-" negates the rest of its word
    ("pt w/o fever", {"fever"}),  # "w/o" is "without"
    ("no more than 2 g daily", set()),  # a bound, no negation
    ("with or without food", set()),
    ("no a b c d e f g h", {"a", "b", "c", "d", "e", "f"}),  # at most six words
    ("no rash but wheeze", {"rash"}),  # "but" ends it
    ("55M, no diabetes, LDL 150, 10-yr ASCVD risk 9%", {"diabetes"}),  # a comma ends it: the next finding
    ("no fever, chills or rigors, BP 120", {"fever", "chills", "or", "rigors"}),  # ... unless the list goes on
])
def test_negated_words_by_hand(text: str, expected: set[str]) -> None:
    assert negated_words(text) == expected


def test_negated_is_the_claim_checks_cue_test() -> None:
    assert negated("Do not give aspirin") and negated("doesn't help") and negated("without food")
    assert not negated("no more than 4 g a day") and not negated("with or without food")
