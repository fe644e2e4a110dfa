"""Replay on a tiny real store (3 Markdown documents, the shipped encoder)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from clinqa.logs import QueryLog, model_id_of
from clinqa.logs.replay import filters_from_dict, format_replay, overlap_at, replay
from clinqa.pipeline import Pipeline
from clinqa.retrieval.filters import Filters
from clinqa.settings import Settings

#: one question per document of the ``tiny_corpus`` fixture (conftest)
QUESTIONS = [
    "What dose of apixaban is used for stroke prevention in atrial fibrillation?",
    "How much intravenous crystalloid should be given in sepsis?",
    "What serum urate target should allopurinol be titrated to in gout?",
]

@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory, tiny_corpus: Path) -> tuple[Pipeline, Path]:
    """A store of the 3 documents and a log of the 3 questions asked against it (all answered)."""
    root = tmp_path_factory.mktemp("replay")
    pipe = Pipeline(Settings(data_dir=root / "data"))
    report = pipe.ingest([tiny_corpus], progress=False)
    assert report.documents == 3 and report.failed == []
    log = QueryLog.for_pipeline(pipe)
    assert log is not None
    for q in QUESTIONS:
        ans = pipe.ask(q)
        assert not ans.refused, (q, ans.answer)
        log.record(ans, config_hash=pipe.config_hash(), model_id=model_id_of(pipe),
                   corpus_version=pipe.corpus_version())
    log.close()
    return pipe, log.path


def with_settings(pipe: Pipeline, **answer: object) -> Pipeline:
    """A pipeline on the same data dir with other answer settings, sharing the loaded encoder."""
    other = Pipeline(Settings(data_dir=pipe.data_dir, answer=answer))
    other._encoder = pipe.encoder  # the same model: load it once per module
    return other


def copy_log(path: Path, tmp_path: Path) -> QueryLog:
    """A private copy of the module's log, for tests that change it."""
    src = sqlite3.connect(path)
    dst = sqlite3.connect(tmp_path / "copy.sqlite")
    src.backup(dst)
    src.close()
    dst.close()
    return QueryLog(tmp_path / "copy.sqlite")


def test_high_threshold_flips_every_decision_and_reuses_embeddings(logged) -> None:
    pipe, path = logged
    log = QueryLog(path)
    rep = replay(with_settings(pipe, refusal_threshold=0.99), log)
    assert len(rep.items) == 3 and rep.skipped == []
    assert rep.embeddings_reused == 3 and rep.re_encoded == 0
    assert [i.question for i in rep.flips("answered->refused")] == QUESTIONS
    assert rep.flips("refused->answered") == []
    assert all(i.new_mode == "refusal" for i in rep.items)
    assert rep.mean_overlap == 1.0  # the threshold does not change retrieval
    assert rep.config_hash != pipe.config_hash() and rep.old_config_hashes == [pipe.config_hash()]
    d = rep.to_dict()
    assert [x["question"] for x in d["answered_to_refused"]] == QUESTIONS and d["embeddings_reused"] == 3
    text = format_replay(rep)
    assert "answered -> refused: 3" in text and "3 reused from the log, 0 encoded again" in text
    assert len(log.rows()) == 3  # nothing written back without record
    log.close()


def test_same_config_changes_nothing(logged) -> None:
    pipe, path = logged
    log = QueryLog(path)
    rep = replay(with_settings(pipe), log)
    assert rep.config_hash == pipe.config_hash()
    assert rep.flips("answered->refused") == [] == rep.flips("refused->answered")
    assert rep.mean_overlap == 1.0 and rep.embeddings_reused == 3
    summary = rep.cited_summary()
    assert summary["total"] >= 3 and summary["total"] == summary["same"]
    assert all(o == n and o is not None for i in rep.items for o, n in i.cited_ranks.values())
    old = {r["query_id"]: r for r in log.rows()}
    for i in rep.items:
        assert i.old_signal == pytest.approx(i.new_signal, abs=1e-6)
        assert i.old_signal == old[i.query_id]["gate"]["signal"]
    assert "answered -> refused: 0" in format_replay(rep) and "mean overlap@10 of retrieved chunks: 1.000" in \
        format_replay(rep)
    log.close()


def test_other_encoder_is_re_encoded_record_and_skips(logged, tmp_path: Path, answer_factory) -> None:
    pipe, path = logged
    log = copy_log(path, tmp_path)
    first = log.rows()[0]["query_id"]
    with sqlite3.connect(log.path) as conn:  # pretend the first question was embedded by another model
        conn.execute("UPDATE queries SET model_id = 'another-model' WHERE query_id = ?", (first,))
    nc = answer_factory("model alone", mode="no-context", retrieved=(), cited=())
    nc.query_vector = None
    log.record(nc, config_hash="x", model_id="m", corpus_version=0)
    rep = replay(with_settings(pipe), log, record=True)
    assert rep.embeddings_reused == 2 and rep.re_encoded == 1
    assert [i.reused_embedding for i in rep.items] == [False, True, True]
    assert rep.mean_overlap == 1.0 and rep.flips("answered->refused") == []
    assert [s["question"] for s in rep.skipped] == ["model alone"]
    assert "1 encoded again (different encoder or no logged embedding)" in format_replay(rep)
    # recorded as source 'replay', and a later replay does not replay the replays
    replays = log.rows(source="replay")
    assert len(replays) == 3 and {r["query_id"] for r in replays} == {i.new_query_id for i in rep.items}
    assert replays[0]["question"] == QUESTIONS[0] and replays[0]["config_hash"] == pipe.config_hash()
    again = replay(with_settings(pipe), log, limit=2)
    assert [i.question for i in again.items] == QUESTIONS[2:]  # the latest two non-replay rows (one is skipped)
    assert len(again.skipped) == 1
    log.close()


def test_filters_from_dict_and_overlap() -> None:
    f = Filters(patient_id="P1", year_min=2019, sources=("BTS",), exclude_levels=("document",), doc_ids=("a", "b"))
    assert filters_from_dict(f.to_dict()) == f
    assert filters_from_dict({}) == Filters()
    assert overlap_at(list("abcdefghij"), list("abcdeklmno")) == 0.5
    assert overlap_at(["a", "b"], ["b", "c", "d", "e"]) == 0.25  # |{b}| / max(2, 4)
    assert overlap_at([], []) == 1.0 and overlap_at(["a"], []) == 0.0
    assert overlap_at([str(i) for i in range(20)], [str(i) for i in range(10, 30)]) == 0.0  # top 10 only
    assert np.isclose(overlap_at(list("abc"), list("cba")), 1.0)
