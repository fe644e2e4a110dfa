"""The retrieval harness end to end on a tiny real slice of PubMedQA (30 abstracts)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.evaluation import metrics as M
from clinqa.evaluation.datasets import load_dataset
from clinqa.evaluation.retrieval import docs_in_order, evaluate_retrieval
from clinqa.settings import Settings


def test_docs_in_order() -> None:
    assert docs_in_order(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


@pytest.fixture(scope="module")
def tiny(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = shared_dir / "pubmedqa"
    out = tmp_path_factory.mktemp("tiny-pubmedqa")
    qrels = {}
    with (src / "qrels" / "test.tsv").open() as fh:
        rows = list(csv.reader(fh, delimiter="\t"))[1:]
    for qid, did, grade in rows[:30]:
        qrels[qid] = (did, grade)
    docs = {d for d, _ in qrels.values()}
    with (src / "corpus.jsonl").open() as fh, (out / "corpus.jsonl").open("w") as w:
        for line in fh:
            if json.loads(line)["_id"] in docs:
                w.write(line)
    with (src / "queries.jsonl").open() as fh, (out / "queries.jsonl").open("w") as w:
        for line in fh:
            if json.loads(line)["_id"] in qrels:
                w.write(line)
    (out / "qrels").mkdir()
    with (out / "qrels" / "test.tsv").open("w") as w:
        w.write("query-id\tcorpus-id\tscore\n")
        for q, (d, g) in qrels.items():
            w.write(f"{q}\t{d}\t{g}\n")
    return out


def test_harness_on_tiny_slice(tiny: Path, tmp_path: Path) -> None:
    ds = load_dataset(tiny)
    assert len(ds.queries) == 30 and len(ds.qrels) == 30
    ev = evaluate_retrieval(ds, Settings(data_dir=tmp_path / "data"), depth=30, n_resamples=200, progress=False)
    assert ev.n_documents == 30 and ev.n_judged == 30
    hyb = ev.metrics["hybrid"]
    assert set(hyb) == set(M.METRICS)
    # a question about its own abstract among 30: retrieval must be nearly perfect
    assert hyb["Hit@10"]["value"] >= 0.9 and hyb["MRR@10"]["value"] >= 0.7
    lo, hi = hyb["MRR@10"]["ci95"]
    assert lo <= hyb["MRR@10"]["value"] <= hi
    # the harness's MRR@10 equals the one computed by hand from its own run
    rr = []
    for qid, rels in ds.qrels.items():
        (gold,) = rels  # one gold abstract per question
        ranked = ev.runs["hybrid"][qid][:10]
        rr.append(1 / (ranked.index(gold) + 1) if gold in ranked else 0.0)
    assert hyb["MRR@10"]["value"] == pytest.approx(sum(rr) / len(rr))
    # every fused document comes from one of the two lists, so the pool bounds Hit@10
    assert ev.pool_recall["value"] >= hyb["Hit@10"]["value"] - 1e-9


def test_cli_outputs_and_compare(tiny: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "out"
    args = ["eval", "retrieval", str(tiny), "--output", str(out), "--depth", "30", "--data-dir", str(tmp_path / "d")]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics) == set(M.METRICS)
    lines = (out / "run.trec").read_text().splitlines()
    _qid, q0, _docid, rank, _score, tag = lines[0].split()
    assert (q0, rank, tag) == ("Q0", "1", "clinqa-hybrid")
    with (out / "per_query.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 30
    assert metrics["Hit@10"] == pytest.approx(sum(float(r["Hit@10"]) for r in rows) / 30, abs=1e-6)
    r = runner.invoke(app, ["eval", "compare", str(out), str(out), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["MRR@10"]["diff"] == 0 and res["MRR@10"]["p_value"] == 1.0


def test_fusion_study_rules_share_one_pass() -> None:
    from clinqa.evaluation.datasets import Dataset, Query
    from clinqa.evaluation.fusion import RULES, apply_rule, fusion_study

    ds = Dataset("toy", Path("."), None, [Query("q1", "What is gout?"), Query("q2", "CKD and HbA1c targets")],
                 {"q1": {"A": 1}, "q2": {"B": 1}})
    pair = ([("a#0", "A", 0.8), ("b#0", "B", 0.6)], [("b#0", "B", 8.0), ("a#0", "A", 6.0)], [], {})
    lists = {"q1": pair, "q2": pair}
    rule = {r.name: r for r in RULES}
    alpha = rule["RRF k=60, dynamic alpha"]
    # q1 definitional -> dense 0.7: A = .7/61 + .3/62 = .016314 > B = .7/62 + .3/61 = .016208
    assert apply_rule(alpha, "What is gout?", *lists["q1"]) == ["A", "B"]
    # q2 two clinical terms -> BM25 0.7: B = .3/62 + .7/61 = .016314 > A = .016208
    assert apply_rule(alpha, "CKD and HbA1c targets", *lists["q2"]) == ["B", "A"]
    # convex, equal weights: A = 0.8/0.8 + 6/8 = 1.75 = B = 0.6/0.8 + 8/8: a tie at best rank 1, id order
    assert apply_rule(rule["convex, equal"], "What is gout?", *lists["q1"]) == ["A", "B"]
    # dense weight 0.3 / BM25 0.7 separates them: A = 0.3 + 0.525 = 0.825 < B = 0.225 + 0.7 = 0.925
    from clinqa.evaluation.fusion import FusionRule

    assert apply_rule(FusionRule("c", fusion="convex", weights=(0.3, 0.7)), "x", *lists["q1"]) == ["B", "A"]
    study = fusion_study(ds, lists, n_resamples=50)
    rows = {r["rule"]: r["metrics"]["MRR@10"]["value"] for r in study}
    assert rows["RRF k=60, dynamic alpha"] == 1.0
    assert rows["dense only"] == (1 + 0.5) / 2 and rows["BM25 only"] == (0.5 + 1) / 2
    # paired test against the first rule (convex, equal: A first for both queries, so MRR 0.75; equal RRF
    # ties A and B on 1/61 + 1/62 and also puts A first): dynamic alpha gains +0.25 (per query 0 and +0.5);
    # exact test over the 4 sign assignments: every |sum| is 0.5 >= observed 0.5 -> p = 4/4 = 1
    vs = {r["rule"]: r["vs_first"]["MRR@10"] for r in study}
    assert study[0]["rule"] == "convex, equal" and rows["convex, equal"] == 0.75
    assert vs["RRF k=60, equal"] == {"diff": 0.0, "p_value": 1.0}
    assert vs["RRF k=60, dynamic alpha"]["diff"] == 0.25 and vs["RRF k=60, dynamic alpha"]["p_value"] == 1.0


def test_model_comparison_on_tiny_slice(tiny: Path, tmp_path: Path) -> None:
    from clinqa.evaluation.models import compare_models

    ds = load_dataset(tiny)
    rows = compare_models(ds, Settings(data_dir=tmp_path / "d"), ["all-MiniLM-L6-v2-int8", "paraphrase-MiniLM-L3-v2"],
                          sample=32, progress=False)
    assert [(r["model"], r["run"]) for r in rows] == [
        ("all-MiniLM-L6-v2-int8", "dense"), ("all-MiniLM-L6-v2-int8", "hybrid"),
        ("paraphrase-MiniLM-L3-v2", "dense"), ("paraphrase-MiniLM-L3-v2", "hybrid"), ("BM25 alone", "bm25")]
    assert [r["max_tokens"] for r in rows[:4:2]] == [256, 128]
    assert all(r["chunks_per_s"] > 0 and r["tokens_per_s"] > r["chunks_per_s"] for r in rows[:4])
    assert all(0.5 <= r["Hit@10"]["value"] <= 1.0 for r in rows)


def test_chunking_comparison_on_tiny_slice(tiny: Path, tmp_path: Path) -> None:
    """Each row's counts equal what its chunker gives document by document (context loss computed
    without the shared per-document structure), and the store holds those chunks plus the overview
    chunks (one per document, none for fixed windows)."""
    from clinqa.chunking import build_chunker
    from clinqa.embedding import build_encoder
    from clinqa.evaluation.chunking import LossCounts, compare_chunking, context_loss
    from clinqa.settings import EmbeddingSettings

    ds = load_dataset(tiny)
    settings = Settings(data_dir=tmp_path / "d", embedding=EmbeddingSettings(model="all-MiniLM-L6-v2-int8"))
    strategies = {"fixed (40 words)": {"strategy": "fixed", "fixed_words": 40},
                  "hierarchical": {"strategy": "hierarchical"}}
    rows = compare_chunking(ds, settings, progress=False, strategies=strategies)
    assert [r["strategy"] for r in rows] == list(strategies)
    enc = build_encoder(settings.embedding)
    for row, over in zip(rows, strategies.values(), strict=True):
        chunker = build_chunker(settings.chunking.model_copy(update=over), enc.token_counter, enc.max_tokens)
        want, overviews = LossCounts(), 0
        for doc in ds.documents(ds.subset_ids(None, 0)):
            chunks = chunker.chunk(doc)
            want.add(context_loss(doc, chunks))
            overviews += sum(c.hierarchy_level == "document" for c in chunks)
        got = (row["chunks"], row["context_loss"], row["splits_paragraph"])
        assert got == (want.chunks, want.rate, want.splits_paragraph)
        assert row["store_chunks"] == want.chunks + overviews
        assert 0.0 < row["MRR@10"]["value"] <= 1.0
        assert overviews == (0 if over["strategy"] == "fixed" else len(ds.corpus_ids()))
    # paired test against the reference strategy (hierarchical): itself -> diff 0, p 1
    assert rows[1]["vs_reference"] == {"strategy": "hierarchical", "MRR@10": {"diff": 0.0, "p_value": 1.0},
                                       "Hit@10": {"diff": 0.0, "p_value": 1.0}}
    fixed_vs = rows[0]["vs_reference"]["MRR@10"]
    assert fixed_vs["diff"] == pytest.approx(rows[0]["MRR@10"]["value"] - rows[1]["MRR@10"]["value"])
    assert 0.0 < fixed_vs["p_value"] <= 1.0
    # 40-word windows cut sentences and paragraphs; hierarchical chunks of these short abstracts do not
    assert rows[0]["context_loss"] > 0.5 and rows[1]["context_loss"] < rows[0]["context_loss"]


def test_search_depth_is_per_call_and_the_encoder_is_shared(tiny_beir: Path, tmp_path: Path) -> None:
    from clinqa.evaluation.retrieval import build_eval_pipeline, run_searches

    ds = load_dataset(tiny_beir)
    settings = Settings(data_dir=tmp_path / "data", retrieval={"dense_k": 2, "bm25_k": 2})
    pipe, _, _ = build_eval_pipeline(ds, settings, None, 0, progress=False)
    from clinqa.pipeline import Pipeline

    assert Pipeline(settings, encoder=pipe.encoder).encoder is pipe.encoder  # handed over, not loaded again
    assert pipe.store.count() - pipe.store.level_counts().get("document", 0) >= 6
    q = ds.queries[0]
    shallow = pipe.search(q.text, k=1, rerank=False)
    assert len(shallow.dense) == 2 and len(shallow.bm25) <= 2
    deep = pipe.search(q.text, k=1, rerank=False, depth=6)
    assert len(deep.dense) == 6 and len(shallow.bm25) <= len(deep.bm25) <= 6
    lists, latencies = run_searches(pipe, ds.queries[:3], depth=6, progress=False)
    assert [len(lists[x.qid][0]) for x in ds.queries[:3]] == [6, 6, 6] and len(latencies) == 3
    # the pipeline's settings are untouched by the deeper searches
    assert (pipe.settings.retrieval.dense_k, pipe.settings.retrieval.bm25_k) == (2, 2)
    assert len(pipe.search(q.text, k=1, rerank=False).dense) == 2
