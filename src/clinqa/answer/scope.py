"""The steps of ``Pipeline.ask`` that depend on the question's scope (one patient's notes, or the reference
documents) outside gathering (:mod:`clinqa.evidence.gather`): the :class:`~clinqa.decision.verdict.Case` a
question starts with (for a patient question about a day, that patient's notes), its refusal when no note is
dated so, and the hint that a question without a patient searched no patient notes. What the store knows comes
in as callables, so this module never touches the store."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from clinqa.decision.verdict import Case
from clinqa.question.repair import PATIENT_HINT
from clinqa.question.time import NO_NOTE

if TYPE_CHECKING:
    from clinqa.answer.types import Answer
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.settings import AnswerSettings


def initial_case(question: str, filters: Filters, intent: TimeIntent, s: AnswerSettings,
                 patient_notes: Callable[[str], dict[str, tuple[str, str]]]) -> Case:
    """The :class:`~clinqa.decision.verdict.Case` of ``question`` before any search: its filters and time
    intent as applied, the ``answer`` settings ``s``; for a patient question limited to a day with no note
    (:data:`clinqa.question.time.NO_NOTE`), that patient's notes (``patient_notes(id)``), which the ``time``
    phase's refusal names the nearest of."""
    ev = Case(question, filters, intent, s.unknown_terms, s.key_terms, no_note=filters.doc_ids == (NO_NOTE,))
    if ev.no_note and filters.patient_id is not None:
        ev.patient_notes = patient_notes(filters.patient_id)
    return ev


def no_note_answer(ev: Case, t0: float) -> Answer:
    """The refusal of a patient question about a day with no note (decision step ``no_note_dated``), naming
    the nearest notes (:func:`clinqa.decision.no_note.no_note_reason`); ``t0``: when ``ask`` started
    (``time.perf_counter``), for ``timings_ms["total"]``."""
    from clinqa.answer import assemble
    from clinqa.decision.no_note import no_note_reason

    reason, near = no_note_reason(str(ev.filters.patient_id), ev.patient_notes, ev.intent)
    return assemble.no_note_refusal(ev.question, ev.filters, ev.intent, reason, near,
                                    {"total": (time.perf_counter() - t0) * 1e3})


def with_patient_hint(answer: Answer, ev: Case, has_patient_notes: Callable[[], bool]) -> Answer:
    """``answer`` with :data:`clinqa.question.repair.PATIENT_HINT` added when a question without a patient
    has words no reference passage has (``ev.missing``) and the store holds patient notes
    (``has_patient_notes()``, asked only then): "the corpus never mentions X" when only a patient's note
    does. Not added twice."""
    if (ev.filters.patient_id is None and ev.missing and PATIENT_HINT not in answer.warnings
            and has_patient_notes()):
        answer.warnings.append(PATIENT_HINT)
    return answer
