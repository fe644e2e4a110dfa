"""The routes that answer (issue 48: one router per area): ``POST /ask``, ``POST /search`` and
``GET /conversations/{id}`` (table, scope and conversations in :mod:`clinqa.service.routes`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from clinqa.answer.types import Answer
from clinqa.cache import cached_ask
from clinqa.logs.querylog import model_id_of
from clinqa.service.models import AskRequest, AskResponse, ConversationRecord, SearchHit, SearchRequest, SearchResponse
from clinqa.service.state import ServiceDep, Who, error_responses, plain

#: header the web page sends so its questions are logged with source "web"
CLIENT_HEADER = "X-Clinqa-Client"

router = APIRouter()


@router.post("/ask", response_model=AskResponse, tags=["answers"],
          responses=error_responses(400, 401, 403, 404, 409, 413, 422))
def ask(req: AskRequest, request: Request, svc: ServiceDep, who: Who) -> dict[str, Any]:
    """Answer ``question`` from the ingested documents with numbered citations, or refuse and
    say why (``refused``, ``reason``, ``related_topics``).

    ``conversation: true`` starts a conversation, ``conversation_id`` continues one: the question
    is read with the turn before it into ``standalone_question``, which is answered (cached and
    logged as any question); ``conversation_turns`` lists the turns it drew on.

    403 when ``patient_id`` is outside the key's scope; 404 when ``conversation_id`` is unknown,
    expired or another key's; 409 when the store is empty, or when ``patient_id`` is not the
    conversation's patient scope; 422 for a question longer than ``service.max_question_chars``,
    ``since`` after ``until``, or both ``conversation`` and ``conversation_id``. Logged in the
    query log (``query_id``) and served from the answer cache when possible."""
    pipe = svc.pipe
    svc.check_length(req.question, "question")
    who.require_patient(req.patient_id)
    conv = None
    if req.conversation_id is not None:
        conv = svc.conversation(req.conversation_id, who)
        who.require_patient(conv.patient_id)  # a patient that left the key's scope: 403, never named
        if conv.patient_id != req.patient_id:
            where = f"patient {conv.patient_id}" if conv.patient_id else "no patient (documents of no patient only)"
            raise HTTPException(409, f"conversation {conv.conversation_id!r} is scoped to {where}: a follow-up "
                                     "must send the same patient_id and cannot change the patient scope (start "
                                     "a new conversation)")
    svc.require_store()
    filters = pipe.filters(patient_id=req.patient_id, since=req.since, until=req.until, sources=req.sources)
    source = "web" if request.headers.get(CLIENT_HEADER, "").lower() == "web" else "api"
    hits: list[bool] = []

    def cached(question: str) -> Answer:
        answer, hit = cached_ask(pipe, svc.cache, question, filters, closed=req.closed)
        hits.append(hit)
        return answer

    def log(answer: Answer) -> str | None:
        if svc.log is None:
            return None
        return svc.log.record(answer, config_hash=pipe.config_hash(), model_id=model_id_of(pipe),
                              corpus_version=pipe.corpus_version(), source=source, api_key=who.name,
                              cache_hit=hits[-1])

    if not req.conversation and conv is None:
        with svc.lock:
            answer = cached(req.question)
            logged = {"config_hash": pipe.config_hash(), "model_id": model_id_of(pipe),
                      "corpus_version": pipe.corpus_version()}
        query_id = None
        if svc.log is not None:
            query_id = svc.log.record(answer, **logged, source=source, api_key=who.name, cache_hit=hits[-1])
        return {"query_id": query_id, "cache_hit": hits[-1], **plain(answer.to_dict())}

    from clinqa.conversation import ask_turn

    store = svc.conversations
    if conv is None:
        store.expire(pipe.settings.conversation.expire_days)
        conv = store.start(svc.owner(who), req.patient_id)
    with svc.lock:  # the follow-up is read with the encoder too
        answer, query_id = ask_turn(pipe, store, conv, req.question, filters, ask=cached, log=log)
    return {"query_id": query_id, "cache_hit": hits[-1], **plain(answer.to_dict())}


@router.post("/search", response_model=SearchResponse, tags=["answers"],
          responses=error_responses(400, 401, 403, 409, 413, 422))
def search(req: SearchRequest, svc: ServiceDep, who: Who) -> dict[str, Any]:
    """Ranked chunks for ``query`` (fused RRF rank plus dense and BM25 ranks and scores).
    Same scope and status codes as ``POST /ask``; not logged."""
    pipe = svc.pipe
    svc.check_length(req.query, "query")
    who.require_patient(req.patient_id)
    svc.require_store()
    filters = pipe.filters(patient_id=req.patient_id, since=req.since, until=req.until, sources=req.sources)
    with svc.lock:
        res = pipe.search(req.query, filters, k=req.k)
    hits = []
    for h in res.hits:
        c = h.chunk
        hits.append(SearchHit(
            rank=h.rank, rrf=float(h.score), dense_rank=h.ranks.get("dense"), dense_cosine=h.scores.get("dense"),
            bm25_rank=h.ranks.get("bm25"), bm25_score=h.scores.get("bm25"), rerank_score=h.scores.get("rerank"),
            chunk_id=c.chunk_id, doc_id=c.doc_id, title=c.title, section=c.section, year=c.year, source=c.source,
            patient_id=c.patient_id, note_date=c.note_date.isoformat() if c.note_date else None, text=c.body))
    return {"query": req.query, "filters": plain(res.filters.to_dict()), "hits": hits}


@router.get("/conversations/{conversation_id}", response_model=ConversationRecord, tags=["answers"],
         responses=error_responses(401, 403, 404))
def conversation(conversation_id: str, svc: ServiceDep, who: Who) -> dict[str, Any]:
    """A conversation this key started (``POST /ask`` with ``conversation: true``) with its turns,
    oldest first: each the question as typed, the standalone question answered, how it was read,
    the turns it drew on, its query id and whether it was refused. 404 when it is unknown, expired
    or another key's (the same status and message: never told apart); 403 when its patient is no longer in the
    key's scope (the patient is not named)."""
    conv = svc.conversation(conversation_id, who)
    who.require_patient(conv.patient_id)
    d = conv.to_dict()
    return {k: d[k] for k in ("conversation_id", "patient_id", "created", "updated", "turns")}
