"""``clinqa train reranker|encoder``: fine-tune clinqa's own reranker or adapted encoder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

import clinqa.cli.render as render
from clinqa.cli.common import PLAIN, Config, DataDir, Preset, Sets, handle_errors, pipeline
from clinqa.errors import ClinqaError

train_app = typer.Typer(help="Train clinqa's own reranker or adapted encoder on question-answer pairs.",
                        no_args_is_help=True, **PLAIN)


def _train(kind: str, medquad: Path | None, medquad_corpus: Path | None, pairs: list[Path] | None,
           exclude: list[Path] | None, holdout: float, max_queries: int | None, negatives: int,
           time_budget: str | None, max_steps: int, epochs: float, batch_size: int, learning_rate: float,
           max_tokens: int, seed: int, name: str, base_model: str | None, data_dir: Path | None,
           config: Path | None, preset: str | None, sets: list[str] | None, siblings: int = 0,
           randoms: int = 0, strip_qualifiers: bool = False) -> None:
    """Gather the training plan, train ``kind`` (``reranker`` or ``encoder``) into
    ``<data-dir>/models/NAME`` (:func:`clinqa.training.run.train`) and print the summary. Raises
    ClinqaError for a base model that is not a PyTorch folder or a bad ``--time-budget`` (checked
    before any data is read)."""
    from clinqa.embedding.shipped import resolve_model
    from clinqa.training.run import gather, parse_duration, train
    from clinqa.training.trainer import TrainConfig

    pipe = pipeline(data_dir, config, preset, sets)
    base = base_model or "all-MiniLM-L6-v2"
    base_path, backend = resolve_model(base)
    if backend != "sentence-transformers":
        raise ClinqaError(f"--base-model {base}: training needs a PyTorch (sentence-transformers) folder")
    out = pipe.data_dir / "models" / name
    budget_s = parse_duration(time_budget)  # a bad budget fails before any data is read
    plan = gather(medquad, medquad_corpus, list(pairs or []), list(exclude or []), holdout, seed, max_queries)
    typer.echo(render.training_plan_line(plan))
    cfg = TrainConfig(base_model=str(base_path), output=out, epochs=epochs, max_steps=max_steps,
                      batch_size=batch_size, learning_rate=learning_rate, max_tokens=max_tokens, seed=seed,
                      time_budget_s=budget_s, threads=pipe.settings.embedding.threads)
    res = train(kind, pipe.settings, plan, cfg, negatives=negatives, progress=sys.stderr.isatty(),
                siblings=siblings, randoms=randoms, strip_qualifiers=strip_qualifiers)
    typer.echo("\n".join(render.training_lines(res, out, kind)))


Medquad = Annotated[Path | None, typer.Option("--medquad", help="MedQuAD XML release folder (positives: every "
                                              "answered QA pair).")]
MedquadCorpus = Annotated[Path | None, typer.Option("--medquad-corpus", help="BEIR folder of the MedQuAD "
                                                    "passages the pairs point at (../shared/data/liveqa-medquad).")]
Pairs = Annotated[list[Path] | None, typer.Option("--pairs", help="BEIR folder of your own question-answer pairs "
                                                  "(queries.jsonl + qrels + corpus.jsonl); repeatable.")]
Exclude = Annotated[list[Path] | None, typer.Option("--exclude", help="BEIR evaluation folder whose queries and "
                                                    "gold passages must not be trained on; repeatable.")]
Holdout = Annotated[float, typer.Option("--holdout", help="Share of each source's questions held out "
                                        "(seeded); their ids are saved for `eval retrieval --queries`.")]
MaxQueries = Annotated[int | None, typer.Option("--max-queries", help="At most this many training "
                                                "questions per source (seeded sample).")]
Budget = Annotated[str | None, typer.Option("--time-budget", help="Stop training after this long (90s, 20m, "
                                            "1.5h) and save.")]


@train_app.command("reranker")
@handle_errors()
def train_reranker_cmd(
    medquad: Medquad = None, medquad_corpus: MedquadCorpus = None, pairs: Pairs = None, exclude: Exclude = None,
    holdout: Holdout = 0.2, max_queries: MaxQueries = None,
    negatives: Annotated[int, typer.Option("--negatives", help="Hard negatives per question.")] = 3,
    sibling_negatives: Annotated[int, typer.Option("--sibling-negatives", help="Negatives from the same source "
                                                   "page answering another question (MedQuAD ids).")] = 0,
    random_negatives: Annotated[int, typer.Option("--random-negatives", help="Random corpus passages per "
                                                  "question.")] = 0,
    strip_title_qualifiers: Annotated[bool, typer.Option("--strip-title-qualifiers", help="Train on passages whose "
                                                         "header lost its '(treatment)'-style qualifier.")] = False,
    time_budget: Budget = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Stop after this many steps (-1: one epoch).")] = -1,
    epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
    batch_size: Annotated[int, typer.Option("--batch-size")] = 16,
    learning_rate: Annotated[float, typer.Option("--learning-rate")] = 2e-5,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per (question, passage) pair.")] = 256,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    name: Annotated[str, typer.Option("--name", help="Saved as <data-dir>/models/NAME.")] = "reranker",
    base_model: Annotated[str | None, typer.Option("--base-model", help="Starting weights (alias or folder; "
                                                   "default the shipped all-MiniLM-L6-v2).")] = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Fine-tune a cross-encoder reranker (BCE on gold + mined hard negatives); resumable."""
    _train("reranker", medquad, medquad_corpus, pairs, exclude, holdout, max_queries, negatives, time_budget,
           max_steps, epochs, batch_size, learning_rate, max_tokens, seed, name, base_model, data_dir, config,
           preset, sets, sibling_negatives, random_negatives, strip_title_qualifiers)


@train_app.command("encoder")
@handle_errors()
def train_encoder_cmd(
    medquad: Medquad = None, medquad_corpus: MedquadCorpus = None, pairs: Pairs = None, exclude: Exclude = None,
    holdout: Holdout = 0.2, max_queries: MaxQueries = None,
    time_budget: Budget = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Stop after this many steps (-1: one epoch).")] = -1,
    epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
    batch_size: Annotated[int, typer.Option("--batch-size", help="In-batch negatives grow with it.")] = 32,
    learning_rate: Annotated[float, typer.Option("--learning-rate")] = 2e-5,
    max_tokens: Annotated[int, typer.Option("--max-tokens")] = 256,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    name: Annotated[str, typer.Option("--name", help="Saved as <data-dir>/models/NAME.")] = "encoder",
    base_model: Annotated[str | None, typer.Option("--base-model")] = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Domain-adapt the bi-encoder (MultipleNegativesRankingLoss, in-batch + one hard negative)."""
    _train("encoder", medquad, medquad_corpus, pairs, exclude, holdout, max_queries, 1, time_budget,
           max_steps, epochs, batch_size, learning_rate, max_tokens, seed, name, base_model, data_dir, config,
           preset, sets)


@train_app.command("export")
@handle_errors()
def train_export_cmd(
    folder: Annotated[Path, typer.Argument(help="A cross-encoder folder `clinqa train reranker` or `clinqa train "
                                           "answer-model` wrote.")],
    out: Annotated[Path, typer.Argument(help="New folder for the int8 ONNX copy (must not exist or be empty).")],
) -> None:
    """Export a trained cross-encoder to int8 ONNX (runs without torch); point answer.answer_model or
    rerank.model at the result."""
    from clinqa.rerank.onnx_cross_encoder import export_int8

    path = export_int8(folder, out)
    size = (path / "model_int8.onnx").stat().st_size / 2**20
    typer.echo(f"wrote {path / 'model_int8.onnx'} ({size:.1f} MiB)")


@train_app.command("pairs")
@handle_errors()
def train_pairs_cmd(
    out: Annotated[Path, typer.Argument(help="Folder for pairs.jsonl.gz and manifest.json.")],
    shared: Annotated[Path, typer.Option("--shared", help="The data folder holding bioasq/ (BEIR), raw/mediqa2019, "
                                         "raw/covid-qa, raw/medquad and raw/pubmedqa (relative to the current "
                                         "folder).")] = Path("../shared/data"),
    questions: Annotated[list[Path] | None, typer.Option(
        "--questions", help="Guideline question set that may be trained on (bench/answers format); repeatable. "
        "Held-out, vignette and refusal sets are refused.")] = None,
    medquad_most: Annotated[int, typer.Option("--medquad", help="MedQuAD pairs sampled.")] = 4000,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Build the answer model's training pairs (issue 39): positives, leave-gold-out, MEDIQA related, sibling,
    entity-swap negatives and clinician-style rewrites, with a manifest of every question and its source
    (about 42k rows, 1-5 minutes on 2 cores). The store in --data-dir must hold the guideline corpus
    (`clinqa demo`). Needs `clinqa[train]`."""
    from clinqa.training.pairs import build

    pipe = pipeline(data_dir, config, preset, sets)
    table = pipe.store.export(["doc_id", "text"], pipe.filters())
    chunks = list(zip(table.column("doc_id").to_pylist(), table.column("text").to_pylist(), strict=True))
    if not chunks:
        raise ClinqaError(f"{pipe.data_dir}: the store is empty; run `clinqa demo --data-dir {pipe.data_dir}` first")
    man = build(shared, out, chunks, list(questions or []), pipe.encoder.encode_queries, seed=seed,
                medquad_most=medquad_most, progress=sys.stderr.isatty())
    typer.echo(f"wrote {out / 'pairs.jsonl.gz'}: {sum(man['rows'].values())} rows from "
               + ", ".join(f"{k} {v}" for k, v in man["sources"].items()) + " questions")


@train_app.command("answer-model")
@handle_errors()
def train_answer_model_cmd(
    pairs: Annotated[Path, typer.Argument(help="pairs.jsonl.gz written by `clinqa train pairs`.")],
    out: Annotated[Path, typer.Argument(help="Folder for the trained cross-encoder (PyTorch).")],
    time_budget: Budget = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Optimizer steps (-1: one pass); the learning "
                                           "rate decays to 0 at the last one.")] = -1,
    batch_size: Annotated[int, typer.Option("--batch-size")] = 32,
    learning_rate: Annotated[float, typer.Option("--learning-rate")] = 4e-5,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Tokens per (question, passage) pair.")] = 128,
    limit: Annotated[int | None, typer.Option("--limit", help="Train on the first N rows only (a smoke run).")] = None,
    threads: Annotated[int | None, typer.Option("--threads", help="Torch threads (default: torch's own).")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    base_model: Annotated[str | None, typer.Option("--base-model", help="Starting weights: an alias or a "
                                                  "sentence-transformers / cross-encoder folder (default the "
                                                  "shipped all-MiniLM-L6-v2).")] = None,
) -> None:
    """Train the answer model (issue 39): a cross-encoder from the shipped MiniLM weights on the pairs of
    `clinqa train pairs` (BCE); resumable from its checkpoints. Needs `clinqa[train]`. Then `clinqa train export
    OUT OUT-int8` and `--set answer.answer_model=OUT-int8` (with answer.answer_model_threshold,
    answer.answer_model_units)."""
    from clinqa.embedding.shipped import resolve_model
    from clinqa.training.pairs import read_pairs, training_rows
    from clinqa.training.run import parse_duration
    from clinqa.training.trainer import TrainConfig, train_reranker_rows

    base_path, backend = resolve_model(base_model or "all-MiniLM-L6-v2")
    if backend != "sentence-transformers":
        raise ClinqaError(f"--base-model {base_model}: training needs a PyTorch (sentence-transformers) folder")
    rows = training_rows(read_pairs(pairs), seed=seed)
    if limit is not None:
        rows = {k: v[:limit] for k, v in rows.items()}
    cfg = TrainConfig(base_model=str(base_path), output=out, max_steps=max_steps, batch_size=batch_size,
                      learning_rate=learning_rate, max_tokens=max_tokens, seed=seed,
                      time_budget_s=parse_duration(time_budget), threads=threads)
    res = train_reranker_rows(rows, [], cfg, {"pairs_file": str(pairs)})
    typer.echo("\n".join(render.training_lines(res, out, "reranker")))


@train_app.command("decisive-words")
@handle_errors()
def train_decisive_words_cmd(
    pairs: Annotated[Path, typer.Argument(help="pairs.jsonl.gz written by `clinqa train pairs`.")],
    out: Annotated[Path, typer.Argument(help="Weights file to write (JSON); point answer.decisive_model at it.")],
    threshold: Annotated[float, typer.Option("--threshold", help="Probability at which a missing term is "
                                             "decisive (choose it on a dev set).")] = 0.5,
    per_kind: Annotated[int, typer.Option("--per-kind", help="Rows read per source and kind.")] = 1500,
    c: Annotated[float, typer.Option("--c", help="Inverse L2 strength.")] = 1.0,
    questions: Annotated[list[Path] | None, typer.Option(
        "--questions", help="Clinician question set over the store (bench/answers format) whose missing terms "
        "add labelled rows, asked through the pipeline; repeatable. Held-out sets are refused.")] = None,
    question_weight: Annotated[float, typer.Option("--question-weight", help="Weight of those rows.")] = 20.0,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Fit the decisive-word classifier (clinqa.decision.decisive_words) from the swaps and rewrites of the pairs
    and, with --questions, from clinician questions asked of the store in --data-dir."""
    from clinqa.training.decisive import question_rows, train

    extra = None
    if questions:
        pipe = pipeline(data_dir, config, preset, [*(sets or []), "answer.key_terms=warn"])
        extra = question_rows(pipe, questions)
    card = train(pairs, out, threshold=threshold, per_kind=per_kind, c=c, seed=seed, extra=extra,
                 extra_weight=question_weight)
    typer.echo(f"wrote {out}: {sum(card['rows'].values())} labelled terms, training accuracy {card['train_accuracy']}")
