"""Extractive grounded answers: quote the most question-relevant sentences of the top
chunks, each followed by its citation ``[n]``. No language model; nothing is generated, so
every word of the answer is in a cited passage.

Units are sentences of paragraphs, items of lists (with their nested items) and rows of
tables (a row is quoted with its column headers:
``"Medication: Statins; Already Taking: Continue (Class I, LOE: B)"``).
Units are scored by cosine similarity to the question with the same bi-encoder used for
retrieval; the best ``max_sentences`` units scoring at least ``min_score`` are kept (the best
one always), then shown grouped by source in retrieval order, in their order within it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from clinqa.answer.types import Citation
from clinqa.chunking.sentences import split_sentences
from clinqa.embedding.base import Encoder
from clinqa.retrieval.hybrid import Retrieved

_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _attach_parentheticals(units: list[str]) -> list[str]:
    """Glue a unit that is only a parenthetical, e.g. "(Class I, Level of Evidence: B)", to the
    unit before it: on its own it is meaningless."""
    out: list[str] = []
    for u in units:
        if out and u.startswith("(") and u.rstrip(".").endswith(")"):
            out[-1] = f"{out[-1]} {u}"
        else:
            out.append(u)
    return out


def units_of(body: str, max_item_words: int = 60) -> list[str]:
    """Quotable units of a chunk body (see module docstring), in reading order.

    A list item is one unit together with its nested items (so "Yes: continue" keeps its
    question) when it has at most ``max_item_words`` words, else it is split into sentences.
    Questions (units ending in "?"), lead-ins ending in ":" and units under 3 words are
    not quotable on their own.
    """
    out: list[str] = []
    for para in re.split(r"\n\s*\n", body):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if not lines:
            continue
        if all(ln.lstrip().startswith("|") for ln in lines):
            rows = [ln for ln in lines if not _TABLE_RULE.match(ln.strip())]
            header = _cells(rows[0]) if len(rows) > 1 else []
            for row in rows[1:] if header else rows:
                cells = _cells(row)
                if header and len(header) == len(cells):
                    out.append("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True)))
                else:
                    out.append(" | ".join(cells))
        elif _LIST_MARK.match(lines[0]):
            base = len(lines[0]) - len(lines[0].lstrip())
            items: list[list[str]] = []
            for ln in lines:
                indent = len(ln) - len(ln.lstrip())
                if not items or (indent <= base and _LIST_MARK.match(ln)):
                    items.append([])
                items[-1].append(_LIST_MARK.sub("", ln).strip())
            for item_lines in items:
                item = " ".join(item_lines)
                if len(item.split()) <= max_item_words:
                    out.append(item)
                else:
                    for ln in item_lines:
                        out.extend(_attach_parentheticals(split_sentences(ln)))
        else:
            out.extend(_attach_parentheticals(split_sentences(" ".join(" ".join(lines).split()))))
    return [u for u in out if len(u.split()) >= 3 and not u.rstrip().endswith((":", "?"))]


@dataclass
class Extract:
    """The extractive answer text and the citations it uses (numbered from 1)."""

    text: str
    citations: list[Citation]


def extract_answer(
    question_vector: np.ndarray,
    hits: list[Retrieved],
    encoder: Encoder,
    max_sentences: int = 4,
    min_score: float = 0.3,
) -> Extract:
    """Build the extractive answer from ``hits`` (best first). ``question_vector``: ``(dim,)``
    unit vector of the question. Returns an empty text when the hits hold no quotable unit."""
    units: list[tuple[int, int, str]] = []  # (hit index, position, text)
    for hi, hit in enumerate(hits):
        for pos, u in enumerate(units_of(hit.chunk.body)):
            units.append((hi, pos, u))
    if not units:
        return Extract("", [])
    vecs = encoder.encode_passages([u for _, _, u in units])
    sims = vecs @ np.asarray(question_vector, dtype=np.float32)
    order = np.argsort(-sims, kind="stable")
    chosen: list[int] = []
    seen: set[str] = set()
    for i in order:
        key = " ".join(units[i][2].lower().split())
        if key in seen:
            continue
        if chosen and (sims[i] < min_score or len(chosen) >= max_sentences):
            break
        seen.add(key)
        chosen.append(int(i))
    chosen.sort(key=lambda i: (units[i][0], units[i][1]))
    numbers: dict[int, int] = {}
    citations: list[Citation] = []
    lines: list[str] = []
    for i in chosen:
        hi, _, text = units[i]
        if hi not in numbers:
            numbers[hi] = len(numbers) + 1
            c = hits[hi].chunk
            citations.append(Citation(numbers[hi], c.chunk_id, c.doc_id, c.title, c.section, c.year,
                                      c.source, c.url, round(float(hits[hi].score), 6)))
        cit = citations[numbers[hi] - 1]
        cit.quote = (cit.quote + " " + text).strip()
        lines.append(f"{text.rstrip()} [{numbers[hi]}]")
    return Extract(" ".join(lines), citations)
