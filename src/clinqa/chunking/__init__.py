"""Chunking strategies. ``hierarchical`` is the default; ``fixed``, ``section`` and ``hybrid``
exist for comparison (``clinqa eval chunking``).

>>> chunker = build_chunker(settings.chunking, counter, max_tokens=256)
>>> chunks = chunker.chunk(document)
"""

from __future__ import annotations

from clinqa.chunking.base import Chunk, Chunker, TokenCounter, chunk_id, header_for
from clinqa.chunking.fixed import FixedChunker
from clinqa.chunking.hierarchical import HierarchicalChunker
from clinqa.chunking.hybrid import HybridChunker
from clinqa.chunking.section import SectionChunker
from clinqa.settings import ChunkingSettings

STRATEGIES = ("hierarchical", "fixed", "section", "hybrid")

#: Bump when a code change alters the chunks produced from the same document and settings:
#: stored documents are then re-chunked on the next ingest (unchanged chunk texts still hit
#: the embedding cache).
CHUNKING_VERSION = 6  # 6: page ranges and the ocr flag on chunks, two-column PDF reading order, captions,
# references level; 5: chunk text Unicode-normalised (clinqa.text.normalize); 4: linear-time sentence
# windows, char cuts of over-long words, big table headers

__all__ = [
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
    """The chunker named by ``settings.strategy``.

    ``max_tokens`` is the encoder's limit (``settings.max_tokens`` overrides it when set).
    Raises ``ValueError`` for an unknown strategy.
    """
    limit = settings.max_tokens or max_tokens
    if settings.strategy == "hierarchical":
        return HierarchicalChunker(counter, limit, settings.target_tokens, settings.overlap_sentences,
                                   settings.overview_max_words, settings.paragraph_level)
    if settings.strategy == "fixed":
        return FixedChunker(counter, settings.fixed_words, settings.fixed_overlap_words)
    if settings.strategy == "section":
        return SectionChunker(counter)
    if settings.strategy == "hybrid":
        return HybridChunker(counter, limit)
    raise ValueError(f"unknown chunking strategy {settings.strategy!r}; choose from {STRATEGIES}")
