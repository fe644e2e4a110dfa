"""Hybrid chunking: a section per chunk, falling back to fixed word windows when a section
is longer than the model limit (windows may cut sentences and paragraphs)."""

from __future__ import annotations

from clinqa.chunking.base import Chunk, TokenCounter, header_for, make_chunk, unique_ids
from clinqa.chunking.fixed import word_windows
from clinqa.documents.model import Document


class HybridChunker:
    """Section chunks; a section over ``max_tokens`` becomes ``window_words``-word windows."""

    name = "hybrid"

    def __init__(self, counter: TokenCounter, max_tokens: int, window_words: int = 150,
                 overlap_words: int = 0) -> None:
        self.counter = counter
        self.max_tokens = max_tokens
        self.window_words = window_words
        self.overlap_words = overlap_words

    def chunk(self, doc: Document) -> list[Chunk]:
        """Section chunks, over-long sections as word windows (level ``window``)."""
        doc_hash = doc.content_hash()
        out: list[Chunk] = []
        for path, sec in doc.walk():
            if not sec.blocks:
                continue
            body = "\n\n".join(b.text for b in sec.blocks)
            header = header_for(doc, path)
            whole = make_chunk(doc, body=body, section_path=list(path), index=0, level="section",
                               counter=self.counter, header=header, doc_hash=doc_hash, blocks=sec.blocks)
            if whole.n_tokens <= self.max_tokens:
                out.append(whole)
                continue
            words = body.split()
            block_of = [b for b in sec.blocks for _ in b.text.split()]
            for i, (s, e) in enumerate(word_windows(words, self.window_words, self.overlap_words)):
                out.append(make_chunk(doc, body=" ".join(words[s:e]), section_path=list(path), index=i,
                                      level="window", counter=self.counter, header=header,
                                      doc_hash=doc_hash,
                                      blocks=list({id(b): b for b in block_of[s:e]}.values())))
        return unique_ids(out)
