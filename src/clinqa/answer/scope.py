"""The steps of ``Pipeline.ask`` that depend on the question's scope (one patient's notes, or the reference
documents) outside gathering (:mod:`clinqa.evidence.gather`): the :class:`~clinqa.decision.verdict.Case` a
question starts with (its time filter in words; for a patient question about a day with no note, that patient's
notes and the nearest of them, which the decision's refusal names: :func:`nearest_notes`) and the hint that a
question without a patient searched no patient notes. What the store knows comes in as callables, so this module
never touches the store."""

from __future__ import annotations

import datetime
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
    intent as applied, the intent in words as every answer shows it (``time_filter``, read once here), the
    ``answer`` settings ``s``; for a patient question limited to a day with no note
    (:data:`clinqa.question.time.NO_NOTE`), that patient's notes (``patient_notes(id)``) and the nearest of them
    (:func:`nearest_notes`), which the ``time`` phase's refusal names."""
    ev = Case(question, filters, intent, s.unknown_terms, s.key_terms, no_note=filters.doc_ids == (NO_NOTE,),
              time_filter=intent.describe(datetime.date.today()))
    if ev.no_note and filters.patient_id is not None:
        ev.patient_notes = patient_notes(filters.patient_id)
        ev.near_notes = nearest_notes(ev.patient_notes, intent)
    return ev


def nearest_notes(notes: dict[str, tuple[str, str]], intent: TimeIntent) -> list[tuple[str, str, str]]:
    """Up to three ``(day, note type, doc id)`` of the dated ``notes`` (``{doc_id: (note date ISO or "", note type
    or "")}``) nearest the day the question asks about (``intent.date_min``, else ``date_max``, ISO), nearest first
    by distance in days, then doc id; a day and type given by several notes once."""
    wanted = datetime.date.fromisoformat(intent.date_min or intent.date_max or "1900-01-01")

    def distance(day: str) -> int:
        return abs((datetime.date.fromisoformat(day) - wanted).days)

    dated = sorted(((d, day, kind) for d, (day, kind) in notes.items() if day), key=lambda x: (distance(x[1]), x[0]))
    return list(dict.fromkeys((day, kind, d) for d, day, kind in dated))[:3]


def with_patient_hint(answer: Answer, ev: Case, has_patient_notes: Callable[[], bool]) -> Answer:
    """``answer`` with :data:`clinqa.question.repair.PATIENT_HINT` added when a question without a patient
    has words no reference passage has (``ev.missing``) and the store holds patient notes
    (``has_patient_notes()``, asked only then): "the corpus never mentions X" when only a patient's note
    does. Not added twice."""
    if (ev.filters.patient_id is None and ev.missing and PATIENT_HINT not in answer.warnings
            and has_patient_notes()):
        answer.warnings.append(PATIENT_HINT)
    return answer
