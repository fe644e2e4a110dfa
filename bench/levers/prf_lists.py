"""Add pseudo-relevance-feedback lists to a ``lists.py`` pickle: BM25 with RM3-style expansion terms
and dense Rocchio variants, searched in the same evaluation store.

* ``bm25_rm3``: the question plus the ``--terms`` best expansion terms of the first ``--fb`` fused
  chunks (weighted RRF of the cached dense and BM25 lists, k 20, BM25 1.2), a term's weight being
  ``sum over feedback chunks of tf(t, c) / |c| * idf(t)`` (RM3's relevance model with uniform
  document weights, Lavrenko & Croft 2001; Abdul-Jaleel et al., TREC 2004), BM25 index terms only
  (:func:`clinqa.store.sparse.index_terms`), question terms excluded. LanceDB's full-text search has
  no per-term query weight, so the added terms count as much as the question's own.
* ``dense_prf{n}``: ``q + 0.5 * mean(vectors of the first n fused chunks)``, renormalised.

    python bench/levers/prf_lists.py ../shared/data/bioasq --subset full --data-dir /tmp/cq \
        --lists /tmp/levers/bioasq.pkl
"""

from __future__ import annotations

import argparse
import math
import pickle
import time
from collections import Counter
from pathlib import Path

import numpy as np

from clinqa.evaluation.datasets import load_dataset
from clinqa.evaluation.retrieval import build_eval_pipeline
from clinqa.retrieval.fusion import rrf
from clinqa.retrieval.synonyms import expand
from clinqa.settings import Settings
from clinqa.store.schema import VECTOR
from clinqa.store.sparse import index_terms
from clinqa.text import normalize


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--subset", default="full")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--lists", type=Path, required=True, help="lists.py pickle to extend in place")
    ap.add_argument("--fb", type=int, default=3)
    ap.add_argument("--terms", type=int, default=10)
    ap.add_argument("--dense", default="1:0.5,5:0.5", help="dense PRF variants, n:weight,...")
    ap.add_argument("--no-rm3", action="store_true")
    a = ap.parse_args()
    ds = load_dataset(a.dataset)
    settings = Settings(**({"data_dir": a.data_dir} if a.data_dir else {}))
    pipe, _, _ = build_eval_pipeline(ds, settings, None if a.subset == "full" else int(a.subset), a.seed,
                                     progress=False)
    prod = pipe.filters()
    store = pipe.store
    t = store.export(["chunk_id", "text", VECTOR], prod)
    ids = t.column("chunk_id").to_pylist()
    row = {c: i for i, c in enumerate(ids)}
    terms = [index_terms(x) for x in t.column("text").to_pylist()]
    df: Counter[str] = Counter()
    for ts in terms:
        df.update(set(ts))
    n = len(terms)
    idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
    matrix = np.asarray(t.column(VECTOR).to_pylist(), dtype=np.float32)
    data = pickle.loads(a.lists.read_bytes())
    vecs = pipe.encoder.encode_queries([normalize(q.text) for q in ds.queries])
    t0 = time.perf_counter()
    for q, qv in zip(ds.queries, vecs, strict=True):
        lists = data["lists"].get(q.qid)
        if lists is None:
            continue
        fused = [c for c, _ in rrf({"d": [c for c, _, _ in lists["dense"]], "b": [c for c, _, _ in lists["bm25"]]},
                                   {"d": 1.0, "b": 1.2}, k=20)]
        fb = [row[c] for c in fused[: a.fb] if c in row]
        text = normalize(q.text)
        qterms = set(index_terms(text))
        weight: Counter[str] = Counter()
        for r in fb:
            tf = Counter(terms[r])
            size = max(len(terms[r]), 1)
            for w, f in tf.items():
                if w not in qterms and not w.isdigit() and len(w) > 2:
                    weight[w] += f / size * idf.get(w, 0.0)
        extra = [w for w, _ in weight.most_common(a.terms)]
        query = expand(text).text + " " + " ".join(extra)

        def rows(hits: list) -> list[tuple[str, str, float]]:
            return [(h.chunk.chunk_id, h.chunk.doc_id, h.score) for h in hits]

        if not a.no_rm3:
            lists["bm25_rm3"] = rows(store.bm25_search(query, 100, prod))
        for spec in a.dense.split(","):
            nfb, w = int(spec.split(":")[0]), float(spec.split(":")[1])
            sel = [row[c] for c in fused[:nfb] if c in row]
            q2 = qv + w * matrix[sel].mean(0)
            name = f"dense_prf{nfb}" + ("" if w == 0.5 else f"_{w}")
            lists[name] = rows(store.dense_search(q2 / np.linalg.norm(q2), 100, prod))
    print(f"{len(ds.queries)} questions in {time.perf_counter() - t0:.0f} s")
    a.lists.write_bytes(pickle.dumps(data))


if __name__ == "__main__":
    main()
