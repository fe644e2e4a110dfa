"""The Store contract, run on every backend: LanceDB (embedded), Qdrant local mode, Qdrant's own engine
in the process (qdrant-edge-py: the shard code a server runs, with payload indexes and the sparse IDF),
and a real Qdrant server when ``QDRANT_URL`` is set (skipped otherwise).

The corpus is hand-made (``filter_cases.py``): 8 chunks of 6 documents, three of them patient notes,
with seeded random unit vectors (8-d) so dense rankings can be checked against numpy brute force.
Expected id sets of every filter are written out by hand there, in the table of filter cases that
``test_filter_translations.py`` also runs through the three filter translations.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from filter_cases import CHUNKS, FILTER_CASES, ID, chunk

from clinqa.store import LanceStore, Store
from clinqa.store.filters import Filters

DIM = 8
DRIVER = Path(__file__).with_name("store_driver.py")
RNG = np.random.default_rng(7)


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


VECS = np.stack([unit(RNG.normal(size=DIM)) for _ in CHUNKS])


def _qdrant_local(tmp_path: Path):
    from clinqa.store.qdrant import QdrantStore

    return QdrantStore(tmp_path / "qdrant")


BACKENDS = ["lancedb", "qdrant-local", "qdrant-edge", "qdrant-server"]


def _open(backend: str, tmp_path: Path) -> Iterator[Store]:
    """An empty store of ``backend`` (closed/dropped afterwards)."""
    if backend == "lancedb":
        yield LanceStore(tmp_path / "lancedb")
        return
    if backend == "qdrant-edge":
        from clinqa.store.qdrant_edge import EdgeStore

        e = EdgeStore(tmp_path / "qdrant-edge")
        yield e
        e.close()
        return
    from clinqa.store.qdrant import QdrantStore

    if backend == "qdrant-local":
        s = QdrantStore(tmp_path / "qdrant")
        yield s
        s.close()
        return
    url = os.environ.get("QDRANT_URL")
    if not url:
        pytest.skip("QDRANT_URL is not set: no Qdrant server to test against")
    s = QdrantStore(url=url, api_key=os.environ.get("QDRANT_API_KEY"), collection=f"clinqa_test_{uuid.uuid4().hex}")
    yield s
    s.drop()
    s.close()


def _fill(s: Store) -> Store:
    s.replace_documents(sorted({c.doc_id for c in CHUNKS}), CHUNKS, VECS)
    s.refresh_indexes()
    return s


@pytest.fixture(params=BACKENDS)
def empty(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store of each backend."""
    yield from _open(request.param, tmp_path)


@pytest.fixture()
def store(empty: Store) -> Store:
    """The hand-made corpus in a fresh store of each backend (for tests that write)."""
    return _fill(empty)


@pytest.fixture(scope="module", params=BACKENDS)
def ro_store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The hand-made corpus, shared by the read-only tests of a module (keeps the suite fast)."""
    for s in _open(request.param, tmp_path_factory.mktemp(request.param)):
        yield _fill(s)


def ids(hits) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def brute_force(q: np.ndarray, allowed: set[str], k: int) -> list[tuple[str, float]]:
    """Exact cosine top-k among ``allowed`` by numpy."""
    qn = q / np.linalg.norm(q)
    scored = sorted(((cid, float(VECS[ID[cid]] @ qn)) for cid in allowed), key=lambda x: -x[1])
    return scored[:k]


# -- empty store ---------------------------------------------------------------------------------
def test_empty_store(empty: Store) -> None:
    assert empty.sync() is False
    assert empty.count() == 0 and empty.dim is None and empty.version() == 0
    assert empty.dense_search(VECS[0], 5, Filters()) == []
    assert empty.bm25_search("warfarin", 5, Filters()) == []
    assert empty.get_chunks(["g1#s#1"]) == []
    assert empty.doc_hashes() == {} and empty.documents() == [] and empty.level_counts() == {}
    assert empty.sample_texts(3) == []
    assert empty.export(["chunk_id"], Filters()).num_rows == 0
    assert empty.delete_document("g1") == 0
    empty.replace_documents(["g1"], [], np.zeros((0, DIM), dtype=np.float32))  # nothing to store: no table
    assert empty.count() == 0 and empty.version() == 0 and empty.sync() is False


# -- writes --------------------------------------------------------------------------------------
def test_counts_documents_and_hashes(ro_store: Store) -> None:
    assert ro_store.sync() is True and ro_store.dim == DIM
    assert ro_store.count() == 8
    assert ro_store.level_counts() == {"document": 1, "section": 6, "paragraph": 1}
    assert ro_store.doc_hashes() == {"g1": "h-g1", "g2": "h-g2", "g3": "h-g3", "nA": "h-nA", "nB": "h-nB",
                                  "nO": "h-nO"}
    docs = ro_store.documents()
    assert [d["doc_id"] for d in docs] == ["g1", "g2", "g3", "nA", "nB", "nO"]
    assert docs[0] == {"doc_id": "g1", "title": "G1", "year": 2014, "source": "BTS", "patient_id": None, "chunks": 2,
                       "path": "", "format": "", "source_from": "", "ingested_at": ""}  # DOCUMENT_EXTRAS unset
    assert docs[2]["year"] is None and docs[3]["patient_id"] == "A" and docs[3]["chunks"] == 2


def test_get_chunks_in_asked_order_unknown_skipped(ro_store: Store) -> None:
    got = ro_store.get_chunks(["nB#s#0", "nope#s#0", "g1#document#0", "g2#s#0"])
    assert [c.chunk_id for c in got] == ["nB#s#0", "g1#document#0", "g2#s#0"]
    assert got[0] == CHUNKS[ID["nB#s#0"]]  # every field round-trips (note_date, patient_id, ...)
    assert got[1].hierarchy_level == "document" and got[1].year == 2014
    assert ro_store.get_chunks([]) == []


def test_replace_documents_replaces_only_those_documents(store: Store) -> None:
    before = {c.chunk_id: c for c in store.get_chunks(list(ID))}
    new = [chunk("g1#s#5", "edoxaban replaces the old guideline evidence", year=2015, source="BTS"),
           chunk("g1#s#1", "warfarin dosing revised evidence", year=2015, source="BTS")]
    store.replace_documents(["g1"], new, np.stack([VECS[0], VECS[1]]))
    assert store.count() == 8 - 2 + 2
    assert [c.chunk_id for c in store.get_chunks(["g1#document#0", "g1#s#1", "g1#s#5"])] == ["g1#s#1", "g1#s#5"]
    assert store.get_chunks(["g1#s#1"])[0].text == "warfarin dosing revised evidence"
    for cid in ("g2#s#0", "g3#p#0", "nA#s#0", "nA#s#1", "nB#s#0", "nO#s#0"):  # other documents untouched
        assert store.get_chunks([cid]) == [before[cid]]
    assert ids(store.bm25_search("edoxaban", 5, Filters())) == ["g1#s#5"]
    assert ids(store.bm25_search("overview", 5, Filters(exclude_levels=()))) == []
    assert store.doc_hashes()["g1"] == "h-g1"
    # replacing a document by no chunks removes it
    store.replace_documents(["g3"], [], np.zeros((0, DIM), dtype=np.float32))
    assert "g3" not in store.doc_hashes() and store.count() == 7


def test_replace_checks_lengths(store: Store) -> None:
    with pytest.raises(ValueError):
        store.replace_documents(["g2"], [CHUNKS[2]], np.stack([VECS[2], VECS[3]]))


def test_delete_document_returns_count(store: Store) -> None:
    assert store.delete_document("nA") == 2
    assert store.delete_document("nA") == 0
    assert store.delete_document("unknown") == 0
    assert store.count() == 6
    assert ids(store.bm25_search("colchicine", 5, Filters(patient_id="A"))) == []


def test_version_grows_with_every_write(store: Store) -> None:
    v1 = store.version()
    assert v1 > 0
    store.replace_documents(["g2"], [CHUNKS[2]], VECS[2:3])
    v2 = store.version()
    assert v2 > v1
    assert store.delete_document("g2") == 1
    v3 = store.version()
    assert v3 > v2
    assert store.delete_document("g2") == 0
    assert store.version() == v3  # nothing written


# -- filters -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_every_filter_field_alone_and_combined(ro_store: Store, filters: Filters, expected: set[str]) -> None:
    assert set(ids(ro_store.dense_search(VECS[0], 50, filters))) == expected
    assert set(ids(ro_store.bm25_search("evidence", 50, filters))) == expected  # a word every chunk has
    assert set(ro_store.export(["chunk_id"], filters).column("chunk_id").to_pylist()) == expected


def test_patient_isolation(ro_store: Store) -> None:
    b_vec = VECS[ID["nB#s#0"]]
    # B's own chunk is the nearest neighbour of its vector, yet A and the general scope never see it
    assert ids(ro_store.dense_search(b_vec, 1, Filters(patient_id="B"))) == ["nB#s#0"]
    assert set(ids(ro_store.dense_search(b_vec, 10, Filters(patient_id="A")))) == {"nA#s#0", "nA#s#1"}
    assert "nB#s#0" not in ids(ro_store.dense_search(b_vec, 10, Filters(exclude_levels=())))
    assert ids(ro_store.bm25_search("twice", 5, Filters(patient_id="B"))) == ["nB#s#0"]
    assert ids(ro_store.bm25_search("twice", 5, Filters(patient_id="A"))) == []
    assert ids(ro_store.bm25_search("twice", 5, Filters())) == []  # no patient: no notes at all
    assert ids(ro_store.bm25_search("colchicine", 5, Filters(patient_id="B"))) == []
    assert ids(ro_store.bm25_search("metformin", 5, Filters(patient_id="O'Brien"))) == ["nO#s#0"]
    assert ids(ro_store.bm25_search("metformin", 5, Filters(patient_id="A"))) == []
    # "patient" occurs only in notes: the general scope matches on "warfarin" alone
    assert set(ids(ro_store.bm25_search("patient warfarin", 5, Filters()))) == {"g1#s#1", "g3#p#0"}


# -- dense ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [0, 1, 4, 11, 16, 20])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_dense_is_exact_under_filters(ro_store: Store, case: int, k: int) -> None:
    filters, allowed = FILTER_CASES[case]
    for q in (VECS[3] + 0.3 * VECS[5], np.random.default_rng(case * 10 + k).normal(size=DIM).astype(np.float32)):
        hits = ro_store.dense_search(q, k, filters)
        want = brute_force(q, allowed, k)
        assert ids(hits) == [cid for cid, _ in want]
        assert [h.score for h in hits] == pytest.approx([s for _, s in want], abs=1e-5)
        assert [h.rank for h in hits] == list(range(1, len(want) + 1))
        assert all(h.kind == "cosine" for h in hits)


# -- BM25 ----------------------------------------------------------------------------------------
def test_bm25_rare_term_ranks_first(ro_store: Store) -> None:
    hits = ro_store.bm25_search("apixaban warfarin", 10, Filters())
    # g3 holds both words, g1#s#1 only warfarin (which is in 5 of 8 chunks, apixaban in 1)
    assert ids(hits) == ["g3#p#0", "g1#s#1"]
    assert hits[0].score > hits[1].score > 0
    assert [h.rank for h in hits] == [1, 2] and all(h.kind == "bm25" for h in hits)
    assert ids(ro_store.bm25_search("Colchicine?", 10, Filters(patient_id="A")))[0] == "nA#s#1"
    assert ids(ro_store.bm25_search("STATIN", 3, Filters())) == ["g2#s#0"]  # case-insensitive


def test_bm25_matches_only_chunks_with_a_query_word(ro_store: Store) -> None:
    assert set(ids(ro_store.bm25_search("warfarin", 10, Filters(exclude_levels=())))) == \
        {"g1#document#0", "g1#s#1", "g3#p#0"}
    assert ro_store.bm25_search("zzzunknownword", 5, Filters()) == []


def test_punctuation_only_query(ro_store: Store) -> None:
    assert ro_store.bm25_search("?!", 5, Filters()) == []
    assert ro_store.bm25_search("...", 5, Filters(patient_id="A")) == []
    assert ids(ro_store.bm25_search("statin's therapy?", 5, Filters()))[0] == "g2#s#0"


# -- bulk reads ----------------------------------------------------------------------------------
def test_page_range_and_ocr_flag_round_trip(store: Store) -> None:
    """page_start/page_end/ocr are stored and come back from every read path; absent ones stay None/False."""
    paged = chunk("p1#s#0", "scanned page about dabigatran reversal", page_start=3, page_end=4, ocr=True)
    store.replace_documents(["p1"], [paged], VECS[:1])
    store.refresh_indexes()
    [got] = store.get_chunks(["p1#s#0"])
    assert (got.page_start, got.page_end, got.ocr) == (3, 4, True)
    [hit] = store.bm25_search("dabigatran", 1, Filters())
    assert (hit.chunk.page_start, hit.chunk.page_end, hit.chunk.ocr) == (3, 4, True)
    top = store.dense_search(VECS[0], 1, Filters(doc_ids=("p1",)))
    assert (top[0].chunk.page_start, top[0].chunk.page_end) == (3, 4)
    [plain] = store.get_chunks(["g2#s#0"])
    assert (plain.page_start, plain.page_end, plain.ocr) == (None, None, False)
    t = store.export(["chunk_id", "page_start", "page_end", "ocr"], Filters(doc_ids=("p1", "g2")))
    assert sorted(t.to_pylist(), key=lambda r: r["chunk_id"]) == [
        {"chunk_id": "g2#s#0", "page_start": None, "page_end": None, "ocr": False},
        {"chunk_id": "p1#s#0", "page_start": 3, "page_end": 4, "ocr": True},
    ]


def test_export_columns_and_types(ro_store: Store) -> None:
    t = ro_store.export(["chunk_id", "doc_id", "year", "patient_id", "vector"], Filters(patient_id="A"))
    assert t.column_names == ["chunk_id", "doc_id", "year", "patient_id", "vector"]
    assert t.schema.field("vector").type == pa.list_(pa.float32(), DIM)
    assert t.schema.field("year").type == pa.int32()
    rows = sorted(t.to_pylist(), key=lambda r: r["chunk_id"])
    assert [r["chunk_id"] for r in rows] == ["nA#s#0", "nA#s#1"]
    assert all(r["doc_id"] == "nA" and r["year"] == 2023 and r["patient_id"] == "A" for r in rows)
    for r in rows:  # unit vectors come back as stored
        assert np.allclose(r["vector"], VECS[ID[r["chunk_id"]]], atol=1e-6)
    with pytest.raises(Exception):  # noqa: B017 - each backend raises its own error type
        ro_store.export(["no_such_column"], Filters())


def test_sample_texts_first_by_chunk_id(ro_store: Store) -> None:
    # non-overview chunk ids sorted: g1#s#1, g2#s#0, g3#p#0, nA#s#0, ...
    assert ro_store.sample_texts(2) == [CHUNKS[1].text, CHUNKS[2].text]
    assert ro_store.sample_texts(1, exclude_levels=()) == [CHUNKS[0].text]  # "g1#document#0" < "g1#s#1"


def test_a_second_store_on_the_same_location_sees_writes(store: Store, tmp_path: Path) -> None:
    """A second store object on the same location, in this process, sees the first one's writes (LanceDB,
    a server: a second handle; local mode and Edge: the same client or shard, shared in the process)."""
    if isinstance(store, LanceStore):
        other: Store = LanceStore(store.path)
    elif _is_edge(store):
        from clinqa.store.qdrant_edge import EdgeStore

        other = EdgeStore(store.path)  # type: ignore[attr-defined]
    else:
        from clinqa.store.qdrant import QdrantStore

        assert isinstance(store, QdrantStore)
        other = QdrantStore(store.path, collection=store.collection) if store.local else \
            QdrantStore(url=store.url, api_key=os.environ.get("QDRANT_API_KEY"), collection=store.collection)
    assert other.count() == 8
    store.replace_documents(["g4"], [chunk("g4#s#0", "tenecteplase in stroke evidence", year=2024)], VECS[:1])
    assert ids(other.bm25_search("tenecteplase", 5, Filters())) == ["g4#s#0"]
    assert other.count() == 9 and other.version() == store.version()
    if not isinstance(other, LanceStore):
        other.close()  # type: ignore[attr-defined]


def _is_edge(store: Store) -> bool:
    return type(store).__name__ == "EdgeStore"


def _location(store: Store) -> tuple[str, Path] | None:
    """``(backend, path)`` for a second process, ``None`` for a server store (tests that need one skip)."""
    if isinstance(store, LanceStore):
        return "lancedb", store.path
    if _is_edge(store):
        return "qdrant-edge", store.path  # type: ignore[attr-defined]
    if getattr(store, "local", False) and getattr(store, "path", None) is not None:
        return "qdrant-local", store.path  # type: ignore[attr-defined]
    return None


def _release(store: Store) -> None:
    """Let another process open the store's folder (local mode and Edge are held by one process)."""
    if not isinstance(store, LanceStore):
        store.close()  # type: ignore[attr-defined]


def _driver(backend: str, path: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(DRIVER), backend, str(path), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_persists_after_a_restart(store: Store) -> None:
    """What one process wrote, a new process reads: chunks, hashes, the BM25 index, the version."""
    where = _location(store)
    if where is None:
        pytest.skip("a server persists by itself; nothing to restart here")
    want = {"count": 8, "hashes": store.doc_hashes(), "version": store.version(), "bm25": ["g3#p#0"], "dim": DIM}
    _release(store)
    out, err = _driver(*where, "read").communicate(timeout=120)
    assert json.loads(out) == want, err


def _snapshot(store: Store) -> dict:
    t = store.export(["chunk_id", "doc_hash", "text", "vector"], Filters(exclude_levels=(), patient_id=None))
    notes = store.export(["chunk_id", "doc_hash", "text", "vector"], Filters(exclude_levels=(), patient_id="A"))
    rows = sorted(t.to_pylist() + notes.to_pylist(), key=lambda r: r["chunk_id"])
    return {"count": store.count(), "hashes": store.doc_hashes(), "version": store.version(),
            "rows": [(r["chunk_id"], r["doc_hash"], r["text"], np.round(r["vector"], 5).tolist()) for r in rows],
            "bm25": ids(store.bm25_search("warfarin", 10, Filters(exclude_levels=())))}


def test_a_failed_batch_leaves_the_store_as_it_was(store: Store) -> None:
    """A batch the store rejects writes nothing: not its first documents, not a version, not an index
    entry. Rejected: vectors of another width, a NaN in the last vector of a two-document batch,
    fewer vectors than chunks."""
    before = _snapshot(store)
    new = [chunk("g1#s#1", "warfarin changed text newword evidence", year=2014, source="BTS", title="G1"),
           chunk("g5#s#0", "brand new guideline newword evidence", year=2025)]
    bad_width = np.ones((2, DIM + 1), dtype=np.float32)
    nan_last = np.stack([VECS[0], VECS[1]])
    nan_last[1, 3] = np.nan
    for vectors in (bad_width, nan_last, VECS[:1]):
        with pytest.raises(ValueError):
            store.replace_documents(["g1", "g5"], new, vectors)
        assert _snapshot(store) == before
        assert store.bm25_search("newword", 5, Filters()) == []
    store.replace_documents(["g1", "g5"], new, np.stack([VECS[0], VECS[1]]))  # the same batch, well formed
    assert store.count() == 8 - 2 + 2 and ids(store.bm25_search("newword", 5, Filters())) != []


def _complete(state: Store, n_docs: int) -> dict[str, str]:
    """The documents ``state`` calls done (a hash, not ``""``), each checked whole: its chunk set and texts
    are those of the driver's document."""
    import store_driver

    done = {d: h for d, h in state.doc_hashes().items() if h}
    for d, h in done.items():
        i = int(d[1:])
        chunks, _ = store_driver.document(i)
        assert h == chunks[0].doc_hash
        got = state.get_chunks([c.chunk_id for c in chunks] + [f"{d}#s#{j}" for j in range(len(chunks), 8)])
        assert [c.text for c in got] == [c.text for c in chunks], d
    assert all(0 <= int(d[1:]) < n_docs for d in state.doc_hashes())
    return done


def test_sigkill_during_ingest_then_resume(empty: Store) -> None:
    """A store-level ingest (``store_driver.py``: one document per write, skipping documents whose stored
    hash is their own, as ``clinqa ingest`` does) is killed with SIGKILL twice while it writes; after each
    kill the store opens and every document it calls done is whole; a resumed run finishes the rest
    without rewriting those, and the store then holds exactly every document, searchable."""
    import store_driver

    where = _location(empty)
    if where is None:
        pytest.skip("a server outlives the client: nothing of the store dies with the process")
    _release(empty)
    n_docs = 40
    reopen = lambda: store_driver.open_store(where[0], where[1])  # noqa: E731
    done_before = 0
    for kill_after, delay in ((6, 0.0), (12, 0.004)):
        proc = _driver(*where, "ingest", str(n_docs))
        assert proc.stdout is not None
        for _ in range(kill_after):  # the child is writing the next document when it is killed
            assert proc.stdout.readline().startswith("wrote")
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        state = reopen()
        done = _complete(state, n_docs)
        assert len(done) >= done_before + kill_after
        done_before = len(done)
        _release(state)
    out, err = _driver(*where, "ingest", str(n_docs)).communicate(timeout=300)
    written, skipped = map(int, out.split("\n")[-2].split()[1:])
    assert (written + skipped, skipped) == (n_docs, done_before), err
    final = reopen()
    assert _complete(final, n_docs).keys() == {f"d{i:03d}" for i in range(n_docs)}
    assert final.count() == sum(3 + i % 4 for i in range(n_docs))
    for i in (0, 7, n_docs - 1):
        assert ids(final.bm25_search(f"rareword{i}", 3, Filters()))[:1] == [f"d{i:03d}#s#{2 + i % 4}"]
    _release(final)


# -- the methods with defaults in the protocol ----------------------------------------------------
def test_stale_indexes_count_matches_drop_caches(store: Store) -> None:
    """Every store answers the three methods the protocol gives defaults (no getattr in callers)."""
    assert store.stale_indexes() is False  # _fill refreshed the indexes
    # "warfarin": g1#s#1, g3#p#0 in the general scope; with the overview g1#document#0 too; A: nA#s#0
    assert store.count_matches("warfarin", 30, Filters()) == 2
    assert store.count_matches("warfarin", 30, Filters(exclude_levels=())) == 3
    assert store.count_matches("warfarin", 1, Filters(exclude_levels=())) == 1  # counted up to cap
    assert store.count_matches("warfarin", 30, Filters(patient_id="A")) == 1
    assert store.count_matches("metformin", 30, Filters(patient_id="A")) == 0  # O'Brien's word, not A's
    assert store.count_matches("?!", 30, Filters()) == 0
    store.drop_caches()
    assert store.count_matches("warfarin", 30, Filters()) == 2
    assert ids(store.bm25_search("metformin", 5, Filters(patient_id="O'Brien"))) == ["nO#s#0"]


# -- Unicode variants (issue 16, part 5) ----------------------------------------------------------
def test_unicode_variants_of_a_word_match(empty: Store) -> None:
    """A query typed with a ligature or a Greek mu finds the chunks that spell the word in ASCII or
    with the micro sign, and the other way round: chunk text (built by ``make_chunk``, as ingest
    does) and queries go through the same normaliser."""
    from clinqa.chunking.base import make_chunk
    from clinqa.documents.model import Document

    bodies = {"u1": "Atrial fibrillation needs anticoagulation.",
              "u2": "A creatinine of 120 \u00b5mol/L is raised.",  # micro sign
              "u3": "Atrial \ufb02utter is treated like \ufb01brillation."}  # ligatures fl, fi
    chunks = [make_chunk(Document(doc_id=d, title=d), body=b, section_path=["S"], index=0, level="section",
                         counter=None, doc_hash=f"h-{d}") for d, b in bodies.items()]
    empty.replace_documents(list(bodies), chunks, np.stack([unit(RNG.normal(size=DIM)) for _ in chunks]))
    empty.refresh_indexes()
    assert set(ids(empty.bm25_search("fibrillation", 5, Filters()))) == {"u1#s#0", "u3#s#0"}
    assert set(ids(empty.bm25_search("\ufb01brillation", 5, Filters()))) == {"u1#s#0", "u3#s#0"}
    assert ids(empty.bm25_search("flutter", 5, Filters())) == ["u3#s#0"]
    assert ids(empty.bm25_search("\u03bcmol", 5, Filters())) == ["u2#s#0"]  # Greek mu
    assert ids(empty.bm25_search("\u00b5mol", 5, Filters())) == ["u2#s#0"]  # micro sign


@pytest.mark.parametrize("case", [0, 1, 4, 11, 16, 20])
def test_dense_search_docs_are_the_documents_of_dense_search(ro_store: Store, case: int) -> None:
    """The document list reads doc ids without the rows: the same top-k, in the same order, same cosines."""
    filters, _ = FILTER_CASES[case]
    q = VECS[3] + 0.3 * VECS[5]
    hits = ro_store.dense_search(q, 3, filters)
    docs = ro_store.dense_search_docs(q, 3, filters)
    assert [d for d, _ in docs] == [h.chunk.doc_id for h in hits]
    assert [s for _, s in docs] == pytest.approx([h.score for h in hits], abs=1e-6)
    b_vec = VECS[ID["nB#s#0"]]  # B's note is never a document of A's or of the general scope
    assert [d for d, _ in ro_store.dense_search_docs(b_vec, 10, Filters(patient_id="A"))] == \
        [h.chunk.doc_id for h in ro_store.dense_search(b_vec, 10, Filters(patient_id="A"))]
    assert all(d == "nB" for d, _ in ro_store.dense_search_docs(b_vec, 10, Filters(patient_id="B")))


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_dense_scores_are_the_cosines_of_the_admitted_chunks(ro_store: Store, filters: Filters,
                                                             expected: set[str]) -> None:
    """``dense_scores`` gives the exact cosine (numpy, by hand) of every listed chunk the filters admit, and
    nothing for the others: a patient's note is never scored for another scope, unknown ids are left out."""
    q = VECS[2] - 0.5 * VECS[6]
    asked = [c.chunk_id for c in CHUNKS] + ["no-such-chunk"]
    got = ro_store.dense_scores(q, asked, filters)
    assert set(got) == expected
    want = dict(brute_force(q, expected, len(expected)))
    assert got == pytest.approx(want, abs=1e-5)
    assert ro_store.dense_scores(q, [], filters) == {}


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_hybrid_lists_are_the_two_searches(ro_store: Store, filters: Filters, expected: set[str]) -> None:
    """``hybrid_lists`` (LanceDB: both rankings first, one take of rows) returns exactly what
    ``dense_search`` and ``bm25_search`` return under the same filters, never a chunk the filters refuse."""
    q = VECS[1] + 0.4 * VECS[4]
    ro_store.drop_caches()
    dense, bm25, ms = ro_store.hybrid_lists(q, "warfarin metformin", 4, 4, filters)
    want_d, want_b = ro_store.dense_search(q, 4, filters), ro_store.bm25_search("warfarin metformin", 4, filters)
    assert [(h.chunk.chunk_id, h.rank, h.kind) for h in dense] == [(h.chunk.chunk_id, h.rank, h.kind) for h in want_d]
    assert [h.score for h in dense] == pytest.approx([h.score for h in want_d], abs=1e-6)
    assert [(h.chunk.chunk_id, h.rank) for h in bm25] == [(h.chunk.chunk_id, h.rank) for h in want_b]
    assert [h.chunk.body for h in dense + bm25] == [h.chunk.body for h in want_d + want_b]
    assert {h.chunk.chunk_id for h in dense + bm25} <= expected
    assert {"dense", "bm25"} <= set(ms)
