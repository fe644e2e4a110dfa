"""``clinqa report pilot|gaps``: reports on the query log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

import clinqa.cli.render as render
from clinqa.cli.ask import LogPath, SinceDay, UntilDay
from clinqa.cli.common import PLAIN, Config, DataDir, Preset, Sets, days, handle_errors, pipeline, write_outputs

report_app = typer.Typer(help="Reports on the query log: pilot figures and content gaps.", no_args_is_help=True,
                         **PLAIN)


def _logged_rows(data_dir: Path | None, config: Path | None, preset: str | None, sets: list[str] | None,
                 log_path: Path | None, since: str | None, until: str | None) -> list[dict[str, Any]]:
    """The logged questions between the ``--since`` and ``--until`` days, for the reports."""
    from clinqa.logs import open_existing_log

    start, end = days(since, until)
    with open_existing_log(pipeline(data_dir, config, preset, sets), log_path) as log:
        return log.rows(since=start, until=end)


@report_app.command("pilot")
@handle_errors()
def report_pilot(
    since: SinceDay = None,
    until: UntilDay = None,
    output: Annotated[Path | None, typer.Option("--output", help="Write pilot.json and pilot.png here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    log_path: LogPath = None,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Pilot figures: questions, feedback and success rates, satisfaction, latency p50/p95/max/std,
    share under 5 s, refusal rate, cost per query, failure categories."""
    from clinqa.reports.pilot import format_pilot, pilot_figures, plot_pilot

    rows = _logged_rows(data_dir, config, preset, sets, log_path, since, until)
    fig = pilot_figures(rows)
    typer.echo(json.dumps(fig, indent=2) if as_json else format_pilot(fig))
    written = write_outputs(output, {"pilot.json": json.dumps(fig, indent=2),
                                     "pilot.png": lambda path: plot_pilot(rows, path)})
    if output and not as_json:
        typer.echo(render.wrote(output, written))


@report_app.command("gaps")
@handle_errors()
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
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Content gaps: refused and poorly rated questions clustered by their stored embeddings into
    topics, labelled by c-TF-IDF terms, with example questions and failure categories."""
    from clinqa.reports.gaps import format_gaps, gap_report

    rows = _logged_rows(data_dir, config, preset, sets, log_path, since, until)
    rep = gap_report(rows, min_size=min_size, distance_threshold=threshold)
    text = format_gaps(rep)
    typer.echo(json.dumps(rep, indent=2) if as_json else text)
    written = write_outputs(output, {"gaps.json": json.dumps(rep, indent=2), "gaps.txt": text + "\n"})
    if output and not as_json:
        typer.echo(render.wrote(output, written))
