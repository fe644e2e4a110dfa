"""Lever study (issue 15): a whole-document vector as a third RRF list in clinqa's hybrid.

Measured in the evaluation harness only (no store or setting change): clinqa's own dense and
BM25 chunk lists (``run_searches``, 100 deep, production filters) are fused as ``clinqa eval
retrieval`` fuses them, and a third list is added: the documents ranked by the cosine of the
question with one vector per document, ``title + " " + text`` cut at the model's 256-token window
(the plain baseline's vectors, :mod:`plain_hybrid`, cached). Each chunk then scores

    w_d / (k + rank_dense(c)) + w_b / (k + rank_bm25(c)) + 1 / (k + rank_doc(doc(c)))

(k = 60; a chunk missing from a list gets nothing from it; a document found only by the third list
enters with that term alone), and documents are ranked by their best chunk, as clinqa does. On
sets whose documents are one section (BioASQ snippets, MedQuAD passages) the document vector is
the section vector of ``retrieval.section_vectors``. Paired randomisation test (ranx, fisher) of
the three-list run against clinqa's default two-list run on the same lists.

Usage::

    python bench/baselines/section_list.py ../shared/data/bioasq --subset 0 --output runs/section-bioasq
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import plain_hybrid as ph

from clinqa.evaluation.datasets import load_dataset
from clinqa.retrieval.fusion import rrf


def three_list_docs(dense: list[tuple[str, str]], bm25: list[tuple[str, str]], doc_list: list[str],
                    w_dense: float, w_bm25: float, k: int) -> list[str]:
    """Documents by their best chunk under dense + BM25 chunk RRF plus a document-list term
    ``1 / (k + rank_doc(doc))`` on every chunk of a ranked document (see the module docstring).
    ``dense``/``bm25``: ``(chunk_id, doc_id)`` best first; ``doc_list``: doc ids best first."""
    fused = dict(rrf({"dense": [c for c, _ in dense], "bm25": [c for c, _ in bm25]},
                     {"dense": w_dense, "bm25": w_bm25}, k=k))
    doc_of = dict(dense + bm25)
    doc_rank = {d: r for r, d in enumerate(doc_list, 1)}
    best: dict[str, float] = {}
    for c, s in fused.items():
        d = doc_of[c]
        s += 1.0 / (k + doc_rank[d]) if d in doc_rank else 0.0
        best[d] = max(best.get(d, 0.0), s)
    for d, r in doc_rank.items():
        best.setdefault(d, 1.0 / (k + r))
    return [d for d, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))]


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    from clinqa.evaluation.retrieval import build_eval_pipeline, fuse_docs, run_searches
    from clinqa.paths import cache_dir
    from clinqa.settings import Settings

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--subset", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, required=True, help="holds embeddings.sqlite (as clinqa eval)")
    ap.add_argument("--cache-dir", type=Path, default=None, help="plain_hybrid's document-vector cache")
    ap.add_argument("--output", type=Path, required=True)
    args = ap.parse_args(argv)
    ds = load_dataset(args.dataset)
    settings = Settings(data_dir=args.data_dir)
    pipe, _, _ = build_eval_pipeline(ds, settings, args.subset, args.seed, progress=False)
    judged = [q for q in ds.queries if q.qid in ds.qrels]
    lists, _ = run_searches(pipe, judged, depth=100, progress=False)
    doc_ids, texts = ph.read_corpus(ds.corpus, ds.subset_ids(args.subset, args.seed))
    model = ph.load_model()
    cache_root = args.cache_dir or cache_dir() / "baselines"
    cache = cache_root / f"{ph.file_sha(ds.corpus)[:12]}-{ph.model_key().replace('/', '_')}"
    dvecs = ph.document_vectors(model, doc_ids, texts, cache)
    qids = [q.qid for q in judged]
    qvecs = ph.encode(model, [q.text for q in judged])
    doc_lists = ph.dense_lists(dvecs, doc_ids, qvecs, qids, min(100, len(doc_ids)))
    rs = settings.retrieval
    runs: dict[str, Any] = {"clinqa": {}, "clinqa+doc": {}}
    two_lists = rs.model_copy(update={"fusion": "rrf", "document_weight": 0.0})  # the RRF rule this lever was tried on
    for q in qids:
        dense, bm25, _, _ = lists[q]
        runs["clinqa"][q] = fuse_docs(dense, bm25, two_lists, depth=100)
        runs["clinqa+doc"][q] = three_list_docs([(c, d) for c, d, _ in dense], [(c, d) for c, d, _ in bm25],
                                                [d for d, _ in doc_lists[q]], rs.dense_weight, rs.bm25_weight,
                                                rs.rrf_k)
    clusters = {q: ds.cluster_of(q) for q in qids}
    values = {n: ph.per_query(ds.qrels, r) for n, r in runs.items()}
    rep = {"dataset": ds.name, "documents": len(doc_ids), "judged_queries": len(qids),
           "subset": {"distractors": args.subset, "seed": args.seed},
           "metrics": {n: ph.summarise(v, clusters) for n, v in values.items()},
           "p_vs_clinqa": {n: {ph.METRICS[m]: p for m, p in pv.items()}
                           for n, pv in ph.paired_p(ds.qrels, runs, "clinqa").items()}}
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "report.json").write_text(json.dumps(rep, indent=2))
    for n in runs:
        m = rep["metrics"][n]
        p = rep["p_vs_clinqa"].get(n)
        print(f"{n:<12} MRR@10 {m['MRR@10']['value']:.3f} {m['MRR@10']['ci95']}  nDCG@10 {m['nDCG@10']['value']:.3f} "
              f"{m['nDCG@10']['ci95']}  Hit@10 {m['Hit@10']['value']:.3f}  p {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
