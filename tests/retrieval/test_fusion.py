"""Weighted RRF against hand-computed values."""

from __future__ import annotations

import pytest

from clinqa.retrieval.fusion import rrf


def test_rrf_hand_computed() -> None:
    out = rrf({"dense": ["a", "b", "c"], "bm25": ["b", "d", "a"]}, k=60)
    expected = {"a": 1 / 61 + 1 / 63, "b": 1 / 62 + 1 / 61, "c": 1 / 63, "d": 1 / 62}
    assert [d for d, _ in out] == ["b", "a", "d", "c"]
    for d, s in out:
        assert s == pytest.approx(expected[d], abs=1e-12)


def test_weighted_rrf_hand_computed() -> None:
    out = dict(rrf({"dense": ["a", "b", "c"], "bm25": ["b", "d", "a"]}, {"dense": 0.3, "bm25": 0.7}, k=60))
    assert out["a"] == pytest.approx(0.3 / 61 + 0.7 / 63)
    assert out["b"] == pytest.approx(0.3 / 62 + 0.7 / 61)
    assert out["d"] == pytest.approx(0.7 / 62)
    assert out["c"] == pytest.approx(0.3 / 63)


def test_missing_from_one_list_contributes_nothing() -> None:
    out = dict(rrf({"x": ["a", "b"], "y": ["b"]}, k=0))
    assert out == {"a": 1.0, "b": 0.5 + 1.0}


def test_duplicates_count_once_at_best_rank() -> None:
    out = dict(rrf({"x": ["a", "a", "b"]}, k=60))
    assert out["a"] == pytest.approx(1 / 61)
    assert out["b"] == pytest.approx(1 / 63)  # b keeps its own position


def test_ties_are_deterministic() -> None:
    assert [d for d, _ in rrf({"x": ["b"], "y": ["a"]})] == ["a", "b"]


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        rrf({"x": ["a"]}, k=-1)
    with pytest.raises(ValueError):
        rrf({"x": ["a"]}, {"x": -0.5})
