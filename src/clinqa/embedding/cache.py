"""On-disk embedding cache keyed by (model id, content hash), in SQLite.

Re-ingesting unchanged text costs a lookup instead of a forward pass.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from clinqa.embedding.base import Encoder


class EmbeddingCache:
    """Vectors stored as float32 blobs in ``path`` (a SQLite file, WAL mode)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS emb (model TEXT, hash TEXT, vec BLOB, "
            "PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )
        self._db.commit()

    def get(self, model_id: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Cached vectors for those ``hashes`` that are present: ``{hash: (dim,) float32}``."""
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(hashes), 500):
            part = hashes[i : i + 500]
            q = f"SELECT hash, vec FROM emb WHERE model = ? AND hash IN ({','.join('?' * len(part))})"
            for h, blob in self._db.execute(q, [model_id, *part]):
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put(self, model_id: str, hashes: list[str], vectors: np.ndarray) -> None:
        """Store ``vectors`` (``(n, dim)``) under ``hashes`` (n of them)."""
        rows = [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)]
        self._db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?, ?)", rows)
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def encode_with_cache(
    encoder: Encoder, texts: list[str], hashes: list[str], cache: EmbeddingCache | None,
    progress: bool = False, slice_size: int = 256,
) -> tuple[np.ndarray, int]:
    """Embed passages, reusing cached vectors. Returns ``(vectors (n, dim), n_computed)``.

    Missing vectors are computed and stored ``slice_size`` at a time, so an interrupted run
    keeps the work it finished.
    """
    found = cache.get(encoder.model_id, hashes) if cache is not None else {}
    missing = [i for i, h in enumerate(hashes) if h not in found]
    out = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    slices = [missing[i : i + slice_size] for i in range(0, len(missing), slice_size)]
    with tqdm(total=len(missing), disable=not progress or not missing, desc="embedding", unit="chunk",
              leave=False) as bar:
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
