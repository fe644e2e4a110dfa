"""CLI: `clinqa ask` logs its answers; `feedback`, `replay`, `report pilot` and `report gaps`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.logs import QueryLog
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

QUESTION = "How much intravenous crystalloid should be given in sepsis?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, tiny_corpus: Path) -> Path:
    """A store of the 3 tiny documents (ingested once per module)."""
    d = tmp_path_factory.mktemp("cli") / "data"
    assert Pipeline(Settings(data_dir=d)).ingest([tiny_corpus], progress=False).documents == 3
    return d


@pytest.fixture(scope="module")
def asked(data_dir: Path) -> dict[str, str]:
    """Two questions asked through `clinqa ask` (JSON and text mode); their query ids."""
    runner = CliRunner()
    r = runner.invoke(app, ["ask", QUESTION, "--json", "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output
    ans = json.loads(r.stdout)  # nothing but the JSON object on stdout
    assert ans["refused"] is False and len(ans["query_id"]) == 32
    r2 = runner.invoke(app, ["ask", "How do I change a car tyre?", "--data-dir", str(data_dir)])
    assert r2.exit_code == 0, r2.output
    last = r2.stdout.strip().splitlines()[-1]
    assert last.startswith("query id: ") and last.endswith(", 0.2 very poor)")
    tyre = last.split()[2]
    # the scores are named (a new user: "0.6 to rate" said nothing of what 0.6 means)
    assert last == (f"query id: {tyre} (rate it: clinqa feedback {tyre} SCORE, 1.0 excellent, 0.6 acceptable, "
                    "0.2 very poor)")
    return {"sepsis": ans["query_id"], "tyre": tyre}


def test_ask_logs_every_field_it_answered_with(data_dir: Path, asked: dict[str, str]) -> None:
    with QueryLog(data_dir / "querylog.sqlite") as log:
        row = log.get(asked["sepsis"])
        tyre = log.get(asked["tyre"])
        pipe = Pipeline(Settings(data_dir=data_dir))
        assert row["source"] == "cli" and row["question"] == QUESTION and row["refused"] is False
        assert row["config_hash"] == pipe.config_hash() and row["model_id"] == pipe.store_meta()["model_id"]
        assert row["corpus_version"] == pipe.corpus_version() and row["query_vector"].shape == (384,)
        assert row["cited"] and row["cited"][0] in [r["chunk_id"] for r in row["retrieved"]]
        assert row["latency_ms"] == row["timings_ms"]["total"] > 0
    assert tyre["refused"] is True and tyre["mode"] == "refusal"
    assert tyre["refusal_reason"] == "The documents do not mention tyre."  # the key-term sentence (issue 49)


def test_feedback_command(data_dir: Path, asked: dict[str, str]) -> None:
    runner = CliRunner()
    dd = ["--data-dir", str(data_dir)]
    r = runner.invoke(app, ["feedback", asked["tyre"], "0.2", "--comment", "not a medical question",
                            "--category", "other", *dd])
    assert r.exit_code == 0, r.output
    assert f"recorded feedback 0.2 for {asked['tyre']}" in r.stdout
    bad = runner.invoke(app, ["feedback", asked["tyre"], "0.5", *dd])
    assert bad.exit_code == 2 and "score must be one of 1.0 (Excellent), 0.6 (Acceptable), 0.2" in bad.stderr
    bad = runner.invoke(app, ["feedback", asked["tyre"], "0.6", "--category", "typo", *dd])
    assert bad.exit_code == 2 and "category must be one of content_missing" in bad.stderr
    bad = runner.invoke(app, ["feedback", "f" * 32, "0.6", *dd])
    assert bad.exit_code == 2 and "no logged question with id" in bad.stderr
    nolog = runner.invoke(app, ["feedback", asked["tyre"], "0.6", "--data-dir", str(data_dir.parent / "nowhere")])
    assert nolog.exit_code == 2 and "no query log at" in nolog.stderr
    with QueryLog(data_dir / "querylog.sqlite") as log:
        fb = log.get(asked["tyre"])["feedback"]
    assert [(f["score"], f["comment"], f["category"]) for f in fb] == [(0.2, "not a medical question", "other")]


def test_logging_off_or_broken_never_breaks_answering(data_dir: Path, asked: dict[str, str], tmp_path: Path) -> None:
    off = tmp_path / "off.yaml"
    off.write_text("log: {enabled: false}\n")
    runner = CliRunner()
    with QueryLog(data_dir / "querylog.sqlite") as log:
        before = log.counts()["total"]
    r = runner.invoke(app, ["ask", QUESTION, "--json", "--data-dir", str(data_dir), "--config", str(off)])
    assert r.exit_code == 0 and json.loads(r.stdout)["query_id"] is None
    (tmp_path / "adir").mkdir()
    broken = tmp_path / "broken.yaml"  # the log path is a folder: sqlite cannot open it
    broken.write_text(f"log: {{path: {tmp_path / 'adir'}}}\n")
    r = runner.invoke(app, ["ask", QUESTION, "--data-dir", str(data_dir), "--config", str(broken)])
    assert r.exit_code == 0 and "Sources:" in r.stdout
    assert "query id:" not in r.stdout and "warning: the question was not logged" in r.stderr
    with QueryLog(data_dir / "querylog.sqlite") as log:
        assert log.counts()["total"] == before


def test_replay_command(data_dir: Path, asked: dict[str, str], tmp_path: Path) -> None:
    high = tmp_path / "high.yaml"
    high.write_text("answer: {refusal_threshold: 0.99}\n")
    out = tmp_path / "replay"
    r = CliRunner().invoke(app, ["replay", "--config", str(high), "--json", "--output", str(out),
                                 "--since", "2000-01-01", "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    # the sepsis answer flips; the tyre question stays refused (maybe asked more than once by other tests)
    assert [x["query_id"] for x in rep["answered_to_refused"]] == [asked["sepsis"]]
    assert rep["refused_to_answered"] == [] and rep["embeddings_reused"] == rep["replayed"] >= 2
    assert rep["mean_overlap_at_10"] == 1.0 and rep["recorded"] is False
    assert json.loads((out / "replay.json").read_text()) == rep
    assert "answered -> refused: 1" in (out / "replay.txt").read_text()
    bad = CliRunner().invoke(app, ["replay", "--since", "01/02/2025", "--data-dir", str(data_dir)])
    assert bad.exit_code == 2 and "expected a day as YYYY-MM-DD" in bad.stderr
    future = CliRunner().invoke(app, ["replay", "--since", "2999-01-01", "--data-dir", str(data_dir)])
    assert future.exit_code == 0 and "replayed 0 logged questions" in future.stdout
    early = CliRunner().invoke(app, ["replay", "--until", "2000-01-01", "--data-dir", str(data_dir)])
    assert early.exit_code == 0 and "replayed 0 logged questions" in early.stdout
    same_day = CliRunner().invoke(app, ["replay", "--since", "2000-01-01", "--until", "2000-01-01", "--limit", "1",
                                        "--data-dir", str(data_dir)])
    assert same_day.exit_code == 0, same_day.output
    crossed = CliRunner().invoke(app, ["replay", "--since", "2026-12-01", "--until", "2026-11-01",
                                       "--data-dir", str(data_dir)])
    assert crossed.exit_code == 2 and crossed.stdout == ""
    assert "--since 2026-12-01 is after --until 2026-11-01" in crossed.stderr


@pytest.mark.parametrize("report", ["pilot", "gaps"])
def test_report_since_after_until_is_an_error(data_dir: Path, asked: dict[str, str], report: str) -> None:
    r = CliRunner().invoke(app, ["report", report, "--since", "2026-12-01", "--until", "2026-11-01",
                                 "--data-dir", str(data_dir)])
    assert r.exit_code == 2 and r.stdout == ""
    assert "error: --since 2026-12-01 is after --until 2026-11-01" in r.stderr
    # one day (since == until) is a valid window
    r = CliRunner().invoke(app, ["report", report, "--json", "--since", "2026-11-01", "--until", "2026-11-01",
                                 "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output


def test_report_commands(data_dir: Path, asked: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "pilot"
    r = runner.invoke(app, ["report", "pilot", "--output", str(out), "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output
    assert "conversations (questions):" in r.stdout and "refusal rate:" in r.stdout
    assert (out / "pilot.png").read_bytes()[:4] == b"\x89PNG"
    fig = json.loads((out / "pilot.json").read_text())
    assert fig["conversations"] >= 2 and fig["refusal_rate"] > 0
    r = runner.invoke(app, ["report", "pilot", "--json", "--until", "2000-01-01", "--data-dir", str(data_dir)])
    assert r.exit_code == 0 and json.loads(r.stdout)["conversations"] == 0
    out = tmp_path / "gaps"
    r = runner.invoke(app, ["report", "gaps", "--json", "--min-size", "1", "--output", str(out),
                            "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output
    gaps = json.loads(r.stdout)
    assert gaps["questions"] >= 1 and gaps["topics"][0]["examples"][0] == "How do I change a car tyre?"
    assert json.loads((out / "gaps.json").read_text()) == gaps and (out / "gaps.txt").exists()
    r = runner.invoke(app, ["report", "gaps", "--data-dir", str(data_dir)])
    assert r.exit_code == 0 and "failing questions:" in r.stdout


def test_no_context_answers_are_logged(data_dir: Path, tmp_path: Path, chat_server,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    chat_server.push("Bronchitis usually resolves within three weeks.")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cfg = tmp_path / "noscreen.yaml"
    cfg.write_text("generation: {screen_identifiers: false}\n")
    r = CliRunner().invoke(app, ["ask", "Is bronchitis self-limiting?", "--no-context", "--llm", "openai",
                                 "--llm-url", chat_server.url, "--llm-model", "gpt-4o-mini", "--json",
                                 "--config", str(cfg), "--data-dir", str(data_dir)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    with QueryLog(data_dir / "querylog.sqlite") as log:
        row = log.get(out["query_id"])
    assert row["mode"] == "no-context" and row["refused"] is False and row["query_vector"] is None
    assert row["answer"] == "Bronchitis usually resolves within three weeks." and row["retrieved"] == []
    assert row["prompt_tokens"] == out["llm"]["prompt_tokens"] > 0 and row["completion_tokens"] == 6
    assert row["cost_usd"] == pytest.approx(out["llm"]["cost_usd"]) and row["cost_usd"] > 0
    assert row["llm"]["model"] == "gpt-4o-mini"
