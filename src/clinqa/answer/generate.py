"""Generated answers: number the retrieved evidence, ask the model, screen its reply for patient
identifiers, then check every sentence's citations (:mod:`clinqa.answer.citations`).

:func:`model_reply` is what ``Pipeline.ask`` calls, once the decision answers: the checked :class:`Reply`,
which the decision's ``generate`` phase reads and :func:`clinqa.answer.assemble.generated` renders.

Order of the checks: identifiers first (an identifier that is not in the cited evidence is
redacted everywhere, also in the per-sentence list), then citations. What survives is the
answer; the full list of sentences with ``supported: true|false`` goes to ``--json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clinqa.answer.citations import Verification, parse_markers, verify_answer
from clinqa.answer.prompt import (
    REFUSAL_PHRASE,
    NumberedPassage,
    build_messages,
    build_no_context_messages,
    clip_words,
)
from clinqa.answer.types import Answer, Citation, citation_for
from clinqa.llm.base import Completion, LLMBackend
from clinqa.retrieval.hybrid import Retrieved
from clinqa.settings import GenerationSettings, LLMSettings

if TYPE_CHECKING:
    from clinqa.settings import Settings


def heading_of(hit: Retrieved) -> str:
    """"Title > Section (year or note date)" for an evidence block."""
    c = hit.chunk
    label = " > ".join(x for x in (c.title, c.section) if x)
    when = c.note_date.isoformat() if c.note_date else (str(c.year) if c.year else "")
    return f"{label} ({when})" if when else label


def number_passages(hits: list[Retrieved], max_words: int) -> list[NumberedPassage]:
    """The passages [1]..[n] shown to the model, from ``hits`` in rank order, each chunk body cut to
    ``max_words`` words."""
    return [NumberedPassage(i, h.chunk.chunk_id, heading_of(h), clip_words(h.chunk.body, max_words))
            for i, h in enumerate(hits, start=1)]


@dataclass
class Generated:
    """A checked model answer.

    ``text``: what to show (supported sentences; empty if none survived); ``verification``:
    every sentence with its verdict (None in no-context mode, where there is nothing to check
    against); ``citations``: the cited evidence as :class:`Citation` (``n`` is the number used
    in the text, so ``[n]`` always maps to ``chunk_id``); ``identifiers``: what the screen
    found; ``usage``: tokens, cost (None when the model has no price) and latency of the call, read
    as the completion was made (:meth:`clinqa.llm.base.Completion.usage`), for ``Answer.llm`` and the logs.
    """

    text: str
    completion: Completion
    usage: dict[str, Any]
    verification: Verification | None = None
    citations: list[Citation] = field(default_factory=list)
    identifiers: list[dict[str, Any]] = field(default_factory=list)
    redacted: bool = False


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
                    llm: LLMSettings, closed: bool = False, notes: Sequence[str] = ()) -> Generated:
    """Answer ``question`` from ``hits`` (best first; the top ``gen.evidence_chunks`` are shown), with the
    missing-term ``notes`` after the evidence (:func:`clinqa.answer.prompt.build_messages`).

    Raises what the backend raises (:class:`clinqa.llm.base.LLMUnavailable` when it cannot be
    reached); callers fall back to the extractive answer.
    """
    shown = hits[: gen.evidence_chunks]
    passages = number_passages(shown, gen.evidence_tokens)
    messages = build_messages(question, passages, closed, notes)
    completion = backend.complete(messages, max_tokens=llm.max_tokens, temperature=llm.temperature)
    usage = completion.usage(llm.prices)
    raw = completion.text.strip()
    by_n = {e.n: e for e in passages}
    text, identifiers, redacted = raw, [], False
    if gen.screen_identifiers and raw:
        cited_texts = [shown[n - 1].chunk.text for n in parse_markers(raw) if n in by_n]
        text, identifiers, redacted = _screen(raw, cited_texts)
    # checked against what the model was shown: heading (title, section, date) and text
    check = verify_answer(text, {e.n: f"{e.heading}\n{e.text}" for e in passages}, gen.min_support,
                          gen.unsupported, REFUSAL_PHRASE)
    citations = []
    for n in check.cited_ids:
        h = shown[n - 1]
        c = h.chunk
        citations.append(citation_for(n, c, h.score, quote=by_n[n].text))
    return Generated(check.text, completion, usage, check, citations, identifiers, redacted)


def generate_no_context(question: str, backend: LLMBackend, llm: LLMSettings, closed: bool = False,
                        screen: bool = True) -> Generated:
    """The model alone, no evidence: the baseline generated answers are compared with. Nothing
    can be cited, so nothing is verified; identifiers are still screened (none can be in
    evidence)."""
    messages = build_no_context_messages(question, closed)
    completion = backend.complete(messages, max_tokens=llm.max_tokens, temperature=llm.temperature)
    usage = completion.usage(llm.prices)
    raw = completion.text.strip()
    text, identifiers, redacted = (_screen(raw, []) if screen and raw else (raw, [], False))
    return Generated(text, completion, usage, None, [], identifiers, redacted)


@dataclass
class Reply:
    """What the language model gave for a question the decision answered (:func:`model_reply`): the checked
    ``generated`` answer, or None with the ``failure`` (``{"backend", "error"}``: the model unreachable, or its
    backend could not be built). Read once by the decision's ``generate`` phase (:attr:`refused`, :attr:`failed`)
    and by the answer's rendering (:func:`clinqa.answer.assemble.generated`)."""

    generated: Generated | None
    failure: dict[str, str] = field(default_factory=dict)

    @property
    def refused(self) -> bool:
        """The model's reply is the refusal phrase (``Case.model_refused``, step ``model_refused``)."""
        g = self.generated
        return g is not None and g.verification is not None and g.verification.refusal

    @property
    def failed(self) -> bool:
        """No usable answer (``Case.model_failed``, step ``unjudged_key_terms``): the call failed, or it was no
        refusal and none of its sentences was supported."""
        return self.generated is None or (not self.refused and not self.generated.text)


def model_reply(question: str, hits: list[Retrieved], backend: Callable[[], LLMBackend | None], settings: Settings,
                closed: bool, notes: Sequence[str] = ()) -> Reply:
    """The language model's checked answer to ``question`` from ``hits`` (:func:`generate_answer`, the missing-term
    ``notes`` after the evidence), for a question the decision answered; the model is built by ``backend()``.
    A :class:`clinqa.llm.base.LLMError` (from building or calling it) is the reply's ``failure``, not raised:
    the extractive answer then stands, with a warning, unless the decision's ``generate`` phase refuses."""
    from clinqa.llm.base import LLMError

    try:
        llm = backend()
        assert llm is not None
        return Reply(generate_answer(question, hits, llm, settings.generation, settings.llm, closed, notes))
    except LLMError as exc:
        return Reply(None, {"backend": settings.llm.backend, "error": str(exc)})


def no_context_answer(question: str, backend: LLMBackend | None, settings: Settings, closed: bool = False) -> Answer:
    """The language model alone, with no retrieval and no evidence (:func:`generate_no_context`), as an
    :class:`~clinqa.answer.types.Answer` in ``no-context`` mode: the baseline grounded answers are compared
    with (``clinqa ask --no-context``). Nothing is cited or checked. Raises :class:`clinqa.errors.ConfigError`
    for an empty question or without a ``backend`` (``llm.backend``), :class:`clinqa.llm.base.LLMError` when
    the model fails."""
    from clinqa.errors import ConfigError
    from clinqa.text.unicode import is_blank

    if is_blank(question):
        raise ConfigError("the question is empty")
    if backend is None:
        raise ConfigError("--no-context needs a language model: set --llm (llm.backend)")
    t0 = time.perf_counter()
    g = generate_no_context(question, backend, settings.llm, closed, screen=settings.generation.screen_identifiers)
    warnings = ["answered by the language model alone, from no evidence: nothing here is checked"]
    if g.redacted:
        warnings.append("patient identifiers were redacted")
    return Answer(question=question, refused=False, answer=g.text, filters=None, mode="no-context",
                  warnings=warnings, llm=g.usage, identifiers=g.identifiers,
                  timings_ms={"total": (time.perf_counter() - t0) * 1e3})
