"""Second-stage reranking of the hybrid candidate pool (see :mod:`clinqa.rerank.base`)."""

from __future__ import annotations

from clinqa.rerank.base import Reranker, rerank_hits
from clinqa.rerank.cross_encoder import CrossEncoderReranker
from clinqa.settings import RerankSettings

__all__ = ["CrossEncoderReranker", "Reranker", "build_reranker", "rerank_hits"]


def build_reranker(settings: RerankSettings) -> Reranker | None:
    """The configured reranker, or ``None`` when ``settings.model`` is unset (reranking off)."""
    if not settings.model:
        return None
    return CrossEncoderReranker(settings.model, max_tokens=settings.max_tokens,
                                batch_size=settings.batch_size, threads=settings.threads)
