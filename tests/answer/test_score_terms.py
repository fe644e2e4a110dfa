"""Each term of the extractive answer's unit score (:data:`clinqa.answer.extractive.SCORE_TERMS`) against its
value computed by hand, and their sum (:func:`clinqa.answer.extractive.unit_scores`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clinqa.answer.extractive import SCORE_TERMS, Candidates, unit_scores
from clinqa.chunking.units import unit_records
from clinqa.question.asks import read_asks
from clinqa.settings import UnitScoring
from tiny_data import FlatEncoder, chunk_hit

TERMS = {t.name: t for t in SCORE_TERMS}


def candidates(question: str, passages: list[tuple[list[str], str]]) -> Candidates:
    """Candidates of ``passages`` (section path, body), one hit each, for ``question``."""
    hits = [chunk_hit(f"d#s#{i}", body, i + 1, section) for i, (section, body) in enumerate(passages)]
    units = [(hi, u) for hi, h in enumerate(hits) for u in unit_records(h.chunk.body)]
    return Candidates(hits, read_asks(question), units)


def values(name: str, c: Candidates) -> list[float] | None:
    v = TERMS[name].score(c)
    return None if v is None else [round(float(x), 6) for x in v]


def test_table_names_each_setting_once_per_term() -> None:
    assert [t.name for t in SCORE_TERMS[:8]] == ["lexical", "qualifier", "band", "heading", "list", "date",
                                                 "number", "cell"]
    fields = set(UnitScoring.model_fields)
    assert all(t.setting in fields and t.reason for t in SCORE_TERMS)


def test_lexical_term_by_hand() -> None:
    # question stems {heparin, dose}; unit 1 has both (dose through its heading "Dosing"), unit 2 only "dose"
    c = candidates("heparin dose?", [(["Sepsis", "Dosing"], "Give heparin 5 mg daily.\n\nInsulin is stopped.")])
    assert [u.text for _, u in c.keep] == ["Give heparin 5 mg daily.", "Insulin is stopped."]
    # N = 2 units: idf(heparin) = ln(1 + 2/2), idf(dose) = ln(1 + 2/3)
    hep, dose = math.log(2.0), math.log(1 + 2 / 3)
    assert values("lexical", c) == [1.0, round(dose / (hep + dose), 6)]  # 0.424332
    assert values("lexical", candidates("", [(["A"], "Heparin.")])) is None


def test_qualifier_band_and_heading_terms_by_hand() -> None:
    c = candidates("heparin dose in outpatients", [(["Outpatient Dosing"], "Heparin 5 mg."),
                                                    (["Monitoring"], "Heparin levels weekly.")])
    assert values("qualifier", c) == [1.0, 0.0]   # "Outpatient" states the question's qualifier
    assert values("heading", c) == [1.0, 0.0]     # "Dosing" names the kind asked for (a dose)
    assert values("band", c) is None              # no value named
    b = candidates("NEWS2 score of 5 response", [(["NEWS2 Score 5-6"], "Urgent response by a clinician."),
                                                 (["Response"], "Escalate the response.")])
    assert values("band", b) == [1.0, 0.0]       # 5 is in the 5-6 band; "Response" files under no band
    assert values("qualifier", b) is None


def test_list_date_number_terms_by_hand() -> None:
    c = candidates("What are the sepsis criteria?",
                   [(["Sepsis Criteria"], "Sepsis is common.\n\n- Fever over 38 C\n- Septic shock present")])
    # question stems {sepsi, criteria}: an item's intro+label+headings "Sepsis Criteria" hold 2 of 2; a sentence 0
    assert values("list", c) == [0.0, 1.0, 1.0]
    d = candidates("When was heparin approved?", [(["History"], "Heparin was approved in 1939.\n\nHeparin is old.")])
    assert values("date", d) == [1.0, 0.0]
    assert values("number", d) is None            # "when was" asks for a date, not a number
    n = candidates("heparin dose?", [(["Heparin"], "Heparin 5 mg daily.\n\nHeparin for NIHSS 5-15.")])
    assert values("number", n) == [1.0, 0.0]      # a dose is an amount with its unit; a score band is not


def test_cell_term_by_hand() -> None:
    body = ("| CrCl (mL/min) | Dose |\n|---|---|\n| 50-90 | 15 mg/kg |\n| 15-29 | 10 mg/kg |\n\n"
            "Vancomycin is renally cleared.")
    c = candidates("vancomycin dose for CrCl 20 mL/min", [(["Vancomycin Dosing"], body)])
    # the 50-90 row is dropped (its band excludes 20): candidates are the 15-29 row and the sentence
    assert [u.kind for _, u in c.keep] == ["row", "sentence"]
    assert values("cell", c) == [1.0, 0.0]


def test_unit_scores_sum_by_hand() -> None:
    c = candidates("heparin dose in outpatients", [(["Outpatient Dosing"], "Heparin 5 mg."),
                                                    (["Monitoring"], "Heparin levels weekly.")])
    c.embed(np.ones(3, dtype=np.float32) / np.sqrt(3), FlatEncoder(), 0.6)
    # FlatEncoder: every cosine 1; chunk_hit's dense score 0.5 -> base 0.6 * 1 + 0.4 * 0.5 = 0.8
    assert [round(float(x), 5) for x in c.base] == [0.8, 0.8]
    sc = UnitScoring(parts=True)  # issue 50's kind/value/item terms count only with answer.scoring.parts
    # unit 1: stems {heparin, dose, outpati}: all three (idf-weighted share 1); qualifier, heading, number and
    # kind (a dose question asks what to give; "Heparin 5 mg." gives an amount)
    # unit 2: heparin only: idf(heparin) = ln(1 + 2/3), idf(dose) = idf(outpati) = ln(1 + 2/2); no other term
    h, o = math.log(1 + 2 / 3), math.log(2.0)
    share2 = h / (h + 2 * o)
    expected = [0.8 + 0.3 * 1.0 + 0.15 + 0.15 + 0.1 + 0.15, 0.8 + 0.3 * share2]
    assert [float(x) for x in unit_scores(c, sc)] == pytest.approx(expected, abs=1e-5)


def test_kind_term_by_hand() -> None:
    c = candidates("asthma attack: what to give?", [
        (["Asthma", "Definition"], "Asthma is a chronic disease of the airways."),
        (["Asthma", "Management"], "Give salbutamol 5 mg by nebuliser for an asthma attack.\n\nAsthma affects many."),
    ])
    # a definition line states no dose: -1; a line of giving: +1; a line of neither: 0
    assert values("kind", c) == [-1.0, 1.0, 0.0]
    assert values("kind", candidates("What are the asthma criteria?", [(["A"], "Asthma is common.")])) is None


def test_value_term_by_hand() -> None:
    table = ("| Risk Group | Score | Action |\n|---|---|---|\n| Low | 0-2 | Conservative strategy here |\n"
             "| High | 5-7 | Angiography within a day |\n\nThe TIMI score runs from 0 to 7 points.")
    c = candidates("TIMI score 5 risk", [(["TIMI"], table)])
    # the 0-2 row is no candidate (its band excludes 5); the 5-7 row holds 5; the sentence's range is no
    # choice among bands
    assert [u.kind for _, u in c.keep] == ["row", "sentence"]
    assert values("value", c) == [1.0, 0.0]
    assert values("value", candidates("TIMI risk", [(["TIMI"], table)])) is None


def test_item_term_by_hand() -> None:
    body = ("- Quinaban: Standard dose is 5 mg twice daily.\n- Dabinex: Standard dose is 150 mg twice daily.\n"
            "- Edonex: Standard dose is 60 mg once daily.")
    c = candidates("Dabinex dose?", [(["Anticoagulants", "DOAC Dosing"], body)])
    assert values("item", c) == [-1.0, 1.0, -1.0]  # "dabinex" names one item of three
    # items labelled by what they give ("Eligibility:", "Dose:") under a heading that names the drug: all name it
    labelled = "- Eligibility: severe eosinophilic asthma in adults.\n- Dose: 100 mg SC every 4 weeks for adults."
    m = candidates("mepolizumab dose for eosinophilic asthma", [(["Biologics", "Mepolizumab"], labelled)])
    assert values("item", m) == [0.0, 0.0]
    # not a dose or treatment question: no term
    assert values("item", candidates("What is Dabinex?", [(["A"], body)])) is None


def test_text_bands_are_bands_without_a_unit_of_measure() -> None:
    from clinqa.evidence.bands import text_bands

    inf = math.inf
    assert text_bands("High risk 5-7") == [(5.0, 7.0, True, True)]
    assert text_bands("ABCD2 ≥ 3 should be hospitalized") == [(3.0, inf, True, True)]
    assert text_bands("score > 2 points") == [(2.0, inf, False, True)]
    assert text_bands("< 15") == [(-inf, 15.0, True, False)]
    # an amount, a percentage, a rate or a duration is no score band
    assert text_bands("5-10 mg daily; SpO2 >= 94%; CrCl 30-50 mL/min; for 4-6 hours") == []
