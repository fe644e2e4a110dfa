"""Refusal-gate calibration on questions labelled in_scope / thin / out_of_scope.

For every question the gate's signal is recorded under the production filters: the top-1
dense cosine similarity, or the top reranker score (``answer.gate_signal``; see
:mod:`clinqa.answer.gate`). A threshold ``t`` refuses a question when ``signal < t``. Sweeping ``t``
gives the refusal rate per bucket; the chosen threshold is the smallest ``t`` that refuses at
least ``target_oos`` of out-of-scope questions, reported with the in-scope refusal it costs
(the target is met only when that is <= ``max_in_scope``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from clinqa.answer.gate import gate_signal
from clinqa.evaluation.datasets import Dataset
from clinqa.pipeline import Pipeline


@dataclass
class RefusalCalibration:
    """Signals per question, the threshold sweep and the chosen threshold."""

    signals: dict[str, float]
    buckets: dict[str, str]
    thresholds: list[float]
    rates: dict[str, list[float]]  # bucket -> refusal rate at each threshold
    chosen: dict[str, Any]
    signal: str = "dense_cosine"
    model_id: str = ""

    def summary(self) -> dict[str, Any]:
        """JSON-ready report (signals included, per question)."""
        return dict(self.__dict__)


def refusal_rates(
    signals: dict[str, float], buckets: dict[str, str], thresholds: list[float]
) -> dict[str, list[float]]:
    """Share of each bucket's questions with ``signal < t``, for each ``t`` in ``thresholds``."""
    out: dict[str, list[float]] = {}
    for b in sorted(set(buckets.values())):
        vals = np.array([signals[q] for q in signals if buckets[q] == b])
        out[b] = [float((vals < t).mean()) if len(vals) else 0.0 for t in thresholds]
    return out


def choose_threshold(signals: dict[str, float], buckets: dict[str, str], target_oos: float = 0.95,
                     max_in_scope: float = 0.05) -> dict[str, Any]:
    """Smallest threshold refusing >= ``target_oos`` of ``out_of_scope`` questions.

    Candidate thresholds are the observed signals plus 1e-6, rounded up to 4 decimals, so the
    result is exact for the sample. Returns the threshold, the refusal rate of every bucket at it, and whether
    ``max_in_scope`` holds.
    """
    oos = sorted(signals[q] for q in signals if buckets[q] == "out_of_scope")
    if not oos:
        raise ValueError("no out_of_scope questions to calibrate on")
    candidates = sorted({s + 1e-6 for s in signals.values()} | {0.0})
    chosen = candidates[-1]
    for t in candidates:
        if np.mean([s < t for s in oos]) >= target_oos:
            chosen = t
            break
    chosen = math.ceil(chosen * 1e4) / 1e4  # a readable value that still refuses the same questions
    rates = {b: r[0] for b, r in refusal_rates(signals, buckets, [chosen]).items()}
    return {"threshold": chosen, "target_oos": target_oos, "max_in_scope": max_in_scope,
            "rates": rates, "meets_target": rates.get("in_scope", 0.0) <= max_in_scope}


def calibrate(dataset: Dataset, pipe: Pipeline, progress: bool = True, step: float = 0.01,
              target_oos: float = 0.95, max_in_scope: float = 0.05) -> RefusalCalibration:
    """Record the gate signal (``pipe.settings.answer.gate_signal``) of every query and sweep
    thresholds 0..1 by ``step``. A question with no hit gets signal -1."""
    signal = pipe.settings.answer.gate_signal
    filters = pipe.filters()
    qs = dataset.queries
    signals: dict[str, float] = {}
    buckets: dict[str, str] = {}
    if signal == "dense_cosine":  # one dense lookup per question, no fusion needed
        vecs = pipe.encoder.encode_queries([q.text for q in qs]) if qs else np.zeros((0, 1))
        for q, v in tqdm(list(zip(qs, vecs, strict=True)), desc="refusal signals", disable=not progress):
            hits = pipe.store.dense_search(v, 1, filters)
            signals[q.qid] = float(hits[0].score) if hits else -1.0
        model_id = pipe.encoder.model_id
    else:
        if pipe.reranker is None:
            raise ValueError(f"gate signal {signal!r} needs rerank.model")
        for q in tqdm(qs, desc="refusal signals", disable=not progress):
            value = gate_signal(pipe.search(q.text, filters), signal)
            signals[q.qid] = -1.0 if value is None else float(value)
        model_id = pipe.reranker.model_id
    for q in qs:
        buckets[q.qid] = str(q.metadata.get("bucket", "unlabelled"))
    thresholds = [round(x, 4) for x in np.arange(0.0, 1.0 + 1e-9, step)]
    return RefusalCalibration(signals, buckets, thresholds, refusal_rates(signals, buckets, thresholds),
                              choose_threshold(signals, buckets, target_oos, max_in_scope), signal, model_id)


def plot_curves(cal: RefusalCalibration, path: Path, title: str = "Refusal rate by threshold") -> None:
    """PNG of refusal rate per bucket against the threshold, with the chosen threshold marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for b, rates in cal.rates.items():
        ax.plot(cal.thresholds, rates, label=f"{b} (n={sum(1 for x in cal.buckets.values() if x == b)})")
    t = cal.chosen["threshold"]
    ax.axvline(t, color="grey", linestyle="--", label=f"chosen {t:.2f}")
    ax.set_xlabel("threshold on " + ("top-1 dense cosine" if cal.signal == "dense_cosine" else "top reranker score"))
    ax.set_ylabel("share refused")
    ax.set_title(title)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
