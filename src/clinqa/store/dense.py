"""Exact dense search in memory: one float32 matrix and the filter columns as integer codes.

LanceDB's brute-force vector search scans the table for every query (50-70 ms at 54k chunks on
2 cores, so about 300 ms at 300k); a matrix product over the same vectors held in
memory takes a few milliseconds. :class:`DenseIndex` is built from the store's columns, applies
:class:`~clinqa.store.filters.Filters` as a boolean mask *before* the top-``k`` cut
(pre-filtering: :func:`clinqa.store.filters.to_mask`, the same semantics as
:func:`~clinqa.store.filters.to_sql`), and returns row
positions with their cosine similarities. It is exact, so filtered recall is 1.0.

Memory: ``n * dim * 4`` bytes for the vectors (300k x 384: 440 MiB) plus ~20 bytes per row.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from clinqa.store.filters import MASK_COLUMNS, FilterColumns, Filters, to_mask

#: the columns :class:`DenseIndex` needs
COLUMNS = ["chunk_id", *MASK_COLUMNS, "vector"]


#: Gathered sub-matrices of at least this many rows are cached (:meth:`DenseIndex._gather`) ...
GATHER_CACHE_MIN_ROWS = 1024
#: ... for this many distinct filters (the oldest goes first).
GATHER_CACHE_SIZE = 4


class DenseIndex:
    """Vectors ``(n, dim)`` float32 with their chunk ids and filter columns.

    ``row_ids`` are the store's own row identifiers (LanceDB ``_rowid``), returned by
    :meth:`search` so the caller can fetch the rows of the hits directly.
    """

    def __init__(self, table: pa.Table, row_ids: np.ndarray | None = None) -> None:
        """``table``: an Arrow table with :data:`COLUMNS` (``vector`` a fixed-size list column)."""
        n = table.num_rows
        self.chunk_ids: list[str] = table.column("chunk_id").to_pylist()
        self.row_ids = np.arange(n, dtype=np.int64) if row_ids is None else np.asarray(row_ids, dtype=np.int64)
        if n:
            flat = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
            self.vectors = np.ascontiguousarray(flat.reshape(n, -1), dtype=np.float32)
        else:
            self.vectors = np.zeros((0, 0), dtype=np.float32)
        norms = np.linalg.norm(self.vectors, axis=1) if n else np.zeros(0, dtype=np.float32)
        self._inv_norm = np.where(norms > 0, 1.0 / np.maximum(norms, 1e-12), 0.0).astype(np.float32)
        self._columns = FilterColumns.from_arrow(table)
        self._masks: dict[Filters, np.ndarray] = {}
        self._gathered: dict[Filters, np.ndarray] = {}
        self._doc_names: list[str] | None = None
        self._positions: dict[str, int] | None = None  # chunk id -> row position, built on first use
        # the cosines of every row with the last query vector: the chunk list, the document list and
        # dense_scores of one question share one product over the matrix (the costly part at 300k rows)
        self._last: tuple[bytes, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def doc_id(self, position: int) -> str:
        """The document id of the row at ``position`` (from the filter columns' codes)."""
        if self._doc_names is None:
            names: list[str] = [""] * len(self._columns.docs)
            for name, code in self._columns.docs.items():
                names[code] = name
            self._doc_names = names
        return self._doc_names[int(self._columns.doc[position])]

    def patient_codes(self) -> np.ndarray:
        """``(n,)`` int32: each row's patient code (-1: no patient), as :meth:`patient_code` gives them."""
        return self._columns.patient

    def patient_code(self, patient_id: str | None) -> int | None:
        """The code of ``patient_id`` in :meth:`patient_codes` (None for None; -1 for a patient no row has)."""
        return None if patient_id is None else self._columns.patients.get(patient_id, -1)

    def mask(self, f: Filters) -> np.ndarray:
        """``(n,)`` bool: the rows ``f`` admits (:func:`~clinqa.store.filters.to_mask`).
        The last 32 distinct filters' masks are kept (most queries share one: no patient, no years);
        treat the result as read-only."""
        cached = self._masks.get(f)
        if cached is None:
            cached = to_mask(f, self._columns)
            if len(self._masks) >= 32:
                self._masks.pop(next(iter(self._masks)), None)
            self._masks[f] = cached
        return cached

    def _gather(self, f: Filters, idx: np.ndarray) -> np.ndarray:
        """``self.vectors[idx]``; gathers of at least :data:`GATHER_CACHE_MIN_ROWS` rows are kept for the
        last :data:`GATHER_CACHE_SIZE` filters (the document list gathers every overview chunk on each
        question: copying them per query would cost more than the product)."""
        if len(idx) < GATHER_CACHE_MIN_ROWS:
            return self.vectors[idx]
        sub = self._gathered.get(f)
        if sub is None:
            sub = self.vectors[idx]
            if len(self._gathered) >= GATHER_CACHE_SIZE:
                self._gathered.pop(next(iter(self._gathered)), None)
            self._gathered[f] = sub
        return sub

    def _unit(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` as a float32 unit vector ``(dim,)`` (a zero vector stays zero). Raises ``ValueError``
        when its dimension is not the store's."""
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.vectors.shape[1]:
            raise ValueError(f"query vector has {q.shape[0]} dimensions, the store {self.vectors.shape[1]}")
        qn = float(np.linalg.norm(q))
        return q / qn if qn > 0 else q

    def _full_sims(self, q: np.ndarray, compute: bool) -> np.ndarray | None:
        """``(n,)`` cosines of every row with the unit vector ``q``: kept from the last call with the same
        vector, else computed when ``compute`` (one product over the matrix, no copy of it), else None."""
        key = q.tobytes()
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        if not compute:
            return None
        sims = (self.vectors @ q) * self._inv_norm
        self._last = (key, sims)
        return sims

    def scores(self, vector: np.ndarray, chunk_ids: list[str], f: Filters) -> dict[str, float]:
        """``{chunk_id: cosine}`` for the listed chunks that ``f`` admits (unknown ids are left out): one
        row product each, no full scan. Raises ``ValueError`` when ``vector`` has the wrong dimension."""
        if not len(self) or not chunk_ids:
            return {}
        if self._positions is None:
            self._positions = {c: i for i, c in enumerate(self.chunk_ids)}
        pos = [(c, self._positions[c]) for c in dict.fromkeys(chunk_ids) if c in self._positions]
        mask = self.mask(f)
        pos = [(c, p) for c, p in pos if mask[p]]
        if not pos:
            return {}
        q = self._unit(vector)
        rows = np.fromiter((p for _, p in pos), dtype=np.int64, count=len(pos))
        sims = (self.vectors[rows] @ q) * self._inv_norm[rows]
        return {c: float(s) for (c, _), s in zip(pos, sims, strict=True)}

    def search(self, vector: np.ndarray, k: int, f: Filters) -> tuple[np.ndarray, np.ndarray]:
        """Exact cosine top-``k`` among the rows ``f`` admits.

        ``vector``: ``(dim,)``. Returns ``(positions (m,), cosines (m,))``, best first, ``m <= k``;
        ties keep row order. Raises ``ValueError`` when ``vector`` has the wrong dimension.
        """
        if not len(self) or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        q = self._unit(vector)
        idx = np.flatnonzero(self.mask(f))
        if not len(idx):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        full = self._full_sims(q, compute=len(idx) * 8 >= len(self))
        # most rows, or a product this question already paid for; else a few rows (one patient's notes):
        # gather them first
        sims = full[idx] if full is not None else (self._gather(f, idx) @ q) * self._inv_norm[idx]
        top = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        top = top[np.lexsort((top, -sims[top]))]  # best first; ties by row order
        return idx[top], sims[top]
