"""Per-scope BM25 on the LanceDB store (issue 51 item 2): a patient-scoped search ranks BM25 with the
statistics of the reference chunks plus that patient's, a search without a patient with the reference chunks
alone (:mod:`clinqa.store.bm25_index`). The scores and order a scope sees do not move when another patient's
notes are added, equal BM25 computed from scratch over exactly the chunks the scope may see, and follow a
removal at once. ``store.bm25_statistics: table`` keeps LanceDB's full-text ranking (whole-table statistics)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.settings import Settings
from clinqa.store import build_store
from clinqa.store.bm25_index import TERMS_FILE, Bm25Index, TermRows
from clinqa.store.bm25_stats import reference_scores
from clinqa.store.filters import Filters
from clinqa.store.lancedb import LanceStore
from clinqa.store.sparse import stemmed_terms
from tiny_data import SCOPE_LATER, SCOPE_NOTES, SCOPE_QUERY, SCOPE_REFERENCE

REFERENCE = {**SCOPE_REFERENCE, "g4": "Aspirin is not a substitute for anticoagulation in fibrillation."}
NOTES, LATER, QUERY = SCOPE_NOTES, SCOPE_LATER, SCOPE_QUERY


def chunk(doc: str, text: str, patient: str | None = None, year: int | None = None) -> Chunk:
    return Chunk(chunk_id=f"{doc}#s#0", doc_id=doc, text=text, body=text, patient_id=patient, year=year)


def write(store: LanceStore, docs: dict[str, str], patient: str | None = None) -> None:
    cs = [chunk(d, t, patient) for d, t in docs.items()]
    rng = np.random.default_rng(len(docs))
    store.replace_documents(list(docs), cs, rng.normal(size=(len(cs), 8)).astype(np.float32))
    store.refresh_indexes()


def scored(store: LanceStore, patient: str | None, query: str = QUERY) -> list[tuple[str, float]]:
    return [(h.chunk.chunk_id, h.score) for h in store.bm25_search(query, 20, Filters(patient_id=patient))]


def from_scratch(patient: str | None, notes: dict[str, dict[str, str]], query: str = QUERY) -> list[tuple[str, float]]:
    """BM25 over exactly what the scope may see (the reference, plus the patient's notes), for the chunks the
    search itself admits (the patient's notes, or the reference), best first."""
    own = notes.get(patient, {}) if patient is not None else {}
    visible = {**{f"{d}#s#0": t for d, t in REFERENCE.items()}, **{f"{d}#s#0": t for d, t in own.items()}}
    ref = dict(zip(visible, reference_scores(list(visible.values()), query, tokenize=stemmed_terms), strict=True))
    admitted = {f"{d}#s#0" for d in (own if patient is not None else REFERENCE)}
    return sorted(((c, v) for c, v in ref.items() if c in admitted and v > 0), key=lambda x: (-x[1], x[0]))


@pytest.fixture
def store(tmp_path: Path) -> LanceStore:
    s = LanceStore(tmp_path / "db")
    write(s, REFERENCE)
    for p, docs in NOTES.items():
        write(s, docs, p)
    return s


def test_scores_of_a_scope_do_not_move_when_other_patients_notes_are_added(store: LanceStore) -> None:
    before = {p: scored(store, p) for p in (None, "P1", "P2")}
    assert [c for c, _ in before["P1"]] == ["n1#s#0"] and len(before[None]) == 3
    for p, docs in LATER.items():
        write(store, docs, p)
    assert scored(store, None) == before[None]  # exact floats, same order
    assert scored(store, "P1") == before["P1"]
    assert scored(store, "P2") != before["P2"]  # P2's own notes changed: its statistics did
    assert {h.chunk.patient_id for h in store.bm25_search(QUERY, 50, Filters(patient_id="P2"))} == {"P2"}


def test_a_search_without_a_patient_does_not_move_when_notes_are_added(tmp_path: Path) -> None:
    s = LanceStore(tmp_path / "db")
    write(s, REFERENCE)
    before = scored(s, None)
    for p, docs in (NOTES | LATER).items():
        write(s, docs, p)
        assert scored(s, None) == before


def test_scores_equal_bm25_from_scratch_over_the_scope(store: LanceStore) -> None:
    notes = {p: dict(d) for p, d in NOTES.items()}
    for p, docs in LATER.items():
        write(store, docs, p)
        notes.setdefault(p, {}).update(docs)
    for p in (None, "P1", "P2", "P3"):
        got, want = scored(store, p), from_scratch(p, notes)
        assert [c for c, _ in got] == [c for c, _ in want]
        assert [v for _, v in got] == pytest.approx([v for _, v in want], rel=1e-9)
    # by hand, P1's scope: the 4 reference chunks and P1's 2; "renal" is in g2 and n2 (df 2)
    lengths = [len(stemmed_terms(t)) for t in [*REFERENCE.values(), *NOTES["P1"].values()]]
    avgdl = sum(lengths) / 6
    dl = len(stemmed_terms(NOTES["P1"]["n2"]))
    want = math.log(1 + (6 - 2 + 0.5) / (2 + 0.5)) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * dl / avgdl))
    assert scored(store, "P1", "renal")[0] == ("n2#s#0", pytest.approx(want, rel=1e-12))


def test_a_removed_document_stops_counting_at_once(tmp_path: Path) -> None:
    docs = {"a": "warfarin dosing and INR", "b": "warfarin bleeding risk",
            "c": "statins long after myocardial infarction"}
    s, t = LanceStore(tmp_path / "s"), LanceStore(tmp_path / "t")
    write(s, docs)
    write(t, {"a": docs["a"], "c": docs["c"]})
    for q in ("warfarin", "warfarin statins", "INR infarction"):
        s.bm25_search(q, 5, Filters())  # the index of the version before the removal is built and used
    assert s.delete_document("b") == 1
    for q in ("warfarin", "warfarin statins", "INR infarction"):
        got = [(h.chunk.chunk_id, h.score) for h in s.bm25_search(q, 5, Filters())]
        assert got == [(h.chunk.chunk_id, h.score) for h in t.bm25_search(q, 5, Filters())]
        assert got and all(x[1] > y[1] for x, y in itertools.pairwise(got))
    # N = 2, df(warfarin) = 1: ln(1 + 1.5 / 1.5) = ln 2; dl 3 ("and" is a stop word), avgdl (3 + 5) / 2 = 4
    w = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 4))
    assert s.bm25_search("warfarin", 1, Filters())[0].score == pytest.approx(math.log(2) * w, rel=1e-12)
    # a replace that moves a document to a patient takes it out of the reference scope
    write(s, {"c": "statins"}, "P9")
    write(t, {"c": "statins"}, "P9")
    assert scored(s, None, "warfarin statins") == scored(t, None, "warfarin statins")
    assert scored(s, "P9", "warfarin statins") == scored(t, "P9", "warfarin statins")


def test_filters_narrow_the_rows_but_not_the_scope_statistics(tmp_path: Path) -> None:
    """A year bound leaves rows out of the ranking but not out of N, avgdl and df (they are the scope's)."""
    s = LanceStore(tmp_path / "db")
    cs = [chunk(d, t, year=2010 + i) for i, (d, t) in enumerate(REFERENCE.items())]
    s.replace_documents(list(REFERENCE), cs, np.ones((len(cs), 8), np.float32))
    every = dict(scored(s, None))
    late = [(h.chunk.chunk_id, h.score) for h in s.bm25_search(QUERY, 20, Filters(year_min=2011))]
    assert late == [(c, v) for c, v in sorted(every.items(), key=lambda x: -x[1]) if c != "g1#s#0"]


def test_hybrid_lists_and_counts_rank_as_bm25_search(store: LanceStore) -> None:
    for p in (None, "P1"):
        f = Filters(patient_id=p)
        _, bm25, timings = store.hybrid_lists(np.ones(8, np.float32), QUERY, 5, 5, f)
        assert [(h.chunk.chunk_id, h.score, h.rank) for h in bm25] == \
            [(h.chunk.chunk_id, h.score, h.rank) for h in store.bm25_search(QUERY, 5, f)]
        assert set(timings) == {"dense", "bm25", "rows"}
    assert store.count_matches("warfarin", 10, Filters()) == 2  # g1, g2 (g3 and g4 lack it)
    assert store.count_matches("warfarin", 1, Filters()) == 1
    assert store.count_matches("warfarin", 10, Filters(patient_id="P1")) == 1
    assert store.count_matches("the of", 10, Filters()) == 0


def test_the_coverage_count_is_the_bm25_searchs_own_ranking(store: LanceStore) -> None:
    """The count of a word's chunks is taken in one place with the search (issue 48, walk round 6): the length of
    the BM25 ranking of the top ``cap`` (``_bm25_ranked``), no second counting path in the index (``Bm25Index`` has
    ``top_k`` alone)."""
    for q, cap, f in itertools.product(("warfarin", QUERY, "the of", "inr statins"), (1, 2, 10),
                                       (Filters(), Filters(patient_id="P1"), Filters(year_min=2011))):
        assert store.count_matches(q, cap, f) == len(store.bm25_search(q, cap, f))
    assert hasattr(Bm25Index, "top_k") and not hasattr(Bm25Index, "matches")


def test_the_term_file_spares_the_next_process_the_tokenizing(store: LanceStore, tmp_path: Path) -> None:
    assert (tmp_path / "db" / TERMS_FILE).exists()
    again = LanceStore(tmp_path / "db")
    assert scored(again, "P1") == scored(store, "P1")
    assert again.bm25_build["tokenized"] == 0 and again.bm25_build["rows"] == 7
    write(again, LATER["P3"], "P3")  # a new version tokenizes only the new texts
    assert again.bm25_build["tokenized"] == 2
    (tmp_path / "db" / TERMS_FILE).write_bytes(b"not arrow")  # a damaged file is tokenized again
    third = LanceStore(tmp_path / "db")
    assert scored(third, "P1") == scored(store, "P1") and third.bm25_build["tokenized"] == 9


def test_the_table_setting_keeps_lancedbs_whole_table_ranking(tmp_path: Path) -> None:
    old = build_store(Settings(data_dir=tmp_path, store={"bm25_statistics": "table"}))
    assert isinstance(old, LanceStore) and not old.scoped_bm25
    assert build_store(Settings(data_dir=tmp_path)).scoped_bm25  # type: ignore[attr-defined]
    write(old, REFERENCE)
    before = scored(old, None)
    write(old, NOTES["P1"], "P1")
    assert scored(old, None) != before  # the whole table's statistics: the notes move the reference scores
    assert old.bm25_build == {}  # no scoped index is built


def test_index_postings_by_hand() -> None:
    rows = TermRows.tokenize(["a", "b", "c"], ["warfarin warfarin INR", "INR", "statins"])
    idx = Bm25Index(rows, np.array([-1, 0, 1], np.int32))
    assert idx.view(None) == (1, 3) and idx.view(0) == (2, 4) and idx.view(1) == (2, 4) and idx.view(-1) == (1, 3)
    every = np.ones(3, bool)
    pos, _ = idx.top_k("INR", 5, every, 0)
    assert pos.tolist() == [1, 0]  # same idf; the shorter row scores more
    # the reference scope: "statin" is only in patient 1's row (df 0 there), so only the rows holding "inr" match
    # (the coverage count is the length of this ranking, up to its cap: LanceStore.count_matches)
    def matches(query: str, cap: int, patient: int | None) -> int:
        return len(idx.top_k(query, cap, every, patient)[0])

    assert matches("inr statins", 10, None) == 2 and matches("inr statins", 10, 1) == 3
    assert matches("inr statins", 1, 1) == 1 and matches("aspirin", 10, None) == 0
    # a term only another patient holds matches nothing in this scope
    assert idx.top_k("statins", 5, every, 0)[0].tolist() == []
