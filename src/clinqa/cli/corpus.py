"""Corpus commands: ``ingest``, ``stats``, ``documents``, ``remove``, ``migrate``, ``demo``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

import clinqa.cli.render as render
from clinqa.cli.common import Config, DataDir, Preset, Sets, fail, handle_errors, pipeline, settings_for
from clinqa.errors import ClinqaError


@handle_errors()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    format: Annotated[str | None, typer.Option("--format", help="Force a loader: markdown, text, html, "
                                               "pdf, docx, jats, medquad, pubmedqa, beir, notes.")] = None,
    chunker: Annotated[str | None, typer.Option("--chunker", help="hierarchical (default), fixed, "
                                                "section, hybrid (overrides chunking.strategy).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ray: Annotated[bool, typer.Option("--ray", help="Chunk and embed on Ray (clinqa[ray]; docs/scale.md): a "
                                      "local cluster of --workers CPUs, or the one at --ray-address.")] = False,
    ray_address: Annotated[str | None, typer.Option("--ray-address", help="Join this Ray cluster (auto, "
                                                    "ray://host:10001) instead of starting a local one.")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Ray encoder actors (one per core or "
                                         "node).")] = 2,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Write nothing: parse every file, chunk and embed "
                                          "a sample of --sample documents, and estimate the ingest's time.")] = False,
    sample: Annotated[int, typer.Option("--sample", min=1, help="Documents embedded by --dry-run.")] = 64,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Load, chunk, embed and store documents. Exit code 1 if any file failed."""
    try:
        pipe = pipeline(data_dir, config, preset, sets, chunker=chunker)
        for p in paths:
            if not p.exists():
                raise ClinqaError(f"{p}: no such file or directory")
        if dry_run:
            from clinqa.ingest_progress import estimate

            est = estimate(pipe, paths, format=format, sample=sample)
            typer.echo(json.dumps(est, indent=2) if as_json else render.estimate_lines(est))
            if not as_json:  # each failure named, as the ingest names it (in --json: failed_files)
                for path, reason in est["failed_files"]:
                    typer.echo(f"error: {path}: {reason}", err=True)
            if est["failed_files"]:
                raise typer.Exit(1)  # as the ingest itself would exit
            return
        if ray or ray_address:
            from clinqa.ingest_ray import ingest_ray

            report = ingest_ray(pipe, paths, address=ray_address, workers=workers, format=format,
                                progress=not quiet and not as_json)
            for path, reason in report.failed:
                typer.echo(f"error: {path}: {reason}", err=True)
        else:
            report = pipe.ingest(paths, format=format, progress=not quiet and not as_json,
                                 on_error=lambda path, reason: typer.echo(f"error: {path}: {reason}", err=True))
    except KeyboardInterrupt:
        typer.echo("interrupted: finished batches are stored; run the same command again to continue", err=True)
        raise typer.Exit(130) from None
    typer.echo(json.dumps(report.to_dict(), indent=2) if as_json else "\n".join(render.ingest_summary(report)))
    if report.failed:
        raise typer.Exit(1)


@handle_errors()
def stats(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Documents and chunks in the store."""
    pipe = pipeline(data_dir, config, preset, sets)
    pipe.require_store(empty_ok=True)  # a mistyped --data-dir is reported, not created
    s = pipe.stats()
    typer.echo(json.dumps(s, indent=2) if as_json else "\n".join(render.stats_lines(s)))


@handle_errors()
def documents(
    source: Annotated[str | None, typer.Option("--source", help="Only documents of this source "
                                               "(case-insensitive).")] = None,
    patient: Annotated[str | None, typer.Option("--patient", help="Only this patient's notes.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """The documents in the store, sorted by id: id (what `clinqa remove` takes), title, source (and where
    it came from: metadata, --source, folder or loader default), year, chunks, file, ingested at.

    Patient notes are listed too, with their patient, as GET /documents lists them to a key that may read
    every patient: the CLI is the local operator, who can read the store itself. --patient lists one
    patient's notes only. '-' marks what a store written by an older clinqa did not keep."""
    pipe = pipeline(data_dir, config, preset, sets)
    pipe.require_store(empty_ok=True)
    rows = pipe.store.documents()
    if patient is not None:
        rows = [d for d in rows if d["patient_id"] == patient]
    if source:
        rows = [d for d in rows if (d["source"] or "").lower() == source.lower()]
    if as_json:
        typer.echo(json.dumps({"count": len(rows), "documents": rows}, indent=2, ensure_ascii=False))
    else:
        typer.echo("\n".join(render.documents_table(rows)))


@handle_errors()
def remove(
    doc_id: Annotated[str, typer.Argument(help="Document id, as shown in citations.")],
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Delete a document's chunks from the store."""
    pipe = pipeline(data_dir, config, preset, sets)
    pipe.require_store(empty_ok=True)
    n = pipe.remove(doc_id)
    if not n:
        raise fail(f"no document {doc_id!r} in the store", code=1)
    typer.echo(f"removed {doc_id}: {n} chunks")


@handle_errors()
def migrate(
    to: Annotated[str, typer.Option("--to", help="Target backend: 'qdrant' (a server, or local mode) or "
                                    "'qdrant-edge' (Qdrant's engine in the process, <data-dir>/qdrant-edge).")],
    qdrant_url: Annotated[str | None, typer.Option("--qdrant-url", help="Qdrant server URL (default "
                                                   "store.qdrant_url, else $QDRANT_URL, else local mode "
                                                   "in <data-dir>/qdrant).")] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace a Qdrant collection that already "
                                            "holds chunks.")] = False,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Chunks per write.")] = 256,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Copy the data dir's LanceDB store (chunks and their vectors, no re-embedding) into Qdrant or Qdrant
    Edge, check every chunk's id, payload and vector, and print the settings that switch to it (see
    docs/qdrant.md)."""
    if to not in ("qdrant", "qdrant-edge"):
        raise ClinqaError(f"--to {to!r}: the only targets are 'qdrant' and 'qdrant-edge'")
    from clinqa.store import LanceStore, build_store
    from clinqa.store.migrate import migrate_to_qdrant

    settings = settings_for(data_dir, config, preset, sets, store_backend=to, qdrant_url=qdrant_url)
    target = build_store(settings)
    report = migrate_to_qdrant(LanceStore(settings.data_dir / "lancedb"), target,  # type: ignore[arg-type]
                               batch_chunks=batch_size, progress=not quiet, overwrite=overwrite)
    typer.echo("\n".join(render.migrate_lines(report)))
    typer.echo(f"checked {report.verified} chunks: the same ids and payloads, vectors equal within "
               f"{report.max_vector_diff:.1e} after unit normalisation.")
    target.close()  # type: ignore[attr-defined]


DEMO_QUESTIONS = [
    "Should beta-blockers be started on the day of surgery in a beta-blocker naive patient?",
    "What is the first-line treatment for an acute gout flare?",
    "How is acute kidney injury staged?",
    "When should anticoagulation be started in atrial fibrillation based on CHA2DS2-VASc?",
    "How do I change a car tyre?",
]


@handle_errors()
def demo(
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Ingest the bundled guideline corpus (open-medicine, MIT) and answer demo questions."""
    from clinqa.corpora import guidelines_path

    pipe = pipeline(data_dir, config, preset, sets)
    path = guidelines_path()
    typer.echo(f"Ingesting the open-medicine guideline summaries from {path} (open-medicine by RamosFBC, MIT)")
    report = pipe.ingest([path], progress=True)  # a bar on a terminal, else a line every ingest.progress_interval_s
    typer.echo(render.demo_ingest_line(report))
    for q in DEMO_QUESTIONS:
        typer.echo("\n" + "=" * 78)
        typer.echo(render.format_answer(pipe.ask(q).to_dict()))


