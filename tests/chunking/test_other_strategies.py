"""fixed / section / hybrid strategies and the strategy factory."""

from __future__ import annotations

import pytest

from clinqa.chunking import FixedChunker, HybridChunker, SectionChunker, build_chunker
from clinqa.chunking.fixed import word_windows
from clinqa.chunking.tokens import WordCounter
from clinqa.documents.model import Block, Document, Section
from clinqa.settings import ChunkingSettings


def test_word_windows() -> None:
    assert word_windows(list("abcdefghij"), 4) == [(0, 4), (4, 8), (8, 10)]
    assert word_windows(list("abcdefghij"), 4, overlap=2) == [(0, 4), (2, 6), (4, 8), (6, 10)]
    assert word_windows([], 4) == []


def doc() -> Document:
    return Document(doc_id="d", title="T", sections=[
        Section(title="A", blocks=[Block(text=" ".join(["a"] * 7)), Block(text=" ".join(["b"] * 5))]),
        Section(title="B", blocks=[Block(text=" ".join(["c"] * 3))]),
    ])


def test_fixed_ignores_structure() -> None:
    chunks = FixedChunker(WordCounter(), size=10).chunk(doc())
    assert [c.body for c in chunks] == ["a a a a a a a b b b", "b b c c c"]
    assert chunks[1].section_path == ["A"]  # first word of the window lies in A
    assert {c.hierarchy_level for c in chunks} == {"window"}


def test_section_one_chunk_per_section() -> None:
    chunks = SectionChunker(WordCounter()).chunk(doc())
    assert [c.section_path for c in chunks] == [["A"], ["B"]]
    assert chunks[0].body == " ".join(["a"] * 7) + "\n\n" + " ".join(["b"] * 5)


def test_hybrid_falls_back_to_windows() -> None:
    # "T > A" header (3 words) + 12 body words = 15 > 10 -> windows of 5 words
    h = HybridChunker(WordCounter(), max_tokens=10, window_words=5)
    chunks = h.chunk(doc())
    assert [c.body for c in chunks if c.section_path == ["A"]] == ["a a a a a", "a a b b b", "b b"]
    assert [c.hierarchy_level for c in chunks if c.section_path == ["B"]] == ["section"]


def test_factory() -> None:
    assert build_chunker(ChunkingSettings(strategy="fixed"), WordCounter(), 256).name == "fixed"
    hier = build_chunker(ChunkingSettings(), WordCounter(), 256)
    assert hier.name == "hierarchical" and hier.max_tokens == 256
    assert build_chunker(ChunkingSettings(max_tokens=128), WordCounter(), 256).max_tokens == 128
    with pytest.raises(ValueError):
        build_chunker(ChunkingSettings.model_construct(strategy="nope"), WordCounter(), 256)
