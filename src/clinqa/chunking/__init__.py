"""Chunking strategies. ``hierarchical`` is the default; ``fixed``, ``section`` and ``hybrid``
exist for comparison (``clinqa eval chunking``).

>>> chunker = build_chunker(settings.chunking, counter, max_tokens=256)
>>> chunks = chunker.chunk(document)
"""

from __future__ import annotations

from collections.abc import Callable

from clinqa.chunking.base import Chunk, Chunker, TokenCounter, chunk_id, header_for
from clinqa.chunking.fixed import FixedChunker
from clinqa.chunking.hierarchical import HierarchicalChunker
from clinqa.chunking.hybrid import HybridChunker
from clinqa.chunking.section import SectionChunker
from clinqa.settings import ChunkingSettings

#: Bump when a code change alters the chunks produced from the same document and settings:
#: stored documents are then re-chunked on the next ingest (unchanged chunk texts still hit
#: the embedding cache).
CHUNKING_VERSION = 6  # 6: page ranges and the ocr flag on chunks, two-column PDF reading order, captions,
# references level; 5: chunk text Unicode-normalised (clinqa.text.normalize); 4: linear-time sentence
# windows, char cuts of over-long words, big table headers

#: ``(settings, token counter, token limit) -> Chunker``
ChunkerBuilder = Callable[[ChunkingSettings, TokenCounter, int], Chunker]


def _hierarchical(s: ChunkingSettings, counter: TokenCounter, limit: int) -> Chunker:
    return HierarchicalChunker(counter, limit, s.target_tokens, s.overlap_sentences, s.overview_max_words,
                               s.paragraph_level)


def _fixed(s: ChunkingSettings, counter: TokenCounter, limit: int) -> Chunker:
    return FixedChunker(counter, s.fixed_words, s.fixed_overlap_words)


def _section(s: ChunkingSettings, counter: TokenCounter, limit: int) -> Chunker:
    return SectionChunker(counter)


def _hybrid(s: ChunkingSettings, counter: TokenCounter, limit: int) -> Chunker:
    return HybridChunker(counter, limit)


#: the chunkers by ``chunking.strategy`` (the settings ``Literal`` names these keys;
#: tests/test_registries.py checks it)
CHUNKERS: dict[str, ChunkerBuilder] = {
    "hierarchical": _hierarchical,
    "fixed": _fixed,
    "section": _section,
    "hybrid": _hybrid,
}
STRATEGIES = tuple(CHUNKERS)

__all__ = [
    "CHUNKERS",
    "CHUNKING_VERSION",
    "STRATEGIES",
    "Chunk",
    "Chunker",
    "FixedChunker",
    "HierarchicalChunker",
    "HybridChunker",
    "SectionChunker",
    "TokenCounter",
    "build_chunker",
    "chunk_id",
    "header_for",
]


def build_chunker(settings: ChunkingSettings, counter: TokenCounter, max_tokens: int) -> Chunker:
    """The chunker :data:`CHUNKERS` holds for ``settings.strategy``.

    ``max_tokens`` is the encoder's limit (``settings.max_tokens`` overrides it when set).
    Raises ``ValueError`` for an unknown strategy.
    """
    builder = CHUNKERS.get(settings.strategy)
    if builder is None:
        raise ValueError(f"unknown chunking strategy {settings.strategy!r}; choose from {STRATEGIES}")
    return builder(settings, counter, settings.max_tokens or max_tokens)
