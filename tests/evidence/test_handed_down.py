"""What gathering hands down instead of calling back (issue 48, walk round 6): the choice of passages
(:mod:`clinqa.evidence.passages`) is handed the question's key-term test
(:class:`clinqa.evidence.mentions.KeyTermTest`, which lives with the mention table it reads) and the documents'
chunks (:class:`clinqa.evidence.passages.DocumentChunks`), and makes the search's first choice itself
(:func:`clinqa.evidence.passages.search_context`)."""

from __future__ import annotations

from clinqa.decision.answerability import judge
from clinqa.evidence import gather, mentions, passages
from clinqa.evidence.passages import heading_context
from clinqa.question.profile import QuestionProfile
from clinqa.retrieval.vocabulary import Vocabulary
from tiny_data import chunk_hit

AF = "Atrial fibrillation: apixaban prevents stroke."
DOSE = "In atrial fibrillation, apixaban 5 mg twice daily; 2.5 mg with two of age 80, weight 60 kg, creatinine 133."
OTHER = "In atrial fibrillation, dabigatran 150 mg twice daily."


def test_the_key_term_test_is_handed_down_to_the_choice_of_passages() -> None:
    """heading_context takes the test itself: of two later hits filed under "Dosing", the one that misses the
    decisive "apixaban" (the dabigatran dose) is passed over for the one that names it."""
    q = "What is the apixaban dose in atrial fibrillation?"
    test = mentions.KeyTermTest(q, Vocabulary.from_texts([AF, DOSE, OTHER]), 4.0, judge)
    ctx = [chunk_hit("af#a#0", AF, 1, ["AF", "Anticoagulation"])]
    other = chunk_hit("af#d#0", OTHER, 2, ["AF", "Dabigatran", "Dosing"])
    dose = chunk_hit("af#d#1", DOSE, 3, ["AF", "Apixaban", "Dosing"])
    profile = QuestionProfile.read(q)
    assert [t.text for t in test.on([other]).decisive] == ["apixaban"] and not test.on([dose]).decisive
    assert heading_context(profile, [*ctx, other, dose], ctx, test) == [*ctx, dose]
    assert heading_context(profile, [*ctx, other, dose], ctx) == [*ctx, other]  # no test: the first filed there


def test_gathering_keeps_no_step_of_its_own_that_the_choice_of_passages_calls() -> None:
    """The test and the deeper look (with the mention table), the first choice and the quote's choice (with the
    passages) are defined below gathering (gathering re-exports the names its callers import), and gathering's stages
    carry no document callback."""
    assert gather.KeyTermTest is mentions.KeyTermTest and gather.passages_to_quote is passages.passages_to_quote
    for name in ("search_context", "passages_to_quote", "DocumentChunks"):
        assert getattr(passages, name).__module__ == "clinqa.evidence.passages"
    assert mentions.KeyTermTest.__module__ == mentions.deeper_context.__module__ == "clinqa.evidence.mentions"
    assert not hasattr(gather.Stages, "doc_chunks")


def test_the_deeper_look_takes_the_fitting_hits_read_once() -> None:
    """deeper_context is handed the hits that fit the question (gathering's one :func:`fitting_hits` of all the
    hits, which the later heading passages read too) and reads no hit again: when the first passage lacks the
    decisive "apixaban" (the dabigatran dose), the fitting hit that names it is taken instead, and the test is run
    on it."""
    q = "What is the apixaban dose in atrial fibrillation?"
    test = mentions.KeyTermTest(q, Vocabulary.from_texts([AF, DOSE, OTHER]), 4.0, judge)
    first = chunk_hit("af#d#0", OTHER, 1, ["AF", "Dabigatran", "Dosing"])
    named = chunk_hit("af#d#1", DOSE, 7, ["AF", "Apixaban", "Dosing"])
    check = test.on([first])
    assert [t.text for t in check.decisive] == ["apixaban"]
    context, again = mentions.deeper_context(test, [first, named], [first], check, 1)
    assert context == [named] and again is not None and not again.decisive
    assert mentions.deeper_context(test, [first], [first], check, 1) == ([first], check)  # nothing deeper fits


def test_the_search_hands_on_every_fitting_hit_with_the_context() -> None:
    """search_context fits the question's qualifiers to the hits once and hands on all that fit (``fitting``): the
    context is its first ``answer.context_chunks`` (the inpatient passage is passed over for an outpatient
    question), and gathering's later heading passages and deeper look read the same list."""
    from types import SimpleNamespace

    import numpy as np

    from clinqa.evidence.reading import PassageReadings
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult
    from clinqa.settings import Settings

    hits = [chunk_hit("cap#in#0", "Ceftriaxone plus azithromycin.", 1, ["CAP", "Inpatient"]),
            *[chunk_hit(f"cap#out#{i}", f"Amoxicillin {i}.", i + 2, ["CAP", "Outpatient"]) for i in range(6)]]
    searched: list[str] = []

    def search(asked: str, filters: Filters, **kw: object) -> RetrievalResult:
        searched.append(asked)
        return RetrievalResult(asked, filters, list(hits), [], [], np.zeros(3, np.float32))

    settings = Settings()
    q = "Outpatient antibiotics for pneumonia?"
    result, context, fitting, measured = passages.search_context(
        SimpleNamespace(settings=settings, search=search), q, Filters(), False, None, QuestionProfile.read(q),
        readings=PassageReadings())
    assert measured == frozenset()  # a question to the reference documents: no patient's measures
    assert [h.chunk.chunk_id for h in fitting] == [f"cap#out#{i}" for i in range(6)] and searched == [q]
    assert context == fitting[: settings.answer.context_chunks] and result.hits == hits
