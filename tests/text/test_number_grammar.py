"""The one grammar of numbers, ranges, bounds and units (clinqa.text.quantities, dash folding in
clinqa.text.unicode), and that every reader of a band or a bound reads it the same way (issue 48, item 3)."""

from __future__ import annotations

import math
import re

import pytest

import clinqa.answer.extractive as extractive
import clinqa.decision.answerability as answerability
import clinqa.evidence.bands as bands
import clinqa.evidence.mentions as mentions
import clinqa.question.asks as asks
from clinqa.decision.quote import DURATION
from clinqa.evidence.bands import read_band
from clinqa.evidence.mentions import within_stated_bound
from clinqa.question.terms import QUANTITY, KeyTerm
from clinqa.text.quantities import (
    BOUND,
    BOUND_WORDS,
    NUMBER,
    NUMBER_OR_COMMA,
    RANGE_JOIN,
    SPELLED_NUMBERS,
    UNIT_WORD,
    bound_op,
    bound_pattern,
    extract_quantities,
    number_with_unit,
    unit_pattern,
    within_bound,
)
from clinqa.text.unicode import DASHES, fold_dashes


def test_number_matches_a_decimal_point_only_the_comma_form_also_a_decimal_comma() -> None:
    assert re.fullmatch(NUMBER, "70") and re.fullmatch(NUMBER, "4.0")
    assert re.fullmatch(NUMBER, "1,5") is None and re.fullmatch(NUMBER, "4.") is None
    assert re.fullmatch(NUMBER_OR_COMMA, "1,5") and re.fullmatch(NUMBER_OR_COMMA, "2.5")


@pytest.mark.parametrize("text", ["50-90", "50–90", "50 - 90", "50 to 90", "50to90"])
def test_range_join_reads_hyphen_en_dash_and_to(text: str) -> None:
    m = re.fullmatch(f"({NUMBER}){RANGE_JOIN}({NUMBER})", text)
    assert m is not None and (m.group(1), m.group(2)) == ("50", "90")


def test_fold_dashes_writes_every_dash_and_minus_as_hyphen_and_nothing_else() -> None:
    assert fold_dashes("5\u20136 \u2014 \u22122 \u2010 \u2011 \u2012 \u2015 \ufe63 \uff0d") == "5-6 - -2 - - - - - -"
    assert len(DASHES) == 9
    assert fold_dashes("a-b ≤ 5 “x”") == "a-b ≤ 5 “x”"  # quotes and bounds untouched


@pytest.mark.parametrize(("raw", "op"), [
    ("under", "<"), ("Below", "<"), ("less  than", "<"), ("lower than", "<"), ("fewer than", "<"),
    ("up to", "≤"), ("at most", "≤"), ("no more than", "≤"), ("not more than", "≤"),
    ("over", ">"), ("above", ">"), ("more than", ">"), ("greater than", ">"), ("higher than", ">"),
    ("at least", "≥"), ("no less than", "≥"), ("not less than", "≥"),
    ("<", "<"), ("≤", "≤"), ("<=", "≤"), ("=<", "≤"), (">", ">"), ("≥", "≥"), (">=", "≥"), ("=>", "≥"),
])
def test_bound_op_reads_words_and_symbols(raw: str, op: str) -> None:
    assert bound_op(raw) == op
    assert re.fullmatch(BOUND, raw, re.IGNORECASE)  # every spelling bound_op reads, BOUND matches


def test_bound_words_are_the_union_of_the_two_former_tables() -> None:
    """evidence/bands.py and decision/answerability.py had a table each: 14 and 15 words, 12 shared."""
    former_bands = {"under", "below", "less than", "lower than", "fewer than", "up to", "at most", "no more than",
                    "over", "above", "more than", "greater than", "at least", "no less than"}
    former_answerability = {"under", "below", "less than", "lower than", "fewer than", "over", "above", "more than",
                            "greater than", "higher than", "at least", "at most", "no more than", "not more than",
                            "up to"}
    # and "not less than", which only the quantity check's qualifiers had
    assert set(BOUND_WORDS) == former_bands | former_answerability | {"not less than"}
    assert len(BOUND_WORDS) == 17  # 14 + "higher than", "not more than" + "not less than"


def test_bound_op_rejects_what_is_no_bound() -> None:
    with pytest.raises(ValueError, match="not a bound: 'about'"):
        bound_op("about")


def test_bound_alternation_takes_the_longest_words() -> None:
    assert re.match(BOUND, "no more than 5").group(0) == "no more than"
    assert re.match(BOUND, "<= 5").group(0) == "<="
    assert re.fullmatch(bound_pattern(">", "≥"), "no less than")
    assert re.fullmatch(bound_pattern(">", "≥"), "no more than") is None
    assert re.fullmatch(bound_pattern("<", "≤", extra=("within",)), "within")
    assert re.fullmatch(bound_pattern("<", "≤"), "=<") is None  # "=<" / "=>" are arrows in notes


@pytest.mark.parametrize(("value", "op", "bound", "expected"), [
    (55, "<", 60, True), (60, "<", 60, False), (60, "≤", 60, True), (61, "≤", 60, False),
    (61, ">", 60, True), (60, ">", 60, False), (60, "≥", 60, True), (59, "≥", 60, False),
])
def test_within_bound(value: float, op: str, bound: float, expected: bool) -> None:
    assert within_bound(value, op, bound) is expected


def test_number_with_unit_groups_number_and_unit() -> None:
    any_unit = re.compile(number_with_unit(UNIT_WORD), re.IGNORECASE)
    assert any_unit.findall("CrCl 70 mL/min, weight 55kg, 4.5% and x3 mg") == [
        ("70", "mL/min"), ("55", "kg"), ("4.5", "%")]  # "3" of "x3" is inside a word
    question = re.compile(number_with_unit(unit_pattern(("mg", "kg")), NUMBER_OR_COMMA) + r"(?![\w])", re.I)
    assert question.findall("1,5 mg for 55 kg, not 12 mgs") == [("1,5", "mg"), ("55", "kg")]
    assert QUANTITY.findall("vancomycin 1,5 g at 55 kg") == [("1,5", "g"), ("55", "kg")]


# --- every reader reads the same grammar ---------------------------------------------------------------


@pytest.mark.parametrize(("cell", "low", "high", "low_closed", "high_closed", "unit"), [
    ("50-90", 50, 90, True, True, ""),
    ("50–90 mL/min", 50, 90, True, True, "ml/min"),
    ("50 to 90", 50, 90, True, True, ""),
    ("90-50", 50, 90, True, True, ""),
    ("> 6.0", 6.0, math.inf, False, True, ""),
    ("≥ 7", 7, math.inf, True, True, ""),
    ("=> 7", 7, math.inf, True, True, ""),
    ("< 15 or dialysis", -math.inf, 15, True, False, ""),
    ("under 50 kg", -math.inf, 50, True, False, "kg"),
    ("not more than 60 kg", -math.inf, 60, True, True, "kg"),  # only answerability's table had it
    ("higher than 100", 100, math.inf, False, True, ""),  # only answerability's table had it
    ("not less than 30", 30, math.inf, True, True, ""),  # only the quantity check had it
    ("< 30-35 mL/min", -math.inf, 35, True, False, "ml/min"),  # a bound on a range of cut-offs: its farther end
    ("≥ 30–35", 30, math.inf, True, True, ""),
])
def test_read_band_in_words_and_symbols(cell: str, low: float, high: float, low_closed: bool, high_closed: bool,
                                        unit: str) -> None:
    band = read_band(cell)
    assert band is not None
    assert (band.low, band.high, band.low_closed, band.high_closed, band.unit) == (low, high, low_closed,
                                                                                   high_closed, unit)


def _kg(number: str) -> KeyTerm:
    return KeyTerm(f"{number} kg", "quantity", number)


@pytest.mark.parametrize(("passage", "number", "expected"), [
    ("body weight ≤ 60 kg", "55", True),
    ("body weight under 60 kg", "55", True),
    ("body weight under 60 kg", "60", False),
    ("weight 50-59 kg", "55", True),
    ("weight 50–59 kg", "55", True),
    ("weight 50 to 59 kg", "59", True),
    ("weight > 60 kg", "55", False),
    ("weight no less than 60 kg", "65", True),  # only the bands' table had "no less than"
    ("weight no less than 60 kg", "55", False),
    ("weight =< 60 kg", "60", True),  # "=<" was read as "<" from its second character
    # a bound on a range of cut-offs holds up to its farther end: below 30 for sure, 30-35 by some sources
    ("weight < 30-35 kg", "25", True),
    ("weight < 30-35 kg", "32", True),
    ("weight < 30-35 kg", "40", False),
    ("weight ≥ 30-35 kg", "25", False),
    ("weight ≥ 30-35 kg", "40", True),
])
def test_within_stated_bound_reads_the_same_bounds(passage: str, number: str, expected: bool) -> None:
    assert within_stated_bound(_kg(number), passage) is expected


def test_no_reader_keeps_its_own_copy_of_the_grammar() -> None:
    for module in (bands, answerability, mentions):
        assert not hasattr(module, "_WORD_OPS") and not hasattr(module, "_BOUND_WORDS")
    for module in (bands, asks):
        assert not hasattr(module, "_DASHES")
    assert extractive._norm_dash("NEWS2 5\u20136") == "news2 5-6"
    # the question's quantities are read once, in question/ (issue 48 item 1), with the one grammar
    assert asks._Q_QUANTITY.pattern == number_with_unit(UNIT_WORD) and not hasattr(extractive, "_Q_QUANTITY")


@pytest.mark.parametrize(("text", "qualifier", "cue"), [
    ("lower than 5 mg", "upper", "lower than"),  # the quantity check lacked "lower than" / "higher than"
    ("higher than 300 mg/dL", "lower", "higher than"),
    ("no less than 5 days", "lower", "no less than"),  # was "upper" from its last two words "less than"
    ("not less than 12 days", "lower", "not less than"),
    ("not more than 4 g", "upper", "not more than"),
    ("not exceeding 4 g", "upper", "not exceeding"),
    ("less than 5 mg", "upper", "less than"),
    ("for 5 days", "duration", "for"),
])
def test_the_quantity_check_reads_the_same_bound_words(text: str, qualifier: str, cue: str) -> None:
    (q,) = extract_quantities(text)
    assert (q.qualifier, q.cue) == (qualifier, cue)


def test_one_spelled_number_table() -> None:
    from clinqa.question.time import NUMBER_WORDS

    assert SPELLED_NUMBERS["one"] == 1 and SPELLED_NUMBERS["twenty"] == 20 and len(SPELLED_NUMBERS) == 20
    assert NUMBER_WORDS == {**SPELLED_NUMBERS, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3}


@pytest.mark.parametrize(("text", "is_duration"), [
    ("for 3-6 months", True), ("for 3–6 months", True), ("3 to 6 months", True), ("7 days", True),
    ("six weeks", True), ("several weeks", True), ("a few days", True), ("1.5 years", True),
    ("fourteen days", True),  # "one" to "twelve" only before: the duration table now spells to twenty
    ("lifelong", True), ("twice daily", False), ("5 mg", False),
])
def test_a_stated_duration_reads_the_same_numbers(text: str, is_duration: bool) -> None:
    assert bool(DURATION.search(text)) is is_duration


@pytest.mark.parametrize(("question", "text", "match"), [
    ("abx in the last 90d?", "90d", "90"),  # "d" for days, glued to the number
    ("stop it 48hrs before surgery?", "48hrs", "48"),
    ("still bleeding after 6wks?", "6wks", "6"),
    ("fluids in the first 8 hrs?", "8 hrs", "8"),
    ("door to needle within 60 min?", "60 min", "60"),
])
def test_a_question_reads_every_duration_unit_as_a_quantity(question: str, text: str, match: str) -> None:
    """The question's quantity grammar takes every unit a stated duration is read with (one unit list:
    QUESTION_UNITS includes DURATION_UNITS), so "48hrs" is the number 48 the passages must hold, not a rare word."""
    from clinqa.question.terms import key_terms
    from clinqa.text.quantities import DURATION_UNITS, QUESTION_UNITS

    assert set(DURATION_UNITS) <= set(QUESTION_UNITS)
    quantities = [(t.text, t.match) for t in key_terms(question) if t.kind == "quantity"]
    assert quantities == [(text, match)]


def test_bound_cutoff_is_the_far_end_of_a_range_of_cutoffs() -> None:
    from clinqa.text.quantities import bound_cutoff

    assert bound_cutoff("<", 30.0, 35.0) == 35.0 and bound_cutoff("≤", 30.0, 35.0) == 35.0
    assert bound_cutoff(">", 30.0, 35.0) == 30.0 and bound_cutoff("≥", 30.0, 35.0) == 30.0
    assert bound_cutoff("<", 30.0) == 30.0 and bound_cutoff("≥", 30.0) == 30.0
