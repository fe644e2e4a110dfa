"""The embedded cache: one SQLite file, no server (``cache.backend: sqlite``, the default).

Several threads of one process share a connection under a lock; several processes (API
workers, a CLI next to the service) share the file through WAL mode and a busy timeout.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.cache.base import CacheUnavailable, Counters, as_vector, dump_answer, load_answer, load_vector

log = logging.getLogger(__name__)

#: one purge of expired rows per this many writes
PURGE_EVERY = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS answers_expiry ON answers (expires_at);
CREATE INDEX IF NOT EXISTS vectors_expiry ON vectors (expires_at);
"""


class SQLiteCache:
    """Answers and query vectors in the SQLite file ``path`` (created with its folder), each
    entry living ``ttl_s`` seconds.

    Expired entries are ignored on read and deleted at open and every :data:`PURGE_EVERY`
    writes. ``clock`` (seconds, default ``time.time``) is injectable for tests; it must agree
    between processes sharing the file. Raises :class:`CacheUnavailable` naming the path when
    the file cannot be opened; later SQLite errors (a disk that fills up, a lock held past
    ``busy_timeout_ms``) are logged once and count as misses or dropped writes.
    """

    def __init__(self, path: Path, ttl_s: int, *, clock: Callable[[], float] = time.time,
                 busy_timeout_ms: int = 5000) -> None:
        if ttl_s < 1:
            raise ValueError(f"ttl_s must be at least 1 second, got {ttl_s}")
        self.path = Path(path)
        self.ttl_s = int(ttl_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._counters = Counters()
        self._writes = 0
        self._warned = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=busy_timeout_ms / 1000, check_same_thread=False,
                                       isolation_level=None)  # autocommit: every statement is its own transaction
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.executescript(_SCHEMA)
            self._purge()
        except (sqlite3.Error, OSError) as exc:
            raise CacheUnavailable(f"{self.path}: cannot open the answer cache: {exc}") from exc

    # -- internals --------------------------------------------------------------------
    def _failed(self, what: str, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            log.warning("answer cache %s: %s failed (%s); answering without the cache", self.path, what, exc)

    def _purge(self) -> None:
        now = self._clock()
        with self._lock:
            self._db.execute("DELETE FROM answers WHERE expires_at <= ?", (now,))
            self._db.execute("DELETE FROM vectors WHERE expires_at <= ?", (now,))

    def _get(self, table: str, key: str) -> Any:
        try:
            with self._lock:
                row = self._db.execute(f"SELECT value FROM {table} WHERE key = ? AND expires_at > ?",
                                       (key, self._clock())).fetchone()
        except sqlite3.Error as exc:
            self._failed("read", exc)
            return None
        return None if row is None else row[0]

    def _put(self, table: str, key: str, value: str | bytes) -> None:
        try:
            with self._lock:
                self._db.execute(f"INSERT OR REPLACE INTO {table} (key, value, expires_at) VALUES (?, ?, ?)",
                                 (key, value, self._clock() + self.ttl_s))
                self._writes += 1
                purge = self._writes % PURGE_EVERY == 0
            if purge:
                self._purge()
        except sqlite3.Error as exc:
            self._failed("write", exc)

    # -- the Cache protocol -----------------------------------------------------------
    def get_answer(self, key: str) -> dict[str, Any] | None:
        """The answer dict under ``key``, or None when absent or expired."""
        answer = load_answer(self._get("answers", key))
        self._counters.count("answer", answer is not None)
        return answer

    def put_answer(self, key: str, answer: dict[str, Any]) -> None:
        """Store ``answer`` (JSON-ready; numpy values are converted) for ``ttl_s`` seconds."""
        self._put("answers", key, dump_answer(answer))

    def get_vector(self, key: str) -> np.ndarray | None:
        """The ``(dim,)`` float32 vector under ``key``, or None when absent or expired."""
        raw = self._get("vectors", key)
        vec = load_vector(raw)
        self._counters.count("vector", vec is not None)
        return vec

    def put_vector(self, key: str, vector: np.ndarray) -> None:
        """Store ``vector`` as raw float32 bytes for ``ttl_s`` seconds; ValueError unless 1-d."""
        self._put("vectors", key, as_vector(vector).tobytes())

    def clear(self) -> None:
        """Delete every entry."""
        with self._lock:
            self._db.execute("DELETE FROM answers")
            self._db.execute("DELETE FROM vectors")

    def stats(self) -> dict[str, Any]:
        """Hit/miss counters of this object plus ``entries`` (unexpired answers + vectors in the
        file, all processes), ``backend`` and ``path``."""
        out: dict[str, Any] = {"backend": "sqlite", "path": str(self.path), **self._counters.to_dict()}
        try:
            now = self._clock()
            with self._lock:
                out["entries"] = sum(self._db.execute(f"SELECT count(*) FROM {t} WHERE expires_at > ?",
                                                      (now,)).fetchone()[0] for t in ("answers", "vectors"))
        except sqlite3.Error as exc:
            self._failed("count", exc)
        return out

    def close(self) -> None:
        """Close the connection (the object is unusable afterwards)."""
        with self._lock:
            self._db.close()
