"""Step ``no_note_dated`` (phase ``time``): a patient question about a day on which the patient has no note is
refused before any search, naming the nearest note dates (read with the patient's notes when the case starts:
:attr:`clinqa.decision.verdict.Case.near_notes`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinqa.decision.verdict import Case, Verdict

if TYPE_CHECKING:
    from clinqa.question.time import TimeIntent


def no_note_dated(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) a patient question about a day on which the patient has no note
    (``ev.no_note``), naming the dates of the nearest notes (:func:`clinqa.decision.no_note.no_note_reason`)."""
    if not ev.no_note:
        return None
    assert ev.filters.patient_id is not None
    return Verdict(False, no_note_reason(ev.filters.patient_id, bool(ev.patient_notes), ev.near_notes, ev.intent),
                   step="no_note_dated", final=True)


def no_note_reason(patient_id: str, has_notes: bool, near: list[tuple[str, str, str]], intent: TimeIntent) -> str:
    """The reason of a patient question about a day (or days: ``intent.date_min`` / ``date_max``, ISO) on which
    the patient has no note, naming the ``near`` notes (``(day, note type, doc id)``, nearest first:
    :func:`clinqa.question.time.nearest_notes`). No notes at all (``has_notes`` False): the reason says to check
    the id."""
    if not has_notes:  # no such patient (or no notes): say so, as for any other question
        return f"Patient {patient_id} has no notes; check the patient id."
    lo, hi = intent.date_min, intent.date_max
    span = lo if lo == hi else f"{lo} to {hi}" if lo and hi else f"from {lo}" if lo else f"up to {hi}"
    reason = f"No note of this patient is dated {span}."
    if near:
        reason += " Notes nearest that date: " + ", ".join(f"{day}{f' ({kind})' if kind else ''}"
                                                           for day, kind, _ in near) + "."
    return reason
