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


def test_parent_rrf_hand_computed() -> None:
    from clinqa.retrieval.fusion import parent_rrf

    fused = rrf({"dense": ["a1", "b1", "a2"], "bm25": ["b1", "c1"]}, k=60)
    # a1 1/61, b1 1/62 + 1/61, a2 1/63, c1 1/62; documents: B first, then A; C not listed
    out = dict(parent_rrf(fused, {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}, ["B", "A", "B"], weight=0.5, k=60))
    assert out["b1"] == pytest.approx(1 / 62 + 1 / 61 + 0.5 / 61)
    assert out["a1"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert out["a2"] == pytest.approx(1 / 63 + 0.5 / 62)
    assert out["c1"] == pytest.approx(1 / 62)  # its document is not in the list: nothing added
    order = [c for c, _ in parent_rrf(fused, {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}, ["B", "A"], 0.5, 60)]
    assert order == ["b1", "a1", "a2", "c1"]  # a2 (1/63 + 0.5/62 = .02394) passes c1 (1/62 = .01613)


def test_parent_rrf_adds_no_children_and_keeps_ties_in_order() -> None:
    from clinqa.retrieval.fusion import parent_rrf

    fused = [("x", 0.5), ("y", 0.5)]  # already tie-broken by rrf
    assert parent_rrf(fused, {"x": "D", "y": "D"}, ["D", "E"], 1.0, 0) == [("x", 1.5), ("y", 1.5)]
    assert parent_rrf(fused, {"x": "D", "y": "D"}, [], 1.0, 0) == fused
    assert [c for c, _ in parent_rrf(fused, {"x": "D", "y": "E"}, ["E"], 1.0, 0)] == ["y", "x"]
    with pytest.raises(ValueError):
        parent_rrf(fused, {}, ["D"], -1.0)


def test_fuse_hits_uses_the_document_list_as_parents() -> None:
    from clinqa.chunking.base import Chunk
    from clinqa.retrieval.hybrid import fuse_hits
    from clinqa.settings import RetrievalSettings
    from clinqa.store.base import Hit

    def hit(cid: str, doc: str, rank: int, score: float) -> Hit:
        return Hit(Chunk(chunk_id=cid, doc_id=doc, text=cid, body=cid), score, rank, "bm25" if score > 1 else "cosine")

    dense = [hit("a#1", "A", 1, 0.9), hit("b#1", "B", 2, 0.8)]
    bm25 = [hit("b#1", "B", 1, 7.0), hit("a#1", "A", 2, 5.0)]  # a#1 and b#1 tie on 1/61 + 1/62
    docs = [("B", 0.7), ("A", 0.6)]
    rs = RetrievalSettings(document_weight=1.0, rrf_k=60, bm25_weight=1.0)
    off = fuse_hits(dense, bm25, RetrievalSettings(document_weight=0.0, rrf_k=60, bm25_weight=1.0))
    on = fuse_hits(dense, bm25, rs, documents=docs)
    assert [h.chunk.chunk_id for h in off] == ["a#1", "b#1"]  # tie: best single rank 1 both, then id
    assert [h.chunk.chunk_id for h in on] == ["b#1", "a#1"]  # B's document ranks first
    assert on[0].score == pytest.approx(1 / 61 + 1 / 62 + 1 / 61)
    assert on[0].ranks == {"dense": 2, "bm25": 1, "document": 1} and on[0].scores["document"] == 0.7
    assert "document" not in off[0].ranks
    assert {h.chunk.chunk_id for h in on} == {"a#1", "b#1"}  # the document list adds no passage


def test_content_levels_leave_only_overviews() -> None:
    from clinqa.chunking.base import content_levels
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import document_filters

    assert content_levels() == ("section", "paragraph", "window", "references")
    f = document_filters(Filters(patient_id="P1", year_min=2021, sources=("nice",)))
    assert f == Filters(patient_id="P1", year_min=2021, sources=("nice",), exclude_levels=content_levels())
