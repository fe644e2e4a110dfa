"""LanceStore: pre-filters inside both searches, atomic replace, delete."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore

DIM = 8


def vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = 0.5
    return v / np.linalg.norm(v)


def chunk(doc: str, i: int, text: str, **kw) -> Chunk:
    return Chunk(chunk_id=f"{doc}#s#{i}", doc_id=doc, text=text, body=text, **kw)


@pytest.fixture()
def store(tmp_path: Path) -> LanceStore:
    s = LanceStore(tmp_path / "db")
    rows = [
        chunk("g1", 0, "guideline overview warfarin", hierarchy_level="document", year=2014),
        chunk("g1", 1, "warfarin dosing in atrial fibrillation", year=2014),
        chunk("g2", 0, "statin therapy after myocardial infarction", year=2022),
        chunk("nA", 0, "patient A takes warfarin daily", patient_id="A", year=2023, note_date="2023-02-01"),
        chunk("nB", 0, "patient B takes warfarin twice", patient_id="B", year=2021, note_date="2021-05-01"),
    ]
    s.replace_documents(["g1", "g2", "nA", "nB"], rows, np.stack([vec(i) for i in range(len(rows))]))
    s.refresh_indexes()
    return s


def ids(hits) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def test_patient_scope_on_both_lists(store: LanceStore) -> None:
    for q in (vec(3), vec(4)):
        assert ids(store.dense_search(q, 10, Filters(patient_id="A"))) == ["nA#s#0"]
    assert ids(store.bm25_search("warfarin", 10, Filters(patient_id="B"))) == ["nB#s#0"]
    # no patient given: no patient's notes at all
    general = ids(store.bm25_search("warfarin", 10, Filters()))
    assert general == ["g1#s#1"]


def test_overview_excluded_by_default(store: LanceStore) -> None:
    assert "g1#s#0" not in ids(store.dense_search(vec(0), 10, Filters()))
    assert "g1#s#0" in ids(store.dense_search(vec(0), 10, Filters(exclude_levels=())))


def test_year_range(store: LanceStore) -> None:
    assert ids(store.dense_search(vec(2), 10, Filters(year_min=2020))) == ["g2#s#0"]
    assert ids(store.dense_search(vec(2), 10, Filters(year_max=2015))) == ["g1#s#1"]


def test_dense_scores_are_cosines(store: LanceStore) -> None:
    hits = store.dense_search(vec(1), 10, Filters())
    assert hits[0].chunk.chunk_id == "g1#s#1"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[0].kind == "cosine" and hits[0].rank == 1
    assert hits[1].score == pytest.approx(float(vec(1) @ vec(2)), abs=1e-5)


def test_replace_is_whole_document(store: LanceStore) -> None:
    new = [chunk("g1", 5, "replacement text about apixaban", year=2015)]
    store.replace_documents(["g1"], new, np.stack([vec(5)]))
    assert [c.chunk_id for c in store.get_chunks(["g1#s#0", "g1#s#1", "g1#s#5"])] == ["g1#s#5"]
    assert store.count() == 4
    assert ids(store.bm25_search("apixaban", 5, Filters())) == ["g1#s#5"]
    assert ids(store.bm25_search("dosing", 5, Filters())) == []


def test_delete_and_documents(store: LanceStore) -> None:
    assert store.delete_document("g2") == 1
    assert store.delete_document("g2") == 0
    docs = {d["doc_id"]: d["chunks"] for d in store.documents()}
    assert docs == {"g1": 2, "nA": 1, "nB": 1}


def test_punctuation_only_query(store: LanceStore) -> None:
    assert store.bm25_search("?!", 5, Filters()) == []
    assert ids(store.bm25_search("What's warfarin's dose?", 5, Filters()))[0] == "g1#s#1"
