"""Command-line interface: a thin shell over :class:`clinqa.pipeline.Pipeline`.

One module per job: :mod:`~clinqa.cli.corpus` (ingest, stats, documents, remove, migrate, demo),
:mod:`~clinqa.cli.ask` (ask, search, feedback, replay), :mod:`~clinqa.cli.eval`,
:mod:`~clinqa.cli.train`, :mod:`~clinqa.cli.report`, :mod:`~clinqa.cli.serve`; every
human-readable output is in :mod:`~clinqa.cli.render`, and what commands share (settings from
``--preset``/``--config``/``--set``/daily flags, the error wrapper, output folders) in
:mod:`~clinqa.cli.common`. ``app`` is the typer application, ``main`` the console entry point.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import typer

from clinqa.cli import ask as _ask
from clinqa.cli import chat as _chat
from clinqa.cli import corpus as _corpus
from clinqa.cli import serve as _serve
from clinqa.cli.common import PLAIN, exit_now
from clinqa.cli.eval import eval_app
from clinqa.cli.render import format_answer, refusal_sentence, related_items, source_groups
from clinqa.cli.report import report_app
from clinqa.cli.train import train_app

app = typer.Typer(help="clinqa: answers from your clinical corpus, with citations, or a helpful refusal.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, **PLAIN)

for _command in (_corpus.ingest, _ask.ask, _chat.chat, _ask.feedback, _ask.replay):
    app.command()(_command)
app.add_typer(report_app, name="report")
for _command in (_ask.search, _corpus.stats, _corpus.documents, _corpus.remove, _corpus.migrate, _corpus.demo):
    app.command()(_command)
app.add_typer(eval_app, name="eval")
app.add_typer(train_app, name="train")
app.command()(_serve.serve)

#: commands that end without the interpreter's final clean-up (:func:`clinqa.cli.common.exit_now`): each
#: question is a new process, and that clean-up took 0.1-0.4 s of a cold ``ask`` after the answer was printed
QUICK_EXIT = frozenset({"ask"})


def main() -> None:
    """Console entry point. A command that needs an extra that is not installed exits with status 2
    and one line naming it (``error: clinqa serve needs fastapi, which is not installed: pip install
    'clinqa[service]'``, :mod:`clinqa.extras`); each command does this itself
    (:func:`clinqa.cli.common.handle_errors`), this catches what is imported outside a command. A
    missing core module is re-raised (a broken install). A command of :data:`QUICK_EXIT` leaves through
    :func:`clinqa.cli.common.exit_now`."""
    from clinqa.extras import missing_extra

    try:
        app()
    except SystemExit as exc:
        if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT:
            exit_now(exc.code)
        raise
    except ModuleNotFoundError as exc:
        words = sys.argv[1:3] if sys.argv[1:2] and sys.argv[1] in ("eval", "train", "report") else sys.argv[1:2]
        found = missing_extra(exc, needed_by=" ".join(["clinqa", *words]))
        if found is None:
            raise
        typer.echo(f"error: {found}", err=True)
        sys.exit(2)


__all__ = ["app", "format_answer", "main", "refusal_sentence", "related_items", "source_groups"]
