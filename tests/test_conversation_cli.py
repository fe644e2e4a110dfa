"""Conversations from the command line (issue 40): `clinqa ask --conversation` and `clinqa chat`, on a real store."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app

DOC = """# Apixaban in atrial fibrillation

## Dosing by kidney function

| CrCl (mL/min) | Apixaban dose |
|---|---|
| > 25 | 5 mg twice daily |
| 15-25 | 2.5 mg twice daily |
| < 15 or dialysis | avoid |

## Pregnancy

Apixaban is not recommended in pregnancy; use low-molecular-weight heparin.
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("conv")
    (d / "apixaban.md").write_text(DOC)
    data = d / "data"
    r = CliRunner().invoke(app, ["ingest", str(d / "apixaban.md"), "--data-dir", str(data), "-q"])
    assert r.exit_code == 0, r.output
    return data


def _ask(store: Path, *args: str) -> dict:
    r = CliRunner().invoke(app, ["ask", *args, "--json", "--data-dir", str(store)])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_a_follow_up_is_answered_as_its_standalone_question(store: Path) -> None:
    first = _ask(store, "apixaban dose for AF with CrCl 50?", "--conversation", "ward7")
    assert first["standalone_question"] == "apixaban dose for AF with CrCl 50?" and first["conversation_turns"] == []
    assert "5 mg twice daily" in first["answer"]
    follow = _ask(store, "and if CrCl is 20?", "--conversation", "ward7")
    assert follow["question"] == "and if CrCl is 20?"
    assert follow["standalone_question"] == "apixaban dose for AF with CrCl 20?"
    assert follow["conversation_turns"] == [1] and follow["conversation_id"] == first["conversation_id"]
    assert "2.5 mg twice daily" in follow["answer"] and "5 mg twice daily;" not in follow["answer"]
    # the query log keeps the typed question and the standalone one, for replay
    with sqlite3.connect(store / "querylog.sqlite") as conn:
        row = conn.execute("SELECT question, standalone_question, conversation_id FROM queries WHERE query_id = ?",
                           (follow["query_id"],)).fetchone()
    assert row == ("and if CrCl is 20?", "apixaban dose for AF with CrCl 20?", first["conversation_id"])
    # the human output says what it answered
    r = CliRunner().invoke(app, ["ask", "what about in pregnancy?", "-c", "ward7", "--data-dir", str(store)])
    assert "Answering: apixaban dose for AF with CrCl 20 in pregnancy?" in r.output
    # a question asked alone is unchanged
    alone = _ask(store, "and if CrCl is 20?")
    assert alone["standalone_question"] == "" and alone["conversation_id"] == ""


def test_a_conversation_keeps_its_patient_scope(store: Path) -> None:
    _ask(store, "apixaban dose for AF?", "--conversation", "scoped")
    r = CliRunner().invoke(app, ["ask", "and CrCl 20?", "-c", "scoped", "--patient", "P1", "--data-dir", str(store)])
    assert r.exit_code == 2 and "scoped to the reference documents" in r.output


def test_a_follow_up_without_patient_continues_in_the_conversations_patient_scope(store: Path) -> None:
    """A seventh new user: "clinqa ask 'why was it reduced?' -c pc" after a turn asked with --patient P001 exited 2
    ("cannot change its patient scope"); the README says a conversation keeps its patient scope. Only another
    patient is refused."""
    first = _ask(store, "apixaban dose?", "--conversation", "pscope", "--patient", "P1")
    follow = _ask(store, "and CrCl 20?", "--conversation", "pscope")
    assert follow["filters"]["patient_id"] == "P1" and follow["conversation_id"] == first["conversation_id"]
    r = CliRunner().invoke(app, ["ask", "and CrCl 20?", "-c", "pscope", "--patient", "P2", "--data-dir", str(store)])
    assert r.exit_code == 2 and "scoped to patient P1" in r.output


def test_chat_loop(store: Path) -> None:
    lines = "apixaban dose for AF with CrCl 50?\nand if CrCl is 20?\n/sources 1\n/sources 9\n/new\n/oops\n/quit\n"
    r = CliRunner().invoke(app, ["chat", "--data-dir", str(store)], input=lines)
    assert r.exit_code == 0, r.output
    assert "Answering: apixaban dose for AF with CrCl 20?" in r.output
    assert "| 15-25 | 2.5 mg twice daily |" in r.output  # /sources 1: the passage whole
    assert "usage: /sources N, with N from 1 to" in r.output and "(a new conversation)" in r.output
    assert "unknown command /oops" in r.output
