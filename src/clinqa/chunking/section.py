"""Section chunking: one chunk per section (its own blocks), whatever its length.

A section longer than the model limit is truncated by the encoder: that loss is what the
chunking comparison measures.
"""

from __future__ import annotations

from clinqa.chunking.base import Chunk, TokenCounter, make_chunk, unique_ids
from clinqa.documents.model import Document


class SectionChunker:
    """Each section with blocks becomes one chunk (level ``section``) with its header."""

    name = "section"

    def __init__(self, counter: TokenCounter | None) -> None:
        self.counter = counter

    def chunk(self, doc: Document) -> list[Chunk]:
        """One chunk per non-empty section, in reading order."""
        doc_hash = doc.content_hash()
        return unique_ids([
            make_chunk(doc, body="\n\n".join(b.text for b in sec.blocks), section_path=list(path),
                       index=0, level="section", counter=self.counter, doc_hash=doc_hash, blocks=sec.blocks)
            for path, sec in doc.walk()
            if sec.blocks
        ])
