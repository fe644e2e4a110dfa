"""The decision to answer or refuse: one ordered table of named steps, in one place.

``Pipeline.ask`` gathers the :class:`Case` of a question (its time intent, the retrieval result,
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
    2. ``gate``: the calibrated dense (or reranker) threshold (:class:`clinqa.decision.threshold.RefusalGate`);
       the first verdict, never final, so the steps below may overturn it.
    3. ``dated_note``: a patient question about a time only ("What happened in 2023?") sits far from
       the notes in cosine; the time chose the notes, so the gate's refusal is overturned. Before the
       lexical steps, so a missing topic ("What injuries ... on 2022-04-18?") still refuses.
       ``noted_in_time``, beside it: a patient question about now or a year ("last EF", "2023 UACR") that a note of
       that time answers by its words (one quotable note mentions every key term, under any name) is answered too;
       a short question sits far from telegraphic notes in cosine. A missing key term still refuses below.
    4. ``support``: a weaker dense match whose first quotable passage mentions every key term answers
       (the calibrated support threshold). Before the key-term refusals, which may still refuse it.
    5. ``key_terms``: a decisive key term (drug, condition, population ...) no quotable passage
       mentions refuses, final, also when the gate refused (its sentence is the better reason). Not when a
       language model writes the answer (``Case.model_writes``, ``--llm``): the missing spelling is often
       the same thing under another name ("Eliquis" for apixaban, an abbreviation spelled out) that the word
       rules cannot see and a model can, so the model is given the passages with a note per missing term
       (:func:`clinqa.decision.key_terms.missing_notes`: "the passages do not mention 'Eliquis'; equivalents
       searched: ...") and decides (step 13); a refusal then comes from the gate or the model's reply. (A
       question the gate refused is never shown to the model and nothing below answers it, so there the
       sentence naming the missing term stays the reason.)
    6. ``apart``: the decisive terms only in separate passages of a treatment question, or of any question
       when one of them is a population ("allopurinol" and "pregnancy"), refuses, final. Not when a
       language model writes the answer, as ``key_terms`` (its note: "... only in separate passages").
    7. ``answer_model``: the learned answer model (:mod:`clinqa.decision.answer_model`, ``answer.answer_model``)
       finds that none of the first quotable passages answers: refuse, final. After the lexical steps, whose
       sentences name what is missing and are the better reason when they apply.
    8. ``key_term_warning``: an answer whose passages miss a non-decisive key term warns (passes).
``quote`` (after the extractive answer was quoted)
    9. ``no_quote``: nothing quotable: refuse, final.
    10. ``no_amount``: a dose or duration question quoted without one: refuse, final.
    11. ``rare_word_warning``: an answer whose quoted passages miss a rare question word warns (passes).
``generate`` (after the language model's answer was checked; the citation and number checks of
:mod:`clinqa.answer.citations` have already dropped unsupported sentences)
    12. ``model_refused``: the model said the passages do not answer: refuse, final. With ``--llm`` this is
        where a question whose key term no passage names is refused, by the model that read the notes.
    13. ``unjudged_key_terms``: the model that was to decide on a missing key term gave no usable answer
        (unreachable, or none of its sentences supported: ``Case.model_failed``): the extractive answer
        would stand in unjudged, so ``key_terms`` and ``apart`` refuse as without a model, final.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clinqa.decision.answer_model import answer_model
from clinqa.decision.dated_note import dated_note, noted_in_time
from clinqa.decision.gate import gate
from clinqa.decision.key_terms import apart, key_term_warning, key_terms, unjudged_key_terms
from clinqa.decision.model_refused import model_refused
from clinqa.decision.no_note import no_note_dated
from clinqa.decision.quote import no_amount, no_quote, rare_word_warning
from clinqa.decision.support import support
from clinqa.decision.verdict import Case, Phase, Step, Verdict

#: the decision, in order (module docstring: why this order)
STEPS: tuple[Step, ...] = (
    Step("no_note_dated", "time", no_note_dated, "a patient question about a day with no note"),
    Step("gate", "retrieval", gate, "the calibrated similarity (or reranker) threshold"),
    Step("dated_note", "retrieval", dated_note, "a question about a time the patient has notes of"),
    Step("noted_in_time", "retrieval", noted_in_time, "a patient's value now or in a year that a note of it names"),
    Step("support", "retrieval", support, "a weaker match whose best passage names every key term"),
    Step("key_terms", "retrieval", key_terms,
         "a decisive key term no quotable passage mentions (with --llm the model decides, told what is missing)"),
    Step("apart", "retrieval", apart, "decisive terms only in separate passages (with --llm the model decides)"),
    Step("answer_model", "retrieval", answer_model, "the answer model finds no passage that answers"),
    Step("key_term_warning", "retrieval", key_term_warning, "a non-decisive key term missing: warn"),
    Step("no_quote", "quote", no_quote, "nothing quotable"),
    Step("no_amount", "quote", no_amount, "a dose or duration asked, none quoted"),
    Step("rare_word_warning", "quote", rare_word_warning, "a rare question word the quoted passages miss: warn"),
    Step("model_refused", "generate", model_refused, "the language model found no answer"),
    Step("unjudged_key_terms", "generate", unjudged_key_terms,
         "the model that was to decide on a missing key term gave no usable answer: the key-term rules refuse"),
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

    def at_end_of(self, phase: Phase) -> Verdict:
        """The verdict as it stood when ``phase`` ended (:meth:`after` its last step in the table): what the
        answer of that phase is rendered from (:func:`clinqa.answer.assemble.answer_of`)."""
        return self.after([s.name for s in STEPS if s.phase == phase][-1])


def run(ev: Case, phase: Phase, decision: Decision | None = None,
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
