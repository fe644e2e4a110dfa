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
from dataclasses import dataclass, field

import numpy as np

from clinqa.answer.types import Citation, citation_for
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


def units_of(body: str, max_item_words: int = 60, max_label_words: int = 12) -> list[str]:
    """Quotable units of a chunk body as strings, label first (see :func:`labelled_units`)."""
    return [f"{lab} {text}" if lab else text for lab, text in labelled_units(body, max_item_words, max_label_words)]


def labelled_units(body: str, max_item_words: int = 60, max_label_words: int = 12) -> list[tuple[str, str]]:
    """Quotable units of a chunk body (see module docstring), in reading order.

    A list item is one unit together with its nested items (so "Yes: continue" keeps its
    question) when it has at most ``max_item_words`` words, else it is split into sentences.
    A short lead-in paragraph ending in ":" ("Women:") is not quoted itself but prefixes every
    list item and table row it introduces ("Women: CHA2DS2-VASc = 2: OAC may be considered"),
    so a quoted rule never loses whom it applies to. Questions (units ending in "?"), other
    lead-ins and units under 3 words are not quotable on their own.
    """
    out: list[tuple[str, str]] = []
    label = ""
    for para in re.split(r"\n\s*\n", body):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if not lines:
            continue
        if all(ln.lstrip().startswith("|") for ln in lines):
            rows = [ln for ln in lines if not _TABLE_RULE.match(ln.strip())]
            header = [_clean(h) for h in _cells(rows[0])] if len(rows) > 1 else []
            for row in rows[1:] if header else rows:
                cells = [_clean(c) for c in _cells(row)]
                if header and len(header) == len(cells):
                    parts = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True) if c]
                else:
                    parts = [c for c in cells if c]
                if parts:
                    out.append((label, "; ".join(parts)))
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
                    out.append((label, item))
                else:
                    for ln in item_lines:
                        out.extend((label, u) for u in _attach_parentheticals(split_sentences(ln)))
        else:
            text = " ".join(" ".join(lines).split())
            if text.endswith(":") and len(text.split()) <= max_label_words:
                label = text
                continue
            out.extend(("", u) for u in _attach_parentheticals(split_sentences(text)))
            label = ""  # a label introduces the run of lists/tables after it, until the next paragraph
    return [(lab, t) for lab, t in out
            if len((lab + " " + t).split()) >= 3 and len(t.split()) >= 1 and not t.rstrip().endswith((":", "?"))]


def _clean(cell: str) -> str:
    """A table cell without Markdown emphasis markers."""
    return " ".join(cell.replace("**", "").replace("__", "").split())


@dataclass
class Extract:
    """The extractive answer text and the citations it uses (numbered from 1). ``quotes`` maps
    each cited chunk id to its quoted units as they stand in the chunk (labels not prefixed)."""

    text: str
    citations: list[Citation]
    quotes: dict[str, list[str]] = field(default_factory=dict)


def extract_answer(
    question_vector: np.ndarray,
    hits: list[Retrieved],
    encoder: Encoder,
    max_sentences: int = 4,
    min_score: float = 0.3,
    unit_weight: float = 0.6,
    max_units: int = 120,
) -> Extract:
    """Build the extractive answer from ``hits`` (best first).

    ``question_vector``: ``(dim,)`` unit vector of the question. Each unit is scored
    ``unit_weight * cos(question, unit) + (1 - unit_weight) * cos(question, chunk)``: a unit
    must match the question and come from a passage that does (table rows and list items
    rarely repeat the question's words); ``cos(question, chunk)`` is the dense search's score when
    the hit has one (``scores["dense"]``), else computed. The best ``max_sentences`` units scoring at least
    ``min_score`` are kept (the best one always). In the text, the units of each cited chunk
    follow its section title, then ``[n]``: "Intraventricular colistimethate: 10 mg ... [2]".
    Returns an empty text when the hits hold no quotable unit.
    """
    units: list[tuple[int, int, str]] = []  # (hit index, position, text with label)
    labels: dict[tuple[int, int], tuple[str, str]] = {}
    for hi, hit in enumerate(hits):
        for pos, (lab, text) in enumerate(labelled_units(hit.chunk.body)):
            units.append((hi, pos, f"{lab} {text}" if lab else text))
            labels[(hi, pos)] = (lab, text)
    units = units[:max_units]
    if not units:
        return Extract("", [])
    q = np.asarray(question_vector, dtype=np.float32)
    # a hit from the dense list already carries cos(question, chunk): encode only the others
    known = [h.scores.get("dense") for h in hits]
    need = [i for i, s in enumerate(known) if s is None]
    vecs = encoder.encode_passages([u for _, _, u in units] + [hits[i].chunk.text for i in need])
    unit_sims = vecs[: len(units)] @ q
    chunk_sims = np.array([0.0 if s is None else s for s in known], dtype=np.float32)
    for j, i in enumerate(need):
        chunk_sims[i] = vecs[len(units) + j] @ q
    scores = unit_weight * unit_sims + (1 - unit_weight) * chunk_sims[[hi for hi, _, _ in units]]
    order = np.argsort(-scores, kind="stable")
    chosen: list[int] = []
    seen: set[str] = set()
    for i in order:
        key = " ".join(units[i][2].lower().split())
        if key in seen:
            continue
        if chosen and (scores[i] < min_score or len(chosen) >= max_sentences):
            break
        seen.add(key)
        chosen.append(int(i))
    chosen.sort(key=lambda i: (units[i][0], units[i][1]))
    numbers: dict[int, int] = {}
    citations: list[Citation] = []
    quotes: dict[int, list[str]] = {}
    shown: dict[int, list[str]] = {}  # the rendered text: a label shown once per run of units
    verbatim: dict[str, list[str]] = {}
    last_label: dict[int, str] = {}
    for i in chosen:
        hi, pos, text = units[i]
        if hi not in numbers:
            numbers[hi] = len(numbers) + 1
            c = hits[hi].chunk
            citations.append(citation_for(numbers[hi], c, hits[hi].score))
            quotes[hi] = []
            shown[hi] = []
        quotes[hi].append(text.rstrip())
        lab, bare = labels[(hi, pos)]
        verbatim.setdefault(hits[hi].chunk.chunk_id, []).append(bare.strip())
        shown[hi].append(_end(bare.rstrip()) if lab and lab == last_label.get(hi) else _end(text.rstrip()))
        last_label[hi] = lab
    parts: list[str] = []
    for hi, n in numbers.items():
        citations[n - 1].quote = " ".join(quotes[hi])
        path = hits[hi].chunk.section_path
        lead = f"{path[-1]}: " if path else ""
        parts.append(f"{lead}{' '.join(shown[hi])} [{n}]")
    return Extract("\n".join(parts), citations, verbatim)


def _end(text: str) -> str:
    """``text`` with closing punctuation, so quoted list items and rows read as sentences."""
    return text if text.endswith((".", "!", ")", "]", ";")) else text + "."
