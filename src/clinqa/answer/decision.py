"""The decision to answer or refuse: one ordered table of named steps, in one place.

``Pipeline.ask`` gathers the :class:`Evidence` of a question (its time intent, the retrieval result,
the key-term test, the calibration in force, later the quoted text and the model's verdict) and runs
:data:`STEPS` over it, phase by phase, with :func:`run`. Each step reads the evidence and the
:class:`Verdict` so far and returns a new verdict (answer, or refuse with the sentence the reader is
told) or ``None`` (pass: the verdict stands). A verdict marked ``final`` ends the decision: no later
step runs. Nothing else in clinqa sets a refusal; the answer and refusal *texts* are rendered from the
final verdict by :mod:`clinqa.answer.assemble`.

The order, and why (each phase runs when its evidence exists):

``time`` (before any search)
    1. ``no_note_dated``: a patient question about a day on which the patient has no note. Searching
       would only find other days' notes, so it refuses before the search, naming the nearest dates.
``retrieval`` (after search, coverage and the key-term test)
    2. ``gate``: the calibrated dense (or reranker) threshold (:class:`clinqa.answer.gate.RefusalGate`);
       the first verdict, never final, so the steps below may overturn it.
    3. ``dated_note``: a patient question about a time only ("What happened in 2023?") sits far from
       the notes in cosine; the time chose the notes, so the gate's refusal is overturned. Before the
       lexical steps, so a missing topic ("What injuries ... on 2022-04-18?") still refuses.
    4. ``support``: a weaker dense match whose first quotable passage mentions every key term answers
       (the calibrated support threshold). Before the key-term refusals, which may still refuse it.
    5. ``key_terms``: a decisive key term (drug, condition, population ...) no quotable passage
       mentions refuses, final, also when the gate refused (its sentence is the better reason).
    6. ``apart``: the decisive terms only in separate passages of a treatment question, or of any question
       when one of them is a population ("allopurinol" and "pregnancy"), refuses, final.
    7. ``answer_model``: the learned answer model (:mod:`clinqa.answer.answer_model`, ``answer.answer_model``)
       finds that none of the first quotable passages answers: refuse, final. After the lexical steps, whose
       sentences name what is missing and are the better reason when they apply.
    8. ``key_term_warning``: an answer whose passages miss a non-decisive key term warns (passes).
``quote`` (after the extractive answer was quoted)
    9. ``no_quote``: nothing quotable: refuse, final.
    10. ``no_amount``: a dose or duration question quoted without one: refuse, final.
``generate`` (after the language model's answer was checked)
    11. ``model_refused``: the model said the passages do not answer: refuse, final.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from clinqa.answer.assemble import (
    MODEL_REFUSED,
    NO_MATCH,
    NO_QUOTE,
    NOT_ANSWERED,
    NOT_COVERED,
    join_words,
    missing_amount_reason,
    missing_reason,
    no_note_reason,
)
from clinqa.answer.gate import GateDecision, RefusalGate

if TYPE_CHECKING:
    from clinqa.answer.answerability import Answerability
    from clinqa.answer.calibration import Resolved
    from clinqa.answer.extractive import Extract
    from clinqa.question.profile import QuestionProfile
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult

Phase = Literal["time", "retrieval", "quote", "generate"]


@dataclass
class Evidence:
    """Everything the steps read about one question, filled in as ``ask`` gathers it.

    ``question``: as typed; ``filters``: as applied (time intent included); ``intent``: the time intent
    read; ``unknown_terms`` / ``key_terms``: the ``answer`` settings of the same names (``ignore`` /
    ``warn`` / ``refuse``). ``patient_notes``: ``{doc_id: (note date ISO, note type)}`` of the patient,
    read only for a question about a day with no note. ``answer_score`` / ``answer_threshold``: the answer
    model's best probability over the first quotable passages and its calibrated threshold (None: the model
    is off or did not run). Retrieval phase: ``result`` (the hits),
    ``missing`` (question words no visible chunk has), ``check`` (the key-term test of the quotable
    passages, None when it did not run), ``timed`` (a question about a time whose topic, if any, the
    key-term test found none of: see ``dated_note``), ``scoped`` (a patient, year, source or document
    filter applied, or the store holds notes) and ``calibration`` (:class:`clinqa.answer.calibration.Resolved`;
    :attr:`gate` is its :class:`RefusalGate`) and ``profile`` (what the question asks for, read once from the
    question after spelling repair: :class:`clinqa.question.profile.QuestionProfile`; None before retrieval).
    Quote phase: ``extract``. Generate phase: ``model_refused``."""

    question: str
    filters: Filters
    intent: TimeIntent
    unknown_terms: str = "warn"
    key_terms: str = "refuse"
    no_note: bool = False
    patient_notes: dict[str, tuple[str, str]] = field(default_factory=dict)
    result: RetrievalResult | None = None
    missing: list[str] = field(default_factory=list)
    check: Answerability | None = None
    timed: bool = False
    scoped: bool = False
    calibration: Resolved | None = None
    extract: Extract | None = None
    model_refused: bool = False
    answer_score: float | None = None
    answer_threshold: float | None = None
    profile: QuestionProfile | None = None

    @property
    def gate(self) -> RefusalGate | None:
        """The refusal gate of :attr:`calibration` (None before retrieval)."""
        return self.calibration.gate() if self.calibration is not None else None

    @property
    def hits(self) -> list[Any]:
        """The retrieved hits (best first; empty before retrieval)."""
        return self.result.hits if self.result is not None else []


@dataclass(frozen=True)
class Verdict:
    """The decision so far: ``answer`` or refuse with ``reason`` (the sentence the reader is told; ""
    when answering), the ``gate`` record an answer carries in ``Answer.gate`` (None before retrieval),
    the ``step`` that set it, ``final`` (no later step runs) and the ``warnings`` the steps added."""

    answer: bool
    reason: str = ""
    gate: GateDecision | None = None
    step: str = ""
    final: bool = False
    warnings: tuple[str, ...] = ()


StepFn = Callable[[Evidence, Verdict], Verdict | None]


@dataclass(frozen=True)
class Step:
    """One named row of the decision table: ``run(evidence, verdict) -> Verdict | None`` in ``phase``."""

    name: str
    phase: Phase
    run: StepFn
    doc: str = ""


# -- the steps -------------------------------------------------------------------------------------
def no_note_dated(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) a patient question about a day on which the patient has no note
    (``ev.no_note``), naming the dates of the nearest notes (:func:`clinqa.answer.assemble.no_note_reason`)."""
    if not ev.no_note:
        return None
    assert ev.filters.patient_id is not None
    return Verdict(False, no_note_reason(ev.filters.patient_id, ev.patient_notes, ev.intent)[0],
                   step="no_note_dated", final=True)


def gate(ev: Evidence, v: Verdict) -> Verdict | None:
    """The calibrated gate's decision (:meth:`RefusalGate.decide`); a refusal reads :data:`NOT_COVERED`,
    or :data:`NO_MATCH` when nothing matched."""
    assert ev.gate is not None and ev.result is not None
    d = ev.gate.decide(ev.result, ev.missing, ev.unknown_terms)
    return Verdict(d.answer, "" if d.answer else NOT_COVERED if ev.hits else NO_MATCH, d, "gate")


def dated_note(ev: Evidence, v: Verdict) -> Verdict | None:
    """Answer a patient question about a time (``ev.timed``) the gate refused, when the patient has notes
    of it (hits under the time filters); ``kind`` gains ``+dated_note``."""
    if v.answer or not ev.timed or ev.filters.patient_id is None or not ev.hits:
        return None
    assert v.gate is not None
    g = replace(v.gate, answer=True, kind=v.gate.kind + "+dated_note",
                reason=f"the question names a time ({ev.intent.phrase}) and the patient has notes of it")
    return replace(v, answer=True, reason="", gate=g, step="dated_note")


def support(ev: Evidence, v: Verdict) -> Verdict | None:
    """Answer a refused question when the first quotable passage mentions every key term
    (``check.complete_in == 0``) and the signal reaches the support threshold (``calibration.
    support_threshold``; None: no such rule); ``kind`` gains ``+key_term_support``."""
    check, d = ev.check, v.gate
    s = ev.calibration.support_threshold if ev.calibration is not None and check is not None else None
    if (v.answer or d is None or check is None or s is None or d.signal is None or check.complete_in != 0
            or d.signal < s):
        return None
    g = replace(d, answer=True, kind=d.kind + "+key_term_support",
                reason=f"signal {d.signal:.3f} is below the threshold {d.threshold:.3f} "
                       f"but at least {s:.3f}, and the best passage mentions every key term")
    return replace(v, answer=True, reason="", gate=g, step="support")


def _key_refusal(v: Verdict, reason: str, step: str) -> Verdict:
    """A final refusal for ``reason``; the gate record's ``kind`` gains ``+key_terms`` when it had answered."""
    assert v.gate is not None
    g = replace(v.gate, answer=False, reason=reason, kind=v.gate.kind + ("+key_terms" if v.gate.answer else ""))
    return Verdict(False, reason, g, step, final=True, warnings=v.warnings)


def key_terms(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) when a decisive key term of the question is in no quotable passage
    (``answer.key_terms: refuse``), with :func:`clinqa.answer.assemble.missing_reason`'s sentence, or,
    when every missing one is named only as something to prevent, that sentence."""
    check = ev.check
    if check is None or not check.decisive or ev.key_terms != "refuse":
        return None
    names = check.decisive_names()
    reason = missing_reason(names, check.in_corpus, ev.scoped)
    if all(t.text in check.prevented for t in check.decisive):
        reason = f"The passages found name {join_words(names, 'and')} only as something to prevent, not to treat."
    return _key_refusal(v, reason, "key_terms")


def apart(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) a treatment question whose decisive terms the passages name only apart
    (``check.apart``; ``answer.key_terms: refuse``)."""
    check = ev.check
    if check is None or not check.apart or ev.key_terms != "refuse":
        return None
    return _key_refusal(v, f"The passages found do not mention {join_words(check.apart, 'and')} together.",
                        "apart")


def answer_model(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) an answer when the answer model's best score over the first quotable passages
    (``ev.answer_score``) is below its calibrated threshold; the gate record's ``kind`` gains
    ``+answer_model``."""
    if not v.answer or ev.answer_score is None or ev.answer_threshold is None or ev.answer_score >= ev.answer_threshold:
        return None
    assert v.gate is not None
    g = replace(v.gate, answer=False, kind=v.gate.kind + "+answer_model",
                reason=f"answer model {ev.answer_score:.3f} is below its threshold {ev.answer_threshold:.3f}")
    return Verdict(False, NOT_ANSWERED, g, "answer_model", final=True, warnings=v.warnings)


def key_term_warning(ev: Evidence, v: Verdict) -> Verdict | None:
    """An answer whose quotable passages miss key terms (``answer.key_terms`` not ``ignore``) is given a
    warning naming them; the verdict stands."""
    check = ev.check
    if check is None or not check.missing or ev.key_terms == "ignore" or not v.answer:
        return None
    names = ", ".join(f"'{w}'" for w in check.missing_names())
    return replace(v, warnings=(*v.warnings, f"the passages found do not mention {names}: check that they answer "
                                             "the question"))


def no_quote(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) when the extractive answer quoted nothing (:data:`NO_QUOTE`); ``Answer.gate`` keeps
    the gate's answering record."""
    if ev.extract is None or ev.extract.text:
        return None
    return replace(v, answer=False, reason=NO_QUOTE, step="no_quote", final=True)


def no_amount(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) a dose or duration question whose quoted answer states none
    (:func:`clinqa.answer.assemble.missing_amount_reason`, on the question as typed: ``ev.profile`` serves
    when it was read from that text, i.e. spelling repair changed nothing)."""
    reason = missing_amount_reason(ev.question, ev.extract.text, ev.profile) if ev.extract is not None else ""
    if not reason:
        return None
    return replace(v, answer=False, reason=reason, step="no_amount", final=True)


def model_refused(ev: Evidence, v: Verdict) -> Verdict | None:
    """Refuse (final) when the language model found that the passages do not answer (:data:`MODEL_REFUSED`)."""
    if not ev.model_refused:
        return None
    return replace(v, answer=False, reason=MODEL_REFUSED, step="model_refused", final=True)


#: the decision, in order (module docstring: why this order)
STEPS: tuple[Step, ...] = (
    Step("no_note_dated", "time", no_note_dated, "a patient question about a day with no note"),
    Step("gate", "retrieval", gate, "the calibrated similarity (or reranker) threshold"),
    Step("dated_note", "retrieval", dated_note, "a question about a time the patient has notes of"),
    Step("support", "retrieval", support, "a weaker match whose best passage names every key term"),
    Step("key_terms", "retrieval", key_terms, "a decisive key term no quotable passage mentions"),
    Step("apart", "retrieval", apart, "decisive terms only in separate passages"),
    Step("answer_model", "retrieval", answer_model, "the answer model finds no passage that answers"),
    Step("key_term_warning", "retrieval", key_term_warning, "a non-decisive key term missing: warn"),
    Step("no_quote", "quote", no_quote, "nothing quotable"),
    Step("no_amount", "quote", no_amount, "a dose or duration asked, none quoted"),
    Step("model_refused", "generate", model_refused, "the language model found no answer"),
)


@dataclass
class Decision:
    """The outcome of :func:`run`: the final ``verdict`` and the ``trace``, the verdict after each step that
    ran (by step name, in order)."""

    verdict: Verdict
    trace: dict[str, Verdict] = field(default_factory=dict)

    def after(self, step: str) -> Verdict:
        """The verdict as it stood after ``step`` (the last one before it when ``step`` did not run)."""
        names = [s.name for s in STEPS]
        for name in reversed(names[: names.index(step) + 1]):
            if name in self.trace:
                return self.trace[name]
        raise KeyError(step)


def run(ev: Evidence, phase: Phase, decision: Decision | None = None,
        steps: Sequence[Step] = STEPS) -> Decision:
    """Run the ``steps`` of ``phase`` in table order on ``ev``, continuing ``decision`` (the previous
    phases'; a new one answering by default). Stops at a ``final`` verdict; a decision already final
    runs nothing. Returns the decision (the same object, updated)."""
    decision = decision or Decision(Verdict(True))
    for step in steps:
        if step.phase != phase or decision.verdict.final:
            continue
        out = step.run(ev, decision.verdict)
        if out is not None:
            decision.verdict = out
        decision.trace[step.name] = decision.verdict
    return decision
