"""Evaluation harness: IR metrics, confidence intervals and significance tests (``metrics``)."""

from clinqa.evaluation.metrics import (
    METRICS,
    Qrels,
    Run,
    bootstrap_ci,
    evaluate,
    mean,
    paired_test,
    read_qrels,
    read_trec_run,
    write_trec_run,
)

__all__ = [
    "METRICS",
    "Qrels",
    "Run",
    "bootstrap_ci",
    "evaluate",
    "mean",
    "paired_test",
    "read_qrels",
    "read_trec_run",
    "write_trec_run",
]
