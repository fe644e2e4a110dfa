"""Refusal-gate calibration on questions labelled in_scope / thin / out_of_scope.

For every question the gate's signal is recorded under the production filters: the top-1
dense cosine similarity, or the top reranker score (``answer.gate_signal``; see
:mod:`clinqa.decision.threshold`). A threshold ``t`` refuses a question when ``signal < t``. Sweeping ``t``
gives the refusal rate per bucket; the chosen threshold is the smallest ``t`` that refuses at
least ``target_oos`` of out-of-scope questions, reported with the in-scope refusal it costs
(the target is met only when that is <= ``max_in_scope``).

The key-term test (:mod:`clinqa.decision.answerability`) is calibrated with it
(:func:`key_term_misses`, :func:`choose_joint`): for each general-English frequency cut
``max_zipf`` a question is refused when its signal is below ``t`` *or* a key term is missing from
its quotable passages; the pair kept refuses at least ``target_oos`` of out-of-scope and at most
``max_in_scope`` of in-scope questions and, among those, the most ``thin`` ones (questions the
corpus only partly answers). The *related* threshold (below it a refusal lists no related
topics) is the 5th percentile of the in-scope and thin signals: nearly every medical question
that is refused still shows what the documents do have, while general-knowledge questions,
further away, show nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from clinqa.decision.threshold import gate_signal
from clinqa.evaluation.datasets import Dataset
from clinqa.pipeline import Pipeline

#: general-English frequency cuts tried for the key-term test (wordfreq Zipf values)
ZIPF_GRID = (3.0, 3.5, 4.0, 4.5, 5.0)


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
    misses: dict[str, dict[str, bool]] = field(default_factory=dict)  # max_zipf -> qid -> key term missing
    missing_terms: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # max_zipf -> qid -> terms
    joint: dict[str, Any] = field(default_factory=dict)
    shipped: dict[str, Any] = field(default_factory=dict)  # end to end with the pipeline as configured

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
              target_oos: float = 0.95, max_in_scope: float = 0.05,
              zipf_grid: tuple[float, ...] = ZIPF_GRID) -> RefusalCalibration:
    """Record the gate signal (``pipe.settings.answer.gate_signal``) of every query and sweep
    thresholds 0..1 by ``step``. A question with no hit gets signal -1. With ``zipf_grid`` (empty
    to skip), the key-term test is calibrated with the threshold (:func:`choose_joint`)."""
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
    cal = RefusalCalibration(signals, buckets, thresholds, refusal_rates(signals, buckets, thresholds),
                             choose_threshold(signals, buckets, target_oos, max_in_scope), signal, model_id)
    if zipf_grid:
        cal.misses, cal.missing_terms = key_term_misses(dataset, pipe, zipf_grid, progress)
        cal.joint = choose_joint(signals, buckets, cal.misses, target_oos, max_in_scope)
    return cal


def key_term_misses(dataset: Dataset, pipe: Pipeline, zipf_grid: tuple[float, ...] = ZIPF_GRID,
                    progress: bool = True) -> tuple[dict[str, dict[str, bool]], dict[str, dict[str, list[str]]]]:
    """For each cut in ``zipf_grid`` and each query: does the key-term test find a key term that
    none of the quotable passages (hybrid search under the production filters, the first
    ``answer.context_chunks`` hits) mentions? Returns ``(misses, missing_terms)`` keyed by the cut
    as a string ("4.0") and then by query id."""
    filters = pipe.filters()
    n = pipe.settings.answer.context_chunks
    misses: dict[str, dict[str, bool]] = {f"{z:.1f}": {} for z in zipf_grid}
    terms: dict[str, dict[str, list[str]]] = {f"{z:.1f}": {} for z in zipf_grid}
    for q in tqdm(dataset.queries, desc="key terms", disable=not progress):
        hits = pipe.search(q.text, filters, k=n).hits
        for z in zipf_grid:
            a = pipe.answerability(q.text, hits, z, filters)
            misses[f"{z:.1f}"][q.qid] = not a.answerable
            terms[f"{z:.1f}"][q.qid] = a.missing_names()
    return misses, terms


def choose_joint(signals: dict[str, float], buckets: dict[str, str], misses: dict[str, dict[str, bool]],
                 target_oos: float = 0.95, max_in_scope: float = 0.05) -> dict[str, Any]:
    """The (dense threshold, key-term cut) pair: a question is refused when ``signal < t`` or its
    key-term test misses. Among pairs refusing >= ``target_oos`` of out_of_scope and <=
    ``max_in_scope`` of in_scope, the one refusing most ``thin`` questions, then fewest in_scope,
    then the smallest ``t``. When no pair meets both targets, the one with the fewest in_scope
    refusals among those meeting ``target_oos``. Also returns the related threshold (5th percentile of
    in_scope + thin signals, at most ``t``) and the rates of every cut at its own best ``t``."""
    qids = list(signals)
    cands = sorted({round(math.ceil((signals[q] + 1e-6) * 1e4) / 1e4, 4) for q in qids} | {0.0})
    best: tuple[Any, ...] | None = None
    per_cut: dict[str, Any] = {}
    for z, miss in misses.items():
        cut_best: tuple[Any, ...] | None = None
        for t in cands:
            refused = {q: signals[q] < t or miss.get(q, False) for q in qids}
            rates = {b: float(np.mean([refused[q] for q in qids if buckets[q] == b]))
                     for b in sorted(set(buckets.values()))}
            if rates.get("out_of_scope", 1.0) < target_oos:
                continue
            ok = rates.get("in_scope", 0.0) <= max_in_scope
            key = (ok, rates.get("thin", 0.0) if ok else -rates.get("in_scope", 0.0), -rates.get("in_scope", 0.0), -t)
            if cut_best is None or key > cut_best[0]:
                cut_best = (key, t, z, rates, ok)
        if cut_best is None:
            continue
        per_cut[z] = {"threshold": cut_best[1], "rates": cut_best[3], "meets_target": cut_best[4]}
        if best is None or cut_best[0] > best[0]:
            best = cut_best
    if best is None:
        return {}
    _, t, z, rates, ok = best
    on_topic = sorted(signals[q] for q in qids if buckets[q] in ("in_scope", "thin"))
    related = min(t, float(np.percentile(on_topic, 5))) if on_topic else t
    related = math.floor(related * 1e4) / 1e4
    oos = [signals[q] for q in qids if buckets[q] == "out_of_scope"]
    return {"threshold": t, "key_term_max_zipf": float(z), "rates": rates, "meets_target": ok,
            "target_oos": target_oos, "max_in_scope": max_in_scope, "related_threshold": related,
            "oos_with_topics": float(np.mean([x >= related for x in oos])) if oos else 0.0,
            "per_cut": per_cut}


def end_to_end_rates(dataset: Dataset, pipe: Pipeline, progress: bool = True) -> dict[str, Any]:
    """Ask every query with ``pipe`` as configured (extractive: the dense gate, the lexical-support rule,
    the key-term test, exactly as ``clinqa ask`` decides) and return ``{"rates": bucket -> share
    refused, "refused": qid -> bool, "kinds": qid -> the gate decision's kind}``."""
    refused: dict[str, bool] = {}
    kinds: dict[str, str] = {}
    buckets: dict[str, str] = {}
    for q in tqdm(dataset.queries, desc="asked end to end", disable=not progress):
        a = pipe.ask(q.text, generate=False)
        refused[q.qid], kinds[q.qid] = a.refused, a.gate.kind if a.gate else ""
        buckets[q.qid] = str(q.metadata.get("bucket", "unlabelled"))
    rates = {b: float(np.mean([refused[q] for q in refused if buckets[q] == b])) for b in sorted(set(buckets.values()))}
    return {"rates": rates, "refused": refused, "kinds": kinds}


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


def current_threshold_rates(cal: RefusalCalibration, configured: float | None,
                            data_dir: Path | None) -> tuple[float, str, dict[str, float]]:
    """``(threshold, source, rates)``: the threshold ``clinqa ask`` uses today for ``cal``'s signal and
    model (``configured``, i.e. ``answer.refusal_threshold``, else a calibration file, else the
    fallback; :func:`clinqa.decision.calibration.resolve_threshold`) and the share of each bucket's
    questions the dense gate alone refuses at it."""
    from clinqa.decision.calibration import resolve_threshold

    current, source, _ = resolve_threshold(cal.signal, cal.model_id, configured, data_dir)
    rates = refusal_rates(cal.signals, cal.buckets, [current])
    return current, source, {b: r[0] for b, r in rates.items()}


def save_chosen(cal: RefusalCalibration, data_dir: Path, dataset: str) -> tuple[Path, float]:
    """Store the calibrated gate of ``cal`` in ``<data_dir>/calibration.json`` (scope ``reference``,
    dated today; :func:`clinqa.decision.calibration.save_calibration`) so ``clinqa ask`` uses it:
    the joint threshold with its key-term cut and related-topics threshold when the key-term test
    was calibrated, else the dense-gate-alone threshold. ``dataset`` describes the questions and
    corpus. Returns ``(path written, threshold saved)``."""
    import datetime

    from clinqa.decision.calibration import Calibration, save_calibration

    j = cal.joint
    best = j or cal.chosen
    path = save_calibration(data_dir, Calibration(
        cal.signal, cal.model_id, best["threshold"], best["target_oos"], best["rates"], dataset,
        datetime.date.today().isoformat(), "reference", j.get("related_threshold") if j else None,
        j.get("key_term_max_zipf") if j else None))
    return path, best["threshold"]
