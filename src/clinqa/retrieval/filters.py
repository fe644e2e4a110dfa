"""Filters, re-exported from :mod:`clinqa.store.filters`, where they live beside their three
translations (SQL, NumPy mask, Qdrant). Kept so that ``from clinqa.retrieval.filters import Filters``
goes on working; retrieval depends on the store, never the other way round."""

from __future__ import annotations

from clinqa.store.filters import Filters, sql_literal, to_sql

__all__ = ["Filters", "sql_literal", "to_sql"]
