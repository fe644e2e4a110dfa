"""Answer assembly (clinqa.answer.assemble): warnings, the decision, refusals and extractive answers,
each from hand-written inputs (no store, no model)."""

from __future__ import annotations

import datetime

import pytest

from clinqa.answer import assemble
from clinqa.answer.extractive import Extract
from clinqa.answer.types import Citation
from clinqa.chunking import Chunk
from clinqa.decision import gate as d_gate
from clinqa.decision import quote as d_quote
from clinqa.decision.answerability import Answerability
from clinqa.decision.threshold import GateDecision, RefusalGate
from clinqa.question.asks import read_asks
from clinqa.question.terms import KeyTerm
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import Retrieved


def _chunk(cid: str, body: str, title: str = "", section: tuple[str, ...] = (), **kw: object) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=body, body=body, title=title,
                 section_path=list(section), **kw)


def _hit(chunk: Chunk, rank: int = 1, duplicates: list[Chunk] | None = None) -> Retrieved:
    return Retrieved(chunk=chunk, score=0.5 / rank, rank=rank, ranks={"dense": rank}, scores={"dense": 0.7},
                     duplicates=duplicates or [])


def _decision(answer: bool, signal: float | None = 0.40, threshold: float = 0.45) -> GateDecision:
    return GateDecision(answer, signal, threshold, "closest passage similarity 0.40", "dense_cosine", "shipped")


CHILDREN = KeyTerm("children", "population", "children")
AMOXICILLIN = KeyTerm("amoxicillin", "specific", "amoxicillin")


# -- warnings ---------------------------------------------------------------------------------------
def test_gate_warnings_uncalibrated_then_missing_words() -> None:
    gate = RefusalGate(0.5, model_id="m1", calibrated=False)
    out = assemble.gate_warnings(gate, ["zorblax", "quux"], "warn", scope="", answering=True)
    assert out == ["the refusal threshold 0.50 is not calibrated for this model (m1): run `clinqa eval refusal "
                   "... --save`",
                   "the corpus never mentions 'zorblax', 'quux'; the quoted passages may not answer the question"]


def test_gate_warnings_scoped_refused_and_off() -> None:
    gate = RefusalGate(0.5, model_id="m1")
    assert assemble.gate_warnings(gate, ["zorblax"], "warn", scope="patient P1's notes", answering=False) == [
        "no passage in patient P1's notes mentions 'zorblax'"]
    assert assemble.gate_warnings(gate, ["zorblax"], "refuse", scope="", answering=False) == []
    assert assemble.gate_warnings(gate, [], "warn", scope="", answering=True) == []


# -- refusals ---------------------------------------------------------------------------------------
def _draft(hits: list[Retrieved], decision: GateDecision, filters: Filters | None = None) -> assemble.Draft:
    return assemble.Draft("Q?", filters or Filters(), hits, decision, warnings=["w1"],
                          repairs={"resusitation": "resuscitation"}, time_filter="", timings_ms={"search": 1.0})


HITS = [_hit(_chunk("sep#a#0", "Give fluids.", "Sepsis", ("Management", "Fluids")), 1),
        _hit(_chunk("sep#a#1", "Give more fluids.", "Sepsis", ("Management", "Fluids")), 2),
        _hit(_chunk("cap#b#0", "Give antibiotics.", "Pneumonia"), 3)]


def test_refuse_not_covered_lists_related_topics_at_the_related_threshold() -> None:
    draft = _draft(HITS, _decision(False, 0.30))
    a = assemble.refuse(draft, d_gate.NOT_COVERED, related_min=0.30, n_topics=5)
    assert (a.refused, a.mode, a.answer, a.reason) == (True, "refusal", d_gate.NOT_COVERED, d_gate.NOT_COVERED)
    assert a.related_topics == ["Sepsis > Fluids", "Pneumonia"]  # one per (document, last heading)
    assert [t["chunk_id"] for t in a.related] == ["sep#a#0", "cap#b#0"]
    assert a.retrieved[2] == {"rank": 3, "chunk_id": "cap#b#0", "score": 0.5 / 3, "rrf": 0.5 / 3,
                              "ranks": {"dense": 3}, "scores": {"dense": 0.7}}
    assert (a.warnings, a.query_repair, a.gate.signal) == (["w1"], {"resusitation": "resuscitation"}, 0.30)
    assert (a.answerability, a.missing_terms) == ({}, [])


def test_refuse_off_topic_gets_no_topics() -> None:
    draft = _draft(HITS, _decision(False, 0.29))
    a = assemble.refuse(draft, d_gate.NOT_COVERED, related_min=0.30, n_topics=5)
    assert (a.related_topics, a.related) == ([], [])


def test_refuse_key_term_reason_and_no_match() -> None:
    key = GateDecision(False, 0.6, 0.45, "The documents do not mention amoxicillin.")
    draft = _draft(HITS, key)
    a = assemble.refuse(draft, key.reason, related_min=0.3, n_topics=1)
    assert (a.reason, a.related_topics) == ("The documents do not mention amoxicillin.", ["Sepsis > Fluids"])
    empty = _draft([], _decision(False, None))
    a = assemble.refuse(empty, d_gate.NO_MATCH, related_min=-1.0, n_topics=5)
    assert (a.answer, a.related) == (d_gate.NO_MATCH, [])


def test_refuse_patient_without_notes_says_check_the_id() -> None:
    draft = _draft([], _decision(False, None), Filters(patient_id="P7"))
    a = assemble.refuse(draft, d_gate.NO_MATCH, related_min=0.3, n_topics=5)
    assert a.reason == d_gate.NO_MATCH
    assert a.answer == d_gate.NO_MATCH + " Patient P7 has no matching notes; check the patient id."
    years = _draft([], _decision(False, None), Filters(patient_id="P7", year_min=2020))
    assert assemble.refuse(years, d_gate.NO_MATCH, 0.3, 5).answer == d_gate.NO_MATCH


def test_year_range_refusal_wording() -> None:
    draft = _draft([], _decision(False, None), Filters(year_min=2030))
    a = assemble.year_range_refusal(draft, HITS[2:], "since 2030", n_topics=5)
    assert a.reason == "Nothing close enough is dated from 2030 on (read from 'since 2030')."
    assert a.answer == (a.reason + " Outside that range the documents have the topics listed; widen or remove "
                        "the year range to see them.")
    assert a.related_topics == ["Pneumonia"]
    explicit = _draft([], _decision(False, None), Filters(year_min=2001, year_max=2003))
    assert assemble.year_range_refusal(explicit, HITS, "", 5).reason == (
        "Nothing close enough is dated in the years 2001-2003.")


# -- extractive answers -----------------------------------------------------------------------------
def _citation(cid: str) -> Citation:
    return Citation(1, cid, cid.split("#")[0], "Note", "Plan", 2023, "", "", 0.9)


def test_also_in_names_copies_holding_every_quoted_unit() -> None:
    kept = _chunk("n3#plan#0", "Continue  metformin 500 mg. Recheck HbA1c.")
    full = _chunk("n2#plan#0", "continue metformin 500 mg. recheck hba1c. Walk daily.", note_type="progress",
                  note_date=datetime.date(2023, 4, 2))
    partial = _chunk("n1#plan#0", "Continue metformin 500 mg.", year=2022)
    yearly = _chunk("n0#plan#0", "Continue metformin 500 mg. Recheck HbA1c.", year=2021)
    cits = [_citation("n3#plan#0")]
    assemble.also_in(cits, {"n3#plan#0": ["Continue metformin 500 mg.", "Recheck HbA1c."]},
                     [_hit(kept, duplicates=[full, partial, yearly])])
    assert cits[0].also_in == ["progress note 2023-04-02 (n2)", "2021 (n0)"]


def test_also_in_nothing_without_quotes_or_copies() -> None:
    kept = _chunk("n3#plan#0", "Continue metformin.")
    cits = [_citation("n3#plan#0")]
    assemble.also_in(cits, {}, [_hit(kept, duplicates=[_chunk("n2#plan#0", "Continue metformin.", year=2022)])])
    assert cits[0].also_in == []


def test_extractive_answer_renders_the_quote() -> None:
    draft = _draft(HITS, _decision(True, 0.7))
    ext = Extract("Give fluids. [1]", [_citation("sep#a#0")], {"sep#a#0": ["Give fluids."]})
    a = assemble.extractive(draft, ext)
    assert (a.refused, a.mode, a.answer) == (False, "extractive", "Give fluids. [1]")
    assert [c.chunk_id for c in a.citations] == ["sep#a#0"]
    assert a.warnings == ["w1"] and a.filters == Filters()


def test_the_rare_word_warning_is_a_quote_phase_step() -> None:
    """Issue 48: whether the quoted passages miss a rare question word is read once, by the decision's quote phase
    (step ``rare_word_warning``, from ``Case.rare`` and the quote's citations), and handed down in the verdict's
    warnings; the rendering of the answer (``assemble.extractive``) reads no passage again. By hand: the cited
    passage "Give fluids." mentions 'fluids', not 'vasopressin'; a refusal or no quote gets no warning."""
    import numpy as np

    from clinqa.decision.quote import rare_word_warning
    from clinqa.decision.verdict import Case, Verdict
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.hybrid import RetrievalResult

    result = RetrievalResult("Q?", Filters(), HITS, [], [], np.zeros(2, dtype=np.float32))
    ev = Case("Q?", Filters(), TimeIntent(), result=result, rare=["fluids", "vasopressin"])
    ev.extract = Extract("Give fluids. [1]", [_citation("sep#a#0")], {"sep#a#0": ["Give fluids."]})
    v = rare_word_warning(ev, Verdict(True, warnings=("w0",)))
    assert v is not None and v.answer and v.warnings == (
        "w0", "the quoted passages do not mention 'vasopressin': check that they answer the question")
    # the kind of answer asked for is no topic to warn about ("components" of CURB-65, new-user helper)
    ev.rare = ["components", "criteria", "fluids"]
    assert rare_word_warning(ev, Verdict(True)) is None
    ev.rare = ["vasopressin"]
    assert rare_word_warning(ev, Verdict(False, "No.")) is None
    ev.extract = None
    assert rare_word_warning(ev, Verdict(True)) is None


def test_extractive_without_a_quote_is_an_error_and_related_topics_render() -> None:
    # the decision refuses an empty quote (tests/answer/test_decision.py); rendering one is a bug
    with pytest.raises(ValueError, match="quoted text"):
        assemble.extractive(_draft(HITS, _decision(True, 0.7)), Extract("", []))
    a = assemble.refusal(_draft(HITS, _decision(True, 0.7)), d_quote.NO_QUOTE, assemble.related(HITS, 5))
    assert a.refused and a.answer == d_quote.NO_QUOTE
    assert a.related_topics == ["Sepsis > Fluids", "Pneumonia"]
    assert assemble.related(HITS, 0) == []  # answer.related_topics 0 means none (it gave one)


def test_quotable_keeps_the_focused_passages_in_rank_order() -> None:
    """The choice of passages to quote is the evidence layer's (:func:`clinqa.evidence.passages.quotable`)."""
    from clinqa.chunking.base import Chunk
    from clinqa.evidence.passages import quotable
    from clinqa.retrieval.hybrid import Retrieved

    hits = [Retrieved(Chunk(chunk_id=f"c{i}", doc_id="d", text="t", body="t"), 1.0 / (i + 1), i + 1) for i in range(6)]
    focused = Answerability(key_terms=[CHILDREN], focused=[1, 3, 5])
    assert [h.chunk.chunk_id for h in quotable(hits, focused, 5)] == ["c1", "c3"]  # c5 is past the context
    assert [h.chunk.chunk_id for h in quotable(hits, Answerability(key_terms=[CHILDREN]), 3)] == ["c0", "c1",
                                                                                                          "c2"]
    assert len(quotable(hits, None, 4)) == 4


def test_year_span_in_words():
    from clinqa.answer.assemble import year_span

    assert year_span(2019, 2019) == "in 2019"
    assert year_span(2001, 2003) == "in the years 2001-2003"
    assert year_span(2024, None) == "from 2024 on"
    assert year_span(None, 2004) == "up to 2004"


def missing(question: str, text: str) -> str:
    """:func:`clinqa.decision.quote.missing_amount_reason` of ``text`` for ``question`` (read once)."""
    from clinqa.decision.quote import missing_amount_reason

    return missing_amount_reason(read_asks(question), text)


def test_a_dose_question_answered_without_an_amount_is_refused():
    """Found by a new user: "What is the dose of ceftriaxone for bacterial meningitis in adults?" was answered
    "Ceftriaxone or cefotaxime is recommended." (no dose; the guideline covers another meningitis); on the
    held-out set it turned the nitrofurantoin-for-cystitis answer (a complicated-UTI list) into a refusal."""
    from clinqa.decision.quote import NO_DOSE

    q = "What is the dose of ceftriaxone for bacterial meningitis in adults?"
    assert missing(q, "Ceftriaxone or cefotaxime is recommended (Strong, Moderate). [1]") == NO_DOSE
    assert missing(q, "Ceftriaxone 2 g IV every 12 hours. [1]") == ""
    assert missing("How much IV crystalloid initially?", "Give at least 30 mL/kg within 3 hours.") == ""
    assert missing("How much IV crystalloid initially?", "Begin IV crystalloid resuscitation.") == NO_DOSE
    # not a dose question: nothing to check
    assert missing("Which antibiotic is first-line for CAP?", "Amoxicillin is first-line.") == ""
    assert missing(q, "") == ""
    # a count of doses is not an amount (BioASQ: "How many doses of Vaxchora are required?")
    assert missing("How many doses of Vaxchora are required?", "A single oral dose is given.") == ""


def test_a_question_of_how_long_answered_without_a_duration_is_refused():
    from clinqa.decision.quote import NO_DURATION

    q = "How long should DAPT continue after PCI for stable angina?"
    assert missing(q, "Prasugrel should be used only in patients proceeding to PCI. [1]") == NO_DURATION
    assert missing(q, "Continue DAPT for 6 months after PCI. [1]") == ""
    assert missing("What is the duration of anticoagulation?", "Continue indefinitely. [1]") == ""
    assert missing("How long is the cough?", "The cough may persist for three weeks. [1]") == ""


def test_patient_hint_ends_every_answer_of_the_draft_once() -> None:
    """The hint that patient notes were not searched is chosen with the draft (``Draft.patient_hint``, set by
    ``draft_of``) and ends the warnings of the answer or refusal rendered from it, after the quote's own warning,
    never twice (the years-hint of ``question_warnings`` may have put it there already)."""
    from clinqa.question.repair import PATIENT_HINT

    d = _draft([_hit(_chunk("c1", "Give 5 mg."))], _decision(True))
    d.patient_hint = True
    d.warnings.append("the quoted passages do not mention 'x': check that they answer the question")
    assert assemble.refusal(d, "No.", []).warnings == [
        "w1", "the quoted passages do not mention 'x': check that they answer the question", PATIENT_HINT]
    d.warnings.append(PATIENT_HINT)
    assert assemble.refusal(d, "No.", []).warnings.count(PATIENT_HINT) == 1
    d.patient_hint, d.warnings = False, ["w1"]
    assert assemble.refusal(d, "No.", []).warnings == ["w1"]


def _reply(text: str, refusal: bool = False) -> object:
    """A checked model reply by hand: one sentence citing [1], supported when ``text`` is."""
    from clinqa.answer.citations import CheckedSentence, Verification
    from clinqa.answer.generate import Generated, Reply
    from clinqa.llm.base import Completion

    said = text or "Fluids cure it. [1]"
    sentences = [CheckedSentence(said, [1], [], bool(text), 0.9 if text else 0.1)]
    completion = Completion(said, "gpt-4o-mini", "openai", 1000, 20, 250.0)
    checked = Verification(text, sentences, 0 if text else 1, refusal)
    return Reply(Generated(text, completion, completion.usage({}), checked, [_citation("sep#a#0")] if text else []))


def test_the_models_reply_is_handed_down_and_rendered_once() -> None:
    """Issue 48: the model's reply is data (``generate.Reply``) that the ``generate`` phase of the decision reads once
    in ``Pipeline.ask`` (``Reply.refused`` / ``Reply.failed``), and the answer is rendered from the reply and the final
    verdict in one place, :func:`assemble.generated`, which runs no decision step itself. By hand: a refusal keeps the
    reply's usage and the model's latency and names the related topics of the hits; a reply with no supported
    sentence leaves the extractive answer with a warning; a supported one replaces its text and citations."""
    from clinqa.decision.model_refused import MODEL_REFUSED
    from clinqa.decision.verdict import Verdict

    def quoted() -> object:
        ext = Extract("Give fluids. [1]", [_citation("sep#a#0")], {"sep#a#0": ["Give fluids."]})
        return assemble.extractive(_draft(HITS, _decision(True, 0.7)), ext)

    refused = _reply("", refusal=True)
    assert (refused.refused, refused.failed) == (True, False)
    a = assemble.generated(quoted(), refused, Verdict(False, MODEL_REFUSED, step="model_refused", final=True), HITS, 5)
    assert (a.refused, a.mode, a.answer, a.reason, a.citations) == (True, "refusal", MODEL_REFUSED, MODEL_REFUSED, [])
    assert a.related_topics == ["Sepsis > Fluids", "Pneumonia"]
    assert (a.llm["prompt_tokens"], a.llm["completion_tokens"], a.llm["cost_usd"]) == (1000, 20, None)
    assert a.timings_ms == {"search": 1.0, "generate": 250.0}

    unsupported = _reply("")
    assert (unsupported.refused, unsupported.failed) == (False, True)
    a = assemble.generated(quoted(), unsupported, Verdict(True), HITS, 5)
    assert (a.refused, a.mode, a.answer) == (False, "extractive", "Give fluids. [1]")
    assert a.warnings[-1] == ("none of the 1 generated sentences was supported by the passages it cites; this is "
                              "the extractive answer")

    said = _reply("Give fluids early. [1]")
    assert (said.refused, said.failed) == (False, False)
    a = assemble.generated(quoted(), said, Verdict(True), HITS, 5)
    assert (a.mode, a.answer, [c.chunk_id for c in a.citations]) == ("generated", "Give fluids early. [1]",
                                                                       ["sep#a#0"])
    assert a.warnings == ["w1"] and a.sentences[0]["supported"] is True

    from clinqa.answer.generate import Reply

    down = Reply(None, {"backend": "openai", "error": "connection refused"})
    assert (down.refused, down.failed) == (False, True)
    a = assemble.generated(quoted(), down, Verdict(True), HITS, 5)
    assert a.mode == "extractive" and a.llm == {"backend": "openai", "error": "connection refused"}
    assert a.warnings[-1] == "no generated answer (connection refused); this is the extractive answer"
