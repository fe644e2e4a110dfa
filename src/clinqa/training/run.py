"""``clinqa train reranker|encoder``: gather pairs, split, mine hard negatives, train.

Kept apart from the CLI so the library and the tests run exactly what users run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinqa.errors import ConfigError
from clinqa.settings import Settings
from clinqa.training.data import TrainQuery, beir_queries, medquad_queries, mine_examples, sample, split_queries
from clinqa.training.trainer import TrainConfig, TrainResult, train_encoder, train_reranker


def parse_duration(text: str | None) -> float | None:
    """``"90"``/``"90s"`` -> 90.0, ``"20m"`` -> 1200.0, ``"1.5h"`` -> 5400.0; None stays None.
    Raises :class:`ConfigError` for anything else."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not m:
        raise ConfigError(f"time budget {text!r}: expected e.g. 90s, 20m or 1.5h")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


@dataclass
class Source:
    """One source of pairs: its queries and the BEIR corpus folder their gold ids live in."""

    name: str
    queries: list[TrainQuery]
    corpus_dir: Path


@dataclass
class TrainPlan:
    """What will be trained on: per-source train / held-out queries after exclusions."""

    train: dict[str, list[TrainQuery]] = field(default_factory=dict)
    held: dict[str, list[TrainQuery]] = field(default_factory=dict)
    corpus: dict[str, Path] = field(default_factory=dict)


def gather(medquad: Path | None, medquad_corpus: Path | None, pairs: list[Path], exclude: list[Path],
           holdout: float, seed: int, max_queries: int | None) -> TrainPlan:
    """Read every source, drop queries whose gold is gold of an ``exclude`` evaluation set,
    split train / held-out by :func:`clinqa.training.data.in_holdout`, and sample at most
    ``max_queries`` training queries per source."""
    from clinqa.evaluation.datasets import load_dataset

    sources: list[Source] = []
    if medquad is not None:
        if medquad_corpus is None:
            raise ConfigError("--medquad needs --medquad-corpus: the BEIR folder of MedQuAD passages "
                              "(e.g. ../shared/data/liveqa-medquad)")
        sources.append(Source("medquad", medquad_queries(medquad), Path(medquad_corpus)))
    for folder in pairs:
        sources.append(Source(Path(folder).name, beir_queries(Path(folder)), Path(folder)))
    if not sources:
        raise ConfigError("no training data: give --medquad RAW_DIR and/or --pairs BEIR_DIR")
    excluded: set[str] = set()
    excluded_q: set[str] = set()
    for folder in exclude:
        ds = load_dataset(Path(folder))
        excluded |= {d for rels in ds.qrels.values() for d in rels}
        excluded_q |= {q.qid for q in ds.queries}
    plan = TrainPlan()
    for src in sources:
        qs = [q for q in src.queries if q.qid not in excluded_q]
        train, held = split_queries(qs, holdout, seed, excluded)
        plan.train[src.name] = sample(train, max_queries, seed)
        plan.held[src.name] = held
        plan.corpus[src.name] = src.corpus_dir
    return plan


def train(kind: str, settings: Settings, plan: TrainPlan, cfg: TrainConfig, negatives: int = 3,
          dev_queries: int = 100, progress: bool = True, siblings: int = 0, randoms: int = 0,
          strip_qualifiers: bool = False) -> TrainResult:
    """Mine examples for every source from its evaluation store (built or reused by
    :func:`clinqa.evaluation.retrieval.build_eval_pipeline`, so the embeddings are shared with
    the harness), then train ``kind`` (``reranker`` or ``encoder``); ``siblings`` and ``randoms`` add
    sibling and random negatives per question and ``strip_qualifiers`` cleans every passage
    (:func:`clinqa.training.data.mine_examples`). Writes the held-out query ids of every source to
    ``<output>/clinqa-training/heldout-<source>.txt``."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline

    examples, dev = [], []
    info: dict[str, Any] = {"negatives_per_question": negatives, "sibling_negatives": siblings,
                            "random_negatives": randoms, "strip_qualifiers": strip_qualifiers, "sources": {}}
    for name, train_q in plan.train.items():
        ds = load_dataset(plan.corpus[name])
        pipe, _, _ = build_eval_pipeline(ds, settings, None, cfg.seed, progress)
        more = {"n_siblings": siblings, "n_random": randoms, "seed": cfg.seed, "strip_qualifiers": strip_qualifiers}
        ex = mine_examples(pipe, train_q, negatives, progress=progress, **more)
        dv = mine_examples(pipe, sample(plan.held[name], dev_queries, cfg.seed), negatives, progress=progress, **more)
        examples += ex
        dev += dv
        info["sources"][name] = {"corpus": str(plan.corpus[name]), "train_questions": len(ex),
                                 "held_out_questions": len(plan.held[name]), "dev_questions": len(dv)}
    if not examples:
        raise ConfigError("no training example: none of the questions' gold passages is in its corpus")
    fn = train_reranker if kind == "reranker" else train_encoder
    res = fn(examples, dev, cfg, info, progress)
    meta = Path(cfg.output) / "clinqa-training"
    for name, held in plan.held.items():
        (meta / f"heldout-{name}.txt").write_text("".join(f"{q.qid}\n" for q in held))
    return res
