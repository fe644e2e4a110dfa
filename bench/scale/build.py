"""Build 10k / 100k / 300k-chunk stores from real chunks and their real embeddings, for
``bench/scale/latency.py``.

Source: stores that clinqa itself ingested (default: the evaluation harness's full-corpus
stores of LiveQA-MedQuAD, 53,978 chunks, and PubMedQA, 1,000 abstracts; all-MiniLM-L6-v2; see
``docs/benchmarks.md`` for the commands that build them). Their chunks and vectors are read back;
nothing is re-embedded. Where a size needs more chunks than the sources hold, documents are
repeated with **seeded variation**, and the report says so:

- a copy gets new ids (``<doc_id>~v<j>``), a year drawn from 2005-2025, and its vectors perturbed
  by Gaussian noise (``eps * N(0, 1/dim)`` per dimension, renormalised; cosine to the original
  about 0.999) so copies do not tie exactly; its text is the original's, word for word;
- in every size 20% of the documents (seeded) become patient notes spread over ``n // 300``
  patients (about 60 chunks each), so patient-filtered queries are measured too.

Writing goes through ``LanceStore.replace_documents`` (the ingest write path) in batches of
documents, then ``refresh_indexes`` (BM25 full-text and scalar indexes). Prints the build time and
the size on disk of each store, and writes ``build.json`` beside the stores.

    python bench/scale/build.py --out /tmp/scale --sizes 10000 100000 300000
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.retrieval.filters import Filters
from clinqa.store import LanceStore
from clinqa.store.schema import ROW_COLUMNS

EVAL = Path.home() / ".cache" / "clinqa" / "eval"
DEFAULT_SOURCES = [EVAL / "liveqa-medquad-1b443b378db4", EVAL / "pubmedqa-71455f1d7d76"]


def load_rows(sources: list[Path]) -> tuple[list[dict], np.ndarray, dict]:
    """All chunk rows (without vectors), their vectors ``(n, dim)`` and the first source's store.json."""
    rows: list[dict] = []
    vecs: list[np.ndarray] = []
    meta: dict = {}
    for src in sources:
        meta = meta or json.loads((src / "store.json").read_text())
        t = LanceStore(src / "lancedb").export([*ROW_COLUMNS, "vector"], Filters(exclude_levels=()))
        flat = t.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        vecs.append(flat.reshape(t.num_rows, -1).astype(np.float32))
        rows.extend(t.drop_columns(["vector"]).to_pylist())
    return rows, np.concatenate(vecs), meta


def plan(rows: list[dict], n: int, seed: int) -> list[tuple[str, int]]:
    """Documents (doc_id, copy number) whose chunks add up to at least ``n``: every source document
    once in a seeded order, then seeded copies."""
    docs: dict[str, int] = {}
    for r in rows:
        docs[r["doc_id"]] = docs.get(r["doc_id"], 0) + 1
    rng = np.random.default_rng(seed)
    order = list(docs)
    out: list[tuple[str, int]] = []
    total, copy = 0, 0
    while total < n:
        for i in rng.permutation(len(order)):
            d = order[i]
            out.append((d, copy))
            total += docs[d]
            if total >= n:
                break
        copy += 1
    return out


def build(rows: list[dict], vecs: np.ndarray, meta: dict, n: int, out: Path, seed: int, eps: float,
          batch_docs: int) -> dict:
    """Write one store of about ``n`` chunks under ``out``; returns its build figures."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "store.json").write_text(json.dumps(meta, indent=2))
    by_doc: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_doc.setdefault(r["doc_id"], []).append(i)
    docs = plan(rows, n, seed)
    rng = np.random.default_rng(seed + 1)
    n_patients = max(10, n // 300)
    store = LanceStore(out / "lancedb")
    t0 = time.perf_counter()
    written = copies = notes = 0
    for b in range(0, len(docs), batch_docs):
        part = docs[b : b + batch_docs]
        ids: list[str] = []
        chunks: list[Chunk] = []
        vs: list[np.ndarray] = []
        for doc_id, j in part:
            new_id = doc_id if j == 0 else f"{doc_id}~v{j}"
            patient = f"P{int(rng.integers(n_patients)):05d}" if rng.random() < 0.2 else None
            year = int(rng.integers(2005, 2026)) if (j or patient) else None
            idx = by_doc[doc_id]
            v = vecs[idx]
            if j:
                v = v + eps * rng.standard_normal(v.shape).astype(np.float32) / np.sqrt(v.shape[1])
                v = v / np.linalg.norm(v, axis=1, keepdims=True)
                copies += 1
            notes += patient is not None
            ids.append(new_id)
            for i in idx:
                r = dict(rows[i])
                r["doc_id"] = new_id
                r["chunk_id"] = r["chunk_id"].replace(doc_id, new_id, 1) if j else r["chunk_id"]
                r["patient_id"] = patient
                r["year"] = year if year is not None else r["year"]
                chunks.append(Chunk.model_validate({k: val for k, val in r.items() if k in Chunk.model_fields}))
            vs.append(v)
        store.replace_documents(ids, chunks, np.concatenate(vs))
        written += len(chunks)
        print(f"  {n}: {written} chunks written, {time.perf_counter() - t0:.0f} s", flush=True)
    t_write = time.perf_counter() - t0
    t1 = time.perf_counter()
    store.refresh_indexes()
    t_index = time.perf_counter() - t1
    size = sum(p.stat().st_size for p in (out / "lancedb").rglob("*") if p.is_file())
    return {"target": n, "chunks": store.count(), "documents": len(docs), "copied_documents": copies,
            "note_documents": notes, "patients": n_patients, "write_s": round(t_write, 1),
            "index_s": round(t_index, 1), "disk_mb": round(size / 2**20, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/scale"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    ap.add_argument("--source", type=Path, action="append", help="an ingested data dir (repeatable)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--eps", type=float, default=0.05)
    ap.add_argument("--batch-docs", type=int, default=2000)
    a = ap.parse_args()
    rows, vecs, meta = load_rows(a.source or DEFAULT_SOURCES)
    print(f"{len(rows)} source chunks, dim {vecs.shape[1]}, model {meta.get('model_id')}")
    report = {"source_chunks": len(rows), "sources": [str(s) for s in (a.source or DEFAULT_SOURCES)],
              "model_id": meta.get("model_id"), "stores": []}
    for n in a.sizes:
        report["stores"].append(build(rows, vecs, meta, n, a.out / str(n), a.seed, a.eps, a.batch_docs))
        print(json.dumps(report["stores"][-1]))
    (a.out / "build.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
