"""Newest-first fusion for 'latest' questions, with RRF values computed by hand."""

from __future__ import annotations

import datetime

from clinqa.chunking.base import Chunk
from clinqa.retrieval.hybrid import Retrieved
from clinqa.retrieval.recency import chunk_date, recency_rerank


def _hit(i: int, year: int | None = None, note_date: str | None = None) -> Retrieved:
    c = Chunk(chunk_id=f"c{i}", doc_id=f"d{i}", text="t", body="t", year=year,
              note_date=datetime.date.fromisoformat(note_date) if note_date else None)
    return Retrieved(c, 0.0, i)


def test_recency_fusion_by_hand() -> None:
    hits = [_hit(1, 2015), _hit(2, 2023), _hit(3, None), _hit(4, 2024)]
    # relevance ranks c1..c4 = 1..4; date order: c4 (2024), c2 (2023), c1 (2015), c3 (undated)
    # RRF k=60, weights 1 / 0.5:
    #   c1 = 1/61 + 0.5/63 = 0.024330   c2 = 1/62 + 0.5/62 = 0.024194
    #   c3 = 1/63 + 0.5/64 = 0.023686   c4 = 1/64 + 0.5/61 = 0.023822
    out = recency_rerank(hits, weight=0.5, k=60)
    assert [h.chunk.chunk_id for h in out] == ["c1", "c2", "c4", "c3"]
    assert [h.ranks["relevance"] for h in out] == [1, 2, 4, 3]
    # with weight 2 the date list dominates: c4 = 1/64 + 2/61 = 0.048412 first
    assert recency_rerank(hits, weight=2.0)[0].chunk.chunk_id == "c4"


def test_note_date_beats_year() -> None:
    assert chunk_date(_hit(1, 2020, "2020-03-04").chunk) == datetime.date(2020, 3, 4)
    assert chunk_date(_hit(1, 2020).chunk) == datetime.date(2020, 12, 31)
    assert chunk_date(_hit(1).chunk) is None


def test_newest_copy_heads_the_group() -> None:
    from clinqa.retrieval.recency import newest_first

    kept, dups = _hit(1, note_date="2019-05-01"), [_hit(2, note_date="2023-01-02"), _hit(3, note_date="2021-07-07")]
    head, rest = newest_first(kept, dups)
    assert head.chunk.chunk_id == "c2" and head.rank == 1
    assert [h.chunk.chunk_id for h in rest] == ["c1", "c3"]
    same, none = newest_first(_hit(4, note_date="2024-01-01"), [])
    assert same.chunk.chunk_id == "c4" and none == []
