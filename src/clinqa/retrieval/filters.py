"""Filters are data. Every Store translates them into its own query language and applies
them inside the query (pre-filtering), never to results in Python after a top-k cut.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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


def sql_literal(value: str) -> str:
    """A single-quoted SQL string literal with embedded quotes doubled."""
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
