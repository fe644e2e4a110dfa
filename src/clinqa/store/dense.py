"""Exact dense search in memory: one float32 matrix and the filter columns as integer codes.

LanceDB's brute-force vector search scans the table for every query (50-70 ms at 54k chunks on
2 cores, so about 300 ms at 300k); a matrix product over the same vectors held in
memory takes a few milliseconds. :class:`DenseIndex` is built from the store's columns, applies
:class:`~clinqa.retrieval.filters.Filters` as a boolean mask *before* the top-``k`` cut
(pre-filtering, the same semantics as :func:`clinqa.retrieval.filters.to_sql`), and returns row
positions with their cosine similarities. It is exact, so filtered recall is 1.0.

Memory: ``n * dim * 4`` bytes for the vectors (300k x 384: 440 MiB) plus ~20 bytes per row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from clinqa.retrieval.filters import Filters

#: the columns :meth:`DenseIndex.from_arrow` needs
COLUMNS = ["chunk_id", "doc_id", "patient_id", "year", "hierarchy_level", "source", "vector"]
_NO_YEAR = np.iinfo(np.int32).min


def _codes(values: list[Any]) -> tuple[np.ndarray, dict[Any, int]]:
    """``(codes (n,) int32, {value: code})`` with ``None`` coded -1."""
    table: dict[Any, int] = {}
    out = np.empty(len(values), dtype=np.int32)
    for i, v in enumerate(values):
        if v is None:
            out[i] = -1
        else:
            out[i] = table.setdefault(v, len(table))
    return out, table


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
        self._patient, self._patients = _codes(table.column("patient_id").to_pylist())
        self._level, self._levels = _codes(table.column("hierarchy_level").to_pylist())
        srcs = [s.lower() if isinstance(s, str) else None for s in table.column("source").to_pylist()]
        self._source, self._sources = _codes(srcs)
        self._doc, self._docs = _codes(table.column("doc_id").to_pylist())
        years = table.column("year").to_numpy(zero_copy_only=False)
        self._year = np.where(np.isnan(years.astype(float)), _NO_YEAR, years.astype(float)).astype(np.int64)
        self._masks: dict[Filters, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def mask(self, f: Filters) -> np.ndarray:
        """``(n,)`` bool: the rows ``f`` admits (same semantics as :func:`~clinqa.retrieval.filters.to_sql`).
        The last 32 distinct filters' masks are kept (most queries share one: no patient, no years);
        treat the result as read-only."""
        cached = self._masks.get(f)
        if cached is None:
            cached = self._compute_mask(f)
            if len(self._masks) >= 32:
                self._masks.pop(next(iter(self._masks)), None)
            self._masks[f] = cached
        return cached

    def _compute_mask(self, f: Filters) -> np.ndarray:
        if f.patient_id is None:
            m = self._patient == -1
        else:
            code = self._patients.get(f.patient_id)
            if code is None:
                return np.zeros(len(self), dtype=bool)
            m = self._patient == code
        if f.year_min is not None:
            m &= (self._year != _NO_YEAR) & (self._year >= int(f.year_min))
        if f.year_max is not None:
            m &= (self._year != _NO_YEAR) & (self._year <= int(f.year_max))
        if f.sources:
            wanted = [self._sources[s.lower()] for s in f.sources if s.lower() in self._sources]
            m &= np.isin(self._source, np.array(wanted, dtype=np.int32))
        if f.exclude_levels:
            # a row without a level is excluded, as SQL's NULL NOT IN (...) is not true
            drop = [self._levels[lv] for lv in f.exclude_levels if lv in self._levels]
            m &= (self._level != -1) & ~np.isin(self._level, np.array(drop, dtype=np.int32))
        if f.doc_ids:
            wanted = [self._docs[d] for d in f.doc_ids if d in self._docs]
            m &= np.isin(self._doc, np.array(wanted, dtype=np.int32))
        return m

    def search(self, vector: np.ndarray, k: int, f: Filters) -> tuple[np.ndarray, np.ndarray]:
        """Exact cosine top-``k`` among the rows ``f`` admits.

        ``vector``: ``(dim,)``. Returns ``(positions (m,), cosines (m,))``, best first, ``m <= k``;
        ties keep row order. Raises ``ValueError`` when ``vector`` has the wrong dimension.
        """
        if not len(self) or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.vectors.shape[1]:
            raise ValueError(f"query vector has {q.shape[0]} dimensions, the store {self.vectors.shape[1]}")
        qn = float(np.linalg.norm(q))
        q = q / qn if qn > 0 else q
        idx = np.flatnonzero(self.mask(f))
        if not len(idx):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if len(idx) * 8 >= len(self):  # most rows: one product over the matrix (no copy of it)
            sims = ((self.vectors @ q) * self._inv_norm)[idx]
        else:  # a few rows (one patient's notes): gather them first
            sims = (self.vectors[idx] @ q) * self._inv_norm[idx]
        top = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        top = top[np.lexsort((top, -sims[top]))]  # best first; ties by row order
        return idx[top], sims[top]
