"""Steps ``dated_note`` and ``noted_in_time`` (phase ``retrieval``): a patient question about a time the patient
has notes of, or about now or a year that a note of that time names by every key term, is answered although the gate
refused (such a question sits far from the notes in cosine: "last EF", "2023 UACR")."""

from __future__ import annotations

from clinqa.decision.verdict import Case, Verdict


def dated_note(ev: Case, v: Verdict) -> Verdict | None:
    """Answer a patient question about a time (``ev.timed``) the gate refused, when the patient has notes
    of it (hits under the time filters); ``kind`` gains ``+dated_note``."""
    if v.answer or not ev.timed or ev.filters.patient_id is None or not ev.hits:
        return None
    return v.overturned("dated_note", "dated_note",
                        f"the question names a time ({ev.intent.phrase}) and the patient has notes of it")


def noted_in_time(ev: Case, v: Verdict) -> Verdict | None:
    """Answer a patient question about now ("current", "latest", "last", "still on": ``ev.intent.recency``) or about
    a year (``ev.filters`` bounded by years: "2023 UACR") that the gate refused, when one of the patient's quotable
    notes (under the time filters) mentions every key term, under any name (the key-term test's ``complete_in``);
    ``kind`` gains ``+noted_in_time``. A patient's notes are few and telegraphic ("EF 40%"), so a short question sits
    far from them in cosine while its words and its time say which note has the value (the newest such note for
    now: :func:`clinqa.evidence.passages.in_force`). A measure too short to be a key term ("Hb", "Cr", "K") that a
    note states with a number (``ev.measured``: :func:`clinqa.evidence.passages.measured_words`) answers as well.
    A term no note mentions still refuses (step ``key_terms``: "is he on warfarin" for a patient never on it)."""
    check = ev.check
    about_time = ev.intent.recency or ev.filters.has_years
    if v.answer or not about_time or ev.filters.patient_id is None or not ev.hits or check is None:
        return None
    if ev.measured and not check.key_terms:  # "most recent Hb": a note states it ("Hb 12.1")
        return v.overturned("noted_in_time", "noted_in_time", f"the question asks about a time of the patient's "
                            f"notes ({ev.intent.phrase}) and a note of it states {', '.join(sorted(ev.measured))}")
    if not check.key_terms or check.complete_in is None:
        return None
    return v.overturned("noted_in_time", "noted_in_time", f"the question asks about a time of the patient's notes "
                        f"({ev.intent.phrase}) and a note of it names every key term")
