"""Quantities: number, unit and qualifier, and when a cited passage backs a sentence's number."""

from __future__ import annotations

import pytest

from clinqa.text.quantities import Quantity, agrees, extract_quantities, unsupported_quantities


def q(text: str) -> list[tuple[str, float, float, str]]:
    return [(x.qualifier, x.low, x.high, x.unit) for x in extract_quantities(text)]


@pytest.mark.parametrize("text, expected", [
    ("Symptoms resolve within 4 weeks.", [("upper", 4, 4, "week")]),
    ("Symptoms may persist for 4 weeks.", [("duration", 4, 4, "week")]),
    ("Give 40 mg daily.", [("", 40, 40, "mg")]),
    ("up to 40 mg", [("upper", 40, 40, "mg")]),
    ("at least 150 minutes a week", [("lower", 150, 150, "minute")]),
    ("keep the room at 20-24 °C", [("", 20, 24, "°C")]),
    ("20 to 24 °C", [("", 20, 24, "°C")]),
    ("for four weeks", [("duration", 4, 4, "week")]),
    ("HbA1c below 7%", [("upper", 7, 7, "%")]),
    ("1,000 mg", [("", 1000, 1000, "mg")]),
    ("about 2 hrs", [("approx", 2, 2, "hour")]),
    ("glucose > 180 mg/dl", [("lower", 180, 180, "mg/dL")]),
    ("every 8 hours", [("every", 8, 8, "hour")]),
    # a band written round the thing it bounds: "30% ≤ FEV1" is FEV1 at least 30%, "50 > x" is x below 50
    ("FEV1 % predicted: 30% ≤ FEV1 < 50%", [("lower", 30, 30, "%"), ("upper", 50, 50, "%")]),
    ("50 mg > dose", [("upper", 50, 50, "mg")]),
    ("5 mg < 2 times daily", [("", 5, 5, "mg"), ("upper", 2, 2, "time")]),  # a number after the sign: no thing
])
def test_extract(text: str, expected: list[tuple[str, float, float, str]]) -> None:
    assert q(text) == expected


@pytest.mark.parametrize("text", ["CHA2DS2-VASc", "HbA1c", "see [2].", "one of the options", "T2DM", "[1, 3]"])
def test_no_quantity_in_codes_markers_or_bare_spelled_numbers(text: str) -> None:
    assert q(text) == []


def test_within_is_not_persist_for() -> None:
    # the example: same number and unit, different meaning
    assert [x.text for x in unsupported_quantities("Symptoms resolve within 4 weeks [1].",
                                                   ["Symptoms may persist for 4 weeks."])] == ["4 weeks"]
    assert unsupported_quantities("Symptoms may last for 4 weeks [1].", ["Symptoms may persist for 4 weeks."]) == []


def test_agreement_rules() -> None:
    upper = Quantity("upper", 40, 40, "mg", "40 mg")
    bare = Quantity("", 40, 40, "mg", "40 mg")
    approx = Quantity("approx", 40, 40, "mg", "40 mg")
    assert not agrees(bare, upper)      # "40 mg" is not backed by "up to 40 mg" (a bound)
    assert agrees(bare, Quantity("duration", 40, 40, "mg", "40 mg"))  # less specific, not different
    assert not agrees(upper, bare)      # "up to 40 mg" is not backed by "40 mg daily"
    assert agrees(approx, upper) and agrees(upper, approx)
    assert not agrees(bare, Quantity("", 40, 40, "g", "40 g"))       # unit
    assert not agrees(bare, Quantity("", 400, 400, "mg", "400 mg"))  # value
    assert not agrees(Quantity("", 2, 4, "week", ""), Quantity("", 2, 2, "week", ""))  # range


def test_spelled_and_digit_numbers_match() -> None:
    assert unsupported_quantities("Take it three times daily for 5 days [2].",
                                  ["Amoxicillin 500 mg three times daily for five days."]) == []


def test_numbers_must_appear_in_a_cited_text() -> None:
    missing = unsupported_quantities("Start 5 mg, then 10 mg after 2 weeks [1].", ["Start 5 mg once daily."])
    assert [(x.qualifier, x.text) for x in missing] == [("", "10 mg"), ("after", "2 weeks")]


def test_iso_date_is_one_value() -> None:
    assert q("seen on 2019-10-30 for review") == [("", 20191030, 20191030, "date")]
    assert [x.phrase for x in extract_quantities("resolve within 4 weeks")] == ["within 4 weeks"]
