"""One question limit (issue 51 item 3): `clinqa ask`, `clinqa search` and `clinqa chat` refuse a question over
``service.max_question_chars`` (default 2,000, as the API) with the API's message, before anything is searched
(the API side: tests/service/test_api.py::test_status_codes_for_bad_requests)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.settings import Settings

DOC = "# Gout\n\n## Flares\n\nColchicine 1.2 mg then 0.6 mg one hour later treats an acute gout flare.\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("limit")
    (d / "gout.md").write_text(DOC)
    r = CliRunner().invoke(app, ["ingest", str(d / "gout.md"), "--data-dir", str(d / "data"), "-q"])
    assert r.exit_code == 0, r.output
    return d / "data"


def _logged(store: Path) -> int:
    """Questions in the store's query log (0 when there is no log yet)."""
    if not (store / "querylog.sqlite").exists():
        return 0
    with sqlite3.connect(store / "querylog.sqlite") as conn:
        return conn.execute("SELECT count(*) FROM queries").fetchone()[0]


def test_the_default_limit_is_the_apis() -> None:
    assert Settings().service.max_question_chars == 2000


def test_ask_refuses_a_long_question_before_searching(store: Path, tmp_path: Path) -> None:
    before = _logged(store)
    r = CliRunner().invoke(app, ["ask", "gout " * 12_000, "--data-dir", str(store)])
    assert r.exit_code == 2, r.output
    assert "error: the question is 60,000 characters long; the limit is 2,000 (service.max_question_chars)" \
        in r.output
    assert "Colchicine" not in r.output and _logged(store) == before  # nothing asked, nothing logged
    # refused before the store is even opened: an empty data dir gives the same error, not "the store is empty"
    r = CliRunner().invoke(app, ["ask", "x" * 2001, "--data-dir", str(tmp_path / "empty")])
    assert r.exit_code == 2 and "the question is 2,001 characters long; the limit is 2,000" in r.output
    # the limit is the setting; a question at the limit is asked
    r = CliRunner().invoke(app, ["ask", "colchicine dose for a gout flare?", "--set", "service.max_question_chars=20",
                                 "--data-dir", str(store)])
    assert r.exit_code == 2 and "the question is 33 characters long; the limit is 20 (service.max_question_chars)" \
        in r.output
    r = CliRunner().invoke(app, ["ask", "colchicine dose for a gout flare?", "--set", "service.max_question_chars=33",
                                 "--data-dir", str(store)])
    assert r.exit_code == 0 and "1.2 mg" in r.output and _logged(store) == before + 1


def test_search_refuses_a_long_query(store: Path) -> None:
    r = CliRunner().invoke(app, ["search", "y" * 2500, "--data-dir", str(store)])
    assert r.exit_code == 2 and "error: the query is 2,500 characters long; the limit is 2,000 " \
        "(service.max_question_chars)" in r.output


def test_chat_refuses_a_long_line_and_goes_on(store: Path) -> None:
    before = _logged(store)
    lines = "gout " * 500 + "\ncolchicine dose for a gout flare?\n/quit\n"
    r = CliRunner().invoke(app, ["chat", "--data-dir", str(store)], input=lines)
    assert r.exit_code == 0, r.output
    assert "error: the question is 2,499 characters long; the limit is 2,000 (service.max_question_chars)" \
        in r.output  # "gout " * 500, stripped
    assert "1.2 mg" in r.output and _logged(store) == before + 1  # only the second line was asked
