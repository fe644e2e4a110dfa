"""Score fusion levers on cached lists (``lists.py``, ``prf_lists.py``): document-level nDCG@10 / MRR@10
of each rule.

A rule is a :class:`clinqa.settings.RetrievalSettings` (``fusion`` convex or rrf, the list weights,
``rrf_k``, ``document_weight``) applied by :func:`clinqa.evaluation.retrieval.fuse_docs`, the code
``clinqa eval retrieval`` and ``clinqa ask`` run, then documents by their best chunk. ``--dense NAME``
fuses another cached dense list instead of ``dense`` (e.g. ``dense_prf1``, pseudo-relevance feedback).

``--table`` prints every lever of the third pass (:data:`LEVERS`) against the previous default. ``--grid``
prints a grid over the convex weights (dense vs BM25, document list) or, with ``--rrf``, over
RRF k, the BM25 weight and the document-list weight, ranked by the mean nDCG@10 over the given sets (use
the dev sets where choices are made: BioASQ, MedQuAD self-QA); ``--compare`` scores the RRF rule of
issue 15's start (k 60, equal weights, no document list), the RRF default of the second pass and the
current default on every given set with ir-measures and the paired randomisation test of
:func:`clinqa.evaluation.metrics.paired_test`.

    python bench/levers/study.py --grid /tmp/levers/bioasq.pkl /tmp/levers/medquad-selfqa.pkl
    python bench/levers/study.py --compare /tmp/levers/*.pkl
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.evaluation import metrics as M
from clinqa.evaluation.retrieval import fuse_docs
from clinqa.retrieval.hybrid import bm25_only
from clinqa.settings import RetrievalSettings

#: the RRF rule when issue 15 was filed
START = RetrievalSettings(fusion="rrf", rrf_k=60, dense_weight=1.0, bm25_weight=1.0, document_weight=0.0)
#: the RRF default of the second lever pass (k 20, BM25 1.2, document list 0.3)
RRF_DEFAULT = RetrievalSettings(fusion="rrf", rrf_k=20, dense_weight=1.0, bm25_weight=1.2, document_weight=0.3)
#: the shipped default (convex, equal weights, document list 0.4)
DEFAULT = RetrievalSettings()
DEPTH = 100  # lists.py searches every list this deep


def ranking(lists: dict[str, Any], rule: RetrievalSettings, dense: str = "dense", depth: int = DEPTH,
            bm25: str = "bm25", exact: bool = True) -> list[str]:
    """Documents best first under ``rule`` for one question's cached lists (the first ``depth`` of each).
    ``exact``: a BM25 hit outside the cut dense list is scored by its own cosine (as ``hybrid_search``
    asks the store for it) rather than by the dense list's last score."""
    docs = [(d, s) for _, d, s in lists["odense"][:depth]]
    dl, bl = lists[dense][:depth], lists[bm25][:depth]
    extra: dict[str, float] = {}
    if exact:
        cos = {c: s for c, _, s in lists[dense]} | (lists.get("dense_extra", {}) if dense == "dense" else {})
        extra = {c: cos[c] for c in bm25_only([c for c, _, _ in dl], [c for c, _, _ in bl]) if c in cos}
    return fuse_docs(dl, bl, rule, docs, depth, extra)


def per_query(data: dict[str, Any], rule: RetrievalSettings, dense: str = "dense", depth: int = DEPTH,
              bm25: str = "bm25", exact: bool = True) -> dict[str, dict[str, float]]:
    """ir-measures values per judged question of one rule."""
    run = {q: ranking(lists, rule, dense, depth, bm25, exact) for q, lists in data["lists"].items()}
    return M.evaluate(data["qrels"], run, ["MRR@10", "nDCG@10"])


#: the levers of the third pass: (label, rule, dense list, BM25 list, exact cosines for BM25 hits)
LEVERS: list[tuple[str, RetrievalSettings, str, str, bool]] = [
    ("RRF, issue-15 start (k 60, equal, no document list)", START, "dense", "bm25", True),
    ("RRF, previous default (k 20, BM25 1.2, document list 0.3)", RRF_DEFAULT, "dense", "bm25", True),
    ("convex, no document list", RetrievalSettings(document_weight=0.0), "dense", "bm25", True),
    ("convex, document list 0.8", RetrievalSettings(document_weight=0.8), "dense", "bm25", True),
    ("**convex, document list 0.4 (new default)**", DEFAULT, "dense", "bm25", True),
    ("convex 0.4, a BM25 hit scored by the dense list's last cosine", DEFAULT, "dense", "bm25", False),
    ("convex 0.4 + dense PRF (q + 0.5 x top-1 fused chunk)", DEFAULT, "dense_prf1", "bm25", True),
    ("convex 0.4 + BM25 RM3 (10 terms of the top 3)", DEFAULT, "dense", "bm25_rm3", True),
    ("RRF previous default + dense PRF", RRF_DEFAULT, "dense_prf1", "bm25", True),
]


def table(data: dict[str, dict[str, Any]], depth: int) -> None:
    """A Markdown table of :data:`LEVERS`: MRR@10 / nDCG@10 per set, and the nDCG@10 difference with the
    paired p-value against the previous default (RRF k 20)."""
    base = {n: per_query(d, RRF_DEFAULT, depth=depth) for n, d in data.items()}
    print("| lever | " + " | ".join(f"{n} MRR / nDCG (diff, p)" for n in data) + " |")
    print("|---|" + "---|" * len(data))
    for label, rule, dense, bm25, exact in LEVERS:
        cells = []
        for n, d in data.items():
            if dense not in next(iter(d["lists"].values())) or bm25 not in next(iter(d["lists"].values())):
                cells.append("-")
                continue
            pq = per_query(d, rule, dense, depth, bm25, exact)
            t = M.paired_test({q: v["nDCG@10"] for q, v in pq.items()}, {q: v["nDCG@10"] for q, v in base[n].items()})
            cells.append(f"{mean(pq, 'MRR@10'):.3f} / {mean(pq, 'nDCG@10'):.3f} ({t['diff']:+.3f}, {t['p_value']:.4f})")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def mean(pq: dict[str, dict[str, float]], m: str) -> float:
    return float(np.mean([v[m] for v in pq.values()]))


def grid(data: dict[str, dict[str, Any]], rrf: bool, dense: str, depth: int) -> None:
    rows = []
    if rrf:
        rules = [RetrievalSettings(fusion="rrf", rrf_k=k, bm25_weight=wb, document_weight=wod)
                 for k, wb, wod in itertools.product((10, 20, 30, 60), (1.0, 1.2, 1.4), (0.0, 0.3, 0.5, 1.0))]
    else:
        rules = [RetrievalSettings(dense_weight=wd, bm25_weight=round(1 - wd, 2), document_weight=wod)
                 for wd, wod in itertools.product((0.3, 0.4, 0.5, 0.6, 0.7), (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))]
    for r in rules:
        ndcg = [mean(per_query(d, r, dense, depth), "nDCG@10") for d in data.values()]
        rows.append((float(np.mean(ndcg)), r, ndcg))
    rows.sort(key=lambda x: -x[0])
    print("fusion  k    dense bm25  doc   " + "  ".join(f"{s:>14}" for s in data) + "        mean")
    for m, r, ndcg in rows[:15]:
        print(f"{r.fusion:7} {r.rrf_k:<4} {r.dense_weight:<5} {r.bm25_weight:<5} {r.document_weight:<5} "
              + "  ".join(f"{x:14.4f}" for x in ndcg) + f"  {m:10.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--grid", action="store_true")
    mode.add_argument("--compare", action="store_true")
    mode.add_argument("--table", action="store_true", help="every lever of the third pass, Markdown")
    ap.add_argument("--rrf", action="store_true", help="--grid over the RRF rule instead of the convex one")
    ap.add_argument("--dense", default="dense", help="the cached dense list to fuse (e.g. dense_prf1)")
    ap.add_argument("--depth", type=int, default=DEPTH, help="use the first N of each cached list (production: 30)")
    a = ap.parse_args()
    data = {p.stem: pickle.loads(p.read_bytes()) for p in a.sets}
    if a.grid:
        grid(data, a.rrf, a.dense, a.depth)
        return
    if a.table:
        table(data, a.depth)
        return
    for name, d in data.items():
        start = per_query(d, START, depth=a.depth)
        for label, rule, dense in (("RRF default (k 20, BM25 1.2, doc 0.3)", RRF_DEFAULT, "dense"),
                                   ("convex default", DEFAULT, "dense"),
                                   (f"convex default, {a.dense}", DEFAULT, a.dense)):
            if dense not in next(iter(d["lists"].values())) or (dense == "dense" and label.endswith(a.dense)):
                continue
            pq = per_query(d, rule, dense, a.depth)
            cells = []
            for m in ("MRR@10", "nDCG@10"):
                t = M.paired_test({q: v[m] for q, v in pq.items()}, {q: v[m] for q, v in start.items()})
                cells.append(f"{m} {mean(start, m):.4f} -> {mean(pq, m):.4f} ({t['diff']:+.4f}, p {t['p_value']:.4f})")
            print(f"{name} ({len(pq)} judged), {label} vs the issue-15 start: " + "; ".join(cells))


if __name__ == "__main__":
    main()
