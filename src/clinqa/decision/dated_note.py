"""Step ``dated_note`` (phase ``retrieval``): a patient question about a time the patient has notes of is
answered although the gate refused (such a question sits far from the notes in cosine)."""

from __future__ import annotations

from dataclasses import replace

from clinqa.decision.verdict import Case, Verdict


def dated_note(ev: Case, v: Verdict) -> Verdict | None:
    """Answer a patient question about a time (``ev.timed``) the gate refused, when the patient has notes
    of it (hits under the time filters); ``kind`` gains ``+dated_note``."""
    if v.answer or not ev.timed or ev.filters.patient_id is None or not ev.hits:
        return None
    assert v.gate is not None
    g = replace(v.gate, answer=True, kind=v.gate.kind + "+dated_note",
                reason=f"the question names a time ({ev.intent.phrase}) and the patient has notes of it")
    return replace(v, answer=True, reason="", gate=g, step="dated_note")
