"""Step ``no_note_dated`` (phase ``time``): a patient question about a day on which the patient has no note is
refused before any search, naming the nearest note dates."""

from __future__ import annotations

import datetime
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
    return Verdict(False, no_note_reason(ev.filters.patient_id, ev.patient_notes, ev.intent)[0],
                   step="no_note_dated", final=True)


def no_note_reason(patient_id: str, notes: dict[str, tuple[str, str]],
                   intent: TimeIntent) -> tuple[str, list[tuple[str, str, str]]]:
    """``(reason, nearest)`` of a patient question about a day (or days: ``intent.date_min`` /
    ``date_max``, ISO) on which the patient has no note. ``notes``: ``{doc_id: (note date ISO or "",
    note type or "")}``; ``nearest``: up to three ``(day, note type, doc id)``, nearest first by distance in
    days (then doc id), which the reason names. No notes at all: the reason says to check the id."""
    if not notes:  # no such patient (or no notes): say so, as for any other question
        return f"Patient {patient_id} has no notes; check the patient id.", []
    wanted = datetime.date.fromisoformat(intent.date_min or intent.date_max or "1900-01-01")

    def distance(day: str) -> int:
        return abs((datetime.date.fromisoformat(day) - wanted).days)

    dated = sorted(((d, day, kind) for d, (day, kind) in notes.items() if day), key=lambda x: (distance(x[1]), x[0]))
    near = list(dict.fromkeys((day, kind, d) for d, day, kind in dated))[:3]
    lo, hi = intent.date_min, intent.date_max
    span = lo if lo == hi else f"{lo} to {hi}" if lo and hi else f"from {lo}" if lo else f"up to {hi}"
    reason = f"No note of this patient is dated {span}."
    if near:
        reason += " Notes nearest that date: " + ", ".join(f"{day}{f' ({kind})' if kind else ''}"
                                                           for day, kind, _ in near) + "."
    return reason, near
