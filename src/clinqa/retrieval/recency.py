"""Recency ranking for "latest / current / most recent" questions.

The relevance order is kept as one list and a second list orders the same candidates by date,
newest first (a note's date; else the document year, read as the last day of that year;
undated chunks last); the two are fused by weighted RRF (:func:`clinqa.retrieval.fusion.rrf`,
k = 60). With the default weight 0.5, a newer passage moves up only past passages of similar
relevance, so an irrelevant new note cannot take first place.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

from clinqa.chunking.base import Chunk
from clinqa.retrieval.fusion import rrf
from clinqa.retrieval.hybrid import Retrieved


def chunk_date(chunk: Chunk) -> datetime.date | None:
    """The date a chunk speaks for: its note date, else 31 December of its year, else None."""
    if chunk.note_date:
        return chunk.note_date
    return datetime.date(chunk.year, 12, 31) if chunk.year else None


def recency_rerank(hits: list[Retrieved], weight: float = 0.5, k: int = 60) -> list[Retrieved]:
    """``hits`` (best first) re-ordered by RRF of their order (weight 1) and date order
    (``weight``); ranks renumbered from 1, the previous rank kept under ``ranks["relevance"]``."""
    if len(hits) < 2:
        return list(hits)
    ids = [h.chunk.chunk_id for h in hits]
    by_date = sorted(range(len(hits)), key=lambda i: (chunk_date(hits[i].chunk) is None,
                                                      -(chunk_date(hits[i].chunk) or datetime.date.min).toordinal(), i))
    fused = rrf({"relevance": ids, "recency": [ids[i] for i in by_date]}, {"relevance": 1.0, "recency": weight}, k=k)
    by_id = {h.chunk.chunk_id: h for h in hits}
    return [replace(by_id[c], rank=r, ranks={**by_id[c].ranks, "relevance": by_id[c].rank})
            for r, (c, _) in enumerate(fused, start=1)]


def newest_first(kept: Retrieved, duplicates: list[Retrieved]) -> tuple[Retrieved, list[Retrieved]]:
    """A copy group re-headed by its newest member (:func:`chunk_date`; ties keep the kept
    one), which takes the group's rank and score; the others become its duplicates."""
    group = [kept, *duplicates]
    newest = max(group, key=lambda h: (chunk_date(h.chunk) or datetime.date.min, h is kept))
    if newest is kept:
        return kept, duplicates
    head = replace(newest, rank=kept.rank, score=kept.score, ranks=kept.ranks, scores=kept.scores)
    return head, [h for h in group if h is not newest]
