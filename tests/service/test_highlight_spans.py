"""``highlight_spans``: where a citation's quote lies in its passage, with offsets computed by hand.

The extractive answer quotes several units of one passage joined by spaces, each list item with its
lead-in label ("Dosing: Apixaban 5 mg BID Dosing: Rivaroxaban 20 mg daily"), table rows with their
column headers ("Drug: Apixaban; Dose: 5 mg BID"), without list markers or emphasis; a generated
answer's evidence may be clipped with "…". Every quoted stretch must be found, not only the first."""

from __future__ import annotations

import pytest

from clinqa.service.app import highlight_spans

DOSING = "Dosing:\n\n- Apixaban 5 mg BID\n- Rivaroxaban 20 mg daily\n"
TABLE = "| Drug | Dose |\n|---|---|\n| Apixaban | 5 mg BID |\n| Warfarin | 5mg daily |"


def _marked(body: str, quote: str) -> list[str]:
    return [body[s:e] for s, e in highlight_spans(body, quote)]


def test_a_sentence_with_its_full_stop() -> None:
    body = "Most patients recover fully. The cough may persist for 4 weeks.\n\nNext."
    assert highlight_spans(body, "The cough may persist for 4 weeks.") == [(29, 63)]
    assert _marked(body, "The cough may persist for 4 weeks.") == ["The cough may persist for 4 weeks."]


def test_every_item_of_a_list_quoted_with_its_repeated_label() -> None:
    """The dose line the old sentence matcher missed: the quote is one "sentence" without a full stop
    that is nowhere in the passage word for word (label repeated, list markers dropped)."""
    quote = "Dosing: Apixaban 5 mg BID Dosing: Rivaroxaban 20 mg daily"
    # "Dosing:" 0-7, "\n\n- " 7-11, "Apixaban 5 mg BID" 11-28, "\n- " 28-31, "Rivaroxaban 20 mg daily" 31-54
    assert highlight_spans(DOSING, quote) == [(0, 7), (11, 28), (31, 54)]
    assert _marked(DOSING, quote) == ["Dosing:", "Apixaban 5 mg BID", "Rivaroxaban 20 mg daily"]


def test_one_item_only_is_not_widened_to_the_others() -> None:
    assert highlight_spans(DOSING, "Dosing: Rivaroxaban 20 mg daily") == [(31, 54)]
    assert highlight_spans(DOSING, "Apixaban 5 mg BID") == [(11, 28)]


def test_a_table_row_quoted_with_its_headers() -> None:
    # row 3 starts at 26: "| " then "Apixaban" 28-36, " | " then "5 mg BID" 39-47; the header cells are not
    # marked (another line) and neither is the other row's "5mg"
    assert highlight_spans(TABLE, "Drug: Apixaban; Dose: 5 mg BID") == [(28, 36), (39, 47)]
    assert _marked(TABLE, "Drug: Apixaban; Dose: 5 mg BID") == ["Apixaban", "5 mg BID"]


def test_an_elision() -> None:
    body = "Warfarin is usually stopped 5 days before elective surgery and bridging is rarely needed."
    quote = "Warfarin is usually stopped … bridging is rarely needed."
    assert highlight_spans(body, quote) == [(0, 27), (63, 89)]
    assert _marked(body, quote) == ["Warfarin is usually stopped", "bridging is rarely needed."]


def test_two_sentences_of_one_passage_apart() -> None:
    body = "Give amoxicillin 500 mg. Review at 3 days. Refer if it recurs."
    quote = "Give amoxicillin 500 mg. Refer if it recurs."
    assert highlight_spans(body, quote) == [(0, 24), (43, 62)]


@pytest.mark.parametrize("body,quote,expected", [
    ("Give  AMOXICILLIN\u00a0500 mg now", "give amoxicillin 500 mg", [(0, 24)]),  # case, spaces, no-break space
    ("Take **apixaban** 5 mg BID.", "Take apixaban 5 mg BID.", [(0, 27)]),  # emphasis markers inside
    ("Give 2\u20133 doses daily.", "Give 2-3 doses daily.", [(0, 21)]),  # en dash for a hyphen
    ("Apixaban 5mg BID", "Apixaban 5 mg BID", [(0, 16)]),  # "5mg" is "5 mg"
    ("See (Class I, LOE A) below.", "(Class I, LOE A)", [(4, 20)]),  # the quote's brackets kept
    ("BP 126/78. eGFR 38. Stable.", "eGFR 38.", [(11, 19)]),  # a two-word unit is the whole quote
    ("\U0001f600 Apixaban 5 mg BID", "Apixaban 5 mg BID", [(2, 19)]),  # offsets in code points
])
def test_reformatted_quotes(body: str, quote: str, expected: list[tuple[int, int]]) -> None:
    assert highlight_spans(body, quote) == expected


def test_nothing_to_mark() -> None:
    assert highlight_spans("Acute bronchitis usually follows a cold.", "") == []
    assert highlight_spans("", "anything") == []
    assert highlight_spans("Acute bronchitis usually follows a cold.", "Warfarin was held for two days.") == []
    # a single common word of the quote is not placed on its own
    assert highlight_spans("A cold.", "Warfarin a day") == []


def test_a_sentence_wrapped_over_two_lines_is_one_span() -> None:
    body = "OAC may be\n considered. Men: never."
    # "OAC may be" 0-10, "\n " 10-12, "considered." 12-23: a wrapped line is not a break
    assert highlight_spans(body, "OAC may be considered.") == [(0, 23)]
