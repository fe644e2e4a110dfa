"""Per-scope BM25 statistics (issue 51 items 2 and 6) on the Qdrant layout (Qdrant Edge, and qdrant-client's
local mode, which runs the server transport's code): a patient-scoped search ranks with the statistics of
the reference chunks plus that patient's; a search without a patient with the reference chunks alone. The
scores and order a scope sees do not move when another patient's notes are added, and equal BM25 computed
from scratch over exactly the chunks the scope may see. A removed document stops counting at once."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.store.bm25_stats import Bm25Stats, reference_scores, scope_key
from clinqa.store.filters import Filters
from tiny_data import SCOPE_LATER, SCOPE_NOTES, SCOPE_QUERY, SCOPE_REFERENCE

qe = pytest.importorskip("qdrant_edge", reason="qdrant-edge-py is not installed (pip install 'clinqa[qdrant]')")
from clinqa.store.qdrant import QdrantStore  # noqa: E402
from clinqa.store.qdrant_edge import EdgeStore  # noqa: E402

REFERENCE, NOTES, LATER, QUERY = SCOPE_REFERENCE, SCOPE_NOTES, SCOPE_LATER, SCOPE_QUERY


def chunk(doc: str, text: str, patient: str | None = None) -> Chunk:
    return Chunk(chunk_id=f"{doc}#s#0", doc_id=doc, text=text, body=text, patient_id=patient)


def write(store, docs: dict[str, str], patient: str | None = None) -> None:
    cs = [chunk(d, t, patient) for d, t in docs.items()]
    rng = np.random.default_rng(len(docs))
    store.replace_documents(list(docs), cs, rng.normal(size=(len(cs), 8)).astype(np.float32))


Factory = Callable[[Path, float], object]


def edge(path: Path, avgdl: float) -> EdgeStore:
    return EdgeStore(path / "edge", avgdl=avgdl)


def local(path: Path, avgdl: float) -> QdrantStore:
    return QdrantStore(path / "qdrant", avgdl=avgdl)


@pytest.fixture(params=[edge, local], ids=["qdrant-edge", "qdrant-local"])
def make(request, tmp_path: Path) -> Iterator[Callable[[float], object]]:
    opened = []

    def factory(avgdl: float = 7.0, sub: str = "a"):
        s = request.param(tmp_path / sub, avgdl)
        opened.append(s)
        return s

    yield factory
    for s in opened:
        s.close()


def scored(store, patient: str | None) -> list[tuple[str, float]]:
    return [(h.chunk.chunk_id, h.score) for h in store.bm25_search(QUERY, 20, Filters(patient_id=patient))]


def test_scores_of_a_scope_do_not_move_when_other_patients_notes_are_added(make) -> None:
    s = make(7.0)
    write(s, REFERENCE)
    for p, docs in NOTES.items():
        write(s, docs, p)
    before = {p: scored(s, p) for p in (None, "P1", "P2")}
    assert [c for c, _ in before[None]] and [c for c, _ in before["P1"]] == ["n1#s#0"]
    for p, docs in LATER.items():
        write(s, docs, p)
    assert scored(s, None) == before[None]  # exact floats, same order
    assert scored(s, "P1") == before["P1"]
    assert scored(s, "P2") != before["P2"]  # P2's own notes changed: its statistics did
    # each equals BM25 from scratch over what the scope may see (avgdl: the store's, fixed at creation)
    for p, docs in ({None: {}, **NOTES} | {"P2": NOTES["P2"] | LATER["P2"]}).items():
        visible = {**{f"{d}#s#0": t for d, t in REFERENCE.items()}, **{f"{d}#s#0": t for d, t in docs.items()}}
        ref = dict(zip(visible, reference_scores(list(visible.values()), QUERY, avgdl=7.0), strict=True))
        own = {c for c in visible if c[0] == ("g" if p is None else "n")}  # what the search itself admits
        want = sorted(((c, v) for c, v in ref.items() if c in own and v > 0), key=lambda x: -x[1])
        got = scored(s, p)
        assert [c for c, _ in got] == [c for c, _ in want]
        assert [v for _, v in got] == pytest.approx([v for _, v in want], rel=1e-6)


def test_a_removed_document_stops_counting_at_once(make) -> None:
    """Issue 51 item 6: ingest A, B, C; remove B; the scores equal those of a store that only held A and C."""
    docs = {"a": "warfarin dosing and INR", "b": "warfarin bleeding risk",
            "c": "statins long after myocardial infarction"}
    s = make(4.0, "x")
    write(s, docs)
    assert s.delete_document("b") == 1
    t = make(4.0, "y")
    write(t, {"a": docs["a"], "c": docs["c"]})
    for q in ("warfarin", "warfarin statins", "INR infarction"):
        got = [(h.chunk.chunk_id, h.score) for h in s.bm25_search(q, 5, Filters())]
        assert got == [(h.chunk.chunk_id, h.score) for h in t.bm25_search(q, 5, Filters())]
        assert got and all(x[1] > y[1] for x, y in itertools.pairwise(got))  # no ties: the order is the scores'

    # N = 2, df(warfarin) = 1: ln(1 + 1.5 / 1.5) = ln 2
    w = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 4))
    assert s.bm25_search("warfarin", 1, Filters())[0].score == pytest.approx(math.log(2) * w, rel=1e-6)
    # a replace that drops a chunk and moves a note to another patient is counted too
    write(s, {"c": "statins"}, "P9")
    assert s.bm25_stats(None).scope(None).n == 1 and s.bm25_stats("P9").scope("P9").n == 1


def test_stats_combine_the_reference_with_one_patient() -> None:
    st = Bm25Stats()
    st.add([(None, "warfarin INR"), (None, "statins"), ("P1", "warfarin warfarin"), ("P2", "warfarin")])
    assert (st.scope(None).n, st.scope(None).total) == (2, 3)
    assert st.view(None) == (2, 3) and st.view("P1") == (3, 5) and st.view("P9") == (2, 3)
    from clinqa.store.sparse import term_id

    w, s = term_id("warfarin"), term_id("statin")
    assert st.idf([w, s], None) == {w: math.log(1 + 1.5 / 1.5), s: math.log(1 + 1.5 / 1.5)}
    assert st.idf([w], "P1") == {w: math.log(1 + 1.5 / 2.5)}  # N = 3, df = 2: P2's note is not counted
    assert st.idf([term_id("aspirin")], "P1") == {}
    st.remove([("P1", "warfarin warfarin")])
    assert st.scope("P1").n == 0 and w not in st.scope("P1").df
    assert set(st.changed()) == {scope_key(None), "p:P1", "p:P2"} and st.changed() == {}
    assert Bm25Stats.from_records(st.to_records()).scope("P2").df == st.scope("P2").df
