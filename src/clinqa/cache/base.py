"""What every answer cache provides, and how its keys are made.

Two kinds of entries live in a cache, both keyed by a SHA-256 hex digest:

- answers: ``Answer.to_dict()`` dicts under :func:`answer_key` (question, filters, config hash,
  corpus version): a corpus change (ingest, removal) changes the corpus version, so the old
  entries are never read again and expire with their TTL;
- query embeddings: ``(dim,)`` float32 vectors under :func:`vector_key` (question, encoder model
  id): a question asked again under other filters skips the encoder.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol, runtime_checkable

import numpy as np

from clinqa.errors import ClinqaError


class CacheUnavailable(ClinqaError):
    """The cache cannot be opened or reached at start-up (a Redis server that does not answer,
    an SQLite file that cannot be created); the message names the URL or path."""


@runtime_checkable
class Cache(Protocol):
    """An answer and query-embedding cache. Entries live ``ttl_s`` seconds (set by the backend).

    Reads and writes never raise for a cache that stopped working after start-up: a failed
    read is a miss and a failed write is dropped (with one logged warning), so answering never
    fails because of the cache.
    """

    def get_answer(self, key: str) -> dict[str, Any] | None:
        """The answer dict stored under ``key`` (an :func:`answer_key`), or None (miss or expired)."""
        ...

    def put_answer(self, key: str, answer: dict[str, Any]) -> None:
        """Store a JSON-ready answer dict (``Answer.to_dict()``) under ``key`` for ``ttl_s`` seconds."""
        ...

    def get_vector(self, key: str) -> np.ndarray | None:
        """The ``(dim,)`` float32 query embedding stored under ``key`` (a :func:`vector_key`), or None."""
        ...

    def put_vector(self, key: str, vector: np.ndarray) -> None:
        """Store a query embedding (any 1-d array; kept as ``(dim,)`` float32) for ``ttl_s`` seconds."""
        ...

    def clear(self) -> None:
        """Delete every entry of this cache (answers and vectors)."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counters since this object was made: ``hits``, ``misses`` (answers and vectors together),
        ``answer_hits``, ``answer_misses``, ``vector_hits``, ``vector_misses``, ``backend``, and
        ``entries`` where counting is cheap."""
        ...


def normalise_question(question: str) -> str:
    """The question as keyed: whitespace runs collapsed to one space and stripped; case kept
    (a lower-cased drug name or abbreviation can be a different question)."""
    return " ".join(question.split())


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_key(question: str, filters: dict[str, Any], config_hash: str, corpus_version: int) -> str:
    """64 hex digits: SHA-256 of the canonical JSON (sorted keys, no spaces) of
    ``{"kind": "answer", "question": <normalised>, "filters": filters, "config": config_hash,
    "corpus": corpus_version}``. ``filters`` is ``Filters.to_dict()``: two patients, two year ranges
    or two source lists never share a key."""
    return _digest({"kind": "answer", "question": normalise_question(question), "filters": filters,
                    "config": config_hash, "corpus": int(corpus_version)})


def vector_key(question: str, model_id: str) -> str:
    """64 hex digits: SHA-256 of the canonical JSON of ``{"kind": "vector", "question":
    <normalised>, "model": model_id}``; the embedding depends on nothing else."""
    return _digest({"kind": "vector", "question": normalise_question(question), "model": model_id})


def to_jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into Python numbers and lists (for
    ``json.dumps``); anything else unknown becomes ``str``."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def dump_answer(answer: dict[str, Any]) -> str:
    """The answer dict as compact JSON text (numpy values converted)."""
    return json.dumps(to_jsonable(answer), separators=(",", ":"), ensure_ascii=False)


def load_answer(raw: str | bytes | None) -> dict[str, Any] | None:
    """The answer dict stored by :func:`dump_answer`, or None for no entry or text that is not JSON."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def load_vector(raw: bytes | None) -> np.ndarray | None:
    """The ``(dim,)`` float32 vector stored as raw bytes (``as_vector(v).tobytes()``), or None."""
    return None if raw is None else np.frombuffer(raw, dtype=np.float32).copy()


def as_vector(vector: np.ndarray) -> np.ndarray:
    """``vector`` as a contiguous ``(dim,)`` float32 array; ValueError unless it has one axis."""
    v = np.ascontiguousarray(np.asarray(vector, dtype=np.float32))
    if v.ndim != 1:
        raise ValueError(f"a query vector must have shape (dim,), got {v.shape}")
    return v


class Counters:
    """Hit and miss counters shared by the backends (thread-safe enough: ints under the GIL)."""

    def __init__(self) -> None:
        self.answer_hits = self.answer_misses = self.vector_hits = self.vector_misses = 0

    def count(self, kind: str, hit: bool) -> None:
        """Count one lookup of ``kind`` (``answer`` or ``vector``)."""
        name = f"{kind}_{'hits' if hit else 'misses'}"
        setattr(self, name, getattr(self, name) + 1)

    def to_dict(self) -> dict[str, int]:
        """``hits``, ``misses`` and the four per-kind counters."""
        return {"hits": self.answer_hits + self.vector_hits, "misses": self.answer_misses + self.vector_misses,
                "answer_hits": self.answer_hits, "answer_misses": self.answer_misses,
                "vector_hits": self.vector_hits, "vector_misses": self.vector_misses}
