"""BM25 statistics per scope: the reference documents, and each patient's notes beside them.

A patient-scoped search ranks BM25 with the statistics of what that scope may see: the reference
(non-patient) chunks plus that patient's chunks. A search without a patient uses the reference chunks
alone. So the scores a scope sees do not move when another patient's notes are added or removed
(issue 51). The statistics of a scope are, per :mod:`clinqa.store.sparse`'s tokenizer and term ids:

- ``n``: the number of chunks,
- ``total``: the sum of their lengths in index terms (``avgdl = total / n``),
- ``df[t]``: the number of chunks holding term id ``t``.

:class:`ScopeStats` holds one scope's counts; :class:`Bm25Stats` holds the reference scope and one per
patient, is updated by :meth:`Bm25Stats.add` / :meth:`Bm25Stats.remove` as chunks are written and
deleted, and combines the reference with one patient's counts at query time, for the query's terms
only (:meth:`Bm25Stats.idf`): a dict look-up per term and scope, no pass over the corpus.

:func:`reference_scores` is BM25 computed from scratch over a list of texts (the tests' reference).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from clinqa.store.sparse import bm25_weights, index_terms, term_id

#: the key of the reference scope in :meth:`Bm25Stats.to_records` (a patient's key is ``"p:" + id``)
REFERENCE = "_reference"


def scope_key(patient_id: str | None) -> str:
    """The storage key of a scope: :data:`REFERENCE` for ``None``, ``"p:" + patient_id`` else."""
    return REFERENCE if patient_id is None else f"p:{patient_id}"


def idf(n: int, df: int) -> float:
    """Lucene's BM25 idf, ``ln(1 + (n - df + 0.5) / (df + 0.5))`` (Qdrant's ``Modifier.IDF`` formula)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def chunk_terms(text: str) -> tuple[int, set[int]]:
    """``(length in index terms, distinct term ids)`` of a chunk's text: its contribution to a scope."""
    terms = index_terms(text)
    return len(terms), {term_id(t) for t in terms}


@dataclass
class ScopeStats:
    """One scope's counts: ``n`` chunks, ``total`` index terms, ``df`` ``{term_id: chunks holding it}``."""

    n: int = 0
    total: int = 0
    df: Counter[int] = field(default_factory=Counter)

    def update(self, length: int, terms: Iterable[int], sign: int) -> None:
        """Add (``sign=1``) or take away (``sign=-1``) one chunk of ``length`` terms and distinct ``terms``."""
        self.n += sign
        self.total += sign * length
        for t in terms:
            c = self.df[t] + sign
            if c > 0:
                self.df[t] = c
            else:
                del self.df[t]

    def to_record(self) -> dict[str, Any]:
        """JSON-ready: ``{"n", "total", "df": {str(term_id): count}}``."""
        return {"n": self.n, "total": self.total, "df": {str(t): c for t, c in self.df.items()}}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> ScopeStats:
        """The inverse of :meth:`to_record`."""
        return cls(int(rec.get("n", 0)), int(rec.get("total", 0)),
                   Counter({int(t): int(c) for t, c in (rec.get("df") or {}).items()}))


@dataclass
class Bm25Stats:
    """The reference scope's counts and those of each patient seen (a patient whose last chunk is
    removed keeps an empty entry until the counts are saved: :meth:`changed` lists it, with ``n == 0``)."""

    scopes: dict[str, ScopeStats] = field(default_factory=dict)
    _changed: set[str] = field(default_factory=set)

    def scope(self, patient_id: str | None) -> ScopeStats:
        """The counts of one scope alone (``None``: the reference); empty if never seen."""
        return self.scopes.get(scope_key(patient_id)) or ScopeStats()

    def _update(self, patient_id: str | None, text: str, sign: int) -> None:
        key = scope_key(patient_id)
        length, terms = chunk_terms(text)
        self.scopes.setdefault(key, ScopeStats()).update(length, terms, sign)
        self._changed.add(key)

    def add(self, chunks: Iterable[tuple[str | None, str]]) -> None:
        """Count ``(patient_id, text)`` chunks in their scopes."""
        for pid, text in chunks:
            self._update(pid, text, 1)

    def remove(self, chunks: Iterable[tuple[str | None, str]]) -> None:
        """Take ``(patient_id, text)`` chunks (as counted by :meth:`add`) out of their scopes."""
        for pid, text in chunks:
            self._update(pid, text, -1)

    def changed(self) -> dict[str, ScopeStats]:
        """``{key: counts}`` of the scopes changed since the last call (to be saved), and forget them."""
        out = {k: self.scopes[k] for k in self._changed}
        self._changed = set()
        return out

    def view(self, patient_id: str | None) -> tuple[int, int]:
        """``(n, total)`` of what the scope may see: the reference, plus the patient's chunks if any."""
        ref = self.scope(None)
        if patient_id is None:
            return ref.n, ref.total
        own = self.scope(patient_id)
        return ref.n + own.n, ref.total + own.total

    def idf(self, term_ids: Iterable[int], patient_id: str | None) -> dict[int, float]:
        """``{term_id: idf}`` over what the scope may see, for the terms that occur there (a term no
        visible chunk holds matches nothing the scope may see and is left out)."""
        n, _ = self.view(patient_id)
        ref, own = self.scope(None), (self.scope(patient_id) if patient_id is not None else None)
        out: dict[int, float] = {}
        for t in term_ids:
            df = ref.df.get(t, 0) + (own.df.get(t, 0) if own is not None else 0)
            if df:
                out[t] = idf(n, df)
        return out

    def to_records(self, keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """``{key: record}`` of the scopes named (default: all), for storage."""
        return {k: self.scopes[k].to_record() for k in (self.scopes if keys is None else keys) if k in self.scopes}

    @classmethod
    def from_records(cls, records: dict[str, dict[str, Any]]) -> Bm25Stats:
        """The counts :meth:`to_records` stored."""
        return cls({k: ScopeStats.from_record(r) for k, r in records.items()})


def reference_scores(texts: list[str], query: str, avgdl: float | None = None,
                     tokenize: Callable[[str], list[str]] = index_terms) -> list[float]:
    """BM25 of ``query`` against each of ``texts`` from scratch (:mod:`clinqa.store.sparse`'s formula,
    statistics over exactly ``texts``; ``avgdl`` defaults to their mean length): ``0.0`` where no query term
    occurs. ``tokenize``: the store's tokenizer (:func:`clinqa.store.sparse.index_terms` for Qdrant,
    :func:`~clinqa.store.sparse.stemmed_terms` for LanceDB). The reference the tests compare the stores' scores
    with."""
    terms = [tokenize(t) for t in texts]
    n = len(texts)
    avg = avgdl if avgdl is not None else sum(map(len, terms)) / n
    q = {term_id(t) for t in tokenize(query)}
    df = Counter(t for ts in terms for t in {term_id(x) for x in ts} if t in q)
    out = []
    for ts in terms:
        w = bm25_weights(ts, avg)
        out.append(sum(idf(n, df[t]) * w[t] for t in q if t in w))
    return out
