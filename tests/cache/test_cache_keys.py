"""Cache keys and Answer.from_dict."""

from __future__ import annotations

import json

import numpy as np

from clinqa.answer.types import Answer, Citation
from clinqa.cache import answer_key, vector_key
from clinqa.cache.base import dump_answer
from clinqa.retrieval import Filters

F = Filters().to_dict()


def test_answer_key_normalises_whitespace_but_keeps_case() -> None:
    k = answer_key("What is  the dose of\tapixaban? ", F, "abc123", 7)
    assert len(k) == 64 and int(k, 16) >= 0
    assert k == answer_key(" What is the dose of apixaban?", F, "abc123", 7)
    assert k != answer_key("what is the dose of apixaban?", F, "abc123", 7)


def test_answer_key_depends_on_every_part() -> None:
    base = answer_key("q?", F, "abc123", 7)
    assert base != answer_key("q?", Filters(patient_id="P1").to_dict(), "abc123", 7)
    assert base != answer_key("q?", Filters(year_min=2020).to_dict(), "abc123", 7)
    assert base != answer_key("q?", F, "abc124", 7)
    assert base != answer_key("q?", F, "abc123", 8)
    assert base != vector_key("q?", "abc123")


def test_filters_key_order_does_not_matter() -> None:
    d = Filters(patient_id="P1", year_min=2020, sources=("nice",)).to_dict()
    shuffled = dict(reversed(list(d.items())))
    assert list(shuffled) != list(d)
    assert answer_key("q", d, "h", 1) == answer_key("q", shuffled, "h", 1)


def test_vector_key() -> None:
    assert vector_key("a  b ", "m") == vector_key("a b", "m")
    assert vector_key("a b", "m") != vector_key("a b", "m2")
    assert vector_key("a b", "m") != vector_key("A b", "m")


def test_answer_from_dict_round_trip() -> None:
    cit = Citation(1, "c1", "d1", "Title", "Sec", 2020, "nice", "https://x", np.float32(0.75), "quote",
                   "2021-01-02", ["progress note 2020-01-01 (n0)"])
    ans = Answer("q?", False, "Text [1].", Filters().to_dict(), [cit], [], "", "extractive",
                 {"answer": True, "signal": np.float32(0.6), "threshold": 0.3764, "reason": ""}, {"total": 3.0},
                 [{"rank": 1, "chunk_id": "c1", "rrf": 0.1}],
                 ["w"], "", query_vector=np.ones(4, dtype=np.float32))
    d = json.loads(dump_answer(ans.to_dict()))  # what a cache stores and gives back
    back = Answer.from_dict(d)
    assert back.query_vector is None
    assert isinstance(back.citations[0], Citation)
    assert back.citations == ans.citations
    assert back.to_dict() == json.loads(dump_answer(ans.to_dict()))
    back.citations[0].also_in.append("x")  # nothing shared with the dict
    assert d["citations"][0]["also_in"] == ["progress note 2020-01-01 (n0)"]
    # unknown keys are ignored, missing optional ones take defaults
    assert Answer.from_dict({"question": "q", "refused": True, "answer": "no", "filters": {}, "new": 1}).mode == \
        "extractive"


def test_config_hash_ignores_store_address_not_backend(tmp_path) -> None:
    """Rotating the Qdrant API key or moving the server keeps cached answers; switching the backend
    (another BM25) does not."""
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings, StoreSettings

    base = Pipeline(Settings(data_dir=tmp_path / "a")).config_hash()
    moved = Pipeline(Settings(data_dir=tmp_path / "b", store=StoreSettings(
        qdrant_url="http://qdrant:6333", qdrant_api_key="k2", collection="other"))).config_hash()
    other = Pipeline(Settings(data_dir=tmp_path / "a", store=StoreSettings(backend="qdrant"))).config_hash()
    assert base == moved and base != other
