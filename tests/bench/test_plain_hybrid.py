"""The plain-hybrid reference baseline (bench/baselines/plain_hybrid.py) on a hand-made corpus.

Five documents, two questions; BM25 scores, RRF scores and metric values computed by hand.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from clinqa.evaluation.datasets import load_dataset

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "baselines" / "plain_hybrid.py"

DOCS = [
    ("d1", "Atrial fibrillation", "Anticoagulation with apixaban prevents stroke in atrial fibrillation."),
    ("d2", "Asthma", "Inhaled corticosteroids control asthma symptoms in children."),
    ("d3", "Gout", "Allopurinol reduces uric acid in gout."),
    ("d4", "Hypertension", "Thiazide diuretics reduce blood pressure."),
    ("d5", "Migraine", "Triptans relieve migraine headache attacks."),
]
QUERIES = [("q1", "prevents stroke atrial fibrillation"), ("q2", "asthma children")]
# q2 has a second relevant document that shares no word with it
QRELS = [("q1", "d1", 1), ("q2", "d2", 1), ("q2", "d3", 1)]


def _module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_plain_hybrid", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ph():  # type: ignore[no-untyped-def]
    return _module()


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": t, "text": x, "metadata": {}}) + "\n"
                                               for i, t, x in DOCS))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in QUERIES))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                             + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in QRELS))
    return root


def test_rrf_by_hand(ph) -> None:  # type: ignore[no-untyped-def]
    fused = ph.rrf([["a", "b", "c"], ["c", "a"]], k=60)
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62
    assert [d for d, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62, abs=1e-12)
    assert fused[1][1] == pytest.approx(1 / 63 + 1 / 61, abs=1e-12)
    assert fused[2][1] == pytest.approx(1 / 62, abs=1e-12)
    # equal scores break on the document id
    assert [d for d, _ in ph.rrf([["y"], ["x"]])] == ["x", "y"]


def test_document_text_is_title_space_text(ph, tiny: Path) -> None:  # type: ignore[no-untyped-def]
    ids, texts = ph.read_corpus(tiny / "corpus.jsonl", {"d2", "d5"})
    assert ids == ["d2", "d5"]
    assert texts == ["Asthma Inhaled corticosteroids control asthma symptoms in children.",
                     "Migraine Triptans relieve migraine headache attacks."]


def test_bad_corpus_line_names_file_and_line(ph, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "corpus.jsonl"
    bad.write_text('{"_id": "a", "text": "x"}\n{"_id": "b"}\n')
    with pytest.raises(Exception, match=r"corpus.jsonl: line 2: not a BEIR corpus record"):
        ph.read_corpus(bad)


def test_bm25_scores_by_hand(ph, tiny: Path) -> None:  # type: ignore[no-untyped-def]
    ids, texts = ph.read_corpus(tiny / "corpus.jsonl")
    lists = ph.bm25_lists(ids, texts, dict(QUERIES), depth=5)
    # Lucene BM25 (bm25s default), k1 = 1.5, b = 0.75, stopwords "with", "in" removed.
    # lengths: d1 8 (atrial x2, fibrillation x2, anticoagulation, apixaban, prevents, stroke),
    # d2 7, d3 6, d4 6, d5 6 -> avgdl 6.6. Every query term is in one document: idf = ln(1 + 4.5/1.5) = ln 4.
    norm1 = 1.5 * (0.25 + 0.75 * 8 / 6.6)
    q1 = math.log(4) * (2 * 2 / (2 + norm1) + 2 * 1 / (1 + norm1))
    assert [d for d, _ in lists["q1"]] == ["d1"]  # documents without a query term are not retrieved
    assert lists["q1"][0][1] == pytest.approx(q1, rel=1e-5)  # 2.49561
    norm2 = 1.5 * (0.25 + 0.75 * 7 / 6.6)
    q2 = math.log(4) * (2 / (2 + norm2) + 1 / (1 + norm2))
    assert [d for d, _ in lists["q2"]] == ["d2"]
    assert lists["q2"][0][1] == pytest.approx(q2, rel=1e-5)


def test_whole_baseline_on_tiny_corpus(ph, tiny: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ds = load_dataset(tiny)
    cache = tmp_path / "cache"
    runs, info = ph.run_baseline(ds, cache_root=cache)
    assert info["documents"] == 5 and info["judged_queries"] == 2 and info["depth"] == 5
    for q in ("q1", "q2"):
        dense = [d for d, _ in runs["dense"][q]]
        assert sorted(dense) == ["d1", "d2", "d3", "d4", "d5"]  # every document, cosine order
        assert dense[0] == {"q1": "d1", "q2": "d2"}[q]  # the one on-topic document is nearest
        hybrid = runs["hybrid"][q]
        # top document: rank 1 in both lists -> 1/61 + 1/61; the rest have dense rank r only -> 1/(60 + r)
        assert hybrid[0] == (dense[0], pytest.approx(2 / 61, abs=1e-12))
        assert [d for d, _ in hybrid[1:]] == dense[1:]
        assert [s for _, s in hybrid[1:]] == pytest.approx([1 / 62, 1 / 63, 1 / 64, 1 / 65], abs=1e-12)

    rep = ph.report(ds, runs, n_resamples=200, n_permutations=200)
    bm25 = rep["per_query"]["bm25"]
    # q1: d1 at rank 1 -> 1.0; q2: d2 at rank 1, d3 not retrieved -> DCG 1, ideal 1 + 1/log2(3)
    assert bm25["mrr@10"] == {"q1": 1.0, "q2": 1.0}
    assert bm25["ndcg@10"]["q1"] == pytest.approx(1.0)
    assert bm25["ndcg@10"]["q2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-6)  # 0.6131
    assert rep["metrics"]["bm25"]["nDCG@10"]["value"] == pytest.approx((1 + 1 / (1 + 1 / math.log2(3))) / 2,
                                                                        abs=1e-6)
    # in the hybrid run d3 is somewhere in ranks 2..5 of q2: nDCG@10 = (1 + 1/log2(r+1)) / (1 + 1/log2(3))
    r3 = [d for d, _ in runs["hybrid"]["q2"]].index("d3") + 1
    want = (1 + 1 / math.log2(r3 + 1)) / (1 + 1 / math.log2(3))
    assert rep["per_query"]["hybrid"]["ndcg@10"]["q2"] == pytest.approx(want, abs=1e-6)
    assert set(rep["p_vs_plain_hybrid"]) == {"bm25", "dense"}

    # the document vectors were cached (5 rows) and a second run reads them back unchanged
    (folder,) = cache.iterdir()
    assert np.load(folder / "vectors.npy").shape == (5, 384)
    assert json.loads((folder / "ids.json").read_text()) == ["d1", "d2", "d3", "d4", "d5"]
    again, _ = ph.run_baseline(ds, cache_root=cache)
    assert again["dense"] == runs["dense"]


def test_script_writes_runs_and_table(ph, tiny: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    clinqa_run = tmp_path / "clinqa.trec"
    # a "clinqa" run that puts the gold last for q1 (rank 3: RR 1/3) and first for q2
    clinqa_run.write_text("q1 Q0 d4 1 3 x\nq1 Q0 d5 2 2 x\nq1 Q0 d1 3 1 x\nq2 Q0 d2 1 1 x\n")
    assert ph.main([str(tiny), "--output", str(out), "--clinqa", str(clinqa_run),
                    "--cache-dir", str(tmp_path / "c")]) == 0
    rep = json.loads((out / "report.json").read_text())
    assert rep["metrics"]["clinqa"]["MRR@10"]["value"] == pytest.approx((1 / 3 + 1) / 2)
    assert (out / "run.hybrid.trec").read_text().splitlines()[0].startswith("q1 Q0 d1 1 ")
    table = (out / "table.md").read_text()
    assert "| clinqa default | 0.667 [" in table and "| plain hybrid | 1.000 [1.000, 1.000]" in table


def test_document_list_as_third_rrf_list_by_hand() -> None:
    spec = importlib.util.spec_from_file_location("bench_section_list", SCRIPT.parent / "section_list.py")
    assert spec and spec.loader
    sl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sl)
    dense = [("a#1", "a"), ("b#1", "b")]
    bm25 = [("b#1", "b"), ("c#1", "c")]
    # chunks: a 1/61, b 1/61 + 1/62, c 1/62; document list [d, c]: c + 1/62 -> 2/62 = 0.032258,
    # d enters alone with 1/61 (ties a at 1/61: id order)
    assert sl.three_list_docs(dense, bm25, ["d", "c"], 1.0, 1.0, 60) == ["b", "c", "a", "d"]
    # without the document list clinqa's order is b (0.032522), a (0.016393), c (0.016129)
    assert sl.three_list_docs(dense, bm25, [], 1.0, 1.0, 60) == ["b", "a", "c"]
