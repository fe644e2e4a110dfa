"""Second-stage reranking of the hybrid candidate pool (see :mod:`clinqa.rerank.base`)."""

from __future__ import annotations

from collections.abc import Callable

from clinqa.rerank.base import Reranker, rerank_hits
from clinqa.rerank.cross_encoder import CrossEncoderReranker
from clinqa.settings import RerankSettings

__all__ = ["RERANKERS", "CrossEncoderReranker", "Reranker", "build_reranker", "rerank_hits"]

#: ``settings -> Reranker`` (called only when ``settings.model`` is set)
RerankerBuilder = Callable[[RerankSettings], Reranker]


def _cross_encoder(s: RerankSettings) -> Reranker:
    """ONNX Runtime (no torch) when the folder holds an ``.onnx`` graph or BERT weights (what
    ``clinqa train reranker`` writes); PyTorch otherwise (other architectures; ``clinqa[rerank]``)."""
    assert s.model is not None
    from pathlib import Path

    from clinqa.rerank.onnx_cross_encoder import OnnxCrossEncoder, runs_on_onnx

    folder = Path(s.model).expanduser()
    if runs_on_onnx(folder):
        return OnnxCrossEncoder(folder, max_tokens=s.max_tokens, batch_size=s.batch_size, threads=s.threads)
    return CrossEncoderReranker(s.model, max_tokens=s.max_tokens, batch_size=s.batch_size, threads=s.threads)


#: the rerankers by kind. One kind so far, and no setting names it: ``rerank.model`` is a local
#: sequence-classification folder, run as a cross-encoder, on ONNX Runtime where the folder allows
#: (adding a ``rerank.kind`` setting would change every config hash, so it waits for a second kind)
RERANKERS: dict[str, RerankerBuilder] = {"cross-encoder": _cross_encoder}
#: the kind :func:`build_reranker` builds
DEFAULT_RERANKER = "cross-encoder"


def build_reranker(settings: RerankSettings) -> Reranker | None:
    """The configured reranker (:data:`RERANKERS`, kind :data:`DEFAULT_RERANKER`), or ``None`` when
    ``settings.model`` is unset (reranking off). Raises :class:`clinqa.errors.ConfigError` when the
    model folder cannot be loaded."""
    if not settings.model:
        return None
    return RERANKERS[DEFAULT_RERANKER](settings)
