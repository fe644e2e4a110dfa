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


# -- freshness: writes by another store object / process are seen at once --------------------------
def test_reader_sees_writes_of_another_store_at_once(store: LanceStore, tmp_path: Path) -> None:
    reader = LanceStore(tmp_path / "db")
    assert reader.count() == 5 and reader.get_chunks(["g2#s#0"])[0].text.startswith("statin")
    before = reader.version()
    # the writer replaces g2's text and adds a document; the reader was opened before
    store.replace_documents(["g2"], [chunk("g2", 0, "ezetimibe added after myocardial infarction", year=2022)],
                            np.stack([vec(2)]))
    store.replace_documents(["g3"], [chunk("g3", 0, "colchicine for pericarditis", year=2024)], np.stack([vec(6)]))
    store.refresh_indexes()
    assert reader.get_chunks(["g2#s#0"])[0].text == "ezetimibe added after myocardial infarction"
    assert reader.dense_search(vec(2), 1, Filters())[0].chunk.text.startswith("ezetimibe")
    assert ids(reader.bm25_search("ezetimibe", 5, Filters())) == ["g2#s#0"]
    assert ids(reader.bm25_search("statin", 5, Filters())) == []
    assert ids(reader.bm25_search("colchicine", 5, Filters())) == ["g3#s#0"]
    assert reader.count() == 6 and "g3" in reader.doc_hashes()
    assert [d["doc_id"] for d in reader.documents()] == ["g1", "g2", "g3", "nA", "nB"]
    assert reader.level_counts() == {"document": 1, "section": 5}
    assert "colchicine for pericarditis" in reader.sample_texts(10)
    assert reader.export(["chunk_id"], Filters(doc_ids=("g3",))).column("chunk_id").to_pylist() == ["g3#s#0"]
    assert reader.version() > before
    assert store.delete_document("g3") == 1
    assert reader.get_chunks(["g3#s#0"]) == [] and reader.count() == 5


def test_reader_opened_before_the_table_existed(tmp_path: Path) -> None:
    reader = LanceStore(tmp_path / "db")
    assert reader.count() == 0 and reader.dim is None and reader.version() == 0
    writer = LanceStore(tmp_path / "db")
    writer.replace_documents(["g1"], [chunk("g1", 0, "warfarin dosing in atrial fibrillation")], np.stack([vec(1)]))
    writer.refresh_indexes()  # builds the FTS index
    version = writer.version()
    assert reader.count() == 1 and reader.dim == DIM
    assert ids(reader.dense_search(vec(1), 5, Filters())) == ["g1#s#0"]
    assert ids(reader.bm25_search("warfarin", 5, Filters())) == ["g1#s#0"]
    assert reader.version() == version  # the reader used the writer's index, it did not build its own


_WRITER = """
import sys
import numpy as np
from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore
s = LanceStore(sys.argv[1])
c = Chunk(chunk_id="g2#s#0", doc_id="g2", text=sys.argv[2], body=sys.argv[2], year=2022)
v = np.zeros(8, dtype=np.float32)
v[2] = 1.0
s.replace_documents(["g2"], [c], v[None, :])
s.refresh_indexes()
"""


def test_reader_sees_an_ingest_by_another_process(store: LanceStore, tmp_path: Path) -> None:
    import subprocess
    import sys

    assert ids(store.bm25_search("statin", 5, Filters())) == ["g2#s#0"]
    subprocess.run([sys.executable, "-c", _WRITER, str(tmp_path / "db"), "rosuvastatin replaced by inclisiran"],
                   check=True, timeout=120)
    assert store.get_chunks(["g2#s#0"])[0].text == "rosuvastatin replaced by inclisiran"
    assert ids(store.bm25_search("inclisiran", 5, Filters())) == ["g2#s#0"]
    assert store.dense_search(vec(2), 1, Filters())[0].chunk.text.startswith("rosuvastatin")


def test_stale_indexes_after_unindexed_writes(tmp_path: Path) -> None:
    """Rows written after the last index update (an ingest killed before it refreshed) are found by
    BM25 all the same (LanceDB searches unindexed rows flat) and reported stale until refreshed."""
    s = LanceStore(tmp_path / "db")
    s.replace_documents(["a"], [chunk("a", 0, "alpha beta")], np.stack([vec(0)]))
    assert s.stale_indexes()  # no full-text index yet
    s.refresh_indexes()
    assert not s.stale_indexes()
    s.replace_documents(["b"], [chunk("b", 0, "gamma zeta")], np.stack([vec(1)]))
    assert s.stale_indexes()
    assert ids(s.bm25_search("zeta", 3, Filters())) == ["b#s#0"]
    s.refresh_indexes()
    assert not s.stale_indexes()


def test_counts_and_rows_follow_writes(tmp_path: Path) -> None:
    """count_matches and the hit rows are kept per table version: a write is seen at once."""
    s = LanceStore(tmp_path / "db")
    s.replace_documents(["a"], [chunk("a", 0, "zeta one")], np.stack([vec(0)]))
    s.refresh_indexes()
    assert s.count_matches("zeta", 30, Filters()) == 1
    assert s.dense_search(vec(0), 1, Filters())[0].chunk.text == "zeta one"
    s.replace_documents(["a", "b"], [chunk("a", 0, "zeta two"), chunk("b", 0, "zeta three")],
                        np.stack([vec(0), vec(1)]))
    assert s.count_matches("zeta", 30, Filters()) == 2
    assert s.dense_search(vec(0), 1, Filters())[0].chunk.text == "zeta two"  # same id, new text
    assert {h.chunk.text for h in s.bm25_search("zeta", 5, Filters())} == {"zeta two", "zeta three"}


def test_table_of_an_older_version_without_page_columns(tmp_path: Path) -> None:
    """A chunks table made before page_start/page_end/ocr existed is read as it is (pages None, ocr False)
    and gains the columns, null in its old rows, on its first write; export fills them for migrate."""
    import lancedb
    import pyarrow as pa

    from clinqa.store.lancedb import ADDED_COLUMNS, TABLE
    from clinqa.store.schema import chunk_schema

    old = pa.schema([f for f in chunk_schema(DIM) if f.name not in ADDED_COLUMNS])
    row = chunk("g1", 0, "warfarin dosing in atrial fibrillation", year=2014).model_dump(mode="json")
    row = {k: v for k, v in row.items() if k not in ADDED_COLUMNS} | {"vector": vec(0).tolist()}
    lancedb.connect(str(tmp_path / "db")).create_table(TABLE, data=pa.Table.from_pylist([row], schema=old))
    s = LanceStore(tmp_path / "db")
    [c] = s.get_chunks(["g1#s#0"])
    assert (c.page_start, c.page_end, c.ocr, c.year) == (None, None, False, 2014)
    assert s.export(["chunk_id", "page_start", "ocr"], Filters()).to_pylist() == [
        {"chunk_id": "g1#s#0", "page_start": None, "ocr": None}]
    s.replace_documents(["p"], [chunk("p", 0, "apixaban on page five", page_start=5, page_end=5)],
                        np.stack([vec(1)]))
    s.refresh_indexes()
    assert set(ADDED_COLUMNS) <= set(s._table.schema.names)
    got = {c.chunk_id: (c.page_start, c.page_end, c.ocr) for c in s.get_chunks(["g1#s#0", "p#s#0"])}
    assert got == {"g1#s#0": (None, None, False), "p#s#0": (5, 5, False)}
    assert ids(s.bm25_search("warfarin", 5, Filters())) == ["g1#s#0"]
