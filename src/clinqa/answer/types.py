"""What the answer stage returns. ``Answer.to_dict()`` is the ``--json`` shape scripts rely on."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any

from clinqa.decision.threshold import GateDecision
from clinqa.store.filters import Filters


@dataclass
class Citation:
    """A numbered source: ``[n]`` in the answer text points at this chunk. ``note_date`` is set
    for patient notes; ``also_in`` lists the other notes (type, date, id) where the same
    passage was copied forward. ``page_start``/``page_end`` are the 1-based pages of the
    source the passage lies on (PDFs; ``None`` otherwise); for a PDF ``url`` points at the
    first of them (``...#page=4``, the PDF open-parameters fragment browsers honour)."""

    n: int
    chunk_id: str
    doc_id: str
    title: str
    section: str
    year: int | None
    source: str
    url: str
    score: float
    quote: str = ""
    note_date: str | None = None
    also_in: list[str] = field(default_factory=list)
    page_start: int | None = None
    page_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dict(self.__dict__)


def pages_label(page_start: int | None, page_end: int | None) -> str:
    """``"p. 4"``, ``"pp. 4-5"``, or ``""`` when the page is unknown."""
    if page_start is None:
        return ""
    if page_end is None or page_end == page_start:
        return f"p. {page_start}"
    return f"pp. {page_start}-{page_end}"


def citation_url(chunk: Any) -> str:
    """The link of a cited chunk: the document's ``url``; for a PDF with a known page, that url, or the
    local file as a ``file://`` URI when it has none, with ``#page=N`` (N = ``page_start``)."""
    url = chunk.url or ""
    if chunk.format != "pdf" or chunk.page_start is None:
        return url
    if not url and chunk.path:
        from pathlib import Path

        try:
            url = Path(chunk.path).resolve().as_uri()
        except ValueError:
            return ""
    if not url:
        return ""
    return f"{url.split('#', 1)[0]}#page={chunk.page_start}"


def citation_for(n: int, chunk: Any, score: float, quote: str = "") -> Citation:
    """The :class:`Citation` numbered ``n`` of a retrieved :class:`~clinqa.chunking.base.Chunk`."""
    return Citation(n, chunk.chunk_id, chunk.doc_id, chunk.title, chunk.section, chunk.year, chunk.source,
                    citation_url(chunk), round(float(score), 6), quote=quote,
                    note_date=chunk.note_date.isoformat() if chunk.note_date else None,
                    page_start=chunk.page_start, page_end=chunk.page_end)


@dataclass
class Answer:
    """An answer or a refusal.

    ``time_filter`` describes the time intent read from the question and applied ("years
    2021-2026 (from 'since 2021')", "most recent first (from 'latest')"); empty when none.
    ``refused`` answers carry ``reason`` and ``related_topics`` (the sections the search did
    find, as ``"Title > Section"`` strings) and no citations. ``mode`` is ``extractive``
    (quoted sentences), ``generated`` (an LLM's answer whose sentences were checked against
    their citations), ``no-context`` (the LLM alone, nothing cited or checked) or ``refusal``.
    ``gate`` is the :class:`~clinqa.decision.threshold.GateDecision` the answer was decided on (``signal``,
    ``threshold``: the only place the numbers appear; human output shows them only on request; None
    in no-context mode), ``filters`` the :class:`~clinqa.store.filters.Filters` applied (None in
    no-context mode); both may be given in their ``to_dict`` form and are dicts in :meth:`to_dict`.

    ``related`` lists the passages near a refused question, each ``{"title", "section" (last
    heading only), "chunk_id", "doc_id"}``; the same items as ``related_topics``; empty when the
    question is clearly off-topic. ``missing_terms`` are key terms of the question that no quotable
    passage mentions (a caution on answers, the reason on some refusals).

    Generated answers also carry ``sentences`` (every sentence the model wrote, with its
    ``citations``, ``invalid`` ids, ``supported: true|false``, ``support`` and ``reasons``; the
    answer text keeps only supported ones unless ``generation.unsupported`` is ``flag``),
    ``llm`` (backend, model, prompt/completion tokens, cost in USD, latency) and
    ``identifiers`` (patient identifiers the screen found, with whether each was redacted).
    ``citations[i].n`` is the number used in the text, so ``[n]`` always maps to its chunk.
    ``query_vector`` is the question's embedding (None in no-context mode), for the query log.

    ``related`` holds the related topics as records (``title``, ``section``: the last heading,
    ``chunk_id``, ``doc_id``, ``note_date``), the same items as ``related_topics``; it is empty when
    the question is clearly off topic. ``missing_terms`` are key terms of the question that no
    quotable passage mentions, and ``answerability`` the whole key-term test
    (:mod:`clinqa.decision.answerability`: ``key_terms``, ``missing``, ``in_corpus``).
    ``query_repair`` maps each question word that was spelled as no passage spells it to the corpus
    word searched instead (``{"resusitation": "resuscitation"}``); ``question`` stays as typed.
    ``query_expansion`` maps each phrase of the question found in the synonym table to the terms
    added to the BM25 query (``{"SGLT2 inhibitor": ["empagliflozin", ...]}``; empty when none,
    :mod:`clinqa.retrieval.synonyms`); ``question`` stays as typed.

    In a conversation (:mod:`clinqa.conversation`), ``standalone_question`` is the question that was searched
    and answered (the follow-up read with the turns before it: :mod:`clinqa.question.followup`),
    ``conversation_id`` the conversation's id and ``conversation_turns`` the numbers (from 1) of the earlier
    turns it drew on; all empty for a question asked alone.

    ``decided_by`` names the decision step whose verdict stands (:data:`clinqa.decision.table.STEPS`): "gate",
    "support" or "dated_note" for an answer, the refusing step ("key_terms", "no_amount", ...) for a refusal.
    ``gate`` is the similarity gate's own record, so a refusal by a later step (``no_quote``, ``no_amount``) has
    ``refused`` true beside ``gate.answer`` true; ``decided_by`` says which step refused. "" on an answer
    read back from before it existed.
    """

    question: str
    refused: bool
    answer: str
    filters: Filters | None
    citations: list[Citation] = field(default_factory=list)
    related_topics: list[str] = field(default_factory=list)
    reason: str = ""
    mode: str = "extractive"
    gate: GateDecision | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    retrieved: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    time_filter: str = ""
    sentences: list[dict[str, Any]] = field(default_factory=list)
    llm: dict[str, Any] = field(default_factory=dict)
    identifiers: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    answerability: dict[str, Any] = field(default_factory=dict)
    query_repair: dict[str, str] = field(default_factory=dict)
    query_expansion: dict[str, list[str]] = field(default_factory=dict)
    standalone_question: str = ""
    conversation_id: str = ""
    conversation_turns: list[int] = field(default_factory=list)
    decided_by: str = ""
    query_vector: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: question, refused, answer, filters, citations, ... (not the
        ``query_vector``, a ``(dim,)`` float32 array kept for the query log)."""
        d = dict(self.__dict__)
        d.pop("query_vector", None)
        d["filters"] = self.filters.to_dict() if self.filters is not None else {}
        d["gate"] = self.gate.to_dict() if self.gate is not None else {}
        d["citations"] = [c.to_dict() for c in self.citations]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Answer:
        """The answer a :meth:`to_dict` dict describes (e.g. one read back from the answer cache):
        ``citations`` become :class:`Citation` objects, keys that are not fields are ignored,
        missing optional fields take their defaults, ``query_vector`` is None; nothing is shared with ``d``. Raises
        ``KeyError`` when ``question``, ``refused``, ``answer`` or ``filters`` is missing and
        ``TypeError`` for a citation with missing or unknown keys."""
        names = {f.name for f in fields(cls)} - {"query_vector", "citations"}
        kwargs = {k: copy.deepcopy(v) for k, v in d.items() if k in names}  # no list shared with d
        for required in ("question", "refused", "answer", "filters"):
            if required not in kwargs:
                raise KeyError(f"answer dict without {required!r}")
        citations = [Citation(**copy.deepcopy(c)) for c in d.get("citations") or []]
        return cls(**kwargs, citations=citations)

    def __post_init__(self) -> None:
        """Accept ``filters`` and ``gate`` also in their :meth:`to_dict` form (a dict; ``{}`` is None)."""
        if isinstance(self.filters, dict):
            self.filters = Filters.from_dict(self.filters) if self.filters else None
        if isinstance(self.gate, dict):
            self.gate = GateDecision.from_dict(self.gate) if self.gate else None
