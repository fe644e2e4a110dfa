"""What the routes share (issue 48: the routes are modules of :mod:`clinqa.service.routes`, not closures in
:func:`clinqa.service.app.create_app`): the :class:`Service` object, built once per app and kept in
``app.state.service``, reached by a route through the dependency :data:`ServiceDep` (:func:`get_service`);
the 4xx response models of the OpenAPI document (:func:`error_responses`); note-id scope (:func:`note_patients`)."""

from __future__ import annotations

import json
import logging
import threading
import time
from functools import cache
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as pkg_version
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError

from clinqa.cache import CacheUnavailable, build_cache
from clinqa.errors import ClinqaError
from clinqa.logs.conversations import Conversation, ConversationStore
from clinqa.logs.querylog import QueryLog
from clinqa.pipeline import Pipeline
from clinqa.question.limit import too_long_message
from clinqa.retrieval import Filters
from clinqa.service.auth import KeyRing, Principal, principal
from clinqa.service.examples import EXAMPLE_BUDGET_S, EXAMPLE_TRIES, EXAMPLES, example_candidates
from clinqa.service.models import ErrorResponse
from clinqa.settings import Settings

logger = logging.getLogger(__name__)
#: the owner of the conversations asked without an API key (no keys configured: every caller is this one)
ANONYMOUS_OWNER = "anonymous"


@cache
def package_version() -> str:
    """The installed clinqa's version (the OpenAPI document's and ``GET /health``'s), ``"0"`` from a source tree."""
    try:
        return pkg_version("clinqa")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def note_patients(doc_id: str) -> list[str]:
    """The patients a note id (``note:<patient_id>:<note_id>``, see
    :mod:`clinqa.documents.loaders.notes`) or a chunk id of a note (the note id followed by the
    section and index) may belong to: every prefix up to a ``:`` (a patient id may itself hold a
    colon). Empty for ids that are not note ids.

    >>> note_patients("note:P2:N1#hpi#0")
    ['P2']
    >>> note_patients("bronchitis#course#0")
    []
    """
    if not doc_id.startswith("note:"):
        return []
    rest = doc_id[len("note:"):]
    return [rest[:i] for i, ch in enumerate(rest) if ch == ":" and 0 < i < len(rest) - 1]



def plain(value: Any) -> Any:
    """JSON-ready copy of ``value``: numpy scalars as numbers, dates as strings, bytes and arrays dropped."""

    def default(o: Any) -> Any:
        if hasattr(o, "item") and getattr(o, "ndim", 0) == 0:
            return o.item()
        if isinstance(o, bytes | bytearray | memoryview) or hasattr(o, "ndim"):
            return None
        return str(o)

    return json.loads(json.dumps(value, default=default))


class Service:
    """What the routes share: settings, the pipeline, the key ring, the question lock, the query
    log and the answer cache (both safe to share between threads)."""

    def __init__(self, settings: Settings, pipeline: Pipeline | None = None) -> None:
        """Build the pipeline (unless given), resolve the API keys (:class:`ConfigError` for a key
        read from an unset environment variable), open the query log and the answer cache (a cache
        that cannot be opened is logged and left out: answers are never refused for it)."""
        self.settings = settings
        self.version = package_version()
        self.pipe = pipeline or Pipeline(settings)
        self.keys = KeyRing(settings.service.api_keys)
        self.lock = threading.Lock()
        self._examples: tuple[int, list[dict[str, Any]]] | None = None  # (corpus version, examples)
        self._examples_lock = threading.Lock()
        self.log = QueryLog.for_pipeline(self.pipe)
        self._conversations: ConversationStore | None = None
        self._conversations_lock = threading.Lock()
        try:
            self.cache = build_cache(self.pipe.settings)
        except CacheUnavailable as exc:
            logger.warning("answer cache unavailable, serving without it: %s", exc)
            self.cache = None

    def warm_up(self) -> None:
        """Load the encoder, open the store and load the lexicon's resources and the question's part-of-speech
        tagger (when ``answer.lexicon``) now, not on the first question."""
        with self.lock:
            _ = self.pipe.encoder
            _ = self.pipe.store
            if self.pipe.settings.answer.lexicon:
                from clinqa.lexicon import load_resources
                from clinqa.question.terms import load_tagger

                load_resources()
                load_tagger()

    def require_querylog(self) -> QueryLog:
        """The query log; HTTP 409 when logging is disabled."""
        if self.log is None:
            raise HTTPException(409, "the query log is disabled (log.enabled: false): no query ids, no feedback")
        return self.log

    @property
    def conversations(self) -> ConversationStore:
        """The conversations of the data directory (:func:`clinqa.conversation.conversation_store`), opened on
        first use (old ones expire then, and again whenever a conversation starts)."""
        with self._conversations_lock:
            if self._conversations is None:
                from clinqa.conversation import conversation_store

                self._conversations = conversation_store(self.pipe)
            return self._conversations

    @staticmethod
    def owner(who: Principal) -> str:
        """Whose conversations ``who`` reads and continues: ``key:<the key's name>``, or :data:`ANONYMOUS_OWNER`
        (never the command line's ``local``, whatever a key is named)."""
        return f"key:{who.name}" if who.name is not None else ANONYMOUS_OWNER

    def conversation(self, conversation_id: str, who: Principal) -> Conversation:
        """``who``'s conversation ``conversation_id`` (by id, never by a CLI conversation's name); 404 when it
        is unknown, expired or another key's (the same answer for all three)."""
        conv = self.conversations.get(conversation_id, self.owner(who))
        if conv is None or conv.conversation_id != conversation_id:
            raise HTTPException(404, f"no conversation {conversation_id!r}")
        return conv

    def require_store(self) -> None:
        """HTTP 409 when nothing has been ingested."""
        if self.pipe.store.count() == 0:
            raise HTTPException(409, "the store is empty: run `clinqa ingest PATH` first")

    def check_length(self, text: str, field: str) -> None:
        """422 (as a validation error) when ``text`` exceeds ``service.max_question_chars``, with the message the
        CLI and the chat give (:func:`clinqa.question.limit.too_long_message`)."""
        limit = self.settings.service.max_question_chars
        if len(text) > limit:
            raise RequestValidationError([{"type": "string_too_long", "loc": ("body", field),
                                           "msg": too_long_message(len(text), limit, field),
                                           "input": text[:100] + "...", "ctx": {"max_length": limit}}])

    def documents(self) -> list[dict[str, Any]]:
        """Every document of the store (see :meth:`clinqa.store.lancedb.LanceStore.documents`)."""
        return self.pipe.store.documents()

    def doc_chunks(self, doc_id: str, patient_id: str | None, columns: list[str]) -> list[dict[str, Any]]:
        """``columns`` of every chunk of one document (all levels), in stored (reading) order."""
        f = Filters(patient_id=patient_id, doc_ids=(doc_id,), exclude_levels=())
        return self.pipe.store.export(columns, f).to_pylist()

    def query_record(self, query_id: str, who: Principal) -> dict[str, Any]:
        """The logged query ``query_id`` if ``who`` may read it. The asking key is checked first: with API keys
        configured a query logged under another key's name gets the same 404 as an unknown id (same status, same
        message: which ids exist is never told), whatever its patient. The key's own query whose patient has left
        the key's scope is 403, without naming the patient. Without keys every request is anonymous and reads
        any query of no patient; a patient-scoped query (asked from the CLI) is then 404 as well. 409: the log
        is disabled."""
        rec = self.require_querylog().get(query_id)
        unknown = HTTPException(404, f"no query {query_id!r} in the query log")
        if rec is None:
            raise unknown
        patient = (rec.get("filters") or {}).get("patient_id")
        if self.keys.required:
            if rec.get("api_key_name") != who.name:
                raise unknown
            if not who.may_read(patient):
                raise HTTPException(403, who.out_of_scope(f"query {query_id!r} any more: it was asked about a patient"))
        elif not who.may_read(patient):
            raise unknown
        return rec

    def require_id_scope(self, doc_id: str, who: Principal) -> list[str]:
        """403 before any store lookup when ``doc_id`` is a note id (or a note's chunk id) of a
        patient ``who`` may not read, so 403 vs 404 does not tell which notes exist. Returns the
        patients the id may belong to (:func:`note_patients`)."""
        cands = note_patients(doc_id)
        if cands and not any(who.may_read(p) for p in cands):
            who.require_patient(cands[0])
        return cands

    def not_found(self, what: str, ident: str, cands: list[str], who: Principal) -> HTTPException:
        """404 for an unknown id, unless the id could also name a patient out of scope (a patient id
        with a colon): then 403, as for an existing note of that patient."""
        for p in cands:
            who.require_patient(p)
        return HTTPException(404, f"no {what} {ident!r}")

    def scoped_stats(self, who: Principal) -> dict[str, Any]:
        """``documents, chunks, levels, sources, patients`` counted over what ``who`` may see:
        documents of no patient plus the notes of patients in scope (``patients``: how many of
        those have notes). A ``"*"`` key sees the whole store."""
        docs = [d for d in self.documents() if who.may_read(d["patient_id"])]
        sources: dict[str, int] = {}
        for d in docs:
            sources[d["source"] or ""] = sources.get(d["source"] or "", 0) + 1
        patients = sorted({d["patient_id"] for d in docs if d["patient_id"]})
        levels: dict[str, int] = {}
        for pid in [None, *patients]:
            t = self.pipe.store.export(["hierarchy_level"], Filters(patient_id=pid, exclude_levels=()))
            for lv in t.column("hierarchy_level").to_pylist():
                levels[lv] = levels.get(lv, 0) + 1
        return {"documents": len(docs), "chunks": sum(levels.values()), "levels": levels, "sources": sources,
                "patients": len(patients)}

    def years(self, who: Principal) -> dict[str, int]:
        """Documents per year among those ``who`` may see (documents without a year left out)."""
        years: dict[str, int] = {}
        for d in self.documents():
            if d["year"] and who.may_read(d["patient_id"]):
                years[str(d["year"])] = years.get(str(d["year"]), 0) + 1
        return dict(sorted(years.items()))

    def examples(self) -> list[dict[str, Any]]:
        """Up to :data:`EXAMPLES` example questions for the web page, each of another document of no patient
        (never a patient's note, whoever asks): :func:`example_candidates` in order, each asked as the page
        would (no filters, no language model) until :data:`EXAMPLES` are answered, at most
        :data:`EXAMPLE_TRIES` of them and for :data:`EXAMPLE_BUDGET_S` seconds; untried candidates fill the
        rest (``answered`` false), refused ones never. Computed on first use and kept until the store
        changes (its corpus version); each question takes the question lock on its own, so questions of
        users go on in between. Empty for an empty store."""
        with self._examples_lock:
            version = self.pipe.corpus_version()
            if self._examples is not None and self._examples[0] == version:
                return self._examples[1]
            rows = []
            if self.pipe.store.count():
                rows = self.pipe.store.export(["doc_id", "title", "source", "section_path"],
                                              Filters(patient_id=None)).to_pylist()
            answered: list[dict[str, Any]] = []
            untried: list[dict[str, Any]] = []
            tries, deadline = 0, time.monotonic() + EXAMPLE_BUDGET_S
            for cand in example_candidates(rows):
                if len(answered) + len(untried) >= EXAMPLES:
                    break
                if tries >= EXAMPLE_TRIES or time.monotonic() > deadline:
                    untried.append(cand | {"answered": False})
                    continue
                tries += 1
                try:
                    with self.lock:
                        refused = self.pipe.ask(cand["question"], self.pipe.filters(), generate=False).refused
                except ClinqaError as exc:
                    logger.warning("example question %r failed: %s", cand["question"], exc)
                    continue
                if not refused:
                    answered.append(cand | {"answered": True})
            self._examples = (version, answered + untried)
            return self._examples[1]


def get_service(request: Request) -> Service:
    """FastAPI dependency: the app's :class:`Service` (``request.app.state.service``, set by
    :func:`clinqa.service.app.create_app`)."""
    return request.app.state.service


#: a route's parameter ``svc: ServiceDep`` receives the app's :class:`Service`
ServiceDep = Annotated[Service, Depends(get_service)]
#: a route's parameter ``who: Who`` receives the request's :class:`Principal` (401 without a valid key)
Who = Annotated[Principal, Depends(principal)]


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route: each status code in ``codes`` answered with :class:`ErrorResponse`
    (``{"detail": message}``) in the OpenAPI document."""
    return {c: {"model": ErrorResponse} for c in codes}
