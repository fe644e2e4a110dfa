"""Context loss on hand-made text with known boundaries."""

from __future__ import annotations

from clinqa.chunking import FixedChunker, HierarchicalChunker
from clinqa.chunking.base import Chunk
from clinqa.chunking.tokens import WordCounter
from clinqa.documents.model import Block, Document, Section
from clinqa.evaluation.chunking import context_loss

DOC = Document(doc_id="d", title="T", sections=[Section(title="A", blocks=[
    Block(text="One two three. Four five six."),   # words 0-5, sentences start at 0 and 3
    Block(text="Seven eight. Nine ten."),           # words 6-9, sentences start at 6 and 8
])])


def chunk(body: str, level: str = "section") -> Chunk:
    return Chunk(chunk_id=body[:8], doc_id="d", text=body, body=body, hierarchy_level=level)


def test_definitions_by_hand() -> None:
    cases = {
        "One two three. Four five six.": (0, 0, 0),           # a whole paragraph
        "One two three. Four five six.\n\nSeven eight. Nine ten.": (0, 0, 0),
        "Four five six.": (0, 0, 1),                           # whole sentence, part of a paragraph
        "two three. Four": (1, 1, 1),                          # starts and ends mid-sentence
        "Four five six. Seven eight.": (0, 0, 1),              # ends at a sentence start, splits block 2
        "Nine ten.": (0, 0, 1),                                # ends at the document end
    }
    for body, (si, ei, sp) in cases.items():
        lc = context_loss(DOC, [chunk(body)])
        assert (lc.starts_inside, lc.ends_inside, lc.splits_paragraph) == (si, ei, sp), body
        assert lc.rate == float(si or ei or sp)


def test_overview_excluded_and_unlocatable_counts_as_split() -> None:
    lc = context_loss(DOC, [chunk("anything", "document"), chunk("not in the text")])
    assert (lc.chunks, lc.splits_paragraph, lc.rate) == (1, 1, 1.0)


def test_strategies() -> None:
    fixed = FixedChunker(WordCounter(), size=4).chunk(DOC)  # 0-4, 4-8, 8-10
    lc = context_loss(DOC, fixed)
    assert lc.chunks == 3 and lc.rate == 1.0
    hier = HierarchicalChunker(WordCounter(), max_tokens=256).chunk(DOC)
    assert context_loss(DOC, hier).rate == 0.0
