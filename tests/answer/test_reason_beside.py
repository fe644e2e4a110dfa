"""Why something was done, from a patient's notes: the two-word sentence that says what was done ("Spironolactone
held.") is a quotable unit, and a "why" question quotes the sentences beside it in the note, where notes give the
reason. Cases written for the mechanism (a fifth new user's "why was spiro held?" quoted "Furosemide held 48h." and
never the K 5.9 that the note gives)."""

from __future__ import annotations

import pytest

from clinqa.chunking.units import unit_records
from clinqa.pipeline import Pipeline
from clinqa.question.asks import read_asks
from tiny_data import notes_pipeline


def test_a_thing_and_what_was_done_to_it_is_a_unit_of_its_own() -> None:
    texts = [u.text for u in unit_records("Bloods: K 5.9 after D&V. Spironolactone held. Not recommended. "
                                          "Furosemide held 48h. See below.")]
    # "Not recommended." and "See below." say nothing alone (a function word; no act); "Spironolactone held." does
    assert texts == ["Bloods: K 5.9 after D&V.", "Spironolactone held.", "Furosemide held 48h."]


def test_a_notes_short_sentences_are_units_of_their_own() -> None:
    body = "Confused, falls. Na 122. SIADH likely. Citalopram stopped. See below."
    # a guideline's two-word fragments say nothing alone ("See below."); a note's are its findings
    assert [u.text for u in unit_records(body)] == ["Na 122.", "Citalopram stopped."]
    assert [u.text for u in unit_records(body, short=True)] == [
        "Confused, falls.", "Na 122.", "SIADH likely.", "Citalopram stopped.", "See below."]


def test_a_why_question_is_read_as_asking_a_reason() -> None:
    assert read_asks("why was spiro held?").asks_reason
    assert read_asks("Reason for stopping metformin?").asks_reason
    assert read_asks("what was the ramipril stopped for?").asks_reason
    assert not read_asks("when was spiro held?").asks_reason
    assert not read_asks("What is the dose for AF?").asks_reason


NOTES = [
    ("n1", "2021-02-03", "HF clinic. Spironolactone 25mg OD started. K 4.4."),
    ("n2", "2021-07-22", "Bloods: K 5.9, Cr 1.3 after D&V illness. Spironolactone held. Repeat U&E in 1/52."),
    ("n3", "2022-01-10", "Ramipril stopped. Dry cough for 3 months. Losartan 50mg OD started."),
    ("n4", "2023-05-02", "PHQ-9 8. Sertraline stopped. Sexual dysfunction. Mirtazapine 15mg ON started."),
]


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    return notes_pipeline(tmp_path_factory.mktemp("reason-beside"), "B", NOTES)


@pytest.mark.parametrize(("question", "note", "reason"), [
    ("why was spironolactone held?", "note:B:n2", "K 5.9"),  # the reason in the sentence before the act
    ("why was ramipril stopped?", "note:B:n3", "Dry cough"),  # ... and in the sentence after it
    ("why did she come off sertraline?", "note:B:n4", "Sexual dysfunction"),  # a note's two-word sentence
])
def test_a_why_question_quotes_the_reason_beside_the_act(pipe: Pipeline, question: str, note: str,
                                                          reason: str) -> None:
    ans = pipe.ask(question, pipe.filters(patient_id="B"), generate=False)
    assert not ans.refused, ans.reason
    assert note in {c.doc_id for c in ans.citations} and reason in ans.answer, ans.answer
