"""The unit table (:data:`clinqa.text.quantities.UNITS`) and the unit patterns derived from it: each derived
pattern matches exactly what the literal pattern it replaced matched (same spans, same groups)."""

from __future__ import annotations

import re

import pytest

from clinqa.decision import quote
from clinqa.question import asks, terms
from clinqa.text import quantities
from clinqa.text.quantities import UNITS, extract_quantities, unit_pattern

#: the patterns as they were written before they were derived from the unit table
OLD = {
    # since this round also every unit of a stated duration and "d" ("48hrs", "6wks", "90d", "60 min")
    "terms.QUANTITY": re.compile(
        r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(mg|g|mcg|µg|μg|ug|ng|kg|ml|mL|l|mmol|mol|meq|units?|iu|%|percent|"
        r"mm ?hg|mmhg|bpm|hours?|hrs?|h|days?|weeks?|wks?|months?|mo|years?|yrs?|minutes?|min|d)(?![\w])",
        re.IGNORECASE),
    "terms._AGE": re.compile(
        # "wks" added when the age units became the duration units of a day or more (issue 48): "a 5 wks old"
        r"\b(?:aged\s+)?\d+\s*-?\s*(?:years?|yrs?|y|months?|mo|weeks?|wks|wk|days?)\s*-?\s*old\b|\baged\s+\d+\b",
        re.IGNORECASE),
    "quantities.DOSE_AMOUNT": re.compile(
        r"\d(?:[\d.,/-]*\d)?\s*(?:mg|g|mcg|µg|μg|ug|ng|ml|l|units?|iu|mmol|meq|mg/kg|ml/kg)\b", re.IGNORECASE),
    "quote.DURATION": re.compile(
        r"(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|a few)\s*"
        r"(?:-|–|to)?\s*(?:\d+(?:\.\d+)?\s*)?"
        r"(?:hours?|hrs?|h|days?|weeks?|wks?|months?|mo|years?|yrs?|minutes?|min)\b"
        r"|\bindefinite(?:ly)?\b|\blife-?long\b|\blong-term\b|\buntil\b|\bextended\b", re.IGNORECASE),
}
NEW = {
    "terms.QUANTITY": terms.QUANTITY,
    "terms._AGE": terms._AGE,
    "quantities.DOSE_AMOUNT": quantities.DOSE_AMOUNT,
    "quote.DURATION": quote.DURATION,
}


def _examples() -> list[str]:
    """Numbers with every unit spelling of the table (and other casings and spacings), before and after
    what may follow a unit."""
    spellings = [*UNITS, "mL", "MG", "Mm Hg", "mm  hg", "MMHG", "Units", "IU", "Hrs", "yo", "kcal", "mmol/L", "ug/kg",
                 "mcg/kg/min", "U/L", "x", ""]
    numbers = ["5", "5 ", "12.5 ", "1,5 ", "0.9", "72-", "aged 3 ", "3-6 ", "six ", "2 to 4 "]
    tails = ["", " old", "-old", "/kg", "s", ".", "x", " daily", "-d echo", "2"]
    texts = [f"{n}{u}{t}" for u in spellings for n in numbers for t in tails]
    return [*texts, "A 72-year-old man, 55 kg, BP 160/100 mm Hg, given 0.9 mg/kg and 30 mL/kg over 3 hours",
            "aged 65", "6 month old infant", "for 7 days then lifelong", "up to 100 units/day"]


@pytest.mark.parametrize("name", sorted(OLD))
def test_derived_unit_patterns_match_what_the_literal_ones_matched(name: str) -> None:
    old, new = OLD[name], NEW[name]
    for text in _examples():
        got = [(m.span(), m.groups()) for m in new.finditer(text)]
        want = [(m.span(), m.groups()) for m in old.finditer(text)]
        assert got == want, (name, text)


def test_the_duration_question_reads_the_same() -> None:
    assert asks.DURATION_QUESTION.pattern == (r"\bhow long\b|\bduration\b|\bfor how many "
                                                  r"(?:hours|days|weeks|months|years)\b")


def test_the_quantity_check_reads_the_units_it_read_before() -> None:
    """The spellings added to the table for the question readers ("mmol", "ug") are not read by the check of a
    generated sentence's numbers: "5 mmol" has no unit there, as before."""
    assert [q.unit for q in extract_quantities("5 mmol")] == [""]
    assert [q.unit for q in extract_quantities("20 µg/kg and 30 mL/kg, 4 weeks")] == ["mcg/kg", "mL/kg", "week"]
    assert set(quantities.CHECKED_UNITS) < set(UNITS)


def test_unit_pattern_keeps_order_and_refuses_unknown_spellings() -> None:
    assert unit_pattern(("mg", "mg/kg", "mg")) == "mg|mg/kg"
    assert unit_pattern(("mm hg",)) == re.escape("mm hg")
    with pytest.raises(KeyError):
        unit_pattern(("furlongs",))
    for subset in (quantities.DOSE_UNITS, quantities.QUESTION_UNITS, quantities.AGE_UNITS,
                   quantities.DURATION_UNITS):
        assert set(subset) <= set(UNITS)
