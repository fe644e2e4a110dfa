"""The shared cache: a Redis server (``cache.backend: redis``), so several API workers (processes
or machines) serve each other's answers. Keys are ``clinqa:answer:<sha256>`` and
``clinqa:vector:<sha256>``, written with a TTL (SET ... EX, the atomic SETEX) so Redis expires
them; answers are JSON text, vectors raw float32 bytes.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from clinqa.cache.base import CacheUnavailable, Counters, as_vector, dump_answer, load_answer, load_vector

log = logging.getLogger(__name__)

PREFIX = "clinqa:"
#: after a failed call, the cache is skipped (every lookup a miss) for this many seconds
COOLDOWN_S = 2.0


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages and logs)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        if parts.port is not None:
            host += f":{parts.port}"
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
    except ValueError:
        return "<unparseable redis url>"


class RedisCache:
    """Answers and query vectors on the Redis server at ``url`` (``redis://[:password@]host:port/db``),
    each entry living ``ttl_s`` seconds (Redis expires them).

    The server is pinged at construction: :class:`CacheUnavailable` naming the URL (password
    hidden) when it does not answer within ``timeout_s`` seconds or the URL is invalid. If the
    server goes away later, reads are misses and writes are dropped, with one warning logged
    per outage; for :data:`COOLDOWN_S` seconds after a failure the server is not even tried, so
    a dead cache costs answering nothing but one timeout.
    """

    def __init__(self, url: str, ttl_s: int, *, timeout_s: float = 0.5) -> None:
        if ttl_s < 1:
            raise ValueError(f"ttl_s must be at least 1 second, got {ttl_s}")
        self.url = url
        self.ttl_s = int(ttl_s)
        self._counters = Counters()
        self._down_since: float | None = None
        self._retry_after = 0.0
        self._lock = threading.Lock()
        shown = redact_url(url)
        try:
            self._r = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                           retry=Retry(NoBackoff(), 1))
            self._r.ping()
        except (redis.RedisError, OSError, ValueError) as exc:
            raise CacheUnavailable(f"the Redis answer cache at {shown} is not reachable: {exc} "
                                   "(start redis-server, fix cache.redis_url, or set cache.backend: sqlite)") from exc

    # -- internals --------------------------------------------------------------------
    def _call(self, what: str, fn: Any, *args: Any) -> Any:
        """``fn(*args)``, or None when the server is (or was just) unreachable."""
        if self._down_since is not None and time.monotonic() < self._retry_after:
            return None
        try:
            out = fn(*args)
        except (redis.RedisError, OSError) as exc:
            with self._lock:
                first = self._down_since is None
                now = time.monotonic()
                self._down_since = self._down_since or now
                self._retry_after = now + COOLDOWN_S
            if first:
                log.warning("Redis answer cache at %s: %s failed (%s); answering without the cache until it "
                            "is back", redact_url(self.url), what, exc)
            return None
        if self._down_since is not None:
            with self._lock:
                self._down_since = None
            log.info("Redis answer cache at %s is reachable again", redact_url(self.url))
        return out

    def _set(self, key: str, value: str | bytes) -> None:
        self._r.set(key, value, ex=self.ttl_s)  # SET ... EX: the atomic SETEX

    # -- the Cache protocol -----------------------------------------------------------
    def get_answer(self, key: str) -> dict[str, Any] | None:
        """The answer dict under ``key``, or None (absent, expired, or server unreachable)."""
        answer = load_answer(self._call("read", self._r.get, f"{PREFIX}answer:{key}"))
        self._counters.count("answer", answer is not None)
        return answer

    def put_answer(self, key: str, answer: dict[str, Any]) -> None:
        """Store the answer as JSON with a ``ttl_s`` seconds expiry (SET EX, i.e. SETEX); dropped when the
        server is unreachable."""
        self._call("write", self._set, f"{PREFIX}answer:{key}", dump_answer(answer))

    def get_vector(self, key: str) -> np.ndarray | None:
        """The ``(dim,)`` float32 vector under ``key``, or None (absent, expired, server unreachable)."""
        raw = self._call("read", self._r.get, f"{PREFIX}vector:{key}")
        vec = load_vector(raw)
        self._counters.count("vector", vec is not None)
        return vec

    def put_vector(self, key: str, vector: np.ndarray) -> None:
        """Store the vector as raw float32 bytes for ``ttl_s`` seconds; ValueError unless 1-d."""
        self._call("write", self._set, f"{PREFIX}vector:{key}", as_vector(vector).tobytes())

    def clear(self) -> None:
        """Delete every ``clinqa:`` key of this database (SCAN + UNLINK; other keys are left alone)."""

        def run() -> None:
            batch: list[bytes] = []
            for k in self._r.scan_iter(match=f"{PREFIX}*", count=500):
                batch.append(k)
                if len(batch) >= 500:
                    self._r.unlink(*batch)
                    batch.clear()
            if batch:
                self._r.unlink(*batch)

        self._call("clear", run)

    def stats(self) -> dict[str, Any]:
        """Hit/miss counters of this object (this worker only), ``backend``, ``url`` (password
        hidden) and ``reachable``; no ``entries`` (counting ``clinqa:`` keys needs a full SCAN)."""
        return {"backend": "redis", "url": redact_url(self.url), "reachable": self._down_since is None,
                **self._counters.to_dict()}

    def close(self) -> None:
        """Close the connection pool."""
        self._r.close()
