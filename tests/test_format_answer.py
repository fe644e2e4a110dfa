"""Human output of ``clinqa ask`` (:func:`clinqa.cli.render.format_answer`) on hand-made answer dicts: the
exact text, wrapped at a fixed width, for an answer, a refusal with topics, an off-topic refusal
and an answer made before ``related`` existed."""

from __future__ import annotations

from typing import Any

from clinqa.cli.render import format_answer, refusal_sentence, related_items


def _answer(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question": "How long does the cough last after acute bronchitis?",
        "refused": False, "mode": "extractive", "filters": {"patient_id": None, "exclude_levels": ["document"]},
        "answer": "The cough may persist for 4 weeks after the infection [1].\n"
                  "Antibiotics are not recommended for uncomplicated acute bronchitis in adults [2].",
        "citations": [
            {"n": 1, "chunk_id": "bronchitis#course#0", "doc_id": "bronchitis", "title": "Acute bronchitis",
             "section": "Acute bronchitis > Clinical course", "year": 2020, "source": "open-medicine",
             "url": "https://example.org/bronchitis", "score": 0.8, "quote": "", "note_date": None, "also_in": []},
            {"n": 2, "chunk_id": "bronchitis#treatment/antibiotics#0", "doc_id": "bronchitis",
             "title": "Acute bronchitis", "section": "Acute bronchitis > Treatment > Antibiotics", "year": None,
             "source": "open-medicine", "url": "", "score": 0.7, "quote": "", "note_date": None, "also_in": [],
             "page_start": 4, "page_end": 5},
        ],
        "warnings": [], "gate": {"answer": True, "signal": 0.61, "threshold": 0.376, "kind": "dense_cosine"},
    }
    base.update(kw)
    return base


def test_answer_wrapped_with_sources_once_and_pages() -> None:
    out = format_answer(_answer(warnings=["the refusal threshold 0.40 is not calibrated for this model (m): run "
                                          "`clinqa eval refusal ... --save`"]), width=60)
    assert out == "\n".join([
        "Q: How long does the cough last after acute bronchitis?",
        "",
        "The cough may persist for 4 weeks after the infection [1].",
        "Antibiotics are not recommended for uncomplicated acute",
        "bronchitis in adults [2].",
        "",
        "Sources:",
        "  [1] Acute bronchitis (2020) — Acute bronchitis > Clinical",
        "      course",
        "      https://example.org/bronchitis · chunk",
        "      bronchitis#course#0",
        "  [2] Acute bronchitis — Acute bronchitis > Treatment >",
        "      Antibiotics, pp. 4–5",
        "      open-medicine · chunk",
        "      bronchitis#treatment/antibiotics#0",
        "",
        "Warning: the refusal threshold 0.40 is not calibrated for",
        "         this model (m): run `clinqa eval refusal ...",
        "         --save`",
    ])
    assert "0.61" not in out and "0.376" not in out  # gate numbers only with verbose


def test_two_passages_of_one_section_are_one_source() -> None:
    first = _answer()["citations"][0]
    second = {**first, "n": 2, "chunk_id": "bronchitis#course#1"}
    out = format_answer(_answer(answer="A [1]. B [2].", citations=[first, second]), width=100)
    assert out.split("Sources:\n")[1] == "\n".join([
        "  [1][2] Acute bronchitis (2020) — Acute bronchitis > Clinical course",
        "         https://example.org/bronchitis · chunks bronchitis#course#0, bronchitis#course#1",
    ])


def test_missing_terms_caution_once() -> None:
    out = format_answer(_answer(missing_terms=["azithromycin"], citations=[]), width=100)
    assert out.endswith("Warning: no quoted passage mentions 'azithromycin': check that the sources answer the "
                        "question")
    # a warning of the pipeline that already names the term: not said twice
    said = format_answer(_answer(missing_terms=["azithromycin"], citations=[],
                                 warnings=["the quoted passages do not mention 'azithromycin'"]), width=100)
    assert said.count("azithromycin") == 1
    # the patient's value is no term a passage states (a seventh new user: "... mentions '70 kg'" for a tPA dose)
    assert "Warning" not in format_answer(_answer(missing_terms=["70 kg"], citations=[]), width=100)
    out = format_answer(_answer(missing_terms=["70 kg", "azithromycin"], citations=[]), width=100)
    assert out.endswith("no quoted passage mentions 'azithromycin': check that the sources answer the question")


def _refusal(**kw: Any) -> dict[str, Any]:
    base = _answer(question="What is the dose of amoxicillin for otitis media in children?", refused=True,
                   mode="refusal", citations=[], answer="The documents do not mention amoxicillin.",
                   reason="The documents do not mention amoxicillin.",
                   related=[{"title": "Community-acquired pneumonia in adults: outpatient management",
                             "section": "Adults Without Comorbidities", "chunk_id": "cap#a#0", "doc_id": "cap"},
                            {"title": "Acute bronchitis", "section": "Antibiotics", "chunk_id": "b#t#0",
                             "doc_id": "b"},
                            {"title": "Acute bronchitis", "section": "Antibiotics", "chunk_id": "b#t#1",
                             "doc_id": "b"}],
                   related_topics=["Community-acquired pneumonia in adults: outpatient management > Outpatient > "
                                   "Adults Without Comorbidities", "Acute bronchitis > Treatment > Antibiotics"],
                   gate={"answer": False, "signal": 0.35, "threshold": 0.376, "kind": "dense_cosine",
                         "calibration": "shipped"})
    base.update(kw)
    return base


def test_refusal_reason_then_aligned_topics_each_once() -> None:
    out = format_answer(_refusal(), width=50)
    assert out == "\n".join([
        "Q: What is the dose of amoxicillin for otitis",
        "   media in children?",
        "",
        "Not answered: The documents do not mention",
        "              amoxicillin.",
        "",
        "Closest topics in the documents:",
        "  - Community-acquired pneumonia in adults:",
        "    outpatient management — Adults Without",
        "    Comorbidities",
        "  - Acute bronchitis — Antibiotics",
    ])
    assert "Why" not in out and "0.35" not in out and "0.376" not in out


def test_verbose_shows_the_gate_numbers() -> None:
    out = format_answer(_refusal(related=[], related_topics=[]), width=100, verbose=True)
    assert out.splitlines()[-1] == "Gate: dense_cosine 0.350, threshold 0.376 (shipped)"


def test_off_topic_refusal_has_no_topic_list() -> None:
    out = format_answer(_refusal(question="How do I change a car tyre?", related=[], related_topics=[],
                                 answer="The documents do not cover this question.",
                                 reason="The documents do not cover this question."), width=100)
    assert out == "Q: How do I change a car tyre?\n\nNot answered: The documents do not cover this question."


def test_refusal_keeps_a_clause_added_to_the_reason() -> None:
    d = _refusal(answer="The documents do not mention amoxicillin. Widen the year range to see older guidance.")
    assert refusal_sentence(d) == d["answer"]


def test_answer_made_before_related_existed() -> None:
    old = _refusal(related=[], reason="similarity 0.35, below the answer threshold 0.376",
                   answer="I cannot answer this from the ingested documents: similarity 0.35, below the answer "
                          "threshold 0.376. Related topics that were found: Acute bronchitis > Treatment > "
                          "Antibiotics.")
    assert refusal_sentence(old) == "similarity 0.35, below the answer threshold 0.376"
    assert related_items(old) == [("Community-acquired pneumonia in adults: outpatient management",
                                   "Adults Without Comorbidities"), ("Acute bronchitis", "Antibiotics")]
    assert format_answer(old, width=200).count("Antibiotics") == 1
