"""The HTTP API and the clinicians' web page (``clinqa serve``).

Routes (every data route needs ``X-API-Key`` when ``service.api_keys`` is set, else 401; errors
are ``{"detail": message}``):

==========================  =====================================================================
``GET /``                   the web page (no key needed to load it; the page asks for one)
``GET /health``             200 ``{"status": "ok", ...}`` (no key)
``GET /whoami``             the key's name and patient scope
``GET /stats``              counts only, of what the key may see (documents, chunks, levels, years, ...)
``GET /examples``           three example questions for the page, from headings of non-patient documents
``POST /ask``               answer or refusal + ``query_id``; 403 patient out of scope, 409 empty
                            store, 400 bad input (ClinqaError), 422 invalid/too long, 413 body
``POST /search``            ranked chunks; same codes as /ask
``GET /documents``          documents this key may see; ``?patient_id=`` 403 out of scope
``GET /documents/{id}``     metadata and chunks by section; 404 unknown, 403 another patient's note
                            (a note id of such a patient is 403 whether or not the note exists)
``GET /chunks/{id}``        a chunk, its neighbours, highlight offsets; 404 / 403 as above
``POST /feedback``          grade a logged answer; 404 unknown query, 403 query scoped to a patient
                            out of scope or logged under another key, 409 query log disabled,
                            422 invalid
``GET /queries/{id}``       the logged query with its feedback; 404 / 403 / 409 as /feedback
``GET /conversations/{id}`` a conversation of this key with its turns; 404 unknown, expired or
                            another key's (never told apart), 403 its patient out of scope
==========================  =====================================================================

Scope: a key reads notes only of the patients it lists (``["*"]``: all). Questions and searches
without ``patient_id`` never see notes (the store query enforces it); document listings show
non-patient documents plus notes of patients in scope; everything naming or returning another
patient's note is 403. A note id names its patient (``note:<patient>:<note>``), so the scope is
decided from the id before the store is asked: an out-of-scope note id is 403 whether or not the
note exists (404 would tell which notes exist); 404 only for ids the key could read if they existed.
``/stats`` counts only what the key may see. With keys configured, a logged query (``/queries``,
``/feedback``) is readable and ratable only with the key it was asked with.

Conversations (issue 40): ``POST /ask`` with ``conversation: true`` starts one, with ``conversation_id``
continues it; the follow-up is read with the turn before it into a standalone question
(:func:`clinqa.conversation.ask_turn`), which goes through the same cached, logged ask as a plain
question. A conversation belongs to the key that started it (its name; :data:`ANONYMOUS_OWNER` when no
keys are configured, so then every caller shares them) and to the patient scope it started with: another
key gets 404 for it, exactly as for an unknown id, and a follow-up with another ``patient_id`` (or none)
is 409 (as :class:`clinqa.logs.conversations.ScopeChanged` in the CLI), after the usual 403 for a patient out of scope.

Concurrency: one :class:`clinqa.pipeline.Pipeline` per process, built when the app is created
and warmed up (encoder, store) at start-up. FastAPI runs the sync routes in its thread pool;
questions and searches (encoder, tokenizer, reranker, language model) take one lock, so a process
answers one question at a time while document and chunk reads go on beside it. Scale with
``clinqa serve --workers N`` (each worker builds its own app, :func:`app_from_env`). The query log
and the answer cache are shared by the threads (each is thread- and process-safe).

Every ``POST /ask`` goes through the answer cache (:func:`clinqa.cache.cached_ask`) and is recorded
in the query log with source ``"web"`` (header ``X-Clinqa-Client: web``, sent by the page) or
``"api"``, and the key's name.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import logging
import os
import re
import threading
import time
import unicodedata
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from clinqa.answer.types import Answer, citation_url
from clinqa.cache import CacheUnavailable, build_cache, cached_ask
from clinqa.errors import ClinqaError, ConfigError
from clinqa.logs.conversations import Conversation, ConversationStore
from clinqa.logs.querylog import FAILURE_CATEGORIES, QueryLog, model_id_of
from clinqa.pipeline import Pipeline
from clinqa.question.limit import too_long_message
from clinqa.retrieval import Filters
from clinqa.service.auth import KeyRing, Principal, principal
from clinqa.service.models import (
    MAX_COMMENT_CHARS,
    AskRequest,
    AskResponse,
    ChunkResponse,
    ChunkText,
    ConversationRecord,
    DocumentDetail,
    DocumentList,
    DocumentSummary,
    ErrorResponse,
    ExamplesResponse,
    FeedbackRequest,
    FeedbackResponse,
    HealthResponse,
    QueryRecord,
    SearchHit,
    SearchRequest,
    SearchResponse,
    SectionModel,
    StatsResponse,
    WhoAmI,
)
from clinqa.settings import Settings, load_settings

HERE = Path(__file__).resolve().parent
logger = logging.getLogger(__name__)
#: header the web page sends so its questions are logged with source "web"
CLIENT_HEADER = "X-Clinqa-Client"
#: the owner of the conversations asked without an API key (no keys configured: every caller is this one)
ANONYMOUS_OWNER = "anonymous"
#: environment variables read by :func:`app_from_env` (set by ``clinqa serve``)
ENV_SETTINGS = "CLINQA_SETTINGS_JSON"
ENV_CONFIG = "CLINQA_CONFIG"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimitMiddleware:
    """Reject request bodies over ``max_bytes`` with 413 ``{"detail": ...}``: at once when the
    ``Content-Length`` header says so, else while reading a streamed (chunked) body. A body within
    the limit is buffered and replayed to the app unchanged."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _reject(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body larger than {self.max_bytes} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes:
                    await self._reject(send)
                    return
        buffered: list[Message] = []
        size = 0
        while True:  # read the whole body (bounded) before the app sees any of it
            message = await receive()
            if message["type"] != "http.request":
                buffered.append(message)  # a disconnect: let the app see it
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._reject(send)
                return
            buffered.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)


#: the tokens quotes and passages are compared by: runs of digits, runs of letters ("5mg" = "5 mg"), and the
#: comparison signs; everything else (spaces, punctuation, list and table markup, "…") is skipped
_HL_TOKEN = re.compile(r"\d+|[^\W\d_]+|[<>≤≥]")
#: a break in the passage between two quoted words that ends a highlight: an empty line, or a line break with
#: anything but spaces and sentence punctuation around it (a list marker, a table's "|")
_HL_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_HL_SOFT = " \t\r\n.,;:!?"
#: a stretch of the quote shorter than this many tokens is highlighted only on a line of the passage that
#: holds a longer one (a table row's label cell beside its quoted dose)
_HL_MIN_RUN = 3


def _hl_tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), unicodedata.normalize("NFKC", m.group()).casefold())
            for m in _HL_TOKEN.finditer(text)]


def highlight_spans(body: str, text: str) -> list[tuple[int, int]]:
    """``[start, end)`` offsets in ``body`` (code points) of every stretch of ``text`` (a citation's quote)
    that occurs in it, sorted.

    A quote is not always a verbatim slice of its passage: the extractive answer joins several units
    (sentences, list items, table rows) with spaces, prefixes list items with their lead-in label
    ("Dosing: Apixaban 5 mg BID", the label once per item), quotes a table row with its column headers
    ("Drug: Apixaban; Dose: 5 mg BID") and drops list markers and emphasis; a generated answer's evidence
    may be clipped with "…". So both are compared as token sequences (:data:`_HL_TOKEN`: words and numbers,
    case- and Unicode-compatibility-folded, punctuation and markup skipped): from each position of the
    quote, the longest run of tokens that follows in the passage is found (first such place on a tie). A run
    of at least :data:`_HL_MIN_RUN` tokens (or the whole quote) is highlighted; a shorter one only on a
    line that holds such a run (a row's label cell, a clause after an elision), so a lone word of a quoted
    header is not marked elsewhere. A run is split at paragraph breaks and at line breaks with markup (no
    list marker or table rule inside a highlight), not at a line wrapped inside a sentence; each span
    keeps the punctuation the quote has next to its ends ("(Class I)") and the passage's full stop after
    it. Spans separated by spaces only are merged."""
    b, q = _hl_tokens(body), _hl_tokens(text)
    if not b or not q:
        return []
    where: dict[str, list[int]] = {}
    for j, (_, _, tok) in enumerate(b):
        where.setdefault(tok, []).append(j)
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", body)]

    def line(pos: int) -> int:
        return bisect.bisect_right(line_starts, pos) - 1

    long_runs: list[tuple[int, int, int]] = []  # (quote index, body index, length)
    short: list[tuple[int, list[int], int]] = []  # (quote index, candidate body indexes, length)
    i = 0
    while i < len(q):
        best, at = 0, []
        for j in where.get(q[i][2], ()):
            n = 1
            while i + n < len(q) and j + n < len(b) and q[i + n][2] == b[j + n][2]:
                n += 1
            if n > best:
                best, at = n, [j]
            elif n == best:
                at.append(j)
        if best >= _HL_MIN_RUN or best == len(q):
            long_runs.append((i, at[0], best))
            i += best
            continue
        if best and not (short and i < short[-1][0] + short[-1][2]):
            short.append((i, at, best))
        i += 1
    anchored = {ln for _, j, n in long_runs for ln in range(line(b[j][0]), line(b[j + n - 1][0]) + 1)}
    runs = list(long_runs)
    for i, at, n in short:
        toks = [t for _, _, t in q[i:i + n]]
        if sum(map(len, toks)) < 3 and not any(t.isdigit() for t in toks):
            continue  # "a", "of": too common to place
        j = next((j for j in at if line(b[j][0]) in anchored and line(b[j + n - 1][0]) in anchored), None)
        if j is not None:
            runs.append((i, j, n))

    def stretch(s: int, e: int, qs: int, qe: int) -> tuple[int, int]:
        """``[s, e)`` widened by the punctuation next to it that the quote has next to ``[qs, qe)``."""
        for _ in range(3):
            if s > 0 and qs > 0 and body[s - 1] == text[qs - 1] and not (body[s - 1].isalnum()
                                                                         or body[s - 1].isspace()):
                s, qs = s - 1, qs - 1
            if e < len(body) and qe < len(text) and body[e] == text[qe] and not (body[e].isalnum()
                                                                                 or body[e].isspace()):
                e, qe = e + 1, qe + 1
        return s, e

    def breaks(gap: str) -> bool:  # a paragraph break, or a line break with list or table markup
        return "\n" in gap and (_HL_PARAGRAPH.search(gap) is not None or bool(gap.strip(_HL_SOFT)))

    spans: list[tuple[int, int]] = []
    for i, j, n in runs:
        k = 0
        while k < n:  # one span per paragraph, list item or table row of the passage
            m = k
            while m + 1 < n and not breaks(body[b[j + m][1]:b[j + m + 1][0]]):
                m += 1
            s, e = stretch(b[j + k][0], b[j + m][1], q[i + k][0], q[i + m][1])
            if e < len(body) and body[e] in ".!?" and body[e - 1] not in ".!?":
                e += 1  # the passage's full stop, also when the quote has none there
            spans.append((s, e))
            k = m + 1
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and (s <= merged[-1][1] or not body[merged[-1][1]:s].strip(" \t")):
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


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


#: how many example questions the page offers, how many candidates are asked at most to find answered ones,
#: and for how long (seconds) before the rest are offered untried
EXAMPLES = 3
EXAMPLE_TRIES = 8
EXAMPLE_BUDGET_S = 8.0
#: section headings that name a part of a document, not a topic: no example question asks about them
_NOT_TOPIC = re.compile(
    r"(?i)^(?:abstract|background|introduction|overview|summary|key (?:points|messages)|methods?|methodology|"
    r"materials and methods|results|findings|discussion|conclusions?|references|bibliography|further reading|"
    r"acknowledge?ments?|funding|disclosures?|conflicts? of interest|competing interests|"
    r"authors?(?:'s?)?(?: contributions| information)?|contributors|appendix|appendices|abbreviations|glossary|"
    r"definitions|keywords|(?:table of )?contents|scope|purpose|aims?|objectives?|limitations|supplementary\b.*|"
    r"data availability\b.*|ethic.*|copyright|licen[cs]e|notes?|sources?|citation|preface|foreword|"
    r"(?:table|figure|fig\.?|box|appendix)\b.*)$")
#: headings clinicians ask about first (treatment, dosing, diagnosis, ...)
_CLINICAL_TOPIC = re.compile(r"(?i)\b(?:treat|manag|therap|dos(?:e|es|ing|age)\b|diagnos|recommend|indicat|"
                             r"contraindicat|prevent|prophyla|screen|follow-up|monitor|prognos|symptom|caus|risk|"
                             r"complicat|first-line|initial)")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+")


def _example_for(title: str, heading: str) -> str | None:
    """The example question asked about ``heading`` of the document ``title``: the heading itself when it
    is a question that names a word of the title ("What are the symptoms of Glaucoma?" in "Glaucoma"), else
    "What does <title> say about <heading>?" (parentheses dropped);
    None for a heading that is no topic (:data:`_NOT_TOPIC`, the title again, a number) or too long."""
    h = _NUMBERING.sub("", " ".join(heading.split()))
    h = re.sub(r"\s*\([^()]*\)", "", h).strip(" :.;")  # "Primary Goal (Recommendation 6.5a, Grade A)"
    h = re.sub(r"\s+\?$", "?", h)
    if not re.search(r"[^\W\d_]", h) or h.casefold() == title.casefold() or _NOT_TOPIC.match(h.rstrip("?")):
        return None
    if h.endswith("?"):  # as it stands when it names the document's subject ("Which drug to taper first?" does not)
        named = {w.casefold() for w in re.findall(r"[^\W\d_]{4,}", title)}
        return h if 3 <= len(h.split()) <= 20 and named & {w.casefold() for w in re.findall(r"\w+", h)} else None
    if not title or len(title.split()) > 12 or len(h.split()) > 8:
        return None
    title_case = any(re.match(r"[^\W\d_][^\W\d_]*$", w) and w[0].isupper() and w[1:2].islower()
                     for w in re.split(r"[\s-]+", h)[1:])
    topic = h if title_case or not h[1:2].islower() else h[0].lower() + h[1:]  # "Beta-blockers" -> "beta-blockers";
    # "DAPT duration", "Severity-Based Management Algorithm" kept as written
    return f"What does {title} say about {topic}?"


def example_candidates(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One example question per document, from the chunk ``rows`` (``doc_id``, ``title``, ``source``,
    ``section_path``, in reading order) of documents of no patient: the first question heading of the
    document, else its first clinical heading (:data:`_CLINICAL_TOPIC`), else its first topic heading
    (:func:`_example_for`). Deterministic and spread over the corpus: sources in turn, each source's
    documents in turn, both in the order of a hash of their names (ids), questions of at most 100 characters
    first. Dicts of ``question, doc_id, title, section``.

    >>> rows = [{"doc_id": "a", "title": "Acute otitis media", "source": "AAFP", "section_path": [
    ...     "Acute otitis media", "Background"]}, {"doc_id": "a", "title": "Acute otitis media", "source": "AAFP",
    ...     "section_path": ["Acute otitis media", "Treatment"]}]
    >>> [c["question"] for c in example_candidates(rows)]
    ['What does Acute otitis media say about treatment?']
    """
    docs: dict[str, dict[str, Any]] = {}
    for r in rows:
        title = " ".join((r.get("title") or "").split()).rstrip(" .")
        d = docs.setdefault(r["doc_id"], {"title": title, "source": r.get("source") or "", "best": None})
        path = list(r.get("section_path") or [])
        if not path:
            continue
        question = _example_for(title, path[-1])
        if question is None:
            continue
        rank = 0 if path[-1].strip().endswith("?") else 1 if _CLINICAL_TOPIC.search(path[-1]) else 2
        if d["best"] is None or rank < d["best"][0]:
            d["best"] = (rank, question, path[-1].strip())
    by_source: dict[str, list[str]] = {}
    for doc_id in sorted(docs, key=lambda i: hashlib.sha256(i.encode()).hexdigest()):
        if docs[doc_id]["best"] is not None:
            by_source.setdefault(docs[doc_id]["source"], []).append(doc_id)
    queues = [by_source[s] for s in sorted(by_source, key=lambda s: hashlib.sha256(s.encode()).hexdigest())]
    out: list[dict[str, Any]] = []
    for k in range(max((len(q) for q in queues), default=0)):
        for q in queues:
            if k < len(q):
                d = docs[q[k]]
                out.append({"question": d["best"][1], "doc_id": q[k], "title": d["title"], "section": d["best"][2]})
    return sorted(out, key=lambda c: len(c["question"]) > 100)


def _plain(value: Any) -> Any:
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
        """Load the encoder and open the store now, not on the first question."""
        with self.lock:
            _ = self.pipe.encoder
            _ = self.pipe.store

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


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {c: {"model": ErrorResponse} for c in codes}


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    return Jinja2Templates(env=env)


PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def create_app(settings: Settings, pipeline: Pipeline | None = None) -> FastAPI:
    """The FastAPI app: API routes, the web page at ``/`` and its static files at ``/static``.

    ``settings.service`` gives the keys, body and question limits; the pipeline (built from
    ``settings`` unless given) answers. Raises :class:`ConfigError` when an ``env:VAR`` key is unset.
    """
    svc = Service(settings, pipeline)
    pipe = svc.pipe

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        svc.warm_up()
        yield

    try:
        version = pkg_version("clinqa")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        version = "0"
    app = FastAPI(title="clinqa", version=version, lifespan=lifespan,
                  description="Evidence-grounded clinical question answering: cited answers from the ingested "
                              "documents, or a refusal that says why. Send the API key in the X-API-Key header.")
    app.state.service = svc
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.service.max_body_bytes)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = _templates()

    @app.exception_handler(ClinqaError)
    async def _clinqa_error(request: Request, exc: ClinqaError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.middleware("http")
    async def _headers(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    auth = Depends(principal)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(request: Request) -> HTMLResponse:
        """The web page (question box, filters, answer, citations, feedback; on an empty page example
        questions and what the store holds, read with the key through ``/examples``, ``/stats`` and
        ``/documents``; ``?q=`` asks on load, every question asked is put in the URL)."""
        sources = sorted({d["source"] for d in svc.documents() if d["source"] and d["patient_id"] is None})
        resp = templates.TemplateResponse(request, "index.html", {
            "keys_required": svc.keys.required,
            "max_question_chars": settings.service.max_question_chars,
            "max_comment_chars": MAX_COMMENT_CHARS,
            "categories": FAILURE_CATEGORIES,
            "sources": sources,
            "llm_backend": pipe.settings.llm.backend,
        })
        resp.headers["Content-Security-Policy"] = PAGE_CSP
        return resp

    @app.get("/health", response_model=HealthResponse, tags=["service"])
    def health() -> dict[str, Any]:
        """200 when the process is up and its store can be read (no key needed)."""
        return {"status": "ok", "store_empty": pipe.store.count() == 0, "version": version}

    @app.get("/whoami", response_model=WhoAmI, tags=["service"], responses=_errors(401))
    def whoami(who: Principal = auth) -> dict[str, Any]:
        """The key's name and the patients whose notes it may read."""
        return {"name": who.name, "patients": who.scope(), "keys_required": svc.keys.required}

    @app.get("/stats", response_model=StatsResponse, tags=["service"], responses=_errors(401))
    def stats(who: Principal = auth) -> dict[str, Any]:
        """Counts of the store (no ids): documents, chunks, per level, per source, number of patients
        with notes. A key with the ``"*"`` scope gets the counts of the whole store; any other key
        (and anonymous access) only of what it may see: documents of no patient plus the notes of
        the patients in its scope, so the counts never tell how many patients or notes exist
        outside it (``patients`` counts the patients in scope that have notes)."""
        with svc.lock:
            if who.all_patients:
                s = pipe.stats()
            else:
                s = svc.scoped_stats(who) | {"model_id": pipe.store_meta().get("model_id")}
            s["corpus_version"] = pipe.corpus_version()
        s["years"] = svc.years(who)
        return {k: s[k] for k in ("documents", "chunks", "levels", "sources", "patients", "model_id", "corpus_version",
                                  "years")}

    @app.get("/examples", response_model=ExamplesResponse, tags=["service"], responses=_errors(401))
    def examples(who: Principal = auth) -> dict[str, Any]:
        """Up to three example questions for the web page's empty state, each about a section heading of
        another ingested document of no patient (guidelines, articles; never a patient's note), chosen
        deterministically and, where possible, ones the service answers (``answered``). The same for every
        key (questions without a patient never see notes); computed once per store version."""
        return {"examples": svc.examples()}  # ``who``: the key is checked (401), no note is ever an example

    @app.post("/ask", response_model=AskResponse, tags=["answers"],
              responses=_errors(400, 401, 403, 404, 409, 413, 422))
    def ask(req: AskRequest, request: Request, who: Principal = auth) -> dict[str, Any]:
        """Answer ``question`` from the ingested documents with numbered citations, or refuse and
        say why (``refused``, ``reason``, ``related_topics``).

        ``conversation: true`` starts a conversation, ``conversation_id`` continues one: the question
        is read with the turn before it into ``standalone_question``, which is answered (cached and
        logged as any question); ``conversation_turns`` lists the turns it drew on.

        403 when ``patient_id`` is outside the key's scope; 404 when ``conversation_id`` is unknown,
        expired or another key's; 409 when the store is empty, or when ``patient_id`` is not the
        conversation's patient scope; 422 for a question longer than ``service.max_question_chars``,
        ``since`` after ``until``, or both ``conversation`` and ``conversation_id``. Logged in the
        query log (``query_id``) and served from the answer cache when possible."""
        svc.check_length(req.question, "question")
        who.require_patient(req.patient_id)
        conv = None
        if req.conversation_id is not None:
            conv = svc.conversation(req.conversation_id, who)
            who.require_patient(conv.patient_id)  # a patient that left the key's scope: 403, never named
            if conv.patient_id != req.patient_id:
                where = f"patient {conv.patient_id}" if conv.patient_id else "no patient (documents of no patient only)"
                raise HTTPException(409, f"conversation {conv.conversation_id!r} is scoped to {where}: a follow-up "
                                         "must send the same patient_id and cannot change the patient scope (start "
                                         "a new conversation)")
        svc.require_store()
        filters = pipe.filters(patient_id=req.patient_id, since=req.since, until=req.until, sources=req.sources)
        source = "web" if request.headers.get(CLIENT_HEADER, "").lower() == "web" else "api"
        hits: list[bool] = []

        def cached(question: str) -> Answer:
            answer, hit = cached_ask(pipe, svc.cache, question, filters, closed=req.closed)
            hits.append(hit)
            return answer

        def log(answer: Answer) -> str | None:
            if svc.log is None:
                return None
            return svc.log.record(answer, config_hash=pipe.config_hash(), model_id=model_id_of(pipe),
                                  corpus_version=pipe.corpus_version(), source=source, api_key=who.name,
                                  cache_hit=hits[-1])

        if not req.conversation and conv is None:
            with svc.lock:
                answer = cached(req.question)
                logged = {"config_hash": pipe.config_hash(), "model_id": model_id_of(pipe),
                          "corpus_version": pipe.corpus_version()}
            query_id = None
            if svc.log is not None:
                query_id = svc.log.record(answer, **logged, source=source, api_key=who.name, cache_hit=hits[-1])
            return {"query_id": query_id, "cache_hit": hits[-1], **_plain(answer.to_dict())}

        from clinqa.conversation import ask_turn

        store = svc.conversations
        if conv is None:
            store.expire(pipe.settings.conversation.expire_days)
            conv = store.start(svc.owner(who), req.patient_id)
        with svc.lock:  # the follow-up is read with the encoder too
            answer, query_id = ask_turn(pipe, store, conv, req.question, filters, ask=cached, log=log)
        return {"query_id": query_id, "cache_hit": hits[-1], **_plain(answer.to_dict())}

    @app.post("/search", response_model=SearchResponse, tags=["answers"],
              responses=_errors(400, 401, 403, 409, 413, 422))
    def search(req: SearchRequest, who: Principal = auth) -> dict[str, Any]:
        """Ranked chunks for ``query`` (fused RRF rank plus dense and BM25 ranks and scores).
        Same scope and status codes as ``POST /ask``; not logged."""
        svc.check_length(req.query, "query")
        who.require_patient(req.patient_id)
        svc.require_store()
        filters = pipe.filters(patient_id=req.patient_id, since=req.since, until=req.until, sources=req.sources)
        with svc.lock:
            res = pipe.search(req.query, filters, k=req.k)
        hits = []
        for h in res.hits:
            c = h.chunk
            hits.append(SearchHit(
                rank=h.rank, rrf=float(h.score), dense_rank=h.ranks.get("dense"), dense_cosine=h.scores.get("dense"),
                bm25_rank=h.ranks.get("bm25"), bm25_score=h.scores.get("bm25"), rerank_score=h.scores.get("rerank"),
                chunk_id=c.chunk_id, doc_id=c.doc_id, title=c.title, section=c.section, year=c.year, source=c.source,
                patient_id=c.patient_id, note_date=c.note_date.isoformat() if c.note_date else None, text=c.body))
        return {"query": req.query, "filters": _plain(res.filters.to_dict()), "hits": hits}

    @app.get("/documents", response_model=DocumentList, tags=["documents"], responses=_errors(401, 403))
    def documents(patient_id: str | None = Query(None, description="Only this patient's notes (403 out of scope)."),
                  source: str | None = Query(None, description="Only this source (case-insensitive)."),
                  who: Principal = auth) -> dict[str, Any]:
        """Documents this key may see, sorted by id: every non-patient document plus the notes of
        patients in scope; with ``patient_id``, only that patient's notes."""
        who.require_patient(patient_id)
        docs = [d for d in svc.documents() if who.may_read(d["patient_id"])]
        if patient_id is not None:
            docs = [d for d in docs if d["patient_id"] == patient_id]
        if source:
            docs = [d for d in docs if (d["source"] or "").lower() == source.lower()]
        return {"count": len(docs), "documents": [DocumentSummary(**d) for d in docs]}

    def _document(doc_id: str, who: Principal) -> dict[str, Any]:
        cands = svc.require_id_scope(doc_id, who)
        doc = next((d for d in svc.documents() if d["doc_id"] == doc_id), None)
        if doc is None:
            raise svc.not_found("document", doc_id, cands, who)
        who.require_patient(doc["patient_id"])
        return doc

    @app.get("/documents/{doc_id:path}", response_model=DocumentDetail, tags=["documents"],
             responses=_errors(401, 403, 404))
    def document(doc_id: str, who: Principal = auth) -> dict[str, Any]:
        """One document: metadata and every chunk grouped by section, in reading order.
        404 unknown id; 403 a note of a patient outside the key's scope, decided from a note id
        (``note:<patient>:...``) before looking it up: 403 whether or not such a note exists."""
        doc = _document(doc_id, who)
        rows = svc.doc_chunks(doc_id, doc["patient_id"], [
            "chunk_id", "hierarchy_level", "chunk_index", "body", "section_path", "url", "doi", "organization",
            "authors", "topics", "note_date", "note_type"])
        sections: dict[tuple[str, ...], list[ChunkText]] = {}
        for r in rows:
            sections.setdefault(tuple(r["section_path"] or []), []).append(ChunkText(**{
                k: r[k] for k in ("chunk_id", "hierarchy_level", "chunk_index", "body")}))
        first = rows[0] if rows else {}
        meta = {k: first.get(k) or "" for k in ("url", "doi", "organization", "note_type")}
        meta |= {"note_date": first.get("note_date") or None, "authors": first.get("authors") or [],
                 "topics": first.get("topics") or []}
        return {**doc, **meta, "sections": [
            SectionModel(section_path=list(p), section=" > ".join(p), chunks=sorted(cs, key=lambda c: c.chunk_index))
            for p, cs in sections.items()]}

    @app.get("/chunks/{chunk_id:path}", response_model=ChunkResponse, tags=["documents"],
             responses=_errors(401, 403, 404))
    def chunk(chunk_id: str,
              highlight: str = Query("", max_length=20_000, description="Text to locate in the chunk (a citation's "
                                     "quote); its offsets come back in highlights."),
              context: int = Query(1, ge=0, le=20, description="Neighbouring chunks to return on each side."),
              who: Principal = auth) -> dict[str, Any]:
        """A chunk (a citation's passage) with the chunks just before and after it in the same
        document and section, and where ``highlight`` occurs in it. Neighbours are found through the
        store: every chunk of the document (``Filters(doc_ids=[doc], patient_id=its patient)``),
        kept when it has the same section path and hierarchy level, ordered by ``chunk_index``.
        404 unknown id; 403 a note of a patient outside the key's scope, decided from the id (a
        note's chunk ids start with its ``note:<patient>:`` id) before looking it up."""
        cands = svc.require_id_scope(chunk_id, who)
        found = pipe.store.get_chunks([chunk_id])
        if not found:
            raise svc.not_found("chunk", chunk_id, cands, who)
        c = found[0]
        who.require_patient(c.patient_id)
        prev: list[ChunkText] = []
        nxt: list[ChunkText] = []
        if context:
            rows = svc.doc_chunks(c.doc_id, c.patient_id, ["chunk_id", "hierarchy_level", "chunk_index", "body",
                                                           "section_path"])
            same = sorted((r for r in rows if list(r["section_path"] or []) == c.section_path
                           and r["hierarchy_level"] == c.hierarchy_level and r["chunk_id"] != c.chunk_id),
                          key=lambda r: r["chunk_index"])
            as_text = [ChunkText(**{k: r[k] for k in ("chunk_id", "hierarchy_level", "chunk_index", "body")})
                       for r in same]
            prev = [t for t in as_text if t.chunk_index < c.chunk_index][-context:]
            nxt = [t for t in as_text if t.chunk_index > c.chunk_index][:context]
        return {"chunk_id": c.chunk_id, "doc_id": c.doc_id, "title": c.title, "section": c.section,
                "section_path": c.section_path, "hierarchy_level": c.hierarchy_level, "chunk_index": c.chunk_index,
                "year": c.year, "source": c.source, "url": citation_url(c), "patient_id": c.patient_id,
                "note_date": c.note_date.isoformat() if c.note_date else None, "note_type": c.note_type,
                "page_start": c.page_start, "page_end": c.page_end, "ocr": c.ocr,
                "body": c.body, "highlights": highlight_spans(c.body, highlight) if highlight else [],
                "previous": prev, "next": nxt}

    @app.post("/feedback", response_model=FeedbackResponse, tags=["feedback"],
              responses=_errors(401, 403, 404, 409, 413, 422))
    def feedback(req: FeedbackRequest, who: Principal = auth) -> dict[str, Any]:
        """Grade a logged answer: ``score`` 1.0 (Excellent), 0.6 (Acceptable) or 0.2 (Very poor), an
        optional comment and failure category. Returns every feedback entry of the query, read
        back from the log. 404 unknown query or (API keys configured) one asked with another key, never told
        apart; 403 the key's own query about a patient that has left its scope; 409 query log disabled
        (:meth:`Service.query_record`)."""
        svc.query_record(req.query_id, who)
        log = svc.require_querylog()
        try:
            log.add_feedback(req.query_id, req.score, req.comment, req.category)
        except KeyError:
            raise HTTPException(404, f"no query {req.query_id!r} in the query log") from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        rec = log.get(req.query_id) or {}
        return {"query_id": req.query_id, "feedback": _plain(rec.get("feedback") or [])}

    @app.get("/conversations/{conversation_id}", response_model=ConversationRecord, tags=["answers"],
             responses=_errors(401, 403, 404))
    def conversation(conversation_id: str, who: Principal = auth) -> dict[str, Any]:
        """A conversation this key started (``POST /ask`` with ``conversation: true``) with its turns,
        oldest first: each the question as typed, the standalone question answered, how it was read,
        the turns it drew on, its query id and whether it was refused. 404 when it is unknown, expired
        or another key's (the same status and message: never told apart); 403 when its patient is no longer in the
        key's scope (the patient is not named)."""
        conv = svc.conversation(conversation_id, who)
        who.require_patient(conv.patient_id)
        d = conv.to_dict()
        return {k: d[k] for k in ("conversation_id", "patient_id", "created", "updated", "turns")}

    @app.get("/queries/{query_id}", response_model=QueryRecord, tags=["feedback"],
             responses=_errors(401, 403, 404, 409))
    def query(query_id: str, who: Principal = auth) -> JSONResponse:
        """The logged query (question, answer, filters, key name, cache hit, ...) with its
        feedback, for reading feedback back. 404 unknown or (API keys configured) asked with another key, never
        told apart; 403 the key's own query about a patient that has left its scope; 409 query log disabled
        (:meth:`Service.query_record`)."""
        rec = svc.query_record(query_id, who)
        out = _plain({k: v for k, v in rec.items() if not k.endswith(("vector", "embedding"))})
        out.setdefault("query_id", query_id)
        return JSONResponse(jsonable_encoder(QueryRecord.model_validate(out)))

    return app


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (``clinqa serve``; each worker process calls it).

    Settings come from ``$CLINQA_SETTINGS_JSON`` (a JSON dump of :class:`Settings`, written by
    ``clinqa serve`` after validating the config once), else from the config file
    ``$CLINQA_CONFIG`` (optional) with ``$CLINQA_DATA_DIR``. Raises :class:`ConfigError`."""
    raw = os.environ.get(ENV_SETTINGS)
    if raw:
        try:
            settings = Settings.model_validate_json(raw)
        except ValueError as exc:
            raise ConfigError(f"${ENV_SETTINGS}: invalid settings: {exc}") from None
    else:
        config = os.environ.get(ENV_CONFIG)
        settings = load_settings(Path(config) if config else None)
    return create_app(settings)


def run(settings: Settings, host: str | None = None, port: int | None = None, workers: int = 1,
        log_level: str = "info") -> None:
    """Serve the app with uvicorn until interrupted (``clinqa serve``).

    The settings (``host``/``port`` override ``service.host``/``service.port``) are validated here,
    API keys included, then passed to every worker as JSON in ``$CLINQA_SETTINGS_JSON``; uvicorn
    starts ``workers`` processes that each call :func:`app_from_env` (factory mode), so each
    builds its own pipeline, loads the model once and shares the store, query log and cache files.
    ``env:VAR`` keys stay references and are read in each worker from its (inherited) environment.
    Raises :class:`ConfigError` before anything listens."""
    import uvicorn

    KeyRing(settings.service.api_keys)  # an unset env:VAR key fails here, not in every worker
    service = settings.service.model_copy(update={"host": host or settings.service.host,
                                                  "port": port or settings.service.port})
    settings = settings.model_copy(update={"service": service})
    os.environ[ENV_SETTINGS] = settings.model_dump_json()
    if not service.api_keys and service.host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning("no service.api_keys configured: anyone who reaches %s:%s can ask questions (patient "
                       "notes stay unreadable without a key)", service.host, service.port)
    uvicorn.run("clinqa.service.app:app_from_env", factory=True, host=service.host, port=service.port,
                workers=workers, log_level=log_level)
