"""``clinqa serve``: the HTTP API and the web page."""

from __future__ import annotations

from typing import Annotated

import typer

from clinqa.cli.common import Config, DataDir, Preset, Sets, handle_errors, settings_for


@handle_errors()
def serve(
    host: Annotated[str | None, typer.Option("--host", help="Interface to listen on (default service.host, "
                                             "127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option("--port", min=1, max=65535, help="TCP port (default service.port, "
                                             "8000).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes. Each loads the model and "
                                         "answers one question at a time.")] = 1,
    data_dir: DataDir = None,
    config: Config = None,
    preset: Preset = None,
    sets: Sets = None,
) -> None:
    """Start the HTTP API and the web page (uvicorn): http://HOST:PORT/ for clinicians, /docs for the API.

    API keys and their patient scopes come from service.api_keys in --config. The validated
    settings reach every worker as JSON in $CLINQA_SETTINGS_JSON (see clinqa.service.app.run)."""
    from clinqa.extras import extra_needed

    with extra_needed("clinqa serve"):
        from clinqa.service.app import run
    from clinqa.store import check_workers

    settings = settings_for(data_dir, config, preset, sets)
    check_workers(settings, workers)  # qdrant-edge: one process holds the store
    run(settings, host=host, port=port, workers=workers)


