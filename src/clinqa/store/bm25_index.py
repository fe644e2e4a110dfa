"""Per-scope BM25 in memory for the LanceDB store: an inverted index over the table's rows (issue 51).

LanceDB's full-text index ranks with the whole table's statistics, so the BM25 scores a patient-scoped
search sees would move whenever another patient's notes are added. :class:`Bm25Index` ranks with the
statistics of what the search's scope may see (:mod:`clinqa.store.bm25_stats`): the reference chunks
(no ``patient_id``) and, for a patient-scoped search, that patient's chunks. Scope statistics:
``N`` chunks, ``avgdl`` their mean length in index terms, ``df`` per term; each counts every chunk of
the scope, whatever other filters (years, sources, levels) the search adds. Terms and the formula are
:mod:`clinqa.store.sparse`'s (:func:`~clinqa.store.sparse.stemmed_terms`: our word split and stop words with
Snowball English stems, the stemmer of LanceDB's own full-text index, so "dosing" still finds "dose"; BM25 with
``k1 = 1.2``, ``b = 0.75``, Lucene's idf), so a score equals :func:`clinqa.store.bm25_stats.reference_scores`
over the scope's texts with that tokenizer.

Layout, for ``n`` rows (the rows of :class:`clinqa.store.dense.DenseIndex`, in its order, so its filter
mask applies as is) and ``nnz`` (row, distinct term) pairs:

- postings sorted by term id, then row: ``vocab`` ``(V,)`` int32 term ids, ``ptr`` ``(V+1,)`` int64,
  ``post_rows`` ``(nnz,)`` int32, ``post_tf`` ``(nnz,)`` uint16 (a term-frequency above 65,535 is cut);
- ``lengths`` ``(n,)`` int32 (terms per row), the rows' patient codes, and per term the reference
  scope's ``df``, per patient ``n`` and total length.

Memory: about 6 bytes per pair plus 12 per row (300k chunks of ~66 distinct terms: ~120 MiB).
A query reads the postings of its terms only: exact top-``k`` of the rows the filter mask admits.

Tokenizing is the slow part (about 0.1 ms a chunk: 30 s at 300k chunks), so each chunk's term ids and
frequencies are kept by content hash (:class:`TermRows`) in a file beside the table
(:data:`TERMS_FILE`, Arrow IPC, memory-mapped): a new table version only tokenizes the chunks whose text
it has not seen.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from clinqa.store.bm25_stats import idf
from clinqa.store.sparse import K1, B, stemmed_terms, term_id

log = logging.getLogger(__name__)

#: the file, in the LanceDB folder, holding each chunk text's term ids and frequencies by content hash
TERMS_FILE = "bm25_terms-snowball.arrow"
_TF_MAX = np.iinfo(np.uint16).max
_IDS: dict[str, int] = {}  # term -> term_id, shared by every build in the process (BLAKE2b per term once)


def text_key(text: str) -> str:
    """The key of a text in :class:`TermRows`: its SHA-256 hex digest (a chunk's ``content_hash``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class TermRows:
    """Term ids and frequencies of ``m`` texts, one row each, as CSR arrays: row ``i`` holds the distinct
    term ids ``terms[offsets[i]:offsets[i+1]]`` (int32, ascending) with their counts ``tfs`` (uint16);
    ``lengths[i]`` is its number of index terms (repeats counted); ``keys`` its content hash."""

    keys: pa.Array
    lengths: np.ndarray
    offsets: np.ndarray
    terms: np.ndarray
    tfs: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @classmethod
    def empty(cls) -> TermRows:
        return cls(pa.array([], pa.string()), np.zeros(0, np.int32), np.zeros(1, np.int64),
                   np.zeros(0, np.int32), np.zeros(0, np.uint16))

    @classmethod
    def tokenize(cls, keys: Sequence[str], texts: Sequence[str]) -> TermRows:
        """The rows of ``texts`` (:func:`clinqa.store.sparse.stemmed_terms`, :func:`term_id`), keyed ``keys``."""
        lengths = np.zeros(len(texts), np.int32)
        offsets = np.zeros(len(texts) + 1, np.int64)
        terms: list[int] = []
        tfs: list[int] = []
        for i, text in enumerate(texts):
            words = stemmed_terms(text)
            counts: Counter[int] = Counter()
            for w in words:
                t = _IDS.get(w)
                if t is None:
                    t = _IDS[w] = term_id(w)
                counts[t] += 1
            lengths[i] = len(words)
            for t in sorted(counts):
                terms.append(t)
                tfs.append(min(counts[t], _TF_MAX))
            offsets[i + 1] = len(terms)
        return cls(pa.array(list(keys), pa.string()), lengths, offsets,
                   np.asarray(terms, np.int32), np.asarray(tfs, np.uint16))

    @classmethod
    def concat(cls, a: TermRows, b: TermRows) -> TermRows:
        """``a``'s rows, then ``b``'s."""
        return cls(pa.concat_arrays([a.keys, b.keys]), np.concatenate([a.lengths, b.lengths]),
                   np.concatenate([a.offsets, a.offsets[-1] + b.offsets[1:]]),
                   np.concatenate([a.terms, b.terms]), np.concatenate([a.tfs, b.tfs]))

    def take(self, idx: np.ndarray) -> TermRows:
        """The rows at positions ``idx`` ``(k,)``, in that order (repeats allowed)."""
        idx = np.asarray(idx, np.int64)
        counts = self.offsets[idx + 1] - self.offsets[idx]
        offsets = np.zeros(len(idx) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        src = np.repeat(self.offsets[idx] - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        return TermRows(self.keys.take(pa.array(idx)), self.lengths[idx], offsets, self.terms[src], self.tfs[src])

    def save(self, path: Path) -> None:
        """Write to ``path`` (Arrow IPC; a temporary file renamed over it, so a reader sees the old or the
        new file). Raises ``OSError`` when the folder is not writable."""
        table = pa.table({
            "key": self.keys, "length": pa.array(self.lengths),
            "terms": pa.ListArray.from_arrays(pa.array(self.offsets), pa.array(self.terms)),
            "tfs": pa.ListArray.from_arrays(pa.array(self.offsets), pa.array(self.tfs))})
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with pa.OSFile(str(tmp), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
                w.write_table(table)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path) -> TermRows | None:
        """The rows :meth:`save` wrote (memory-mapped), or ``None`` when ``path`` is missing or unreadable
        (logged: the rows are then tokenized again)."""
        if not path.exists():
            return None
        try:
            t = pa.ipc.open_file(pa.memory_map(str(path))).read_all().combine_chunks()
            terms, tfs = t.column("terms").chunk(0), t.column("tfs").chunk(0)
            offsets = terms.offsets.to_numpy().astype(np.int64)
            if not np.array_equal(offsets, tfs.offsets.to_numpy()):
                raise ValueError("the terms and tfs columns disagree")
            return cls(t.column("key").chunk(0), t.column("length").chunk(0).to_numpy(),
                       offsets, terms.values.to_numpy(), tfs.values.to_numpy())
        except (OSError, KeyError, IndexError, ValueError, pa.ArrowException) as exc:
            log.warning("ignoring the BM25 term file %s (%s): the chunks are tokenized again", path, exc)
            return None


class Bm25Index:
    """Postings of ``n`` rows (see the module docstring). ``rows``: one :class:`TermRows` row per table row,
    in the table's order; ``patient``: ``(n,)`` int32 patient codes (-1: a reference row), as
    :class:`clinqa.store.filters.FilterColumns` codes them."""

    def __init__(self, rows: TermRows, patient: np.ndarray) -> None:
        n = len(rows)
        if len(patient) != n:
            raise ValueError(f"{len(patient)} patient codes for {n} rows")
        self.n = n
        self.patient = np.asarray(patient, np.int32)
        self.lengths = np.asarray(rows.lengths, np.int32)
        counts = np.diff(rows.offsets)
        order = np.argsort(rows.terms, kind="stable")  # by term, then row (the rows are in order)
        sorted_terms = rows.terms[order]
        starts = np.flatnonzero(np.diff(sorted_terms)) + 1 if len(sorted_terms) else np.zeros(0, np.int64)
        self.ptr = np.concatenate([[0], starts, [len(sorted_terms)]]).astype(np.int64)
        self.vocab = sorted_terms[self.ptr[:-1]] if len(sorted_terms) else np.zeros(0, np.int32)
        self.post_rows = np.repeat(np.arange(n, dtype=np.int32), counts)[order]
        self.post_tf = np.asarray(rows.tfs)[order]
        ref = self.patient == -1
        cum = np.concatenate([[0], np.cumsum(ref[self.post_rows], dtype=np.int64)])
        self.ref_df = cum[self.ptr[1:]] - cum[self.ptr[:-1]]
        self.ref_n = int(ref.sum())
        self.ref_total = int(self.lengths[ref].sum())
        codes = self.patient[~ref]
        size = int(codes.max()) + 1 if len(codes) else 0
        self.pat_n = np.bincount(codes, minlength=size)
        self.pat_total = np.bincount(codes, weights=self.lengths[~ref], minlength=size).astype(np.int64)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        return sum(a.nbytes for a in (self.patient, self.lengths, self.ptr, self.vocab, self.post_rows,
                                      self.post_tf, self.ref_df, self.pat_n, self.pat_total))

    def view(self, patient: int | None) -> tuple[int, int]:
        """``(N, total length)`` of the scope: the reference rows, plus patient code ``patient``'s."""
        if patient is None or patient < 0 or patient >= len(self.pat_n):
            return self.ref_n, self.ref_total
        return self.ref_n + int(self.pat_n[patient]), self.ref_total + int(self.pat_total[patient])

    def _scores(self, query: str, mask: np.ndarray, patient: int | None) -> np.ndarray | None:
        """``(n,)`` float64 BM25 of every row ``mask`` admits (0 where no query term occurs), with the
        statistics of ``patient``'s scope (None: the reference's); None when nothing can match."""
        n_scope, total = self.view(patient)
        tids = np.unique(np.fromiter((term_id(t) for t in stemmed_terms(query)), np.int64)).astype(np.int32)
        if not n_scope or not len(tids) or not len(self.vocab):
            return None
        pos = np.searchsorted(self.vocab, tids)
        pos = pos[(pos < len(self.vocab))]
        pos = pos[np.isin(self.vocab[pos], tids)]
        avgdl = total / n_scope
        acc: np.ndarray | None = None
        for v in pos:
            s, e = int(self.ptr[v]), int(self.ptr[v + 1])
            rows = self.post_rows[s:e]
            df = int(self.ref_df[v])
            if patient is not None and patient >= 0:
                df += int(np.count_nonzero(self.patient[rows] == patient))
            if not df:  # only other patients hold the term: it matches nothing this scope may see
                continue
            keep = mask[rows]
            if not keep.any():
                continue
            r = rows[keep]
            tf = self.post_tf[s:e][keep].astype(np.float64)
            norm = K1 * (1.0 - B + B * self.lengths[r] / avgdl)
            if acc is None:
                acc = np.zeros(self.n, np.float64)
            acc[r] += idf(n_scope, df) * tf * (K1 + 1.0) / (tf + norm)
        return acc

    def top_k(self, query: str, k: int, mask: np.ndarray, patient: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Exact BM25 top-``k`` among the rows ``mask`` ``(n,)`` admits that share a term with ``query``,
        ranked with the statistics of ``patient``'s scope (a patient code; None: the reference scope).
        Returns ``(row positions (m,), scores (m,))``, best first, ties in row order, ``m <= k``."""
        acc = self._scores(query, mask, patient) if k > 0 else None
        if acc is None:
            return np.zeros(0, np.int64), np.zeros(0, np.float64)
        cand = np.flatnonzero(acc)
        sc = acc[cand]
        if k < len(cand):
            part = np.argpartition(-sc, k - 1)[:k]
            cand, sc = cand[part], sc[part]
        order = np.lexsort((cand, -sc))
        return cand[order], sc[order]


def rows_for(keys: pa.Array, cache: TermRows | None,
             read_texts: Callable[[np.ndarray], list[str]]) -> tuple[TermRows, TermRows, int]:
    """``(rows, cache, tokenized)``: the :class:`TermRows` of a table's rows in order, given their content
    hashes ``keys`` (``""`` or null where a row has none), a ``cache`` of rows seen before (None: none),
    and ``read_texts(positions) -> list[str]`` that reads the texts of the rows at ``positions``. Only the
    rows whose hash the cache lacks are read and tokenized (``tokenized`` of them); the returned cache
    holds the distinct texts of the table (to be saved)."""
    cache = cache or TermRows.empty()
    keys = pc.fill_null(keys.cast(pa.string()), "")
    idx = pc.index_in(keys, value_set=cache.keys)
    found = idx.is_valid().to_numpy(zero_copy_only=False) & (pc.not_equal(keys, "").to_numpy(zero_copy_only=False))
    missing = np.flatnonzero(~found)
    tokenized = 0
    if len(missing):
        # read one row per distinct unknown hash (copies share their text), and every row without a hash
        given = keys.take(pa.array(missing)).to_pylist()
        first: dict[str, int] = {}
        read = [i for i, k in enumerate(given) if not k or first.setdefault(k, i) == i]
        texts = read_texts(missing[read])
        text_of = dict(zip(read, texts, strict=True))
        fresh_keys = [k or text_key(text_of[i]) for i, k in enumerate(given)]
        new: dict[str, str] = {}
        for i in read:
            new.setdefault(fresh_keys[i], text_of[i])
        have = pc.is_in(pa.array(list(new), pa.string()), value_set=cache.keys).to_numpy(zero_copy_only=False)
        new_keys = [k for k, h in zip(new, have, strict=True) if not h]  # (a hash-less row may be known)
        cache = TermRows.concat(cache, TermRows.tokenize(new_keys, [new[k] for k in new_keys]))
        tokenized = len(new_keys)
        if any(not k for k in given):
            all_keys = keys.to_pylist()
            for row, k in zip(missing.tolist(), fresh_keys, strict=True):
                all_keys[row] = k
            keys = pa.array(all_keys, pa.string())
        idx = pc.index_in(keys, value_set=cache.keys)
    pos = idx.to_numpy(zero_copy_only=False).astype(np.int64)
    rows = cache.take(pos)
    # the table's distinct texts (in cache order): the cache to keep
    uniq = np.unique(pos)
    kept = cache if len(uniq) == len(cache) else cache.take(uniq)
    return rows, kept, tokenized
