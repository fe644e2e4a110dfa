"""The chunk table schema derived from the Chunk model (clinqa.store.schema), against the schema the
LanceDB store wrote by hand before it was derived: same columns, same types."""

from __future__ import annotations

from datetime import date
from typing import Literal

import numpy as np
import pyarrow as pa
import pytest

from clinqa.chunking.base import Chunk
from clinqa.store.filters import FilterColumns, Filters, to_mask
from clinqa.store.schema import BOOL_COLUMNS, ROW_COLUMNS, arrow_type, chunk_schema

# the hand-written column lists of clinqa/store/lancedb.py before the schema was derived
_STR = ["chunk_id", "doc_id", "text", "body", "hierarchy_level", "content_hash", "title", "source",
        "url", "doi", "organization", "patient_id", "note_date", "note_type", "author_role", "format",
        "path", "doc_hash", "source_from", "ingested_at"]
_LIST = ["section_path", "authors", "topics"]
_INT = ["chunk_index", "n_words", "n_tokens", "year", "page_start", "page_end"]
_BOOL = ["split", "ocr"]


def test_derived_schema_equals_the_hand_written_one() -> None:
    s = chunk_schema(384)
    want = {n: pa.string() for n in _STR} | {n: pa.list_(pa.string()) for n in _LIST} | \
        {n: pa.int32() for n in _INT} | {n: pa.bool_() for n in _BOOL} | {"vector": pa.list_(pa.float32(), 384)}
    assert {f.name: f.type for f in s} == want
    assert len(s) == 32 and all(f.nullable for f in s)
    assert s.names[:4] == ["chunk_id", "doc_id", "text", "body"] and s.names[-1] == "vector"  # Chunk field order
    assert list(Chunk.model_fields) == ROW_COLUMNS and {"split", "ocr"} == BOOL_COLUMNS


def test_rows_of_every_field_fit_the_schema() -> None:
    """A Chunk with every field set, dumped as the stores write it, round-trips through the Arrow schema."""
    c = Chunk(chunk_id="n:P1:3#s#0", doc_id="n:P1:3", text="H > body", body="body", section_path=["H"],
              hierarchy_level="paragraph", chunk_index=2, content_hash="ab", n_words=1, n_tokens=4, split=True,
              page_start=3, page_end=4, ocr=True, title="T", authors=["X"], year=2023, source="EHR", url="u",
              doi="d", organization="o", topics=["t"], patient_id="P1", note_date=date(2023, 2, 1),
              note_type="progress", author_role="GP", format="notes", path="p.jsonl", doc_hash="h")
    row = c.model_dump(mode="json") | {"vector": [0.5, -0.5]}
    [back] = pa.Table.from_pylist([row], schema=chunk_schema(2)).to_pylist()
    assert back["note_date"] == "2023-02-01" and back["vector"] == [0.5, -0.5]
    assert Chunk.model_validate({k: v for k, v in back.items() if k != "vector"}) == c


def test_unknown_annotation_is_an_error_naming_the_field() -> None:
    assert arrow_type(Literal["a", "b"]) == pa.string() and arrow_type(int | None) == pa.int32()
    assert arrow_type(bool) == pa.bool_() and arrow_type(list[str]) == pa.list_(pa.string())
    with pytest.raises(TypeError, match=r"Chunk\.score: no Arrow column type for annotation <class 'float'>"):
        arrow_type(float, "score")
    with pytest.raises(TypeError, match=r"Chunk\.both"):
        arrow_type(int | str, "both")
    with pytest.raises(ValueError, match="at least 1"):
        chunk_schema(0)


def test_mask_of_an_empty_table() -> None:
    empty = pa.Table.from_pylist([], schema=chunk_schema(4))
    assert to_mask(Filters(), FilterColumns.from_arrow(empty)).shape == (0,)
    assert to_mask(Filters(patient_id="A"), FilterColumns.from_arrow(empty)).dtype == np.bool_
