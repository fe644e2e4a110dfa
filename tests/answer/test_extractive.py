"""Extractive answer units, sentence selection and the cosine gate."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from clinqa.answer import RefusalGate, extract_answer, units_of
from clinqa.chunking.base import Chunk
from clinqa.evidence.passages import fitting_hits, names_subtype
from clinqa.question.asks import has_qualifiers, read_asks
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import RetrievalResult, Retrieved
from clinqa.settings import UnitScoring
from clinqa.store.base import Hit
from tiny_data import FlatEncoder, KeywordEncoder, chunk_hit


def test_units_of_paragraphs_lists_and_tables() -> None:
    body = (
        "Statins should be continued. They reduce events after surgery.\n\n"
        "- Continue aspirin if possible.\n- Restart P2Y12 inhibitors early.\n\n"
        "| Medication | Already Taking | Note |\n|---|---|---|\n| **Statins** | Continue (Class I) | |\n\n"
        "Women:\n\n- CHA2DS2-VASc = 2: OAC may be considered.\n\n- CHA2DS2-VASc >= 3: OAC is recommended.\n\n"
        "Notes:\n\n"
        "1. Patient already on a beta-blocker?\n   - Yes: Continue.\n   - No: go to step 2.\n\n"
        "Is this a question?\n\n"
        "Do not start on the day of surgery. (Class III: Harm, Level of Evidence: B)"
    )
    assert units_of(body) == [
        "Statins should be continued.",
        "They reduce events after surgery.",
        "Continue aspirin if possible.",
        "Restart P2Y12 inhibitors early.",
        "Medication: Statins; Already Taking: Continue (Class I)",
        "Women: CHA2DS2-VASc = 2: OAC may be considered.",
        "Women: CHA2DS2-VASc >= 3: OAC is recommended.",
        "Notes: Patient already on a beta-blocker? Yes: Continue. No: go to step 2.",
        "Do not start on the day of surgery. (Class III: Harm, Level of Evidence: B)",
    ]


def hit(cid: str, body: str, rank: int) -> Retrieved:
    chunk = Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title=cid, section_path=["Dosing"])
    return Retrieved(chunk, 1 / (60 + rank), rank)


def test_extract_picks_relevant_sentences_and_numbers_citations() -> None:
    enc = KeywordEncoder()
    q = enc.encode_queries(["heparin"])[0]
    hits = [
        hit("d1#a#0", "Insulin is given before meals. Heparin is dosed by weight.", 1),
        hit("d2#a#0", "Heparin needs aPTT monitoring today. Warfarin needs INR checks.", 2),
        hit("d3#a#0", "Insulin pumps are common.", 3),
    ]
    # unit 0.6 * cos(q, unit) + 0.4 * cos(q, chunk): heparin sentences score >= 0.6 + 0.4 * 0.7
    ext = extract_answer(q, hits, enc, max_sentences=4, min_score=0.5)
    assert ext.text == "Heparin is dosed by weight. [1]\nHeparin needs aPTT monitoring today. [2]"
    assert [(c.n, c.chunk_id) for c in ext.citations] == [(1, "d1#a#0"), (2, "d2#a#0")]
    assert ext.citations[0].quote == "Heparin is dosed by weight."


def test_extract_always_quotes_the_best_unit() -> None:
    enc = KeywordEncoder()
    ext = extract_answer(enc.encode_queries(["warfarin"])[0], [hit("d1#a#0", "Insulin is given before meals.", 1)],
                         enc, min_score=0.9)
    assert ext.text == "Insulin is given before meals. [1]"


def result(top: float | None) -> RetrievalResult:
    c = Chunk(chunk_id="x#a#0", doc_id="x", text="t", body="t")
    dense = [] if top is None else [Hit(c, top, 1, "cosine")]
    hits = [] if top is None else [Retrieved(c, 0.016, 1)]
    return RetrievalResult("q", Filters(), hits, dense, [], np.zeros(3, dtype=np.float32))


def test_gate() -> None:
    g = RefusalGate(0.4, "dense_cosine")
    assert g.decide(result(0.41)).answer
    d = g.decide(result(0.39))
    assert not d.answer and d.signal == 0.39 and "0.39" in d.reason
    assert not g.decide(result(None)).answer


def test_label_shown_once_per_run_and_section_leads() -> None:
    enc = KeywordEncoder()
    body = "Women:\n\n- heparin rule one applies.\n\n- heparin rule two applies.\n\n- insulin rule three."
    ext = extract_answer(enc.encode_queries(["heparin"])[0], [hit("d1#a#0", body, 1)], enc, min_score=0.5)
    assert ext.text == "Women: heparin rule one applies; heparin rule two applies. [1]"
    assert ext.citations[0].quote == "Women: heparin rule one applies. Women: heparin rule two applies."


QSOFA = ("A patient meets the qSOFA criteria if they exhibit at least two of the following three clinical "
         "parameters:\n\n1. Respiratory Rate: >= 22 breaths per minute\n\n2. Altered Mentation: GCS < 15\n\n"
         "3. Systolic Blood Pressure: <= 100 mmHg\n\n"
         "> OpenMedicine Calculator: calculate_qsofa - available via MCP for rapid bedside scoring.")


def test_criteria_question_quotes_the_whole_list_with_its_intro_and_no_advert() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, [chunk_hit("s#q#0", QSOFA, 1, ["qSOFA Criteria"])], enc, max_sentences=1,
                         asked=read_asks("What are the qSOFA criteria?"))
    assert ext.text == ("A patient meets the qSOFA criteria if they exhibit at least two of the following three "
                        "clinical parameters: Respiratory Rate: >= 22 breaths per minute; Altered Mentation: GCS < 15; "
                        "Systolic Blood Pressure: <= 100 mmHg. [1]")
    assert "Calculator" not in ext.citations[0].quote


CAP = [("cap#healthy#0", "- Amoxicillin 1 g orally three times daily; OR\n\n- Doxycycline 100 mg orally twice daily",
        ["Healthy Adults Without Comorbidities"]),
       ("cap#comorbid#0", "- Amoxicillin/clavulanate 875 mg/125 mg orally twice daily; OR\n\n- Cefpodoxime 200 mg",
        ["Adults With Comorbidities"])]


def test_a_without_qualifier_is_not_answered_with_its_opposite() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    hits = [chunk_hit(c, b, r, s) for r, (c, b, s) in enumerate(reversed(CAP), 1)]  # the wrong one ranks first
    ext = extract_answer(q, hits, enc, asked=read_asks("First-line antibiotic for adults without comorbidities?"))
    assert [c.chunk_id for c in ext.citations] == ["cap#healthy#0"]
    # the trailing OR joins the alternatives and is dropped at the end
    assert ext.text == "Amoxicillin 1 g orally three times daily; OR Doxycycline 100 mg orally twice daily. [1]"
    ext = extract_answer(q, hits, enc, asked=read_asks("Antibiotic for adults with comorbidities?"))
    assert [c.chunk_id for c in ext.citations] == ["cap#comorbid#0"]


def test_passages_that_contradict_a_qualifier_are_passed_over_for_deeper_ones() -> None:
    sections = [["Inpatient Treatment", "Severe CAP (ICU)"], ["Outpatient Treatment", "Adults With Comorbidities"],
                ["Inpatient Treatment", "General Ward"], ["Outpatient Treatment", "Adults With Comorbidities"],
                ["Inpatient Treatment", "ICU"], ["Outpatient Treatment", "Healthy Adults Without Comorbidities"],
                ["General Principles"]]
    body = "Amoxicillin 1 g orally three times daily."
    hits = [chunk_hit(f"cap#{i}#0", body, i, s) for i, s in enumerate(sections, 1)]
    question = "First-line antibiotic for outpatient CAP in adults without comorbidities?"
    assert has_qualifiers(question) and has_qualifiers("First-line antibiotic for CAP?")
    assert not has_qualifiers("Antibiotic for CAP?")
    # ranks 1-5 each state an opposite (inpatient, ICU, with comorbidities): 6 and 7 are the context
    assert [h.rank for h in fitting_hits(hits, read_asks(question), 5)] == [6, 7]
    assert [h.rank for h in fitting_hits(hits, read_asks(question), 1)] == [6]
    # no qualifier, or none fits: the first n in retrieval order
    assert [h.rank for h in fitting_hits(hits, read_asks("Antibiotic for CAP?"), 3)] == [1, 2, 3]
    assert [h.rank for h in fitting_hits(hits[:5], read_asks(question), 3)] == [1, 2, 3]


def test_table_cell_named_by_row_and_column() -> None:
    enc = FlatEncoder()
    rows = "\n".join(f"| Drug{i} | {i} mg | {i // 2} mg | {i // 4} mg |" for i in range(8, 60))
    body = ("| Drug | eGFR \u226560 | eGFR 30\u201359 | eGFR 15\u201329 |\n|---|---|---|---|\n"
            "| Quinvexdel | 40 mg twice daily | 20 mg twice daily | 10 mg once daily |\n" + rows)
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("r#t#0", body, 1, ["Renal dosing"])], enc,
                         asked=read_asks("What is the Quinvexdel dose when eGFR is 15-29?"))
    assert ext.text == "Quinvexdel, eGFR 15\u201329: 10 mg once daily. [1]"
    assert ext.citations[0].quote.startswith("Drug: Quinvexdel; eGFR")  # the quote is the row as it stands


def test_a_row_is_named_by_the_head_of_its_label() -> None:
    enc = FlatEncoder()
    body = ("| Route | Dose | Concentration |\n|---|---|---|\n"
            "| **IV (umbilical vein) -- Preferred** | 0.01-0.03 mg/kg | 1:10,000 |\n"
            "| **Endotracheal (ET) -- If IV not available** | 0.05-0.1 mg/kg | 1:10,000 |")
    notes = chunk_hit("n#notes#0", "Higher IV doses (> 0.03 mg/kg) are NOT recommended in neonates.", 1,
                      ["Important Notes"])
    table = chunk_hit("n#dosing#0", body, 2, ["Epinephrine Dosing"])
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, [notes, table], enc, max_sentences=1, asked=read_asks("IV epinephrine dose in neonates"))
    # the named row beats the notes sentence ranked above it, and the ET row is not quoted; the row keeps every
    # column, the one asked for first (issue 42: a dose quoted without its interval column misled)
    assert ext.text == "IV (umbilical vein) -- Preferred, Dose: 0.01-0.03 mg/kg; Concentration: 1:10,000. [1]"
    ext = extract_answer(q, [notes, table], enc, max_sentences=1, asked=read_asks("IV epinephrine dose in neonates"),
                         scoring=UnitScoring(cell_bonus=0.0, heading_bonus=0.0))  # neither the named row nor "Dosing"
    assert [c.chunk_id for c in ext.citations] == ["n#notes#0"]


def test_units_without_the_questions_content_are_not_quoted() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    hits = [chunk_hit("n3#m#0", "No medication changes today.", 1, ["MEDICATIONS"]),
            chunk_hit("n2#m#0", "Metformin reduced to 500 mg once daily.", 2, ["MEDICATIONS"]),
            chunk_hit("n1#m#0", "It is not medical advice. Metformin is continued.", 3, ["Notes"])]
    ext = extract_answer(q, hits, enc, max_sentences=4, min_score=0.0,
                         asked=read_asks("What metformin dose is the patient on?"),
                         scoring=UnitScoring(drop_below_best=None))  # no cut of the other passages' units
    assert [c.chunk_id for c in ext.citations] == ["n2#m#0", "n1#m#0"]
    assert ext.citations[1].quote == "Metformin is continued."


def test_long_answers_stop_with_a_pointer() -> None:
    enc = FlatEncoder()
    body = "\n\n".join(f"- Heparin step {i} " + "word " * 30 for i in range(6))
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("h#s#0", body, 1, ["Steps"])], enc,
                         asked=read_asks("What are the heparin steps?"), scoring=UnitScoring(max_words=80))
    assert ext.text.endswith("(more in [1]) [1]") and ext.text.count("Heparin step") == 2


ENOXAPARIN = ("For initial parenteral anticoagulation:\n\n| Drug | Dose | Route | Frequency |\n|---|---|---|---|\n"
              "| Enoxaparin | 1 mg/kg | Subcutaneous | Every 12 hours |\n"
              "| Enoxaparin (alternative) | 1.5 mg/kg | Subcutaneous | Once daily |")


def test_a_dose_cell_is_quoted_with_its_route_and_frequency() -> None:
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("v#lmwh#0", ENOXAPARIN, 1, ["LMWH"])], enc,
                         asked=read_asks("Enoxaparin treatment dose for DVT"))
    # "dose" names the Dose column; a dose is not read without its route and frequency; "Enoxaparin
    # (alternative)" is named by its head too: both regimens, not the other drugs' rows
    assert ext.text == ("For initial parenteral anticoagulation: Enoxaparin, Dose: 1 mg/kg; Route: Subcutaneous; "
                        "Frequency: Every 12 hours; Enoxaparin (alternative), Dose: 1.5 mg/kg; Route: Subcutaneous; "
                        "Frequency: Once daily. [1]")


def test_two_column_parameter_tables_read_as_key_value() -> None:
    body = ("| Parameter | Recommendation |\n|---|---|\n| **Regimen** | 1.2 mg orally immediately, followed by "
            "0.6 mg orally 1 hour later |\n| Timing | Within 12 hours of flare onset |")
    assert units_of(body) == ["Regimen: 1.2 mg orally immediately, followed by 0.6 mg orally 1 hour later",
                              "Timing: Within 12 hours of flare onset"]
    # other two-column tables keep their headers: the header says what the first cell is
    assert units_of("| CrCl (mL/min) | Dose |\n|---|---|\n| 30-50 | 5 mg daily |") == [
        "CrCl (mL/min): 30-50; Dose: 5 mg daily"]


def test_a_lead_in_that_ends_the_chunk_is_a_sentence() -> None:
    # the chunker put the criteria list in the next chunk: the lead-in still says "at least 2 of 11"
    body = ("A problematic pattern of alcohol use leading to clinically significant impairment, as manifested by "
            "at least 2 of the following 11 criteria occurring within a 12-month period:")
    assert units_of(body) == [body[:-1] + "."]
    assert units_of("Women:") == []  # a short label alone says nothing


def test_w_slash_o_is_without() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    hits = [chunk_hit("ss#shock#0", "Give antimicrobials within 1 hour.", 1, ["Sepsis With Shock"]),
            chunk_hit("ss#noshock#0", "Give antimicrobials within 3 hours.", 2, ["Sepsis Without Shock"])]
    ext = extract_answer(q, hits, enc, max_sentences=1, asked=read_asks("abx timing sepsis w/o shock"))
    assert [c.chunk_id for c in ext.citations] == ["ss#noshock#0"]


def test_overlap_weighs_the_stem_that_tells_candidates_apart() -> None:
    from clinqa.answer.extractive import _overlap

    q = {"sacubitril", "contraind"}
    units = [{"sacubitril", "dose"}, {"sacubitril", "titrat"}, {"sacubitril", "contraind"}]
    # idf = ln(1 + N / (1 + df)), N = 3: sacubitril df 3 -> ln(1.75); contraind df 1 -> ln(2.5)
    a, b = np.log(1.75), np.log(2.5)
    np.testing.assert_allclose(_overlap(q, units), [a / (a + b), a / (a + b), 1.0], rtol=1e-6)
    np.testing.assert_allclose(_overlap(set(), units), [0.0, 0.0, 0.0])


def test_rows_are_embedded_under_their_heading_sentences_as_they_are() -> None:
    from clinqa.chunking.units import embedding_texts

    body = "Low-dose colchicine is preferred.\n\n| Parameter | Recommendation |\n|---|---|\n| Regimen | 1.2 mg |"
    assert embedding_texts(body, ["Gout", "Colchicine for Acute Flare"]) == [
        "Low-dose colchicine is preferred.", "Colchicine for Acute Flare: Regimen: 1.2 mg"]
    assert embedding_texts(body) == ["Low-dose colchicine is preferred.", "Regimen: 1.2 mg"]


def test_a_named_row_hides_only_the_other_rows_of_its_own_table() -> None:
    enc = FlatEncoder()
    hits = [chunk_hit("g#flare#0", "| Parameter | Recommendation |\n|---|---|\n| Regimen | colchicine 1.2 mg then "
                      "0.6 mg |", 1, ["Colchicine for Acute Flare"]),
            chunk_hit("g#proph#0", "| Agent | Dose | Notes |\n|---|---|---|\n| Colchicine | 0.6 mg daily | "
                      "prophylaxis |\n| Naproxen | 250 mg | alternative |", 2, ["Prophylaxis Agents"])]
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc, max_sentences=4, min_score=0.0,
                         asked=read_asks("colchicine dose for an acute flare"))
    assert [c.chunk_id for c in ext.citations] == ["g#flare#0", "g#proph#0"]  # the first table is not hidden
    assert "Naproxen" not in ext.text  # the named row's own table: only that row
    assert "Colchicine, Dose: 0.6 mg daily" in ext.text


def test_a_heading_that_states_the_qualifier_is_preferred() -> None:
    enc = FlatEncoder()
    hits = [chunk_hit("c#a#0", "Give the first dose within 1 hour.", 1, ["Timing"]),
            chunk_hit("c#b#0", "Give the first dose within 4 hours.", 2, ["Adults without comorbidities"])]
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, hits, enc, max_sentences=1, asked=read_asks("timing without comorbidities"))
    assert [c.chunk_id for c in ext.citations] == ["c#b#0"]
    ext = extract_answer(q, hits, enc, max_sentences=1, asked=read_asks("timing without comorbidities"),
                         scoring=UnitScoring(qualifier_bonus=0.0))
    assert [c.chunk_id for c in ext.citations] == ["c#a#0"]  # equal otherwise: retrieval order


def test_a_passage_about_a_subtype_of_the_asked_condition_is_passed_over() -> None:
    q = "What blood pressure target is recommended in hypertension?"
    assert names_subtype("Resistant Hypertension and Hypertensive Crises / Definitions", read_asks(q))
    assert names_subtype("Hypertensive Crises / BP Reduction Targets in Hypertensive Emergency", read_asks(q))
    assert names_subtype("Diabetic Ketoacidosis / Insulin", read_asks("Insulin dose in diabetes?"))
    assert names_subtype("Gestational Diabetes", read_asks("Insulin dose in diabetes?"))
    # the condition alone, a population after its adjective, the question's own subtype, a plural noun
    assert not names_subtype("Pharmacotherapy for Hypertension / Special Populations / Heart Failure", read_asks(q))
    assert not names_subtype("Hypertensive Patients / Follow-up", read_asks(q))
    assert not names_subtype("Resistant Hypertension / Definition", read_asks("How is resistant hypertension treated?"))
    assert not names_subtype("Empiric Antibiotic Therapy for CAP", read_asks("Empiric antibiotics for severe CAP?"))
    assert not names_subtype("Blood Pressure Classification", read_asks(q))  # common words do not name a condition
    paths = [["Resistant Hypertension", "Definition"], ["Hypertensive Crises", "Targets"],
             ["Pharmacotherapy for Hypertension", "Heart Failure"], ["Titration and Follow-Up"]]
    hits = [chunk_hit(f"h#{i}#0", "BP target: < 130/80 mm Hg.", i, p) for i, p in enumerate(paths, 1)]
    assert [h.rank for h in fitting_hits(hits, read_asks(q), 5)] == [3, 4]
    assert [h.rank for h in fitting_hits(hits[:2], read_asks(q), 5)] == [1, 2]  # none general: retrieval order


def test_a_subtype_section_that_alone_heads_a_drug_of_the_question_is_kept() -> None:
    # "refractory" is a subtype modifier the question does not say, but only that section names the drug asked of
    q = "Should pegloticase be used in gout after allopurinol failed?"
    paths = [["Refractory Gout: Pegloticase", "Indications"], ["Urate-Lowering Therapy in Gout", "Starting"],
             ["Refractory Gout", "Monitoring"]]
    hits = [chunk_hit(f"g#{i}#0", "Some text.", i, p) for i, p in enumerate(paths, 1)]
    assert names_subtype(" ".join(paths[0]), read_asks(q)) and names_subtype(" ".join(paths[2]), read_asks(q))
    # the first heads "pegloticase", which no general section heads; the third heads no drug
    assert [h.rank for h in fitting_hits(hits, read_asks(q), 5)] == [1, 2]
    # a word that is no drug does not keep a subtype section: "Post-traumatic Seizures" for eclampsia's seizures
    q2 = "Eclampsia, no seizures yet: magnesium loading dose for seizure prophylaxis?"
    paths2 = [["Seizure Prophylaxis", "Early Post-traumatic Seizures"], ["Eclampsia", "Magnesium"]]
    hits2 = [chunk_hit(f"e#{i}#0", "Some text.", i, p) for i, p in enumerate(paths2, 1)]
    assert names_subtype(" ".join(paths2[0]), read_asks(q2))
    assert [h.rank for h in fitting_hits(hits2, read_asks(q2), 5)] == [2]


def test_a_sentence_without_a_subject_is_shown_under_its_heading() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    body = ("Recommended to reduce morbidity and mortality in patients with HFrEF.\n\n"
            "Spironolactone 12.5-25 mg daily is the starting dose.")
    hit = chunk_hit("hf#mra#0", body, 1, ["GDMT for HFrEF", "Pillar 3: Mineralocorticoid Receptor Antagonists"])
    ext = extract_answer(q, [hit], enc, min_score=0.0, asked=read_asks("HFrEF treatment to reduce mortality, dose"))
    assert ext.text == ("Pillar 3: Mineralocorticoid Receptor Antagonists: Recommended to reduce morbidity and "
                        "mortality in patients with HFrEF. Spironolactone 12.5-25 mg daily is the starting dose. [1]")
    assert ext.citations[0].quote.startswith("Recommended to reduce")  # the quote is the passage as it stands
    # a sentence with its own subject opens the quote: no heading
    hit = chunk_hit("hf#mra#1", "Spironolactone reduces mortality in HFrEF.", 1, ["Pillar 3: MRA"])
    ext = extract_answer(q, [hit], enc, min_score=0.0, asked=read_asks("HFrEF treatment to reduce mortality"))
    assert ext.text == "Spironolactone reduces mortality in HFrEF. [1]"


def test_a_row_with_an_empty_first_cell_continues_the_row_above() -> None:
    body = ("| Parameter | Criteria | Score |\n|---|---|---|\n| **BUN (mg/dL)** | 18.2-22.3 | 2 |\n"
            "| | 22.4-27.9 | 3 |\n| **Heart Rate** | >= 100 bpm | 1 |")
    assert units_of(body) == ["Parameter: BUN (mg/dL); Criteria: 18.2-22.3; Score: 2",
                              "Parameter: BUN (mg/dL); Criteria: 22.4-27.9; Score: 3",
                              "Parameter: Heart Rate; Criteria: >= 100 bpm; Score: 1"]
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("g#s#0", body, 1, ["Glasgow-Blatchford Score"])],
                         enc, min_score=0.0, asked=read_asks("What are the Glasgow-Blatchford score criteria?"))
    # the whole table (a criteria question), the repeated first cell shown once
    assert ext.text == ("Parameter: BUN (mg/dL); Criteria: 18.2-22.3; Score: 2; Criteria: 22.4-27.9; Score: 3; "
                        "Parameter: Heart Rate; Criteria: >= 100 bpm; Score: 1. [1]")


def test_keyed_items_are_embedded_under_their_heading_sentence_items_are_not() -> None:
    from clinqa.chunking.units import embedding_texts

    body = "- Dose: 0.9 mg/kg (maximum total dose: 90 mg).\n\n- Clopidogrel 75 mg daily is an alternative for patients."
    assert embedding_texts(body, ["IV Alteplase", "Dosing Protocol"]) == [
        "Dosing Protocol: Dose: 0.9 mg/kg (maximum total dose: 90 mg).",
        "Clopidogrel 75 mg daily is an alternative for patients."]


def test_a_dose_question_prefers_an_amount_with_its_unit_over_a_score_band() -> None:
    enc = FlatEncoder()
    hits = [chunk_hit("s#nihss#0", "NIHSS 5-15: IV alteplase indicated within the window.", 1, ["NIHSS"]),
            chunk_hit("s#dose#0", "IV alteplase 0.9 mg/kg over 60 minutes within the window.", 2, ["Protocol"])]
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc, max_sentences=1, asked=read_asks("alteplase dose"))
    assert [c.chunk_id for c in ext.citations] == ["s#dose#0"]
    # a threshold question still counts any number
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc, max_sentences=1,
                         asked=read_asks("alteplase threshold"))
    assert [c.chunk_id for c in ext.citations] == ["s#nihss#0"]


FLOW = ("Severe TBI patient (GCS 3-8)\n  --> Elevated ICP (> 22 mmHg) refractory to Tier 1-2 measures?\n"
        "      --> Bifrontal DC is NOT recommended [Level IIA]")


def test_flowchart_steps_are_units_and_a_decision_keeps_its_question_mark() -> None:
    assert units_of(FLOW) == ["Severe TBI patient (GCS 3-8): Elevated ICP (> 22 mmHg) refractory to Tier 1-2 measures?",
                              "Severe TBI patient (GCS 3-8): Bifrontal DC is NOT recommended [Level IIA]"]
    assert units_of("Is the patient stable?") == []  # a question in prose is still not quotable
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("t#alg#0", FLOW, 1, ["Algorithm"])], enc,
                         max_sentences=1, asked=read_asks("At what ICP should treatment start?"))
    # a flowchart is quoted whole: a decision without its branch, or a branch without its decision, says
    # something else (new-user helper: "Normovolemic? -> No bolus" quoted without "Begin LR at 1.5 mL/kg/hr")
    assert ext.text == ("Severe TBI patient (GCS 3-8): Elevated ICP (> 22 mmHg) refractory to Tier 1-2 measures?; "
                        "Bifrontal DC is NOT recommended [Level IIA] [1]")


#: a made-up triage tree: three branches keyed by a score band, each with its own steps
TRIAGE = ("Triage score calculated\n  → Score 1–4?\n      → Ward review within 4 hours\n      → Observations 4-hourly\n"
          "  → Score 5–6?\n      → Urgent review within 60 minutes\n      → Observations hourly\n"
          "  → Score ≥ 7?\n      → Emergency review within 30 minutes\n      → Continuous monitoring")


def test_a_branch_whose_band_excludes_the_value_goes_with_its_decision() -> None:
    """The decisions "Score 1–4?" and "Score 5–6?" exclude a score of 7, so they are not quoted; the steps under them
    go too (new-user helper: "NEWS2 score of 7" quoted "URGENT response within 60 minutes" with its "Score 5–6?"
    taken away). The branch that holds 7 is quoted with its decision."""
    enc = FlatEncoder()
    hit = chunk_hit("t#tree#0", TRIAGE, 1, ["Triage", "Response Tree"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc, asked=read_asks("triage score of 7 - response?"))
    assert "Urgent review within 60 minutes" not in ext.text and "Ward review" not in ext.text
    assert "Observations" not in ext.text
    assert "Score ≥ 7?; Emergency review within 30 minutes; Continuous monitoring" in ext.text
    # a score of 5 keeps the middle branch and no other
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc, asked=read_asks("triage score of 5 - response?"))
    assert "Score 5–6?; Urgent review within 60 minutes; Observations hourly" in ext.text
    assert "Emergency" not in ext.text and "Ward review" not in ext.text


#: a made-up reversal tree: a condition ending in ":" heads its steps; "Dabigatran?" is beside the INR branches
REVERSAL = ("Warfarin-associated bleed\n  --> Check INR\n      --> INR >= 2.0:\n          --> PCC 25-50 IU/kg IV\n"
            "          --> Vitamin K 10 mg IV\n      --> INR 1.3-1.9:\n          --> Consider PCC 10-20 IU/kg\n"
            "  --> Dabigatran?\n      --> Idarucizumab 5 g IV")


def test_a_flowchart_condition_is_quoted_with_its_branch_and_depth_bounds_the_branch() -> None:
    """A step ending in ":" is a condition like a "?" decision: it is a unit, so its branch is quoted with it; the
    branch of a condition that excludes the value is the steps indented under it, not the steps beside it."""
    from clinqa.chunking.units import unit_records

    steps = [(u.text, u.depth) for u in unit_records(REVERSAL)]
    assert steps == [("Check INR", 2), ("INR >= 2.0:", 6), ("PCC 25-50 IU/kg IV", 10), ("Vitamin K 10 mg IV", 10),
                     ("INR 1.3-1.9:", 6), ("Consider PCC 10-20 IU/kg", 10), ("Dabigatran?", 2),
                     ("Idarucizumab 5 g IV", 6)]
    enc = FlatEncoder()
    hit = chunk_hit("b#tree#0", REVERSAL, 1, ["Bleeding", "Reversal"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc, asked=read_asks("INR 5 - PCC dose?"))
    assert "INR >= 2.0: PCC 25-50 IU/kg IV; Vitamin K 10 mg IV" in ext.text  # the condition, then its steps
    assert "10-20" not in ext.text  # the 1.3-1.9 branch goes with its condition
    assert "Dabigatran?; Idarucizumab 5 g IV" in ext.text  # beside it, not under it


POTASSIUM = ("Check potassium on admission\n  --> K+ < 3.5 mmol/L?\n      --> Replace 10 mmol/hour IV\n"
             "      --> DELAY insulin until K+ > 3.5 mmol/L\n  --> K+ 3.5-5.0 mmol/L?\n"
             "      --> Add 20-30 mmol potassium per liter of fluid\n  --> K+ > 5.0 mmol/L?\n"
             "      --> Do not replace potassium")


@pytest.mark.parametrize(("question", "kept", "left_out"), [
    # an ion's charge is read as its name, in the question and in the flowchart's conditions
    ("DKA with K+ 4.1 on admission - potassium?", "Add 20-30 mmol", ("DELAY insulin", "Do not replace")),
    ("DKA, K 6.2 - replace potassium?", "Do not replace", ("DELAY insulin", "Add 20-30")),
    # "until K+ > 3.5" says when the act ends, not whom the line is for: K 3.2 keeps "DELAY insulin"
    ("K 3.2 in DKA - start insulin?", "DELAY insulin until K+ > 3.5", ("Add 20-30", "Do not replace")),
])
def test_an_ions_band_chooses_the_branch_and_until_is_no_band_of_the_line(question: str, kept: str,
                                                                          left_out: tuple[str, ...]) -> None:
    from clinqa.question.asks import named_values

    assert named_values("K+ 4.1 on admission") == (("k", 4.1),)
    enc = FlatEncoder()
    hit = chunk_hit("dka#k#0", POTASSIUM, 1, ["DKA", "Potassium"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc, asked=read_asks(question))
    assert kept in ext.text and not any(x in ext.text for x in left_out), ext.text


def test_questions_that_ask_for_a_list() -> None:
    from clinqa.question.asks import LIST_QUESTION

    for q in ("Absolute contraindications to IV alteplase in stroke", "What goes into the Glasgow-Blatchford score?",
              "What are the qSOFA criteria?", "Indications for epinephrine in neonates"):
        assert LIST_QUESTION.search(q), q
    for q in ("Is alteplase contraindicated after surgery?", "What is the alteplase dose?"):
        assert not LIST_QUESTION.search(q), q


def test_a_list_section_split_over_chunks_is_read_with_its_neighbours() -> None:
    from clinqa.evidence.passages import sibling_ids, with_siblings

    assert sibling_ids("tia#abcd2/score-components#1") == ["tia#abcd2/score-components#0",
                                                          "tia#abcd2/score-components#2"]
    assert sibling_ids("tia#abcd2/score-components#0") == ["tia#abcd2/score-components#1"]
    assert sibling_ids("no-index") == []
    table = "| Component | Criterion | Points |\n|---|---|---|\n| Age | >= 60 years | 1 |"
    ad = "OpenMedicine Calculator: calculate_abcd2 - available via MCP for automated scoring."
    path = ["TIA", "ABCD2 Score", "Score Components"]
    stored = {"tia#c#0": Chunk(chunk_id="tia#c#0", doc_id="tia", text=table, body=table, section_path=path),
              "other#c#0": Chunk(chunk_id="other#c#0", doc_id="other", text=table, body=table, section_path=path)}
    asked: list[list[str]] = []

    def fetch(ids: list[str]) -> list[Chunk]:
        asked.append(ids)
        return [stored[i] for i in ids if i in stored]

    hits = [chunk_hit("tia#lim#0", "The ABCD2 score should not be used alone.", 1, ["TIA", "Limitations"]),
            chunk_hit("tia#c#1", ad, 2, path)]
    out = with_siblings(hits, read_asks("What are the components of the ABCD2 score?"), fetch)
    # the calculator line alone says nothing: its section's table (the chunk before it) is read first
    assert [h.chunk.chunk_id for h in out] == ["tia#lim#0", "tia#c#0", "tia#c#1"]
    assert out[1].rank == 2 and out[1].scores == {}
    assert asked == [["tia#c#0", "tia#c#2"]]  # the "Limitations" heading names no list: not grown
    # not a list question, no qualifier: nothing fetched
    asked.clear()
    assert with_siblings(hits, read_asks("Is the ABCD2 score useful?"), fetch) == hits and asked == []
    # a neighbour id from another document (a store that answered wrongly) is not added
    stored["tia#c#0"] = stored["other#c#0"].model_copy(update={"chunk_id": "tia#c#0"})
    out = with_siblings(hits, read_asks("ABCD2 components?"), fetch)
    assert [h.chunk.chunk_id for h in out] == ["tia#lim#0", "tia#c#1"]
    # nor one of another patient's (a neighbour is of its hit's document, so of its patient, and checked)
    stored["tia#c#0"] = Chunk(chunk_id="tia#c#0", doc_id="tia", text=table, body=table, section_path=path,
                              patient_id="P0002")
    out = with_siblings(hits, read_asks("ABCD2 components?"), fetch)
    assert [h.chunk.chunk_id for h in out] == ["tia#lim#0", "tia#c#1"]


def test_the_word_budget_keeps_the_best_scoring_groups() -> None:
    from clinqa.answer.extractive import _within_budget
    from clinqa.chunking.units import unit_records

    long_list = unit_records("- " + "\n- ".join(" ".join(["word"] * 20) for _ in range(5)))  # 100 words, 1 group
    short = unit_records("The answer is ten words long and it is here.")
    keep = [(0, u) for u in long_list] + [(1, short[0])]
    scores = np.array([0.5] * len(long_list) + [0.9], dtype=np.float32)
    chosen = list(range(len(keep)))
    assert _within_budget(chosen, keep, scores, {}, 150) == [5, 0, 1, 2, 3, 4]  # both fit, best first
    assert _within_budget(chosen, keep, scores, {}, 50) == [5]  # the list does not fit beside the sentence
    scores[5] = 0.1
    assert _within_budget(chosen, keep, scores, {}, 50) == [0, 1, 2, 3, 4]  # the best is kept even over budget


def test_a_row_is_named_by_a_number_inside_its_range() -> None:
    enc = FlatEncoder()
    body = ("| Baseline INR | 4F-PCC Dose | Maximum Dose |\n|---|---|---|\n| **2.0-3.9** | 25 IU/kg | 2,500 IU |\n"
            "| **4.0-6.0** | 35 IU/kg | 3,500 IU |\n| **> 6.0** | 50 IU/kg | 5,000 IU |")
    hit = chunk_hit("ich#pcc#0", body, 1, ["4F-PCC Dosing"])
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, [hit], enc, asked=read_asks("4F-PCC dose for warfarin-associated ICH with INR 5"))
    # not the 4 of "4F-PCC"; every column, the one asked for first
    assert ext.text == "Baseline INR 4.0-6.0, 4F-PCC Dose: 35 IU/kg; Maximum Dose: 3,500 IU. [1]"
    ext = extract_answer(q, [hit], enc, asked=read_asks("What 4F-PCC dose is used when the INR is 7.5."))
    assert ext.text == "Baseline INR > 6.0, 4F-PCC Dose: 50 IU/kg; Maximum Dose: 5,000 IU. [1]"
    # a number with no word of the range's column in the question names no row
    ext = extract_answer(q, [hit], enc, max_sentences=4, asked=read_asks("4F-PCC dose for a 5 year old"))
    assert "Baseline INR 4.0-6.0," not in ext.text


def test_list_items_ending_in_a_semicolon_are_joined_once_and_a_lead_in_is_not_repeated() -> None:
    """Found by a new user: "...48 hours;;" and "Check a trough level before the fourth dose." quoted twice (once
    as a sentence, again inside the label of the list it introduced)."""
    enc = FlatEncoder()
    body = ("Check a trough level before the fourth dose. Target trough:\n\n"
            "- 10-15 mg/L for uncomplicated infections;\n- 15-20 mg/L for endocarditis;\n- repeat weekly if stable;")
    units = units_of(body)
    assert units[0] == "Check a trough level before the fourth dose."
    assert units[1] == "Target trough: 10-15 mg/L for uncomplicated infections;"
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("v#m#0", body, 1, ["Monitoring"])], enc,
                         asked=read_asks("vancomycin target trough for endocarditis"))
    assert ";;" not in ext.text and ext.text.count("Check a trough level") <= 1
    assert "10-15 mg/L for uncomplicated infections; 15-20 mg/L for endocarditis" in ext.text


def test_a_plural_states_the_qualifier_too():
    # "in outpatients" is the outpatient qualifier (found by a new user: the blood-culture advice was quoted)
    from clinqa.question.asks import qualifiers_of

    names = [q[0] for q in qualifiers_of("First-line treatment for CAP in outpatients without comorbidities?")]
    assert names == ["without comorbidities", "first-line", "outpatient"]
    assert "adults" in [q[0] for q in qualifiers_of("Dose for an adult with CAP?")]


def test_a_passage_filed_under_the_kind_of_answer_asked_for_joins_the_context_and_is_preferred() -> None:
    """Found by a new user: "What is the epinephrine dose in neonatal resuscitation?" quoted limitations and the
    ET dose; the "Epinephrine > Dosing" table (IV 0.01-0.03 mg/kg) was the sixth passage, one past the five
    an answer may quote."""
    from clinqa.evidence.passages import heading_context
    from clinqa.question.asks import heading_kinds

    assert heading_kinds("What is the epinephrine dose in neonatal resuscitation?") >= {"dosing", "dose"}
    assert heading_kinds("How is acute kidney injury staged?") == {"staging", "stages"}
    assert heading_kinds("Is apixaban safe in pregnancy?") == frozenset()
    ctx = [chunk_hit(f"n#a#{i}", "Epinephrine is rarely needed.", i + 1, ["NRP", "Epinephrine", h])
           for i, h in enumerate(["Administration", "Limitations"])]
    dosing = chunk_hit("n#d#0", "| Route | Dose |\n|---|---|\n| IV | 0.01-0.03 mg/kg |", 6,
                       ["NRP", "Epinephrine", "Dosing"])
    other = chunk_hit("v#d#0", "| Route | Dose |\n|---|---|\n| IV | 10 mL/kg |", 7, ["NRP", "Volume", "Dosing"])
    q = "What is the epinephrine dose in neonatal resuscitation?"
    assert heading_context(read_asks(q), [*ctx, dosing, other], ctx) == [*ctx, dosing]
    assert heading_context(read_asks(q), [*ctx, dosing, other], ctx, test=_Names(other)) == [*ctx, other]
    assert heading_context(read_asks("Is epinephrine needed?"), [*ctx, dosing], ctx) == ctx  # no kind asked for
    assert heading_context(read_asks(q), [dosing, *ctx], [dosing, *ctx]) == [dosing, *ctx]  # already there
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [*ctx, dosing], enc, max_sentences=1, asked=read_asks(q))
    assert ext.text == "Route: IV; Dose: 0.01-0.03 mg/kg. [1]"


def test_a_long_flowchart_falls_back_to_the_steps_picked() -> None:
    """A flowchart is quoted whole, but one longer than the answer's word budget gives way to the steps the
    scores picked (held-out h014: "DELAY insulin until K+ > 3.5 mmol/L" was lost behind a 190-word tree)."""
    steps = "\n".join(f"  --> Step {i}: reassess fluids and glucose every hour, adjust the rate as needed?"
                      for i in range(12))
    tree = "DKA patient\n  --> Check potassium: DELAY insulin until K+ > 3.5 mmol/L\n" + steps
    enc = FlatEncoder()
    hits = [chunk_hit("d#s#0", "Potassium falls by 1-2 mmol/L once insulin starts.", 1, ["DKA"]),
            chunk_hit("d#t#0", tree, 2, ["DKA", "Algorithm"])]
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc, max_sentences=2, scoring=UnitScoring(max_words=60),
                         asked=read_asks("potassium level below which insulin is delayed in DKA"))
    assert "DELAY insulin until K+ > 3.5 mmol/L" in ext.text and "Step 11" not in ext.text


def test_a_question_about_when_something_happened_prefers_a_unit_with_a_date() -> None:
    """BioASQ: "When did delafloxacin receive its first approval ...?" quoted its potency, not "in June 2017
    received approval"; "When is prasugrel contraindicated?" asks for a condition and gets no date bonus."""
    from clinqa.question.asks import DATE_QUESTION

    assert DATE_QUESTION.search("When did delafloxacin receive its first approval in the USA?")
    assert DATE_QUESTION.search("In which year was Afrezza approved?")
    assert not DATE_QUESTION.search("When is prasugrel contraindicated?")
    assert not DATE_QUESTION.search("When should an MRA not be started?")
    enc = FlatEncoder()
    hits = [chunk_hit("d#a#0", "Delafloxacin shows potency against resistant pathogens. "
                               "It received approval in the USA in June 2017.", 1, ["Abstract"])]
    ext = extract_answer(enc.encode_queries(["x"])[0], hits, enc, max_sentences=1,
                         asked=read_asks("When did delafloxacin receive approval?"))
    assert ext.text == "It received approval in the USA in June 2017. [1]"


def test_a_list_that_must_hold_whole_is_quoted_whole_and_a_named_value_is_a_unit() -> None:
    """Found by a new user: "Who is eligible for thrombectomy?" quoted two of six criteria under "meet ALL of
    the following criteria"; "When is DKA resolved?" dropped the ketone row of an "all of the following"
    table; a note's "eGFR 38." (two words) was no unit, so "What was the eGFR in 2023?" quoted the line
    before it. A lead-in label counts once towards the word budget, as it is shown."""
    from clinqa.answer.extractive import ALL_OF

    assert ALL_OF.search("Thrombectomy is recommended for patients who meet ALL of the following criteria:")
    assert ALL_OF.search("at least two of the following") and not ALL_OF.search("Examples include the following:")
    body = ("Thrombectomy is recommended for patients who meet ALL of the following criteria:\n\n"
            "- Pre-stroke mRS 0-1\n- ICA or M1 occlusion\n- Age >= 18 years\n- NIHSS >= 6\n- ASPECTS >= 6\n"
            "- Groin puncture within 6 hours of onset")
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("s#t#0", body, 1, ["Thrombectomy"])], enc,
                         max_sentences=2, asked=read_asks("Who is eligible for thrombectomy by age?"))
    assert ext.text == ("Thrombectomy is recommended for patients who meet ALL of the following criteria: "
                        "Pre-stroke mRS 0-1; ICA or M1 occlusion; Age >= 18 years; NIHSS >= 6; ASPECTS >= 6; "
                        "Groin puncture within 6 hours of onset. [1]")
    assert units_of("Chronic kidney disease stage 3b. eGFR 38. Seen.") == ["Chronic kidney disease stage 3b.",
                                                                          "eGFR 38."]


def test_a_sentence_that_points_back_comes_with_the_one_before_it() -> None:
    """Second new-user helper: "first-line pharmacotherapy for alcohol use disorder" quoted "This is the
    highest-rated pharmacotherapy recommendation in the guideline." without the sentence naming naltrexone."""
    from clinqa.answer.extractive import ANAPHOR

    assert ANAPHOR.match("This is the highest-rated recommendation.") and not ANAPHOR.match("Thiazides are first-line.")
    assert not ANAPHOR.match("These findings strongly predict a cellular adhesion function for TMEM132.")  # BioASQ
    body = ("APA recommends that naltrexone or acamprosate be offered to patients with alcohol use disorder. "
            "This is the highest-rated pharmacotherapy recommendation in the guideline.")
    enc = FlatEncoder()
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("a#p#0", body, 1, ["Pharmacotherapy"])], enc,
                         max_sentences=1, asked=read_asks("What is the highest-rated pharmacotherapy recommendation?"))
    assert ext.text == body + " [1]"


class _Names:
    """A key-term test (as :func:`clinqa.evidence.passages.heading_context` reads one) under which only ``named``
    names what the question is about: every other hit misses a decisive term."""

    def __init__(self, named: object) -> None:
        self.named = named

    def on(self, hits: list[object]) -> SimpleNamespace:
        return SimpleNamespace(decisive=[] if hits == [self.named] else ["epinephrine"])


STENOSIS = """Carotid endarterectomy after a TIA:

- Endarterectomy is recommended for ipsilateral stenosis 70-99% in surgical candidates.
- Endarterectomy may be considered for stenosis 50-69%, depending on age and sex.
- Endarterectomy is not recommended for stenosis < 50%."""


def test_sibling_items_with_bands_in_the_questions_unit_keep_the_one_that_holds_it() -> None:
    """A list whose items write bands of one measure mid-sentence ("stenosis 70-99%"): for "80% stenosis" the item whose
    band holds 80 is quoted, not its siblings (hand values: 80 is in [70, 99], not in [50, 69], not below 50)."""
    from clinqa.answer.extractive import _quantity_holds, unit_banded_out
    from clinqa.chunking.units import unit_records
    from clinqa.text.quantities import extract_quantities

    q70, q50, lt50 = (extract_quantities(t)[0] for t in ("stenosis 70-99%", "stenosis 50-69%", "stenosis < 50%"))
    assert [_quantity_holds(q, 80.0) for q in (q70, q50, lt50)] == [True, False, False]
    assert _quantity_holds(lt50, 49.0) and not _quantity_holds(lt50, 50.0)
    enc = FlatEncoder()
    hit = chunk_hit("tia#cea#0", STENOSIS, 1, ["TIA", "Carotid endarterectomy"])
    ext = extract_answer(enc.encode_queries(["x"])[0], [hit], enc, max_sentences=4,
                         asked=read_asks("TIA with 80% ipsilateral carotid stenosis - endarterectomy?"))
    assert "70-99%" in ext.text and "50-69%" not in ext.text and "< 50%" not in ext.text, ext.text
    # one item alone is no sibling list; an item's band after "until" says when an act ends; no quantity, no cut
    units = [(0, u) for u in unit_records(STENOSIS)]
    asked = read_asks("TIA with 80% ipsilateral carotid stenosis - endarterectomy?")
    assert unit_banded_out(units[:1], asked) == set()
    until = [(0, u) for u in unit_records("Plan:\n\n- Hold the drug until SpO2 > 94%.\n- Give oxygen if SpO2 < 90%.")]
    assert unit_banded_out(until, read_asks("SpO2 92% - what to do?")) == set()
    assert unit_banded_out(units, read_asks("carotid stenosis - endarterectomy?")) == set()


OUTPUT = """Staging by urine output (a made-up table written for this test):

| Stage | Urine output |
|---|---|
| Stage A | < 0.5 mL/kg/h for 6-12 hours |
| Stage B | < 0.5 mL/kg/h for >= 12 hours |
| Stage C | < 0.3 mL/kg/h for >= 24 hours |

| Grade | FEV1 |
|---|---|
| Grade 2 | 50% ≤ FEV1 < 80% |
| Grade 3 | 30% ≤ FEV1 < 50% |
"""


def test_sibling_rows_whose_bands_do_not_hold_every_quantity_given_are_left_out() -> None:
    """A row's bands are its columns, all for the one case it states: for "0.4 mL/kg/h for 14 h" (hand values: 0.4 <
    0.5 and 14 >= 12 for Stage B; 14 is not in [6, 12] for Stage A; 0.4 is not < 0.3 for Stage C) only Stage B fits,
    and for "FEV1 42%" (42 >= 30 and < 50) only Grade 3 fits: a band written round the thing ("30% ≤ FEV1 < 50%")
    holds a value only between both bounds. Rows are left out only beside a sibling row that fits."""
    from clinqa.answer.extractive import unit_banded_out
    from clinqa.chunking.units import unit_records

    units = [(0, u) for u in unit_records(OUTPUT)]
    rows = [u for _, u in units if u.kind == "row"]
    assert [u.cells[0][1] for u in rows] == ["Stage A", "Stage B", "Stage C", "Grade 2", "Grade 3"]
    out = unit_banded_out(units, read_asks("urine output 0.4 mL/kg/h for the last 14 h - which stage?"))
    assert out == {id(rows[0]), id(rows[2])}
    assert unit_banded_out(units, read_asks("post-bronchodilator FEV1 42% - which grade?")) == {id(rows[3])}
    # no sibling row fits 90%: none is left out
    assert unit_banded_out(units, read_asks("FEV1 90% - which grade?")) == set()


def test_a_worked_example_of_other_numbers_is_not_quoted() -> None:
    """Found by the eighth and ninth new users: "burn 40% TBSA 70 kg - parkland fluids" quoted the guideline's worked
    example for a 30% burn ("Total 24h volume = 4 x 70 x 30 = 8,400 mL"), a wrong volume for this patient. A
    computation (:func:`clinqa.answer.extractive.another_case`) stating a quantity in a unit the question gives, none
    equal to the question's, is another patient's; computed from the question's own numbers it stays."""
    from clinqa.answer.extractive import another_case
    from clinqa.chunking.units import unit_records

    body = ("Total 24-hour fluid = 4 mL x body weight (kg) x % TBSA burned.\n\n"
            "A 70 kg patient with 30% TBSA burn:\n\n- Total 24h volume = 4 x 70 x 30 = 8,400 mL LR\n"
            "- First 8 hours: 4,200 mL (525 mL/hr)\n")
    units = [(0, u) for u in unit_records(body)]
    example = {id(u) for _, u in units if "4 x 70" in u.text or "4,200" in u.text}
    assert len(example) == 2
    assert another_case(units, read_asks("burn 40% TBSA 70 kg - parkland fluids"), units) == example
    assert another_case(units, read_asks("80 kg man, 25% TBSA burns - fluid in the first 8 hrs?"), units) == example
    assert another_case(units, read_asks("70kg man 30% burns, Parkland - how much in the first 8h?"), units) == set()
    assert another_case(units, read_asks("Parkland formula for burns?"), units) == set()  # no number given
