"""Score fusion levers on cached lists (``lists.py``): document-level nDCG@10 / MRR@10 of each rule.

A rule fuses the chunk lists by weighted RRF (``clinqa.retrieval.fusion.rrf``), optionally adds the
document list as a parent list (``clinqa.retrieval.fusion.parent_rrf``), then ranks documents by their
best chunk, exactly as ``clinqa eval retrieval`` does. ``--grid`` prints the best rules of a grid over
RRF k, the BM25 weight and the document-list weight, by the mean nDCG@10 over the given sets (use the
dev sets where choices are made: BioASQ, MedQuAD self-QA); ``--compare`` scores the old and the new
default on every given set with ir-measures and the paired randomisation test of
``clinqa.evaluation.metrics.paired_test``.

    python bench/levers/study.py --grid /tmp/levers/bioasq.pkl /tmp/levers/selfqa.pkl
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

OLD = {"k": 60, "wb": 1.0, "wod": 0.0}
NEW = {"k": 20, "wb": 1.2, "wod": 0.3}


def ranking(lists: dict[str, list[tuple[str, str, float]]], k: int = 60, wd: float = 1.0, wb: float = 1.0,
            wod: float = 0.0, dense: str = "dense", odense: str = "odense") -> list[str]:
    """Documents best first under one rule: ``clinqa eval retrieval``'s own fusion
    (:func:`clinqa.evaluation.retrieval.fuse_docs`) of the cached lists."""
    def pairs(name: str) -> list[tuple[str, str]]:
        return [(c, d) for c, d, _ in lists[name]]

    return fuse_docs(pairs(dense), pairs("bm25"), wd, wb, k, [d for _, d, _ in lists[odense]], wod)


def per_query(data: dict[str, Any], **rule: Any) -> dict[str, dict[str, float]]:
    """ir-measures values per judged question of one rule."""
    run = {q: ranking(lists, **rule) for q, lists in data["lists"].items()}
    return M.evaluate(data["qrels"], run, ["MRR@10", "nDCG@10"])


def mean(pq: dict[str, dict[str, float]], m: str) -> float:
    return float(np.mean([v[m] for v in pq.values()]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--grid", action="store_true")
    mode.add_argument("--compare", action="store_true")
    a = ap.parse_args()
    data = {p.stem: pickle.loads(p.read_bytes()) for p in a.sets}
    if a.grid:
        rows = []
        for k, wb, wod in itertools.product((10, 20, 30, 60), (1.0, 1.2, 1.4), (0.0, 0.3, 0.5, 1.0)):
            ndcg = [mean(per_query(d, k=k, wb=wb, wod=wod), "nDCG@10") for d in data.values()]
            rows.append((float(np.mean(ndcg)), k, wb, wod, ndcg))
        rows.sort(reverse=True)
        print("k     wb   wod  " + "  ".join(f"{s:>10}" for s in data) + "        mean")
        for m, k, wb, wod, ndcg in rows[:15]:
            print(f"{k:<5} {wb:<4} {wod:<4} " + "  ".join(f"{x:10.4f}" for x in ndcg) + f"  {m:10.4f}")
        return
    for name, d in data.items():
        old, new = per_query(d, **OLD), per_query(d, **NEW)
        cells = []
        for m in ("MRR@10", "nDCG@10"):
            t = M.paired_test({q: v[m] for q, v in new.items()}, {q: v[m] for q, v in old.items()})
            cells.append(f"{m} {mean(old, m):.4f} -> {mean(new, m):.4f} ({t['diff']:+.4f}, p {t['p_value']:.4f})")
        print(f"{name} ({len(new)} judged): " + "; ".join(cells))


if __name__ == "__main__":
    main()
