"""Retrieval: filters (as data), RRF fusion and hybrid search."""

from clinqa.retrieval.filters import Filters, to_sql
from clinqa.retrieval.fusion import rrf
from clinqa.retrieval.hybrid import RetrievalResult, Retrieved, hybrid_search

__all__ = ["Filters", "RetrievalResult", "Retrieved", "hybrid_search", "rrf", "to_sql"]
