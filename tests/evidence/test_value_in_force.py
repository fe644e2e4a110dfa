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


# --- the latest stated value: a measure named with a number in the notes ("Hb 12.1") -------------------------

LABS = [
    ("l1", "2022-01-10", "Anaemia clinic. Hb 9.4, ferritin 8. Iron started. INR 2.4 on warfarin."),
    ("l2", "2023-06-02", "Hb 11.8 after iron. K 4.9. INR 5.2 on antibiotics, warfarin held."),
    ("l3", "2024-03-15", "Review. Labile INRs, discussed a DOAC. Hb checked, result to follow. "
                         "K 5.6, spironolactone held."),
]


@pytest.fixture(scope="module")
def labs(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    return notes_pipeline(tmp_path_factory.mktemp("latest-stated"), "L", LABS)


@pytest.mark.parametrize(("question", "note", "value", "older"), [
    # "Hb" is too short for a key term: the gate's cosine refuses a bare "most recent Hb", a note states it
    ("most recent Hb", "note:L:l2", "Hb 11.8", "Hb 9.4"),
    # the newest note naming INR gives no value ("Labile INRs"): the value is the newest one stated
    ("last INR", "note:L:l2", "INR 5.2", "INR 2.4"),
    ("latest K?", "note:L:l3", "K 5.6", "K 4.9"),
])
def test_the_latest_value_is_the_newest_note_stating_it(labs: Pipeline, question: str, note: str, value: str,
                                                       older: str) -> None:
    ans = labs.ask(question, labs.filters(patient_id="L"), generate=False)
    assert not ans.refused, ans.reason
    assert sorted({c.doc_id for c in ans.citations}) == [note] and value in ans.answer and older not in ans.answer


def test_a_measure_no_note_states_is_still_refused(labs: Pipeline) -> None:
    ans = labs.ask("most recent A1c", labs.filters(patient_id="L"), generate=False)
    assert ans.refused


def test_measured_words_by_hand() -> None:
    from clinqa.chunking.base import Chunk
    from clinqa.evidence.passages import latest_stated, measured_words
    from clinqa.evidence.reading import PassageReadings
    from clinqa.question.asks import read_asks
    from tiny_data import chunk_hit

    hits = [chunk_hit(f"note:L:{n}", text, 1, []) for n, _, text in reversed(LABS)]
    for h, (_, day, _) in zip(hits, reversed(LABS), strict=True):
        object.__setattr__(h, "chunk", Chunk(**{**h.chunk.__dict__, "note_date": day}))
    read = PassageReadings()
    # "dose" asks a kind of answer and "xarelto" is a drug (its dose in force is the note naming it): no measures
    assert read_asks("most recent Hb and K?").measures == {"hb", "k"}
    assert read_asks("xarelto dose now").measures == frozenset()
    assert measured_words(hits, read_asks("most recent Hb and K?").measures, read) == {"hb", "k"}
    assert [h.chunk.doc_id for h in latest_stated(hits, frozenset({"hb"}), read)] == ["note:L:l2"]
