"""``clinqa chat``: an interactive loop over one conversation (:mod:`clinqa.conversation`), with line editing and
history (the standard library's ``readline``; history in ``<data_dir>/chat_history``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

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
    filters,
    handle_errors,
    llm_flags,
    pipeline,
)
from clinqa.logs.conversations import LOCAL_OWNER
from clinqa.question.limit import too_long_message

if TYPE_CHECKING:
    from clinqa.answer.types import Answer
    from clinqa.pipeline import Pipeline

HELP = ("Ask a question; follow-ups ('and if CrCl is 20?', 'what about pregnancy?') build on the last answer.\n"
        "  /sources N  the passage of citation [N] in full\n"
        "  /new        start a new conversation\n"
        "  /quit       leave (also Ctrl-D)")


def _readline(history: str) -> Callable[[], None]:
    """Line editing and history when ``readline`` is available; returns the function that saves the history."""
    try:
        import readline
    except ImportError:  # e.g. Windows without pyreadline: plain input()
        return lambda: None
    with contextlib.suppress(OSError):
        readline.read_history_file(history)
    readline.set_history_length(1000)

    def save() -> None:
        with contextlib.suppress(OSError):
            readline.write_history_file(history)

    return save


@handle_errors()
def chat(
    conversation: Annotated[str | None, typer.Option(
        "--conversation", "-c", metavar="NAME", help="Continue this named conversation (default: a new one).")] = None,
    patient: Patient = None,
    reranker: Reranker = None,
    llm: LLM = None,
    llm_model: LLMModel = None,
    llm_url: LLMUrl = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Ask questions in a conversation: each follow-up is read with the turn before it ("Answering: ..."). Type
    /sources N to print citation N's passage whole, /new to start over, /quit to leave. With --llm the model
    also rewrites each follow-up, checked before it is used (conversation.llm_rewrite), and writes the answers."""
    from clinqa.conversation import ask_turn, conversation_store
    from clinqa.logs import log_answer

    pipe = pipeline(data_dir, config, preset, sets, reranker=reranker, **llm_flags(llm, llm_model, llm_url))
    pipe.require_store()
    pipe.warm_up()
    store = conversation_store(pipe)
    # continuing a conversation that names no patient keeps its patient scope
    scoped = filters(pipe, patient or store.patient_of(conversation, LOCAL_OWNER), None, None, None)
    conv = store.open(conversation, LOCAL_OWNER, scoped.patient_id) if conversation else \
        store.start(LOCAL_OWNER, scoped.patient_id)
    assert conv is not None
    limit = pipe.settings.service.max_question_chars
    save = _readline(str(pipe.data_dir / "chat_history"))
    typer.echo(HELP)
    last: Answer | None = None
    try:
        while True:
            try:
                line = input("\n> ").strip()
            except EOFError:
                typer.echo("")
                break
            if not line:
                continue
            if line in ("/quit", "/exit", "/q"):
                break
            if line == "/help":
                typer.echo(HELP)
                continue
            if line == "/new":
                conv = store.start(LOCAL_OWNER, scoped.patient_id)
                last = None
                typer.echo("(a new conversation)")
                continue
            if line.startswith("/sources"):
                typer.echo(_source(pipe, last, line))
                continue
            if line.startswith("/"):
                typer.echo(f"unknown command {line.split()[0]}; /help lists them")
                continue
            if len(line) > limit:  # refused before anything is searched; the chat goes on
                typer.echo(f"error: {too_long_message(len(line), limit)}", err=True)
                continue
            answer, _ = ask_turn(pipe, store, conv, line, scoped,
                                 log=lambda a: log_answer(pipe, a, source="cli"))
            if answer.citations:  # /sources reads the last answer that cited something (a refusal cites nothing)
                last = answer
            typer.echo(render.format_answer(answer.to_dict()))
    finally:
        save()


def _source(pipe: Pipeline, answer: Answer | None, line: str) -> str:
    """The passage of citation ``N`` of the last answer that cited passages (``/sources N``), whole, with its
    title and section."""
    parts = line.split()
    if answer is None or not answer.citations:
        return "no citations yet: ask a question first"
    cites = answer.citations
    if len(parts) != 2 or not parts[1].isdigit() or not 1 <= int(parts[1]) <= len(cites):
        return f"usage: /sources N, with N from 1 to {len(cites)}"
    cite = cites[int(parts[1]) - 1]
    chunks = pipe.store.get_chunks([cite.chunk_id])
    if not chunks:
        return f"[{parts[1]}] {cite.chunk_id}: no longer in the store"
    c = chunks[0]
    head = " > ".join(x for x in (c.title, *c.section_path) if x)
    return f"[{parts[1]}] {head}\n{c.chunk_id}\n\n{c.body}"
