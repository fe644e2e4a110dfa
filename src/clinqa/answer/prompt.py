"""Prompts for generated answers: numbered evidence, a citation on every factual sentence, and
one fixed refusal phrase when the evidence does not answer.

The rules follow what grounded clinical QA systems ask of their model (cite every claim, copy
numbers exactly, refuse with a fixed phrase), so the checker in
:mod:`clinqa.answer.citations` can test each sentence against the passages it names.
"""

from __future__ import annotations

from dataclasses import dataclass

from clinqa.llm.base import Message

REFUSAL_PHRASE = "The evidence does not answer this question."

SYSTEM = f"""You answer clinical questions using ONLY the numbered evidence passages you are given.
Rules:
1. End every sentence that states a fact with the number of the passage that states it, like [1] or [1][3].
2. State only what the cited passage says. Copy numbers, doses, units and time limits exactly as written.
3. If the evidence does not answer the question, reply exactly: "{REFUSAL_PHRASE}"
4. Be brief: at most five sentences. No introduction and no advice beyond the evidence."""

DECISION_RULE = "5. Begin your answer with one word, Yes, No or Maybe, then give the evidence with citations."

NO_CONTEXT_SYSTEM = """You answer clinical questions briefly from your own knowledge, in at most five sentences."""


@dataclass(frozen=True)
class Evidence:
    """One numbered passage shown to the model: ``n`` is the number it cites as ``[n]``."""

    n: int
    chunk_id: str
    heading: str
    text: str


def clip_words(text: str, max_words: int) -> str:
    """``text`` cut to its first ``max_words`` whitespace-separated words ("..." appended when cut)."""
    words = text.split()
    return text if len(words) <= max_words else " ".join(words[:max_words]) + " ..."


def build_messages(question: str, evidence: list[Evidence], closed: bool = False) -> list[Message]:
    """The chat messages for a grounded answer.

    ``evidence``: the passages, shown as "[n] heading" followed by the text. ``closed``: ask
    for a leading Yes/No/Maybe (closed questions such as PubMedQA's).
    """
    system = SYSTEM + ("\n" + DECISION_RULE if closed else "")
    blocks = [f"[{e.n}] {e.heading}\n{e.text}" for e in evidence]
    user = "Evidence:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"
    return [Message("system", system), Message("user", user)]


def build_no_context_messages(question: str, closed: bool = False) -> list[Message]:
    """Messages for the model alone, with no evidence (the comparison baseline)."""
    rule = " Begin with one word, Yes, No or Maybe." if closed else ""
    return [Message("system", NO_CONTEXT_SYSTEM + rule), Message("user", f"Question: {question}")]
