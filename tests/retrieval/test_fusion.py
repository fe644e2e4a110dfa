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
    rs = RetrievalSettings(fusion="rrf", document_weight=1.0, rrf_k=60, bm25_weight=1.0)
    off = fuse_hits(dense, bm25, RetrievalSettings(fusion="rrf", document_weight=0.0, rrf_k=60, bm25_weight=1.0))
    on = fuse_hits(dense, bm25, rs, documents=docs)
    assert [h.chunk.chunk_id for h in off] == ["a#1", "b#1"]  # tie: best single rank 1 both, then id
    assert [h.chunk.chunk_id for h in on] == ["b#1", "a#1"]  # B's document ranks first
    assert on[0].score == pytest.approx(1 / 61 + 1 / 62 + 1 / 61)
    assert on[0].ranks == {"dense": 2, "bm25": 1, "document": 1} and on[0].scores["document"] == 0.7
    assert "document" not in off[0].ranks
    assert {h.chunk.chunk_id for h in on} == {"a#1", "b#1"}  # the document list adds no passage


def test_normalize_scores_by_the_theoretical_minimum_and_the_best_score() -> None:
    from clinqa.retrieval.fusion import normalize_scores

    # phi = (x - 0) / (0.8 - 0): 0.8 -> 1, 0.6 -> 0.75, 0.2 -> 0.25; the last score's phi is 0.25
    phi, last = normalize_scores([("a", 0.8), ("b", 0.6), ("a", 0.5), ("c", 0.2)])
    assert phi == pytest.approx({"a": 1.0, "b": 0.75, "c": 0.25}) and last == pytest.approx(0.25)  # a: first
    # with a floor: (x - 2) / (10 - 2): 10 -> 1, 6 -> 0.5
    assert normalize_scores([("a", 10.0), ("b", 6.0)], floor=2.0) == ({"a": 1.0, "b": 0.5}, 0.5)
    assert normalize_scores([]) == ({}, 0.0)
    assert normalize_scores([("a", -0.1), ("b", -0.2)]) == ({}, 0.0)  # no score above the floor: no signal


def test_convex_by_hand() -> None:
    from clinqa.retrieval.fusion import convex

    # dense phi: a 1.0, b 0.5, c 0.25 (last 0.25); BM25 phi: c 1.0, d 0.5 (last 0.5)
    dense = [("a", 0.8), ("b", 0.4), ("c", 0.2)]
    bm25 = [("c", 12.0), ("d", 6.0)]
    out = dict(convex({"dense": dense, "bm25": bm25}))
    # a: 1 + 0.5 (absent from BM25: its last phi); b: 0.5 + 0.5; c: 0.25 + 1; d: 0.25 (dense last) + 0.5
    assert out == pytest.approx({"a": 1.5, "b": 1.0, "c": 1.25, "d": 0.75})
    weighted = dict(convex({"dense": dense, "bm25": bm25}, {"dense": 0.3, "bm25": 0.7}))
    assert weighted["a"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.5)
    assert weighted["c"] == pytest.approx(0.3 * 0.25 + 0.7 * 1.0)
    assert [i for i, _ in convex({"dense": dense, "bm25": bm25})] == ["a", "c", "b", "d"]
    # RRF on the same lists ranks c first (found by both); convex keeps a's lead in the dense scores
    from clinqa.retrieval.fusion import rrf

    assert rrf({"dense": [i for i, _ in dense], "bm25": [i for i, _ in bm25]})[0][0] == "c"
    with pytest.raises(ValueError):
        convex({"dense": dense}, {"dense": -1.0})


def test_convex_list_without_signal_adds_nothing_and_ties_go_by_rank_then_id() -> None:
    from clinqa.retrieval.fusion import convex

    # BM25's best score is its floor: no signal; the dense list, asked for 30, came back with 1: exhausted,
    # so b, absent from it, scores 0 there
    assert convex({"dense": [("a", 0.5)], "bm25": [("b", 0.0)]}, depths={"dense": 30, "bm25": 30}) \
        == [("a", 1.0), ("b", 0.0)]
    # a full dense list (2 asked, 2 back): b, absent, may rank just below its cut and gets the last phi (0.5);
    # the BM25 list (5 asked, 1 back) is exhausted: a and c score 0 there. b 0.5 + 1, a 1 + 0, c 0.5 + 0
    assert convex({"dense": [("a", 0.5), ("c", 0.25)], "bm25": [("b", 3.0)]}, depths={"dense": 2, "bm25": 5}) \
        == [("b", 1.5), ("a", 1.0), ("c", 0.5)]
    # a and b both score 1.5 and both have a best rank of 1: id order
    assert [i for i, _ in convex({"x": [("b", 2.0), ("a", 1.0)], "y": [("a", 2.0), ("b", 1.0)]})] == ["a", "b"]


def test_parent_convex_by_hand() -> None:
    from clinqa.retrieval.fusion import parent_convex

    fused = [("x", 1.0), ("y", 0.9), ("z", 0.8)]
    # document phi: D 1.0, E 0.5 (last 0.5); z's document F is unlisted: the last phi
    out = parent_convex(fused, {"x": "E", "y": "D", "z": "F"}, [("D", 0.6), ("E", 0.3)], weight=0.4)
    assert [c for c, _ in out] == ["y", "x", "z"]
    assert [s for _, s in out] == pytest.approx([0.9 + 0.4, 1.0 + 0.2, 0.8 + 0.2])
    # the same list asked for 5 documents came back with 2: exhausted, so F's chunk gains nothing
    short = parent_convex(fused, {"x": "E", "y": "D", "z": "F"}, [("D", 0.6), ("E", 0.3)], weight=0.4, depth=5)
    assert [s for _, s in short] == pytest.approx([1.3, 1.2, 0.8])
    assert parent_convex(fused, {}, [], 1.0) == fused
    with pytest.raises(ValueError):
        parent_convex(fused, {}, [("D", 0.5)], -1.0)


def test_fuse_hits_convex_with_the_document_list() -> None:
    from clinqa.chunking.base import Chunk
    from clinqa.retrieval.hybrid import fuse_hits
    from clinqa.settings import RetrievalSettings
    from clinqa.store.base import Hit

    def hit(cid: str, doc: str, rank: int, score: float) -> Hit:
        return Hit(Chunk(chunk_id=cid, doc_id=doc, text=cid, body=cid), score, rank, "bm25" if score > 1 else "cosine")

    dense = [hit("a#1", "A", 1, 0.8), hit("b#1", "B", 2, 0.6)]
    bm25 = [hit("b#1", "B", 1, 8.0), hit("a#1", "A", 2, 6.0)]
    docs = [("B", 0.5), ("A", 0.25)]
    rs = RetrievalSettings()
    assert rs.fusion == "convex" and (rs.dense_weight, rs.bm25_weight, rs.document_weight) == (1.0, 1.0, 0.4)
    # a#1: 1 + 0.75 = 1.75, b#1: 0.75 + 1 = 1.75 (tie: best rank 1 both, then id); + documents 0.4 * (0.5, 1)
    off = fuse_hits(dense, bm25, rs)
    assert [h.chunk.chunk_id for h in off] == ["a#1", "b#1"] and off[0].score == pytest.approx(1.75)
    on = fuse_hits(dense, bm25, rs, documents=docs)
    assert [(h.chunk.chunk_id, round(h.score, 6)) for h in on] == [("b#1", 2.15), ("a#1", 1.95)]
    assert on[0].ranks == {"dense": 2, "bm25": 1, "document": 1}


def test_content_levels_leave_only_overviews() -> None:
    from clinqa.chunking.base import content_levels
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import document_filters

    assert content_levels() == ("section", "paragraph", "window", "references")
    f = document_filters(Filters(patient_id="P1", year_min=2021, sources=("nice",)))
    assert f == Filters(patient_id="P1", year_min=2021, sources=("nice",), exclude_levels=content_levels())


def test_convex_terms_stay_between_zero_and_the_weight() -> None:
    """A score below the list's minimum (a negative cosine, seen on a small corpus by a new user: a chunk at
    dense rank 2 and BM25 rank 2 scored -2.18 and fell below chunks BM25 never found) counts as the minimum."""
    from clinqa.retrieval.fusion import convex, normalize_scores, parent_convex

    assert normalize_scores([("a", 0.05), ("b", -0.2)]) == ({"a": 1.0, "b": 0.0}, 0.0)
    # b: dense phi 0 (its cosine -0.2 is below 0) + BM25 phi 1; a: 1 + 0 (the BM25 list is exhausted)
    assert convex({"dense": [("a", 0.05), ("b", -0.2)], "bm25": [("b", 3.0)]},
                  depths={"dense": 30, "bm25": 30}) == [("a", 1.0), ("b", 1.0)]
    out = parent_convex([("x", 1.0)], {"x": "D"}, [("E", 0.1), ("D", -0.5)], weight=0.4)
    assert out == [("x", 1.0)]  # its document's negative cosine adds nothing, and takes nothing


def test_infinite_or_nan_weights_are_refused() -> None:
    from pydantic import ValidationError

    from clinqa.settings import RetrievalSettings

    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValidationError):
            RetrievalSettings(dense_weight=bad)
        with pytest.raises(ValidationError):
            RetrievalSettings(document_weight=bad)
