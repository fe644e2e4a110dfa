"""Issue 50: quote the part that answers. Each mechanism on a case written for it (a made-up guideline, not
from any benchmark set): sibling sections chosen by the question's qualifiers, a list split over chunks read
on, treatment lines for "what to give", the band row of a score value, where a line comes from, and the cut
of the other passages' padding."""

from __future__ import annotations

import pytest

from clinqa.answer.extractive import extract_answer, under_note
from clinqa.chunking.base import Chunk
from clinqa.chunking.units import unit_records
from clinqa.evidence.bands import value_holders
from clinqa.evidence.passages import qualifier_fit, sibling_sections, with_siblings
from clinqa.question.asks import named_values, read_asks
from clinqa.retrieval.hybrid import Retrieved
from clinqa.settings import UnitScoring
from tiny_data import FlatEncoder, GivenDocuments, chunk_hit

#: issue 50's mechanisms are off by default (answer.scoring.parts): these tests turn them on
PARTS = UnitScoring(parts=True)

ENC = FlatEncoder()
Q = ENC.encode_queries(["x"])[0]


def _chunk(cid: str, body: str, section: list[str], index: int = 0) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title="T", section_path=section,
                 chunk_index=index)


# --- 1. headings are text: a qualifier heading chooses among sibling sections ----------------------------

COMORBID = ["Pneumonia", "Outpatient Treatment", "Adults With Comorbidities"]
HEALTHY = ["Pneumonia", "Outpatient Treatment", "Healthy Adults Without Comorbidities"]
INPATIENT = ["Pneumonia", "Inpatient Treatment"]


def test_qualifier_fit_by_hand() -> None:
    q = "outpatient pneumonia antibiotics for a healthy adult"
    quals = list(read_asks(q).qualifiers)  # outpatient, adults
    from clinqa.answer.extractive import _stems

    stems = _stems(q)
    # adults named +1, states "adults" +1, "with comorbidities" not asked -1
    assert qualifier_fit("Adults With Comorbidities", stems, quals) == 1.0
    # healthy +1, adults +1, states adults +1 (the object of "without" counts neither way)
    assert qualifier_fit("Healthy Adults Without Comorbidities", stems, quals) == 3.0
    # the opposite of "outpatient" -2, "inpatient" is a qualifier word the question does not name -0.5
    assert qualifier_fit("Inpatient Treatment", stems, quals) == -2.5
    # another population than the one asked -2, the opposite of "adults" -2, "children" unnamed -0.5
    assert qualifier_fit("Children", stems, quals) == -4.5


def test_a_sibling_section_that_fits_the_qualifiers_better_is_quoted_instead() -> None:
    doc = [_chunk("cap#adults-with#0", "- Levofloxacin 750 mg orally once daily.", COMORBID),
           _chunk("cap#healthy#0", "- Amoxicillin 1 g orally three times daily.", HEALTHY),
           _chunk("cap#inpatient#0", "- Ceftriaxone 1 g IV daily plus azithromycin.", INPATIENT)]
    hits = [chunk_hit("cap#adults-with#0", doc[0].body, 1, COMORBID)]
    q = "outpatient pneumonia antibiotics for a healthy adult"
    out = sibling_sections(read_asks(q), hits, GivenDocuments(other=doc))
    assert [h.chunk.chunk_id for h in out] == ["cap#healthy#0"]
    assert out[0].rank == 1  # in the place of the hit it replaces
    ext = extract_answer(Q, out, ENC, asked=read_asks(q), scoring=PARTS)
    assert "Amoxicillin" in ext.text and "Levofloxacin" not in ext.text
    # a question about comorbidities keeps its section
    q2 = "outpatient pneumonia antibiotics for an adult with comorbidities"
    kept = sibling_sections(read_asks(q2), hits, GivenDocuments(other=doc))
    assert [h.chunk.chunk_id for h in kept] == ["cap#adults-with#0"]
    # a heading that qualifies nothing ("Dosing") is never swapped
    plain = [chunk_hit("cap#dosing#0", "- Amoxicillin 1 g.", 1, ["Pneumonia", "Dosing"])]
    assert sibling_sections(read_asks(q), plain, GivenDocuments(other=doc)) == plain


# --- 2. whole structures: a dosing list split over two chunks ---------------------------------------------

DOSING = ["Anticoagulation", "DOAC Dosing"]
PART1 = ("Standard dosing in atrial fibrillation:\n\n- Quinaban: Standard dose is 5 mg BID.\n\n"
         "- Rivoxaban: Standard dose is 20 mg once daily.")
PART2 = "- Dabinex: Standard dose is 150 mg BID.\n\n- Edonex: Standard dose is 60 mg once daily."


def test_a_dosing_list_split_over_chunks_is_read_on_and_the_asked_drug_quoted() -> None:
    stored = {"af#dosing#1": _chunk("af#dosing#1", PART2, DOSING, 1)}
    hits = [chunk_hit("af#dosing#0", PART1, 1, DOSING)]
    q = "Dabinex dose in atrial fibrillation?"
    quoted = with_siblings(hits, read_asks(q), lambda ids: [stored[i] for i in ids if i in stored])
    assert [h.chunk.chunk_id for h in quoted] == ["af#dosing#0", "af#dosing#1"]
    ext = extract_answer(Q, quoted, ENC, asked=read_asks(q), scoring=PARTS)
    assert ext.text.startswith("Dabinex: Standard dose is 150 mg BID.")
    assert "Quinaban" not in ext.text and "Edonex" not in ext.text  # the asked drug's item, not its neighbours'


# --- 3. the asked-for kind ----------------------------------------------------------------------------------

def test_what_to_give_quotes_treatment_lines_not_definitions_or_discharge_criteria() -> None:
    hits = [chunk_hit("ast#def#0", "An exacerbation is an acute worsening of asthma symptoms.", 1,
                      ["Asthma Exacerbation", "Definition"]),
            chunk_hit("ast#dis#0", "- SpO2 at least 94% on room air in asthma exacerbation.", 2,
                      ["Asthma Exacerbation", "Discharge Criteria"]),
            chunk_hit("ast#tx#0", "- Give salbutamol 5 mg by nebuliser every 20 minutes in asthma exacerbation.", 3,
                      ["Asthma Exacerbation", "Management"])]
    q = "asthma exacerbation: what to give?"
    # every cosine 1 and the same lexical share: the kind term alone tells them apart (+0.15 the treatment line,
    # -0.15 the definition and the discharge criterion), and the other passages' lines fall 0.3 below the best
    full = extract_answer(Q, hits, ENC, asked=read_asks(q), scoring=UnitScoring(parts=True, drop_below_best=None))
    assert len(full.citations) == 3
    ext = extract_answer(Q, hits, ENC, asked=read_asks(q), scoring=PARTS)
    assert ext.text == "Give salbutamol 5 mg by nebuliser every 20 minutes in asthma exacerbation. [1]"


TIMI = ("| Risk Group | Score | Action |\n|---|---|---|\n| Low Risk | 0-2 | Conservative strategy |\n"
        "| Intermediate Risk | 3-4 | Angiography within 24-72 hours |\n| High Risk | 5-7 | Angiography < 24 hours |")


def test_a_score_value_quotes_the_row_whose_band_holds_it() -> None:
    rows = unit_records(TIMI)
    assert value_holders(rows, named_values("TIMI score 5 risk")) == [False, False, True]
    # one band alone is no choice among bands ("Total Possible Score: 0 to 7 points")
    assert value_holders(unit_records("- Total possible score: 0 to 7 points"), named_values("TIMI score 5")) == [False]
    hit = chunk_hit("timi#strat#0", TIMI, 1, ["TIMI", "Risk Stratification"])
    ext = extract_answer(Q, [hit], ENC, asked=read_asks("TIMI score 5 risk"))
    assert ext.text == ("Risk Group: High Risk; Score: 5-7; Action: Angiography < 24 hours. [1]")


ELASTOGRAPHY = ("- **< 8 kPa:** Advanced fibrosis unlikely; monitor and reassess\n"
                "- **8–12 kPa:** Indeterminate; consider liver biopsy or additional testing\n"
                "- **> 12 kPa:** Advanced fibrosis likely; refer to hepatology")


@pytest.mark.parametrize(("question", "quoted"), [
    ("FibroScan 10 kPa - next step?", "Indeterminate"),
    ("liver stiffness 14 kPa, what now?", "Advanced fibrosis likely"),
])
def test_a_list_keyed_by_bands_quotes_the_item_whose_band_holds_the_quantity(question: str, quoted: str) -> None:
    from clinqa.answer.extractive import _keyed_out

    asked = read_asks(question)
    items = unit_records(ELASTOGRAPHY)
    assert [not _keyed_out(u.text, asked) for u in items].count(True) == 1
    assert [_keyed_out(u.text, read_asks("FIB-4 2.1 - next?")) for u in items] == [False, False, False]  # no kPa asked
    hit = chunk_hit("nafld#vcte#0", ELASTOGRAPHY, 1, ["NAFLD", "VCTE"])
    ext = extract_answer(Q, [hit], ENC, asked=asked)
    assert quoted in ext.text and ext.text.count("kPa") == 1, ext.text


FINERENONE = ("- Indication: Add to maximum tolerated RAS inhibitor in type 2 diabetes and CKD.\n"
              "- Dosing Strategy (requires baseline K+ <= 4.8):\n  - eGFR >= 60: Start finerenone 20 mg daily.\n"
              "  - eGFR 25-59: Start finerenone 10 mg daily.\n- Titration: Check potassium at 1 month.")
ENOXAPARIN = ("- Enoxaparin (Class I):\n  - Age < 75 years: 30 mg IV bolus, then 1 mg/kg SC every 12 hours\n"
              "  - Age >= 75 years: No IV bolus; 0.75 mg/kg SC every 12 hours")


@pytest.mark.parametrize(("body", "question", "kept", "left_out"), [
    (FINERENONE, "T2DM, CKD, eGFR 40 - finerenone starting dose?", "eGFR 25-59: Start finerenone 10 mg", "20 mg"),
    (ENOXAPARIN, "STEMI, 80 years old, fibrinolysis - enoxaparin dose?", "0.75 mg/kg", "30 mg IV bolus"),
    (ENOXAPARIN, "62M STEMI, lysed - enoxaparin?", "30 mg IV bolus", "0.75 mg/kg"),
])
def test_an_items_nested_lines_of_other_bands_are_left_out(body: str, question: str, kept: str,
                                                           left_out: str) -> None:
    hit = chunk_hit("g#dose#0", body, 1, ["Guideline", "Dosing"])
    ext = extract_answer(Q, [hit], ENC, asked=read_asks(question))
    assert kept in ext.text and left_out not in ext.text, ext.text
    # with no value asked, the item is quoted as written
    plain = extract_answer(Q, [hit], ENC, asked=read_asks("enoxaparin and finerenone dosing?")).text
    assert kept in plain and left_out in plain, plain


# --- 4. say where a line comes from -------------------------------------------------------------------------

def test_a_line_under_a_qualifier_heading_the_question_did_not_name_says_so() -> None:
    from clinqa.answer.extractive import _stems

    q = "outpatient pneumonia antibiotics"
    assert under_note(["Pneumonia", "Outpatient Treatment", "Adults With Comorbidities"], _stems(q)) == \
        " (under: Adults With Comorbidities)"
    assert under_note(["Pneumonia", "Outpatient Treatment"], _stems(q)) == ""  # named by the question
    assert under_note(["Pneumonia", "Healthy Adults Without Comorbidities"], _stems(q + " healthy adult")) == ""
    assert under_note(["Children", "Dosing"], _stems(q)) == ""  # the first heading names the document
    hit = chunk_hit("cap#with#0", "- Levofloxacin 750 mg orally once daily for pneumonia.", 1, COMORBID)
    ext = extract_answer(Q, [hit], ENC, asked=read_asks(q), scoring=PARTS)
    assert ext.text == ("Levofloxacin 750 mg orally once daily for pneumonia. (under: Adults With Comorbidities) "
                        "[1]")
    assert extract_answer(Q, [hit], ENC, asked=read_asks(q)).text == ext.text  # the default: 'under' on
    from clinqa.settings import UnitScoring

    assert extract_answer(Q, [hit], ENC, asked=read_asks(q), scoring=UnitScoring(parts=False)).text == \
        "Levofloxacin 750 mg orally once daily for pneumonia. [1]"  # no note with every part off


# --- 5. less padding ------------------------------------------------------------------------------------------

def test_another_passages_units_far_below_the_best_are_cut() -> None:
    hits = [chunk_hit("gout#tx#0", "Colchicine 1.2 mg orally for a gout flare, then 0.6 mg one hour later.", 1,
                      ["Gout", "Flare Treatment"]),
            chunk_hit("gout#bg#0", "Gout is common in older men.", 2, ["Gout", "Background"], dense=0.1)]
    q = "colchicine for a gout flare"
    # scores (FlatEncoder: every cosine 1): unit 1 0.6 + 0.4 * 0.5 + 0.3 * 1.0 (all of colchicin, gout, flare);
    # unit 2 0.6 + 0.4 * 0.1 + 0.3 * idf(gout) / (idf(colchicin) + idf(gout) + idf(flare)) = 0.64 + 0.3 * 0.226:
    # 0.39 below the best, more than drop_below_best (0.15), and no number asked for
    full = extract_answer(Q, hits, ENC, asked=read_asks(q), scoring=UnitScoring(parts=True, drop_below_best=None))
    assert [c.chunk_id for c in full.citations] == ["gout#tx#0", "gout#bg#0"]
    cut = extract_answer(Q, hits, ENC, asked=read_asks(q), scoring=PARTS)
    assert [c.chunk_id for c in cut.citations] == ["gout#tx#0"]
    assert len(cut.text.split()) < len(full.text.split())
    # a unit with the number asked for stays: a dose may stand in another passage
    dosed = [hits[0], chunk_hit("gout#p#0", "Gout prophylaxis: colchicine 0.6 mg daily.", 2, ["Gout", "Other"],
                                dense=0.1)]
    assert len(extract_answer(Q, dosed, ENC, asked=read_asks("colchicine dose for gout"), scoring=PARTS).citations) == 2


def test_sibling_sections_keeps_hits_without_a_section_path() -> None:
    hits = [Retrieved(_chunk("d#x#0", "Text.", []), 0.5, 1)]
    assert sibling_sections(read_asks("severe asthma"), hits, GivenDocuments()) == hits


def test_each_part_is_switched_by_name() -> None:
    """``answer.scoring.parts`` names the mechanisms that are on: ``true`` all eight, ``false`` none, a
    comma-separated string or a list those named; an unknown name is an error; a dump lists them in name order
    (the config hash does not depend on set order)."""
    import pydantic

    from clinqa.settings import QUOTE_PARTS, UnitScoring

    assert {"siblings", "read_on", "rows", "kind", "value", "item", "under", "cut", "named"} == QUOTE_PARTS
    assert UnitScoring().parts == {"under", "named"} and UnitScoring(parts=False).parts == frozenset()  # by default
    assert UnitScoring(parts=True).parts == QUOTE_PARTS
    assert UnitScoring(parts="kind, cut").parts == {"kind", "cut"}
    assert UnitScoring(parts=["rows"]).parts == {"rows"}
    with pytest.raises(pydantic.ValidationError):
        UnitScoring(parts="bogus")
    assert UnitScoring(parts="value,cut,item").model_dump()["parts"] == ["cut", "item", "value"]


def test_a_score_term_counts_only_when_its_part_is_on() -> None:
    """The kind term and the cut alone (``parts="kind,cut"``) quote the treatment line for "what to give", as every
    part on does; with ``parts="cut"`` (no kind term) every cosine and lexical share ties, so no unit falls
    below the best and all three passages are quoted."""
    from clinqa.answer.extractive import PART_TERMS, SCORE_TERMS

    assert {t.name for t in SCORE_TERMS} >= PART_TERMS
    hits = [chunk_hit("ast#def#0", "An exacerbation is an acute worsening of asthma symptoms.", 1,
                      ["Asthma Exacerbation", "Definition"]),
            chunk_hit("ast#tx#0", "- Give salbutamol 5 mg by nebuliser every 20 minutes in asthma exacerbation.", 2,
                      ["Asthma Exacerbation", "Management"])]
    asked = read_asks("asthma exacerbation: what to give?")
    ext = extract_answer(Q, hits, ENC, asked=asked, scoring=UnitScoring(parts="kind,cut"))
    assert ext.text == "Give salbutamol 5 mg by nebuliser every 20 minutes in asthma exacerbation. [1]"
    assert len(extract_answer(Q, hits, ENC, asked=asked, scoring=UnitScoring(parts="cut")).citations) == 2


# --- 6. the row the question's words name (a made-up ventilation table, written for this mechanism) -----------

VENT = ("Hyperventilation targets in head injury:\n\n"
        "| Scenario | PaCO2 Target | Duration |\n|---|---|---|\n"
        "| Routine care | 35-40 mmHg (normocapnia) | Ongoing |\n"
        "| Raised pressure crisis, temporizing | 30-35 mmHg (mild hyperventilation) | Brief periods |\n"
        "| Impending herniation (bridge to surgery) | 25-30 mmHg (aggressive hyperventilation) | Minutes to hours |\n")
HERNIATION = ("Severe head injury with signs of herniation, as a bridge to surgery - what PaCO2 target for "
              "hyperventilation?")


def test_the_row_the_question_names_is_quoted_alone() -> None:
    """Hand count of each row's own stems (less those every row has: "scenario", "paco2", "target", "mmhg",
    "durat") shared with the question: the third row 4 ("herniat", "bridg", "surgeri", "hyperventil"), the second
    1 ("hyperventil"), the first 0. The third is named and quoted alone with ``named`` in
    ``answer.scoring.parts`` (the question reads as a list question, "signs of", so 2 shared stems are needed, and
    4 are there), as by default (issue 50, thirteenth pass); without it the three rows are quoted."""
    from clinqa.answer.extractive import Candidates, _unnamed_members

    hit = chunk_hit("vent#t#0", VENT, 1, ["Head Injury", "Ventilation"])
    asked = read_asks(HERNIATION)
    cands = Candidates([hit], asked, [(0, u) for u in unit_records(VENT)])
    rows = [i for i, (_, u) in enumerate(cands.keep) if u.kind == "row"]
    assert len(rows) == 3 and _unnamed_members(cands, rows, 2) == set(rows[:2])
    assert _unnamed_members(cands, rows, 5) == set()  # fewer shared stems than asked for: nothing is cut
    named = extract_answer(Q, [hit], ENC, asked=asked, scoring=UnitScoring(parts="named"))
    assert named.text == ("Hyperventilation targets in head injury: Scenario: Impending herniation (bridge to "
                          "surgery); PaCO2 Target: 25-30 mmHg (aggressive hyperventilation); "
                          "Duration: Minutes to hours. [1]")
    assert extract_answer(Q, [hit], ENC, asked=asked).text == named.text  # named by default
    assert "35-40 mmHg" in extract_answer(Q, [hit], ENC, asked=asked, scoring=UnitScoring(parts="under")).text


def test_two_rows_named_alike_or_a_key_value_table_keep_their_rows() -> None:
    """A tie (the question names the second and the third row by one own word each: "crisis", "herniation") cuts
    nothing; nor are the rows of a key-value table cut ("| Parameter | Value |": attributes of one thing)."""
    from clinqa.answer.extractive import Candidates, _unnamed_members

    hit = chunk_hit("vent#t#0", VENT, 1, ["Head Injury", "Ventilation"])
    asked = read_asks("PaCO2 target in a crisis or herniation?")
    cands = Candidates([hit], asked, [(0, u) for u in unit_records(VENT)])
    rows = [i for i, (_, u) in enumerate(cands.keep) if u.kind == "row"]
    assert _unnamed_members(cands, rows) == set()
    kv = "| Parameter | Value |\n|---|---|\n| Regimen | 1.2 mg then 0.6 mg |\n| Maximum first-day dose | 1.8 mg |\n"
    asked = read_asks("colchicine regimen for a flare?")
    kv_cands = Candidates([chunk_hit("c#t#0", kv, 1, ["Gout"])], asked, [(0, u) for u in unit_records(kv)])
    assert _unnamed_members(kv_cands, list(range(len(kv_cands.keep)))) == set()


CLOTS = ("Treatment duration by category:\n\n"
         "| Category | Duration | After |\n|---|---|---|\n"
         "| Provoked by surgery, immobility or trauma | 3 months | Stop |\n"
         "| Unprovoked (no identifiable trigger) | 3 months | Extended therapy |\n"
         "| Active cancer | 6 months | Extended therapy |\n")


def test_a_word_the_question_negates_names_the_row_that_negates_it_too() -> None:
    """Hand count for "first clot, no identifiable trigger (no surgery or trauma): stop or continue?". The words it
    negates: identifiable, trigger, surgery, or, trauma. Own stems less the common ones ("month", "3"): the first
    row states surgery and trauma, which the question negates, so it counts 1 ("stop" only) and can never be the
    named row; the second negates "identifiable" and "trigger" as the question does: 2; the third 0. The second is
    named. Read without negation (the first version), the first row counted 3 (surgery, trauma, stop) and won. The
    third row shares no word with the question and is no candidate."""
    from clinqa.answer.extractive import Candidates, _unnamed_members

    hit = chunk_hit("vte#t#0", CLOTS, 1, ["VTE", "Duration"])
    asked = read_asks("First clot, no identifiable trigger (no surgery or trauma): stop or continue?")
    assert {"identifi", "trigger", "surgeri", "trauma"} <= asked.negated
    cands = Candidates([hit], asked, [(0, u) for u in unit_records(CLOTS)])
    rows = [i for i, (_, u) in enumerate(cands.keep) if u.kind == "row"]
    assert len(rows) == 2 and _unnamed_members(cands, rows) == {rows[0]}
    # when the best-named row states what the question negates, nothing is cut: "surgery", "immobility" and
    # "stop" name the first row (3, the second 1: "extended"), but it states trauma, which the question negates
    asked2 = read_asks("No trauma; surgery after immobility - stop or extended?")
    assert asked2.negated == {"trauma"}
    cands2 = Candidates([hit], asked2, [(0, u) for u in unit_records(CLOTS)])
    rows2 = [i for i, (_, u) in enumerate(cands2.keep) if u.kind == "row"]
    assert len(rows2) == 3 and _unnamed_members(cands2, rows2) == set()


SEVERITY = ("Severity grades:\n\n| Grade | Definition |\n|---|---|\n"
            "| Mild | No organ failure and no local complications |\n"
            "| Moderate | Transient organ failure or local complications |\n"
            "| Severe | Persistent organ failure |\n")


def test_a_row_that_negates_what_the_question_states_is_no_named_row() -> None:
    """"Organ failure that resolved, no local complications": the first row negates organ failure, which the
    question states, and the second states local complications, which it negates; whichever is named best, it
    contradicts the question, so no row is cut (the three are quoted, as without ``named``)."""
    from clinqa.answer.extractive import Candidates, _unnamed_members

    hit = chunk_hit("sev#t#0", SEVERITY, 1, ["Pancreatitis", "Severity"])
    asked = read_asks("Pancreatitis, organ failure that resolved, no local complications - which grade?")
    assert asked.negated == {"local", "complic"}
    cands = Candidates([hit], asked, [(0, u) for u in unit_records(SEVERITY)])
    rows = [i for i, (_, u) in enumerate(cands.keep) if u.kind == "row"]
    assert len(rows) == 3 and _unnamed_members(cands, rows) == set()
