"""The steps of ``Pipeline.ask`` that depend on the question's scope (one patient's notes, or the reference
documents) outside gathering (:mod:`clinqa.evidence.gather`): the :class:`~clinqa.decision.verdict.Case` a
question starts with (its time intent applied, and in words; for a patient question about a day with no note, that
patient's notes, read once, and the nearest of them, which the decision's refusal names). What the store knows
comes in as callables, so this module never touches the store."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING

from clinqa.decision.verdict import Case
from clinqa.errors import ConfigError
from clinqa.question.time import NO_NOTE, TimeIntent, apply_time_intent, nearest_notes
from clinqa.text.unicode import is_blank

if TYPE_CHECKING:
    from clinqa.retrieval.filters import Filters
    from clinqa.settings import AnswerSettings


def initial_case(question: str, filters: Filters, s: AnswerSettings, parse_time: bool,
                 reference_has_years: Callable[[], bool],
                 patient_notes: Callable[[str], dict[str, tuple[str, str]]],
                 today: datetime.date | None = None) -> Case:
    """The :class:`~clinqa.decision.verdict.Case` of ``question`` before any search, under the caller's ``filters``:
    the question's time intent applied (:func:`clinqa.question.time.apply_time_intent`, ``today`` default today's
    date, when ``parse_time``: ``retrieval.parse_time``; else none), the intent in words as every answer shows it
    (``time_filter``, read once here), the ``answer`` settings ``s``; for a patient question limited to a day with
    no note (:data:`clinqa.question.time.NO_NOTE`), that patient's notes and the nearest of them
    (:func:`clinqa.question.time.nearest_notes`), which the ``time`` phase's refusal names. The patient's notes
    (``patient_notes(id)``) are read at most once: the time intent's reading of them is the case's. The question's
    first reader: raises :class:`clinqa.errors.ConfigError` ``"the question is empty"`` for a question of nothing
    but whitespace and invisible characters (:func:`clinqa.text.unicode.is_blank`), before anything else is read."""
    if is_blank(question):
        raise ConfigError("the question is empty")
    read: dict[str, dict[str, tuple[str, str]]] = {}

    def notes_of(patient_id: str) -> dict[str, tuple[str, str]]:
        if patient_id not in read:
            read[patient_id] = patient_notes(patient_id)
        return read[patient_id]

    filters, intent = (apply_time_intent(question, filters, reference_has_years, notes_of, today) if parse_time
                       else (filters, TimeIntent()))
    ev = Case(question, filters, intent, s.unknown_terms, s.key_terms, no_note=filters.doc_ids == (NO_NOTE,),
              time_filter=intent.describe(today or datetime.date.today()))
    if ev.no_note and filters.patient_id is not None:
        ev.patient_notes = notes_of(filters.patient_id)
        ev.near_notes = nearest_notes(ev.patient_notes, intent)
    return ev
