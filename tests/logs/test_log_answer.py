"""Query logging moved out of the CLI (:func:`clinqa.logs.log_answer`, :func:`open_existing_log`):
off when ``log.enabled`` is false, never raising when the log cannot be written, and a clear error
for a log that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinqa.answer.types import Answer
from clinqa.errors import ClinqaError
from clinqa.logs import QueryLog, log_answer, open_existing_log
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

ANSWER = Answer(question="Is it logged?", refused=True, answer="The documents do not cover this question.",
                filters={"patient_id": None}, reason="The documents do not cover this question.", mode="refusal")


def test_logging_off_returns_none_and_writes_nothing(tmp_path: Path) -> None:
    pipe = Pipeline(Settings(data_dir=tmp_path, log={"enabled": False}))
    assert log_answer(pipe, ANSWER) is None
    assert not (tmp_path / "querylog.sqlite").exists()


def test_a_log_that_cannot_be_written_is_reported_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()  # log.path is a folder: SQLite cannot open it
    pipe = Pipeline(Settings(data_dir=tmp_path, log={"path": folder}))
    errors: list[Exception] = []
    assert log_answer(pipe, ANSWER, on_error=errors.append) is None
    assert len(errors) == 1 and "unable to open database file" in str(errors[0])


def test_open_existing_log_needs_the_file(tmp_path: Path) -> None:
    pipe = Pipeline(Settings(data_dir=tmp_path))
    with pytest.raises(ClinqaError) as e:
        open_existing_log(pipe)
    assert str(e.value) == (f"no query log at {tmp_path / 'querylog.sqlite'}: questions are logged by "
                            "`clinqa ask` when log.enabled is true")
    QueryLog(tmp_path / "other.sqlite").close()
    with open_existing_log(pipe, tmp_path / "other.sqlite") as log:
        assert log.counts() == {"answered": 0, "refused": 0, "with_feedback": 0, "total": 0}
