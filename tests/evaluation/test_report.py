"""The Markdown report renders every kind of evaluation output it finds."""

from __future__ import annotations

import json
from pathlib import Path

from clinqa.evaluation.metrics import METRICS
from clinqa.evaluation.report import ci, render


def m(v: float) -> dict:
    return {"value": v, "ci95": [v - 0.1, v + 0.05]}


def test_render(tmp_path: Path) -> None:
    assert ci(m(0.5)) == "0.500 [0.400, 0.550]"
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "report.json").write_text(json.dumps({
        "dataset": "toy", "n_documents": 3, "n_chunks": 9, "n_judged": 2, "n_queries": 3, "model_id": "x@1",
        "subset": {"distractors": 5, "seed": 0}, "latency_ms": {"p50": 10.0, "p95": 20.0},
        "pool_recall": {"depth": 30, **m(1.0)},
        "metrics": {"hybrid": {k: m(0.75) for k in METRICS}, "bm25": {k: m(0.25) for k in METRICS}}}))
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "fusion.json").write_text(json.dumps(
        [{"rule": "RRF k=60, equal", "metrics": {k: m(0.6) for k in METRICS}}]))
    (tmp_path / "f" / "refusal.json").write_text(json.dumps(
        {"chosen": {"threshold": 0.3612, "target_oos": 0.95, "rates": {"in_scope": 0.0, "out_of_scope": 0.952}}}))
    (tmp_path / "f" / "chunking.json").write_text(json.dumps([
        {"strategy": "section", "chunks": 12, "mean_words": 40.25, "context_loss": 0.125, "over_limit": 0.5,
         "MRR@10": m(0.5), "Hit@10": m(1.0),
         "vs_reference": {"strategy": "hierarchical", "MRR@10": {"diff": -0.25, "p_value": 0.5}}}]))
    md = render(tmp_path)
    assert "### Retrieval: toy" in md and "subset: judged + 5 distractors (seed 0)" in md
    assert "| MRR@10 | 0.750 [0.650, 0.800] | 0.250 [0.150, 0.300] |" in md
    assert "| RRF k=60, equal | 0.600 [0.500, 0.650]" in md
    assert "| strategy | chunks | mean words | context loss | over model limit | MRR@10 | Hit@10 | " \
           "MRR@10 vs hierarchical (paired p) |" in md
    assert ("| section | 12 | 40.2 | 12.5% | 50.0% | 0.500 [0.400, 0.550] | 1.000 [0.900, 1.050] | "
            "-0.250 (p 0.500) |") in md
    assert "Chosen threshold 0.361 (refuse >= 95% of out-of-scope): in_scope 0.0%, out_of_scope 95.2%." in md
    (tmp_path / "empty").mkdir()
    assert "No evaluation outputs" in render(tmp_path / "empty")
