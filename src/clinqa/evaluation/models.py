"""Embedding-model comparison: retrieval quality and encode throughput in one run.

For every encoder (a shipped alias or a local path, so users can add MedCPT or PubMedBERT
folders they have), the corpus is ingested into that model's own throwaway store and
evaluated with :func:`clinqa.evaluation.retrieval.evaluate_retrieval` (dense alone and
hybrid), then throughput is measured on the same ``sample`` chunk texts for every model,
in the same process: chunks/s and tokens/s (tokens counted by each model's own tokenizer,
special tokens included). BM25 alone is reported once (it does not depend on the encoder).
"""

from __future__ import annotations

import time
from typing import Any

from clinqa.evaluation.datasets import Dataset
from clinqa.evaluation.retrieval import build_eval_pipeline, evaluate_retrieval
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

COLUMNS = ("MRR@10", "P@1", "P@3", "P@5", "Hit@10")


def throughput(pipe: Pipeline, texts: list[str]) -> dict[str, float]:
    """Encode ``texts`` once (after a small warm-up) and return chunks/s and tokens/s."""
    enc = pipe.encoder
    enc.encode_passages(texts[:8])
    tokens = sum(enc.token_counter.count_many(texts))
    t0 = time.perf_counter()
    enc.encode_passages(texts)
    dt = time.perf_counter() - t0
    return {"chunks_per_s": len(texts) / dt, "tokens_per_s": tokens / dt, "seconds": dt}


def compare_models(dataset: Dataset, settings: Settings, models: list[str], distractors: int | None = None,
                   seed: int = 0, sample: int = 512, progress: bool = True) -> list[dict[str, Any]]:
    """One row per model (``dense`` and ``hybrid`` runs) plus one ``BM25 alone`` row."""
    rows: list[dict[str, Any]] = []
    texts: list[str] | None = None
    bm25_row: dict[str, Any] | None = None
    for model in models:
        s = settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"model": model})})
        pipe, _, _ = build_eval_pipeline(dataset, s, distractors, seed, progress)
        ev = evaluate_retrieval(dataset, s, seed=seed, progress=progress, pipe=pipe)
        if texts is None:  # the same sample of chunk texts for every model: the first model's chunks
            texts = pipe.store.sample_texts(sample)
        tp = throughput(pipe, texts)
        for run in ("dense", "hybrid"):
            rows.append({"model": model, "run": run, "model_id": ev.model_id, "dim": pipe.encoder.dim,
                         "max_tokens": pipe.encoder.max_tokens, **tp,
                         **{m: ev.metrics[run][m] for m in COLUMNS}})
        if bm25_row is None:
            bm25_row = {"model": "BM25 alone", "run": "bm25", "model_id": "", "dim": 0, "max_tokens": 0,
                        "chunks_per_s": None, "tokens_per_s": None, **{m: ev.metrics["bm25"][m] for m in COLUMNS}}
    if bm25_row:
        rows.append(bm25_row)
    return rows
