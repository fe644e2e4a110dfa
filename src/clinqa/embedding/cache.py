"""On-disk embedding cache keyed by (model id, content hash), in SQLite.

Re-ingesting unchanged text costs a lookup instead of a forward pass.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from clinqa.embedding.base import Encoder


class EmbeddingCache:
    """Vectors stored as float32 blobs in ``path`` (a SQLite file, WAL mode). One connection,
    shared by threads under a lock; processes share the file through SQLite's own locking. ``read_only``
    opens an existing file for :meth:`get` only (nothing is created)."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        self._lock = threading.Lock()
        if read_only:  # an existing cache, read beside its writer (a Ray worker reading the driver's)
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30, check_same_thread=False)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS emb (model TEXT, hash TEXT, vec BLOB, "
            "PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )
        self._db.commit()

    def get(self, model_id: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Cached vectors for those ``hashes`` that are present: ``{hash: (dim,) float32}``."""
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(hashes), 500):
                part = hashes[i : i + 500]
                q = f"SELECT hash, vec FROM emb WHERE model = ? AND hash IN ({','.join('?' * len(part))})"
                for h, blob in self._db.execute(q, [model_id, *part]):
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put(self, model_id: str, hashes: list[str], vectors: np.ndarray) -> None:
        """Store ``vectors`` (``(n, dim)``) under ``hashes`` (n of them)."""
        rows = [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def embedding_bar(total: int, progress: bool) -> tqdm:
    """The tqdm bar of an embedding pass over ``total`` texts, shown only with ``progress`` and work to do."""
    return tqdm(total=total, disable=not progress or not total, desc="embedding", unit="chunk", leave=False)


def text_hash(text: str) -> str:
    """SHA-256 hex digest of ``text`` (UTF-8): the cache key, the same as a chunk's ``content_hash``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEncoder:
    """An :class:`~clinqa.embedding.base.Encoder` whose ``encode_passages`` reads vectors from an
    :class:`EmbeddingCache` first and stores the ones it computes (keyed by :func:`text_hash`).

    The extractive answer embeds the quotable units (sentences, list items, table rows) of the
    top chunks for every question; ingest pre-computes them (``answer.precompute_units``), so at
    question time this is a SQLite lookup instead of a forward pass: about 2.4 s saved per
    answered question on 2 cores (``docs/benchmarks.md``). Queries are never cached.

    ``prefer``: a model key read before ``model_id`` (:func:`clinqa.embedding.late.late_key`: the unit
    vectors ingest pooled from their chunk's tokens); vectors computed here are stored under ``model_id``.
    """

    def __init__(self, encoder: Encoder, cache: EmbeddingCache, prefer: str | None = None) -> None:
        self.inner = encoder
        self.cache = cache
        self.prefer = prefer
        self.model_id = encoder.model_id
        self.dim = encoder.dim
        self.max_tokens = encoder.max_tokens

    @property
    def token_counter(self):  # type: ignore[no-untyped-def]
        """The wrapped encoder's token counter."""
        return self.inner.token_counter

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` query vectors from the wrapped encoder (not cached)."""
        return self.inner.encode_queries(texts)

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """``(n, dim)`` passage vectors, cached ones read back, the rest computed and stored."""
        return encode_with_cache(self.inner, texts, [text_hash(t) for t in texts], self.cache, progress,
                                 prefer=self.prefer)[0]


def encode_with_cache(
    encoder: Encoder, texts: list[str], hashes: list[str], cache: EmbeddingCache | None,
    progress: bool = False, slice_size: int = 256, prefer: str | None = None,
) -> tuple[np.ndarray, int]:
    """Embed passages, reusing cached vectors. Returns ``(vectors (n, dim), n_computed)``.

    Missing vectors are computed and stored under the model id ``slice_size`` at a time, so an interrupted
    run keeps the work it finished. ``prefer``: a cache model key whose vectors win over the model id's
    (:class:`CachedEncoder`).
    """
    found = cache.get(encoder.model_id, hashes) if cache is not None else {}
    if prefer and cache is not None:
        found.update(cache.get(prefer, hashes))
    missing = [i for i, h in enumerate(hashes) if h not in found]
    out = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    slices = [missing[i : i + slice_size] for i in range(0, len(missing), slice_size)]
    with embedding_bar(len(missing), progress) as bar:
        for part in slices:
            vecs = encoder.encode_passages([texts[i] for i in part])
            if cache is not None:
                cache.put(encoder.model_id, [hashes[i] for i in part], vecs)
            out[part] = vecs
            bar.update(len(part))
    for i, h in enumerate(hashes):
        if h in found:
            out[i] = found[h]
    return out, len(missing)
