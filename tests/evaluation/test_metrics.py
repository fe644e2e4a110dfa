"""IR metrics core: hand-computed values, the four traps, a cross-check against ranx (an
independent implementation) on synthetic and real runs, bootstrap CIs, the paired randomization
test and the TREC/BEIR file formats."""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path

import ir_measures
import numpy as np
import pytest

from clinqa.evaluation import metrics as M

# ranx's numba kernels warn about an internal uint64 -> int64 cast; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")

TOL = 1e-9
LOG2_3 = math.log2(3)  # 1.5849625007211562
LOG2_5 = math.log2(5)  # 2.321928094887362

# ---------------------------------------------------------------------------------------------
# hand-computed values


def test_hand_computed_values_for_every_metric() -> None:
    qrels = {
        "q1": {"d1": 2, "d3": 1, "d7": 1, "d4": 0},  # 3 relevant (d4 judged non-relevant)
        "q2": {"e1": 1},
        "q3": {"g1": 1},  # not in the run -> 0 everywhere
        "q4": {"h1": 0},  # no relevant document -> excluded
    }
    run = {
        # ranks: d2=1 d1=2 d4=3 d3=4 d5=5 d6=6 d8=7 d9=8 d10=9 d11=10 d7=11
        "q1": ["d2", "d1", "d4", "d3", "d5", "d6", "d8", "d9", "d10", "d11", "d7"],
        # e1 at rank 11, just outside every @10 cut-off
        "q2": [f"f{i}" for i in range(1, 11)] + ["e1"],
        "q4": ["h1"],
        "q5": ["x"],  # not in the qrels -> ignored
    }
    got = M.evaluate(qrels, run)
    assert set(got) == {"q1", "q2", "q3"}
    assert all(set(v) == set(M.METRICS) for v in got.values())

    # q1: first relevant (d1) at rank 2 -> RR = 1/2
    # top1 = {d2}: 0 relevant; top3 = {d2,d1,d4}: 1; top5 = {.., d3, d5}: 2; top10: 2; top11+: 3
    # DCG@10 = 2/log2(2+1) + 1/log2(4+1)            (d1 grade 2 at rank 2, d3 grade 1 at rank 4)
    # IDCG@10 = 2/log2(2) + 1/log2(3) + 1/log2(4)  (grades 2,1,1 at ranks 1,2,3) = 2 + 0.6309.. + 0.5
    dcg = 2 / LOG2_3 + 1 / LOG2_5
    idcg = 2 / 1 + 1 / LOG2_3 + 1 / 2
    expected_q1 = {
        "MRR@10": 0.5,
        "P@1": 0.0,
        "P@3": 1 / 3,
        "P@5": 2 / 5,
        "Hit@1": 0.0,
        "Hit@3": 1.0,
        "Hit@5": 1.0,
        "Hit@10": 1.0,
        "Recall@10": 2 / 3,
        "Recall@30": 3 / 3,
        "Recall@100": 3 / 3,
        "nDCG@10": dcg / idcg,  # = (1.26186 + 0.43068) / 3.13093 = 0.54059
    }
    # q2: the only relevant doc at rank 11: 0 for every @1..@10 measure, found by @30 and @100
    expected_q2 = dict.fromkeys(M.METRICS, 0.0) | {"Recall@30": 1.0, "Recall@100": 1.0}
    expected_q3 = dict.fromkeys(M.METRICS, 0.0)
    for qid, expected in (("q1", expected_q1), ("q2", expected_q2), ("q3", expected_q3)):
        for name, value in expected.items():
            assert got[qid][name] == pytest.approx(value, abs=TOL), (qid, name)
    assert got["q1"]["nDCG@10"] == pytest.approx(0.5405858, abs=1e-7)

    means = M.mean(got)
    # MRR@10 mean over the 3 scored queries = (0.5 + 0 + 0) / 3; Recall@30 = (1 + 1 + 0) / 3
    assert means["MRR@10"] == pytest.approx(0.5 / 3, abs=TOL)
    assert means["Recall@30"] == pytest.approx(2 / 3, abs=TOL)
    assert means["nDCG@10"] == pytest.approx(dcg / idcg / 3, abs=TOL)


def test_short_run_precision_divides_by_k_and_other_cutoffs() -> None:
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": ["a", "b"]}  # only 2 documents returned
    got = M.evaluate(qrels, run, ["P@5", "Recall@1", "Recall@50", "MRR@1", "nDCG@1"])["q"]
    assert got["P@5"] == pytest.approx(2 / 5)  # trec_eval: relevant in top 5 / 5, not / 2
    assert got["Recall@1"] == pytest.approx(1 / 2)
    assert got["Recall@50"] == pytest.approx(1.0)
    assert got["MRR@1"] == pytest.approx(1.0)
    assert got["nDCG@1"] == pytest.approx(1.0)


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        M.evaluate({"q": {"a": 1}}, {"q": ["a"]}, ["MAP@10"])
    with pytest.raises(ValueError, match="unknown metric"):
        M.evaluate({"q": {"a": 1}}, {"q": ["a"]}, ["P@0"])
    with pytest.raises(ValueError, match="no metrics"):
        M.evaluate({"q": {"a": 1}}, {"q": ["a"]}, [])
    with pytest.raises(ValueError, match="integers"):
        M.evaluate({"q": {"a": 1.5}}, {"q": ["a"]})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        M.evaluate({"q": {"a": 1}}, {"q": "a"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        M.evaluate({"q": {"a": "1"}}, {"q": ["a"]})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        M.evaluate({"q": {1: 1}}, {"q": [1]})  # type: ignore[dict-item]
    assert M.evaluate({}, {"q": ["a"]}) == {}
    assert M.mean({}) == {}
    with pytest.raises(ValueError, match="metrics"):
        M.mean({"a": {"P@1": 1.0}, "b": {"P@3": 1.0}})


# ---------------------------------------------------------------------------------------------
# the four traps


def test_trap_duplicates_keep_the_first_occurrence() -> None:
    qrels = {"q1": {"r": 1}, "q2": {"r": 1, "s": 1}}
    # q1: after de-duplication [x, r]: r at rank 2 -> RR 1/2, P@3 = 1/3 (not r at rank 3 -> 1/3)
    # q2: [r, r, r, s] -> [r, s]: P@3 = 2/3, and r must not count three times (P@3 = 1 would be wrong)
    run = {"q1": ["x", "x", "r"], "q2": ["r", "r", "r", "s"]}
    got = M.evaluate(qrels, run, ["MRR@10", "P@1", "P@3", "Recall@10", "Hit@1"])
    assert got["q1"] == pytest.approx({"MRR@10": 0.5, "P@1": 0.0, "P@3": 1 / 3, "Recall@10": 1.0, "Hit@1": 0.0})
    assert got["q2"] == pytest.approx({"MRR@10": 1.0, "P@1": 1.0, "P@3": 2 / 3, "Recall@10": 1.0, "Hit@1": 1.0})
    assert got == M.evaluate(
        qrels, {"q1": ["x", "r"], "q2": ["r", "s"]}, ["MRR@10", "P@1", "P@3", "Recall@10", "Hit@1"]
    )
    # a relevant duplicate further down must not pull the first occurrence down
    got = M.evaluate({"q": {"r": 2}}, {"q": ["r", "a", "b", "r"]}, ["nDCG@10", "MRR@10"])["q"]
    assert got == pytest.approx({"nDCG@10": 1.0, "MRR@10": 1.0})
    assert M.dedupe(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


def test_trap_ties_the_list_order_is_the_ranking() -> None:
    qrels = {"q": {"a": 1}}
    # Why the score conversion is needed: with equal scores trec_eval orders by docid
    # descending ("b" before "a"), so the relevant "a" would land at rank 2.
    tied = list(ir_measures.pytrec_eval.iter_calc([ir_measures.P @ 1], qrels, {"q": {"a": 1.0, "b": 1.0}}))
    assert tied[0].value == 0.0
    # ...and the MS MARCO RR code orders ties by docid ascending: "a" would win, "z" would lose.
    tied_rr = list(ir_measures.msmarco.iter_calc([ir_measures.RR @ 10], {"q": {"z": 1}}, {"q": {"a": 1.0, "z": 1.0}}))
    assert tied_rr[0].value == 0.5
    # ours: list position decides, whatever the ids
    assert M.evaluate(qrels, {"q": ["a", "b"]}, ["P@1", "MRR@10"])["q"] == {"P@1": 1.0, "MRR@10": 1.0}
    assert M.evaluate({"q": {"z": 1}}, {"q": ["z", "a"]}, ["P@1", "MRR@10"])["q"] == {"P@1": 1.0, "MRR@10": 1.0}
    assert M.evaluate({"q": {"a": 1}}, {"q": ["b", "a"]}, ["P@1", "MRR@10"])["q"] == {"P@1": 0.0, "MRR@10": 0.5}
    # a long list (> 2^24 would break float32 scores; 5000 is plenty to catch off-by-one ranks)
    ids = [f"d{i:05d}" for i in range(5000)]
    got = M.evaluate({"q": {ids[4321]: 1}}, {"q": ids}, ["Recall@100", "MRR@10"])["q"]
    assert got == {"Recall@100": 0.0, "MRR@10": 0.0}
    got = M.evaluate({"q": {ids[6]: 1}}, {"q": list(reversed(ids[:7])) + ids[7:]}, ["MRR@10"])["q"]
    assert got["MRR@10"] == 1.0  # ids[6] is first after the reversal


def test_trap_query_set_no_relevant_excluded_missing_counts_zero() -> None:
    qrels = {
        "judged_nonrel": {"a": 0, "b": 0},  # only non-relevant judgments -> excluded
        "negative": {"a": -1},  # excluded too
        "empty": {},  # excluded
        "missing": {"a": 1},  # relevant docs, not in the run -> all 0
        "empty_list": {"a": 1},  # relevant docs, empty list -> all 0
        "ok": {"a": 1},
    }
    run = {"judged_nonrel": ["a", "b"], "negative": ["a"], "empty_list": [], "ok": ["a"], "extra": ["a"]}
    got = M.evaluate(qrels, run)
    assert set(got) == {"missing", "empty_list", "ok"}
    assert got["missing"] == dict.fromkeys(M.METRICS, 0.0)
    assert got["empty_list"] == dict.fromkeys(M.METRICS, 0.0)
    assert got["ok"]["MRR@10"] == 1.0
    # the mean is over the 3 scored queries: 1/3, not 1/5 (no-relevant queries averaged as 0)
    assert M.mean(got)["MRR@10"] == pytest.approx(1 / 3)
    # pytrec_eval itself would have kept the no-relevant query, scored 0
    lib = list(ir_measures.pytrec_eval.iter_calc([ir_measures.P @ 1], {"z": {"a": 0}}, {"z": {"a": 1.0}}))
    assert [(m.query_id, m.value) for m in lib] == [("z", 0.0)]


def test_trap_graded_relevance_in_ndcg() -> None:
    qrels = {"q": {"a": 2, "b": 1}}
    # grades 2 and 1 at ranks 1 and 3:
    # DCG = 2/log2(2) + 1/log2(4) = 2 + 0.5 = 2.5
    # IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.6309297535714575 = 2.6309297535714575
    # nDCG = 2.5 / 2.6309297535714575 = 0.9502344167898356
    best_first = M.evaluate(qrels, {"q": ["a", "x", "b"]}, ["nDCG@10"])["q"]["nDCG@10"]
    assert best_first == pytest.approx(2.5 / (2 + 1 / LOG2_3), abs=TOL)
    assert best_first == pytest.approx(0.9502344167898356, abs=TOL)
    # swapped: DCG = 1/1 + 2/log2(4) = 2.0 -> 2.0 / 2.6309... = 0.7601874...
    swapped = M.evaluate(qrels, {"q": ["b", "x", "a"]}, ["nDCG@10"])["q"]["nDCG@10"]
    assert swapped == pytest.approx(2.0 / (2 + 1 / LOG2_3), abs=TOL)
    # binarised labels would score both orders alike: (1 + 1/2) / (1 + 1/log2(3)) = 0.9197...
    binary = M.evaluate({"q": {"a": 1, "b": 1}}, {"q": ["a", "x", "b"]}, ["nDCG@10"])["q"]["nDCG@10"]
    assert binary == pytest.approx(1.5 / (1 + 1 / LOG2_3), abs=TOL)
    assert len({round(v, 9) for v in (best_first, swapped, binary)}) == 3
    # gain = grade (trec_eval / Järvelin), not 2^grade - 1 (Burges): that would be 3.5 / 3.6309...
    assert best_first != pytest.approx((3 + 1 / 2) / (3 + 1 / LOG2_3), abs=1e-6)


# ---------------------------------------------------------------------------------------------
# cross-check against ranx

_RANX_NAMES = {"MRR": "mrr", "P": "precision", "Hit": "hit_rate", "Recall": "recall", "nDCG": "ndcg"}


@pytest.fixture(scope="module")
def ranx():  # type: ignore[no-untyped-def]
    # ranx compiles numba kernels on first use (cached in its __pycache__ afterwards)
    return pytest.importorskip("ranx")


def _ranx_per_query(ranx, qrels: M.Qrels, run: M.Run, metrics=M.METRICS) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    """ranx's per-query values, fed the same way: dedupe (own code), scores n - i, only queries
    with a relevant doc. Queries without results are not handed to ranx (its ``make_comparable``
    would do it, but compiles numba typed-dict code for ~10 s in every process): they score 0."""
    scored = {q: judged for q, judged in qrels.items() if any(g >= 1 for g in judged.values())}
    lists: dict[str, dict[str, float]] = {}
    for qid in scored:
        seen: list[str] = []
        for docid in run.get(qid, []):
            if docid not in seen:
                seen.append(docid)
        if seen:
            lists[qid] = {docid: float(len(seen) - i) for i, docid in enumerate(seen)}
    ranx_qrels = ranx.Qrels({q: dict(scored[q]) for q in lists})
    ranx_run = ranx.Run(lists)
    names = {}
    for name in metrics:
        family, k = re.fullmatch(r"(\w+)@(\d+)", name).groups()  # type: ignore[union-attr]
        names[f"{_RANX_NAMES[family]}@{k}"] = name
    ranx.evaluate(ranx_qrels, ranx_run, list(names), threads=1, save_results_in_run=True)
    zeros = dict.fromkeys(names.values(), 0.0)
    return {
        q: {ours: float(ranx_run.scores[theirs][q]) for theirs, ours in names.items()} if q in lists else zeros
        for q in scored
    }


def _assert_agree(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> None:
    assert set(ours) == set(theirs)
    worst = max(abs(ours[q][m] - theirs[q][m]) for q in ours for m in ours[q])
    assert worst < TOL, worst


def test_cross_check_ranx_synthetic(ranx) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(20240517)
    pool = [f"d{i:03d}" for i in range(150)]
    qrels: M.Qrels = {}
    run: M.Run = {}
    for i in range(200):
        qid = f"q{i:03d}"
        judged = rng.sample(pool, rng.randint(0, 8))
        qrels[qid] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}  # graded, some judged non-relevant
        if rng.random() < 0.1:
            continue  # query absent from the run
        ranking = rng.sample(pool, rng.randint(0, 150))
        # pull a few judged documents to the top so the cut-offs are exercised
        for d in judged:
            if rng.random() < 0.5:
                if d in ranking:
                    ranking.remove(d)
                ranking.insert(rng.randint(0, min(12, len(ranking))), d)
        for _ in range(rng.randint(0, 5)):  # duplicates (as from a fused list)
            if ranking:
                ranking.insert(rng.randint(0, len(ranking)), rng.choice(ranking))
        run[qid] = ranking
    run["not_judged"] = pool[:10]

    ours = M.evaluate(qrels, run)
    theirs = _ranx_per_query(ranx, qrels, run)
    # the data really cover the cases: excluded queries, missing queries, hits at every depth
    assert 150 < len(ours) < 200
    assert any(q not in run for q in ours)
    assert sum(v["Hit@1"] for v in ours.values()) > 20
    assert any(0 < v["nDCG@10"] < 1 for v in ours.values())
    _assert_agree(ours, theirs)
    for name, value in M.mean(ours).items():
        assert value == pytest.approx(M.mean(theirs)[name], abs=TOL)


def _tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", text.lower()) if len(t) > 2}


def _overlap_run(
    queries: dict[str, str], docs: dict[str, str], depth: int = 100, noise: float = 0.0, seed: int = 0
) -> M.Run:
    """Deterministic, model-free ranking: idf-weighted token overlap (+ optional seeded noise)."""
    doc_ids = sorted(docs)
    postings: dict[str, list[int]] = {}
    for j, docid in enumerate(doc_ids):
        for tok in _tokens(docs[docid]):
            postings.setdefault(tok, []).append(j)
    n = len(doc_ids)
    idf = {tok: math.log((n + 1) / (len(p) + 0.5)) for tok, p in postings.items()}
    rng = np.random.default_rng(seed)
    run: M.Run = {}
    for qid in sorted(queries):
        scores = np.zeros(n)
        for tok in _tokens(queries[qid]):
            if tok in postings:
                scores[postings[tok]] += idf[tok]
        if noise:
            scores += rng.normal(0.0, noise, n)
        order = np.lexsort((np.arange(n), -scores))[:depth]  # ties: by docid (sorted ids)
        run[qid] = [doc_ids[j] for j in order]
    return run


def _read_jsonl(path: Path) -> list[dict]:  # type: ignore[type-arg]
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_cross_check_ranx_pubmedqa(ranx, shared_dir: Path) -> None:  # type: ignore[no-untyped-def]
    base = shared_dir / "pubmedqa"
    qrels = M.read_qrels(base / "qrels" / "test.tsv")
    queries = {q["_id"]: q["text"] for q in _read_jsonl(base / "queries.jsonl")}
    docs = {d["_id"]: d["text"] for d in _read_jsonl(base / "corpus.jsonl")}
    assert len(qrels) == 500 and len(docs) == 1000
    # noise spreads the gold document over many ranks (the clean overlap ranking is too easy)
    run = _overlap_run(queries, docs, depth=100, noise=6.0, seed=7)
    for qid in sorted(run)[::25]:  # some fused-list style duplicates
        run[qid] = run[qid][:5] + run[qid][:3] + run[qid][5:]
    del run[sorted(run)[0]]  # one query without results

    ours = M.evaluate(qrels, run)
    ranks = Counter(next((i + 1 for i, d in enumerate(M.dedupe(run.get(q, []))) if d in qrels[q]), None) for q in qrels)
    assert ranks[1] > 50 and sum(c for r, c in ranks.items() if r and 2 <= r <= 10) > 50
    assert sum(c for r, c in ranks.items() if r is None or r > 10) > 20
    _assert_agree(ours, _ranx_per_query(ranx, qrels, run))


def test_cross_check_ranx_liveqa_graded(ranx, shared_dir: Path) -> None:  # type: ignore[no-untyped-def]
    base = shared_dir / "liveqa-medquad"
    qrels = M.read_qrels(base / "qrels" / "test.tsv")
    judged = M.read_qrels(base / "qrels" / "all_judgments.tsv")  # raw grades 1-4: only for the pool
    queries = {q["_id"]: q["text"] for q in _read_jsonl(base / "queries.jsonl")}
    pool = {d for j in judged.values() for d in j}
    docs: dict[str, str] = {}
    with (base / "corpus.jsonl").open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            doc = json.loads(line)
            if i < 300 or doc["_id"] in pool:  # judged docs plus a slice of unjudged distractors
                docs[doc["_id"]] = doc["title"] + "\n" + doc["text"]
    run = _overlap_run(queries, docs, depth=100)

    ours = M.evaluate(qrels, run)
    assert len(ours) == 39  # the answerable queries
    assert any(0 < v["nDCG@10"] < 1 for v in ours.values())
    assert sum(v["Hit@10"] for v in ours.values()) >= 5
    _assert_agree(ours, _ranx_per_query(ranx, qrels, run))


# ---------------------------------------------------------------------------------------------
# bootstrap


def test_bootstrap_ci_basic_properties() -> None:
    rng = np.random.default_rng(1)
    values = {f"q{i}": float(v) for i, v in enumerate(rng.uniform(0, 1, 100))}
    mean_value = sum(values.values()) / len(values)
    lo, hi = M.bootstrap_ci(values, seed=3)
    assert lo < mean_value < hi
    assert (lo, hi) == M.bootstrap_ci(values, seed=3)  # deterministic
    assert (lo, hi) == M.bootstrap_ci(dict(reversed(values.items())), seed=3)  # dict order irrelevant
    assert (lo, hi) != M.bootstrap_ci(values, seed=4)
    # width close to the normal approximation 2 * 1.96 * sd / sqrt(n)
    sd = float(np.std(list(values.values()), ddof=1))
    assert hi - lo == pytest.approx(2 * 1.96 * sd / 10, rel=0.15)
    lo90, hi90 = M.bootstrap_ci(values, confidence=0.9, seed=3)
    assert lo < lo90 < hi90 < hi
    # one cluster per query = the naive bootstrap (same draws)
    assert M.bootstrap_ci(values, {q: q for q in values}, seed=3) == pytest.approx((lo, hi), abs=1e-12)


def test_bootstrap_ci_cluster_is_wider_for_correlated_queries() -> None:
    rng = np.random.default_rng(2)
    values: dict[str, float] = {}
    clusters: dict[str, str] = {}
    for c, v in enumerate(rng.uniform(0, 1, 20)):  # 20 clusters of 5 identical queries
        for j in range(5):
            values[f"c{c}-q{j}"] = float(v)
            clusters[f"c{c}-q{j}"] = f"doc{c}"
    naive = M.bootstrap_ci(values, seed=0)
    clustered = M.bootstrap_ci(values, clusters, seed=0)
    mean_value = sum(values.values()) / len(values)
    assert clustered[0] < mean_value < clustered[1]
    # 100 "independent" queries vs 20 real ones: about sqrt(5) = 2.2 times wider
    ratio = (clustered[1] - clustered[0]) / (naive[1] - naive[0])
    assert 1.7 < ratio < 2.9, ratio


def test_bootstrap_ci_degenerate_and_errors() -> None:
    values = dict.fromkeys(("a", "b", "c"), 0.1)
    assert M.bootstrap_ci(values) == (0.1, 0.1)
    assert M.bootstrap_ci(values, {"a": "x", "b": "x", "c": "y"}) == (0.1, 0.1)
    assert M.bootstrap_ci({"a": 0.7}) == (0.7, 0.7)
    with pytest.raises(ValueError):
        M.bootstrap_ci({})
    with pytest.raises(ValueError, match="cluster"):
        M.bootstrap_ci({"a": 0.0, "b": 1.0}, {"a": "x"})
    with pytest.raises(ValueError):
        M.bootstrap_ci({"a": 0.0, "b": 1.0}, confidence=1.0)
    with pytest.raises(ValueError):
        M.bootstrap_ci({"a": 0.0, "b": float("nan")})


# ---------------------------------------------------------------------------------------------
# paired randomization test


def test_paired_test_identical_runs() -> None:
    rng = np.random.default_rng(5)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.uniform(0, 1, 50))}
    result = M.paired_test(a, dict(a))
    assert result["p_value"] == 1.0
    assert result["diff"] == 0.0
    assert result["n"] == 50
    assert result["mean_a"] == result["mean_b"]


def test_paired_test_clearly_better_run() -> None:
    from scipy import stats

    rng = np.random.default_rng(6)
    b_values = rng.uniform(0, 0.6, 50)
    a_values = np.clip(b_values + 0.15 + rng.normal(0, 0.1, 50), 0, 1)
    a = {f"q{i}": float(v) for i, v in enumerate(a_values)}
    b = {f"q{i}": float(v) for i, v in enumerate(b_values)}
    b["only_in_b"] = 0.0  # not paired -> ignored
    result = M.paired_test(a, b)
    assert result["n"] == 50
    assert result["diff"] == pytest.approx(float(np.mean(a_values - b_values)))
    assert result["diff"] > 0.1
    assert result["p_value"] < 0.01
    assert result["p_value"] == pytest.approx(1 / 10001)  # no flipped assignment reaches it
    # sanity, direction only: the paired t-test agrees that A is better
    t = stats.ttest_rel(a_values, b_values)
    assert t.statistic > 0 and t.pvalue < 0.01
    assert M.paired_test(b, a)["diff"] == pytest.approx(-result["diff"])
    assert M.paired_test(a, b) == result  # seeded


def test_paired_test_small_effect_and_exact_enumeration() -> None:
    from scipy import stats

    # exact: n = 3, d = (1, 1, 1): |mean| >= 1 only for all + or all - -> p = 2/8
    result = M.paired_test({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 0.0, "b": 0.0, "c": 0.0})
    assert result["p_value"] == 0.25 and result["diff"] == 1.0
    # d = (1, -1, 0, 2), observed sum 2; a flip gives s1 - s2 + 2*s4 (the 0 doubles every case):
    # (s1,s2,s4) = (+,+,+): 2  (+,-,+): 4  (-,+,+): 0  (-,-,+): 2  and the mirrors -2 -4 0 -2
    # -> |sum| >= 2 in 6 of 8 -> p = 12/16 = 0.75
    result = M.paired_test({"a": 1.0, "b": 0.0, "c": 0.5, "d": 2.0}, {"a": 0.0, "b": 1.0, "c": 0.5, "d": 0.0})
    assert result["p_value"] == pytest.approx(0.75)
    # a weak effect: not significant, and roughly in line with the t-test
    rng = np.random.default_rng(8)
    b_values = rng.uniform(0, 1, 40)
    a_values = b_values + rng.normal(0.02, 0.3, 40)
    a = {f"q{i}": float(v) for i, v in enumerate(a_values)}
    b = {f"q{i}": float(v) for i, v in enumerate(b_values)}
    p = M.paired_test(a, b)["p_value"]
    assert p > 0.05
    assert p == pytest.approx(stats.ttest_rel(a_values, b_values).pvalue, abs=0.1)
    with pytest.raises(ValueError, match="common"):
        M.paired_test({"a": 1.0}, {"b": 1.0})


# ---------------------------------------------------------------------------------------------
# file formats


def test_trec_run_round_trip(tmp_path: Path) -> None:
    run = {"q2": ["d3", "d1", "d3", "d2"], "q1": ["d9"], "q10": [f"x{i}" for i in range(12)]}
    path = tmp_path / "run.trec"
    M.write_trec_run(run, path, tag="clinqa-test")
    lines = path.read_text().splitlines()
    assert lines[0] == "q1 Q0 d9 1 1.0 clinqa-test"
    assert lines[1:4] == [
        "q10 Q0 x0 1 1.0 clinqa-test",
        "q10 Q0 x1 2 0.5 clinqa-test",
        "q10 Q0 x2 3 " + repr(1 / 3) + " clinqa-test",
    ]
    assert [ln.split()[2:4] for ln in lines if ln.startswith("q2 ")] == [["d3", "1"], ["d1", "2"], ["d2", "3"]]
    back = M.read_trec_run(path)
    assert back == {qid: M.dedupe(docs) for qid, docs in run.items()}
    # trec_eval (through ir-measures' own reader) sees the same ranking: the same values
    qrels = {"q1": {"d9": 1}, "q2": {"d1": 2, "d2": 1}, "q10": {"x11": 1, "x3": 1}}
    ours = M.evaluate(qrels, run)
    lib = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(
            [ir_measures.nDCG @ 10, ir_measures.P @ 3], qrels, ir_measures.read_trec_run(str(path))
        )
    }
    for qid in qrels:
        assert ours[qid]["nDCG@10"] == pytest.approx(lib[(qid, "nDCG@10")], abs=TOL)
        assert ours[qid]["P@3"] == pytest.approx(lib[(qid, "P@3")], abs=TOL)

    # given scores (aligned with the list before de-duplication)
    M.write_trec_run(run, path, tag="t", scores={"q1": [0.9], "q2": [3.0, 2.5, 2.5, 1.0], "q10": [1.0] * 12})
    text = path.read_text()
    assert "q2 Q0 d1 2 2.5 t" in text and "q2 Q0 d2 3 1.0 t" in text
    assert M.read_trec_run(path) == back  # equal scores keep the rank order


def test_trec_run_errors_and_tie_order(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    with pytest.raises(ValueError, match="whitespace"):
        M.write_trec_run({"q": ["a b"]}, path, tag="t")
    with pytest.raises(ValueError, match="whitespace"):
        M.write_trec_run({"q": ["a"]}, path, tag="my tag")
    with pytest.raises(ValueError, match="increase"):
        M.write_trec_run({"q": ["a", "b"]}, path, tag="t", scores={"q": [1.0, 2.0]})
    with pytest.raises(ValueError, match="scores for"):
        M.write_trec_run({"q": ["a", "b"]}, path, tag="t", scores={"q": [1.0]})
    # a foreign file: ordered by score, ties by the rank column
    path.write_text("q Q0 c 3 0.5 x\nq Q0 a 2 0.5 x\nq Q0 b 1 0.9 x\n\nr Q0 z 1 -1 x\n")
    assert M.read_trec_run(path) == {"q": ["b", "a", "c"], "r": ["z"]}
    path.write_text("q Q0 a 1 0.5\n")
    with pytest.raises(ValueError, match=":1:"):
        M.read_trec_run(path)


def test_read_qrels_formats(tmp_path: Path) -> None:
    beir = tmp_path / "beir.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\nq1\td 1\t2\nq1\td2\t1\nq2\td1\t0\nq1\td2\t2\n")
    assert M.read_qrels(beir) == {"q1": {"d 1": 2, "d2": 2}, "q2": {"d1": 0}}  # repeat: highest grade
    trec = tmp_path / "qrels.txt"
    trec.write_text("401 0 FBIS3-10082 1\n401 0 FBIS3-10169 0\n402 0 LA010189-0003 2.0\n")
    assert M.read_qrels(trec) == {"401": {"FBIS3-10082": 1, "FBIS3-10169": 0}, "402": {"LA010189-0003": 2}}
    bad = tmp_path / "bad.tsv"
    bad.write_text("query-id\tcorpus-id\tscore\nq1\td1\n")
    with pytest.raises(ValueError, match=":2:"):
        M.read_qrels(bad)
    bad.write_text("q1\td1\t0.5\n")
    with pytest.raises(ValueError, match="integer"):
        M.read_qrels(bad)


def test_read_qrels_real_liveqa(shared_dir: Path) -> None:
    qrels = M.read_qrels(shared_dir / "liveqa-medquad" / "qrels" / "test.tsv")
    # README: 174 lines; 4-Excellent -> 2 (54), 3-Incomplete -> 1 (120); 52 questions of which
    # 13 are no_answer (no line) -> 39 queries
    assert sum(len(j) for j in qrels.values()) == 174
    assert len(qrels) == 39
    assert Counter(g for j in qrels.values() for g in j.values()) == {1: 120, 2: 54}
    assert qrels["TQ1"]["ADAM_0002818_Sec1"] == 1
