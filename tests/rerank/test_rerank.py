"""Reranking: the ordering rule (hand-computed) and the cross-encoder's truncation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.errors import ConfigError
from clinqa.rerank import CrossEncoderReranker, Reranker, rerank_hits
from clinqa.retrieval.hybrid import Retrieved


class WordOverlap:
    """A real (if crude) reranker: the number of question words in the passage."""

    model_id = "word-overlap"

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        q = set(query.lower().split())
        return np.array([len(q & set(p.lower().split())) for p in passages], dtype=float)


def _hit(i: int, text: str) -> Retrieved:
    c = Chunk(chunk_id=f"c{i}", doc_id=f"d{i}", text=text, body=text, content_hash=str(i))
    return Retrieved(c, 1.0 / (60 + i), i, {"dense": i}, {"dense": 0.5})


def test_rerank_orders_by_score_and_keeps_provenance() -> None:
    hits = [_hit(1, "gout urate"), _hit(2, "apixaban dose in af"), _hit(3, "apixaban"), _hit(4, "apixaban dose")]
    assert isinstance(WordOverlap(), Reranker)
    out = rerank_hits(WordOverlap(), "apixaban dose", hits, top_k=3)
    # scores: c1 0, c2 2, c3 1, c4 2 -> c2 and c4 tie at 2 and keep their fused order
    assert [h.chunk.chunk_id for h in out] == ["c2", "c4", "c3"]
    assert [h.rank for h in out] == [1, 2, 3]
    assert [h.ranks["rrf"] for h in out] == [2, 4, 3]
    assert [h.scores["rerank"] for h in out] == [2.0, 2.0, 1.0]
    assert out[0].ranks["dense"] == 2
    assert rerank_hits(WordOverlap(), "x", [], 3) == []


def test_cross_encoder_cuts_the_passage_never_the_question(tiny_reranker: Path) -> None:
    r = CrossEncoderReranker(tiny_reranker, max_tokens=48)
    head = "apixaban is an oral anticoagulant " * 10  # fills the 48-token limit by itself
    a, b = r.score("what is apixaban", [head + "gout " * 300, head + "asthma " * 300])
    assert a == pytest.approx(b, abs=1e-6)  # the tails differ but were cut
    long_q = "does apixaban " * 40  # longer than the limit: kept whole, scoring still works
    s = r.score(long_q, ["apixaban", "gout"])
    assert s.shape == (2,) and np.isfinite(s).all()
    assert r.score("x", []).shape == (0,)


def test_missing_reranker_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a local model folder"):
        CrossEncoderReranker(tmp_path / "nope")
