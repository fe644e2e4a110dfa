"""Generated answers: number the retrieved evidence, ask the model, screen its reply for patient
identifiers, then check every sentence's citations (:mod:`clinqa.answer.citations`).

Order of the checks: identifiers first (an identifier that is not in the cited evidence is
redacted everywhere, also in the per-sentence list), then citations. What survives is the
answer; the full list of sentences with ``supported: true|false`` goes to ``--json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clinqa.answer.citations import Verification, parse_markers, verify_answer
from clinqa.answer.prompt import (
    REFUSAL_PHRASE,
    Evidence,
    build_messages,
    build_no_context_messages,
    clip_words,
)
from clinqa.answer.types import Citation, citation_for
from clinqa.llm.base import Completion, LLMBackend
from clinqa.llm.tokens import cost_usd
from clinqa.retrieval.hybrid import Retrieved
from clinqa.settings import GenerationSettings, LLMSettings


def heading_of(hit: Retrieved) -> str:
    """"Title > Section (year or note date)" for an evidence block."""
    c = hit.chunk
    label = " > ".join(x for x in (c.title, c.section) if x)
    when = c.note_date.isoformat() if c.note_date else (str(c.year) if c.year else "")
    return f"{label} ({when})" if when else label


def number_evidence(hits: list[Retrieved], max_words: int) -> list[Evidence]:
    """Evidence [1]..[n] from ``hits`` in rank order, each chunk body cut to ``max_words`` words."""
    return [Evidence(i, h.chunk.chunk_id, heading_of(h), clip_words(h.chunk.body, max_words))
            for i, h in enumerate(hits, start=1)]


@dataclass
class Generated:
    """A checked model answer.

    ``text``: what to show (supported sentences; empty if none survived); ``verification``:
    every sentence with its verdict (None in no-context mode, where there is nothing to check
    against); ``citations``: the cited evidence as :class:`Citation` (``n`` is the number used
    in the text, so ``[n]`` always maps to ``chunk_id``); ``identifiers``: what the screen
    found; ``cost_usd``: None when the model has no price.
    """

    text: str
    completion: Completion
    cost_usd: float | None
    verification: Verification | None = None
    citations: list[Citation] = field(default_factory=list)
    identifiers: list[dict[str, Any]] = field(default_factory=list)
    redacted: bool = False

    def usage(self) -> dict[str, Any]:
        """Tokens, cost and latency of the call, for ``Answer.llm`` and the logs."""
        c = self.completion
        return {"backend": c.backend, "model": c.model, "prompt_tokens": c.prompt_tokens,
                "completion_tokens": c.completion_tokens, "token_source": c.token_source,
                "cost_usd": self.cost_usd, "latency_ms": round(c.latency_ms, 1), "finish_reason": c.finish_reason}


def _screen(text: str, evidence_texts: list[str]) -> tuple[str, list[dict[str, Any]], bool]:
    from clinqa.answer.identifiers import screen_identifiers

    result = screen_identifiers(text, evidence_texts)
    found = []
    for ident in result.found:  # a redacted identifier's text must not travel on in the report
        d = ident.to_dict()
        if d["redacted"]:
            d["text"] = f"[REDACTED {d['type']}]"
        found.append(d)
    return result.text, found, result.flagged


def generate_answer(question: str, hits: list[Retrieved], backend: LLMBackend, gen: GenerationSettings,
                    llm: LLMSettings, closed: bool = False) -> Generated:
    """Answer ``question`` from ``hits`` (best first; the top ``gen.evidence_chunks`` are shown).

    Raises what the backend raises (:class:`clinqa.llm.base.LLMUnavailable` when it cannot be
    reached); callers fall back to the extractive answer.
    """
    shown = hits[: gen.evidence_chunks]
    evidence = number_evidence(shown, gen.evidence_tokens)
    completion = backend.complete(build_messages(question, evidence, closed),
                                  max_tokens=llm.max_tokens, temperature=llm.temperature)
    raw = completion.text.strip()
    by_n = {e.n: e for e in evidence}
    text, identifiers, redacted = raw, [], False
    if gen.screen_identifiers and raw:
        cited_texts = [shown[n - 1].chunk.text for n in parse_markers(raw) if n in by_n]
        text, identifiers, redacted = _screen(raw, cited_texts)
    # checked against what the model was shown: heading (title, section, date) and text
    check = verify_answer(text, {e.n: f"{e.heading}\n{e.text}" for e in evidence}, gen.min_support,
                          gen.unsupported, REFUSAL_PHRASE)
    citations = []
    for n in check.cited_ids:
        h = shown[n - 1]
        c = h.chunk
        citations.append(citation_for(n, c, h.score, quote=by_n[n].text))
    return Generated(check.text, completion, cost_usd(completion.model, completion.prompt_tokens,
                                                            completion.completion_tokens, llm.prices),
                     check, citations, identifiers, redacted)


def generate_no_context(question: str, backend: LLMBackend, llm: LLMSettings, closed: bool = False,
                        screen: bool = True) -> Generated:
    """The model alone, no evidence: the baseline generated answers are compared with. Nothing
    can be cited, so nothing is verified; identifiers are still screened (none can be in
    evidence)."""
    completion = backend.complete(build_no_context_messages(question, closed),
                                  max_tokens=llm.max_tokens, temperature=llm.temperature)
    raw = completion.text.strip()
    text, identifiers, redacted = (_screen(raw, []) if screen and raw else (raw, [], False))
    return Generated(text, completion, cost_usd(completion.model, completion.prompt_tokens,
                                                     completion.completion_tokens, llm.prices),
                     None, [], identifiers, redacted)
