"""Fine-tune a cross-encoder reranker or a bi-encoder on mined examples, on CPU, within a
time budget, resumably.

Both start from the shipped all-MiniLM-L6-v2 weights by default (a bi-encoder: for the
cross-encoder its transformer is reused and a fresh one-logit classification head is added).

- Reranker: binary cross-entropy on (question, passage, label) pairs, one gold passage and
  ``n_negatives`` hard negatives per question (monoBERT-style pointwise training: Nogueira &
  Cho 2019). Scores at inference are the sigmoid of the logit.
- Encoder: MultipleNegativesRankingLoss (in-batch negatives plus one hard negative per
  question; Henderson et al. 2017, "Efficient Natural Language Response Suggestion").

Training runs through the sentence-transformers trainers (Hugging Face ``Trainer``):
seeded, a progress bar, checkpoints every ``save_steps`` under ``<out>.checkpoints/`` (a
killed run resumes from the last one with the same command), and a time budget that stops
training cleanly and saves. The final model goes to ``<out>/`` with ``training.json`` (data,
steps, loss curve, dev metrics), ``loss.png`` and a model card ``CARD.md``.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.training.data import Example


@dataclass
class TrainConfig:
    """Hyper-parameters of one training run. ``max_steps`` caps optimizer steps (-1: one pass
    over the data); ``time_budget_s`` stops training after that many seconds of this run."""

    base_model: str
    output: Path
    epochs: float = 1.0
    max_steps: int = -1
    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    max_tokens: int = 256
    seed: int = 0
    time_budget_s: float | None = None
    save_steps: int = 200
    logging_steps: int = 10
    threads: int | None = None


@dataclass
class TrainResult:
    """What a run did: steps, seconds, loss curve ``[(step, loss)]`` and dev metrics."""

    kind: str
    output: str
    steps: int
    seconds: float
    stopped_by_budget: bool
    loss_curve: list[tuple[int, float]] = field(default_factory=list)
    dev: dict[str, float] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)


def _seed(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _budget_callback(budget_s: float | None) -> Any:
    from transformers import TrainerCallback

    class TimeBudget(TrainerCallback):
        """Stop (and save) once ``budget_s`` seconds of training have passed."""

        def __init__(self) -> None:
            self.t0 = time.perf_counter()
            self.hit = False

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> Any:
            if budget_s is not None and time.perf_counter() - self.t0 > budget_s:
                self.hit = True
                control.should_training_stop = True
                control.should_save = True
            return control

    return TimeBudget()


def _args(cls: Any, cfg: TrainConfig, ckpt: Path) -> Any:
    return cls(
        output_dir=str(ckpt), num_train_epochs=cfg.epochs, max_steps=cfg.max_steps,
        per_device_train_batch_size=cfg.batch_size, learning_rate=cfg.learning_rate,
        warmup_ratio=cfg.warmup_ratio, seed=cfg.seed, data_seed=cfg.seed, save_strategy="steps",
        save_steps=cfg.save_steps, save_total_limit=2, logging_steps=cfg.logging_steps,
        report_to="none", use_cpu=True, dataloader_num_workers=0, disable_tqdm=False,
    )


def _last_checkpoint(ckpt: Path) -> str | None:
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(ckpt)) if ckpt.is_dir() else None


def _run(trainer: Any, cfg: TrainConfig, ckpt: Path, budget: Any) -> tuple[int, float, list[tuple[int, float]]]:
    t0 = time.perf_counter()
    trainer.train(resume_from_checkpoint=_last_checkpoint(ckpt))
    curve = [(int(h["step"]), float(h["loss"])) for h in trainer.state.log_history if "loss" in h]
    return int(trainer.state.global_step), time.perf_counter() - t0, curve


def rerank_dev_metrics(score: Any, dev: list[Example]) -> dict[str, float]:
    """MRR and accuracy@1 of the gold passage among (gold + its hard negatives) on held-out
    examples; ``score(query, passages) -> array``. Ties count against the gold passage."""
    rr: list[float] = []
    for ex in dev:
        if not ex.negatives:
            continue
        s = np.asarray(score(ex.query, [ex.positive, *ex.negatives]), dtype=float)
        rank = 1 + int((s[1:] >= s[0]).sum())
        rr.append(1.0 / rank)
    return {"dev_mrr": float(np.mean(rr)) if rr else 0.0, "dev_acc@1": float(np.mean([r == 1.0 for r in rr]))
            if rr else 0.0, "dev_questions": float(len(rr))}


def train_reranker(examples: list[Example], dev: list[Example], cfg: TrainConfig,
                   data_info: dict[str, Any] | None = None, progress: bool = True) -> TrainResult:
    """Fine-tune a one-logit cross-encoder from ``cfg.base_model`` on ``examples`` (BCE, see
    the module docstring); evaluate on ``dev`` before and after; save to ``cfg.output``."""
    rows: dict[str, list[Any]] = {"query": [], "passage": [], "label": []}
    for ex in examples:
        for text, label in [(ex.positive, 1.0), *[(n, 0.0) for n in ex.negatives]]:
            rows["query"].append(ex.query)
            rows["passage"].append(text)
            rows["label"].append(label)
    return train_reranker_rows(rows, dev, cfg, {**(data_info or {}), "questions": len(examples)})


def train_reranker_rows(rows: dict[str, list[Any]], dev: list[Example], cfg: TrainConfig,
                        data_info: dict[str, Any] | None = None) -> TrainResult:
    """Fine-tune a one-logit cross-encoder from ``cfg.base_model`` on flat rows ``{"query": [...], "passage":
    [...], "label": [1.0 | 0.0 ...]}`` (BCE, positives weighted by the negative:positive ratio); evaluate on
    ``dev`` before and after; save to ``cfg.output``. The trainer samples the rows in a seeded random order."""
    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    _seed(cfg.seed)
    model = CrossEncoder(str(cfg.base_model), num_labels=1, max_length=cfg.max_tokens, local_files_only=True)

    def score(q: str, ps: list[str]) -> np.ndarray:
        return np.asarray(model.predict([(q, p) for p in ps], show_progress_bar=False))

    before = rerank_dev_metrics(score, dev)
    ckpt = Path(str(cfg.output) + ".checkpoints")
    budget = _budget_callback(cfg.time_budget_s)
    pos = sum(rows["label"])
    loss = BinaryCrossEntropyLoss(model, pos_weight=torch.tensor((len(rows["label"]) - pos) / max(pos, 1.0)))
    trainer = CrossEncoderTrainer(model=model, args=_args(CrossEncoderTrainingArguments, cfg, ckpt),
                                  train_dataset=Dataset.from_dict(rows), loss=loss, callbacks=[budget])
    steps, seconds, curve = _run(trainer, cfg, ckpt, budget)
    after = rerank_dev_metrics(score, dev)
    model.save_pretrained(str(cfg.output))
    dev_metrics = {**{f"before_{k}": v for k, v in before.items()}, **after}
    info = {**(data_info or {}), "pairs": len(rows["label"])}
    return _finish("reranker", cfg, steps, seconds, budget.hit, curve, dev_metrics, info)


def train_encoder(examples: list[Example], dev: list[Example], cfg: TrainConfig,
                  data_info: dict[str, Any] | None = None, progress: bool = True) -> TrainResult:
    """Domain-adapt the bi-encoder ``cfg.base_model`` with MultipleNegativesRankingLoss on
    (question, gold passage, first hard negative) triples; evaluate on ``dev`` (gold vs its
    negatives by cosine) before and after; save a sentence-transformers folder to ``cfg.output``."""
    import torch
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import SentenceTransformerTrainer
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import SentenceTransformerTrainingArguments

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    _seed(cfg.seed)
    usable = [ex for ex in examples if ex.negatives]
    rows = {"anchor": [ex.query for ex in usable], "positive": [ex.positive for ex in usable],
            "negative": [ex.negatives[0] for ex in usable]}
    model = SentenceTransformer(str(cfg.base_model), device="cpu", local_files_only=True)
    base_limit = model.max_seq_length
    model.max_seq_length = min(cfg.max_tokens, base_limit)  # train short; serve with the base limit

    def score(q: str, ps: list[str]) -> np.ndarray:
        qv = model.encode([q], normalize_embeddings=True)
        pv = model.encode(ps, normalize_embeddings=True)
        return (pv @ qv[0]).astype(float)

    before = rerank_dev_metrics(score, dev)
    ckpt = Path(str(cfg.output) + ".checkpoints")
    budget = _budget_callback(cfg.time_budget_s)
    args = _args(SentenceTransformerTrainingArguments, cfg, ckpt)
    args.batch_sampler = "no_duplicates"  # a question's gold must not be another's in-batch negative twice
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=Dataset.from_dict(rows),
                                         loss=MultipleNegativesRankingLoss(model), callbacks=[budget])
    steps, seconds, curve = _run(trainer, cfg, ckpt, budget)
    model.max_seq_length = base_limit  # the saved model chunks and encodes like the base model
    after = rerank_dev_metrics(score, dev)
    model.save(str(cfg.output))
    dev_metrics = {**{f"before_{k}": v for k, v in before.items()}, **after}
    info = {**(data_info or {}), "triples": len(usable), "questions": len(examples)}
    return _finish("encoder", cfg, steps, seconds, budget.hit, curve, dev_metrics, info)


def _finish(kind: str, cfg: TrainConfig, steps: int, seconds: float, by_budget: bool,
            curve: list[tuple[int, float]], dev: dict[str, float], info: dict[str, Any]) -> TrainResult:
    conf = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(cfg).items()}
    res = TrainResult(kind, str(cfg.output), steps, seconds, by_budget, curve, dev, info, conf)
    out = Path(cfg.output)
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "clinqa-training"  # written once, at the end: the model's fingerprint stays fixed after
    meta.mkdir(exist_ok=True)
    (meta / "training.json").write_text(json.dumps(asdict(res), indent=2))
    _plot_loss(curve, meta / "loss.png", f"{kind} training loss")
    (meta / "CARD.md").write_text(model_card(res))
    return res


def _plot_loss(curve: list[tuple[int, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    if curve:
        ax.plot([s for s, _ in curve], [v for _, v in curve])
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def model_card(res: TrainResult) -> str:
    """A short Markdown model card: what was trained on what, for how long, with what result."""
    c, d = res.config, res.data
    lines = [
        f"# clinqa {res.kind}: {Path(res.output).name}",
        "",
        f"Fine-tuned by `clinqa train {res.kind}` from `{c['base_model']}` on CPU "
        f"({os.cpu_count()} cores).",
        "",
        "## Data",
        *[f"- {k}: {v}" for k, v in d.items()],
        "",
        "## Training",
        f"- steps: {res.steps} (batch {c['batch_size']}, learning rate {c['learning_rate']}, "
        f"max tokens {c['max_tokens']}, seed {c['seed']})",
        f"- wall time: {res.seconds:.0f} s" + (" (stopped by the time budget)" if res.stopped_by_budget else ""),
        f"- loss: {res.loss_curve[0][1]:.4f} at step {res.loss_curve[0][0]} -> {res.loss_curve[-1][1]:.4f} at step "
        f"{res.loss_curve[-1][0]} (curve: loss.png)" if res.loss_curve else "- loss: not logged (too few steps)",
        "",
        "## Held-out dev (gold passage vs its mined hard negatives)",
        *[f"- {k}: {v:.4f}" for k, v in res.dev.items()],
        "",
        "Retrieval metrics on the evaluation sets come from `clinqa eval retrieval` "
        + ("--reranker <this folder>" if res.kind == "reranker"
           else "with `embedding.model: <this folder>` in a --config")
        + " (see docs/benchmarks.md); these dev numbers only show that training moved the model.",
    ]
    return "\n".join(lines) + "\n"
