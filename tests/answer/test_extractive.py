"""Extractive answer units, sentence selection and the cosine gate."""

from __future__ import annotations

import numpy as np

from clinqa.answer import RefusalGate, extract_answer, units_of
from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import RetrievalResult, Retrieved
from clinqa.store.base import Hit


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


class KeywordEncoder:
    """A transparent stand-in for a bi-encoder in unit tests: one dimension per keyword."""

    words = ("heparin", "insulin", "warfarin")
    dim = 3
    model_id = "kw"
    max_tokens = 512

    def encode_passages(self, texts, progress=False):
        v = np.array([[t.lower().count(w) for w in self.words] for t in texts], dtype=np.float32) + 1e-6
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    encode_queries = encode_passages


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


def chunk_hit(cid: str, body: str, rank: int, section: list[str], dense: float = 0.5) -> Retrieved:
    chunk = Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title="T", section_path=section)
    return Retrieved(chunk, 1 / (60 + rank), rank, scores={"dense": dense})


class FlatEncoder(KeywordEncoder):
    """Every text the same vector: selection is decided by the lexical and structural rules alone."""

    def encode_passages(self, texts, progress=False):
        return np.ones((len(texts), 3), dtype=np.float32) / np.sqrt(3)

    encode_queries = encode_passages


QSOFA = ("A patient meets the qSOFA criteria if they exhibit at least two of the following three clinical "
         "parameters:\n\n1. Respiratory Rate: >= 22 breaths per minute\n\n2. Altered Mentation: GCS < 15\n\n"
         "3. Systolic Blood Pressure: <= 100 mmHg\n\n"
         "> OpenMedicine Calculator: calculate_qsofa - available via MCP for rapid bedside scoring.")


def test_criteria_question_quotes_the_whole_list_with_its_intro_and_no_advert() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    ext = extract_answer(q, [chunk_hit("s#q#0", QSOFA, 1, ["qSOFA Criteria"])], enc, max_sentences=1,
                         question="What are the qSOFA criteria?")
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
    ext = extract_answer(q, hits, enc, question="First-line antibiotic for adults without comorbidities?")
    assert [c.chunk_id for c in ext.citations] == ["cap#healthy#0"]
    # the trailing OR joins the alternatives and is dropped at the end
    assert ext.text == "Amoxicillin 1 g orally three times daily; OR Doxycycline 100 mg orally twice daily. [1]"
    ext = extract_answer(q, hits, enc, question="Antibiotic for adults with comorbidities?")
    assert [c.chunk_id for c in ext.citations] == ["cap#comorbid#0"]


def test_table_cell_named_by_row_and_column() -> None:
    enc = FlatEncoder()
    rows = "\n".join(f"| Drug{i} | {i} mg | {i // 2} mg | {i // 4} mg |" for i in range(8, 60))
    body = ("| Drug | eGFR \u226560 | eGFR 30\u201359 | eGFR 15\u201329 |\n|---|---|---|---|\n"
            "| Quinvexdel | 40 mg twice daily | 20 mg twice daily | 10 mg once daily |\n" + rows)
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("r#t#0", body, 1, ["Renal dosing"])], enc,
                         question="What is the Quinvexdel dose when eGFR is 15-29?")
    assert ext.text == "Quinvexdel, eGFR 15\u201329: 10 mg once daily. [1]"
    assert ext.citations[0].quote.startswith("Drug: Quinvexdel; eGFR")  # the quote is the row as it stands


def test_units_without_the_questions_content_are_not_quoted() -> None:
    enc = FlatEncoder()
    q = enc.encode_queries(["x"])[0]
    hits = [chunk_hit("n3#m#0", "No medication changes today.", 1, ["MEDICATIONS"]),
            chunk_hit("n2#m#0", "Metformin reduced to 500 mg once daily.", 2, ["MEDICATIONS"]),
            chunk_hit("n1#m#0", "It is not medical advice. Metformin is continued.", 3, ["Notes"])]
    ext = extract_answer(q, hits, enc, max_sentences=4, min_score=0.0,
                         question="What metformin dose is the patient on?")
    assert [c.chunk_id for c in ext.citations] == ["n2#m#0", "n1#m#0"]
    assert ext.citations[1].quote == "Metformin is continued."


def test_long_answers_stop_with_a_pointer() -> None:
    enc = FlatEncoder()
    body = "\n\n".join(f"- Heparin step {i} " + "word " * 30 for i in range(6))
    ext = extract_answer(enc.encode_queries(["x"])[0], [chunk_hit("h#s#0", body, 1, ["Steps"])], enc,
                         question="What are the heparin steps?", max_words=80)
    assert ext.text.endswith("(more in [1]) [1]") and ext.text.count("Heparin step") == 2
