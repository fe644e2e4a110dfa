"""The per-document fields of Store.documents (path, format, source_from, ingested_at): kept from the
chunks, and ``""`` for a store written before source_from/ingested_at existed, which goes on working."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.store import LanceStore

DIM = 4


def _vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


def _chunk(doc: str, text: str, **kw) -> Chunk:
    return Chunk(chunk_id=f"{doc}#s#0", doc_id=doc, text=text, body=text, title=doc.upper(), source="src", **kw)


def test_an_older_table_reads_empty_fields_then_gains_them(tmp_path: Path) -> None:
    import lancedb
    import pyarrow as pa

    from clinqa.store.lancedb import TABLE
    from clinqa.store.schema import chunk_schema

    new = ("source_from", "ingested_at")
    old = pa.schema([f for f in chunk_schema(DIM) if f.name not in new])
    row = _chunk("old", "warfarin dosing", path="/x/old.md", format="markdown").model_dump(mode="json")
    row = {k: v for k, v in row.items() if k not in new} | {"vector": _vec(0).tolist()}
    lancedb.connect(str(tmp_path / "db")).create_table(TABLE, data=pa.Table.from_pylist([row], schema=old))
    s = LanceStore(tmp_path / "db")
    [d] = s.documents()
    assert (d["doc_id"], d["path"], d["format"], d["source_from"], d["ingested_at"], d["chunks"]) == \
        ("old", "/x/old.md", "markdown", "", "", 1)
    s.replace_documents(["new"], [_chunk("new", "apixaban dosing", path="/x/new.md", source_from="metadata",
                                         ingested_at="2025-01-02T03:04:05Z")], np.stack([_vec(1)]))
    s.refresh_indexes()
    got = {d["doc_id"]: (d["source_from"], d["ingested_at"]) for d in s.documents()}
    assert got == {"new": ("metadata", "2025-01-02T03:04:05Z"), "old": ("", "")}  # old rows: null, read as ""
    [c] = s.get_chunks(["old#s#0"])
    assert (c.source_from, c.ingested_at) == ("", "")
