"""Chunking comparison and the context-loss measure.

Context loss (defined here, tested on hand-made text in tests/evaluation/test_chunking_eval.py):
let ``W`` be the document body as the sequence of whitespace-separated words of all its
blocks in reading order, ``S`` the positions of the first word of every sentence (pysbd,
per block; a block's first word always starts a sentence) and ``P`` the blocks' word spans.
A chunk whose body covers ``W[s:e]``

- *starts inside a sentence* when ``s`` is not in ``S``;
- *ends inside a sentence* when ``e`` is neither in ``S`` nor ``len(W)``;
- *splits a paragraph* when it overlaps a block ``[b, c)`` without containing all of it.

A chunk whose words do not occur contiguously in ``W`` (a table window that repeats its
header row) counts as splitting a paragraph. **Context loss** is the share of a strategy's
chunks (overview chunks excluded) with at least one of the three.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clinqa.chunking.base import Chunk
from clinqa.chunking.sentences import split_sentences
from clinqa.documents.model import Document


@dataclass
class LossCounts:
    """Counts behind context loss; ``rate`` is ``lossy / chunks``."""

    chunks: int = 0
    starts_inside: int = 0
    ends_inside: int = 0
    splits_paragraph: int = 0
    lossy: int = 0
    words: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Context loss: share of chunks with any loss."""
        return self.lossy / self.chunks if self.chunks else 0.0

    def add(self, other: LossCounts) -> None:
        """Accumulate another document's counts."""
        for f in ("chunks", "starts_inside", "ends_inside", "splits_paragraph", "lossy", "words"):
            setattr(self, f, getattr(self, f) + getattr(other, f))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counts and rate."""
        return {"chunks": self.chunks, "mean_words": self.words / self.chunks if self.chunks else 0.0,
                "starts_inside": self.starts_inside, "ends_inside": self.ends_inside,
                "splits_paragraph": self.splits_paragraph, "context_loss": self.rate}


Structure = tuple[list[str], set[int], list[tuple[int, int]]]


def _structure(doc: Document) -> Structure:
    """``(W, S, P)`` of the module docstring: body words, sentence-start positions, block spans."""
    words: list[str] = []
    starts: set[int] = set()
    blocks: list[tuple[int, int]] = []
    for _, sec in doc.walk():
        for b in sec.blocks:
            b0 = len(words)
            sentences = split_sentences(" ".join(b.text.split())) if b.kind == "paragraph" else b.text.splitlines()
            for s in sentences:
                w = s.split()
                if w:
                    starts.add(len(words))
                    words.extend(w)
            blocks.append((b0, len(words)))
    return words, starts, blocks


def _locate(words: list[str], target: list[str], hint: int) -> int | None:
    n = len(target)
    if not n:
        return None
    for lo, hi in ((hint, len(words)), (0, hint)):
        for i in range(lo, hi - n + 1):
            if words[i] == target[0] and words[i : i + n] == target:
                return i
    return None


def context_loss(doc: Document, chunks: Iterable[Chunk], structure: Structure | None = None) -> LossCounts:
    """Context-loss counts of ``chunks`` (from ``doc``) by the definition in the module docstring.
    ``structure``: ``doc``'s ``(W, S, P)`` when the caller already has it (sentence splitting is
    the costly part, and it does not depend on the strategy)."""
    words, starts, blocks = structure if structure is not None else _structure(doc)
    out = LossCounts()
    hint = 0
    for c in chunks:
        if c.hierarchy_level == "document":
            continue
        target = c.body.split()
        out.chunks += 1
        out.words += len(target)
        s = _locate(words, target, hint)
        if s is None:
            out.splits_paragraph += 1
            out.lossy += 1
            continue
        e = s + len(target)
        hint = s
        si = s not in starts
        ei = e not in starts and e != len(words)
        sp = any(b < e and c_ > s and not (s <= b and e >= c_) for b, c_ in blocks)
        out.starts_inside += si
        out.ends_inside += ei
        out.splits_paragraph += sp
        if si or ei or sp:
            out.lossy += 1
            if len(out.examples) < 3:
                out.examples.append(c.chunk_id)
    return out


#: the strategies compared by ``clinqa eval chunking``: name -> chunking settings overrides
STRATEGIES: dict[str, dict[str, Any]] = {
    "fixed (512 words)": {"strategy": "fixed", "fixed_words": 512},
    "section": {"strategy": "section"},
    "hybrid": {"strategy": "hybrid"},
    "hierarchical": {"strategy": "hierarchical"},
    "hierarchical + paragraphs": {"strategy": "hierarchical", "paragraph_level": True},
}


def compare_chunking(dataset: Any, settings: Any, distractors: int | None = None, seed: int = 0,
                     depth: int = 100, progress: bool = True,
                     strategies: dict[str, dict[str, Any]] | None = None,
                     reference: str = "hierarchical") -> list[dict[str, Any]]:
    """For each strategy: chunk count, mean words, context loss, the share of chunks over the
    encoder's token limit (their tail is silently truncated when embedded: a loss the
    context-loss measure does not see), and retrieval metrics (MRR@10,
    Hit@10 with CIs) from :func:`clinqa.evaluation.retrieval.evaluate_retrieval` on its own
    throwaway store (the embedding cache is shared, so identical chunk texts embed once).

    Each row's ``vs_reference`` holds, for MRR@10 and Hit@10 of the hybrid run, the difference to
    the ``reference`` strategy (the product default; the first strategy if ``reference`` is not
    among them) and the p-value of a paired randomization test over the judged queries
    (:func:`clinqa.evaluation.metrics.paired_test`, 10,000 sign flips, seeded)."""
    from clinqa.chunking import build_chunker
    from clinqa.evaluation import metrics as M
    from clinqa.evaluation.retrieval import build_eval_pipeline, evaluate_retrieval

    rows = []
    per_query: dict[str, dict[str, dict[str, float]]] = {}
    ids = dataset.subset_ids(distractors, seed)
    structures: dict[str, Structure] = {}  # per document, shared by the strategies
    for name, over in (strategies or STRATEGIES).items():
        s = settings.model_copy(update={"chunking": settings.chunking.model_copy(update=over)})
        pipe, _, _ = build_eval_pipeline(dataset, s, distractors, seed, progress)
        ev = evaluate_retrieval(dataset, s, seed=seed, depth=depth, progress=progress, pipe=pipe)
        per_query[name] = ev.per_query["hybrid"]
        enc = pipe.encoder
        chunker = build_chunker(s.chunking, enc.token_counter, enc.max_tokens)
        loss = LossCounts()
        over = 0
        for doc in dataset.documents(ids):
            chunks = chunker.chunk(doc)
            st = structures.get(doc.doc_id)
            if st is None:
                st = structures[doc.doc_id] = _structure(doc)
            loss.add(context_loss(doc, chunks, st))
            over += sum(c.n_tokens > enc.max_tokens for c in chunks if c.hierarchy_level != "document")
        rows.append({"strategy": name, **loss.to_dict(), "store_chunks": ev.n_chunks,
                     "over_limit": over / loss.chunks if loss.chunks else 0.0,
                     "MRR@10": ev.metrics["hybrid"]["MRR@10"], "Hit@10": ev.metrics["hybrid"]["Hit@10"]})
    ref = reference if reference in per_query else next(iter(per_query), None)
    for row in rows:
        a, b = per_query[row["strategy"]], per_query[ref]
        row["vs_reference"] = {"strategy": ref, **{
            m: {k: v for k, v in M.paired_test({q: x[m] for q, x in a.items()}, {q: x[m] for q, x in b.items()},
                                              seed=seed).items() if k in ("diff", "p_value")}
            for m in ("MRR@10", "Hit@10")}}
    return rows
