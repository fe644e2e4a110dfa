"""Command-line interface: a thin shell over :class:`clinqa.pipeline.Pipeline`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from clinqa.answer.types import pages_label
from clinqa.errors import ClinqaError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: plain click help and errors (rich_markup_mode None): rendering them with rich imports ~0.3 s of
#: modules, most of `clinqa --help`'s start-up (bench/cold_start.py)
PLAIN = {"rich_markup_mode": None}
app = typer.Typer(help="clinqa: answers from your clinical corpus, with citations, or a helpful refusal.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, **PLAIN)

DataDir = Annotated[Path | None, typer.Option("--data-dir", envvar="CLINQA_DATA_DIR",
                                              help="Where the store and caches live.")]
Config = Annotated[Path | None, typer.Option("--config", help="YAML/TOML/JSON settings file.")]
Reranker = Annotated[str | None, typer.Option("--reranker", help="Cross-encoder folder to rerank the candidate "
                                              "pool with (overrides rerank.model).")]


def _read_ids(path: Path) -> set[str]:
    """Query ids from a file, one per line (blank lines and ``#`` comments ignored)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ClinqaError(f"{path}: cannot read query ids: {exc}") from exc
    return {x.strip() for x in lines if x.strip() and not x.startswith("#")}


def _pipeline(data_dir: Path | None, config: Path | None, reranker: str | None = None,
              llm: dict[str, Any] | None = None, **chunking: Any):
    from clinqa.pipeline import Pipeline
    from clinqa.settings import load_settings

    settings = load_settings(config, data_dir=data_dir)
    llm = {k: v for k, v in (llm or {}).items() if v is not None}
    if llm:
        settings = settings.model_copy(update={"llm": settings.llm.model_copy(update=llm)})
    if reranker is not None:
        settings = settings.model_copy(update={"rerank": settings.rerank.model_copy(update={"model": reranker})})
    if any(v is not None for v in chunking.values()):
        settings = settings.model_copy(update={"chunking": settings.chunking.model_copy(
            update={k: v for k, v in chunking.items() if v is not None})})
    return Pipeline(settings)


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(2)


def _require_text(text: str) -> None:
    """Exit 2 with "error: the question is empty" for an empty or whitespace-only question or query."""
    if not text.strip():
        typer.echo("error: the question is empty", err=True)
        raise typer.Exit(2)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    format: Annotated[str | None, typer.Option("--format", help="Force a loader: markdown, text, html, "
                                               "pdf, docx, jats, medquad, pubmedqa, beir, notes.")] = None,
    chunker: Annotated[str | None, typer.Option("--chunker", help="hierarchical (default), fixed, "
                                                "section, hybrid.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Load, chunk, embed and store documents. Exit code 1 if any file failed."""
    try:
        pipe = _pipeline(data_dir, config, strategy=chunker)
        for p in paths:
            if not p.exists():
                raise ClinqaError(f"{p}: no such file or directory")
        report = pipe.ingest(paths, format=format, progress=not quiet and not as_json,
                             on_error=lambda path, reason: typer.echo(f"error: {path}: {reason}", err=True))
    except KeyboardInterrupt:
        typer.echo("interrupted: finished batches are stored; run the same command again to continue", err=True)
        raise typer.Exit(130) from None
    except ClinqaError as exc:
        _fail(exc)
        return
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        typer.echo(f"ingested {report.documents} documents ({report.chunks} chunks, {report.embedded} newly "
                   f"embedded) in {report.seconds:.1f} s; {report.unchanged} unchanged, "
                   f"{len(report.skipped)} skipped, {len(report.failed)} failed")
        if report.ocr_pages:
            typer.echo(f"  OCR: read {report.ocr_pages} scanned PDF page{'s' if report.ocr_pages != 1 else ''} "
                       "from their images (chunks marked ocr: true)")
        for path, reason in report.skipped:
            typer.echo(f"  skipped {path}: {reason.removeprefix('skipped: ')}")
        for path, n in report.suspicious:
            typer.echo(f"{path}: {n} sentence{'s' if n != 1 else ''} addressed to an AI model "
                       f"{'were' if n != 1 else 'was'} indexed but will never be quoted")
    if report.failed:
        raise typer.Exit(1)


def _filters(pipe, patient: str | None, since: int | None, until: int | None, source: list[str] | None):
    if since is not None and until is not None and since > until:
        raise ClinqaError(f"--since {since} is after --until {until}")
    return pipe.filters(patient_id=patient, since=since, until=until, sources=source or ())


Patient = Annotated[str | None, typer.Option("--patient", help="Restrict to this patient's notes.")]
Since = Annotated[int | None, typer.Option("--since", help="Only documents from this year on.")]
Until = Annotated[int | None, typer.Option("--until", help="Only documents up to this year.")]
Source = Annotated[list[str] | None, typer.Option("--source", help="Only this source (repeatable).")]
LLM = Annotated[str | None, typer.Option("--llm", help="Generate the answer with a language model: openai "
                                         "(any OpenAI-compatible server; $OPENAI_BASE_URL, $OPENAI_API_KEY), "
                                         "local (llama-cpp-python, clinqa[local-llm]) or none (extractive; "
                                         "overrides llm.backend).")]
LLMModel = Annotated[str | None, typer.Option("--llm-model", help="Model id for --llm (overrides llm.model).")]
LLMUrl = Annotated[str | None, typer.Option("--llm-url", help="Server URL for --llm openai (overrides "
                                            "llm.base_url and $OPENAI_BASE_URL).")]


def _llm_options(llm: str | None, model: str | None, url: str | None) -> dict[str, Any]:
    if llm is not None and llm not in ("none", "openai", "local"):
        raise ClinqaError(f"--llm must be openai, local or none, not {llm!r}")
    return {"backend": llm, "model": model, "base_url": url}


DEFAULT_WIDTH = 100


def _width(width: int | None) -> int:
    """Columns to wrap human output at: ``width`` if given, else the terminal's
    (:func:`shutil.get_terminal_size`, 100 when it cannot be read), never under 40."""
    import shutil

    return max(40, width or shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _wrap(text: str, width: int, first: str = "", rest: str | None = None) -> list[str]:
    """``text`` wrapped at ``width`` columns: the first line starts with ``first``, continuation
    lines with ``rest`` (default: as many spaces as ``first``, a hanging indent). Words and
    hyphenated terms ("5-10", "beta-blocker") are never split; a longer word overflows its line."""
    import textwrap

    rest = " " * len(first) if rest is None else rest
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _pages(c: dict[str, Any]) -> str:
    """``", p. 4"`` / ``", pp. 4–6"`` from a citation's optional ``page_start``/``page_end``; empty without pages."""
    start, end = c.get("page_start"), c.get("page_end")
    if start is None:
        return ""
    return f", pp. {start}–{end}" if end is not None and end != start else f", p. {start}"


def related_items(ans: dict[str, Any]) -> list[tuple[str, str]]:
    """The related topics of a refusal as ``(title, last section heading)`` pairs, each once, in
    order: from ``related`` when it has items, else from the ``"Title > A > B"`` strings of
    ``related_topics`` (answers made before ``related`` existed). Empty: show no topics."""
    if ans.get("related"):
        pairs = [(r.get("title", ""), r.get("section", "")) for r in ans["related"]]
    else:
        pairs = []
        for t in ans.get("related_topics") or []:
            parts = [x.strip() for x in t.split(" > ")]
            pairs.append((parts[0], parts[-1] if len(parts) > 1 else ""))
    seen: list[tuple[str, str]] = []
    for pair in pairs:
        if pair not in seen and any(pair):
            seen.append(pair)
    return seen


def refusal_sentence(ans: dict[str, Any]) -> str:
    """What a refusal says to a person: the answer text when it starts with the ``reason`` (the
    reason sentence plus any clause the pipeline added), else the ``reason`` alone (older
    answers repeated the related topics in the text; those are listed separately)."""
    reason = (ans.get("reason") or "").strip()
    text = (ans.get("answer") or "").strip()
    if not reason:
        return text
    return text if text.startswith(reason.rstrip(".")) else reason


def source_groups(citations: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Citations grouped so that each source is listed once: citations of the same document title,
    year, section path, pages, url/source, note date and copies (two passages of one section) form
    one group, in the order of their first number. ``[[c1], [c2, c3]]`` for ``[1]`` alone and
    ``[2][3]`` from the same section."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for c in citations:
        key = (c.get("title"), c.get("year"), c.get("section"), c.get("page_start"), c.get("page_end"),
               c.get("url") or c.get("source"), c.get("note_date"), tuple(c.get("also_in") or ()))
        groups.setdefault(key, []).append(c)
    return list(groups.values())


def _cautions(ans: dict[str, Any]) -> list[str]:
    """Warnings plus, on answers, a caution naming ``missing_terms`` (unless a warning already
    names every one of them in quotes)."""
    warnings = list(ans.get("warnings") or [])
    missing = [] if ans.get("refused") else list(ans.get("missing_terms") or [])
    if missing and not all(any(f"'{t}'" in w for w in warnings) for t in missing):
        warnings.append("no quoted passage mentions " + ", ".join(f"'{t}'" for t in missing)
                        + ": check that the sources answer the question")
    return warnings


def format_answer(ans: dict[str, Any], width: int | None = None, verbose: bool = False) -> str:
    """Human-readable rendering of an answer dict (``Answer.to_dict()``), wrapped at ``width``
    columns (default: the terminal width, else 100).

    Answers: the question, the answer text (one paragraph per line of it, ``[n]`` markers kept),
    then ``Sources:`` with each source once as ``[n] Title (year) — Section > Path, p. N`` (``[2][3]``
    for two passages of one section, :func:`source_groups`) and its url (or source) and chunk id(s)
    on the next line, then warnings with a hanging indent. Refusals:
    ``Not answered: <reason>``, then ``Closest topics in the documents:`` with one aligned bullet
    per topic (``  - Title — last heading``) only when there are any. The gate's signal and
    threshold are shown only when ``verbose``."""
    w = _width(width)
    lines = _wrap(ans["question"], w, "Q: ")
    applied = {k: v for k, v in ans["filters"].items() if v not in (None, [], ()) and k != "exclude_levels"}
    if applied:
        lines += _wrap(", ".join(f"{k}={v}" for k, v in applied.items()), w, "Filters: ")
    if ans.get("time_filter"):
        lines += _wrap(ans["time_filter"], w, "Time filter read from the question: ")
    lines.append("")
    if ans["refused"]:
        lines += _wrap(refusal_sentence(ans), w, "Not answered: ")
        topics = related_items(ans)
        if topics:
            lines += ["", "Closest topics in the documents:"]
            for title, section in topics:
                lines += _wrap(" — ".join(x for x in (title, section) if x), w, "  - ")
    else:
        label = {"generated": "Answer (written by the language model; each sentence checked against its sources):",
                 "no-context": "Answer (the language model alone, no sources):"}.get(ans.get("mode", ""))
        if label:
            lines += _wrap(label, w)
        for para in ans["answer"].splitlines():
            lines += _wrap(para, w) if para.strip() else []
        if ans["citations"]:
            lines += ["", "Sources:"]
        for group in source_groups(ans["citations"]):
            c = group[0]
            year = f" ({c['year']})" if c.get("year") else ""
            where = " > ".join(x for x in (c.get("section") or "").split(" > ") if x)
            tag = "  " + "".join(f"[{x['n']}]" for x in group) + " "
            indent = " " * len(tag)
            lines += _wrap(f"{c['title']}{year}" + (f" — {where}" if where else "") + _pages(c), w, tag, indent)
            if c.get("note_date"):
                lines += _wrap(f"note date: {c['note_date']}", w, indent)
            if c.get("also_in"):
                lines += _wrap("same text copied in: " + "; ".join(c["also_in"]), w, indent)
            ids = ("chunks " if len(group) > 1 else "chunk ") + ", ".join(x["chunk_id"] for x in group)
            lines += _wrap(" · ".join(x for x in (c.get("url") or c.get("source"), ids) if x), w, indent)
        dropped = [x for x in ans.get("sentences", []) if not x["supported"]]
        if dropped:
            lines.append("")
            lines.append("Not supported by the cited passages (not shown above):" if ans["mode"] == "generated"
                         and "[unsupported]" not in ans["answer"] else "Not supported by the cited passages:")
            for x in dropped:
                lines += _wrap(f"{x['text']}  ({'; '.join(x['reasons'])})", w, "  - ")
    cautions = _cautions(ans)
    if cautions:
        lines.append("")
        for text in cautions:
            lines += _wrap(text, w, "Warning: ")
    gate = ans.get("gate") or {}
    if verbose and gate.get("signal") is not None:
        sig, thr = gate["signal"], gate.get("threshold")
        lines += ["", f"Gate: {gate.get('kind') or 'signal'} {sig:.3f}"
                  + (f", threshold {thr:.3f}" if thr is not None else "")
                  + (f" ({gate['calibration']})" if gate.get("calibration") else "")]
    lines.extend(_usage_lines(ans))
    return "\n".join(lines)


def _usage_lines(ans: dict[str, Any]) -> list[str]:
    u = ans.get("llm") or {}
    if "prompt_tokens" not in u:
        return []
    cost = "cost unknown (no price for this model in llm.prices)" if u["cost_usd"] is None \
        else f"${u['cost_usd']:.6f}"
    return ["", f"Model: {u['backend']} {u['model']}, {u['prompt_tokens']} prompt + {u['completion_tokens']} "
            f"completion tokens, {cost}, {u['latency_ms'] / 1e3:.1f} s"]


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    patient: Patient = None,
    since: Since = None,
    until: Until = None,
    source: Source = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    reranker: Reranker = None,
    llm: LLM = None,
    llm_model: LLMModel = None,
    llm_url: LLMUrl = None,
    no_context: Annotated[bool, typer.Option("--no-context", help="Ask the language model alone, with no "
                                             "evidence (a baseline for comparison; nothing is checked).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also show the refusal gate's signal and "
                                          "threshold (always in --json under 'gate').")] = False,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Answer a question with citations from the corpus, or refuse and say why.

    With --llm the model writes the answer from the retrieved passages and every sentence is
    checked against the passages it cites; unsupported sentences are dropped (--json lists them)."""
    _require_text(question)
    try:
        pipe = _pipeline(data_dir, config, reranker=reranker, llm=_llm_options(llm, llm_model, llm_url))
        if no_context:
            answer = pipe.ask_no_context(question)
        else:
            answer = pipe.ask(question, _filters(pipe, patient, since, until, source))
    except ClinqaError as exc:
        _fail(exc)
        return
    query_id = _log_answer(pipe, answer)
    ans = answer.to_dict()
    if as_json:
        ans["query_id"] = query_id
        typer.echo(json.dumps(ans, indent=2, default=str))
        return
    typer.echo(format_answer(ans, verbose=verbose))
    if query_id:
        typer.echo(f"query id: {query_id} (clinqa feedback {query_id} 0.6 to rate)")


def _log_answer(pipe, answer) -> str | None:
    """Record a CLI answer in the query log (``log.enabled``); returns its query id, or None when
    logging is off or failed. Never raises: a logging failure is a warning on stderr."""
    try:
        from clinqa.logs import QueryLog, model_id_of

        log = QueryLog.for_pipeline(pipe)
        if log is None:
            return None
        try:
            return log.record(answer, config_hash=pipe.config_hash(), model_id=model_id_of(pipe),
                              corpus_version=pipe.corpus_version(), source="cli")
        finally:
            log.close()
    except Exception as exc:  # logging must never break answering
        typer.echo(f"warning: the question was not logged: {exc}", err=True)
        return None


LogPath = Annotated[Path | None, typer.Option("--log", help="Query log file (default: log.path, else "
                                              "<data-dir>/querylog.sqlite).")]
Output = Annotated[Path | None, typer.Option("--output", help="Write the report files into this folder.")]
SinceDay = Annotated[str | None, typer.Option("--since", help="Only questions logged on or after this day "
                                              "(YYYY-MM-DD, UTC).")]
UntilDay = Annotated[str | None, typer.Option("--until", help="Only questions logged up to the end of this day "
                                              "(YYYY-MM-DD, UTC).")]


def _open_log(pipe, log_path: Path | None):
    """The existing query log of ``pipe``'s settings (or ``log_path``); ClinqaError when there is none."""
    from clinqa.logs import QueryLog

    path = Path(log_path or pipe.settings.log.path or pipe.data_dir / "querylog.sqlite")
    if not path.is_file():
        raise ClinqaError(f"no query log at {path}: questions are logged by `clinqa ask` when log.enabled is true")
    return QueryLog(path)


def _logged_rows(data_dir: Path | None, config: Path | None, log_path: Path | None, since: str | None,
                 until: str | None) -> list[dict[str, Any]]:
    """The logged questions between the ``--since`` and ``--until`` days, for the reports."""
    start, end = _days(since, until)
    with _open_log(_pipeline(data_dir, config), log_path) as log:
        return log.rows(since=start, until=end)


def _day(value: str | None, option: str, end: bool = False):
    """``YYYY-MM-DD`` as a UTC datetime at the start of that day (``end``: of the next day), or None."""
    import datetime as dt

    if value is None:
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ClinqaError(f"{option} {value!r}: expected a day as YYYY-MM-DD") from None
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    return start + dt.timedelta(days=1) if end else start


def _days(since: str | None, until: str | None):
    """``(since, until)`` of :func:`_day` (``until`` at the end of its day); ClinqaError naming both
    days when ``since`` is after ``until`` (that window holds no question: an error, not an empty report)."""
    start, end = _day(since, "--since"), _day(until, "--until", end=True)
    if start is not None and end is not None and start >= end:
        raise ClinqaError(f"--since {since} is after --until {until}: no day is in that window")
    return start, end


@app.command()
def feedback(
    query_id: Annotated[str, typer.Argument(help="The query id printed by `clinqa ask`.")],
    score: Annotated[float, typer.Argument(help="1.0 (Excellent), 0.6 (Acceptable) or 0.2 (Very poor).")],
    comment: Annotated[str, typer.Option("--comment", help="Free-text comment.")] = "",
    category: Annotated[str | None, typer.Option("--category", help="Why it failed: content_missing, "
                                                 "retrieval_miss, temporal, wrong_answer, citation_wrong, "
                                                 "other.")] = None,
    log_path: LogPath = None,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Rate a logged answer; every rating is kept, reports use the latest."""
    try:
        with _open_log(_pipeline(data_dir, config), log_path) as log:
            log.add_feedback(query_id, score, comment, category)
    except (ClinqaError, ValueError) as exc:
        _fail(exc)
        return
    except KeyError as exc:
        _fail(ClinqaError(exc.args[0] if exc.args else str(exc)))
        return
    typer.echo(f"recorded feedback {score} for {query_id}")


@app.command()
def replay(
    since: SinceDay = None,
    until: UntilDay = None,
    config: Annotated[Path | None, typer.Option("--config", help="Settings to replay with (YAML/TOML/JSON); "
                                                "default: the current settings.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the latest N logged questions.")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write replay.json and replay.txt here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    record: Annotated[bool, typer.Option("--record", help="Also log the replayed answers (source 'replay').")] = False,
    log_path: LogPath = None,
    data_dir: DataDir = None,
) -> None:
    """Re-run logged questions with another configuration and report what changed: flipped
    decisions, overlap@10 of the retrieved chunks, rank shifts of cited chunks. Stored query
    embeddings are reused when the encoder is unchanged."""
    from clinqa.logs.replay import format_replay
    from clinqa.logs.replay import replay as run_replay

    try:
        start, end = _days(since, until)
        pipe = _pipeline(data_dir, config)
        with _open_log(pipe, log_path) as log:
            rep = run_replay(pipe, log, since=start, until=end, limit=limit, record=record,
                             progress=sys.stderr.isatty() and not as_json)
    except ClinqaError as exc:
        _fail(exc)
        return
    data, text = rep.to_dict(), format_replay(rep)
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "replay.json").write_text(json.dumps(data, indent=2))
        (output / "replay.txt").write_text(text + "\n")
    typer.echo(json.dumps(data, indent=2) if as_json else text)
    if output and not as_json:
        typer.echo(f"wrote {output}/replay.json and replay.txt")


report_app = typer.Typer(help="Reports on the query log: pilot figures and content gaps.", no_args_is_help=True,
                         **PLAIN)
app.add_typer(report_app, name="report")


@report_app.command("pilot")
def report_pilot(
    since: SinceDay = None,
    until: UntilDay = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write pilot.json and pilot.png here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    log_path: LogPath = None,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Pilot figures: questions, feedback and success rates, satisfaction, latency p50/p95/max/std,
    share under 5 s, refusal rate, cost per query, failure categories."""
    from clinqa.reports.pilot import format_pilot, pilot_figures, plot_pilot

    try:
        rows = _logged_rows(data_dir, config, log_path, since, until)
    except ClinqaError as exc:
        _fail(exc)
        return
    fig = pilot_figures(rows)
    typer.echo(json.dumps(fig, indent=2) if as_json else format_pilot(fig))
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "pilot.json").write_text(json.dumps(fig, indent=2))
        plot_pilot(rows, output / "pilot.png")
        if not as_json:
            typer.echo(f"wrote {output}/pilot.json and pilot.png")


@report_app.command("gaps")
def report_gaps(
    since: SinceDay = None,
    until: UntilDay = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write gaps.json and gaps.txt here.")] = None,
    min_size: Annotated[int, typer.Option("--min-size", min=1, help="Smallest cluster listed as a topic.")] = 2,
    threshold: Annotated[float, typer.Option("--threshold", min=0.0, max=2.0, help="Cosine-distance threshold "
                                             "of the agglomerative clustering (average linkage).")] = 0.5,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    log_path: LogPath = None,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Content gaps: refused and poorly rated questions clustered by their stored embeddings into
    topics, labelled by c-TF-IDF terms, with example questions and failure categories."""
    from clinqa.reports.gaps import format_gaps, gap_report

    try:
        rows = _logged_rows(data_dir, config, log_path, since, until)
    except ClinqaError as exc:
        _fail(exc)
        return
    rep = gap_report(rows, min_size=min_size, distance_threshold=threshold)
    text = format_gaps(rep)
    typer.echo(json.dumps(rep, indent=2) if as_json else text)
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "gaps.json").write_text(json.dumps(rep, indent=2))
        (output / "gaps.txt").write_text(text + "\n")
        if not as_json:
            typer.echo(f"wrote {output}/gaps.json and gaps.txt")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="The query.")],
    k: Annotated[int, typer.Option("-k", min=1, max=200, help="How many fused chunks to show.")] = 10,
    patient: Patient = None,
    since: Since = None,
    until: Until = None,
    source: Source = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    reranker: Reranker = None,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Ranked chunks with their fused (RRF), dense and BM25 ranks (and reranker scores).

    Prints "No passage matched." when nothing matches (and, when the store holds patient notes and
    no --patient was given, that notes are searched only with --patient); exit code 0."""
    _require_text(query)
    try:
        pipe = _pipeline(data_dir, config, reranker=reranker)
        res = pipe.search(query, _filters(pipe, patient, since, until, source), k=k)
    except ClinqaError as exc:
        _fail(exc)
        return
    rows = [{"rank": h.rank, "rrf": round(h.score, 6), "dense_rank": h.ranks.get("dense"),
             "dense_cosine": h.scores.get("dense"), "bm25_rank": h.ranks.get("bm25"),
             "bm25_score": h.scores.get("bm25"), "rerank_score": h.scores.get("rerank"),
             "chunk_id": h.chunk.chunk_id, "doc_id": h.chunk.doc_id,
             "title": h.chunk.title, "section": h.chunk.section, "year": h.chunk.year,
             "text": h.chunk.body, "page_start": h.chunk.page_start, "page_end": h.chunk.page_end,
             "ocr": h.chunk.ocr} for h in res.hits]
    if as_json:
        typer.echo(json.dumps({"query": query, "filters": res.filters.to_dict(), "hits": rows}, indent=2))
        return
    if not rows:
        typer.echo("No passage matched.")
        if patient is None and any(d["patient_id"] for d in pipe.store.documents()):
            typer.echo("Patient notes are searched only with --patient ID.")
    for r in rows:
        d = "-" if r["dense_rank"] is None else r["dense_rank"]
        b = "-" if r["bm25_rank"] is None else r["bm25_rank"]
        rr = "" if r["rerank_score"] is None else f" rerank={r['rerank_score']:.3f}"
        typer.echo(f"{r['rank']:>2}. score={r['rrf']:.4f}{rr} dense#{d} bm25#{b}  {r['chunk_id']}")
        year = f" ({r['year']})" if r["year"] else ""
        pages = pages_label(r["page_start"], r["page_end"])
        typer.echo(f"    {r['title']}{year} > {r['section']}{', ' + pages if pages else ''}"
                   f"{' (OCR)' if r['ocr'] else ''}")
        snippet = " ".join(r["text"].split())[:160]
        typer.echo(f"    {snippet}")


@app.command()
def stats(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Documents and chunks in the store."""
    try:
        s = _pipeline(data_dir, config).stats()
    except ClinqaError as exc:
        _fail(exc)
        return
    if as_json:
        typer.echo(json.dumps(s, indent=2))
        return
    typer.echo(f"data dir:  {s['data_dir']}\ndocuments: {s['documents']}\nchunks:    {s['chunks']}")
    typer.echo("levels:    " + ", ".join(f"{k}={v}" for k, v in sorted(s["levels"].items())))
    typer.echo(f"patients:  {s['patients']}\nmodel:     {s['model_id']}")
    if s.get("suspicious_chunks"):
        typer.echo(f"suspicious chunks: {s['suspicious_chunks']} (text addressed to an AI model; never quoted)")


@app.command()
def remove(
    doc_id: Annotated[str, typer.Argument(help="Document id, as shown in citations.")],
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Delete a document's chunks from the store."""
    try:
        n = _pipeline(data_dir, config).remove(doc_id)
    except ClinqaError as exc:
        _fail(exc)
        return
    if not n:
        typer.echo(f"error: no document {doc_id!r} in the store", err=True)
        raise typer.Exit(1)
    typer.echo(f"removed {doc_id}: {n} chunks")


@app.command()
def migrate(
    to: Annotated[str, typer.Option("--to", help="Target backend (only 'qdrant').")],
    qdrant_url: Annotated[str | None, typer.Option("--qdrant-url", help="Qdrant server URL (default "
                                                   "store.qdrant_url, else $QDRANT_URL, else local mode "
                                                   "in <data-dir>/qdrant).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace a Qdrant collection that already "
                                            "holds chunks.")] = False,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Chunks per write.")] = 256,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Copy the data dir's LanceDB store (chunks and their vectors, no re-embedding) into Qdrant,
    check the counts, and print the settings that switch to it (see docs/qdrant.md)."""
    if to != "qdrant":
        _fail(ClinqaError(f"--to {to!r}: the only target is 'qdrant'"))
        return
    try:
        from clinqa.settings import load_settings
        from clinqa.store import LanceStore, open_store
        from clinqa.store.migrate import migrate_to_qdrant

        settings = load_settings(config, data_dir=data_dir)
        update: dict[str, Any] = {"backend": "qdrant"} | ({"qdrant_url": qdrant_url} if qdrant_url else {})
        settings = settings.model_copy(update={"store": settings.store.model_copy(update=update)})
        target = open_store(settings)
        report = migrate_to_qdrant(LanceStore(settings.data_dir / "lancedb"), target,  # type: ignore[arg-type]
                                   batch_chunks=batch_size, progress=not quiet, overwrite=overwrite)
    except ClinqaError as exc:
        _fail(exc)
        return
    typer.echo(f"migrated {report.chunks} chunks of {report.documents} documents to {report.target} in "
               f"{report.seconds:.1f} s; counts match (BM25 avgdl {report.avgdl:.1f}).")
    typer.echo("To use it, put this in your --config file:\n\n" + "\n".join(report.config))


DEMO_QUESTIONS = [
    "Should beta-blockers be started on the day of surgery in a beta-blocker naive patient?",
    "What is the first-line treatment for an acute gout flare?",
    "How is acute kidney injury staged?",
    "When should anticoagulation be started in atrial fibrillation based on CHA2DS2-VASc?",
    "How do I change a car tyre?",
]


@app.command()
def demo(
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Ingest the bundled guideline corpus (open-medicine, MIT) and answer demo questions."""
    from clinqa.corpora import guidelines_path

    try:
        pipe = _pipeline(data_dir, config)
        path = guidelines_path()
        typer.echo(f"Ingesting the open-medicine guideline summaries from {path} (open-medicine by RamosFBC, MIT)")
        report = pipe.ingest([path], progress=sys.stderr.isatty())
        typer.echo(f"ingested {report.documents} documents ({report.chunks} chunks) in {report.seconds:.1f} s; "
                   f"{report.unchanged} unchanged, {len(report.failed)} failed")
        for q in DEMO_QUESTIONS:
            typer.echo("\n" + "=" * 78)
            typer.echo(format_answer(pipe.ask(q).to_dict()))
    except ClinqaError as exc:
        _fail(exc)


eval_app = typer.Typer(help="Evaluation on BEIR-format benchmarks (see docs/benchmarks.md).", no_args_is_help=True,
                       **PLAIN)
app.add_typer(eval_app, name="eval")

Distractors = Annotated[int | None, typer.Option("--subset", help="Use every judged document plus this many "
                                                 "seeded random distractors instead of the full corpus.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed for the subset and the bootstrap.")]
DatasetDir = Annotated[Path, typer.Argument(help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv.")]


def _fmt_metric(v: dict[str, Any]) -> str:
    return f"{v['value']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"


@eval_app.command("retrieval")
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
) -> None:
    """Retrieval metrics (MRR@10, P@k, Hit@k, Recall@k, nDCG@10) with 95% bootstrap CIs."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import evaluate_retrieval, write_outputs

    try:
        pipe = _pipeline(data_dir, config, reranker=reranker)
        ds = load_dataset(dataset_dir)
        only = _read_ids(queries) if queries else None
        ev = evaluate_retrieval(ds, pipe.settings, distractors=subset, seed=seed, depth=depth,
                                progress=sys.stderr.isatty(), only_queries=only)
    except ClinqaError as exc:
        _fail(exc)
        return
    lat = ev.latency_ms
    typer.echo(f"{ev.dataset}: {ev.n_judged} judged of {ev.n_queries} queries; {ev.n_documents} documents, "
               f"{ev.n_chunks} chunks; model {ev.model_id}; search p50 {lat['p50']:.0f} ms"
               + (f"; rerank p50 {lat['rerank_p50']:.0f} ms, p95 {lat['rerank_p95']:.0f} ms" if "rerank_p50" in lat
                  else ""))
    names = list(ev.metrics["hybrid"])
    typer.echo(f"{'metric':<11}" + "".join(f"{r:>26}" for r in ev.metrics))
    for m in names:
        typer.echo(f"{m:<11}" + "".join(f"{_fmt_metric(ev.metrics[r][m]):>26}" for r in ev.metrics))
    pr = ev.pool_recall
    typer.echo(f"candidate-pool recall (dense top-{pr['depth']} U BM25 top-{pr['depth']}): "
               f"{pr['value']:.3f} [{pr['ci95'][0]:.3f}, {pr['ci95'][1]:.3f}]")
    if output:
        write_outputs(ev, output)
        typer.echo(f"wrote {output}/metrics.json, report.json, run.trec, per_query.csv")


@eval_app.command("fusion")
def eval_fusion(
    dataset_dir: DatasetDir,
    output: Annotated[Path | None, typer.Option("--output", help="Write fusion.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    depth: Annotated[int, typer.Option("--depth", help="Candidates per list.")] = 100,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Fusion study: RRF k and dense/BM25 weights (equal, 0.3/0.7, 0.7/0.3, dynamic alpha) on one pass."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.fusion import fusion_study
    from clinqa.evaluation.retrieval import build_eval_pipeline, run_searches

    try:
        pipe = _pipeline(data_dir, config)
        ds = load_dataset(dataset_dir)
        epipe, _, _ = build_eval_pipeline(ds, pipe.settings, subset, seed, progress=sys.stderr.isatty())
        lists, _ = run_searches(epipe, ds.queries, depth, progress=sys.stderr.isatty())
        rows = fusion_study(ds, lists, seed=seed)
    except ClinqaError as exc:
        _fail(exc)
        return
    cols = ("MRR@10", "Hit@1", "Hit@10", "nDCG@10", "Recall@30")
    typer.echo(f"{'rule':<34}" + "".join(f"{c:>24}" for c in cols) + "   dMRR vs first (p)")
    for r in rows:
        d = r["vs_first"]["MRR@10"]
        typer.echo(f"{r['rule']:<34}" + "".join(f"{_fmt_metric(r['metrics'][c]):>24}" for c in cols)
                   + f"   {d['diff']:+.3f} ({d['p_value']:.3f})")
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "fusion.json").write_text(json.dumps(rows, indent=2))
        typer.echo(f"wrote {output}/fusion.json")


@eval_app.command("chunking")
def eval_chunking(
    dataset_dir: DatasetDir,
    output: Annotated[Path | None, typer.Option("--output", help="Write chunking.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Chunking comparison: fixed, section, hybrid, hierarchical (+ paragraphs) with context loss."""
    from clinqa.evaluation.chunking import compare_chunking
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.report import paired

    try:
        pipe = _pipeline(data_dir, config)
        rows = compare_chunking(load_dataset(dataset_dir), pipe.settings, subset, seed,
                                progress=sys.stderr.isatty())
    except ClinqaError as exc:
        _fail(exc)
        return
    ref = rows[0]["vs_reference"]["strategy"] if rows else ""
    typer.echo(f"{'strategy':<28}{'chunks':>8}{'words':>8}{'loss':>8}{'>limit':>8}{'MRR@10':>24}{'Hit@10':>24}"
               f"  MRR@10 vs {ref} (paired p)")
    for r in rows:
        typer.echo(f"{r['strategy']:<28}{r['chunks']:>8}{r['mean_words']:>8.1f}{r['context_loss']:>8.1%}"
                   f"{r['over_limit']:>8.1%}"
                   f"{_fmt_metric(r['MRR@10']):>24}{_fmt_metric(r['Hit@10']):>24}"
                   f"  {paired(r['vs_reference']['MRR@10'])}")
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "chunking.json").write_text(json.dumps(rows, indent=2))
        typer.echo(f"wrote {output}/chunking.json")


@eval_app.command("models")
def eval_models(
    dataset_dir: DatasetDir,
    model: Annotated[list[str] | None, typer.Option("--model", help="Encoder alias or local path (repeatable). "
                                                    "Default: every shipped model that is installed.")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write models.json here.")] = None,
    subset: Distractors = None,
    seed: Seed = 0,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Embedding-model comparison: MRR, P@1/3/5, Hit@10, dimensions and throughput, plus BM25 alone."""
    from clinqa.embedding.shipped import installed_models
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.models import COLUMNS, compare_models

    try:
        pipe = _pipeline(data_dir, config)
        rows = compare_models(load_dataset(dataset_dir), pipe.settings, model or installed_models(), subset, seed,
                              progress=sys.stderr.isatty())
    except ClinqaError as exc:
        _fail(exc)
        return
    head = f"{'model':<28}{'run':<8}{'dim':>5}" + "".join(f"{c:>9}" for c in COLUMNS)
    typer.echo(head + f"{'chunks/s':>10}{'tok/s':>9}")
    for r in rows:
        speed = f"{r['chunks_per_s']:>10.1f}{r['tokens_per_s']:>9.0f}" if r["chunks_per_s"] else f"{'-':>10}{'-':>9}"
        typer.echo(f"{r['model'][:27]:<28}{r['run']:<8}{r['dim']:>5}" +
                   "".join(f"{r[c]['value']:>9.3f}" for c in COLUMNS) + speed)
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "models.json").write_text(json.dumps(rows, indent=2))
        typer.echo(f"wrote {output}/models.json")


@eval_app.command("report")
def eval_report(
    runs_dir: Annotated[Path, typer.Argument(help="Folder holding --output folders of eval commands.")],
    output: Annotated[Path | None, typer.Option("--output", help="Write the Markdown here (default: print).")] = None,
) -> None:
    """Render every evaluation output under RUNS_DIR as one Markdown report."""
    from clinqa.evaluation.report import render

    text = render(runs_dir)
    if output:
        output.write_text(text)
        typer.echo(f"wrote {output}")
    else:
        typer.echo(text)


@eval_app.command("compare")
def eval_compare(
    run_a: Annotated[Path, typer.Argument(help="--output folder (or per_query.csv) of run A.")],
    run_b: Annotated[Path, typer.Argument(help="--output folder (or per_query.csv) of run B.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Paired randomization test per metric between two evaluation runs."""
    from clinqa.evaluation.retrieval import compare_runs

    try:
        res = compare_runs(run_a, run_b)
    except ClinqaError as exc:
        _fail(exc)
        return
    if as_json:
        typer.echo(json.dumps(res, indent=2))
        return
    typer.echo(f"{'metric':<11}{'A':>8}{'B':>8}{'B-A':>9}{'p':>8}   (n = {next(iter(res.values()))['n']:.0f})")
    for m, r in res.items():
        gain = r["mean_b"] - r["mean_a"]
        typer.echo(f"{m:<11}{r['mean_a']:>8.3f}{r['mean_b']:>8.3f}{gain:>+9.3f}{r['p_value']:>8.3f}")


@eval_app.command("refusal")
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
) -> None:
    """Calibrate the refusal threshold: refusal rate per bucket across thresholds."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.refusal import calibrate, plot_curves
    from clinqa.evaluation.retrieval import build_eval_pipeline

    try:
        pipe = _pipeline(data_dir, config)
        corpus_ds = load_dataset(corpus)
        questions = load_dataset(dataset_dir, corpus_dir=corpus)
        epipe, _, _ = build_eval_pipeline(corpus_ds, pipe.settings, subset, seed, progress=sys.stderr.isatty())
        cal = calibrate(questions, epipe, progress=sys.stderr.isatty(), target_oos=target_oos)
    except ClinqaError as exc:
        _fail(exc)
        return
    c = cal.chosen
    typer.echo(f"dense gate alone: threshold {c['threshold']:.3f} (refuse >= {c['target_oos']:.0%} out-of-scope): " +
               ", ".join(f"{b} refused {r:.1%}" for b, r in c["rates"].items()) +
               ("" if c["meets_target"] else f"  [in-scope refusal above {c['max_in_scope']:.0%}]"))
    j = cal.joint
    if j:
        typer.echo(f"with the key-term test: threshold {j['threshold']:.4f}, key terms below Zipf "
                   f"{j['key_term_max_zipf']:.1f}: " + ", ".join(f"{b} refused {r:.1%}" for b, r in j["rates"].items())
                   + ("" if j["meets_target"] else f"  [in-scope refusal above {j['max_in_scope']:.0%}]"))
        typer.echo(f"related topics listed above signal {j['related_threshold']:.4f} "
                   f"({j['oos_with_topics']:.1%} of out-of-scope questions would list some)")
        for z, row in j["per_cut"].items():
            typer.echo(f"  Zipf < {z}: threshold {row['threshold']:.4f}: "
                       + ", ".join(f"{b} {r:.1%}" for b, r in row["rates"].items()))
    from clinqa.answer.calibration import Calibration, resolve_threshold, save_calibration
    from clinqa.evaluation.refusal import refusal_rates

    current, source, _ = resolve_threshold(cal.signal, cal.model_id, pipe.settings.answer.refusal_threshold,
                                           pipe.data_dir)
    rates = refusal_rates(cal.signals, cal.buckets, [current])
    typer.echo(f"current threshold {current:.4f} ({source}), dense gate alone: " +
               ", ".join(f"{b} refused {r[0]:.1%}" for b, r in rates.items()))
    if save:
        import datetime

        best = j or c
        path = save_calibration(pipe.data_dir, Calibration(
            cal.signal, cal.model_id, best["threshold"], best["target_oos"], best["rates"],
            f"{dataset_dir} over {corpus}" + (f" (subset {subset}, seed {seed})" if subset is not None else ""),
            datetime.date.today().isoformat(), "reference", j.get("related_threshold") if j else None,
            j.get("key_term_max_zipf") if j else None))
        typer.echo(f"saved threshold {best['threshold']:.4f} for {cal.signal} / {cal.model_id} in {path}")
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "refusal.json").write_text(json.dumps(cal.summary(), indent=2))
        plot_curves(cal, output / "refusal.png")
        typer.echo(f"wrote {output}/refusal.json and refusal.png")


@eval_app.command("answers")
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
) -> None:
    """Answer quality. QUESTIONS.jsonl: fact recall, any-fact recall, wrong-passage and refusal rates
    and answer length of the extractive answer. --bioasq DIR: exact-answer containment on BioASQ
    factoid/list questions. A BEIR folder: the model alone vs extractive vs generated answers,
    judged blind by an LLM against the reference answers."""
    if bioasq is not None or (dataset_dir is not None and (dataset_dir.is_file() or dataset_dir.suffix == ".jsonl")):
        _eval_answer_facts(dataset_dir, bioasq, corpus, max_questions, baseline, output, subset, seed, data_dir,
                           config)
        return
    if dataset_dir is None:
        _fail(ClinqaError("give a question set (.jsonl), a BEIR folder, or --bioasq DIR"))
        return
    from clinqa.evaluation.answers import evaluate_answers
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.llm import make_backend

    try:
        pipe = _pipeline(data_dir, config, llm=_llm_options(llm, llm_model, llm_url))
        ds = load_dataset(dataset_dir)
        epipe, _, _ = build_eval_pipeline(ds, pipe.settings, subset, seed, progress=sys.stderr.isatty())
        judge_opts = {k: v for k, v in _llm_options(judge_llm, judge_model, judge_url).items() if v is not None}
        judge_settings = pipe.settings.llm.model_copy(update=judge_opts)
        judge = make_backend(judge_settings) if judge_opts or judge_settings.backend != "none" else None
        if judge is not None and judge_settings == pipe.settings.llm and epipe.llm is not None:
            judge = epipe.llm  # same model: load it once
        ev = evaluate_answers(ds, epipe, judge, tuple(m.strip() for m in modes.split(",") if m.strip()),
                              limit, seed, progress=sys.stderr.isatty())
    except (ClinqaError, ValueError) as exc:
        _fail(exc)
        return
    summary = ev.summary(seed=seed)
    for mode, blocks in summary["modes"].items():
        for qtype, b in blocks.items():
            corr = b["correct"]
            dec = b["decision_accuracy"]
            parts = [f"{mode:<10} {qtype:<6} n={b['n']:<4}"]
            if corr["value"] is not None:
                parts.append(f"judged correct {corr['value']:.3f} [{corr['ci'][0]:.3f}, {corr['ci'][1]:.3f}]")
            if dec["value"] is not None:
                parts.append(f"decision acc {dec['value']:.3f} [{dec['ci'][0]:.3f}, {dec['ci'][1]:.3f}]")
            parts.append(f"refused {b['refused']:.1%}")
            if b["dropped_share"] is not None:
                parts.append(f"sentences dropped {b['dropped_share']:.1%} of {b['sentences']}")
            if b["tokens_per_query"] is not None:
                cost = "-" if b["cost_usd_per_query"] is None else f"${b['cost_usd_per_query']:.6f}"
                parts.append(f"tokens/query {b['tokens_per_query']:.0f}, cost/query {cost}")
            typer.echo("  ".join(parts))
    if output:
        output.mkdir(parents=True, exist_ok=True)
        (output / "answers.json").write_text(json.dumps(summary, indent=2))
        ev.write(output)
        typer.echo(f"wrote {output}/answers.json and answers.csv")


def _eval_answer_facts(questions: Path | None, bioasq: Path | None, corpus: Path | None, max_questions: int | None,
                       baseline: Path | None, output: Path | None, subset: int | None, seed: int,
                       data_dir: Path | None, config: Path | None) -> None:
    """`eval answers QUESTIONS.jsonl` (fact benchmark) or `eval answers --bioasq DIR` (exact-answer containment)."""
    from clinqa.evaluation import facts as F

    if questions is not None and bioasq is not None:
        _fail(ClinqaError("give either a question set or --bioasq, not both"))
        return
    progress = sys.stderr.isatty()
    try:
        pipe = _pipeline(data_dir, config)
        if bioasq is not None:
            from clinqa.evaluation.datasets import load_dataset
            from clinqa.evaluation.retrieval import build_eval_pipeline

            ds = load_dataset(bioasq)
            items = F.exact_questions(ds, max_questions, seed)
            epipe, sub, _ = build_eval_pipeline(F.restrict(ds, {q.qid for q in items}), pipe.settings, subset, seed,
                                                progress=progress)
            rows = F.evaluate_exact(items, epipe, progress=progress)
            summary: dict[str, Any] = F.summarize_exact(rows)
            meta = {"benchmark": "bioasq", "dataset": str(bioasq), "subset": sub, "max_questions": max_questions,
                    "documents": len(epipe.store.documents()), "chunks": epipe.store.count()}
        else:
            assert questions is not None
            qs = F.load_questions(questions)[:max_questions]
            if corpus is not None or pipe.store.count() == 0:
                from clinqa.corpora import guidelines_path

                src = corpus or guidelines_path()
                typer.echo(f"ingesting {src} into {pipe.data_dir}", err=True)
                report = pipe.ingest([src], progress=progress)
                if report.failed:
                    raise ClinqaError(f"{src}: {len(report.failed)} files failed to ingest: {report.failed[:3]}")
            rows = F.evaluate_fact_set(qs, pipe, progress=progress)
            summary = F.summarize(rows)
            meta = {"benchmark": "facts", "questions": str(questions), "documents": len(pipe.store.documents()),
                    "chunks": pipe.store.count()}
        paired = F.compare_to_baseline(F.read_rows(baseline), rows) if baseline is not None else None
    except (ClinqaError, ValueError) as exc:
        _fail(exc)
        return
    if meta["benchmark"] == "facts":
        typer.echo(f"{summary['n_answerable']} answerable + {summary['n_uncovered']} uncovered questions "
                   f"({questions}); store {meta['documents']} documents, {meta['chunks']} chunks")
        lines = [("fact recall (answer text)", F.fmt_rate(summary["fact_recall"])),
                 ("fact recall (citation quotes)", F.fmt_rate(summary["fact_recall_quotes"])),
                 ("any-fact recall", F.fmt_rate(summary["any_fact_recall"])),
                 ("share of facts found", F.fmt_rate(summary["fact_share"])),
                 ("all facts in the top chunks (ceiling)", F.fmt_rate(summary["facts_in_context"])),
                 (f"wrong-passage rate (n={summary['wrong_passage_rate']['n']} answered)",
                  F.fmt_rate(summary["wrong_passage_rate"])),
                 ("citation [1] from another guideline", F.fmt_rate(summary["first_citation_wrong_rate"])),
                 ("in-scope refusal rate", F.fmt_rate(summary["in_scope_refusal_rate"])),
                 ("uncovered refusal rate", F.fmt_rate(summary["uncovered_refusal_rate"])),
                 ("answer words median / p90", f"{F.median_or_dash(summary['answer_words']['median'])} / "
                                               f"{F.median_or_dash(summary['answer_words']['p90'])}"),
                 ("ask ms p50 / p95", f"{F.median_or_dash(summary['latency_ms']['p50'])} / "
                                      f"{F.median_or_dash(summary['latency_ms']['p95'])}")]
        for name, value in lines:
            typer.echo(f"{name:<40}{value}")
        typer.echo(f"{'kind':<18}{'n':>4}{'facts':>8}{'any':>8}{'refused':>9}")
        for kind, b in summary["by_kind"].items():
            typer.echo(f"{kind:<18}{b['n']:>4}{b['fact_recall']:>8.3f}{b['any_fact_recall']:>8.3f}{b['refused']:>9.3f}")
    else:
        typer.echo(f"BioASQ {bioasq}: {summary['all']['n']} factoid/list questions; store {meta['documents']} "
                   f"passages ({meta['subset']})")
        typer.echo(f"{'type':<9}{'n':>5}{'contains (answer)':>28}{'contains (quotes)':>28}{'list items':>28}"
                   f"{'refused':>9}{'words p50':>10}")
        for t in ("factoid", "list", "all"):
            if t in summary:
                b = summary[t]
                items = F.fmt_rate(b["item_share"]) if "item_share" in b else "-"
                typer.echo(f"{t:<9}{b['n']:>5}{F.fmt_rate(b['contains']):>28}{F.fmt_rate(b['contains_quotes']):>28}"
                           f"{items:>28}{b['refused']['value']:>9.3f}{F.median_or_dash(b['answer_words']['median']):>10}")
    if paired:
        typer.echo(f"vs baseline {baseline}:")
        for m, r in paired.items():
            typer.echo(f"  {m:<18}{r['baseline']:>8.3f} -> {r['current']:.3f}  ({r['diff']:+.3f}, paired p "
                       f"{r['p_value']:.3f}, n={r['n']:.0f})")
    if output:
        output.mkdir(parents=True, exist_ok=True)
        body = {**meta, "summary": summary, "vs_baseline": paired, "rows": rows}
        (output / "answers.json").write_text(json.dumps(body, indent=2, ensure_ascii=False))
        typer.echo(f"wrote {output}/answers.json")


train_app = typer.Typer(help="Train clinqa's own reranker or adapted encoder on question-answer pairs.",
                        no_args_is_help=True, **PLAIN)
app.add_typer(train_app, name="train")


def _train(kind: str, medquad: Path | None, medquad_corpus: Path | None, pairs: list[Path] | None,
           exclude: list[Path] | None, holdout: float, max_queries: int | None, negatives: int,
           time_budget: str | None, max_steps: int, epochs: float, batch_size: int, learning_rate: float,
           max_tokens: int, seed: int, name: str, base_model: str | None, data_dir: Path | None,
           config: Path | None) -> None:
    from clinqa.embedding.shipped import resolve_model
    from clinqa.training.run import gather, parse_duration, train
    from clinqa.training.trainer import TrainConfig

    try:
        pipe = _pipeline(data_dir, config)
        base = base_model or "all-MiniLM-L6-v2"
        base_path, backend = resolve_model(base)
        if backend != "sentence-transformers":
            raise ClinqaError(f"--base-model {base}: training needs a PyTorch (sentence-transformers) folder")
        out = pipe.data_dir / "models" / name
        budget_s = parse_duration(time_budget)  # a bad budget fails before any data is read
        plan = gather(medquad, medquad_corpus, list(pairs or []), list(exclude or []), holdout, seed, max_queries)
        typer.echo("training questions: " + ", ".join(f"{k} {len(v)} (held out {len(plan.held[k])})"
                                                      for k, v in plan.train.items()))
        cfg = TrainConfig(base_model=str(base_path), output=out, epochs=epochs, max_steps=max_steps,
                          batch_size=batch_size, learning_rate=learning_rate, max_tokens=max_tokens, seed=seed,
                          time_budget_s=budget_s, threads=pipe.settings.embedding.threads)
        res = train(kind, pipe.settings, plan, cfg, negatives=negatives, progress=sys.stderr.isatty())
    except ClinqaError as exc:
        _fail(exc)
        return
    typer.echo(f"trained {res.steps} steps in {res.seconds:.0f} s"
               + (" (stopped by the time budget)" if res.stopped_by_budget else ""))
    typer.echo("held-out dev: " + ", ".join(f"{k} {v:.3f}" for k, v in res.dev.items()))
    use = "rerank.model" if kind == "reranker" else "embedding.model"
    typer.echo(f"saved {out} (model card: {out}/clinqa-training/CARD.md); use it with {use}: {out}")


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
def train_reranker_cmd(
    medquad: Medquad = None, medquad_corpus: MedquadCorpus = None, pairs: Pairs = None, exclude: Exclude = None,
    holdout: Holdout = 0.2, max_queries: MaxQueries = None,
    negatives: Annotated[int, typer.Option("--negatives", help="Hard negatives per question.")] = 3,
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
) -> None:
    """Fine-tune a cross-encoder reranker (BCE on gold + mined hard negatives); resumable."""
    _train("reranker", medquad, medquad_corpus, pairs, exclude, holdout, max_queries, negatives, time_budget,
           max_steps, epochs, batch_size, learning_rate, max_tokens, seed, name, base_model, data_dir, config)


@train_app.command("encoder")
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
) -> None:
    """Domain-adapt the bi-encoder (MultipleNegativesRankingLoss, in-batch + one hard negative)."""
    _train("encoder", medquad, medquad_corpus, pairs, exclude, holdout, max_queries, 1, time_budget,
           max_steps, epochs, batch_size, learning_rate, max_tokens, seed, name, base_model, data_dir, config)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option("--host", help="Interface to listen on (default service.host, "
                                             "127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option("--port", min=1, max=65535, help="TCP port (default service.port, "
                                             "8000).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes. Each loads the model and "
                                         "answers one question at a time.")] = 1,
    data_dir: DataDir = None,
    config: Config = None,
) -> None:
    """Start the HTTP API and the web page (uvicorn): http://HOST:PORT/ for clinicians, /docs for the API.

    API keys and their patient scopes come from service.api_keys in --config. The validated
    settings reach every worker as JSON in $CLINQA_SETTINGS_JSON (see clinqa.service.app.run)."""
    from clinqa.extras import extra_needed

    try:
        with extra_needed("clinqa serve"):
            from clinqa.service.app import run
        from clinqa.settings import load_settings

        run(load_settings(config, data_dir=data_dir), host=host, port=port, workers=workers)
    except ClinqaError as exc:
        _fail(exc)


def main() -> None:
    """Console entry point. A command that needs an extra that is not installed exits with status 2
    and one line naming it (``error: clinqa serve needs fastapi, which is not installed: pip install
    'clinqa[service]'``, :mod:`clinqa.extras`); a missing core module is re-raised (a broken install)."""
    from clinqa.extras import missing_extra

    try:
        app()
    except ModuleNotFoundError as exc:
        words = sys.argv[1:3] if sys.argv[1:2] and sys.argv[1] in ("eval", "train", "report") else sys.argv[1:2]
        found = missing_extra(exc, needed_by=" ".join(["clinqa", *words]))
        if found is None:
            raise
        typer.echo(f"error: {found}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
