"""Calibrate the answer model's threshold on held-out MedQuAD questions (never trained on, and not the
refusal set the decision is judged on).

For each sampled held-out question (ids from the model's ``clinqa-training/heldout-medquad.txt``):

- answered: the question with its own gold passage;
- thin: the question with the other passages of the same MedQuAD page (same topic, other question
  types: "What are the symptoms of X?" against X's treatment answer), the best of up to 3;
- off-topic: the question with one seeded random passage of another page.

The threshold rule, fixed before any refusal-set figure was seen: the largest threshold that still
answers ``--keep`` (default 95%) of the answered pairs. Prints and writes the rates of the three kinds
at that threshold and at a few others, and the AUCs (answered vs thin, answered vs off-topic).

    python bench/answerability/calibrate.py --model src/clinqa/models/answerability-v1 \
        --heldout <model>/clinqa-training/heldout-medquad.txt --n 400 --out runs/answerability-calib.json
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from clinqa.chunking.base import compose
from clinqa.rerank.onnx_cross_encoder import OnnxCrossEncoder
from clinqa.training.data import medquad_queries, sibling_key

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half): the Mann-Whitney U
    statistic over ``len(pos) * len(neg)``."""
    p, n = pos[:, None], neg[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (len(pos) * len(neg)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--heldout", type=Path, required=True)
    ap.add_argument("--medquad", type=Path, default=SHARED / "raw" / "medquad")
    ap.add_argument("--corpus", type=Path, default=SHARED / "liveqa-medquad" / "corpus.jsonl")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--keep", type=float, default=0.95)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()

    held = set(a.heldout.read_text().split())
    passages: dict[str, str] = {}
    pages: dict[str, list[str]] = {}
    for line in a.corpus.open():
        d = json.loads(line)
        passages[d["_id"]] = compose(d.get("title") or "", d["text"])  # as the store indexes it
        if (k := sibling_key(d["_id"])) is not None:
            pages.setdefault(k, []).append(d["_id"])
    ids = sorted(passages)
    qs = [q for q in medquad_queries(a.medquad) if q.qid in held and all(p in passages for p in q.positives)]
    rng = random.Random(a.seed)
    qs = rng.sample(qs, min(a.n, len(qs)))
    model = OnnxCrossEncoder(a.model, max_tokens=a.max_tokens)
    gold, thin, off = [], [], []
    t0 = time.perf_counter()
    for q in qs:
        (g,) = sorted(q.positives)
        page = sibling_key(g)
        sibs = [i for i in pages.get(page, []) if i not in q.positives and passages[i] != passages[g]] if page else []
        sibs = rng.sample(sibs, min(3, len(sibs)))
        while True:
            r = rng.choice(ids)
            if sibling_key(r) != page:
                break
        s = model.score(q.text, [passages[g], passages[r], *(passages[i] for i in sibs)])
        gold.append(s[0])
        off.append(s[1])
        if sibs:
            thin.append(s[2:].max())
    secs = time.perf_counter() - t0
    g_s, t_s, o_s = np.array(gold), np.array(thin), np.array(off)
    threshold = float(np.quantile(g_s, 1 - a.keep, method="lower"))

    def refused(scores: np.ndarray, t: float) -> float:
        return float(np.mean(scores < t))

    rows = [{"threshold": round(t, 4), "answered_refused": refused(g_s, t), "thin_refused": refused(t_s, t),
             "off_topic_refused": refused(o_s, t)} for t in sorted({threshold, 0.1, 0.2, 0.3, 0.5, 0.7})]
    report = {"model": str(a.model), "questions": len(qs), "with_siblings": len(t_s), "max_tokens": a.max_tokens,
              "keep": a.keep, "threshold": round(threshold, 4), "auc_thin": auc(g_s, t_s),
              "auc_off_topic": auc(g_s, o_s),
              "rows": rows, "seconds": round(secs, 1)}
    print(json.dumps(report, indent=2))
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
