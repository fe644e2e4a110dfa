"""cached_ask on a tiny real store: hits, misses on other filters, patients and corpora, the
query-vector cache, uncached failed generations, and a Redis cache shared by two workers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from redis_helpers import RedisServer, free_port

from clinqa.cache import SQLiteCache, answer_key, cached_ask, vector_key
from clinqa.pipeline import Pipeline
from clinqa.settings import AnswerSettings, Settings

DOCS = {
    "apixaban.md": ("Apixaban in atrial fibrillation", 2015,
                    "## Dosing\n\nApixaban 5 mg twice daily prevents stroke in atrial fibrillation. "
                    "Reduce the dose to 2.5 mg twice daily when two of age 80 or more, weight 60 kg or less "
                    "and serum creatinine 133 micromol/L or more apply.\n"),
    "metformin.md": ("Metformin in type 2 diabetes", 2022,
                     "## Treatment\n\nMetformin is the first-line drug for type 2 diabetes. "
                     "Reduce the metformin dose when eGFR falls below 45 and stop it below 30.\n"),
}
EXTRA = ("sepsis.md", ("Fluids in sepsis", 2021,
                       "## Resuscitation\n\nGive 30 mL/kg of intravenous crystalloid within the first 3 hours "
                       "of sepsis-induced hypoperfusion.\n"))
NOTES = [
    {"patient_id": "P1", "note_id": "n1", "date": "2023-03-01", "note_type": "progress",
     "text": "Plan:\nAtrial fibrillation. Started apixaban 5 mg twice daily for stroke prevention.\n"},
    {"patient_id": "P2", "note_id": "n1", "date": "2023-04-01", "note_type": "progress",
     "text": "Plan:\nAtrial fibrillation. Started warfarin with a target INR of 2 to 3 for stroke prevention.\n"},
]
QUESTION = "What dose of apixaban prevents stroke in atrial fibrillation?"


def write_doc(folder: Path, name: str, title: str, year: int, body: str) -> None:
    (folder / name).write_text(f"---\ntitle: {title}\nyear: {year}\nsource: test\n---\n# {title}\n\n{body}")


def make_pipe(root: Path) -> Pipeline:
    docs = root / "docs"
    docs.mkdir(parents=True)
    for name, (title, year, body) in DOCS.items():
        write_doc(docs, name, title, year, body)
    (docs / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    # the gate is not under test: answer whatever the similarity in this tiny corpus
    p = Pipeline(Settings(data_dir=root / "data", answer=AnswerSettings(refusal_threshold=0.0)))
    report = p.ingest([docs], progress=False)
    assert report.failed == [] and report.documents == 4
    return p


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    return make_pipe(tmp_path_factory.mktemp("cached-ask"))


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[SQLiteCache]:
    c = SQLiteCache(tmp_path / "cache.sqlite", 3600)
    yield c
    c.close()


class EncodeSpy:
    """Records every text the pipeline's encoder is asked to embed as a query."""

    def __init__(self, pipe: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        enc = pipe.encoder
        real = enc.encode_queries

        def spy(texts: list[str]) -> np.ndarray:
            self.texts.extend(texts)
            return real(texts)

        monkeypatch.setattr(enc, "encode_queries", spy)


def test_second_ask_is_a_hit(pipe: Pipeline, cache: SQLiteCache, monkeypatch: pytest.MonkeyPatch) -> None:
    f = pipe.filters()
    first, hit1 = cached_ask(pipe, cache, QUESTION, f)
    assert not hit1 and not first.refused and first.citations
    assert "apixaban" in first.answer.lower()
    spy = EncodeSpy(pipe, monkeypatch)
    second, hit2 = cached_ask(pipe, cache, "  What dose of apixaban  prevents stroke in atrial fibrillation? ", f)
    assert hit2
    assert spy.texts == []  # nothing was encoded, nothing was searched
    assert second.answer == first.answer
    assert second.citations == first.citations and all(type(c).__name__ == "Citation" for c in second.citations)
    assert second.to_dict()["citations"] == json.loads(json.dumps(first.to_dict()["citations"], default=float))
    assert second.retrieved and [r["chunk_id"] for r in second.retrieved] == [r["chunk_id"] for r in first.retrieved]
    assert set(second.timings_ms) == {"cache", "total"} and second.timings_ms["total"] < first.timings_ms["total"]
    assert second.question.startswith("  What dose")  # the question as asked this time
    assert second.query_vector is not None and np.allclose(second.query_vector, first.query_vector)
    s = cache.stats()
    assert s["answer_hits"] == 1 and s["answer_misses"] == 1


def test_key_is_answer_key_of_the_pipeline(pipe: Pipeline, cache: SQLiteCache) -> None:
    f = pipe.filters()
    ans, _ = cached_ask(pipe, cache, QUESTION, f)
    state = f"{pipe.config_hash()}|calibration={pipe.calibration_key()}"  # no time intent in QUESTION: no date
    stored = cache.get_answer(answer_key(QUESTION, f.to_dict(), state, pipe.corpus_version()))
    assert stored is not None and stored["answer"] == ans.answer
    v = cache.get_vector(vector_key(QUESTION, pipe.encoder.model_id))
    assert v is not None and v.shape == (pipe.encoder.dim,) and np.allclose(v, ans.query_vector)


def test_other_filter_misses_but_reuses_the_query_vector(pipe: Pipeline, cache: SQLiteCache,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    cached_ask(pipe, cache, QUESTION, pipe.filters())
    spy = EncodeSpy(pipe, monkeypatch)
    before = cache.stats()
    ans, hit = cached_ask(pipe, cache, QUESTION, pipe.filters(since=2020))
    assert not hit
    assert QUESTION not in spy.texts  # the question's embedding came from the cache
    after = cache.stats()
    assert after["vector_hits"] == before["vector_hits"] + 1
    assert after["answer_misses"] == before["answer_misses"] + 1
    assert ans.filters.year_min == 2020
    assert all(c.year is not None and c.year >= 2020 for c in ans.citations)  # not the 2015 apixaban answer
    # and the filtered answer is now cached under its own key
    again, hit = cached_ask(pipe, cache, QUESTION, pipe.filters(since=2020))
    assert hit and again.answer == ans.answer


def test_patient_answer_is_never_served_for_another_patient(pipe: Pipeline, cache: SQLiteCache) -> None:
    q = "Which anticoagulant was started for atrial fibrillation?"
    p1, hit = cached_ask(pipe, cache, q, pipe.filters(patient_id="P1"))
    assert not hit and p1.citations and {c.doc_id for c in p1.citations} == {"note:P1:n1"}
    p2, hit = cached_ask(pipe, cache, q, pipe.filters(patient_id="P2"))
    assert not hit
    assert all(not c.doc_id.startswith("note:P1") for c in p2.citations)
    assert "apixaban" not in p2.answer.lower()
    no_patient, hit = cached_ask(pipe, cache, q, pipe.filters())
    assert not hit and all(not c.doc_id.startswith("note:") for c in no_patient.citations)
    again, hit = cached_ask(pipe, cache, q, pipe.filters(patient_id="P1"))
    assert hit and again.answer == p1.answer


def test_corpus_change_makes_old_entries_unreachable(tmp_path: Path) -> None:
    p = make_pipe(tmp_path)
    cache = SQLiteCache(tmp_path / "cache.sqlite", 3600)
    f = p.filters()
    _, hit = cached_ask(p, cache, QUESTION, f)
    assert not hit
    assert cached_ask(p, cache, QUESTION, f)[1]
    v0 = p.corpus_version()
    name, (title, year, body) = EXTRA
    write_doc(tmp_path / "docs", name, title, year, body)
    assert p.ingest([tmp_path / "docs" / name], progress=False).documents == 1
    assert p.corpus_version() != v0
    _, hit = cached_ask(p, cache, QUESTION, f)
    assert not hit  # stale: answered again on the new corpus
    assert cached_ask(p, cache, QUESTION, f)[1]
    v1 = p.corpus_version()
    assert p.remove("docs/sepsis") > 0  # a removal invalidates too
    assert p.corpus_version() != v1
    assert not cached_ask(p, cache, QUESTION, f)[1]
    cache.close()


def test_failed_generation_is_not_cached(pipe: Pipeline, cache: SQLiteCache) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: the model call fails
    settings = pipe.settings.model_copy(update={"llm": pipe.settings.llm.model_copy(
        update={"backend": "openai", "base_url": dead, "max_retries": 0, "timeout_s": 5})})
    p = Pipeline(settings)
    p._encoder = pipe.encoder  # same model: skip loading it again
    ans, hit = cached_ask(p, cache, QUESTION, p.filters())
    assert not hit and "error" in ans.llm and ans.mode == "extractive"
    ans, hit = cached_ask(p, cache, QUESTION, p.filters())
    assert not hit and "error" in ans.llm  # asked the model again
    assert cache.get_answer(answer_key(QUESTION, p.filters().to_dict(), p.config_hash(), p.corpus_version())) is None
    assert cache.stats()["vector_hits"] >= 1  # the embedding is still cached


def test_no_cache_is_a_plain_ask(pipe: Pipeline) -> None:
    ans, hit = cached_ask(pipe, None, QUESTION, pipe.filters())
    assert not hit and ans.citations


def test_two_redis_workers_share_answers(pipe: Pipeline, redis_server: RedisServer) -> None:
    import redis

    from clinqa.cache.redis import RedisCache

    redis.Redis.from_url(redis_server.url).flushdb()
    w1, w2 = RedisCache(redis_server.url, 60), RedisCache(redis_server.url, 60)
    a1, hit1 = cached_ask(pipe, w1, QUESTION, pipe.filters())
    a2, hit2 = cached_ask(pipe, w2, QUESTION, pipe.filters())
    assert (hit1, hit2) == (False, True)
    assert a2.answer == a1.answer and a2.citations == a1.citations


def test_dead_redis_never_fails_an_answer(pipe: Pipeline, redis_factory) -> None:
    from clinqa.cache.redis import RedisCache

    server = redis_factory()
    c = RedisCache(server.url, 60)
    server.stop()
    ans, hit = cached_ask(pipe, c, QUESTION, pipe.filters())
    assert not hit and ans.citations


def test_recalibrated_threshold_or_time_intent_changes_the_key(pipe: Pipeline, cache: SQLiteCache) -> None:
    cached_ask(pipe, cache, QUESTION, pipe.filters())
    stricter = Pipeline(pipe.settings.model_copy(update={"answer": pipe.settings.answer.model_copy(
        update={"refusal_threshold": 0.99})}))
    stricter._encoder = pipe.encoder
    # a stricter threshold (set here in the config; a re-calibration changes it outside the config,
    # which is why _answer_state adds it) is never served the earlier answer
    ans, hit = cached_ask(stricter, cache, QUESTION, stricter.filters())
    assert not hit and ans.refused
    import datetime

    from clinqa.cache import _answer_state

    today = datetime.date.today().isoformat()
    assert _answer_state(pipe, "latest guidance on " + QUESTION).endswith(f"|day={today}")
    assert "|day=" not in _answer_state(pipe, QUESTION)
    # a bare year is a time only in a question to one patient's notes, as ask reads it
    assert "|day=" not in _answer_state(pipe, "2021 " + QUESTION)
    assert _answer_state(pipe, "2021 " + QUESTION, reference=False).endswith(f"|day={today}")


def test_a_recalibrated_patient_scope_or_support_threshold_changes_the_key(pipe: Pipeline) -> None:
    """Issue 28: the key held only the reference scope's threshold, so a re-calibrated patient scope (or
    support threshold) kept serving answers decided under the old one."""
    from clinqa.cache import _answer_state
    from clinqa.decision.calibration import Calibration, save_calibration

    calibrated = Pipeline(pipe.settings.model_copy(update={"answer": pipe.settings.answer.model_copy(
        update={"refusal_threshold": None})}))  # the thresholds come from the calibration files
    calibrated._encoder = pipe.encoder
    before = _answer_state(calibrated, QUESTION)
    assert ":t=0.376400:" in before and ":s=0.330000:" in before  # the shipped reference calibration
    path = pipe.data_dir / "calibration.json"
    assert not path.exists()
    try:
        model = pipe.encoder.model_id
        save_calibration(pipe.data_dir, Calibration("dense_cosine", model, 0.25, scope="patient"))
        patient = _answer_state(calibrated, QUESTION)
        assert patient != before and "patient:dense_cosine:" + model + ":t=0.250000:" in patient
        assert patient.split("|patient")[0] == before.split("|patient")[0]  # the reference scope unchanged
        save_calibration(pipe.data_dir, Calibration("dense_cosine", model, 0.25, scope="patient",
                                                    support_threshold=0.15))
        assert _answer_state(calibrated, QUESTION) not in (before, patient)
    finally:
        path.unlink(missing_ok=True)
    assert _answer_state(calibrated, QUESTION) == before
