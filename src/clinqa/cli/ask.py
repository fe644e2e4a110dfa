"""Question commands: ``ask``, ``search``, ``feedback``, ``replay``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

import clinqa.cli.render as render
from clinqa.cli.common import (
    LLM,
    Config,
    DataDir,
    LLMModel,
    LLMUrl,
    Patient,
    Preset,
    Reranker,
    Sets,
    Since,
    Source,
    Until,
    days,
    filters,
    handle_errors,
    llm_flags,
    pipeline,
    require_text,
    write_outputs,
)
from clinqa.errors import ClinqaError
from clinqa.logs.conversations import LOCAL_OWNER
from clinqa.question.limit import check_question_length

if TYPE_CHECKING:
    from clinqa.answer.types import Answer
    from clinqa.retrieval import Filters

LogPath = Annotated[Path | None, typer.Option("--log", help="Query log file (default: log.path, else "
                                              "<data-dir>/querylog.sqlite).")]
SinceDay = Annotated[str | None, typer.Option("--since", help="Only questions logged on or after this day "
                                              "(YYYY-MM-DD, UTC).")]
UntilDay = Annotated[str | None, typer.Option("--until", help="Only questions logged up to the end of this day "
                                              "(YYYY-MM-DD, UTC).")]


@handle_errors()
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
    conversation: Annotated[str | None, typer.Option(
        "--conversation", "-c", metavar="NAME", help="Continue (or start) the named conversation kept in the data "
        "directory: a follow-up ('and if CrCl is 20?') is read with the turn before it.")] = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Answer a question with citations from the corpus, or refuse and say why.

    With --llm the model writes the answer from the retrieved passages and every sentence is
    checked against the passages it cites; unsupported sentences are dropped (--json lists them).
    With --conversation NAME the question is the next turn of that conversation: it is read with the turn
    before it into a standalone question ("Answering: ..."; --json: standalone_question), and a conversation
    keeps the patient scope it started with."""
    from clinqa.logs import log_answer

    require_text(question)
    pipe = pipeline(data_dir, config, preset, sets, reranker=reranker, **llm_flags(llm, llm_model, llm_url))
    check_question_length(question, pipe.settings.service.max_question_chars)  # before anything is searched

    def log(answer: Answer) -> str | None:
        return log_answer(pipe, answer, source="cli", on_error=lambda exc: typer.echo(
            f"warning: the question was not logged: {exc}", err=True))

    if no_context and conversation is not None:
        raise ClinqaError("--no-context asks the language model alone; it cannot continue a conversation")
    if no_context:
        answer = pipe.ask_no_context(question)
        query_id = log(answer)
    elif conversation is not None:
        from clinqa.conversation import ask_turn, conversation_store

        pipe.warm_up()
        store = conversation_store(pipe)
        # a follow-up that names no patient continues in its conversation's patient scope
        scoped = filters(pipe, patient or store.patient_of(conversation, LOCAL_OWNER), since, until, source)
        conv = store.open(conversation, LOCAL_OWNER, scoped.patient_id)
        assert conv is not None
        answer, query_id = ask_turn(pipe, store, conv, question, scoped, log=log)
    else:
        pipe.warm_up()  # the encoder loads while the store opens
        answer = pipe.ask(question, filters(pipe, patient, since, until, source))
        query_id = log(answer)
    ans = answer.to_dict()
    undated = undated_left_out(pipe, answer.filters)
    if as_json:
        ans["query_id"] = query_id
        ans["undated_left_out"] = undated
        typer.echo(json.dumps(ans, indent=2, default=str))
        return
    typer.echo(render.format_answer(ans, verbose=verbose))
    if undated:
        typer.echo(undated_note(undated), err=True)
    if query_id:
        typer.echo(f"query id: {query_id} (rate it: clinqa feedback {query_id} SCORE, "
                   "1.0 excellent, 0.6 acceptable, 0.2 very poor)")


def undated_left_out(pipe: Any, f: Filters | None) -> int:
    """How many documents the year bounds of ``f`` left out for having no year: documents of ``f``'s scope
    (its patient's notes, else the documents of no patient) and sources, without a year; 0 when ``f`` has no
    year bound or keeps undated documents (``retrieval.keep_undated``)."""
    if f is None or not f.has_years or f.keep_undated:
        return 0
    sources = {s.lower() for s in f.sources}
    return sum(1 for d in pipe.store.documents() if d["year"] is None and d["patient_id"] == f.patient_id
               and (not sources or (d["source"] or "").lower() in sources))


def undated_note(n: int) -> str:
    """The line ``clinqa ask`` prints when a year filter left out ``n`` > 0 documents without a year."""
    return (f"note: the year filter left out {n} document{'s' if n != 1 else ''} that {'have' if n != 1 else 'has'} "
            "no year; --set retrieval.keep_undated=true keeps them (docs/settings.md)")


def _hit_rows(res: Any) -> list[dict[str, Any]]:
    """The ``hits`` of ``clinqa search --json``: one dict per fused hit of a search result."""
    return [{"rank": h.rank, "score": round(h.score, 6), "rrf": round(h.score, 6), "dense_rank": h.ranks.get("dense"),
             "dense_cosine": h.scores.get("dense"), "bm25_rank": h.ranks.get("bm25"),
             "bm25_score": h.scores.get("bm25"), "rerank_score": h.scores.get("rerank"),
             "chunk_id": h.chunk.chunk_id, "doc_id": h.chunk.doc_id,
             "title": h.chunk.title, "section": h.chunk.section, "year": h.chunk.year,
             "text": h.chunk.body, "page_start": h.chunk.page_start, "page_end": h.chunk.page_end,
             "ocr": h.chunk.ocr} for h in res.hits]


@handle_errors()
def search(
    query: Annotated[str, typer.Argument(help="The query.")],
    k: Annotated[int, typer.Option("-k", min=1, max=200, help="How many fused chunks to show.")] = 10,
    patient: Patient = None,
    since: Since = None,
    until: Until = None,
    source: Source = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="List the chunks even when none passes the gate "
                                           "that `ask` uses.")] = False,
    reranker: Reranker = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Ranked chunks with their fused score (retrieval.fusion: convex by default, or RRF; JSON field
    "score", also under its older name "rrf"), dense and BM25 ranks (and reranker scores).

    Prints "No passage matched." when nothing matches, or when the best chunk's gate signal (the dense
    cosine, or the reranker score with answer.gate_signal: rerank) is below the scope's calibrated threshold,
    the one `ask` refuses below; the line gives both, and --all lists the chunks anyway. When the store holds
    patient notes and no --patient was given, it says that notes are searched only with --patient. JSON
    carries the same test under "gate" (hits empty below it without --all). Exit code 0."""
    from clinqa.decision.threshold import gate_signal

    require_text(query)
    pipe = pipeline(data_dir, config, preset, sets, reranker=reranker)
    check_question_length(query, pipe.settings.service.max_question_chars, "query")
    pipe.require_store()
    pipe.warm_up()
    res = pipe.search(query, filters(pipe, patient, since, until, source), k=k)
    rows = _hit_rows(res)
    gate = pipe.gate("patient" if patient else "reference")
    signal = gate_signal(res, gate.signal) if rows else None
    passed = signal is not None and signal >= gate.threshold
    shown = rows if passed or show_all else []
    if as_json:
        typer.echo(json.dumps({"query": query, "filters": res.filters.to_dict(), "hits": shown,
                               "gate": {"signal": gate.signal, "score": signal, "threshold": gate.threshold,
                                        "passed": passed, "calibration": gate.calibration}}, indent=2))
        return
    if not passed:
        what = "similarity" if gate.signal == "dense_cosine" else "reranker score"
        typer.echo("No passage matched." if signal is None else
                   f"No passage matched: the best {what} is {signal:.3f}, below the threshold {gate.threshold:.3f} "
                   "that `clinqa ask` refuses below."
                   + ("" if show_all else " --all lists the chunks anyway."))
        if patient is None and any(d["patient_id"] for d in pipe.store.documents()):
            typer.echo("Patient notes are searched only with --patient ID.")
    for line in render.search_lines(shown):
        typer.echo(line)


@handle_errors(ValueError, KeyError)
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
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Rate a logged answer; every rating is kept, reports use the latest."""
    from clinqa.logs import open_existing_log

    with open_existing_log(pipeline(data_dir, config, preset, sets), log_path) as log:
        log.add_feedback(query_id, score, comment, category)
    typer.echo(f"recorded feedback {score} for {query_id}")


@handle_errors()
def replay(
    since: SinceDay = None,
    until: UntilDay = None,
    config: Annotated[Path | None, typer.Option("--config", help="Settings to replay with (YAML/TOML/JSON file "
                                                "or preset name); default: the current settings.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the latest N logged questions.")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write replay.json and replay.txt here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    record: Annotated[bool, typer.Option("--record", help="Also log the replayed answers (source 'replay').")] = False,
    log_path: LogPath = None,
    data_dir: DataDir = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Re-run logged questions with another configuration and report what changed: flipped
    decisions, overlap@10 of the retrieved chunks, rank shifts of cited chunks. Stored query
    embeddings are reused when the encoder is unchanged."""
    from clinqa.logs import open_existing_log
    from clinqa.logs.replay import format_replay
    from clinqa.logs.replay import replay as run_replay

    start, end = days(since, until)
    pipe = pipeline(data_dir, config, preset, sets)
    with open_existing_log(pipe, log_path) as log:
        rep = run_replay(pipe, log, since=start, until=end, limit=limit, record=record,
                         progress=sys.stderr.isatty() and not as_json)
    data, text = rep.to_dict(), format_replay(rep)
    written = write_outputs(output, {"replay.json": json.dumps(data, indent=2), "replay.txt": text + "\n"})
    typer.echo(json.dumps(data, indent=2) if as_json else text)
    if output and not as_json:
        typer.echo(render.wrote(output, written))


