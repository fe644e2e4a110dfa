"""Refusal wording and related topics: what a refusal tells the reader.

A refusal is one short plain sentence of why (``Answer.answer`` and ``Answer.reason``), then the
closest topics the documents do have, only when they are close (``Answer.related``, shown once by
the CLI and the web page as a list). Numbers (the gate's signal and threshold) stay in
``Answer.gate``.

- The dense gate refused: "The documents do not cover this question."
- A key term is missing (:mod:`clinqa.answer.answerability`): "The documents do not mention
  amoxicillin." when no chunk of the corpus has it, else "The passages found do not mention
  children." (the corpus has the word, but not in the passages that would answer).
- A year range emptied the answer: "Nothing close enough is dated in the years 2024-...".

Related topics: the distinct (document, last heading) pairs of the top hits, listed only when
the gate signal is at least the *related* threshold, a second, lower threshold calibrated with
the gate (:mod:`clinqa.answer.calibration`): questions clearly off topic ("How do I change a
car tyre?") get no topics instead of five unrelated guidelines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clinqa.retrieval.hybrid import Retrieved

NOT_COVERED = "The documents do not cover this question."
NO_MATCH = "No passage matched the question under the applied filters."
NO_QUOTE = "The passages found contain no sentence that answers this question."
MODEL_REFUSED = "The language model found that the passages found do not answer this question."


def related(hits: Sequence[Retrieved], n: int, exclude: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Up to ``n`` related topics from ``hits`` (best first): one per (document, last heading),
    ``{"title", "section", "chunk_id", "doc_id", "note_date"}``; ``section`` is the last heading of
    the chunk's section path ("" for a document without sections). ``exclude``: chunk ids to skip."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for h in hits:
        c = h.chunk
        if c.chunk_id in exclude:
            continue
        section = c.section_path[-1] if c.section_path else ""
        key = (c.doc_id, section)
        if key in seen:
            continue
        seen.add(key)
        out.append({"title": c.title or c.doc_id, "section": section, "chunk_id": c.chunk_id, "doc_id": c.doc_id,
                    "note_date": c.note_date.isoformat() if c.note_date else None})
        if len(out) >= n:
            break
    return out


def topic_label(t: dict[str, Any]) -> str:
    """``"Title > section"`` (the ``related_topics`` string of one related topic); a patient note's
    date is added: ``"Progress note > Plan (2023-04-02)"``."""
    label = " > ".join(x for x in (t["title"], t["section"]) if x)
    return f"{label} ({t['note_date']})" if t.get("note_date") else label


def _join(words: Sequence[str]) -> str:
    ws = list(words)
    if len(ws) <= 1:
        return "".join(ws)
    return ", ".join(ws[:-1]) + " or " + ws[-1]


def missing_reason(missing: Sequence[str], in_corpus: dict[str, bool], scoped: bool) -> str:
    """The refusal sentence for key terms no quotable passage mentions (see module docstring).
    ``scoped``: a patient, year or source filter applied (then "the documents" are those under it)."""
    absent = [t for t in missing if not in_corpus.get(t, False)]
    if absent and not scoped:
        return f"The documents do not mention {_join(absent)}."
    if scoped:
        return f"The documents under the applied filters do not mention {_join(missing)}."
    return f"The passages found do not mention {_join(missing)}."
