"""A second shipped encoder beside the default one (issue 15, fourth pass): does fusing its cosines help?

``cosines`` encodes every production chunk of a dev set's evaluation store with a second shipped model
(default ``paraphrase-MiniLM-L3-v2``) and stores, per question, both models' cosines over all chunks
(float16). ``score`` fuses them with the cached BM25 and document lists of ``lists.py`` (the same
pickle as ``study.py``) by :func:`clinqa.retrieval.fusion.convex` and
:func:`clinqa.retrieval.fusion.parent_convex`, as the shipped default does (document list 0.4), at
production depth, and prints nDCG@10 / MRR@10 of each variant with the paired randomisation test
(:func:`clinqa.evaluation.metrics.paired_test`) against the shipped default:

* the weighted mean of the two cosines as one dense list (``mean a:b``);
* the second model as a third convex list (``third list w``).

Every chunk's cosine is exact (no cut list needs a stand-in), as ``Store.dense_scores`` gives production.

    python bench/levers/ensemble.py cosines ../shared/data/bioasq --data-dir /tmp/cq --output /tmp/ens/bioasq.pkl
    python bench/levers/ensemble.py score /tmp/ens/bioasq.pkl /tmp/levers/bioasq.pkl
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.evaluation import metrics as M
from clinqa.evaluation.retrieval import docs_in_order

DEPTH = 30  # production: retrieval.dense_k / bm25_k / document_k


def cosines(dataset: Path, data_dir: Path, model: str, output: Path) -> None:
    """Both models' cosines of every question with every production chunk of ``dataset``'s store."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings
    from clinqa.store.schema import VECTOR
    from clinqa.text import normalize

    ds = load_dataset(dataset)
    settings = Settings(data_dir=data_dir)
    pipe, _, _ = build_eval_pipeline(ds, settings, None, 0, progress=False)
    t = pipe.store.export(["chunk_id", "doc_id", "text", VECTOR], pipe.filters())
    ids, docs, texts = (t.column(c).to_pylist() for c in ("chunk_id", "doc_id", "text"))
    first = np.asarray(t.column(VECTOR).to_pylist(), dtype=np.float32)
    other_settings = settings.model_copy(update={
        "data_dir": output.parent / "second-model",
        "embedding": settings.embedding.model_copy(update={"model": model})})
    encoder = Pipeline(other_settings).encoder
    second = np.zeros((len(ids), first.shape[1]), dtype=np.float32)
    order = sorted(range(len(ids)), key=lambda j: len(texts[j]))  # length-sorted batches
    t0 = time.perf_counter()
    for k in range(0, len(order), 256):
        idx = order[k:k + 256]
        second[idx] = encoder.encode_passages([texts[j] for j in idx])
    print(f"{len(ids)} chunks encoded with {model} in {time.perf_counter() - t0:.0f} s")
    qs = [normalize(q.text) for q in ds.queries]
    q1, q2 = pipe.encoder.encode_queries(qs), encoder.encode_queries(qs)
    scores = {q.qid: ((first @ a).astype(np.float16), (second @ b).astype(np.float16))
              for q, a, b in zip(ds.queries, q1, q2, strict=True)}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(pickle.dumps({"ids": ids, "docs": docs, "scores": scores}))


def _run(ens: dict[str, Any], lists: dict[str, Any], w1: float, w2: float, mode: str) -> dict[str, list[str]]:
    from clinqa.retrieval.fusion import convex, parent_convex

    ids = np.array(ens["ids"])
    row = {c: i for i, c in enumerate(ens["ids"])}
    doc_of = dict(zip(ens["ids"], ens["docs"], strict=True))
    run: dict[str, list[str]] = {}
    for q, ql in lists["lists"].items():
        c1, c2 = (x.astype(np.float32) for x in ens["scores"][q])
        bm25 = [(c, s) for c, _, s in ql["bm25"][:DEPTH]]
        scored = {"mean": [(w1 * c1 + w2 * c2) / (w1 + w2)]} if mode == "mean" else {"d1": [c1], "d2": [c2]}
        tops = {n: np.argsort(-v[0])[:DEPTH] for n, v in scored.items()}
        cand = {c for c, _ in bm25 if c in row} | {ids[i] for t in tops.values() for i in t}
        fused_lists: dict[str, list[tuple[str, float]]] = {"bm25": bm25}
        for n, (v,) in scored.items():
            top = [(ids[i], float(v[i])) for i in tops[n]]
            seen = {c for c, _ in top}  # the candidates outside the cut list: their own cosine, below it
            fused_lists[n] = top + sorted(((c, float(v[row[c]])) for c in cand if c not in seen), key=lambda x: -x[1])
        weights = {"bm25": 1.0, "mean": 1.0, "d1": w1, "d2": w2}
        fused = convex(fused_lists, weights, depths={"bm25": DEPTH})
        documents = [(d, s) for _, d, s in ql["odense"][:DEPTH]]
        fused = parent_convex(fused, doc_of | {c: d for c, d, _ in ql["bm25"]}, documents, 0.4, 0.0, DEPTH)
        run[q] = docs_in_order([doc_of.get(c, c) for c, _ in fused])
    return run


#: (label, first model's weight, second's, how they are fused)
VARIANTS = [("shipped model alone", 1.0, 0.0, "mean"), ("second model alone", 0.0, 1.0, "mean"),
            ("mean 1:1", 1.0, 1.0, "mean"), ("mean 2:1", 2.0, 1.0, "mean"),
            ("third list 0.5", 1.0, 0.5, "lists"), ("third list 1", 1.0, 1.0, "lists")]


def score(ens_path: Path, lists_path: Path) -> None:
    """nDCG@10 / MRR@10 of every :data:`VARIANTS` entry, paired test against the shipped default."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from study import DEFAULT, per_query

    ens = pickle.loads(ens_path.read_bytes())
    lists = pickle.loads(lists_path.read_bytes())
    base = per_query(lists, DEFAULT, depth=DEPTH)
    for label, w1, w2, mode in VARIANTS:
        pq = M.evaluate(lists["qrels"], _run(ens, lists, w1, w2, mode), ["MRR@10", "nDCG@10"])
        t = M.paired_test({q: v["nDCG@10"] for q, v in pq.items()}, {q: v["nDCG@10"] for q, v in base.items()})
        print(f"{lists_path.stem} {label}: MRR@10 {np.mean([v['MRR@10'] for v in pq.values()]):.4f} "
              f"nDCG@10 {np.mean([v['nDCG@10'] for v in pq.values()]):.4f} ({t['diff']:+.4f}, p {t['p_value']:.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cosines")
    c.add_argument("dataset", type=Path)
    c.add_argument("--data-dir", type=Path, required=True, help="holds the embedding cache of the eval stores")
    c.add_argument("--model", default="paraphrase-MiniLM-L3-v2")
    c.add_argument("--output", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("cosines", type=Path)
    s.add_argument("lists", type=Path, help="the lists.py pickle of the same dev set")
    a = ap.parse_args()
    if a.cmd == "cosines":
        cosines(a.dataset, a.data_dir, a.model, a.output)
    else:
        score(a.cosines, a.lists)


if __name__ == "__main__":
    main()
