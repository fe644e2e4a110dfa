"""Filters are data; this module holds them and their three translations, side by side.

Every store applies :class:`Filters` inside the query (pre-filtering), never to results in Python
after a top-``k`` cut. The translations share one meaning, stated once in the :class:`Filters`
docstring and checked by one table of cases on real stores (``tests/store/filter_cases.py``,
run by ``tests/store/test_filters.py`` through all three and by the store contract suite):

- :func:`to_sql`: a SQL ``WHERE`` expression (DataFusion dialect) for LanceDB's full-text search
  and ``export``;
- :func:`to_mask`: a boolean NumPy mask over :class:`FilterColumns` (integer-coded columns held in
  memory) for the exact dense index, :class:`clinqa.store.dense.DenseIndex`;
- :func:`to_qdrant`: a Qdrant ``Filter`` for :class:`clinqa.store.qdrant.QdrantStore` and, written
  once against a :class:`QdrantDialect`, for :class:`clinqa.store.qdrant_edge.EdgeStore`
  (:func:`to_qdrant_edge`); qdrant-client / qdrant-edge-py are imported only when called (the
  ``qdrant`` extra is optional).

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
      its date's year); documents without a year are excluded when a bound is set, unless
      ``keep_undated`` (``retrieval.keep_undated``): then they pass any year bound.
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
    keep_undated: bool = False

    @property
    def has_years(self) -> bool:
        """True when a year bound (``year_min`` or ``year_max``) is set."""
        return self.year_min is not None or self.year_max is not None

    def scope(self) -> str:
        """What the filters let a query see, in words for a refusal or a warning; ``""`` when they narrow nothing
        (the reference documents of every year and source). A patient's: "patient P1's notes", with its years ("of
        2021", "of 2019-2021", "from 2019 on", "up to 2020"); else "the documents" with those years and "from
        ACC/AHA" (the sources), or "the chosen documents" (``doc_ids``)."""
        lo, hi = self.year_min, self.year_max
        years = ("" if lo is None and hi is None else f" up to {hi}" if lo is None else f" from {lo} on" if hi is None
                 else f" of {lo}" if lo == hi else f" of {lo}-{hi}")
        if self.patient_id is not None:
            return f"patient {self.patient_id}'s notes{years}"
        if not (years or self.sources or self.doc_ids):
            return ""
        what = "the chosen documents" if self.doc_ids else "the documents"
        return what + years + (f" from {', '.join(self.sources)}" if self.sources else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as shown to users under ``filters``."""
        d = asdict(self)
        d["sources"] = list(self.sources)
        d["exclude_levels"] = list(self.exclude_levels)
        d["doc_ids"] = list(self.doc_ids)
        if not self.keep_undated:  # shown (and part of logged and cached filters) only when set
            del d["keep_undated"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Filters:
        """The filters a :meth:`to_dict` dict describes (a logged or cached one): lists become tuples,
        unknown keys are ignored, missing ones (and a null list) take the defaults."""
        kw: dict[str, Any] = {k: d[k] for k in ("patient_id", "year_min", "year_max", "keep_undated") if k in d}
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
    years = []
    if f.year_min is not None:
        years.append(f"year >= {int(f.year_min)}")
    if f.year_max is not None:
        years.append(f"year <= {int(f.year_max)}")
    if years and f.keep_undated:
        parts.append(f"(year IS NULL OR ({' AND '.join(years)}))")
    else:
        parts.extend(years)
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
    if f.has_years:
        inside = cols.year != NO_YEAR
        if f.year_min is not None:
            inside &= cols.year >= int(f.year_min)
        if f.year_max is not None:
            inside &= cols.year <= int(f.year_max)
        m &= (inside | (cols.year == NO_YEAR)) if f.keep_undated else inside
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
class QdrantDialect:
    """How one Qdrant transport spells a condition. The mapping from :class:`Filters` to Qdrant
    conditions (:func:`to_qdrant`) is written once against these six constructors; two dialects build
    them: :func:`qdrant_dialect` ``("client")`` with qdrant-client's models (a server, a cluster, local
    mode: :class:`clinqa.store.qdrant.QdrantStore`) and ``("edge")`` with qdrant-edge-py's (the engine in
    the process: :class:`clinqa.store.qdrant_edge.EdgeStore`). The package is imported when a dialect
    is first made (both are optional: the ``qdrant`` extra)."""

    name = ""

    def match(self, key: str, value: str) -> Any:
        """``key`` equals ``value`` (a keyword)."""
        raise NotImplementedError

    def match_any(self, key: str, values: list[str]) -> Any:
        """``key`` is one of ``values``."""
        raise NotImplementedError

    def range(self, key: str, gte: int | None, lte: int | None) -> Any:
        """``gte <= key <= lte`` (a bound left ``None`` is open); a point without ``key`` fails."""
        raise NotImplementedError

    def is_empty(self, key: str) -> Any:
        """``key`` is null or absent."""
        raise NotImplementedError

    def has_id(self, ids: list[str]) -> Any:
        """The point id is one of ``ids``."""
        raise NotImplementedError

    def filter(self, must: list[Any], must_not: list[Any] | None = None) -> Any:
        """All of ``must`` and none of ``must_not`` (``None`` when empty)."""
        raise NotImplementedError

    def any_of(self, conditions: list[Any]) -> Any:
        """A nested filter that at least one of ``conditions`` passes (Qdrant's ``should``)."""
        raise NotImplementedError


class _ClientDialect(QdrantDialect):
    name = "client"

    def __init__(self) -> None:
        from qdrant_client import models

        self.m = models

    def match(self, key: str, value: str) -> Any:
        return self.m.FieldCondition(key=key, match=self.m.MatchValue(value=value))

    def match_any(self, key: str, values: list[str]) -> Any:
        return self.m.FieldCondition(key=key, match=self.m.MatchAny(any=list(values)))

    def range(self, key: str, gte: int | None, lte: int | None) -> Any:
        return self.m.FieldCondition(key=key, range=self.m.Range(gte=gte, lte=lte))

    def is_empty(self, key: str) -> Any:
        return self.m.IsEmptyCondition(is_empty=self.m.PayloadField(key=key))

    def has_id(self, ids: list[str]) -> Any:
        return self.m.HasIdCondition(has_id=list(ids))

    def filter(self, must: list[Any], must_not: list[Any] | None = None) -> Any:
        return self.m.Filter(must=must, must_not=must_not or None)

    def any_of(self, conditions: list[Any]) -> Any:
        return self.m.Filter(should=conditions)


class _EdgeDialect(QdrantDialect):
    name = "edge"

    def __init__(self) -> None:
        import qdrant_edge

        self.m = qdrant_edge

    def match(self, key: str, value: str) -> Any:
        return self.m.FieldCondition(key, match=self.m.MatchValue(value))

    def match_any(self, key: str, values: list[str]) -> Any:
        return self.m.FieldCondition(key, match=self.m.MatchAny(list(values)))

    def range(self, key: str, gte: int | None, lte: int | None) -> Any:
        return self.m.FieldCondition(key, range=self.m.RangeFloat(gte=gte, lte=lte))

    def is_empty(self, key: str) -> Any:
        return self.m.IsEmptyCondition(key)

    def has_id(self, ids: list[str]) -> Any:
        return self.m.HasIdCondition(set(ids))

    def filter(self, must: list[Any], must_not: list[Any] | None = None) -> Any:
        return self.m.Filter(must=must, must_not=must_not or None)

    def any_of(self, conditions: list[Any]) -> Any:
        return self.m.Filter(should=conditions)


_DIALECTS: dict[str, QdrantDialect] = {}


def qdrant_dialect(name: str = "client") -> QdrantDialect:
    """The :class:`QdrantDialect` ``"client"`` (qdrant-client) or ``"edge"`` (qdrant-edge-py), made once.
    Raises ``ImportError`` when its package is not installed, ``ValueError`` for another name."""
    if name not in _DIALECTS:
        kinds: dict[str, type[QdrantDialect]] = {"client": _ClientDialect, "edge": _EdgeDialect}
        if name not in kinds:
            raise ValueError(f"unknown Qdrant dialect {name!r}; choose from {', '.join(kinds)}")
        _DIALECTS[name] = kinds[name]()
    return _DIALECTS[name]


def qdrant_patient_condition(patient_id: str | None, dialect: QdrantDialect | None = None) -> Any:
    """The Qdrant condition for one patient scope: ``IsEmpty(patient_id)`` (null or absent) for
    ``None``, else an exact keyword match."""
    d = dialect or qdrant_dialect("client")
    return d.is_empty("patient_id") if patient_id is None else d.match("patient_id", patient_id)


def to_qdrant(f: Filters, dialect: QdrantDialect | None = None) -> qm.Filter:
    """The filters as a Qdrant ``Filter`` in ``dialect`` (default: qdrant-client's models), with
    :func:`to_sql`'s semantics: ``patient_id`` None -> null or absent (``IsEmpty``); year bounds inclusive
    (a point without a year fails a range); ``sources`` matched on the lower-cased payload copy
    ``source_lc``; ``exclude_levels`` as ``must_not``; ``doc_ids`` as ``MatchAny``. The one mapping both
    Qdrant stores use (:func:`to_qdrant_edge` is this in the Edge dialect). Raises ``ImportError``
    without the dialect's package."""
    d = dialect or qdrant_dialect("client")
    must: list[Any] = [qdrant_patient_condition(f.patient_id, d)]
    if f.has_years:
        inside = d.range("year", f.year_min, f.year_max)
        must.append(d.any_of([inside, d.is_empty("year")]) if f.keep_undated else inside)
    if f.sources:
        must.append(d.match_any("source_lc", [s.lower() for s in f.sources]))
    if f.doc_ids:
        must.append(d.match_any("doc_id", list(f.doc_ids)))
    must_not: list[Any] = []
    if f.exclude_levels:
        must_not.append(d.match_any("hierarchy_level", list(f.exclude_levels)))
    return d.filter(must, must_not)


def to_qdrant_edge(f: Filters) -> Any:
    """:func:`to_qdrant` in qdrant-edge-py's classes (the Edge shard). Raises ``ImportError`` without it."""
    return to_qdrant(f, qdrant_dialect("edge"))
