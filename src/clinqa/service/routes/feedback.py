"""The routes of the query log (issue 48: one router per area): ``POST /feedback`` and ``GET /queries/{id}``
(table in :mod:`clinqa.service.routes`; who may read which query: :meth:`clinqa.service.state.Service.query_record`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from clinqa.service.models import FeedbackRequest, FeedbackResponse, QueryRecord
from clinqa.service.state import ServiceDep, Who, error_responses, plain

router = APIRouter()


@router.post("/feedback", response_model=FeedbackResponse, tags=["feedback"],
          responses=error_responses(401, 403, 404, 409, 413, 422))
def feedback(req: FeedbackRequest, svc: ServiceDep, who: Who) -> dict[str, Any]:
    """Grade a logged answer: ``score`` 1.0 (Excellent), 0.6 (Acceptable) or 0.2 (Very poor), an
    optional comment and failure category. Returns every feedback entry of the query, read
    back from the log. 404 unknown query or (API keys configured) one asked with another key, never told
    apart; 403 the key's own query about a patient that has left its scope; 409 query log disabled
    (:meth:`Service.query_record`)."""
    svc.query_record(req.query_id, who)
    log = svc.require_querylog()
    try:
        log.add_feedback(req.query_id, req.score, req.comment, req.category)
    except KeyError:
        raise HTTPException(404, f"no query {req.query_id!r} in the query log") from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    rec = log.get(req.query_id) or {}
    return {"query_id": req.query_id, "feedback": plain(rec.get("feedback") or [])}


@router.get("/queries/{query_id}", response_model=QueryRecord, tags=["feedback"],
         responses=error_responses(401, 403, 404, 409))
def query(query_id: str, svc: ServiceDep, who: Who) -> JSONResponse:
    """The logged query (question, answer, filters, key name, cache hit, ...) with its
    feedback, for reading feedback back. 404 unknown or (API keys configured) asked with another key, never
    told apart; 403 the key's own query about a patient that has left its scope; 409 query log disabled
    (:meth:`Service.query_record`)."""
    rec = svc.query_record(query_id, who)
    out = plain({k: v for k, v in rec.items() if not k.endswith(("vector", "embedding"))})
    out.setdefault("query_id", query_id)
    return JSONResponse(jsonable_encoder(QueryRecord.model_validate(out)))
