"""``clinqa eval ...``: retrieval, fusion, chunking, models, report, compare, refusal, answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

import clinqa.cli.render as render
from clinqa.cli.common import (
    LLM,
    PLAIN,
    Config,
    DataDir,
    LLMModel,
    LLMUrl,
    Preset,
    Sets,
    handle_errors,
    llm_flags,
    pipeline,
    read_ids,
    write_outputs,
)
from clinqa.errors import ConfigError

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline

eval_app = typer.Typer(help="Evaluation on BEIR-format benchmarks (see docs/benchmarks.md).", no_args_is_help=True,
                       **PLAIN)

Distractors = Annotated[int | None, typer.Option("--subset", help="Use every judged document plus this many "
                                                 "seeded random distractors instead of the full corpus.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed for the subset and the bootstrap.")]
DatasetDir = Annotated[Path, typer.Argument(help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv.")]


def _progress() -> bool:
    return sys.stderr.isatty()


def _echo(lines: list[str]) -> None:
    typer.echo("\n".join(lines))


@eval_app.command("retrieval")
@handle_errors()
def eval_retrieval(
    dataset_dir: DatasetDir,
    output: Annotated[Path | None, typer.Option("--output", help="Write metrics.json, report.json, run.trec, "
                                                "per_query.csv here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    depth: Annotated[int, typer.Option("--depth", help="Candidates per list (Recall@100 needs 100).")] = 100,
    reranker: Annotated[str | None, typer.Option("--reranker", help="Cross-encoder folder: adds the "
                                                 "'rerank' run (overrides rerank.model).")] = None,
    queries: Annotated[Path | None, typer.Option("--queries", help="Only these query ids (one per line), e.g. "
                                                 "the held-out ids a trained model never saw.")] = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Retrieval metrics (MRR@10, P@k, Hit@k, Recall@k, nDCG@10) with 95% bootstrap CIs."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import evaluate_retrieval
    from clinqa.evaluation.retrieval import write_outputs as write_eval

    pipe = pipeline(data_dir, config, preset, sets, reranker=reranker)
    ds = load_dataset(dataset_dir)
    only = read_ids(queries) if queries else None
    ev = evaluate_retrieval(ds, pipe.settings, distractors=subset, seed=seed, depth=depth,
                            progress=_progress(), only_queries=only)
    _echo(render.retrieval_table(ev))
    if output:
        write_eval(ev, output)
        typer.echo(render.wrote(output, ["metrics.json", "report.json", "run.trec", "per_query.csv"]))


@eval_app.command("fusion")
@handle_errors()
def eval_fusion(
    dataset_dir: DatasetDir,
    output: Annotated[Path | None, typer.Option("--output", help="Write fusion.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    depth: Annotated[int, typer.Option("--depth", help="Candidates per list.")] = 100,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Fusion study on one pass: the configured fusion first, then the convex combination, RRF k and
    dense/BM25 weights (equal, 0.3/0.7, 0.7/0.3, dynamic alpha) and the document list."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.fusion import RULES, default_rule, fusion_study
    from clinqa.evaluation.retrieval import build_eval_pipeline, run_searches

    pipe = pipeline(data_dir, config, preset, sets)
    ds = load_dataset(dataset_dir)
    rs = pipe.settings.retrieval
    # the document-list rules need the document list searched, whatever the configured weight
    settings = pipe.settings.model_copy(update={"retrieval": rs.model_copy(
        update={"document_weight": rs.document_weight or 1.0})})
    epipe, _, _ = build_eval_pipeline(ds, settings, subset, seed, progress=_progress())
    lists, _ = run_searches(epipe, ds.queries, depth, progress=_progress())
    rows = fusion_study(ds, lists, (default_rule(rs), *RULES), seed=seed, depth=depth)
    _echo(render.fusion_table(rows))
    if output:
        typer.echo(render.wrote(output, write_outputs(output, {"fusion.json": json.dumps(rows, indent=2)})))


@eval_app.command("chunking")
@handle_errors()
def eval_chunking(
    dataset_dir: DatasetDir,
    output: Annotated[Path | None, typer.Option("--output", help="Write chunking.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Chunking comparison: fixed, section, hybrid, hierarchical (+ paragraphs) with context loss."""
    from clinqa.evaluation.chunking import compare_chunking
    from clinqa.evaluation.datasets import load_dataset

    pipe = pipeline(data_dir, config, preset, sets)
    rows = compare_chunking(load_dataset(dataset_dir), pipe.settings, subset, seed, progress=_progress())
    _echo(render.chunking_table(rows))
    if output:
        typer.echo(render.wrote(output, write_outputs(output, {"chunking.json": json.dumps(rows, indent=2)})))


@eval_app.command("models")
@handle_errors()
def eval_models(
    dataset_dir: DatasetDir,
    model: Annotated[list[str] | None, typer.Option("--model", help="Encoder alias or local path (repeatable). "
                                                    "Default: every shipped model that is installed.")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write models.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Embedding-model comparison: MRR, P@1/3/5, Hit@10, dimensions and throughput, plus BM25 alone."""
    from clinqa.embedding.shipped import installed_models
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.models import COLUMNS, compare_models

    pipe = pipeline(data_dir, config, preset, sets)
    rows = compare_models(load_dataset(dataset_dir), pipe.settings, model or installed_models(), subset, seed,
                          progress=_progress())
    _echo(render.models_table(rows, COLUMNS))
    if output:
        typer.echo(render.wrote(output, write_outputs(output, {"models.json": json.dumps(rows, indent=2)})))


@eval_app.command("report")
@handle_errors()
def eval_report(
    runs_dir: Annotated[Path, typer.Argument(help="Folder holding --output folders of eval commands.")],
    output: Annotated[Path | None, typer.Option("--output", help="Write the Markdown here (default: print).")] = None,
) -> None:
    """Render every evaluation output under RUNS_DIR as one Markdown report."""
    from clinqa.evaluation.report import render as render_report

    text = render_report(runs_dir)
    if output:
        output.write_text(text)
        typer.echo(f"wrote {output}")
    else:
        typer.echo(text)


@eval_app.command("compare")
@handle_errors()
def eval_compare(
    run_a: Annotated[Path, typer.Argument(help="--output folder (or per_query.csv) of run A.")],
    run_b: Annotated[Path, typer.Argument(help="--output folder (or per_query.csv) of run B.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Paired randomization test per metric between two evaluation runs."""
    from clinqa.evaluation.retrieval import compare_runs

    res = compare_runs(run_a, run_b)
    typer.echo(json.dumps(res, indent=2) if as_json else "\n".join(render.compare_table(res)))


@eval_app.command("refusal")
@handle_errors()
def eval_refusal(
    dataset_dir: Annotated[Path, typer.Argument(help="Folder with queries.jsonl whose metadata.bucket is "
                                                "in_scope / thin / out_of_scope.")],
    corpus: Annotated[Path, typer.Option("--corpus", help="BEIR folder whose corpus.jsonl the questions are "
                                         "asked against.")],
    output: Annotated[Path | None, typer.Option("--output", help="Write refusal.json and refusal.png here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    target_oos: Annotated[float, typer.Option("--target-oos", help="Share of out-of-scope to refuse.")] = 0.95,
    save: Annotated[bool, typer.Option("--save", help="Store the chosen threshold in <data-dir>/calibration.json "
                                       "for this signal and model; `clinqa ask` then uses it.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Calibrate the refusal threshold: refusal rate per bucket across thresholds."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.refusal import calibrate, current_threshold_rates, end_to_end_rates, plot_curves, save_chosen
    from clinqa.evaluation.retrieval import build_eval_pipeline

    pipe = pipeline(data_dir, config, preset, sets)
    corpus_ds = load_dataset(corpus)
    questions = load_dataset(dataset_dir, corpus_dir=corpus)
    epipe, _, _ = build_eval_pipeline(corpus_ds, pipe.settings, subset, seed, progress=_progress())
    cal = calibrate(questions, epipe, progress=_progress(), target_oos=target_oos)
    cal.shipped = end_to_end_rates(questions, epipe, progress=_progress())
    current, source, rates = current_threshold_rates(cal, pipe.settings.answer.refusal_threshold, pipe.data_dir)
    _echo(render.refusal_lines(cal, current, source, rates))
    if save:
        described = f"{dataset_dir} over {corpus}" + (f" (subset {subset}, seed {seed})" if subset is not None else "")
        path, threshold = save_chosen(cal, pipe.data_dir, described)
        typer.echo(f"saved threshold {threshold:.4f} for {cal.signal} / {cal.model_id} in {path}")
    if output:
        written = write_outputs(output, {"refusal.json": json.dumps(cal.summary(), indent=2),
                                         "refusal.png": lambda p: plot_curves(cal, p)})
        typer.echo(render.wrote(output, written))


@eval_app.command("answers")
@handle_errors(ValueError)
def eval_answers(
    dataset_dir: Annotated[Path | None, typer.Argument(
        help="A fact-annotated question set (.jsonl, e.g. bench/answers/guidelines.jsonl): fact recall of the "
             "extractive answer; or a BEIR folder whose queries carry reference answers (pubmedqa: final_decision "
             "+ long_answer; liveqa-medquad: reference_answers) for the LLM-judged comparison.")] = None,
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Question set only: ingest this folder or file "
                                                "first (default: the bundled guideline corpus when the store is "
                                                "empty).")] = None,
    bioasq: Annotated[Path | None, typer.Option("--bioasq", help="BioASQ BEIR folder: exact-answer containment of "
                                                "the extractive answer on factoid and list questions.")] = None,
    max_questions: Annotated[int | None, typer.Option("--max-questions", min=1, help="Question set / BioASQ: at "
                                                      "most this many questions (BioASQ: seeded sample).")] = None,
    baseline: Annotated[Path | None, typer.Option("--baseline", help="Question set / BioASQ: the --output folder "
                                                  "of an earlier run; adds a paired sign-flip test per "
                                                  "question.")] = None,
    llm: LLM = None,
    llm_model: LLMModel = None,
    llm_url: LLMUrl = None,
    judge_llm: Annotated[str | None, typer.Option("--judge-llm", help="Backend of the answer judge (openai, "
                                                  "local, none); default: the same as --llm.")] = None,
    judge_model: Annotated[str | None, typer.Option("--judge-model", help="Model id of the judge.")] = None,
    judge_url: Annotated[str | None, typer.Option("--judge-url", help="Server URL of the judge.")] = None,
    modes: Annotated[str, typer.Option("--modes", help="Comma-separated: no-context, extractive, "
                                       "generated.")] = "no-context,extractive,generated",
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many questions "
                                              "(seeded random sample).")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write answers.json and answers.csv here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Answer quality. QUESTIONS.jsonl: fact recall, any-fact recall, wrong-passage and refusal rates
    and answer length of the extractive answer. --bioasq DIR: exact-answer containment on BioASQ
    factoid/list questions. A BEIR folder: the model alone vs extractive vs generated answers,
    judged blind by an LLM against the reference answers."""
    if dataset_dir is None and bioasq is None:
        raise ConfigError("give a question set (.jsonl), a BEIR folder, or --bioasq DIR")
    if bioasq is not None or dataset_dir is None or dataset_dir.is_file() or dataset_dir.suffix == ".jsonl":
        _eval_answer_facts(dataset_dir, bioasq, corpus, max_questions, baseline, output, subset, seed,
                           pipeline(data_dir, config, preset, sets))
        return
    from clinqa.evaluation.answers import evaluate_answers
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.llm import build_llm_backend

    pipe = pipeline(data_dir, config, preset, sets, **llm_flags(llm, llm_model, llm_url))
    ds = load_dataset(dataset_dir)
    epipe, _, _ = build_eval_pipeline(ds, pipe.settings, subset, seed, progress=_progress())
    judge_flags = llm_flags(judge_llm, judge_model, judge_url)
    judge_opts = {k: v for k, v in zip(("backend", "model", "base_url"), judge_flags.values(), strict=True)
                  if v is not None}
    judge_settings = pipe.settings.llm.model_copy(update=judge_opts)
    judge = build_llm_backend(judge_settings) if judge_opts or judge_settings.backend != "none" else None
    if judge is not None and judge_settings == pipe.settings.llm and epipe.llm is not None:
        judge = epipe.llm  # same model: load it once
    ev = evaluate_answers(ds, epipe, judge, tuple(m.strip() for m in modes.split(",") if m.strip()),
                          limit, seed, progress=_progress())
    summary = ev.summary(seed=seed)
    _echo(render.answers_lines(summary))
    if output:
        write_outputs(output, {"answers.json": json.dumps(summary, indent=2)})
        ev.write(output)  # answers.csv
        typer.echo(render.wrote(output, ["answers.json", "answers.csv"]))


def _eval_answer_facts(questions: Path | None, bioasq: Path | None, corpus: Path | None, max_questions: int | None,
                       baseline: Path | None, output: Path | None, subset: int | None, seed: int,
                       pipe: Pipeline) -> None:
    """`eval answers QUESTIONS.jsonl` (fact benchmark) or `eval answers --bioasq DIR` (exact-answer
    containment): :func:`clinqa.evaluation.facts.run_fact_benchmark`, then its table."""
    from clinqa.evaluation.facts import run_fact_benchmark

    result = run_fact_benchmark(pipe, questions, bioasq, corpus, max_questions, baseline,
                                subset, seed, progress=_progress(), notify=lambda m: typer.echo(m, err=True))
    _echo(render.facts_lines(result, questions, bioasq, baseline))
    if output:
        body = {**result["meta"], "summary": result["summary"], "vs_baseline": result["paired"],
                "rows": result["rows"]}
        write_outputs(output, {"answers.json": json.dumps(body, indent=2, ensure_ascii=False)})
        typer.echo(render.wrote(output, ["answers.json"]))
