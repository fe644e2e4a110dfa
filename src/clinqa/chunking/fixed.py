"""Fixed-size chunking: word windows over the whole document, structure ignored.

The baseline every structure-aware strategy is compared against (``fixed_words`` = 512 by
default, as in many RAG tutorials). Windows cut sentences and paragraphs wherever the count
falls; each chunk records the section in which its first word lies.
"""

from __future__ import annotations

from clinqa.chunking.base import Chunk, TokenCounter, make_chunk
from clinqa.documents.model import Block, Document


def word_windows(words: list[str], size: int, overlap: int = 0) -> list[tuple[int, int]]:
    """``[(start, end), ...]`` word index ranges of windows of ``size`` words that advance by
    ``size - overlap`` (at least 1); the last window ends at ``len(words)``."""
    if not words:
        return []
    step = max(1, size - overlap)
    out = []
    start = 0
    while True:
        end = min(start + size, len(words))
        out.append((start, end))
        if end >= len(words):
            return out
        start += step


class FixedChunker:
    """``size``-word windows (``overlap`` words shared) over the document's full text."""

    name = "fixed"

    def __init__(self, counter: TokenCounter | None, size: int = 512, overlap: int = 0) -> None:
        self.counter = counter
        self.size = size
        self.overlap = overlap

    def chunk(self, doc: Document) -> list[Chunk]:
        """Word-window chunks of ``doc`` (level ``window``), header = document title only."""
        words: list[str] = []
        owner: list[tuple[str, ...]] = []
        block_of: list[Block] = []
        for path, sec in doc.walk():
            for b in sec.blocks:
                w = b.text.split()
                words.extend(w)
                owner.extend([path] * len(w))
                block_of.extend([b] * len(w))
        doc_hash = doc.content_hash()
        return [
            make_chunk(doc, body=" ".join(words[s:e]), section_path=[], index=i, level="window",
                       counter=self.counter, header=doc.title, doc_hash=doc_hash,
                       blocks=list({id(b): b for b in block_of[s:e]}.values()))
            .model_copy(update={"section_path": list(owner[s])})
            for i, (s, e) in enumerate(word_windows(words, self.size, self.overlap))
        ]
