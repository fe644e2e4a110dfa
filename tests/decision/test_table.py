"""The decision table (clinqa.decision.table): each step on hand-written evidence, the order of the
table and the runner's phases, from values computed by hand (no store, no model)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from clinqa.answer.extractive import Extract
from clinqa.decision import answer_model as d_answer_model
from clinqa.decision import dated_note as d_dated_note
from clinqa.decision import gate as d_gate
from clinqa.decision import key_terms as d_key_terms
from clinqa.decision import model_refused as d_model_refused
from clinqa.decision import no_note as d_no_note
from clinqa.decision import quote as d_quote
from clinqa.decision import support as d_support
from clinqa.decision import table as decision
from clinqa.decision import verdict
from clinqa.decision.answerability import Answerability
from clinqa.decision.calibration import Resolved
from clinqa.decision.threshold import GateDecision, RefusalGate
from clinqa.question.profile import QuestionProfile
from clinqa.question.terms import KeyTerm
from clinqa.question.time import TimeIntent
from clinqa.retrieval.filters import Filters

CHILDREN = KeyTerm("children", "population", "children")
AMOXICILLIN = KeyTerm("amoxicillin", "specific", "amoxicillin")
CURB = KeyTerm("curb-65", "specific", "curb-65")


def _cal(support: float | None = 0.35) -> Resolved:
    return Resolved("dense_cosine", "m@1", "reference", 0.45, "shipped", True, 4.0, 0.30, support)


def _result(signal: float | None, n_hits: int = 2) -> SimpleNamespace:
    hits = [SimpleNamespace(chunk=SimpleNamespace(chunk_id=f"c{i}")) for i in range(n_hits)]
    return SimpleNamespace(top_dense_cosine=signal, hits=hits)


def _ev(signal: float | None = 0.40, check: Answerability | None = None, n_hits: int = 2, **kw: object
        ) -> verdict.Case:
    cal = _cal()
    ev = verdict.Case("Q?", Filters(), TimeIntent(), "warn", "refuse", result=_result(signal, n_hits),  # type: ignore[arg-type]
                           check=check, calibration=cal)
    for k, v in kw.items():
        setattr(ev, k, v)
    return ev


def _gate(answer: bool, signal: float | None = 0.40) -> verdict.Verdict:
    g = GateDecision(answer, signal, 0.45, "closest passage similarity 0.40", "dense_cosine", "shipped")
    return verdict.Verdict(answer, "" if answer else d_gate.NOT_COVERED, g, "gate")


def test_the_table_order_and_phases() -> None:
    assert [(s.name, s.phase) for s in decision.STEPS] == [
        ("no_note_dated", "time"), ("gate", "retrieval"), ("dated_note", "retrieval"), ("noted_in_time", "retrieval"),
        ("support", "retrieval"),
        ("key_terms", "retrieval"), ("apart", "retrieval"), ("answer_model", "retrieval"),
        ("key_term_warning", "retrieval"),
        ("no_quote", "quote"), ("no_amount", "quote"), ("rare_word_warning", "quote"), ("model_refused", "generate"),
        ("unjudged_key_terms", "generate")]
    assert all(s.doc for s in decision.STEPS)


def test_gate_step_refuses_below_the_threshold_with_the_readers_sentence() -> None:
    v = d_gate.gate(_ev(0.40), verdict.Verdict(True))
    assert v is not None and (v.answer, v.reason, v.step) == (False, d_gate.NOT_COVERED, "gate")
    assert v.gate is not None and (v.gate.signal, v.gate.threshold, v.gate.calibration) == (0.40, 0.45, "shipped")
    assert d_gate.gate(_ev(0.50), verdict.Verdict(True)).answer is True  # type: ignore[union-attr]
    nothing = d_gate.gate(_ev(None, n_hits=0), verdict.Verdict(True))
    assert nothing is not None and nothing.reason == d_gate.NO_MATCH


def test_support_answers_when_first_passage_has_every_key_term() -> None:
    check = Answerability(key_terms=[CURB], complete_in=0)
    v = d_support.support(_ev(check=check), _gate(False, 0.40))
    assert v is not None and v.answer is True and v.reason == ""
    assert v.gate is not None and v.gate.kind == "dense_cosine+key_term_support"
    assert v.gate.reason == ("signal 0.400 is below the threshold 0.450 but at least 0.350, and the best passage "
                             "mentions every key term")


def test_support_passes_otherwise() -> None:
    check = Answerability(key_terms=[CHILDREN], complete_in=0)
    refused = _gate(False, 0.40)
    low = _ev(check=check)
    low.calibration = _cal(0.41)
    assert d_support.support(low, refused) is None  # signal below support
    assert d_support.support(_ev(check=Answerability(key_terms=[CHILDREN], complete_in=1)), refused) is None
    off = _ev(check=check)
    off.calibration = _cal(None)
    assert d_support.support(off, refused) is None  # no support rule
    assert d_support.support(_ev(check=None), refused) is None  # no key-term test
    assert d_support.support(_ev(check=check), _gate(False, None)) is None  # nothing matched
    assert d_support.support(_ev(check=check), _gate(True, 0.6)) is None  # already answering


def test_key_terms_refuse_a_missing_population_and_name_it() -> None:
    check = Answerability(key_terms=[AMOXICILLIN, CHILDREN], missing=[CHILDREN], in_corpus={"children": True})
    v = d_key_terms.key_terms(_ev(check=check), _gate(True, 0.6))
    assert v is not None and (v.answer, v.final, v.step) == (False, True, "key_terms")
    assert v.reason == "The passages found do not mention children."
    assert v.gate is not None and v.gate.kind == "dense_cosine+key_terms" and v.gate.reason == v.reason


def test_key_term_reason_replaces_a_dense_refusal() -> None:
    check = Answerability(key_terms=[AMOXICILLIN], missing=[AMOXICILLIN], in_corpus={"amoxicillin": False})
    v = d_key_terms.key_terms(_ev(check=check), _gate(False, 0.3))
    assert v is not None and v.gate is not None and v.gate.kind == "dense_cosine"
    assert v.reason == "The documents do not mention amoxicillin."
    # under a filter the sentence names what the question could see (Filters.scope)
    for filters, said in ((Filters(year_min=2019, year_max=2021), "The documents of 2019-2021"),
                          (Filters(patient_id="P1"), "Patient P1's notes"),
                          (Filters(patient_id="P1", year_min=2023, year_max=2023), "Patient P1's notes of 2023"),
                          (Filters(sources=("ACC/AHA",), year_min=2019), "The documents from 2019 on from ACC/AHA")):
        # (a store with notes asked without a patient: "the reference documents", set by gathering)
        scoped = d_key_terms.key_terms(_ev(check=check, scope=filters.scope()), _gate(False, 0.3))
        assert scoped is not None and scoped.reason == f"{said} do not mention amoxicillin."


def test_key_terms_that_only_warn() -> None:
    check = Answerability(key_terms=[CHILDREN], missing=[CHILDREN], in_corpus={"children": True})
    warn = _ev(check=check, key_terms="warn")
    assert d_key_terms.key_terms(warn, _gate(True, 0.6)) is None
    v = d_key_terms.key_term_warning(warn, _gate(True, 0.6))
    assert v is not None and v.answer and v.warnings == (
        "the passages found do not mention 'children': check that they answer the question",)
    assert d_key_terms.key_term_warning(_ev(check=check, key_terms="ignore"), _gate(True, 0.6)) is None
    assert d_key_terms.key_term_warning(warn, _gate(False, 0.3)) is None
    # a word the corpus never mentions is named once, by the coverage warning, not again here
    both = Answerability(key_terms=[CHILDREN, AMOXICILLIN], missing=[CHILDREN, AMOXICILLIN],
                         in_corpus={"children": True, "amoxicillin": False})
    once = d_key_terms.key_term_warning(_ev(check=both, key_terms="warn", missing=["amoxicillin"]), _gate(True, 0.6))
    assert once is not None and once.warnings == (
        "the passages found do not mention 'children': check that they answer the question",)
    alone = Answerability(key_terms=[AMOXICILLIN], missing=[AMOXICILLIN], in_corpus={"amoxicillin": False})
    assert d_key_terms.key_term_warning(_ev(check=alone, key_terms="warn", missing=["amoxicillin"]),
                                        _gate(True, 0.6)) is None
    # the patient's value is no term a passage states (a new user: "do not mention '82 kg'" beside a right dose)
    weight = KeyTerm("82 kg", "quantity", "82")
    valued = Answerability(key_terms=[CHILDREN, weight], missing=[CHILDREN, weight], in_corpus={"children": True})
    v = d_key_terms.key_term_warning(_ev(check=valued, key_terms="warn"), _gate(True, 0.6))
    assert v is not None and v.warnings == (
        "the passages found do not mention 'children': check that they answer the question",)


def test_answer_model_refuses_below_its_threshold_only_an_answer() -> None:
    low = _ev(answer_score=0.12, answer_threshold=0.30)
    v = d_answer_model.answer_model(low, _gate(True, 0.6))
    assert v is not None and (v.answer, v.final, v.step) == (False, True, "answer_model")
    assert v.reason == d_answer_model.NOT_ANSWERED
    assert v.gate is not None and v.gate.kind == "dense_cosine+answer_model"
    assert v.gate.reason == "answer model 0.120 is below its threshold 0.300"
    assert d_answer_model.answer_model(_ev(answer_score=0.30, answer_threshold=0.30), _gate(True, 0.6)) is None  # at it
    assert d_answer_model.answer_model(low, _gate(False, 0.3)) is None  # already refused: the gate's reason stands
    assert d_answer_model.answer_model(_ev(), _gate(True, 0.6)) is None  # the model is off
    # in the table: a key-term refusal (final) comes first and keeps its sentence
    check = Answerability(key_terms=[CHILDREN], missing=[CHILDREN], in_corpus={"children": True})
    d = decision.run(_ev(0.6, check=check, answer_score=0.1, answer_threshold=0.3), "retrieval")
    assert d.verdict.step == "key_terms" and "answer_model" not in d.trace
    d = decision.run(_ev(0.6, answer_score=0.1, answer_threshold=0.3), "retrieval")
    assert d.verdict.step == "answer_model" and not d.verdict.answer


def test_dated_note_overturns_the_gate_for_a_patient_question_about_a_time() -> None:
    ev = _ev(0.1, timed=True, filters=Filters(patient_id="P1"), intent=TimeIntent(2023, 2023, phrase="in 2023"))
    v = d_dated_note.dated_note(ev, _gate(False, 0.1))
    assert v is not None and v.answer and v.gate is not None and v.gate.kind == "dense_cosine+dated_note"
    assert v.gate.reason == "the question names a time (in 2023) and the patient has notes of it"
    assert d_dated_note.dated_note(replace(ev, filters=Filters()), _gate(False, 0.1)) is None  # reference scope
    assert d_dated_note.dated_note(replace(ev, timed=False), _gate(False, 0.1)) is None


def test_noted_in_time_overturns_the_gate_when_a_note_of_the_time_names_every_key_term() -> None:
    """"INR most recent" and "2023 UACR" for one patient: the gate refused (signal 0.15), the second quotable note
    names the key term."""
    inr = KeyTerm("inr", "specific", "inr")
    check = Answerability(key_terms=[inr], complete_in=1)
    ev = _ev(0.15, check=check, filters=Filters(patient_id="P1"), intent=TimeIntent(recency=True, phrase="most recent"))
    v = d_dated_note.noted_in_time(ev, _gate(False, 0.15))
    assert v is not None and v.answer and v.step == "noted_in_time" and v.gate is not None
    assert v.gate.kind == "dense_cosine+noted_in_time"
    assert v.gate.reason == ("the question asks about a time of the patient's notes (most recent) and a note of it "
                             "names every key term")
    year = replace(ev, intent=TimeIntent(2023, 2023, phrase="2023"), filters=Filters(patient_id="P1", year_min=2023,
                                                                                     year_max=2023))
    assert d_dated_note.noted_in_time(year, _gate(False, 0.15)) is not None
    assert d_dated_note.noted_in_time(replace(ev, filters=Filters()), _gate(False, 0.15)) is None  # reference scope
    assert d_dated_note.noted_in_time(replace(ev, intent=TimeIntent()), _gate(False, 0.15)) is None  # no time
    # no note names every key term: the gate's refusal stands (and key_terms refuses a decisive missing one)
    assert d_dated_note.noted_in_time(replace(ev, check=Answerability(key_terms=[inr])), _gate(False, 0.15)) is None
    assert d_dated_note.noted_in_time(replace(ev, check=Answerability()), _gate(False, 0.15)) is None  # no key term


def test_after_quoting_no_quote_and_no_amount_refuse_and_keep_the_gate_record() -> None:
    answering = _gate(True, 0.6)
    v = d_quote.no_quote(_ev(extract=Extract("", [])), answering)
    assert v is not None and (v.answer, v.reason, v.final) == (False, d_quote.NO_QUOTE, True)
    assert v.gate is answering.gate  # Answer.gate still shows the gate's answer
    dose = _ev(extract=Extract("Ceftriaxone or cefotaxime is recommended. [1]", []))
    dose.question = "What is the dose of ceftriaxone for meningitis?"
    dose.profile = QuestionProfile.read(dose.question, TimeIntent())  # read once by gathering (Gathered.profile)
    assert d_quote.no_quote(dose, answering) is None
    v = d_quote.no_amount(dose, answering)
    assert v is not None and v.reason == d_quote.NO_DOSE
    dose.extract = Extract("Ceftriaxone 2 g IV every 12 hours. [1]", [])
    assert d_quote.no_amount(dose, answering) is None


def test_no_note_dated_names_the_nearest_notes() -> None:
    """The patient's notes are read once when the case starts (:func:`clinqa.answer.scope.initial_case`): the time
    intent finds none dated that day in them, and the nearest notes are read from the same reading; the step words
    the reason from them and the refusal lists them. The refusal is rendered as every answer is, by
    :func:`clinqa.answer.assemble.answer_of`, with nothing gathered (``found`` None: no search ran)."""
    import datetime

    from clinqa.answer.assemble import answer_of
    from clinqa.answer.scope import initial_case
    from clinqa.question.time import NO_NOTE
    from clinqa.settings import AnswerSettings

    notes = {"n1": ("2022-04-10", "progress"), "n2": ("2022-05-01", ""), "n3": ("", "letter"), "n4": ("2022-04-10", "")}
    asked: list[str] = []
    ev = initial_case("What happened on 2022-04-18?", Filters(patient_id="P1"), AnswerSettings(), True,
                      lambda: True, lambda pid: asked.append(pid) or notes, today=datetime.date(2024, 1, 1))
    assert ev.filters.doc_ids == (NO_NOTE,) and (ev.intent.date_min, ev.intent.date_max) == ("2022-04-18",) * 2
    # read once (the time intent's reading is the case's); 8 days before, 13 after: n1 then n4 (the same day, by
    # doc id) then n2; the undated letter is no candidate
    assert asked == ["P1"] and ev.no_note and ev.near_notes == [
        ("2022-04-10", "progress", "n1"), ("2022-04-10", "", "n4"), ("2022-05-01", "", "n2")]
    assert ev.time_filter == "date 2022-04-18 (from '2022-04-18')"
    v = d_no_note.no_note_dated(ev, verdict.Verdict(True))
    assert v is not None and v.final and v.reason == (
        "No note of this patient is dated 2022-04-18. Notes nearest that date: 2022-04-10 (progress), 2022-04-10, "
        "2022-05-01.")
    d = decision.run(ev, "time")
    assert d.verdict == v and list(d.trace) == ["no_note_dated"]
    ans = answer_of(None, ev, None, d, [], None, {"total": 1.0})
    assert ans.timings_ms == {"total": 1.0} and ans.mode == "refusal" and ans.answer == v.reason
    assert ans.refused and ans.reason == v.reason and ans.filters.doc_ids == () and ans.time_filter == ev.time_filter
    assert ans.related_topics == ["progress note 2022-04-10", "note 2022-04-10", "note 2022-05-01"]
    assert [t["doc_id"] for t in ans.related] == ["n1", "n4", "n2"]
    ev.patient_notes, ev.near_notes = {}, []
    assert d_no_note.no_note_dated(ev, verdict.Verdict(True)).reason == (  # type: ignore[union-attr]
        "Patient P1 has no notes; check the patient id.")
    assert d_no_note.no_note_dated(_ev(), verdict.Verdict(True)) is None


def test_run_goes_phase_by_phase_and_stops_at_a_final_verdict() -> None:
    check = Answerability(key_terms=[AMOXICILLIN, CHILDREN], missing=[CHILDREN], in_corpus={"children": True},
                          apart=["amoxicillin", "children"])
    ev = _ev(0.6, check=check)
    d = decision.run(ev, "time")
    assert list(d.trace) == ["no_note_dated"] and d.verdict.answer
    d = decision.run(ev, "retrieval", d)
    # final: apart not run
    assert list(d.trace) == ["no_note_dated", "gate", "dated_note", "noted_in_time", "support", "key_terms"]
    assert d.verdict.step == "key_terms" and not d.verdict.answer
    assert d.after("dated_note").answer is True and d.after("apart") is d.verdict
    ev.extract = Extract("", [])
    assert decision.run(ev, "quote", d).verdict.step == "key_terms"  # a final verdict runs nothing more
    with pytest.raises(ValueError):  # not a step of the table
        d.after("no_such_step")


def test_model_refused_is_the_generate_phase() -> None:
    ev = _ev(0.6, model_refused=True)
    d = decision.run(ev, "generate", decision.Decision(_gate(True, 0.6)))
    assert (d.verdict.answer, d.verdict.reason) == (False, d_model_refused.MODEL_REFUSED)


def test_the_gate_of_a_fallback_calibration_says_so() -> None:
    g = replace(_cal(), source="fallback", calibrated=False).gate()
    assert isinstance(g, RefusalGate) and (g.calibrated, g.calibration) == (False, "uncalibrated fallback for m@1")


ELIQUIS = KeyTerm("eliquis", "specific", "eliquis", typed="Eliquis")


def test_with_a_language_model_the_key_term_steps_pass_and_the_model_decides() -> None:
    """``--llm`` (Case.model_writes): a missing decisive term or terms only apart no longer refuse in the
    retrieval phase; the gate's verdict stands (an answer, or its own refusal), and the key-term warning is given."""
    check = Answerability(key_terms=[ELIQUIS], missing=[ELIQUIS], in_corpus={"eliquis": False})
    ev = _ev(0.6, check=check, model_writes=True)
    assert d_key_terms.key_terms(ev, _gate(True, 0.6)) is None
    apart = Answerability(key_terms=[AMOXICILLIN, CHILDREN], in_corpus={}, apart=["amoxicillin", "children"])
    assert d_key_terms.apart(_ev(0.6, check=apart, model_writes=True), _gate(True, 0.6)) is None
    d = decision.run(ev, "retrieval", decision.Decision(_gate(True, 0.6)))
    assert d.verdict.answer and not d.verdict.final and d.verdict.step == "gate"
    assert d.verdict.warnings == ("the passages found do not mention 'Eliquis': check that they answer the question",)
    # the gate still refuses (no model is asked), with the sentence naming the missing term
    low = decision.run(_ev(0.40, check=check, model_writes=True), "retrieval")
    assert (low.verdict.answer, low.verdict.step, low.verdict.reason) == (
        False, "key_terms", "The documents do not mention Eliquis.")
    assert low.after("gate").reason == d_gate.NOT_COVERED and low.verdict.gate.kind == "dense_cosine"  # type: ignore[union-attr]
    # the model's reply decides: its refusal phrase refuses, final
    ev.model_refused = True
    out = decision.run(ev, "generate", d).verdict
    assert (out.answer, out.step, out.final) == (False, "model_refused", True)
    assert out.reason == d_model_refused.MODEL_REFUSED


def test_a_model_that_gives_no_usable_answer_leaves_the_key_term_refusal() -> None:
    check = Answerability(key_terms=[ELIQUIS], missing=[ELIQUIS], in_corpus={"eliquis": False})
    ev = _ev(0.6, check=check, model_writes=True)
    d = decision.run(ev, "retrieval", decision.Decision(_gate(True, 0.6)))
    assert decision.run(ev, "generate", d).verdict.answer  # the model answered: nothing to restore
    ev.model_failed = True
    out = decision.run(ev, "generate", d).verdict
    assert (out.answer, out.step, out.final) == (False, "key_terms", True)
    assert out.reason == "The documents do not mention Eliquis."
    apart = Answerability(key_terms=[AMOXICILLIN, CHILDREN], in_corpus={}, apart=["amoxicillin", "children"])
    v = d_key_terms.unjudged_key_terms(_ev(0.6, check=apart, model_writes=True, model_failed=True), _gate(True, 0.6))
    assert v is not None and v.reason == "The passages found do not mention amoxicillin and children together."
    # without a model deciding, the step has nothing to restore
    assert d_key_terms.unjudged_key_terms(_ev(0.6, check=check, model_failed=True), _gate(True, 0.6)) is None


def test_missing_notes_name_each_decisive_term_and_the_equivalents_searched() -> None:
    check = Answerability(key_terms=[ELIQUIS, CHILDREN], missing=[ELIQUIS, CHILDREN],
                          in_corpus={"eliquis": False, "children": True},
                          searched={"eliquis": [], "children": ["child", "paediatric", "pediatric"]})
    assert d_key_terms.missing_notes(check) == [
        "the passages do not mention 'Eliquis'; equivalents searched: none",
        "the passages do not mention 'children'; equivalents searched: child, paediatric, pediatric"]
    many = Answerability(key_terms=[CHILDREN], missing=[CHILDREN], in_corpus={"children": True},
                         searched={"children": [f"w{i}" for i in range(15)]})
    assert d_key_terms.missing_notes(many) == [
        "the passages do not mention 'children'; equivalents searched: w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, "
        "w11 and 3 more"]
    apart = Answerability(key_terms=[AMOXICILLIN, CHILDREN], in_corpus={}, apart=["amoxicillin", "children"])
    assert d_key_terms.missing_notes(apart) == [
        "the passages mention 'amoxicillin' and 'children' only in separate passages"]
    assert d_key_terms.missing_notes(None) == []
    assert d_key_terms.missing_notes(Answerability(key_terms=[AMOXICILLIN], complete_in=0)) == []


def test_each_phase_leaves_the_verdict_the_answer_is_rendered_from() -> None:
    """Issue 48: ``Pipeline.ask`` runs each phase once, when its evidence exists, and hands the one decision down to
    the rendering (``assemble.answer_of``), which reads the verdict as each phase left it
    (``Decision.at_end_of``): the draft's gate record is the retrieval phase's even when the generate phase later
    refuses with a changed one (``unjudged_key_terms``: kind ``dense_cosine+key_terms``)."""
    check = Answerability(key_terms=[ELIQUIS], missing=[ELIQUIS], in_corpus={"eliquis": False})
    ev = _ev(0.6, check=check, model_writes=True)
    d = decision.run(ev, "time")
    decision.run(ev, "retrieval", d)
    ev.extract = Extract("Apixaban 5 mg twice daily. [1]", [])
    decision.run(ev, "quote", d)
    ev.model_failed = True
    decision.run(ev, "generate", d)
    assert (d.verdict.answer, d.verdict.step, d.verdict.gate.kind) == (  # type: ignore[union-attr]
        False, "key_terms", "dense_cosine+key_terms")
    retrieval = d.at_end_of("retrieval")
    assert (retrieval.answer, retrieval.step, retrieval.gate.kind) == (True, "gate", "dense_cosine")  # type: ignore[union-attr]
    assert d.at_end_of("quote") is d.trace["rare_word_warning"] and d.at_end_of("quote").answer
    assert d.at_end_of("time") is d.trace["no_note_dated"] and d.at_end_of("generate") is d.verdict


def test_the_year_range_search_is_the_gates() -> None:
    """Issue 48: the wider search of a refusal under a year range is the refusal gate's question ("would the gate
    answer without the range?"), so it sits with the gate (``decision.threshold.outside_years``), run once by
    ``Pipeline.ask`` and handed down to the rendering, not searched again from ``answer/assemble``."""
    import inspect

    from clinqa.answer import assemble
    from clinqa.decision import threshold

    assert "gate.decide" in inspect.getsource(threshold.outside_years)
    assert not hasattr(assemble, "outside_years")
    assert "stages.search" not in inspect.getsource(assemble)


def test_the_year_test_of_the_wider_search_is_read_where_it_is_used() -> None:
    """Issue 48 (walk 7): whether a hit's year lies inside the ask's year range is read by its one caller, the
    decision's wider search (``threshold.in_years`` beside ``outside_years``), not by gathering: the walk from
    ``Pipeline.ask`` no longer climbs from the decision back into ``evidence/gather.py`` (45 / 15 -> 44 / 14).
    The note's date's year counts before the document year; an undated chunk lies outside any bound."""
    import datetime
    import inspect

    from clinqa.chunking.base import Chunk
    from clinqa.decision import threshold
    from clinqa.evidence import gather

    def chunk(year: int | None, note: datetime.date | None = None) -> Chunk:
        return Chunk(chunk_id="c", doc_id="d", text="t", body="t", year=year, note_date=note)

    years = Filters(year_min=2020, year_max=2022)
    assert [threshold.in_years(chunk(y), years) for y in (2019, 2020, 2022, 2023, None)] == [
        False, True, True, False, False]
    assert threshold.in_years(chunk(2019, datetime.date(2021, 3, 1)), years)  # the note's date, not the year
    assert not threshold.in_years(chunk(2021, datetime.date(2024, 3, 1)), years)
    assert threshold.in_years(chunk(1990), Filters(year_max=1990)) and not threshold.in_years(
        chunk(1989), Filters(year_min=1990))
    assert not hasattr(gather, "in_years")
    assert "clinqa.evidence.gather" not in inspect.getsource(threshold.outside_years)


def test_ask_renders_its_answer_in_one_place() -> None:
    """Issue 48 (walk 7): ``Pipeline.ask`` renders every answer, the no-note refusal of the ``time`` phase included,
    by one call of :func:`clinqa.answer.assemble.answer_of` at its end (no early return through
    ``assemble.no_note_refusal``): the walk from ``Pipeline.ask`` enters ``answer/assemble.py`` once
    (44 / 14 -> 43 / 13)."""
    import ast
    import inspect
    import textwrap

    from clinqa.pipeline import Pipeline

    tree = ast.parse(textwrap.dedent(inspect.getsource(Pipeline.ask)))
    into_assemble = [n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                     and n.func.value.id == "assemble"]
    returns = [n for n in ast.walk(tree) if isinstance(n, ast.Return)]
    assert into_assemble == ["answer_of"] and len(returns) == 1
