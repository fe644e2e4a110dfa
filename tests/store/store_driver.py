"""A second process on a store, for the contract tests that need one (``test_contract.py``): reading a
store after a restart, and a store-level ingest that is killed with SIGKILL and then resumed.

    python store_driver.py BACKEND PATH read            # prints a JSON summary of the store
    python store_driver.py BACKEND PATH ingest N        # writes documents 0..N-1, skipping done ones

``ingest`` resumes as ``clinqa ingest`` does: a document whose stored hash (``doc_hashes``) equals its
own is skipped, any other (missing, or ``""``: written only in part) is replaced whole. It prints
``wrote i`` after each document it writes and ``done W S`` (written, skipped) at the end.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.store.filters import Filters

DIM = 8


def open_store(backend: str, path: Path):
    if backend == "lancedb":
        from clinqa.store import LanceStore

        return LanceStore(path)
    if backend == "qdrant-edge":
        from clinqa.store.qdrant_edge import EdgeStore

        return EdgeStore(path)
    from clinqa.store.qdrant import QdrantStore

    return QdrantStore(path)


def document(i: int) -> tuple[list[Chunk], np.ndarray]:
    """Document ``d{i:03d}``: 3 to 6 chunks, one of them naming ``rareword{i}``; seeded unit vectors."""
    doc = f"d{i:03d}"
    n = 3 + i % 4
    chunks = [Chunk(chunk_id=f"{doc}#s#{j}", doc_id=doc, doc_hash=f"h{i}", title=f"doc {i}",
                    text=f"guidance {j} of document {i} on dosing" + (f" rareword{i}" if j == n - 1 else ""),
                    body=f"body {i}-{j}") for j in range(n)]
    rng = np.random.default_rng(i)
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return chunks, v / np.linalg.norm(v, axis=1, keepdims=True)


def main() -> None:
    backend, path, cmd = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    store = open_store(backend, path)
    if cmd == "read":
        print(json.dumps({"count": store.count(), "hashes": store.doc_hashes(), "version": store.version(),
                          "bm25": [h.chunk.chunk_id for h in store.bm25_search("apixaban", 3, Filters())],
                          "dim": store.dim}), flush=True)
        return
    written = skipped = 0
    for i in range(int(sys.argv[4])):
        chunks, vecs = document(i)
        if store.doc_hashes().get(chunks[0].doc_id) == chunks[0].doc_hash:
            skipped += 1
            continue
        store.replace_documents([chunks[0].doc_id], chunks, vecs)
        store.refresh_indexes()
        written += 1
        print("wrote", i, flush=True)
    print("done", written, skipped, flush=True)


if __name__ == "__main__":
    main()
