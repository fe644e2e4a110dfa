"""The in-memory dense index (clinqa.store.dense) against two references: LanceDB's own SQL
filtering of the same rows (the filter semantics of clinqa.retrieval.filters.to_sql) and a NumPy
brute-force cosine top-k."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore

DIM = 8


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[LanceStore, list[Chunk], np.ndarray]:
    """60 chunks with every kind of metadata value, NULLs included, and random vectors."""
    rng = np.random.default_rng(5)
    chunks: list[Chunk] = []
    for i in range(60):
        chunks.append(Chunk(
            chunk_id=f"d{i // 3}#s#{i}", doc_id=f"d{i // 3}", text=f"text {i}", body=f"text {i}",
            patient_id=[None, None, "A", "B", "A'B"][i % 5],
            year=[None, 2019, 2020, 2021, 2023][(i // 2) % 5],
            source=["", "BTS", "bts", "NICE", "Cochrane"][(i // 4) % 5],
            hierarchy_level=["document", "section", "paragraph"][i % 3],
        ))
    vecs = rng.standard_normal((60, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store = LanceStore(tmp_path_factory.mktemp("dense") / "db")
    store.replace_documents(sorted({c.doc_id for c in chunks}), chunks, vecs)
    store.refresh_indexes()
    return store, chunks, vecs


FILTERS = [
    Filters(patient_id=p, year_min=lo, year_max=hi, sources=src, exclude_levels=lv, doc_ids=docs)
    for p, (lo, hi), src, lv, docs in itertools.product(
        [None, "A", "B", "A'B", "nobody"],
        [(None, None), (2020, None), (None, 2020), (2020, 2021)],
        [(), ("bts",), ("NICE", "cochrane"), ("unknown",)],
        [("document",), (), ("document", "section")],
        [(), ("d1", "d2", "d7"), ("missing",)],
    )
]


def test_mask_equals_lancedb_sql(mixed) -> None:
    """For 240 of the 720 filter combinations the index admits exactly the rows LanceDB's WHERE admits."""
    store, _, _ = mixed
    index = store.dense_index()
    assert index is not None and len(index) == 60
    nonempty = 0
    for f in FILTERS[::3]:
        want = set(store.export(["chunk_id"], f).column("chunk_id").to_pylist())
        got = {index.chunk_ids[i] for i in np.flatnonzero(index.mask(f))}
        assert got == want, f
        nonempty += bool(want)
    assert nonempty > 40  # the combinations do select rows, not only empty sets


def test_dense_search_equals_brute_force(mixed) -> None:
    store, chunks, vecs = mixed
    rng = np.random.default_rng(9)
    for f in FILTERS[::7]:
        q = rng.standard_normal(DIM).astype(np.float32)
        allowed = set(store.export(["chunk_id"], f).column("chunk_id").to_pylist())
        admitted = [i for i, c in enumerate(chunks) if c.chunk_id in allowed]
        cos = vecs[admitted] @ (q / np.linalg.norm(q))
        order = [chunks[admitted[j]].chunk_id for j in np.argsort(-cos, kind="stable")[:5]]
        hits = store.dense_search(q, 5, f)
        assert [h.chunk.chunk_id for h in hits] == order
        assert [h.rank for h in hits] == list(range(1, len(order) + 1))
        np.testing.assert_allclose([h.score for h in hits], np.sort(cos)[::-1][:5], atol=1e-5)


def test_index_follows_writes(tmp_path: Path) -> None:
    """A write (here by a second handle, as another process would) is seen by the next search."""
    a, b = LanceStore(tmp_path / "db"), LanceStore(tmp_path / "db")
    e = np.eye(DIM, dtype=np.float32)
    a.replace_documents(["x"], [Chunk(chunk_id="x#0", doc_id="x", text="t", body="t")], e[:1])
    assert [h.chunk.chunk_id for h in b.dense_search(e[0], 3, Filters())] == ["x#0"]
    a.replace_documents(["x"], [Chunk(chunk_id="x#1", doc_id="x", text="u", body="u")], e[1:2])
    hits = b.dense_search(e[0], 3, Filters())
    assert [h.chunk.chunk_id for h in hits] == ["x#1"]
    assert hits[0].score == pytest.approx(0.0, abs=1e-6)
    a.delete_document("x")
    assert b.dense_search(e[0], 3, Filters()) == []


def test_wrong_dimension_is_an_error(mixed) -> None:
    store, _, _ = mixed
    with pytest.raises(ValueError, match="dimensions"):
        store.dense_search(np.ones(DIM + 1, dtype=np.float32), 3, Filters())


def test_cached_gather_gives_the_brute_force_ranking(monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter admitting under 1/8 of the rows (here the overview rows, as the document list asks) takes
    the gathered path; from GATHER_CACHE_MIN_ROWS rows the gather is cached and reused: the second
    search with the same filter must rank exactly as the first and as a brute-force product."""
    import pyarrow as pa

    from clinqa.store import dense as D
    from clinqa.store.schema import chunk_schema

    monkeypatch.setattr(D, "GATHER_CACHE_MIN_ROWS", 3)
    rng = np.random.default_rng(3)
    n = 100
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    levels = ["document" if i % 10 == 0 else "paragraph" for i in range(n)]  # 10 overview rows of 100
    chunks = [Chunk(chunk_id=f"c{i}", doc_id=f"d{i // 10}", text="t", body="t", hierarchy_level=levels[i])
              for i in range(n)]
    rows = [{**c.model_dump(), "vector": v.tolist()} for c, v in zip(chunks, vecs, strict=True)]
    schema = chunk_schema(DIM)
    table = pa.Table.from_pylist([{k: r.get(k) for k in schema.names} for r in rows], schema=schema)
    index = D.DenseIndex(table)
    only_overviews = Filters(exclude_levels=("section", "paragraph", "window", "references"))
    q = rng.standard_normal(DIM).astype(np.float32)
    overview = [i for i in range(n) if levels[i] == "document"]
    cos = (vecs[overview] / np.linalg.norm(vecs[overview], axis=1, keepdims=True)) @ (q / np.linalg.norm(q))
    want = [overview[j] for j in np.argsort(-cos, kind="stable")[:4]]
    first = index.search(q, 4, only_overviews)
    assert list(first[0]) == want and only_overviews in index._gathered
    second = index.search(q, 4, only_overviews)
    assert list(second[0]) == want
    np.testing.assert_allclose(second[1], np.sort(cos)[::-1][:4], atol=1e-5)


def test_one_product_serves_every_list_of_a_question() -> None:
    """The chunk list's product over the whole matrix is kept for its query vector: the document list
    (overview rows only, a filter that alone would gather) and ``scores`` of the same question reuse it,
    and rank exactly as a brute-force product; a new vector gets its own product."""
    import pyarrow as pa

    from clinqa.store import dense as D
    from clinqa.store.schema import chunk_schema

    rng = np.random.default_rng(5)
    n = 80
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    levels = ["document" if i % 8 == 0 else "paragraph" for i in range(n)]
    chunks = [Chunk(chunk_id=f"c{i}", doc_id=f"d{i // 8}", text="t", body="t", hierarchy_level=levels[i])
              for i in range(n)]
    rows = [{**c.model_dump(), "vector": v.tolist()} for c, v in zip(chunks, vecs, strict=True)]
    schema = chunk_schema(DIM)
    index = D.DenseIndex(pa.Table.from_pylist([{k: r.get(k) for k in schema.names} for r in rows], schema=schema))
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    for q in (rng.standard_normal(DIM).astype(np.float32), rng.standard_normal(DIM).astype(np.float32)):
        cos = unit @ (q / np.linalg.norm(q))
        content = [i for i in range(n) if levels[i] != "document"]
        pos, _ = index.search(q, 5, Filters(exclude_levels=("document",)))
        assert list(pos) == [content[j] for j in np.argsort(-cos[content], kind="stable")[:5]]
        assert index._last is not None and index._last[0] == (q / np.linalg.norm(q)).astype(np.float32).tobytes()
        overview = [i for i in range(n) if levels[i] == "document"]
        dpos, dsims = index.search(q, 3, Filters(exclude_levels=("section", "paragraph", "window", "references")))
        assert list(dpos) == [overview[j] for j in np.argsort(-cos[overview], kind="stable")[:3]]
        np.testing.assert_allclose(dsims, np.sort(cos[overview])[::-1][:3], atol=1e-5)
        assert not index._gathered  # the overview rows were not gathered: the product was reused
        got = index.scores(q, ["c1", "c9", "nope"], Filters(exclude_levels=("document",)))
        assert got == pytest.approx({"c1": float(cos[1]), "c9": float(cos[9])}, abs=1e-5)
