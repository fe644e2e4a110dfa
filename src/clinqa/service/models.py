"""Request and response models of the HTTP API (they are also its OpenAPI schema).

:class:`CitationModel` and the answer fields of :class:`AskResponse` are derived from the answer
dataclasses (:class:`clinqa.answer.types.Citation`, :class:`clinqa.answer.types.Answer`: names,
types, defaults, order) by :func:`fields_of`, so the ``/ask`` shape is the ``clinqa ask --json`` shape
(:meth:`~clinqa.answer.types.Answer.to_dict`) and a field added to the dataclass reaches the API
without a second declaration. Only descriptions, the nested models and the few fields the API leaves
out are written here.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from clinqa.answer.types import Answer, Citation
from clinqa.decision.threshold import GateDecision
from clinqa.logs.querylog import FAILURE_CATEGORIES
from clinqa.store.filters import Filters
from clinqa.text.unicode import is_blank

#: the three feedback grades of the web page: Excellent, Acceptable, Very poor
Score = Literal[1.0, 0.6, 0.2]
Category = Literal[FAILURE_CATEGORIES]  # type: ignore[valid-type]
MAX_COMMENT_CHARS = 2000
Year = int
#: the one message for an empty or whitespace-only question or query (422 here, exit 2 on the CLI)
EMPTY_QUESTION = "the question is empty"


def _not_blank(value: str) -> str:
    if is_blank(value):
        raise PydanticCustomError("empty_question", EMPTY_QUESTION)
    return value


class _Filtered(BaseModel):
    """Filters shared by /ask and /search."""

    model_config = ConfigDict(extra="forbid")

    patient_id: str | None = Field(None, max_length=200, description="Restrict the question to this patient's "
                                   "notes (the key must have the patient in scope, else 403). Without it no "
                                   "patient note is ever seen.")
    since: int | None = Field(None, ge=1000, le=9999, description="Only documents (note dates) from this year on.")
    until: int | None = Field(None, ge=1000, le=9999, description="Only documents (note dates) up to this year.")
    sources: list[str] = Field(default_factory=list, max_length=20, description="Only these sources, compared "
                               "case-insensitively (empty: all).")

    @model_validator(mode="after")
    def _years_in_order(self) -> _Filtered:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"since {self.since} is after until {self.until}")
        return self


class AskRequest(_Filtered):
    """``POST /ask``: a question and optional filters."""

    question: str = Field(..., description="The question; at most service.max_question_chars "
                          "characters (default 2000), else 422; empty or only whitespace: 422.")
    closed: bool = Field(False, description="Generated answers only: ask the model for a leading Yes/No/Maybe.")
    conversation_id: str | None = Field(None, min_length=1, max_length=100, description="Continue this "
                                        "conversation (the conversation_id of an earlier answer): the question is "
                                        "read as a follow-up of its last turn and answered as the standalone "
                                        "question it resolves to. 404 when the conversation is unknown, expired "
                                        "or another API key's; 409 when patient_id is not the conversation's "
                                        "(a follow-up never changes the patient scope).")
    conversation: bool = Field(False, description="Start a new conversation with this question (its "
                                                  "conversation_id comes back in the answer); the patient scope "
                                                  "of this request is the conversation's for good. Not together "
                                                  "with conversation_id. A plain ask (neither) keeps no "
                                                  "conversation.")

    _question_not_blank = field_validator("question")(_not_blank)

    @model_validator(mode="after")
    def _one_conversation_field(self) -> AskRequest:
        if self.conversation and self.conversation_id is not None:
            raise ValueError("give conversation_id (continue) or conversation: true (start), not both")
        return self


class SearchRequest(_Filtered):
    """``POST /search``: a query, filters and how many chunks to return."""

    query: str = Field(..., description="The query; at most service.max_question_chars characters; "
                       "empty or only whitespace: 422.")
    k: int = Field(10, ge=1, le=100, description="How many fused chunks to return.")

    _query_not_blank = field_validator("query")(_not_blank)


def fields_of(cls: type, *, descriptions: dict[str, str] | None = None, types: dict[str, Any] | None = None,
              required: frozenset[str] = frozenset(),
              exclude: frozenset[str] = frozenset()) -> dict[str, tuple[Any, FieldInfo]]:
    """Pydantic field definitions (``{name: (type, FieldInfo)}``, for :func:`pydantic.create_model`) of
    the dataclass ``cls``, in its field order: its resolved type hints (``types`` replaces some, e.g. a
    nested dataclass by its model), its defaults and default factories (a name in ``required`` has
    none), and ``descriptions`` where given; names in ``exclude`` are left out. Raises ``KeyError`` when
    ``descriptions``, ``types``, ``required`` or ``exclude`` names a field ``cls`` does not have."""
    descriptions, types = descriptions or {}, types or {}
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = (set(descriptions) | set(types) | required | exclude) - names
    if unknown:
        raise KeyError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    out: dict[str, tuple[Any, FieldInfo]] = {}
    for f in dataclasses.fields(cls):
        if f.name in exclude:
            continue
        kwargs: dict[str, Any] = {"description": descriptions[f.name]} if f.name in descriptions else {}
        if f.name not in required and f.default is not dataclasses.MISSING:
            info = Field(f.default, **kwargs)
        elif f.name not in required and f.default_factory is not dataclasses.MISSING:
            info = Field(default_factory=f.default_factory, **kwargs)
        else:
            info = Field(..., **kwargs)
        out[f.name] = (types.get(f.name, hints[f.name]), info)
    return out


CitationModel = create_model(
    "CitationModel", __module__=__name__,
    __doc__="""A numbered source: ``[n]`` in the answer text points at ``chunk_id``; ``quote`` is the text
    quoted from it (open it in context with ``GET /chunks/{chunk_id}?highlight=<quote>``).""",
    **fields_of(Citation, descriptions={
        "also_in": "Other notes holding the same quoted text.",
        "page_start": "First page of the passage in its source (PDFs), when known.",
        "page_end": "Last page of the passage, when known."}),
)


GateModel = create_model(
    "GateModel", __module__=__name__,
    __doc__="""The refusal gate's decision (:class:`clinqa.decision.threshold.GateDecision`): ``answer`` is false to
    refuse; ``signal`` (null when nothing matched) was compared with ``threshold``.""",
    **fields_of(GateDecision, descriptions={
        "signal": "The gate signal (top-1 dense cosine by default); null when nothing matched.",
        "threshold": "The refusal threshold the signal was compared with.",
        "kind": "The signal's name, with '+key_terms' when a missing key term refused or '+key_term_support' "
                "when every key term found let a signal below the threshold answer.",
        "calibration": "Where the threshold came from (calibration file, shipped table, config, fallback)."}),
)

FiltersModel = create_model(
    "FiltersModel", __module__=__name__,
    __doc__="The filters applied to the search (:class:`clinqa.store.filters.Filters`).",
    **fields_of(Filters, types={"sources": list[str], "exclude_levels": list[str], "doc_ids": list[str]},
                descriptions={"patient_id": "Only this patient's notes; null: only documents of no patient.",
                              "year_min": "Inclusive lower bound on the document year.",
                              "year_max": "Inclusive upper bound on the document year.",
                              "exclude_levels": "Chunk levels left out ('document' overview chunks; answers also "
                                                "leave out 'references')."}),
)


class RelatedTopic(BaseModel):
    """A passage near a refused question: its document title and last section heading (open it with
    ``GET /chunks/{chunk_id}``)."""

    title: str
    section: str = Field("", description="The last heading of the passage's section path.")
    chunk_id: str
    doc_id: str
    note_date: str | None = Field(None, description="A patient note's date (ISO), else null.")


#: :class:`~clinqa.answer.types.Answer` fields that ``/ask`` does not return (internal, or CLI-only)
ASK_EXCLUDED = frozenset({"answerability", "query_repair", "query_vector"})


def _ask_fields() -> dict[str, tuple[Any, FieldInfo]]:
    """The :class:`AskResponse` fields: ``query_id`` and ``cache_hit``, then the ``Answer`` fields (less
    :data:`ASK_EXCLUDED`) in ``Answer`` order, except that ``related`` and ``missing_terms`` follow
    ``related_topics`` (the order the API has always had)."""
    answer = fields_of(Answer, exclude=ASK_EXCLUDED, required=frozenset({"mode"}), types={
        "citations": list[CitationModel], "related": list[RelatedTopic], "gate": GateModel | None,
        "filters": FiltersModel}, descriptions={
        "refused": "True for a refusal: see reason and related_topics.",
        "answer": "Answer text with [n] citation markers, or the refusal text.",
        "filters": "Filters actually applied (year bounds read from the question included).",
        "related_topics": "Refusals: 'Title > Section' found nearby.",
        "related": "Refusals: the same topics as passages (title, last heading, chunk id); empty for a clearly "
                   "off-topic question.",
        "missing_terms": "Key terms of the question that no quotable passage mentions.",
        "mode": "extractive, generated, no-context or refusal.",
        "gate": "Refusal-gate signal, threshold and decision.",
        "retrieved": "Ranked chunk ids with their ranks.",
        "warnings": "Uncalibrated threshold, unknown words, dropped generated sentences, redactions, model "
                    "failures.",
        "time_filter": "Time intent read from the question, as applied.",
        "sentences": "Generated answers: every sentence the model wrote with citations, invalid ids, supported, "
                     "reasons.",
        "llm": "Generated answers: backend, model, prompt/completion tokens, cost_usd, latency_ms (or error).",
        "identifiers": "Generated answers: patient identifiers found by the screen, with whether each was "
                       "redacted.",
        "query_expansion": "Phrases of the question found in the synonym table -> the terms added to the BM25 "
                           "query; the question stays as typed.",
        "question": "The question as typed (in a conversation: the follow-up, see standalone_question).",
        "standalone_question": "In a conversation: the question that was searched and answered, the follow-up "
                               "read with the turn before it ('and 8 weeks?' -> 'Can the cough persist for 8 "
                               "weeks after acute bronchitis?'); the question itself for a first turn or a new "
                               "topic. Empty for a plain ask.",
        "conversation_id": "The conversation this answer is a turn of (send it back as conversation_id to ask a "
                           "follow-up; GET /conversations/{id} reads the thread). Empty for a plain ask.",
        "conversation_turns": "In a conversation: the numbers (from 1) of the earlier turns the standalone "
                              "question drew on; empty for a first turn, a new topic or a plain ask.",
        "decided_by": "The decision step whose verdict stands: gate, support or dated_note for an answer; the "
                      "refusing step (key_terms, apart, no_quote, no_amount, model_refused, ...) for a refusal. "
                      "gate.answer is the similarity gate's own decision, so it can be true on a refusal."})
    moved = {k: answer.pop(k) for k in ("related", "missing_terms")}
    ordered: dict[str, tuple[Any, FieldInfo]] = {
        "query_id": (str | None, Field(..., description="Id in the query log (for POST /feedback and GET "
                                       "/queries/{id}); null when the query log is disabled.")),
        "cache_hit": (bool, Field(..., description="True when the answer came from the answer cache.")),
    }
    for name, definition in answer.items():
        ordered[name] = definition
        if name == "related_topics":
            ordered.update(moved)
    return ordered


def _no_gate(value: Any) -> Any:
    """``Answer.to_dict`` writes an answer without a gate decision (no-context mode) as ``{}``: null here."""
    return None if value == {} else value


AskResponse = create_model(
    "AskResponse", __module__=__name__,
    __doc__="``POST /ask``: the answer (``clinqa ask --json`` fields) plus its query-log id and cache flag.",
    __validators__={"_no_gate": field_validator("gate", mode="before")(_no_gate)},
    **_ask_fields(),
)


class SearchHit(BaseModel):
    """One ranked chunk with its fused, dense, BM25 (and rerank) ranks and scores."""

    rank: int
    rrf: float = Field(description="The fused score of the configured fusion (retrieval.fusion: the convex "
                       "combination by default, or RRF); the field keeps the name it had when RRF was the only rule.")
    dense_rank: int | None = None
    dense_cosine: float | None = Field(None, description="Cosine with the question; also given for a BM25 hit "
                                       "beyond the dense top-k (without a dense_rank) under convex fusion.")
    bm25_rank: int | None = None
    bm25_score: float | None = None
    rerank_score: float | None = None
    chunk_id: str
    doc_id: str
    title: str
    section: str
    year: int | None = None
    source: str = ""
    patient_id: str | None = None
    note_date: str | None = None
    text: str = Field(..., description="The chunk body (without its context header).")


class SearchResponse(BaseModel):
    """``POST /search``: the query, the filters applied and the ranked chunks."""

    query: str
    filters: FiltersModel  # type: ignore[valid-type]
    hits: list[SearchHit]


class DocumentSummary(BaseModel):
    """One document of the store."""

    doc_id: str
    title: str = ""
    year: int | None = None
    source: str = ""
    patient_id: str | None = Field(None, description="Set for patient notes.")
    chunks: int = Field(0, description="Stored chunks (overview chunk included).")
    source_from: str = Field("", description="Where the source came from: metadata, --source, folder or loader "
                             "default ('' in stores written before it was kept).")
    ingested_at: str = Field("", description="When the document was stored, UTC, ISO 8601 to the second ('' when "
                             "unknown).")


class DocumentList(BaseModel):
    """``GET /documents``: the documents this key may see, sorted by id."""

    count: int
    documents: list[DocumentSummary]


class ChunkText(BaseModel):
    """A chunk's position and text, without metadata."""

    chunk_id: str
    hierarchy_level: str = Field(..., description="document (overview), section, paragraph, window or "
                                 "references (a reference list).")
    chunk_index: int = Field(..., description="Position within its section, from 0.")
    body: str


class SectionModel(BaseModel):
    """A section of a document with its chunks in reading order."""

    section_path: list[str]
    section: str = Field(..., description="The path as 'A > B' ('' for the overview chunk).")
    chunks: list[ChunkText]


class DocumentDetail(DocumentSummary):
    """``GET /documents/{doc_id}``: metadata and every chunk, grouped by section in reading order."""

    url: str = ""
    doi: str = ""
    organization: str = ""
    authors: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    note_date: str | None = None
    note_type: str = ""
    sections: list[SectionModel]


class ChunkResponse(BaseModel):
    """``GET /chunks/{chunk_id}``: the chunk, where ``highlight`` occurs in it, and its neighbours.

    ``previous`` and ``next`` are the chunks just before and after it in the same document,
    section and hierarchy level (by ``chunk_index``), nearest last / nearest first, so
    ``previous + [this] + next`` reads as a stretch of the section."""

    chunk_id: str
    doc_id: str
    title: str
    section: str
    section_path: list[str]
    hierarchy_level: str
    chunk_index: int
    year: int | None = None
    source: str = ""
    url: str = ""
    patient_id: str | None = None
    note_date: str | None = None
    note_type: str = ""
    page_start: int | None = Field(None, description="First page (1-based) of the source; null without pages.")
    page_end: int | None = Field(None, description="Last page of the chunk.")
    ocr: bool = Field(False, description="True when the text was read from a page image by OCR.")
    body: str
    highlights: list[tuple[int, int]] = Field(default_factory=list, description="[start, end) offsets in body "
                                              "(code points) of every stretch of the highlight text (the "
                                              "citation's quote) found in it, compared word by word (case, "
                                              "spacing, punctuation and list/table markup ignored), one span per "
                                              "line, sorted.")
    previous: list[ChunkText] = Field(default_factory=list)
    next: list[ChunkText] = Field(default_factory=list)


class FeedbackRequest(BaseModel):
    """``POST /feedback``: a grade for a logged answer."""

    model_config = ConfigDict(extra="forbid")

    query_id: str = Field(..., min_length=1, max_length=200, description="query_id returned by POST /ask.")
    score: Score = Field(..., description="1.0 Excellent, 0.6 Acceptable, 0.2 Very poor.")
    comment: str = Field("", max_length=MAX_COMMENT_CHARS, description="Optional free text.")
    category: Category | None = Field(None, description="Optional failure category.")


class FeedbackResponse(BaseModel):
    """``POST /feedback``: every feedback entry the query now has, as read back from the log."""

    query_id: str
    feedback: list[dict[str, Any]]


class QueryRecord(BaseModel):
    """``GET /queries/{query_id}``: the logged query as the query log stores it
    (:meth:`clinqa.logs.querylog.QueryLog.rows`: time, source, key name, question, filters,
    retrieved and cited chunks, answer, warnings, timings, tokens and cost, cache hit, and
    ``feedback``, oldest first), without the query embedding."""

    model_config = ConfigDict(extra="allow")

    query_id: str
    time: str | None = Field(None, description="When it was asked (UTC, ISO 8601).")
    source: str | None = Field(None, description="cli, api, web or replay.")
    api_key_name: str | None = Field(None, description="Name of the key that asked (never the key).")
    question: str = ""
    filters: dict[str, Any] = Field(default_factory=dict)
    refused: bool | None = None
    mode: str | None = None
    answer: str | None = None
    cache_hit: bool | None = None
    feedback: list[dict[str, Any]] = Field(default_factory=list, description="Every rating: {time, score, comment, "
                                           "category}, oldest first.")


class StatsResponse(BaseModel):
    """``GET /stats``: counts only, of what the key may see (the whole store for a ``"*"`` key)."""

    documents: int
    chunks: int
    levels: dict[str, int]
    sources: dict[str, int]
    patients: int = Field(..., description="Number of patients with notes that the key may read (no ids); the "
                          "whole store for a \"*\" key.")
    model_id: str | None = None
    corpus_version: int
    years: dict[str, int] = Field(default_factory=dict, description="Documents per year (of publication; a note's "
                                  "year for notes) among those the key may see; documents without a year are not "
                                  "counted.")


class ExampleQuestion(BaseModel):
    """A question the web page offers on an empty page, made from a section heading of an ingested document."""

    question: str
    doc_id: str
    title: str = Field(..., description="The document's title.")
    section: str = Field(..., description="The heading the question asks about.")
    answered: bool = Field(..., description="True when the service asked it (without filters) and got an answer, "
                           "not a refusal; false when it was not tried.")


class ExamplesResponse(BaseModel):
    """``GET /examples``: up to three example questions, from documents of no patient (guidelines, articles),
    each of another document."""

    examples: list[ExampleQuestion]


class HealthResponse(BaseModel):
    """``GET /health``: the process is up and its store can be read."""

    status: Literal["ok"] = "ok"
    store_empty: bool
    version: str


class WhoAmI(BaseModel):
    """``GET /whoami``: the key's name and patient scope."""

    name: str | None = Field(..., description="The key's name; null for anonymous access.")
    patients: list[str] | Literal["*"] = Field(..., description="'*' for every patient, else the patient ids.")
    keys_required: bool


class ErrorResponse(BaseModel):
    """Every error: ``{"detail": message}`` (422 validation errors: a list of problems)."""

    detail: str | list[Any]


class ConversationTurn(BaseModel):
    """One turn of a conversation (:class:`clinqa.logs.conversations.Turn`)."""

    n: int = Field(..., description="Turn number, from 1 (the oldest turns go beyond conversation.max_turns).")
    question: str = Field(..., description="The question as typed.")
    standalone: str = Field(..., description="The standalone question that was answered.")
    kind: str = Field(..., description="How the question was read: first (no earlier turn), switch (a new topic, "
                      "as typed), slot (values, population, drug ... of the earlier question replaced) or frame "
                      "(something new asked about the earlier topic).")
    drew_on: list[int] = Field(default_factory=list, description="The earlier turns it drew on.")
    query_id: str | None = Field(None, description="Its row in the query log (GET /queries/{id}); null when the "
                                 "query log is disabled.")
    refused: bool = Field(..., description="True when it was refused.")
    ts: str = Field(..., description="When it was asked (UTC, ISO 8601).")


class ConversationRecord(BaseModel):
    """``GET /conversations/{conversation_id}``: a conversation of this key with its turns, oldest first."""

    conversation_id: str
    patient_id: str | None = Field(None, description="The patient scope fixed when it started (null: documents "
                                   "of no patient only); every follow-up must send the same patient_id.")
    created: str = Field(..., description="When it started (UTC, ISO 8601).")
    updated: str = Field(..., description="Its last turn (UTC); it expires conversation.expire_days after.")
    turns: list[ConversationTurn]
