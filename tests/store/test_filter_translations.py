"""Every case of the one filter table (``filter_cases.py``) through the three translations of
:mod:`clinqa.store.filters` on real stores holding the same 8 chunks:

- :func:`to_sql` as the ``WHERE`` of a scan of the LanceDB table the LanceDB store wrote;
- :func:`to_mask` over :class:`FilterColumns` coded from that table's own columns (nulls as stored),
  and through the LanceDB store's in-memory dense index;
- :func:`to_qdrant` as the scroll filter of the collection the Qdrant store wrote in local mode
  (and on a Qdrant server when ``QDRANT_URL`` is set), and in the Edge dialect (:func:`to_qdrant_edge`)
  as the scroll filter of the shard the Edge store wrote (Qdrant's engine, with payload indexes).

Each must admit exactly the hand-written ids of the case; patient-isolation cases are in the table.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import lancedb
import numpy as np
import pytest
from filter_cases import CHUNKS, FILTER_CASES

from clinqa.store import LanceStore
from clinqa.store.dense import COLUMNS as DENSE_COLUMNS
from clinqa.store.filters import MASK_COLUMNS, FilterColumns, Filters, to_mask, to_qdrant, to_qdrant_edge, to_sql
from clinqa.store.lancedb import TABLE

DIM = 4
VECS = np.random.default_rng(11).normal(size=(len(CHUNKS), DIM)).astype(np.float32)
DOCS = sorted({c.doc_id for c in CHUNKS})
CASE_IDS = [f"case{i}" for i in range(len(FILTER_CASES))]


@pytest.fixture(scope="module")
def lance(tmp_path_factory: pytest.TempPathFactory) -> LanceStore:
    s = LanceStore(tmp_path_factory.mktemp("filters") / "lancedb")
    s.replace_documents(DOCS, CHUNKS, VECS)
    s.refresh_indexes()
    return s


@pytest.fixture(scope="module")
def table(lance: LanceStore):
    """The LanceDB table as written, opened directly (not through the store)."""
    return lancedb.connect(str(lance.path)).open_table(TABLE)


@pytest.fixture(scope="module")
def columns(table) -> tuple[list[str], FilterColumns]:
    t = table.search().select(["chunk_id", *MASK_COLUMNS]).limit(None).to_arrow()
    return t.column("chunk_id").to_pylist(), FilterColumns.from_arrow(t)


@pytest.fixture(scope="module", params=["qdrant-local", "qdrant-server"])
def qdrant(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed (pip install 'clinqa[qdrant]')")
    from clinqa.store.qdrant import QdrantStore

    if request.param == "qdrant-local":
        s = QdrantStore(tmp_path_factory.mktemp("filters") / "qdrant")
    else:
        url = os.environ.get("QDRANT_URL")
        if not url:
            pytest.skip("QDRANT_URL is not set: no Qdrant server to test against")
        s = QdrantStore(url=url, api_key=os.environ.get("QDRANT_API_KEY"), collection=f"clinqa_f_{uuid.uuid4().hex}")
    s.replace_documents(DOCS, CHUNKS, VECS)
    yield s
    if not s.local:
        s.drop()
    s.close()


def test_the_table_covers_every_field() -> None:
    """The table exercises every field of Filters, alone and combined, and isolation of every patient."""
    fields = {name for f, _ in FILTER_CASES for name, v in vars(f).items() if v != getattr(Filters(), name)}
    assert fields == {"patient_id", "year_min", "year_max", "sources", "exclude_levels", "doc_ids", "keep_undated"}
    patients = {c.patient_id for c in CHUNKS} - {None}
    assert patients <= {f.patient_id for f, want in FILTER_CASES if want}
    assert sum(not want for _, want in FILTER_CASES) >= 10  # cases that must admit nothing


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES, ids=CASE_IDS)
def test_sql(table, filters: Filters, expected: set[str]) -> None:
    t = table.search().where(to_sql(filters)).select(["chunk_id"]).limit(None).to_arrow()
    assert set(t.column("chunk_id").to_pylist()) == expected


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES, ids=CASE_IDS)
def test_numpy_mask(columns, lance: LanceStore, filters: Filters, expected: set[str]) -> None:
    chunk_ids, cols = columns
    m = to_mask(filters, cols)
    assert m.shape == (len(CHUNKS),) and m.dtype == bool
    assert {c for c, keep in zip(chunk_ids, m, strict=True) if keep} == expected
    index = lance.dense_index()  # the same mask inside the store's dense index
    assert index is not None and set(DENSE_COLUMNS) >= set(MASK_COLUMNS)
    assert {index.chunk_ids[i] for i in np.flatnonzero(index.mask(filters))} == expected


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES, ids=CASE_IDS)
def test_qdrant(qdrant, filters: Filters, expected: set[str]) -> None:
    recs, _ = qdrant._client.scroll(qdrant.collection, scroll_filter=to_qdrant(filters), limit=100,
                                    with_payload=["chunk_id"])
    assert {r.payload["chunk_id"] for r in recs} == expected


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    pytest.importorskip("qdrant_edge", reason="qdrant-edge-py is not installed (pip install 'clinqa[qdrant]')")
    from clinqa.store.qdrant_edge import EdgeStore

    s = EdgeStore(tmp_path_factory.mktemp("filters") / "qdrant-edge")
    s.replace_documents(DOCS, CHUNKS, VECS)
    yield s
    s.close()


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES, ids=CASE_IDS)
def test_qdrant_edge(edge, filters: Filters, expected: set[str]) -> None:
    import qdrant_edge as qe

    req = qe.ScrollRequest(limit=100, filter=to_qdrant_edge(filters), with_payload=["chunk_id"])
    recs, _ = edge._sh.shard.scroll(req)
    assert {r.payload["chunk_id"] for r in recs} == expected


def test_sql_text() -> None:
    """The SQL itself for two cases, by hand: quotes doubled, sources lower-cased, NOT IN for levels."""
    assert to_sql(Filters()) == "patient_id IS NULL AND hierarchy_level NOT IN ('document')"
    assert to_sql(Filters(patient_id="O'Brien", year_min=2014, year_max=2022, sources=("NICE", "bts"),
                          exclude_levels=("document", "references"), doc_ids=("g'1",))) == (
        "patient_id = 'O''Brien' AND year >= 2014 AND year <= 2022 AND lower(source) IN ('nice', 'bts') "
        "AND hierarchy_level NOT IN ('document', 'references') AND doc_id IN ('g''1')")


def test_import_direction() -> None:
    """Dependencies point one way: nothing under clinqa/store imports clinqa.retrieval (nor the layers
    above it), at module level, in a function or under TYPE_CHECKING."""
    import ast

    import clinqa.store

    forbidden = ("clinqa.retrieval", "clinqa.answer", "clinqa.pipeline", "clinqa.cli", "clinqa.service")
    found = []
    files = sorted(Path(clinqa.store.__file__).parent.rglob("*.py"))
    assert len(files) >= 8
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: relative import"
                names = [node.module or ""]
            else:
                continue
            found += [f"{path.name}: {n}" for n in names if n == "clinqa" or n.startswith(forbidden)]
    assert found == []
