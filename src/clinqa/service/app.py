"""The HTTP API and the clinicians' web page (``clinqa serve``): :func:`create_app` builds the app
(middleware, error handler, start-up, static files) and includes the routers of
:mod:`clinqa.service.routes` (one per area; the table of routes, their status codes and the patient scope
are there); what the routes share is :class:`clinqa.service.state.Service`, one per app.

Concurrency: one :class:`clinqa.pipeline.Pipeline` per process, built when the app is created
and warmed up (encoder, store) at start-up. FastAPI runs the sync routes in its thread pool;
questions and searches (encoder, tokenizer, reranker, language model) take one lock, so a process
answers one question at a time while document and chunk reads go on beside it. Scale with
``clinqa serve --workers N`` (each worker builds its own app, :func:`app_from_env`). The query log
and the answer cache are shared by the threads (each is thread- and process-safe).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from clinqa.errors import ClinqaError, ConfigError
from clinqa.pipeline import Pipeline
from clinqa.service.auth import KeyRing
from clinqa.service.examples import _example_for, example_candidates
from clinqa.service.highlight import highlight_spans
from clinqa.service.routes import ROUTERS
from clinqa.service.routes.answers import CLIENT_HEADER
from clinqa.service.routes.service import PAGE_CSP
from clinqa.service.state import ANONYMOUS_OWNER, Service, note_patients
from clinqa.settings import Settings, load_settings

#: names of the service's other modules that were defined here before the routes became modules (issue 48)
__all__ = ["ANONYMOUS_OWNER", "CLIENT_HEADER", "ENV_CONFIG", "ENV_SETTINGS", "PAGE_CSP", "BodyLimitMiddleware",
           "Service", "_example_for", "app_from_env", "create_app", "example_candidates", "highlight_spans",
           "note_patients", "run"]

HERE = Path(__file__).resolve().parent
logger = logging.getLogger(__name__)
#: environment variables read by :func:`app_from_env` (set by ``clinqa serve``)
ENV_SETTINGS = "CLINQA_SETTINGS_JSON"
ENV_CONFIG = "CLINQA_CONFIG"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimitMiddleware:
    """Reject request bodies over ``max_bytes`` with 413 ``{"detail": ...}``: at once when the
    ``Content-Length`` header says so, else while reading a streamed (chunked) body. A body within
    the limit is buffered and replayed to the app unchanged."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _reject(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body larger than {self.max_bytes} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes:
                    await self._reject(send)
                    return
        buffered: list[Message] = []
        size = 0
        while True:  # read the whole body (bounded) before the app sees any of it
            message = await receive()
            if message["type"] != "http.request":
                buffered.append(message)  # a disconnect: let the app see it
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._reject(send)
                return
            buffered.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)


def create_app(settings: Settings, pipeline: Pipeline | None = None) -> FastAPI:
    """The FastAPI app: API routes (:data:`clinqa.service.routes.ROUTERS`), the web page at ``/`` and its
    static files at ``/static``; the :class:`Service` the routes share in ``app.state.service``.

    ``settings.service`` gives the keys, body and question limits; the pipeline (built from
    ``settings`` unless given) answers. Raises :class:`ConfigError` when an ``env:VAR`` key is unset.
    """
    svc = Service(settings, pipeline)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        svc.warm_up()
        yield

    app = FastAPI(title="clinqa", version=svc.version, lifespan=lifespan,
                  description="Evidence-grounded clinical question answering: cited answers from the ingested "
                              "documents, or a refusal that says why. Send the API key in the X-API-Key header.")
    app.state.service = svc
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.service.max_body_bytes)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.exception_handler(ClinqaError)
    async def _clinqa_error(request: Request, exc: ClinqaError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.middleware("http")
    async def _headers(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    for router in ROUTERS:
        app.include_router(router)
    return app


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (``clinqa serve``; each worker process calls it).

    Settings come from ``$CLINQA_SETTINGS_JSON`` (a JSON dump of :class:`Settings`, written by
    ``clinqa serve`` after validating the config once), else from the config file
    ``$CLINQA_CONFIG`` (optional) with ``$CLINQA_DATA_DIR``. Raises :class:`ConfigError`."""
    raw = os.environ.get(ENV_SETTINGS)
    if raw:
        try:
            settings = Settings.model_validate_json(raw)
        except ValueError as exc:
            raise ConfigError(f"${ENV_SETTINGS}: invalid settings: {exc}") from None
    else:
        config = os.environ.get(ENV_CONFIG)
        settings = load_settings(Path(config) if config else None)
    return create_app(settings)


def run(settings: Settings, host: str | None = None, port: int | None = None, workers: int = 1,
        log_level: str = "info") -> None:
    """Serve the app with uvicorn until interrupted (``clinqa serve``).

    The settings (``host``/``port`` override ``service.host``/``service.port``) are validated here,
    API keys included, then passed to every worker as JSON in ``$CLINQA_SETTINGS_JSON``; uvicorn
    starts ``workers`` processes that each call :func:`app_from_env` (factory mode), so each
    builds its own pipeline, loads the model once and shares the store, query log and cache files.
    ``env:VAR`` keys stay references and are read in each worker from its (inherited) environment.
    Raises :class:`ConfigError` before anything listens."""
    import uvicorn

    KeyRing(settings.service.api_keys)  # an unset env:VAR key fails here, not in every worker
    service = settings.service.model_copy(update={"host": host or settings.service.host,
                                                  "port": port or settings.service.port})
    settings = settings.model_copy(update={"service": service})
    os.environ[ENV_SETTINGS] = settings.model_dump_json()
    if not service.api_keys and service.host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning("no service.api_keys configured: anyone who reaches %s:%s can ask questions (patient "
                       "notes stay unreadable without a key)", service.host, service.port)
    uvicorn.run("clinqa.service.app:app_from_env", factory=True, host=service.host, port=service.port,
                workers=workers, log_level=log_level)
