"""Issue 16, part 5: empty questions, the year-range refusal's list, and a search that finds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

NOTES = [
    {"patient_id": "X", "note_id": "n1", "date": "2022-05-01", "note_type": "progress",
     "text": "PLAN:\nWarfarin started for atrial fibrillation; INR target 2.0 to 3.0, check INR weekly."},
    {"patient_id": "X", "note_id": "n2", "date": "2024-02-02", "note_type": "nurse",
     "text": "NURSING:\nPatient ambulating well on the ward. Wound dressing changed, site clean."},
]


@pytest.fixture(scope="module")
def notes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("defects")
    (d / "notes").mkdir()
    (d / "notes" / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    data = d / "data"
    r = CliRunner().invoke(app, ["ingest", str(d / "notes"), "--data-dir", str(data), "-q"])
    assert r.exit_code == 0, r.output
    return data


@pytest.mark.parametrize("command", ["ask", "search"])
@pytest.mark.parametrize("text", ["", "   ", "\t\n", "\u200b\u00a0"])
def test_empty_question_exits_2_with_one_message(notes_dir: Path, command: str, text: str) -> None:
    r = CliRunner().invoke(app, [command, text, "--data-dir", str(notes_dir)])
    assert r.exit_code == 2
    assert r.output.strip() == "error: the question is empty"


def test_search_that_finds_nothing_says_so_and_hints_at_patient(notes_dir: Path) -> None:
    """The store holds only patient X's notes: without --patient nothing can match."""
    r = CliRunner().invoke(app, ["search", "warfarin INR target", "--data-dir", str(notes_dir)])
    assert r.exit_code == 0
    assert r.output.splitlines() == ["No passage matched.", "Patient notes are searched only with --patient ID."]
    r = CliRunner().invoke(app, ["search", "warfarin INR target", "--patient", "X", "--since", "2030",
                                 "--data-dir", str(notes_dir)])
    assert r.exit_code == 0 and r.output.splitlines() == ["No passage matched."]
    r = CliRunner().invoke(app, ["search", "warfarin INR target", "--patient", "X", "--data-dir", str(notes_dir)])
    assert r.exit_code == 0 and "note:X:n1" in r.output.splitlines()[0]


def test_year_range_refusal_lists_only_what_lies_outside(notes_dir: Path) -> None:
    """Issue 16: "outside that range the corpus has: ... nurse note 2024-02-02" listed a note inside the range."""
    pipe = Pipeline(Settings(data_dir=notes_dir))
    ans = pipe.ask("What INR target was set for warfarin?", pipe.filters(patient_id="X", since=2024))
    assert ans.refused
    assert ans.answer.startswith("Nothing close enough is dated from 2024 on")
    assert "widen or remove the year range" in ans.answer
    outside = " ".join(ans.related_topics)
    assert "2022-05-01" in outside and "2024-02-02" not in outside and "nurse" not in outside
    assert all("2024" not in t for t in ans.related_topics) and ans.related_topics


@pytest.mark.parametrize("command", ["ask", "search"])
def test_a_read_of_a_missing_store_says_so_and_creates_nothing(tmp_path: Path, command: str) -> None:
    """Found by a new user: `ask` on a mistyped --data-dir created the folder; `search` on it crashed with
    a traceback (no table to read rows from). Both now exit 2 with one line and leave no folder."""
    missing = tmp_path / "no-such-store"
    r = CliRunner().invoke(app, [command, "What is CURB-65?", "--data-dir", str(missing)])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (f"error: there is no store in {missing}: run `clinqa ingest PATH` first "
                                "(or check --data-dir)")
    assert not missing.exists()
    missing.mkdir()  # an empty folder: the store is empty
    r = CliRunner().invoke(app, [command, "What is CURB-65?", "--data-dir", str(missing)])
    assert r.exit_code == 2 and "is empty: run `clinqa ingest PATH` first" in r.output


@pytest.mark.parametrize("args", [["stats"], ["remove", "some-doc"]])
def test_stats_and_remove_on_a_missing_store_create_nothing(tmp_path: Path, args: list[str]) -> None:
    """Second new-user helper: `stats` and `remove` on a mistyped --data-dir created it (stats printed 0
    documents)."""
    missing = tmp_path / "no-such-store"
    r = CliRunner().invoke(app, [*args, "--data-dir", str(missing)])
    assert r.exit_code == 2 and "there is no store in" in r.output
    assert not missing.exists()


def test_a_date_question_without_a_patient_to_a_notes_store_points_to_patients(notes_dir: Path) -> None:
    """Second new-user helper: "What happened on 2022-04-18?" without --patient warned that "no document in
    the corpus carries a year" although every note is dated; the notes are searched only with a patient."""
    from clinqa.question.repair import PATIENT_HINT

    pipe = Pipeline(Settings(data_dir=notes_dir))
    ans = pipe.ask("What happened on 2024-02-02?", pipe.filters())
    assert PATIENT_HINT in ans.warnings and not any("carries a year" in w for w in ans.warnings)


def test_search_below_the_gate_that_ask_uses_says_no_passage_matched(tmp_path: Path) -> None:
    """Issue 42: `clinqa search "porter code"` listed 10 unrelated chunks. Below the scope's calibrated threshold
    (the one `ask` refuses below) it says so with the score; --all lists them anyway; JSON carries the test."""
    from clinqa.decision.threshold import gate_signal

    (tmp_path / "vte.md").write_text("# Venous thromboembolism\n\n## Treatment\n\nApixaban 10 mg twice daily for "
                                     "7 days, then 5 mg twice daily, treats deep vein thrombosis.\n")
    data = tmp_path / "data"
    assert CliRunner().invoke(app, ["ingest", str(tmp_path / "vte.md"), "--data-dir", str(data), "-q"]).exit_code == 0
    pipe = Pipeline(Settings(data_dir=data))
    gate = pipe.gate("reference")
    best = gate_signal(pipe.search("porter code"), gate.signal)
    assert best is not None and best < gate.threshold
    r = CliRunner().invoke(app, ["search", "porter code", "--data-dir", str(data)])
    assert r.exit_code == 0
    assert r.output.splitlines() == [f"No passage matched: the best similarity is {best:.3f}, below the threshold "
                                     f"{gate.threshold:.3f} that `clinqa ask` refuses below. --all lists the chunks "
                                     "anyway."]
    r = CliRunner().invoke(app, ["search", "porter code", "--all", "--data-dir", str(data)])
    assert "vte#" in r.output.splitlines()[1]
    r = CliRunner().invoke(app, ["search", "porter code", "--json", "--data-dir", str(data)])
    out = json.loads(r.output)
    assert out["hits"] == [] and out["gate"]["passed"] is False
    assert out["gate"]["score"] == pytest.approx(best) and out["gate"]["threshold"] == pytest.approx(gate.threshold)
    r = CliRunner().invoke(app, ["search", "apixaban dose for deep vein thrombosis", "--data-dir", str(data)])
    assert "vte#" in r.output.splitlines()[0]  # above the threshold: listed as before


def test_a_word_asking_a_kind_of_answer_is_no_missing_topic(tmp_path: Path) -> None:
    """Seventh new user: on a store of one guideline and a patient's notes, "tolvaptan max duration" (the guideline:
    "for no more than 30 days") warned that no reference passage mentions 'max' and that notes are searched only
    for one patient. "max" asks for a kind of answer (a maximum), as "dose" does: no topic a passage must name, so
    neither warning is given; a topic word the corpus lacks still warns."""
    from clinqa.question.repair import PATIENT_HINT

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "hyponatremia.md").write_text(
        "# Hyponatremia\n\n## Tolvaptan\n\nTolvaptan may be used for no more than 30 days in SIADH.\n")
    (tmp_path / "docs" / "notes.jsonl").write_text(json.dumps(NOTES[0]) + "\n")
    pipe = Pipeline(Settings(data_dir=tmp_path / "data"))
    assert pipe.ingest([tmp_path / "docs"], progress=False).failed == []
    ans = pipe.ask("tolvaptan max duration", pipe.filters())
    assert not ans.refused and "30 days" in ans.answer
    assert not any("'max'" in w for w in ans.warnings) and PATIENT_HINT not in ans.warnings, ans.warnings
    ans = pipe.ask("tolvaptan max duration in cirrhosis", pipe.filters())
    assert any("'cirrhosis'" in w for w in ans.warnings) and PATIENT_HINT in ans.warnings, ans.warnings


def test_a_word_of_a_phrase_read_whole_is_no_missing_word(tmp_path: Path) -> None:
    """Seventh new user: "pt on a blood thinner ..." warned that "the corpus never mentions 'thinner'", though the
    synonym table reads "blood thinner" whole and searches it as "anticoagulant" (the README says so). A word of the
    question outside such a phrase still warns."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ugib.md").write_text(
        "# Upper GI bleeding\n\n## Anticoagulants\n\nIn a patient on an anticoagulant, offer endoscopy within 24 "
        "hours of admission.\n")
    pipe = Pipeline(Settings(data_dir=tmp_path / "data"))
    assert pipe.ingest([tmp_path / "docs"], progress=False).failed == []
    ans = pipe.ask("patient on a blood thinner - when to do the endoscopy?", pipe.filters())
    assert not ans.refused and not any("thinner" in w for w in ans.warnings), ans.warnings
    ans = pipe.ask("patient on a blood thinner with gastroparesis - when to do the endoscopy?", pipe.filters())
    assert any("gastroparesis" in w for w in ans.warnings) and not any("thinner" in w for w in ans.warnings)
