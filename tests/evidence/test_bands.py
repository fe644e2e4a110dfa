"""Bands of table rows and headings (issue 42 item 2): a numeric question is answered by the row or section
whose band holds its value, the row quoted whole; values computed by hand."""

from __future__ import annotations

import math

import pytest

from clinqa.answer.extractive import extract_answer
from clinqa.chunking.base import Chunk
from clinqa.chunking.units import unit_records
from clinqa.evidence.bands import (
    Band,
    header_unit,
    heading_bands,
    heading_fit,
    read_band,
    row_holds_quantity,
    same_unit,
    table_rows,
    value_holders,
)
from clinqa.evidence.mentions import _passage_index, mentions
from clinqa.question.asks import named_values, read_asks
from clinqa.question.terms import KeyTerm
from tiny_data import FlatEncoder, GivenDocuments, chunk_hit

VANCO = ("Adjust the maintenance dose to creatinine clearance using the table below.\n\n"
         "| CrCl (mL/min) | Maintenance dose | Interval |\n|---|---|---|\n"
         "| > 90 | 15 mg/kg | every 12 hours |\n| 50-90 | 15 mg/kg | every 24 hours |\n"
         "| 30-49 | 10 mg/kg | every 24 hours |\n| 15–29 | 10 mg/kg | every 48 hours |\n"
         "| < 15 or dialysis | 10 mg/kg | after each dialysis session |")


@pytest.mark.parametrize(("cell", "low", "high", "low_closed", "high_closed", "unit"), [
    ("50-90", 50, 90, True, True, ""),
    ("15–29", 15, 29, True, True, ""),  # en dash
    ("**4.0-6.0**", 4.0, 6.0, True, True, ""),
    ("50 to 90 mL/min", 50, 90, True, True, "ml/min"),
    ("90-50", 50, 90, True, True, ""),
    ("> 6.0", 6.0, math.inf, False, True, ""),
    ("≥ 7", 7, math.inf, True, True, ""),
    ("< 15 or dialysis", -math.inf, 15, True, False, ""),
    ("under 50 kg", -math.inf, 50, True, False, "kg"),
    ("<= 30", -math.inf, 30, True, True, ""),
])
def test_a_cell_that_starts_with_a_range_or_bound_is_a_band(cell, low, high, low_closed, high_closed, unit) -> None:
    b = read_band(cell)
    assert b is not None
    assert (b.low, b.high, b.low_closed, b.high_closed, b.unit) == (low, high, low_closed, high_closed, unit)


@pytest.mark.parametrize("cell", ["10-15 mg/L for uncomplicated infections", "15 mg/kg", "CKD stage 1-2",
                                  "every 24 hours", "90 or more", ""])
def test_a_value_cell_is_no_band(cell) -> None:
    assert read_band(cell) is None


def test_band_ends() -> None:
    assert Band(50, 90).holds(50) and Band(50, 90).holds(90) and not Band(50, 90).holds(90.5)
    assert not Band(90, math.inf, low_closed=False).holds(90) and Band(90, math.inf, low_closed=False).holds(91)
    assert Band(-math.inf, 15, high_closed=False).holds(14.9) and not Band(-math.inf, 15, high_closed=False).holds(15)


def test_header_units_and_unit_naming() -> None:
    assert header_unit("CrCl (mL/min)") == "ml/min"
    assert header_unit("Weight, kg") == "kg"
    assert header_unit("eGFR (mL/min/1.73 m2)") == "ml/min/1.73m2"
    assert header_unit("Dose") == ""
    assert same_unit("ml", "ml/min") and same_unit("kg", "kg") and same_unit("ML/min", "ml/min")
    assert same_unit("mg", "mg/kg/day")  # a prefix before "/" counts, as the passage-text rule reads "ml" of "ml/min"
    assert not same_unit("ml", "mmol/l") and not same_unit("", "kg")
    # read in their canonical spelling ("h" is "hour"); a question's ratio unit names the quantity reader's shorter
    # ratio ("0.5 mL/kg/h" is read "mL/kg"), but not a plain unit ("mL/min" is no "mL")
    assert same_unit("h", "hour") and same_unit("hrs", "hour") and same_unit("ml/kg/h", "mL/kg")
    assert not same_unit("ml/min", "ml") and not same_unit("h", "mg")


def test_a_quantity_is_held_by_the_row_of_its_band() -> None:
    rows = table_rows(VANCO)
    assert [r.cells[0][1] for r in rows] == ["> 90", "50-90", "30-49", "15–29", "< 15 or dialysis"]
    assert row_holds_quantity(rows, 70, "ml")  # 50-90
    assert row_holds_quantity(rows, 10, "ml")  # < 15
    assert not row_holds_quantity(rows, 70, "kg")  # another unit
    assert table_rows("No table here.") == ()


def test_the_key_term_test_finds_a_quantity_in_a_band_row() -> None:
    """Found by a new user: "...creatinine clearance 70 mL/min?" was refused: "do not mention 70 ml"."""
    term = KeyTerm("70 ml", "quantity", "70")
    assert mentions(term, _passage_index(VANCO))
    assert not mentions(KeyTerm("70 kg", "quantity", "70"), _passage_index(VANCO))
    # the same rows written without line breaks are no table: nothing to read a band from
    assert not mentions(term, _passage_index(" ".join(VANCO.split())))


def test_values_the_question_gives_and_bands_headings_give() -> None:
    assert named_values("NEWS2 score of 5 - what clinical response?") == (("score", 5.0),)
    assert named_values("vanc dose CrCl 20?") == (("crcl", 20.0),)
    # "67F" is an age: a value of "age", not of "67f", as bands of age are written ("Age >= 75 years")
    assert named_values("67F, AF, CrCl 26 - apixaban dose?") == (("crcl", 26.0), ("age", 67.0))
    assert named_values("STEMI, 80 years old - enoxaparin?") == (("age", 80.0),)
    assert named_values("age 70, CHA2DS2-VASc?") == (("age", 70.0),)  # named already: once
    assert named_values("10 years of diabetes") == ()  # a duration, no age
    # a single number "and older" / "or younger" is a bound, not a band of one value
    assert heading_bands("FDA-approved for patients age 8 years and older")[0] == ("age", Band(8, math.inf, text="8"))
    assert heading_bands("Age 65 or younger: lower dose")[0] == ("age", Band(-math.inf, 65, text="65"))
    assert named_values("What FIB-4 cutoff means high risk?") == ()
    assert named_values("review in 2 weeks") == ()
    assert heading_bands("NEWS2 Score 5–6 — Urgent Response") == [("score", Band(5, 6, text="5-6")),
                                                                  ("news2", Band(5, 6, text="5-6"))]
    assert heading_bands("Score of 3 in Any Single Parameter") == [("score", Band(3, 3, text="3"))]
    q = "NEWS2 score of 5 - what clinical response?"
    assert heading_fit("Response Algorithm NEWS2 Score 5–6 — Urgent Response", named_values(q)) is True
    assert heading_fit("Response Algorithm NEWS2 Score 0 — Routine Monitoring", named_values(q)) is False
    assert heading_fit("NEWS2 Score ≥ 7 — Emergency Response", named_values(q)) is False
    assert heading_fit("Limitations", named_values(q)) is None
    assert heading_fit("Step 5", named_values("asthma step 1 preferred reliever")) is False


def test_a_numeric_question_quotes_the_row_of_its_band_whole() -> None:
    """Found by a new user: "CrCl 20?" quoted "15-29, Maintenance dose: 10 mg/kg." without the interval
    column, and "70 mL/min" reached no row."""
    enc = FlatEncoder()
    hit = chunk_hit("vanco#renal#0", VANCO, 1, ["Vancomycin", "Renal dose adjustment"])
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, [hit], enc, asked=read_asks("vanc dose CrCl 20?"))
    assert "CrCl (mL/min) 15–29, Maintenance dose: 10 mg/kg; Interval: every 48 hours" in ext.text
    assert "every 12 hours" not in ext.text and "50-90" not in ext.text
    ext = extract_answer(q, [hit], enc,
                         asked=read_asks("vancomycin maintenance dose for creatinine clearance 70 mL/min?"))
    assert "CrCl (mL/min) 50-90, Maintenance dose: 15 mg/kg; Interval: every 24 hours" in ext.text
    assert "15–29" not in ext.text and "> 90" not in ext.text
    ext = extract_answer(q, [hit], enc, asked=read_asks("vancomycin dose CrCl 10"))
    assert "CrCl (mL/min) < 15 or dialysis, Maintenance dose: 10 mg/kg; Interval: after each dialysis session" \
        in ext.text


def test_a_section_filed_under_another_band_is_not_quoted() -> None:
    """Found by a new user: "NEWS2 score of 5" quoted the score-0 section's "Routine care"."""
    enc = FlatEncoder()
    hits = [chunk_hit("n#0#0", "- Clinical Response: Routine care. No escalation required.", 1,
                      ["NEWS2", "Response Algorithm", "NEWS2 Score 0 — Routine Monitoring"]),
            chunk_hit("n#5#0", "- Clinical Response: Urgent assessment within 60 minutes by a clinician.", 2,
                      ["NEWS2", "Response Algorithm", "NEWS2 Score 5–6 — Urgent Response"]),
            chunk_hit("n#7#0", "- Clinical Response: Emergency assessment by a critical care team.", 3,
                      ["NEWS2", "Response Algorithm", "NEWS2 Score ≥ 7 — Emergency Response"])]
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc,
                         asked=read_asks("NEWS2 score of 5 - clinical response?"))
    assert "within 60 minutes" in ext.text and "Routine care" not in ext.text and "Emergency" not in ext.text


def test_the_word_before_a_bands_name_names_it_too() -> None:
    """Found by a new user: "NEWS2 of 7, what now?" quoted the score-0 section: the heading's band is of
    "NEWS2 Score", the question names "NEWS2"."""
    q = "NEWS2 of 7, what now?"
    assert heading_fit("Response Algorithm NEWS2 Score 0 — Routine Monitoring", named_values(q)) is False
    assert heading_fit("NEWS2 Score ≥ 7 — Emergency Response", named_values(q)) is True


def test_a_band_section_beyond_the_search_is_read_from_its_document() -> None:
    """The retrieved sections of a document filed by bands hold other bands ("Score 0", "Score 1–4"); the section
    of the question's value is added from that document, never from another one."""
    from clinqa.evidence.passages import band_sections

    path = ["NEWS2", "Response Algorithm"]
    zero = chunk_hit("n#zero#0", "- Clinical Response: Routine care.", 1, [*path, "NEWS2 Score 0 — Routine"])
    limits = chunk_hit("n#lim#0", "NEWS2 does not account for the trajectory of change.", 2, ["NEWS2", "Limitations"])
    seven = Chunk(chunk_id="n#seven#0", doc_id="n", text="x", body="- Clinical Response: Emergency assessment.",
                  title="T", section_path=[*path, "NEWS2 Score ≥ 7 — Emergency Response"])
    other = Chunk(chunk_id="m#seven#0", doc_id="m", text="x", body="x", title="T",
                  section_path=["Other", "Score ≥ 7"])
    section_chunks = GivenDocuments({"n": [seven, other]}, other=[other])

    out = band_sections(read_asks("NEWS2 of 7, what now?"), [zero, limits], [limits], section_chunks)
    assert [h.chunk.chunk_id for h in out] == ["n#lim#0", "n#seven#0"] and section_chunks.asked == ["n"]
    assert band_sections(read_asks("NEWS2 response?"), [zero, limits], [limits], section_chunks) == [limits]  # no value
    # the list of the band's section is quoted whole: its response items are the answer for that band
    enc = FlatEncoder()
    body = "- Clinical Risk: High\n- Monitoring: Continuous\n- Clinical Response: Emergency assessment within 30 min."
    hit = chunk_hit("n#seven#0", body, 3, [*path, "NEWS2 Score ≥ 7 — Emergency Response"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [limits, hit], enc, max_sentences=1,
                         asked=read_asks("NEWS2 of 7?"))
    assert "Emergency assessment within 30 min" in ext.text and "Clinical Risk: High" in ext.text


def test_each_thing_a_line_gives_a_band_of_must_hold_its_value() -> None:
    """A line keyed by bands of several things ("Group B (Age < 80): NIHSS >= 10 AND core < 31 mL") is the line of a
    patient only when each band the question gives a value for holds it; the bands of one thing are alternatives.
    Hand values: age 84 is outside [-inf, 80) and inside [80, inf); NIHSS 14 is inside [10, inf)."""
    from clinqa.evidence.bands import band_fit

    values = (("nihss", 14.0), ("age", 84.0))
    assert heading_fit("Group A (Age ≥ 80): NIHSS ≥ 10 AND infarct core < 21 mL", values) is True
    assert heading_fit("Group B (Age < 80): NIHSS ≥ 10 AND infarct core < 31 mL", values) is False
    assert heading_fit("Group B (Age < 80): NIHSS ≥ 10", (("nihss", 14.0),)) is True  # no age given: NIHSS decides
    assert heading_fit("Infarct core < 31 mL", values) is None
    score = heading_bands("Score 0-4") + heading_bands("Score 5-6")  # two bands of one thing: either may hold
    assert band_fit(score, (("score", 5.0),)) is True and band_fit(score, (("score", 7.0),)) is False


def test_the_line_of_the_patients_age_group_is_quoted() -> None:
    """The made-up selection table of a thrombectomy trial: an 84-year-old with NIHSS 14 gets the age >= 80 group's
    line, not the other group's, whose NIHSS band also holds 14."""
    from clinqa.answer.extractive import extract_answer
    from clinqa.question.asks import read_asks
    from tiny_data import FlatEncoder, chunk_hit

    body = ("Selection criteria, 6-24 hours:\n\n- Group A (Age ≥ 80): NIHSS ≥ 10 AND infarct core < 21 mL\n"
            "- Group B (Age < 80): NIHSS ≥ 10 AND infarct core < 31 mL")
    enc = FlatEncoder()
    hit = chunk_hit("trial#selection#0", body, 1, ["Thrombectomy", "Late window"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc,
                         asked=read_asks("84-year-old, NIHSS 14, 10 hours from onset - thrombectomy criteria?"))
    assert "core < 21 mL" in ext.text and "core < 31 mL" not in ext.text, ext.text


def test_a_cell_naming_its_bands_thing_past_the_first_column_gives_the_row_its_band() -> None:
    """A made-up monitoring table keyed by risk group, the bands in the second column after the score's name."""
    table = ("| Risk | Result | Action |\n|---|---|---|\n| Low | SCOREX < 1.3 | Recheck in 2 years |\n"
             "| Middle | SCOREX 1.3-2.67 | Second test |\n| High | SCOREX > 2.67 or scan > 12 kPa | Refer |\n")
    rows = [u for u in unit_records(table) if u.kind == "row"]
    assert value_holders(rows, [("scorex", 3.1)]) == [False, False, True]
    assert value_holders(rows, [("scorex", 2.0)]) == [False, True, False]
    # a lone number after a word is no band of it there: "resolves within 48 hours" for "within 36 hrs"
    timed = ("| Grade | Definition |\n|---|---|\n| Mild | No organ failure |\n"
             "| Moderate | Organ failure (resolves within 48 hours) |\n")
    assert value_holders([u for u in unit_records(timed) if u.kind == "row"], [("within", 36.0)]) == [False, False]
