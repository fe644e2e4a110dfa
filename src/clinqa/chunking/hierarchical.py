"""Hierarchical chunking, the product default.

Level ``document``: one overview chunk per document (title, authors, year, organisation,
source, topics, DOI, section list, then the abstract or the first section's text), cut to
``overview_max_words`` words.

Level ``section``: each section's own blocks, in order, with the context header (document
title and section path) prepended. Consecutive short blocks are merged while the chunk stays
within ``target_tokens`` (a lead-in block ending in ":" stays with the block or the run of
list items it introduces, up to the model limit); a block is never cut, except one longer than the model limit
(``max_tokens``), which becomes sentence windows overlapping by ``overlap_sentences``
sentences (:func:`clinqa.chunking.windows.sentence_windows`).

Level ``paragraph`` (with ``paragraph_level=True``): additionally one chunk per block.

This follows the small-to-big / parent-document pattern common in RAG systems, with the
section path as contextual header (cf. Anthropic's "contextual retrieval", 2024).
"""

from __future__ import annotations

from clinqa.chunking.base import Chunk, TokenCounter, header_for, make_chunk, unique_ids
from clinqa.chunking.windows import sentence_windows
from clinqa.documents.model import Block, Document
from clinqa.text import normalize
from clinqa.text.words import NON_SPACE


def overview_text(doc: Document, max_words: int) -> str:
    """Body of the overview chunk: metadata lines then abstract/first section, capped."""
    lines: list[str] = []
    if doc.authors:
        lines.append("Authors: " + ", ".join(doc.authors))
    if doc.year:
        lines.append(f"Year: {doc.year}")
    if doc.organization:
        lines.append(f"Organization: {doc.organization}")
    if doc.source and doc.source != doc.organization:
        lines.append(f"Source: {doc.source}")
    if doc.note_date:
        lines.append(f"Note date: {doc.note_date}")
    if doc.topics:
        lines.append("Topics: " + ", ".join(doc.topics))
    if doc.doi:
        lines.append(f"DOI: {doc.doi}")
    titles = [s.title for s in doc.sections if s.title]
    if titles:
        lines.append("Sections: " + "; ".join(titles))
    lead = doc.abstract.strip()
    if not lead:
        for _, sec in doc.walk():
            if sec.blocks:
                lead = "\n\n".join(b.text for b in sec.blocks)
                break
    text = "\n".join(lines) + ("\n\n" + lead if lead else "")
    return cap_words(text, max_words)


def cap_words(text: str, max_words: int) -> str:
    """``text`` cut after its ``max_words``-th whitespace-separated word (layout kept)."""
    for i, m in enumerate(NON_SPACE.finditer(text), start=1):
        if i == max_words:
            return text[: m.end()].strip()
    return text.strip()


def _introduced(group: list[Block], block: Block) -> bool:
    """True when ``block`` continues what a lead-in in ``group`` introduces: it directly follows
    a block ending in ":", or it is a list item in an unbroken run of list items after one."""
    if group[-1].text.rstrip().endswith(":"):
        return True
    if block.kind != "list":
        return False
    for prev in reversed(group):
        if prev.kind != "list":
            return prev.text.rstrip().endswith(":")
    return False


class HierarchicalChunker:
    """Overview chunk + section chunks (+ optional paragraph chunks); see module docstring.

    ``counter`` must count tokens with the embedding model's tokenizer; ``max_tokens`` is
    the model limit (e.g. 256 for all-MiniLM-L6-v2) and includes the header and special
    tokens.
    """

    name = "hierarchical"

    def __init__(
        self,
        counter: TokenCounter,
        max_tokens: int,
        target_tokens: int = 200,
        overlap_sentences: int = 2,
        overview_max_words: int = 2000,
        paragraph_level: bool = False,
    ) -> None:
        self.counter = counter
        self.max_tokens = max_tokens
        self.target_tokens = min(target_tokens, max_tokens)
        self.overlap = overlap_sentences
        self.overview_max_words = overview_max_words
        self.paragraph_level = paragraph_level

    def chunk(self, doc: Document) -> list[Chunk]:
        """Chunks of ``doc``: the overview first, then sections in reading order."""
        doc_hash = doc.content_hash()
        out: list[Chunk] = []
        ov = overview_text(doc, self.overview_max_words)
        if ov or doc.title.strip():  # a whitespace title alone makes no overview
            out.append(
                make_chunk(doc, body=ov or doc.title.strip(), section_path=[], index=0, level="document",
                           counter=self.counter, header=doc.title, doc_hash=doc_hash)
            )
        for path, section in doc.walk():
            if not section.blocks:
                continue
            out.extend(self._section_chunks(doc, list(path), section.blocks, doc_hash))
        return unique_ids(out)

    def _section_chunks(
        self, doc: Document, path: list[str], blocks: list[Block], doc_hash: str
    ) -> list[Chunk]:
        header = normalize(header_for(doc, path))  # counted as make_chunk will store it
        special = self.counter.special_tokens
        # tokens of "header\n\n" as part of the composed text (exact for WordPiece)
        head_cost = (self.counter.count(header) - special) if header else 0
        costs = [c - special for c in self.counter.count_many([b.text for b in blocks])]
        limit_body = self.max_tokens - special - head_cost
        target_body = self.target_tokens - special - head_cost
        if limit_body < 16:  # pathological header: keep at least some room for text
            limit_body = max(16, self.max_tokens - special)
            target_body = limit_body
        bodies: list[tuple[str, bool, list[Block]]] = []  # (body, split, source blocks)
        group: list[Block] = []
        group_cost = 0

        def flush() -> None:
            nonlocal group, group_cost
            if group:
                bodies.append(("\n\n".join(b.text for b in group), False, group))
            group, group_cost = [], 0

        for block, cost in zip(blocks, costs, strict=True):
            if cost > limit_body:
                flush()
                for w in sentence_windows(block.text, block.kind, limit_body, self.counter, self.overlap):
                    bodies.append((w, True, [block]))
                continue
            # "\n\n" joins add no WordPiece tokens. A lead-in ending in ":" ("Women:", "staged by
            # the following criteria:") stays with what it introduces -- the next block, or the
            # whole run of list items after it -- while the model limit allows: a list item
            # separated from its label can be quoted as the opposite of what the source says.
            if group and group_cost + cost > target_body and not (
                group_cost + cost <= limit_body and _introduced(group, block)
            ):
                flush()
            group.append(block)
            group_cost += cost
        flush()
        chunks = [
            make_chunk(doc, body=b, section_path=path, index=i, level="section",
                       counter=self.counter, header=header, split=s, doc_hash=doc_hash, blocks=src)
            for i, (b, s, src) in enumerate(bodies)
        ]
        if self.paragraph_level:
            base = len(chunks)
            para_bodies: list[tuple[str, bool, Block]] = []
            for block, cost in zip(blocks, costs, strict=True):
                if cost > limit_body:
                    para_bodies.extend(
                        (w, True, block)
                        for w in sentence_windows(block.text, block.kind, limit_body, self.counter, self.overlap)
                    )
                else:
                    para_bodies.append((block.text, False, block))
            chunks.extend(
                make_chunk(doc, body=b, section_path=path, index=base + i, level="paragraph",
                           counter=self.counter, header=header, split=s, doc_hash=doc_hash, blocks=[src])
                for i, (b, s, src) in enumerate(para_bodies)
            )
        return chunks
