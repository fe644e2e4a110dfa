"""The Store protocol: one place for vectors, text, the BM25 index and metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters

ScoreKind = Literal["cosine", "bm25"]


@dataclass
class Hit:
    """One chunk in a ranked list. ``rank`` starts at 1; ``kind`` says what ``score`` is
    (cosine similarity in [-1, 1] or a BM25 score), so scores of different kinds are never
    compared by accident."""

    chunk: Chunk
    score: float
    rank: int
    kind: ScoreKind


class Store(Protocol):
    """A chunk store with dense and BM25 search under the same pre-filters."""

    def replace_documents(self, doc_ids: list[str], chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Atomically replace all chunks of ``doc_ids`` by ``chunks`` (``vectors``: ``(n, dim)``).

        Readers see either the old or the new chunks of each document, never a mix.
        """
        ...

    def delete_document(self, doc_id: str) -> int:
        """Delete a document's chunks; returns how many were deleted."""
        ...

    def dense_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[Hit]:
        """Exact top-``k`` by cosine similarity among chunks passing ``filters``."""
        ...

    def bm25_search(self, query: str, k: int, filters: Filters) -> list[Hit]:
        """Top-``k`` by BM25 among chunks passing ``filters``."""
        ...

    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks by id (missing ids are left out), in the order asked."""
        ...

    def doc_hashes(self) -> dict[str, str]:
        """``{doc_id: doc_hash}`` of every stored document."""
        ...

    def documents(self) -> list[dict[str, Any]]:
        """One row per document: doc_id, title, year, source, patient_id, chunks."""
        ...

    def count(self) -> int:
        """Number of chunks."""
        ...

    def refresh_indexes(self) -> None:
        """Bring the BM25 (and any other) index up to date after writes."""
        ...
