"""A dose asked of a patient's notes whose sentences sharing the question's words state no amount: the note's
sentences that state one answer ("what dose (anticoagulant)?": "Continue anticoagulation." names the class, the
apixaban line gives the dose). Case written for the mechanism (a conversation's follow-up refused once a note's
short sentences became units)."""

from __future__ import annotations

from pathlib import Path

from tiny_data import notes_pipeline

NOTES = [
    ("n1", "2023-02-01", "New AF. Apixaban 5 mg twice daily started for stroke prevention."),
    ("n2", "2024-05-10", "AF rate controlled, no bleeding. Apixaban 5 mg twice daily continued. Bisoprolol 2.5 mg "
                         "daily. Continue anticoagulation."),
]


def test_a_dose_of_the_class_the_note_names_is_the_dose_its_note_states(tmp_path: Path) -> None:
    pipe = notes_pipeline(tmp_path, "D", NOTES)
    ans = pipe.ask("what dose (anticoagulant)?", pipe.filters(patient_id="D"), generate=False)
    assert not ans.refused, ans.reason
    assert "Apixaban 5 mg twice daily" in ans.answer, ans.answer
