"""QueryLog: round trip of every field, feedback validation, time windows, concurrent writers."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from clinqa.answer.types import Answer, Citation
from clinqa.logs import FAILURE_CATEGORIES, SCHEMA_VERSION, QueryLog


def full_answer() -> Answer:
    vec = (np.arange(384, dtype=np.float32) - 192) / 97.0
    return Answer(
        question="Should beta-blockers be started on the day of surgery?",
        refused=False,
        answer="Beta-blockers should not be started on the day of surgery. [1] See also [2].",
        filters={"patient_id": "P001", "year_min": 2014, "year_max": None, "sources": ["ACC/AHA"],
                 "exclude_levels": ["document"], "doc_ids": []},
        citations=[
            Citation(n=1, chunk_id="acc#periop/bb#0", doc_id="acc", title="ACC/AHA", section="BB", year=2014,
                     source="ACC/AHA", url="https://doi.org/x", score=0.0327),
            Citation(n=2, chunk_id="esc#bb#3", doc_id="esc", title="ESC", section="BB", year=2022,
                     source="ESC", url="", score=0.0311),
        ],
        reason="",
        mode="generated",
        gate={"answer": True, "signal": 0.71, "threshold": 0.3764, "kind": "dense_cosine",
              "calibration": "shipped calibration", "reason": ""},
        timings_ms={"embed_query": 12.0, "dense": 9.1, "bm25": 3.25, "fusion": 0.1, "generate": 900.0,
                    "total": 1105.5},
        retrieved=[
            {"rank": 1, "chunk_id": "esc#bb#3", "rrf": 0.0327, "ranks": {"dense": 1, "bm25": 2},
             "scores": {"dense": 0.71, "bm25": 7.5, "rerank": 3.2}},
            {"rank": 2, "chunk_id": "acc#periop/bb#0", "rrf": 0.0311, "ranks": {"dense": 3, "bm25": 1},
             "scores": {"dense": 0.65, "bm25": 9.0}},
            {"rank": 3, "chunk_id": "other#x#1", "rrf": 0.0159, "ranks": {"bm25": 4}, "scores": {"bm25": 2.0}},
        ],
        warnings=["the quoted passages do not mention 'naive'"],
        time_filter="years 2014-2026 (from 'since 2014')",
        llm={"backend": "openai", "model": "gpt-4o-mini", "prompt_tokens": 1210, "completion_tokens": 64,
             "token_source": "server", "cost_usd": 0.00022, "latency_ms": 900.0},
        query_vector=vec,
    )


def test_record_get_round_trip_keeps_every_field(qlog: QueryLog) -> None:
    ans = full_answer()
    before = datetime.now(UTC)
    qid = qlog.record(ans, config_hash="abc123def456", model_id="all-MiniLM-L6-v2@abcd", corpus_version=7,
                      source="api", api_key="alice", cache_hit=True)
    assert len(qid) == 32 and int(qid, 16) >= 0
    row = qlog.get(qid)
    assert row is not None
    t = datetime.fromisoformat(row["time"])
    assert t.tzinfo is not None and t.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= t <= datetime.now(UTC) + timedelta(seconds=1)
    expected = {
        "query_id": qid, "source": "api", "api_key_name": "alice", "config_hash": "abc123def456",
        "model_id": "all-MiniLM-L6-v2@abcd", "corpus_version": 7,
        "question": "Should beta-blockers be started on the day of surgery?",
        "filters": ans.filters.to_dict(), "time_filter": "years 2014-2026 (from 'since 2014')", "embedding_dim": 384,
        "refused": False, "mode": "generated", "refusal_reason": "", "gate": ans.gate.to_dict(),
        "retrieved": ans.retrieved, "cited": ["acc#periop/bb#0", "esc#bb#3"], "answer": ans.answer,
        "warnings": ["the quoted passages do not mention 'naive'"], "timings_ms": ans.timings_ms,
        "latency_ms": 1105.5, "llm": ans.llm, "prompt_tokens": 1210, "completion_tokens": 64,
        "cost_usd": 0.00022, "cache_hit": True, "feedback": [], "conversation_id": None, "standalone_question": None,
    }
    for key, value in expected.items():
        assert row[key] == value, key
    assert set(row) == set(expected) | {"time", "query_vector"}
    assert row["query_vector"].dtype == np.float32 and row["query_vector"].shape == (384,)
    np.testing.assert_array_equal(row["query_vector"], ans.query_vector)
    with sqlite3.connect(qlog.path) as conn:  # the stored bytes are the float32 little-endian vector
        blob, dim = conn.execute("SELECT embedding, embedding_dim FROM queries WHERE query_id = ?", (qid,)).fetchone()
    assert blob == ans.query_vector.astype("<f4").tobytes() and len(blob) == 384 * 4 and dim == 384
    assert qlog.get("0" * 32) is None


def test_refusal_without_vector_or_model(qlog: QueryLog, answer_factory) -> None:
    ans = answer_factory("How do I change a car tyre?", refused=True, latency_ms=42.0)
    ans.query_vector = None
    qid = qlog.record(ans, config_hash="c", model_id="m", corpus_version=0)
    row = qlog.get(qid)
    assert row["refused"] is True and row["mode"] == "refusal" and row["cited"] == []
    assert row["refusal_reason"] == "the best passage scores below the answer threshold"
    assert row["query_vector"] is None and row["embedding_dim"] is None
    assert row["source"] == "cli" and row["api_key_name"] is None and row["cache_hit"] is False
    # no model was called: the cost is known to be 0, there are no tokens
    assert row["cost_usd"] == 0.0 and row["prompt_tokens"] is None and row["llm"] == {}
    # a model whose price is unknown: cost unknown (NULL)
    priced = answer_factory(llm={"backend": "openai", "model": "x", "prompt_tokens": 5, "completion_tokens": 2,
                                 "cost_usd": None})
    assert qlog.get(qlog.record(priced, config_hash="c", model_id="m", corpus_version=0))["cost_usd"] is None
    assert qlog.counts() == {"answered": 1, "refused": 1, "with_feedback": 0, "total": 2}


def test_schema_is_created_with_version_and_wal(tmp_path: Path) -> None:
    log = QueryLog(tmp_path / "sub" / "q.sqlite")
    assert log.schema_version() == SCHEMA_VERSION == 2
    log.close()
    with sqlite3.connect(tmp_path / "sub" / "q.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"queries", "retrieved", "feedback"} <= tables
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(RuntimeError, match="newer"):
        QueryLog(tmp_path / "sub" / "q.sqlite")
    with pytest.raises(ValueError, match="source"):
        QueryLog(tmp_path / "other.sqlite").record(full_answer(), config_hash="c", model_id="m", corpus_version=0,
                                                    source="email")


def test_a_version_1_log_gains_the_conversation_columns(tmp_path: Path, answer_factory) -> None:
    """Issue 40: a log written before conversations (version 1) is opened, gains conversation_id and
    standalone_question, keeps its rows, and records a turn's standalone question."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE queries (query_id TEXT PRIMARY KEY, ts TEXT NOT NULL, source TEXT NOT NULL, "
                     "api_key_name TEXT, config_hash TEXT NOT NULL, model_id TEXT NOT NULL, corpus_version INTEGER "
                     "NOT NULL, question TEXT NOT NULL, filters TEXT NOT NULL, time_filter TEXT NOT NULL, embedding "
                     "BLOB, embedding_dim INTEGER, refused INTEGER NOT NULL, mode TEXT NOT NULL, refusal_reason TEXT "
                     "NOT NULL, gate TEXT NOT NULL, cited TEXT NOT NULL, answer TEXT NOT NULL, warnings TEXT NOT "
                     "NULL, timings TEXT NOT NULL, latency_ms REAL, llm TEXT NOT NULL, prompt_tokens INTEGER, "
                     "completion_tokens INTEGER, cost_usd REAL, cache_hit INTEGER NOT NULL)")
        conn.execute("INSERT INTO queries VALUES ('old', '2026-01-01T00:00:00.000000+00:00', 'cli', NULL, 'c', 'm', 0, "
                     "'q?', '{}', '', NULL, NULL, 0, 'extractive', '', '{}', '[]', 'a', '[]', '{}', NULL, '{}', NULL, "
                     "NULL, 0.0, 0)")
        conn.execute("PRAGMA user_version = 1")
    log = QueryLog(path)
    assert log.schema_version() == 2 and log.get("old")["question"] == "q?"
    turn = answer_factory(question="and if CrCl is 20?")
    turn.standalone_question, turn.conversation_id = "apixaban dose for AF with CrCl 20?", "c1"
    row = log.get(log.record(turn, config_hash="c", model_id="m", corpus_version=0))
    assert (row["question"], row["standalone_question"], row["conversation_id"]) == (
        "and if CrCl is 20?", "apixaban dose for AF with CrCl 20?", "c1")
    assert log.get("old")["standalone_question"] is None
    log.close()


def test_feedback_validation_and_history(qlog: QueryLog, answer_factory, rec) -> None:
    qid = rec(qlog, answer_factory())
    for bad in (0.5, 0.0, 1.1, 0.59, True, "0.6"):
        with pytest.raises(ValueError, match="score"):
            qlog.add_feedback(qid, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="category"):
        qlog.add_feedback(qid, 0.2, category="typo")
    with pytest.raises(KeyError):
        qlog.add_feedback("f" * 32, 1.0)
    assert qlog.get(qid)["feedback"] == []
    qlog.add_feedback(qid, 0.2, "missing the dose", category="content_missing")
    qlog.add_feedback(qid, 1, "fine after all")  # the int 1 is the score 1.0
    qlog.add_feedback(qid, 0.6000000000001, category="other")  # float noise is tolerated, stored exactly
    fb = qlog.get(qid)["feedback"]
    assert [(f["score"], f["comment"], f["category"]) for f in fb] == [
        (0.2, "missing the dose", "content_missing"), (1.0, "fine after all", None), (0.6, "", "other")]
    assert all(datetime.fromisoformat(f["time"]).utcoffset() == timedelta(0) for f in fb)
    assert FAILURE_CATEGORIES == ("content_missing", "retrieval_miss", "temporal", "wrong_answer",
                                  "citation_wrong", "other")
    assert qlog.counts() == {"answered": 1, "refused": 0, "with_feedback": 1, "total": 1}


def test_rows_filters_by_time_and_source_oldest_first(qlog: QueryLog, answer_factory, rec, settime) -> None:
    a = rec(qlog, answer_factory("a"), source="cli")
    b = rec(qlog, answer_factory("b"), source="api")
    c = rec(qlog, answer_factory("c"), source="replay")
    settime(qlog, a, "2025-03-01T10:00:00.000000+00:00")
    settime(qlog, b, "2025-03-02T23:59:59.999999+00:00")
    settime(qlog, c, "2025-03-03T00:00:00.000000+00:00")
    assert [r["question"] for r in qlog.rows()] == ["a", "b", "c"]
    assert [r["question"] for r in qlog.rows(since=datetime(2025, 3, 2))] == ["b", "c"]  # naive = UTC
    assert [r["question"] for r in qlog.rows(until=datetime(2025, 3, 3, tzinfo=UTC))] == ["a", "b"]
    # an aware datetime in another zone is converted: 2025-03-02 01:00+02:00 is 2025-03-01 23:00 UTC
    from datetime import timezone

    east = timezone(timedelta(hours=2))
    assert [r["question"] for r in qlog.rows(since=datetime(2025, 3, 2, 1, tzinfo=east))] == ["b", "c"]
    assert [r["question"] for r in qlog.rows(source="api")] == ["b"]
    assert qlog.rows(since=datetime(2026, 1, 1)) == []


def test_for_pipeline(tmp_path: Path) -> None:
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings

    log = QueryLog.for_pipeline(Pipeline(Settings(data_dir=tmp_path / "d")))
    assert log is not None and log.path == tmp_path / "d" / "querylog.sqlite" and log.path.exists()
    log.close()
    assert QueryLog.for_pipeline(Pipeline(Settings(data_dir=tmp_path, log={"enabled": False}))) is None
    log = QueryLog.for_pipeline(Pipeline(Settings(data_dir=tmp_path, log={"path": tmp_path / "x" / "l.sqlite"})))
    assert log is not None and log.path == tmp_path / "x" / "l.sqlite"
    log.close()


def _write_many(path: str, tag: str, n: int) -> None:
    """Process / thread worker: ``n`` records on its own QueryLog (no model)."""
    from clinqa.answer.types import Answer

    log = QueryLog(Path(path))
    for i in range(n):
        ans = Answer(question=f"{tag}-{i}", refused=False, answer="x", filters={},
                     retrieved=[{"rank": 1, "chunk_id": f"{tag}#{i}", "rrf": 0.1, "ranks": {}, "scores": {}}],
                     timings_ms={"total": 1.0}, query_vector=np.full(4, i, dtype=np.float32))
        qid = log.record(ans, config_hash="c", model_id="m", corpus_version=0, source="api")
        log.add_feedback(qid, 0.6)
    log.close()


def test_concurrent_threads_and_processes_lose_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite"
    shared = QueryLog(path)

    def thread_worker(t: int) -> None:
        for i in range(25):
            shared.record(Answer(question=f"t{t}-{i}", refused=i % 2 == 0, answer="x", filters={},
                                 query_vector=np.zeros(4, dtype=np.float32)),
                          config_hash="c", model_id="m", corpus_version=0, source="web")

    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_write_many, args=(str(path), f"p{k}", 40)) for k in range(2)]
    for p in procs:
        p.start()
    threads = [threading.Thread(target=thread_worker, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    rows = shared.rows()
    questions = [r["question"] for r in rows]
    assert len(questions) == len(set(questions)) == 6 * 25 + 2 * 40
    assert {f"p{k}-{i}" for k in range(2) for i in range(40)} <= set(questions)
    assert {f"t{t}-{i}" for t in range(6) for i in range(25)} <= set(questions)
    assert shared.counts() == {"answered": 6 * 12 + 80, "refused": 6 * 13, "with_feedback": 80, "total": 230}
    by_q = {r["question"]: r for r in rows}
    assert by_q["p1-39"]["retrieved"][0]["chunk_id"] == "p1#39" and by_q["p1-39"]["query_vector"][0] == 39
    shared.close()


def test_query_columns_are_read_from_the_schema() -> None:
    """Issue 48: the insert's column list is the ``queries`` table of the schema, as SQLite reads it (it was a
    second list written beside the schema)."""
    from clinqa.logs.querylog import _QUERY_COLUMNS

    assert _QUERY_COLUMNS == (
        "query_id", "ts", "source", "api_key_name", "config_hash", "model_id", "corpus_version", "question",
        "filters", "time_filter", "embedding", "embedding_dim", "refused", "mode", "refusal_reason", "gate", "cited",
        "answer", "warnings", "timings", "latency_ms", "llm", "prompt_tokens", "completion_tokens", "cost_usd",
        "cache_hit", "conversation_id", "standalone_question")
