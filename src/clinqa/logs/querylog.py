"""The query log: every question asked through the CLI or the service, on one SQLite file.

Each logged question keeps what is needed to study it later and to re-run it (:mod:`clinqa.logs.replay`):
the question and its filters, the query embedding (so a model or settings change can be re-tested
without re-embedding every question), the ranked chunks with their per-stage ranks and scores,
the decision (answered or refused, and the gate signal it was made on), the cited chunks, the
answer text, warnings, the latency of every stage, tokens and cost, and clinicians' feedback.

Several threads and several processes (API workers) may write at once: the database runs in
WAL mode with a busy timeout, each thread of each process gets its own connection, and every
write is one ``BEGIN IMMEDIATE`` transaction, so no row is lost.

Schema (version :data:`SCHEMA_VERSION`, kept in ``PRAGMA user_version``)::

    queries(query_id TEXT PK, ts TEXT  -- UTC, ISO 8601 with microseconds and +00:00
            source TEXT  -- cli | api | web | replay, api_key_name TEXT NULL  -- the key's name, never the key
            config_hash TEXT, model_id TEXT, corpus_version INTEGER,
            question TEXT, filters TEXT  -- JSON, time_filter TEXT,
            embedding BLOB NULL  -- float32 little-endian, embedding_dim INTEGER NULL,
            refused INTEGER, mode TEXT  -- extractive | generated | refusal | no-context,
            refusal_reason TEXT, gate TEXT  -- JSON {signal, threshold, kind, ...},
            cited TEXT  -- JSON chunk ids in citation order, answer TEXT, warnings TEXT  -- JSON,
            timings TEXT  -- JSON ms per stage, latency_ms REAL NULL  -- timings["total"],
            llm TEXT  -- JSON Answer.llm, prompt_tokens INTEGER NULL, completion_tokens INTEGER NULL,
            cost_usd REAL NULL  -- 0.0 when no model was called, NULL when unknown,
            cache_hit INTEGER,
            conversation_id TEXT NULL, standalone_question TEXT NULL  -- a conversation's turn (version 2))
    retrieved(query_id TEXT, pos INTEGER  -- 0-based list position, rank INTEGER, chunk_id TEXT,
              rrf REAL, ranks TEXT  -- JSON {dense, bm25, ...}, scores TEXT  -- JSON {dense, bm25, rerank, ...},
              PRIMARY KEY (query_id, pos))
    feedback(id INTEGER PK AUTOINCREMENT, query_id TEXT, ts TEXT, score REAL, comment TEXT, category TEXT NULL)
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.errors import ClinqaError

if TYPE_CHECKING:
    from clinqa.answer.types import Answer
    from clinqa.pipeline import Pipeline

#: bumped whenever the tables change; stored in ``PRAGMA user_version``
SCHEMA_VERSION = 2

#: the three feedback scores and their labels (the pilot's 3-point scale)
SCORES: dict[float, str] = {1.0: "Excellent", 0.6: "Acceptable", 0.2: "Very poor"}

#: why an answer failed, as a rater may classify it
FAILURE_CATEGORIES = ("content_missing", "retrieval_miss", "temporal", "wrong_answer", "citation_wrong", "other")

#: where a question came from
SOURCES = ("cli", "api", "web", "replay")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    query_id TEXT PRIMARY KEY,
    ts TEXT NOT NULL,
    source TEXT NOT NULL,
    api_key_name TEXT,
    config_hash TEXT NOT NULL,
    model_id TEXT NOT NULL,
    corpus_version INTEGER NOT NULL,
    question TEXT NOT NULL,
    filters TEXT NOT NULL,
    time_filter TEXT NOT NULL,
    embedding BLOB,
    embedding_dim INTEGER,
    refused INTEGER NOT NULL,
    mode TEXT NOT NULL,
    refusal_reason TEXT NOT NULL,
    gate TEXT NOT NULL,
    cited TEXT NOT NULL,
    answer TEXT NOT NULL,
    warnings TEXT NOT NULL,
    timings TEXT NOT NULL,
    latency_ms REAL,
    llm TEXT NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost_usd REAL,
    cache_hit INTEGER NOT NULL,
    conversation_id TEXT,
    standalone_question TEXT
);
CREATE INDEX IF NOT EXISTS queries_ts ON queries (ts);
CREATE TABLE IF NOT EXISTS retrieved (
    query_id TEXT NOT NULL REFERENCES queries (query_id),
    pos INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    rrf REAL,
    ranks TEXT NOT NULL,
    scores TEXT NOT NULL,
    PRIMARY KEY (query_id, pos)
);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_id TEXT NOT NULL REFERENCES queries (query_id),
    ts TEXT NOT NULL,
    score REAL NOT NULL,
    comment TEXT NOT NULL,
    category TEXT
);
CREATE INDEX IF NOT EXISTS feedback_query ON feedback (query_id);
"""



def _columns(table: str) -> tuple[str, ...]:
    """The column names of ``table`` in :data:`_SCHEMA`, in the order it declares them, as SQLite reads the
    schema (``PRAGMA table_info`` of an in-memory database built from it)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(_SCHEMA)
        return tuple(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
    finally:
        conn.close()


#: the columns of ``queries`` that :meth:`QueryLog.log` fills, one value each, in :data:`_SCHEMA`'s order
_QUERY_COLUMNS: tuple[str, ...] = _columns("queries")
#: columns added after version 1, with their types (added to an older file on open)
_ADDED_COLUMNS = {2: (("conversation_id", "TEXT"), ("standalone_question", "TEXT"))}


def utc_iso(when: datetime | None = None) -> str:
    """``when`` (default: now) as the log's timestamp text: UTC, ISO 8601 with microseconds and
    ``+00:00`` (fixed width, so text order is time order). A naive datetime is taken as UTC."""
    when = when or datetime.now(UTC)
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.isoformat(timespec="microseconds")


def model_id_of(pipe: Pipeline) -> str:
    """The encoder's model id for a log row: the store's (``store.json``), else the loaded encoder's,
    else the configured ``embedding.model`` (so logging never loads a model by itself)."""
    meta = pipe.store_meta().get("model_id")
    if meta:
        return str(meta)
    enc = getattr(pipe, "_encoder", None)
    return enc.model_id if enc is not None else pipe.settings.embedding.model


def _canonical_score(score: float) -> float:
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise ValueError(f"feedback score must be a number, one of {_score_list()}; got {score!r}")
    for s in SCORES:
        if math.isclose(float(score), s, abs_tol=1e-9):
            return s
    raise ValueError(f"feedback score must be one of {_score_list()}; got {score!r}")


def _score_list() -> str:
    return ", ".join(f"{s} ({label})" for s, label in SCORES.items())


class QueryLog:
    """The query log on one SQLite file (created with its schema on open).

    Thread- and process-safe: one connection per thread (per process), WAL journal, a busy
    timeout of ``timeout_s`` seconds, and one immediate transaction per write. Raises
    :class:`RuntimeError` when the file was written by a newer schema version."""

    def __init__(self, path: Path, timeout_s: float = 30.0) -> None:
        """Open (and create, with its parent folder) the log at ``path``."""
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._pid = os.getpid()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._init_schema()

    @classmethod
    def for_pipeline(cls, pipe: Pipeline) -> QueryLog | None:
        """The log configured for ``pipe``: ``log.path``, else ``<data_dir>/querylog.sqlite``;
        ``None`` when ``log.enabled`` is false."""
        s = pipe.settings.log
        if not s.enabled:
            return None
        return cls(Path(s.path) if s.path else pipe.data_dir / "querylog.sqlite")

    # -- connections ----------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if os.getpid() != self._pid:  # a forked child must not use its parent's connections
            self._pid = os.getpid()
            self._local = threading.local()
            self._conns = []
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.row_factory = sqlite3.Row
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _init_schema(self) -> None:
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path}: query log schema version {version} is newer than this "
                                   f"clinqa's ({SCHEMA_VERSION})")
            fresh = conn.execute("SELECT name FROM sqlite_master WHERE name = 'queries'").fetchone() is None
            for stmt in (s.strip() for s in _SCHEMA.split(";")):  # not executescript: it would COMMIT
                if stmt:
                    conn.execute(stmt)
            if not fresh:  # an older file: the columns its version lacks
                have = {r[1] for r in conn.execute("PRAGMA table_info(queries)")}
                for v, cols in _ADDED_COLUMNS.items():
                    for name, kind in cols:
                        if v > version and name not in have:
                            conn.execute(f"ALTER TABLE queries ADD COLUMN {name} {kind}")
            if version < SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close every connection this object opened (in any thread)."""
        with self._lock:
            for c in self._conns:
                with suppress(sqlite3.Error):  # closing is best effort
                    c.close()
            self._conns = []
        self._local = threading.local()

    def __enter__(self) -> QueryLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        """The schema version stored in the file."""
        return int(self._conn().execute("PRAGMA user_version").fetchone()[0])

    # -- writing --------------------------------------------------------------------------
    def record(self, answer: Answer, *, config_hash: str, model_id: str, corpus_version: int, source: str = "cli",
               api_key: str | None = None, cache_hit: bool = False) -> str:
        """Log one answered or refused question; returns its new ``query_id`` (uuid4 hex, 32 chars).

        ``api_key`` is the key's *name* (``ApiKey.name``), never the key. ``answer.query_vector``
        (a ``(dim,)`` array or None) is stored as float32 bytes with its dimension. The cost is
        ``answer.llm["cost_usd"]`` when a model was called (NULL when its price is unknown or
        the call failed) and 0.0 when none was (extractive answers, refusals before the model).
        Raises :class:`ValueError` for a source other than cli, api, web, replay."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}; got {source!r}")
        qid = uuid.uuid4().hex
        vec = answer.query_vector
        blob, dim = None, None
        if vec is not None:
            arr = np.ascontiguousarray(np.asarray(vec, dtype="<f4").reshape(-1))
            blob, dim = arr.tobytes(), int(arr.shape[0])
        timings = {k: float(v) for k, v in (answer.timings_ms or {}).items()}
        llm = dict(answer.llm or {})
        if llm:
            cost = llm.get("cost_usd")
            cost = None if cost is None else float(cost)
        else:
            cost = 0.0
        values = (
            qid, utc_iso(), source, api_key, config_hash, model_id, int(corpus_version),
            answer.question, json.dumps(answer.filters.to_dict() if answer.filters else {}, default=str),
            answer.time_filter or "", blob, dim, int(bool(answer.refused)), answer.mode, answer.reason or "",
            json.dumps(answer.gate.to_dict() if answer.gate else {}, default=str),
            json.dumps([c.chunk_id for c in answer.citations]),
            answer.answer, json.dumps(list(answer.warnings)), json.dumps(timings), timings.get("total"),
            json.dumps(llm, default=str), llm.get("prompt_tokens"), llm.get("completion_tokens"), cost,
            int(bool(cache_hit)), answer.conversation_id or None, answer.standalone_question or None,
        )
        retrieved = [
            (qid, pos, int(r.get("rank", pos + 1)), str(r["chunk_id"]),
             None if r.get("rrf") is None else float(r["rrf"]),
             json.dumps(r.get("ranks") or {}), json.dumps(r.get("scores") or {}, default=float))
            for pos, r in enumerate(answer.retrieved or [])
        ]
        with self._write() as conn:
            conn.execute(f"INSERT INTO queries ({', '.join(_QUERY_COLUMNS)}) "
                         f"VALUES ({', '.join('?' * len(_QUERY_COLUMNS))})", values)
            conn.executemany("INSERT INTO retrieved (query_id, pos, rank, chunk_id, rrf, ranks, scores) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", retrieved)
        return qid

    def add_feedback(self, query_id: str, score: float, comment: str = "", category: str | None = None) -> None:
        """Add a rating to a logged question. ``score`` is one of 1.0 (Excellent), 0.6
        (Acceptable), 0.2 (Very poor); ``category`` is None or one of :data:`FAILURE_CATEGORIES`.
        Every rating is kept; reports use the latest. Raises :class:`ValueError` for another
        score or category and :class:`KeyError` for an unknown ``query_id``."""
        s = _canonical_score(score)
        if category is not None and category not in FAILURE_CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(FAILURE_CATEGORIES)}; got {category!r}")
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM queries WHERE query_id = ?", (query_id,)).fetchone() is None:
                raise KeyError(f"no logged question with id {query_id!r} in {self.path}")
            conn.execute("INSERT INTO feedback (query_id, ts, score, comment, category) VALUES (?, ?, ?, ?, ?)",
                         (query_id, utc_iso(), s, comment or "", category))

    # -- reading --------------------------------------------------------------------------
    def get(self, query_id: str) -> dict[str, Any] | None:
        """One logged question as a dict (see :meth:`rows`), or None when the id is unknown."""
        conn = self._conn()
        row = conn.execute("SELECT * FROM queries WHERE query_id = ?", (query_id,)).fetchone()
        if row is None:
            return None
        return self._assemble([row])[0]

    def rows(self, since: datetime | None = None, until: datetime | None = None,
             source: str | None = None) -> list[dict[str, Any]]:
        """Logged questions with ``since <= time < until`` (naive datetimes are UTC) and, when
        given, this ``source``; oldest first. Each dict holds the columns of ``queries`` with JSON
        decoded: ``query_id, time`` (ISO text, UTC), ``source, api_key_name, config_hash, model_id,
        corpus_version, question, filters`` (dict), ``time_filter, query_vector`` (``(dim,)``
        float32 array or None), ``embedding_dim, refused`` (bool), ``mode, refusal_reason, gate``
        (dict), ``retrieved`` (list of ``{rank, chunk_id, rrf, ranks, scores}`` in list order),
        ``cited`` (chunk ids in citation order), ``answer, warnings`` (list), ``timings_ms`` (dict,
        ms), ``latency_ms`` (the total, ms, or None), ``llm`` (dict), ``prompt_tokens,
        completion_tokens, cost_usd`` (USD or None when unknown), ``cache_hit`` (bool) and
        ``feedback`` (list of ``{time, score, comment, category}``, oldest first)."""
        where, args = [], []
        if since is not None:
            where.append("ts >= ?")
            args.append(utc_iso(since))
        if until is not None:
            where.append("ts < ?")
            args.append(utc_iso(until))
        if source is not None:
            where.append("source = ?")
            args.append(source)
        sql = "SELECT * FROM queries" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY ts, rowid"
        return self._assemble(self._conn().execute(sql, args).fetchall())

    def _assemble(self, rows: list[sqlite3.Row]) -> list[dict[str, Any]]:
        if not rows:
            return []
        conn = self._conn()
        ids = [r["query_id"] for r in rows]
        retrieved: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
        feedback: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
            part = ids[start:start + 500]
            marks = ", ".join("?" * len(part))
            for r in conn.execute(f"SELECT * FROM retrieved WHERE query_id IN ({marks}) ORDER BY query_id, pos",
                                  part):
                retrieved[r["query_id"]].append({"rank": r["rank"], "chunk_id": r["chunk_id"], "rrf": r["rrf"],
                                                 "ranks": json.loads(r["ranks"]), "scores": json.loads(r["scores"])})
            for r in conn.execute(f"SELECT * FROM feedback WHERE query_id IN ({marks}) ORDER BY id", part):
                feedback[r["query_id"]].append({"time": r["ts"], "score": r["score"], "comment": r["comment"],
                                                "category": r["category"]})
        out = []
        for r in rows:
            blob = r["embedding"]
            vec = None if blob is None else np.frombuffer(blob, dtype="<f4").astype(np.float32)
            out.append({
                "query_id": r["query_id"], "time": r["ts"], "source": r["source"], "api_key_name": r["api_key_name"],
                "config_hash": r["config_hash"], "model_id": r["model_id"], "corpus_version": r["corpus_version"],
                "question": r["question"], "filters": json.loads(r["filters"]), "time_filter": r["time_filter"],
                "query_vector": vec, "embedding_dim": r["embedding_dim"], "refused": bool(r["refused"]),
                "mode": r["mode"], "refusal_reason": r["refusal_reason"], "gate": json.loads(r["gate"]),
                "retrieved": retrieved[r["query_id"]], "cited": json.loads(r["cited"]), "answer": r["answer"],
                "warnings": json.loads(r["warnings"]), "timings_ms": json.loads(r["timings"]),
                "latency_ms": r["latency_ms"], "llm": json.loads(r["llm"]), "prompt_tokens": r["prompt_tokens"],
                "completion_tokens": r["completion_tokens"], "cost_usd": r["cost_usd"],
                "cache_hit": bool(r["cache_hit"]), "feedback": feedback[r["query_id"]],
                "conversation_id": r["conversation_id"], "standalone_question": r["standalone_question"],
            })
        return out

    def counts(self) -> dict[str, int]:
        """``{"answered", "refused", "with_feedback", "total"}``: logged questions answered (any mode
        but refusal), refused, with at least one rating, and all of them."""
        conn = self._conn()
        total, refused = conn.execute("SELECT COUNT(*), COALESCE(SUM(refused), 0) FROM queries").fetchone()
        rated = conn.execute("SELECT COUNT(DISTINCT query_id) FROM feedback").fetchone()[0]
        return {"answered": int(total - refused), "refused": int(refused), "with_feedback": int(rated),
                "total": int(total)}


def latest_feedback(row: dict[str, Any]) -> dict[str, Any] | None:
    """The latest rating of a row from :meth:`QueryLog.rows` (the one reports count), or None."""
    return row["feedback"][-1] if row.get("feedback") else None


def log_answer(pipe: Pipeline, answer: Answer, source: str = "cli",
               on_error: Callable[[Exception], None] | None = None) -> str | None:
    """Record ``answer`` (asked through ``pipe``) in the pipeline's query log (``log.enabled``,
    :meth:`QueryLog.for_pipeline`) and return its query id; None when logging is off or failed.

    Never raises: logging must never break answering. A failure is passed to ``on_error`` (the CLI
    prints ``warning: the question was not logged: ...`` on stderr) and None is returned."""
    try:
        log = QueryLog.for_pipeline(pipe)
        if log is None:
            return None
        try:
            return log.record(answer, config_hash=pipe.config_hash(), model_id=model_id_of(pipe),
                              corpus_version=pipe.corpus_version(), source=source)
        finally:
            log.close()
    except Exception as exc:  # logging must never break answering
        if on_error is not None:
            on_error(exc)
        return None


def open_existing_log(pipe: Pipeline, path: Path | None = None) -> QueryLog:
    """The existing query log at ``path``, else ``log.path`` of ``pipe``'s settings, else
    ``<data_dir>/querylog.sqlite``. Raises :class:`ClinqaError` when that file does not exist
    (a report or a rating needs logged questions; opening would create an empty log)."""
    where = Path(path or pipe.settings.log.path or pipe.data_dir / "querylog.sqlite")
    if not where.is_file():
        raise ClinqaError(f"no query log at {where}: questions are logged by `clinqa ask` when log.enabled is true")
    return QueryLog(where)
