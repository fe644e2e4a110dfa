"""Cache the ranked lists of every question of a BEIR-style dev set for the retrieval lever study.

Uses the store ``clinqa eval retrieval`` builds (``clinqa.evaluation.retrieval.build_eval_pipeline``;
same chunks, cached embeddings) and, per question, searches four lists 100 deep under the production
filters: ``dense`` and ``bm25`` (content chunks; BM25 with the synonym expansion, as ``clinqa ask``),
``odense`` and ``obm25`` (the overview chunks: one per document), and ``dense_extra``, the exact cosines
of the BM25 hits outside the dense list (a dict, as convex fusion reads them). With ``--prf`` it adds the dense
lists of a Rocchio-style pseudo-relevance-feedback query, ``q + 0.5 * mean(vectors of the first 3 fused
chunks)`` (Rocchio 1971; the dense form as in Li et al., "Pseudo relevance feedback with deep language
models and dense retrievers", 2022). Output: one pickle, ``{"lists": {qid: {name: [(chunk_id, doc_id,
score), ...], "dense_extra": {chunk_id: cosine}}}, "qrels": ..., "clusters": ...}``, read by
``study.py``.

    python bench/levers/lists.py ../shared/data/bioasq --subset full --output /tmp/levers/bioasq.pkl
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path

import numpy as np

from clinqa.chunking.base import content_levels
from clinqa.evaluation.datasets import load_dataset
from clinqa.evaluation.retrieval import build_eval_pipeline
from clinqa.retrieval.fusion import rrf
from clinqa.retrieval.hybrid import bm25_only
from clinqa.retrieval.synonyms import expand
from clinqa.settings import Settings
from clinqa.store.filters import Filters
from clinqa.store.schema import VECTOR
from clinqa.text import normalize


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--subset", default="full", help="'full' or the number of distractors (0: judged only)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, default=None, help="holds the shared embedding cache")
    ap.add_argument("--prf", action="store_true", help="also the pseudo-relevance-feedback dense lists")
    ap.add_argument("--output", type=Path, required=True)
    a = ap.parse_args()
    ds = load_dataset(a.dataset)
    settings = Settings(**({"data_dir": a.data_dir} if a.data_dir else {}))
    pipe, _, _ = build_eval_pipeline(ds, settings, None if a.subset == "full" else int(a.subset), a.seed)
    prod = pipe.filters()
    overview = Filters(exclude_levels=content_levels())
    store = pipe.store
    vecs = pipe.encoder.encode_queries([normalize(q.text) for q in ds.queries])
    if a.prf:
        t = store.export(["chunk_id", VECTOR], prod)
        row = {c: i for i, c in enumerate(t.column("chunk_id").to_pylist())}
        matrix = np.asarray(t.column(VECTOR).to_pylist(), dtype=np.float32)
    t0 = time.perf_counter()
    out: dict[str, dict[str, list[tuple[str, str, float]]]] = {}
    for q, qv in zip(ds.queries, vecs, strict=True):
        text = normalize(q.text)
        bm25_query = expand(text).text

        def rows(hits: list) -> list[tuple[str, str, float]]:
            return [(h.chunk.chunk_id, h.chunk.doc_id, h.score) for h in hits]

        lists = {"dense": rows(store.dense_search(qv, 100, prod)),
                 "bm25": rows(store.bm25_search(bm25_query, 100, prod)),
                 "odense": rows(store.dense_search(qv, 100, overview)),
                 "obm25": rows(store.bm25_search(bm25_query, 100, overview))}
        lists["dense_extra"] = store.dense_scores(
            qv, bm25_only([c for c, _, _ in lists["dense"]], [c for c, _, _ in lists["bm25"]]), prod)
        if a.prf:
            fused = [c for c, _ in rrf({"d": [c for c, _, _ in lists["dense"]], "b": [c for c, _, _ in lists["bm25"]]})]
            fb = matrix[[row[c] for c in fused[:3] if c in row]].mean(0)
            q2 = qv + 0.5 * fb
            q2 = q2 / np.linalg.norm(q2)
            lists["dense_prf"] = rows(store.dense_search(q2, 100, prod))
            lists["odense_prf"] = rows(store.dense_search(q2, 100, overview))
        out[q.qid] = lists
    print(f"{len(out)} questions searched in {time.perf_counter() - t0:.0f} s; {store.count()} chunks")
    a.output.parent.mkdir(parents=True, exist_ok=True)
    with a.output.open("wb") as f:
        pickle.dump({"lists": out, "qrels": ds.qrels, "clusters": {q.qid: ds.cluster_of(q.qid) for q in ds.queries}}, f)


if __name__ == "__main__":
    main()
