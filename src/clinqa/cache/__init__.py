"""Answer and query-embedding cache, keyed by (question, filters, config hash, corpus version).

``cache.backend`` picks :class:`~clinqa.cache.sqlite.SQLiteCache` (default: the embedded file
``<data_dir>/cache.sqlite``, no server), :class:`~clinqa.cache.redis.RedisCache` (shared by
several API workers) or none. :func:`cached_ask` is what the CLI and the service call.

Invalidation: the key holds :meth:`Pipeline.corpus_version` (changes with every ingest or
removal) and :meth:`Pipeline.config_hash` (every setting that can change an answer), so after a
corpus or configuration change old entries are never read again; they expire after ``ttl_s``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from clinqa.cache.base import Cache, CacheUnavailable, answer_key, normalise_question, vector_key
from clinqa.cache.sqlite import SQLiteCache

if TYPE_CHECKING:  # the pipeline's modules load LanceDB (seconds): the backends do not need them
    from clinqa.answer.types import Answer
    from clinqa.pipeline import Pipeline
    from clinqa.retrieval import Filters
    from clinqa.settings import Settings

__all__ = ["CACHES", "Cache", "CacheUnavailable", "SQLiteCache", "answer_key", "build_cache", "cached_ask",
           "make_cache", "normalise_question", "vector_key"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: ``settings -> Cache | None``
CacheBuilder = Callable[["Settings"], "Cache | None"]


def _none(settings: Settings) -> Cache | None:
    return None


def _sqlite(settings: Settings) -> Cache | None:
    return SQLiteCache(Path(settings.data_dir) / "cache.sqlite", settings.cache.ttl_s)


def _redis(settings: Settings) -> Cache | None:
    try:
        from clinqa.cache.redis import RedisCache
    except ImportError as exc:  # the redis client is only needed for this backend
        raise CacheUnavailable("cache.backend redis needs the redis client, which is not installed: "
                               "pip install 'clinqa[redis]'") from exc
    return RedisCache(settings.cache.redis_url, settings.cache.ttl_s)


#: the caches by ``cache.backend`` (the settings ``Literal`` names these keys; tests/test_registries.py
#: checks it)
CACHES: dict[str, CacheBuilder] = {"none": _none, "sqlite": _sqlite, "redis": _redis}


def build_cache(settings: Settings) -> Cache | None:
    """The cache ``settings.cache`` asks for (:data:`CACHES`): None for ``backend: none``, an
    :class:`SQLiteCache` on ``<data_dir>/cache.sqlite`` for ``sqlite``, a
    :class:`~clinqa.cache.redis.RedisCache` on ``cache.redis_url`` for ``redis``. Raises
    :class:`CacheUnavailable` (naming the path or URL) when the cache cannot be opened or the Redis
    server does not answer, or for an unknown backend."""
    builder = CACHES.get(settings.cache.backend)
    if builder is None:
        raise CacheUnavailable(f"unknown cache.backend {settings.cache.backend!r}")
    return builder(settings)


#: the former name of :func:`build_cache`, kept for callers not yet moved
make_cache = build_cache


def _safe(what: str, fn: Callable[[], T]) -> T | None:
    """``fn()``, or None (logged) if a cache implementation raises: the cache never fails an answer."""
    try:
        return fn()
    except Exception as exc:
        log.warning("answer cache: %s failed (%s: %s); continuing without it", what, type(exc).__name__, exc)
        return None


def cache_filters(filters: Filters, closed: bool = False) -> dict[str, Any]:
    """The filters part of an answer key: ``filters.to_dict()``, plus ``"closed": true`` for
    closed (Yes/No/Maybe) questions, whose generated answers differ."""
    d = filters.to_dict()
    if closed:
        d["closed"] = True
    return d


def _answer_state(pipe: Pipeline, question: str, reference: bool = True) -> str:
    """What besides settings and corpus can change an answer: the whole calibration in force, both scopes
    (:meth:`clinqa.pipeline.Pipeline.calibration_key`: threshold, support and related thresholds, key-term
    cut and where each came from; a re-calibration with ``eval refusal --save`` changes them without
    touching the settings) and,
    for questions with a time intent ("latest", "last year"), today's date, which they are read
    against. ``reference``: the question is asked of the reference documents (no patient scope), read as
    ``Pipeline.ask`` reads it (:func:`clinqa.question.time.parse_time_intent`: a bare year is a time only in a
    question to one patient's notes)."""
    import datetime

    from clinqa.question.time import parse_time_intent

    state = f"{pipe.config_hash()}|calibration={pipe.calibration_key()}"
    today = datetime.date.today()
    intent = parse_time_intent(question, today, reference=reference)
    if intent.recency or intent.year_min is not None or intent.year_max is not None:
        state += f"|day={today.isoformat()}"
    return state


def cached_ask(pipe: Pipeline, cache: Cache | None, question: str, filters: Filters,
               closed: bool = False) -> tuple[Answer, bool]:
    """``pipe.ask(question, filters, closed=closed)`` through ``cache``; returns ``(answer, hit)``.

    The key is :func:`answer_key` over the question, ``filters`` (as given, before the question's
    time intent is applied; plus ``closed``), ``pipe.config_hash()`` with the calibration in
    force (and today's date for questions with a time intent) and ``pipe.corpus_version()``,
    so an answer is only served for the same patient scope, year range and sources, under the same
    settings, on the same corpus: after an ingest or removal every old entry is unreachable.

    - hit: the stored answer rebuilt by :meth:`Answer.from_dict`; ``question`` is the one asked,
      ``timings_ms`` is ``{"cache": ms, "total": ms}`` (this lookup only, milliseconds), and
      ``query_vector`` the cached embedding when the vector cache still holds it, else None;
    - miss: the question's embedding comes from the vector cache when present (:func:`vector_key`
      with ``pipe.encoder.model_id``; no encoder call), else ``ask`` encodes it and it is stored;
      the answer is stored, unless its generation failed transiently (``answer.llm`` has an
      ``"error"`` key: the extractive fallback is returned but not cached, so the next ask retries
      the model).

    ``cache`` None: a plain ``ask``, ``hit`` False. Cache failures are logged and never raised;
    ``ask``'s own errors (:class:`clinqa.errors.ConfigError` for an empty question or store) are.
    """
    from clinqa.answer.types import Answer

    if cache is None:
        return pipe.ask(question, filters, closed=closed), False
    t0 = time.perf_counter()
    state = _answer_state(pipe, question, reference=filters.patient_id is None)
    akey = answer_key(question, cache_filters(filters, closed), state, pipe.corpus_version())
    vkey = vector_key(question, pipe.encoder.model_id)
    stored = _safe("read", lambda: cache.get_answer(akey))
    if stored is not None:
        answer = _safe("decode", lambda: Answer.from_dict(stored))
        if answer is not None:
            answer.question = question
            answer.query_vector = _safe("read", lambda: cache.get_vector(vkey))
            ms = (time.perf_counter() - t0) * 1e3
            answer.timings_ms = {"cache": ms, "total": ms}
            return answer, True
    vector = _safe("read", lambda: cache.get_vector(vkey))
    answer = pipe.ask(question, filters, closed=closed, query_vector=vector)
    if vector is None and answer.query_vector is not None:
        _safe("write", lambda: cache.put_vector(vkey, answer.query_vector))
    if "error" not in (answer.llm or {}):
        _safe("write", lambda: cache.put_answer(akey, answer.to_dict()))
    return answer, False
