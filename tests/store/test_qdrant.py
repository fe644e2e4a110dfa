"""Qdrant-specific behaviour beyond the shared contract (tests/store/test_contract.py): the BM25
tokenizer and weights worked out by hand, null/absent patient ids, crash repair, configuration
errors, thread safety of the shared local-mode client, and build_store."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.errors import ConfigError
from clinqa.retrieval.filters import Filters
from clinqa.settings import Settings, StoreSettings
from clinqa.store import LanceStore, build_store
from clinqa.store.filters import to_qdrant
from clinqa.store.qdrant import QdrantStore, point_id
from clinqa.store.sparse import bm25_weights, index_terms, query_weights, s_stem, term_id


def chunk(cid: str, text: str, **kw) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text=text, body=text, **kw)


# -- tokenizer and weights -----------------------------------------------------------------------
def test_index_terms() -> None:
    assert index_terms("Patients' therapies: doses of ACE-inhibitors, diabetes & gas; it's Hepatitis A") == [
        "patient", "therapy", "dose", "ace", "inhibitor", "diabete", "gas", "hepatiti"]
    assert index_terms("?! ... -- ") == [] and index_terms("the and of a") == []
    assert index_terms("INR 2-3, 5mg") == ["inr", "2", "3", "5mg"]


@pytest.mark.parametrize(("word", "stem"), [("statins", "statin"), ("therapies", "therapy"), ("doses", "dose"),
                                            ("virus", "virus"), ("mass", "mass"), ("gas", "gas"),
                                            # "-oes"/"-ees" skip the "-es" rule, then lose the "s"
                                            ("shoes", "shoe"), ("bees", "bee")])
def test_s_stemmer(word: str, stem: str) -> None:
    assert s_stem(word) == stem


def test_term_ids_are_pinned() -> None:
    """Stored sparse vectors depend on these: a change needs a re-index, so it must fail here."""
    assert term_id("warfarin") == 364476812
    assert term_id("apixaban") == 1309451672
    assert term_id("é") == 1111770517
    assert all(0 <= term_id(t) < 2**31 for t in ("a", "zz", "x" * 100))


def test_bm25_weights_by_hand() -> None:
    # dl = 3, avgdl = 2: norm = 1.2 * (0.25 + 0.75 * 3 / 2) = 1.65
    w = bm25_weights(["a", "b", "a"], avgdl=2.0)
    assert w == {term_id("a"): pytest.approx(2 * 2.2 / (2 + 1.65)), term_id("b"): pytest.approx(2.2 / (1 + 1.65))}
    assert bm25_weights([], 2.0) == {}
    with pytest.raises(ValueError):
        bm25_weights(["a"], 0.0)
    assert query_weights("warfarin Warfarin dose?") == {term_id("warfarin"): 1.0, term_id("dose"): 1.0}


def test_bm25_score_equals_the_formula_by_hand() -> None:
    s = QdrantStore(":memory:")
    cs = [chunk("d0#s#0", "warfarin dosing"),  # terms: warfarin, dosing (dl 2)
          chunk("d1#s#0", "statins after MI"),  # statin, after, mi (dl 3)
          chunk("d2#s#0", "warfarin warfarin INR target")]  # warfarin x2, inr, target (dl 4)
    s.replace_documents(["d0", "d1", "d2"], cs, np.eye(4, dtype=np.float32)[:3])
    assert s.avgdl() == pytest.approx(3.0)  # mean of the first write
    hits = s.bm25_search("warfarin", 5, Filters())
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # N = 3 chunks, df = 2
    w0 = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3))
    w2 = 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 4 / 3))
    assert [h.chunk.chunk_id for h in hits] == ["d2#s#0", "d0#s#0"]  # w2 = 1.257 > w0 = 1.158
    assert [h.score for h in hits] == pytest.approx([idf * w2, idf * w0], rel=1e-5)
    # a second word adds its own idf * weight
    two = s.bm25_search("warfarin target", 5, Filters())
    idf_t = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    w2_t = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / 3))
    assert two[0].score == pytest.approx(idf * w2 + idf_t * w2_t, rel=1e-5)
    s.close()


# -- filters -------------------------------------------------------------------------------------
def test_absent_or_null_patient_id_is_no_patient(tmp_path: Path) -> None:
    s = QdrantStore(tmp_path / "q")
    cs = [chunk("g#s#0", "warfarin guideline"), chunk("h#s#0", "warfarin handout"),
          chunk("n#s#0", "warfarin note", patient_id="A"), chunk("e#s#0", "warfarin empty id", patient_id="")]
    s.replace_documents(["g", "h", "n", "e"], cs, np.eye(4, dtype=np.float32))
    # written by another tool: the key is missing altogether
    s._client.delete_payload(s.collection, keys=["patient_id"], points=[point_id("h#s#0")])
    assert "patient_id" not in s._client.retrieve(s.collection, [point_id("h#s#0")])[0].payload
    general = {h.chunk.chunk_id for h in s.bm25_search("warfarin", 10, Filters())}
    assert general == {"g#s#0", "h#s#0"}  # null and absent; not "A", not the empty string
    assert {h.chunk.chunk_id for h in s.dense_search(np.ones(4), 10, Filters())} == general
    assert [h.chunk.chunk_id for h in s.bm25_search("warfarin", 10, Filters(patient_id="A"))] == ["n#s#0"]
    assert [h.chunk.chunk_id for h in s.bm25_search("warfarin", 10, Filters(patient_id=""))] == ["e#s#0"]
    s.close()


def test_filter_translation_shape() -> None:
    f = to_qdrant(Filters(patient_id="A", year_min=2020, sources=("BTS",), doc_ids=("d",)))
    keys = [c.key for c in f.must]  # type: ignore[union-attr]
    assert keys == ["patient_id", "year", "source_lc", "doc_id"]
    assert f.must[2].match.any == ["bts"]  # type: ignore[index,union-attr]
    assert f.must[1].range.gte == 2020 and f.must[1].range.lte is None  # type: ignore[index,union-attr]
    assert f.must_not[0].key == "hierarchy_level"  # type: ignore[index,union-attr]
    assert to_qdrant(Filters(exclude_levels=())).must_not is None
    assert to_qdrant(Filters()).must[0].is_empty.key == "patient_id"  # type: ignore[index,union-attr]


def test_sharded_stale_filter_catches_an_old_copy_under_another_patient() -> None:
    """shard_by_patient needs a server; the per-document delete filter it sends is checked here on
    local mode, with a second point standing in for the old copy in the old patient's shard."""
    from qdrant_client import models as qm

    from clinqa.store.qdrant import _stale_per_document

    s = QdrantStore(":memory:")
    old = [chunk("n#s#0", "moved note", patient_id="B"), chunk("n#s#1", "dropped", patient_id="B"),
           chunk("m#s#0", "other note", patient_id="B")]
    s.replace_documents(["n", "m"], old, np.eye(4, dtype=np.float32)[:3])
    # the note now belongs to patient A. On a cluster n#s#0 would be written to A's shard and B's
    # copy, same id, would stay in B's shard: the B copy stored here plays that old copy
    new = [chunk("n#s#0", "moved note", patient_id="A"), chunk("n#s#9", "moved note 2", patient_id="A")]
    s.upsert_chunks(new[1:], np.eye(4, dtype=np.float32)[:1])
    pts = [qm.PointStruct(id=point_id(c.chunk_id), vector={}) for c in new]
    for f in _stale_per_document(["n"], new, pts):
        s._client.delete(s.collection, qm.FilterSelector(filter=f))
    left = {c.chunk_id: c.patient_id for c in s.get_chunks(["n#s#0", "n#s#1", "n#s#9", "m#s#0"])}
    assert left == {"n#s#9": "A", "m#s#0": "B"}  # B's copies gone, A's kept, other documents untouched
    for f in _stale_per_document(["m"], [], []):  # a document with no new chunks: all of it
        s._client.delete(s.collection, qm.FilterSelector(filter=f))
    assert s.get_chunks(["m#s#0"]) == [] and s.count() == 1
    s.close()


# -- crash repair, configuration, threads --------------------------------------------------------
def test_doc_hashes_flags_a_half_replaced_document() -> None:
    s = QdrantStore(":memory:")
    s.replace_documents(["d"], [chunk("d#s#0", "old text", doc_hash="old"), chunk("d#s#1", "old", doc_hash="old")],
                        np.eye(4, dtype=np.float32)[:2])
    assert s.doc_hashes() == {"d": "old"}
    s.upsert_chunks([chunk("d#s#0", "new text", doc_hash="new")], np.eye(4, dtype=np.float32)[:1])  # no delete
    assert s.doc_hashes() == {"d": ""}  # the next ingest sees a changed document and redoes it
    s.replace_documents(["d"], [chunk("d#s#0", "new text", doc_hash="new")], np.eye(4, dtype=np.float32)[:1])
    assert s.doc_hashes() == {"d": "new"} and s.count() == 1
    s.close()


def test_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="server or cluster"):
        QdrantStore(tmp_path / "q", shard_by_patient=True)
    with pytest.raises(ConfigError, match="exactly one"):
        QdrantStore()
    with pytest.raises(ConfigError, match="exactly one"):
        QdrantStore(tmp_path / "q", url="http://localhost:6333")


def test_folder_locked_by_another_process(tmp_path: Path) -> None:
    import portalocker

    folder = tmp_path / "q"
    folder.mkdir()
    with open(folder / ".lock", "w") as fh:  # what a local-mode client in another process holds
        portalocker.lock(fh, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        with pytest.raises(ConfigError, match="open in another process"):
            QdrantStore(folder)
        portalocker.unlock(fh)


def test_threads_share_the_local_client(tmp_path: Path) -> None:
    a, b = QdrantStore(tmp_path / "q"), QdrantStore(tmp_path / "q")  # one client, one lock
    cs = [chunk(f"d{i}#s#0", f"warfarin note {i}") for i in range(6)]
    a.replace_documents([c.doc_id for c in cs], cs, np.eye(6, dtype=np.float32))
    q = np.arange(6, dtype=np.float32)
    want = [h.chunk.chunk_id for h in b.dense_search(q, 3, Filters())]
    assert want == ["d5#s#0", "d4#s#0", "d3#s#0"]

    def work(i: int) -> list[str]:
        s = a if i % 2 else b
        s.bm25_search("warfarin", 3, Filters())
        return [h.chunk.chunk_id for h in s.dense_search(q, 3, Filters())]

    with ThreadPoolExecutor(4) as pool:
        assert all(r == want for r in pool.map(work, range(40)))
    a.close()
    assert b.count() == 6  # the client stays open while another store uses it
    b.close()


# -- build_store and settings ---------------------------------------------------------------------
def test_open_store_picks_the_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QDRANT_URL", raising=False)
    assert isinstance(build_store(Settings(data_dir=tmp_path)), LanceStore)
    local = build_store(Settings(data_dir=tmp_path, store=StoreSettings(backend="qdrant", collection="c1")))
    assert isinstance(local, QdrantStore) and local.path == tmp_path / "qdrant" and local.collection == "c1"
    local.close()
    monkeypatch.setenv("QDRANT_URL", ":memory:")
    mem = build_store(Settings(data_dir=tmp_path, store=StoreSettings(backend="qdrant")))
    assert isinstance(mem, QdrantStore) and mem.path is None and mem.local
    mem.close()


def test_api_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QDRANT_API_KEY", raising=False)
    assert StoreSettings().resolved_api_key() is None
    monkeypatch.setenv("QDRANT_API_KEY", "from-env")
    assert StoreSettings().resolved_api_key() == "from-env"
    assert StoreSettings(qdrant_api_key="literal").resolved_api_key() == "literal"
    monkeypatch.setenv("MY_QDRANT_KEY", "s3cret")
    assert StoreSettings(qdrant_api_key="env:MY_QDRANT_KEY").resolved_api_key() == "s3cret"
    with pytest.raises(ConfigError, match="NOT_SET_VAR"):
        StoreSettings(qdrant_api_key="env:NOT_SET_VAR").resolved_api_key()
    monkeypatch.setenv("QDRANT_URL", "http://q:6333")
    assert StoreSettings().resolved_url() == "http://q:6333"
    assert StoreSettings(qdrant_url="http://other:6333").resolved_url() == "http://other:6333"
