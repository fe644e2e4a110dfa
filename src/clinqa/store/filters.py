"""Filters are data; this module holds them and their three translations, side by side.

Every store applies :class:`Filters` inside the query (pre-filtering), never to results in Python
after a top-``k`` cut. The translations share one meaning, stated once in the :class:`Filters`
docstring and checked by one table of cases on real stores (``tests/store/filter_cases.py``,
run by ``tests/store/test_filters.py`` through all three and by the store contract suite):

- :func:`to_sql`: a SQL ``WHERE`` expression (DataFusion dialect) for LanceDB's full-text search
  and ``export``;
- :func:`to_mask`: a boolean NumPy mask over :class:`FilterColumns` (integer-coded columns held in
  memory) for the exact dense index, :class:`clinqa.store.dense.DenseIndex`;
- :func:`to_qdrant`: a Qdrant ``Filter`` for :class:`clinqa.store.qdrant.QdrantStore`
  (qdrant-client is imported only when it is called: the ``qdrant`` extra is optional).

NULL semantics follow SQL's, which the other two copy: a row without a year fails any year bound;
a row without a level is excluded while ``exclude_levels`` is non-empty (``NULL NOT IN (...)`` is
not true); ``patient_id=None`` admits only rows whose ``patient_id`` is null (or, in Qdrant, absent).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa
    from qdrant_client import models as qm


@dataclass(frozen=True)
class Filters:
    """What a query may see.

    - ``patient_id``: ``None`` restricts the query to documents that belong to no patient
      (guidelines, articles); a value restricts it to that one patient's notes. No query
      ever mixes two patients.
    - ``year_min`` / ``year_max``: inclusive bounds on the document year (a note's year is
      its date's year); documents without a year are excluded when a bound is set.
    - ``sources``: keep only these ``source`` values, compared case-insensitively (empty: all).
    - ``exclude_levels``: chunk levels to leave out (``document`` overview chunks for Q&A).
    - ``doc_ids``: keep only these documents (empty: all).
    """

    patient_id: str | None = None
    year_min: int | None = None
    year_max: int | None = None
    sources: tuple[str, ...] = ()
    exclude_levels: tuple[str, ...] = ("document",)
    doc_ids: tuple[str, ...] = field(default=())

    @property
    def has_years(self) -> bool:
        """True when a year bound (``year_min`` or ``year_max``) is set."""
        return self.year_min is not None or self.year_max is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as shown to users under ``filters``."""
        d = asdict(self)
        d["sources"] = list(self.sources)
        d["exclude_levels"] = list(self.exclude_levels)
        d["doc_ids"] = list(self.doc_ids)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Filters:
        """The filters a :meth:`to_dict` dict describes (a logged or cached one): lists become tuples,
        unknown keys are ignored, missing ones (and a null list) take the defaults."""
        kw: dict[str, Any] = {k: d[k] for k in ("patient_id", "year_min", "year_max") if k in d}
        for key in ("sources", "exclude_levels", "doc_ids"):
            if d.get(key) is not None:
                kw[key] = tuple(d[key])
        return cls(**kw)


# -- SQL (LanceDB) ---------------------------------------------------------------------------------
def sql_literal(value: str) -> str:
    """A single-quoted SQL string literal with embedded quotes doubled (``o'brien`` -> ``'o''brien'``)."""
    return "'" + str(value).replace("'", "''") + "'"


def to_sql(f: Filters) -> str:
    """The filters as a SQL ``WHERE`` expression (DataFusion dialect, used by LanceDB).

    >>> to_sql(Filters(patient_id="p1", year_min=2021))
    "patient_id = 'p1' AND year >= 2021 AND hierarchy_level NOT IN ('document')"
    """
    parts: list[str] = []
    parts.append("patient_id IS NULL" if f.patient_id is None else f"patient_id = {sql_literal(f.patient_id)}")
    if f.year_min is not None:
        parts.append(f"year >= {int(f.year_min)}")
    if f.year_max is not None:
        parts.append(f"year <= {int(f.year_max)}")
    if f.sources:  # case-insensitive: "bts" finds "BTS"
        parts.append(f"lower(source) IN ({', '.join(sql_literal(s.lower()) for s in f.sources)})")
    if f.exclude_levels:
        parts.append(f"hierarchy_level NOT IN ({', '.join(sql_literal(s) for s in f.exclude_levels)})")
    if f.doc_ids:
        parts.append(f"doc_id IN ({', '.join(sql_literal(s) for s in f.doc_ids)})")
    return " AND ".join(parts)


# -- NumPy mask (the in-memory dense index) --------------------------------------------------------
#: the columns :meth:`FilterColumns.from_arrow` reads
MASK_COLUMNS = ["patient_id", "year", "hierarchy_level", "source", "doc_id"]
#: the year code of a row without a year
NO_YEAR = int(np.iinfo(np.int32).min)


def _codes(values: list[Any]) -> tuple[np.ndarray, dict[Any, int]]:
    """``(codes (n,) int32, {value: code})`` with ``None`` coded -1."""
    table: dict[Any, int] = {}
    out = np.empty(len(values), dtype=np.int32)
    for i, v in enumerate(values):
        out[i] = -1 if v is None else table.setdefault(v, len(table))
    return out, table


@dataclass
class FilterColumns:
    """The filtered columns of ``n`` rows as integer codes, for :func:`to_mask`.

    Each of ``patient``, ``level``, ``source`` (lower-cased) and ``doc`` is an ``(n,)`` int32 array
    of codes (-1: null) with its ``{value: code}`` table; ``year`` is ``(n,)`` int64 with
    :data:`NO_YEAR` for a null year. About 20 bytes per row.
    """

    patient: np.ndarray
    patients: dict[Any, int]
    level: np.ndarray
    levels: dict[Any, int]
    source: np.ndarray
    sources: dict[Any, int]
    doc: np.ndarray
    docs: dict[Any, int]
    year: np.ndarray

    def __len__(self) -> int:
        return len(self.patient)

    @classmethod
    def from_arrow(cls, table: pa.Table) -> FilterColumns:
        """Codes of the :data:`MASK_COLUMNS` of an Arrow ``table`` (``year`` integer with nulls,
        the others strings with nulls). Raises ``KeyError`` when a column is missing."""
        patient, patients = _codes(table.column("patient_id").to_pylist())
        level, levels = _codes(table.column("hierarchy_level").to_pylist())
        source, sources = _codes([s.lower() if isinstance(s, str) else None
                                  for s in table.column("source").to_pylist()])
        doc, docs = _codes(table.column("doc_id").to_pylist())
        years = table.column("year").to_numpy(zero_copy_only=False).astype(float)
        year = np.where(np.isnan(years), NO_YEAR, years).astype(np.int64)
        return cls(patient, patients, level, levels, source, sources, doc, docs, year)


def to_mask(f: Filters, cols: FilterColumns) -> np.ndarray:
    """``(n,)`` bool: the rows of ``cols`` that ``f`` admits, with :func:`to_sql`'s semantics
    (nulls included, see the module docstring)."""
    n = len(cols)
    if f.patient_id is None:
        m = cols.patient == -1
    else:
        code = cols.patients.get(f.patient_id)
        if code is None:
            return np.zeros(n, dtype=bool)
        m = cols.patient == code
    if f.year_min is not None:
        m &= (cols.year != NO_YEAR) & (cols.year >= int(f.year_min))
    if f.year_max is not None:
        m &= (cols.year != NO_YEAR) & (cols.year <= int(f.year_max))
    if f.sources:
        wanted = [cols.sources[s.lower()] for s in f.sources if s.lower() in cols.sources]
        m &= np.isin(cols.source, np.array(wanted, dtype=np.int32))
    if f.exclude_levels:
        # a row without a level is excluded, as SQL's NULL NOT IN (...) is not true
        drop = [cols.levels[lv] for lv in f.exclude_levels if lv in cols.levels]
        m &= (cols.level != -1) & ~np.isin(cols.level, np.array(drop, dtype=np.int32))
    if f.doc_ids:
        wanted = [cols.docs[d] for d in f.doc_ids if d in cols.docs]
        m &= np.isin(cols.doc, np.array(wanted, dtype=np.int32))
    return m


# -- Qdrant ----------------------------------------------------------------------------------------
def qdrant_patient_condition(patient_id: str | None) -> Any:
    """The Qdrant condition for one patient scope: ``IsEmpty(patient_id)`` (null or absent) for
    ``None``, else an exact keyword match."""
    from qdrant_client import models as qm

    if patient_id is None:
        return qm.IsEmptyCondition(is_empty=qm.PayloadField(key="patient_id"))
    return qm.FieldCondition(key="patient_id", match=qm.MatchValue(value=patient_id))


def to_qdrant(f: Filters) -> qm.Filter:
    """The filters as a Qdrant ``Filter``, with :func:`to_sql`'s semantics: ``patient_id`` None ->
    null or absent (``IsEmpty``); year bounds inclusive (a point without a year fails a ``Range``);
    ``sources`` matched on the lower-cased payload copy ``source_lc``; ``exclude_levels`` as
    ``must_not``; ``doc_ids`` as ``MatchAny``. Raises ``ImportError`` without qdrant-client."""
    from qdrant_client import models as qm

    must: list[Any] = [qdrant_patient_condition(f.patient_id)]
    if f.has_years:
        must.append(qm.FieldCondition(key="year", range=qm.Range(gte=f.year_min, lte=f.year_max)))
    if f.sources:
        must.append(qm.FieldCondition(key="source_lc", match=qm.MatchAny(any=[s.lower() for s in f.sources])))
    if f.doc_ids:
        must.append(qm.FieldCondition(key="doc_id", match=qm.MatchAny(any=list(f.doc_ids))))
    must_not: list[Any] = []
    if f.exclude_levels:
        must_not.append(qm.FieldCondition(key="hierarchy_level", match=qm.MatchAny(any=list(f.exclude_levels))))
    return qm.Filter(must=must, must_not=must_not or None)
