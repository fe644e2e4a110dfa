"""The value in force: a question about what a patient takes now, or a value's latest reading, is answered from the
newest of that patient's notes that names the asked thing (under any name), not from the older notes it supersedes.
Cases written for the mechanism (a new user's "What is the current anticoagulant?" quoted a 2023 warfarin note
after a 2024 note had switched the patient to rivaroxaban)."""

from __future__ import annotations

import pytest

from clinqa.pipeline import Pipeline
from tiny_data import notes_pipeline

NOTES = [
    ("n1", "2021-03-02", "Warfarin clinic. AF on warfarin 5 mg daily, INR 2.6. Cr 1.1."),
    ("n2", "2023-05-10", "Renal review. Cr 1.4, eGFR 48. Warfarin continued, INR 2.2."),
    ("n3", "2024-08-30", "Warfarin stopped, switched to rivaroxaban 20 mg daily with the evening meal. Cr 1.6."),
    ("n4", "2025-02-14", "Knee pain after a fall, x-ray shows no fracture. Paracetamol as needed."),
    ("n5", "2025-06-20", "Stent review. Aspirin 81 mg daily and ticagrelor 90 mg twice daily after the stent."),
    ("n6", "2025-12-01", "DAPT complete: ticagrelor stopped, aspirin 81 mg daily continued alone."),
]


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    return notes_pipeline(tmp_path_factory.mktemp("value-in-force"), "A", NOTES)


def _cited_notes(pipe: Pipeline, question: str) -> tuple[list[str], str]:
    ans = pipe.ask(question, pipe.filters(patient_id="A"), generate=False)
    assert not ans.refused, ans.reason
    return sorted({c.doc_id for c in ans.citations}), ans.answer


def test_the_current_drug_of_a_class_comes_from_the_newest_note_naming_a_member(pipe: Pipeline) -> None:
    # n3 names no "anticoagulant", but rivaroxaban is one; n4, newer, names none
    cited, text = _cited_notes(pipe, "What is the current anticoagulant?")
    assert cited == ["note:A:n3"] and "rivaroxaban" in text


def test_the_last_value_is_the_newest_notes_alone(pipe: Pipeline) -> None:
    cited, text = _cited_notes(pipe, "last creatinine?")
    assert cited == ["note:A:n3"] and "Cr 1.6" in text and "Cr 1.4" not in text and "Cr 1.1" not in text


def test_a_question_without_recency_still_reads_the_record(pipe: Pipeline) -> None:
    # no "current", "last", "still": every note that names warfarin may answer, oldest first
    cited, _ = _cited_notes(pipe, "What INR values were recorded on warfarin?")
    assert "note:A:n1" in cited and "note:A:n2" in cited


def test_no_warning_that_the_passages_lack_a_class_word_they_name_by_a_member(pipe: Pipeline) -> None:
    # no note spells "anticoagulant" (nor "anticoagulation"), but the quoted note names rivaroxaban, one
    ans = pipe.ask("What is the current anticoagulant?", pipe.filters(patient_id="A"), generate=False)
    assert not any("anticoagulant" in w for w in ans.warnings), ans.warnings


def test_a_class_word_named_by_members_in_several_notes_is_answered_from_the_newest(pipe: Pipeline) -> None:
    # both n5 and n6 name antiplatelets (aspirin, ticagrelor); n6 is the regimen now
    cited, text = _cited_notes(pipe, "what antiplatelet is she on")
    assert cited == ["note:A:n6"] and "aspirin 81 mg daily continued alone" in text


def test_a_short_question_about_the_latest_value_is_answered_from_the_note_that_names_it(pipe: Pipeline) -> None:
    # "most recent INR?" sits far from the telegraphic notes in cosine (the gate refused it); two notes name INR
    cited, text = _cited_notes(pipe, "most recent INR?")
    assert cited == ["note:A:n2"] and "INR 2.2" in text and "INR 2.6" not in text


def test_no_warning_about_the_words_that_name_the_time(pipe: Pipeline) -> None:
    # "still on" is read as a question about now (the time intent); no note says "still", and none needs to
    ans = pipe.ask("still on warfarin?", pipe.filters(patient_id="A"), generate=False)
    assert ans.time_filter.endswith("(from 'still on')")
    assert not any("'still'" in w for w in ans.warnings), ans.warnings
