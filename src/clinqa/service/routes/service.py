"""The service's own routes (issue 48: one router per area): the web page at ``/``, ``GET /health``,
``GET /whoami``, ``GET /stats`` and ``GET /examples`` (table in :mod:`clinqa.service.routes`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from clinqa.logs.querylog import FAILURE_CATEGORIES
from clinqa.service.models import MAX_COMMENT_CHARS, ExamplesResponse, HealthResponse, StatsResponse, WhoAmI
from clinqa.service.state import ServiceDep, Who, error_responses

#: the page's templates (``service/templates/``)
TEMPLATES = Jinja2Templates(env=jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parents[1] / "templates"), autoescape=True))
#: the page's Content-Security-Policy: its own scripts, styles and requests only, never framed
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request, svc: ServiceDep) -> HTMLResponse:
    """The web page (question box, filters, answer, citations, feedback; on an empty page example
    questions and what the store holds, read with the key through ``/examples``, ``/stats`` and
    ``/documents``; ``?q=`` asks on load, every question asked is put in the URL)."""
    sources = sorted({d["source"] for d in svc.documents() if d["source"] and d["patient_id"] is None})
    resp = TEMPLATES.TemplateResponse(request, "index.html", {
        "keys_required": svc.keys.required,
        "max_question_chars": svc.settings.service.max_question_chars,
        "max_comment_chars": MAX_COMMENT_CHARS,
        "categories": FAILURE_CATEGORIES,
        "sources": sources,
        "llm_backend": svc.pipe.settings.llm.backend,
    })
    resp.headers["Content-Security-Policy"] = PAGE_CSP
    return resp


@router.get("/health", response_model=HealthResponse, tags=["service"])
def health(svc: ServiceDep) -> dict[str, Any]:
    """200 when the process is up and its store can be read (no key needed)."""
    return {"status": "ok", "store_empty": svc.pipe.store.count() == 0, "version": svc.version}


@router.get("/whoami", response_model=WhoAmI, tags=["service"], responses=error_responses(401))
def whoami(svc: ServiceDep, who: Who) -> dict[str, Any]:
    """The key's name and the patients whose notes it may read."""
    return {"name": who.name, "patients": who.scope(), "keys_required": svc.keys.required}


@router.get("/stats", response_model=StatsResponse, tags=["service"], responses=error_responses(401))
def stats(svc: ServiceDep, who: Who) -> dict[str, Any]:
    """Counts of the store (no ids): documents, chunks, per level, per source, number of patients
    with notes. A key with the ``"*"`` scope gets the counts of the whole store; any other key
    (and anonymous access) only of what it may see: documents of no patient plus the notes of
    the patients in its scope, so the counts never tell how many patients or notes exist
    outside it (``patients`` counts the patients in scope that have notes)."""
    pipe = svc.pipe
    with svc.lock:
        if who.all_patients:
            s = pipe.stats()
        else:
            s = svc.scoped_stats(who) | {"model_id": pipe.store_meta().get("model_id")}
        s["corpus_version"] = pipe.corpus_version()
    s["years"] = svc.years(who)
    return {k: s[k] for k in ("documents", "chunks", "levels", "sources", "patients", "model_id", "corpus_version",
                              "years")}


@router.get("/examples", response_model=ExamplesResponse, tags=["service"], responses=error_responses(401))
def examples(svc: ServiceDep, who: Who) -> dict[str, Any]:
    """Up to three example questions for the web page's empty state, each about a section heading of
    another ingested document of no patient (guidelines, articles; never a patient's note), chosen
    deterministically and, where possible, ones the service answers (``answered``). The same for every
    key (questions without a patient never see notes); computed once per store version."""
    return {"examples": svc.examples()}  # ``who``: the key is checked (401), no note is ever an example
