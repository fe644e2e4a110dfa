"""The routes that read the store (issue 48: one router per area): ``GET /documents``,
``GET /documents/{id}`` and ``GET /chunks/{id}`` (table and scope in :mod:`clinqa.service.routes`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from clinqa.answer.types import citation_url
from clinqa.service.auth import Principal
from clinqa.service.highlight import highlight_spans
from clinqa.service.models import ChunkResponse, ChunkText, DocumentDetail, DocumentList, DocumentSummary, SectionModel
from clinqa.service.state import Service, ServiceDep, Who, error_responses

router = APIRouter()


@router.get("/documents", response_model=DocumentList, tags=["documents"], responses=error_responses(401, 403))
def documents(svc: ServiceDep, who: Who,
              patient_id: str | None = Query(None, description="Only this patient's notes (403 out of scope)."),
              source: str | None = Query(None, description="Only this source (case-insensitive).")
              ) -> dict[str, Any]:
    """Documents this key may see, sorted by id: every non-patient document plus the notes of
    patients in scope; with ``patient_id``, only that patient's notes."""
    who.require_patient(patient_id)
    docs = [d for d in svc.documents() if who.may_read(d["patient_id"])]
    if patient_id is not None:
        docs = [d for d in docs if d["patient_id"] == patient_id]
    if source:
        docs = [d for d in docs if (d["source"] or "").lower() == source.lower()]
    return {"count": len(docs), "documents": [DocumentSummary(**d) for d in docs]}


def _document(svc: Service, doc_id: str, who: Principal) -> dict[str, Any]:
    """The listing row of document ``doc_id`` (:meth:`Service.documents`) if ``who`` may read it: 403 for a
    note id out of scope before the lookup, 404 unknown (:meth:`Service.require_id_scope`)."""
    cands = svc.require_id_scope(doc_id, who)
    doc = next((d for d in svc.documents() if d["doc_id"] == doc_id), None)
    if doc is None:
        raise svc.not_found("document", doc_id, cands, who)
    who.require_patient(doc["patient_id"])
    return doc


@router.get("/documents/{doc_id:path}", response_model=DocumentDetail, tags=["documents"],
         responses=error_responses(401, 403, 404))
def document(doc_id: str, svc: ServiceDep, who: Who) -> dict[str, Any]:
    """One document: metadata and every chunk grouped by section, in reading order.
    404 unknown id; 403 a note of a patient outside the key's scope, decided from a note id
    (``note:<patient>:...``) before looking it up: 403 whether or not such a note exists."""
    doc = _document(svc, doc_id, who)
    rows = svc.doc_chunks(doc_id, doc["patient_id"], [
        "chunk_id", "hierarchy_level", "chunk_index", "body", "section_path", "url", "doi", "organization",
        "authors", "topics", "note_date", "note_type"])
    sections: dict[tuple[str, ...], list[ChunkText]] = {}
    for r in rows:
        sections.setdefault(tuple(r["section_path"] or []), []).append(ChunkText(**{
            k: r[k] for k in ("chunk_id", "hierarchy_level", "chunk_index", "body")}))
    first = rows[0] if rows else {}
    meta = {k: first.get(k) or "" for k in ("url", "doi", "organization", "note_type")}
    meta |= {"note_date": first.get("note_date") or None, "authors": first.get("authors") or [],
             "topics": first.get("topics") or []}
    return {**doc, **meta, "sections": [
        SectionModel(section_path=list(p), section=" > ".join(p), chunks=sorted(cs, key=lambda c: c.chunk_index))
        for p, cs in sections.items()]}


@router.get("/chunks/{chunk_id:path}", response_model=ChunkResponse, tags=["documents"],
         responses=error_responses(401, 403, 404))
def chunk(chunk_id: str, svc: ServiceDep, who: Who,
          highlight: str = Query("", max_length=20_000, description="Text to locate in the chunk (a citation's "
                                 "quote); its offsets come back in highlights."),
          context: int = Query(1, ge=0, le=20, description="Neighbouring chunks to return on each side.")
          ) -> dict[str, Any]:
    """A chunk (a citation's passage) with the chunks just before and after it in the same
    document and section, and where ``highlight`` occurs in it. Neighbours are found through the
    store: every chunk of the document (``Filters(doc_ids=[doc], patient_id=its patient)``),
    kept when it has the same section path and hierarchy level, ordered by ``chunk_index``.
    404 unknown id; 403 a note of a patient outside the key's scope, decided from the id (a
    note's chunk ids start with its ``note:<patient>:`` id) before looking it up."""
    cands = svc.require_id_scope(chunk_id, who)
    found = svc.pipe.store.get_chunks([chunk_id])
    if not found:
        raise svc.not_found("chunk", chunk_id, cands, who)
    c = found[0]
    who.require_patient(c.patient_id)
    prev: list[ChunkText] = []
    nxt: list[ChunkText] = []
    if context:
        rows = svc.doc_chunks(c.doc_id, c.patient_id, ["chunk_id", "hierarchy_level", "chunk_index", "body",
                                                       "section_path"])
        same = sorted((r for r in rows if list(r["section_path"] or []) == c.section_path
                       and r["hierarchy_level"] == c.hierarchy_level and r["chunk_id"] != c.chunk_id),
                      key=lambda r: r["chunk_index"])
        as_text = [ChunkText(**{k: r[k] for k in ("chunk_id", "hierarchy_level", "chunk_index", "body")})
                   for r in same]
        prev = [t for t in as_text if t.chunk_index < c.chunk_index][-context:]
        nxt = [t for t in as_text if t.chunk_index > c.chunk_index][:context]
    return {"chunk_id": c.chunk_id, "doc_id": c.doc_id, "title": c.title, "section": c.section,
            "section_path": c.section_path, "hierarchy_level": c.hierarchy_level, "chunk_index": c.chunk_index,
            "year": c.year, "source": c.source, "url": citation_url(c), "patient_id": c.patient_id,
            "note_date": c.note_date.isoformat() if c.note_date else None, "note_type": c.note_type,
            "page_start": c.page_start, "page_end": c.page_end, "ocr": c.ocr,
            "body": c.body, "highlights": highlight_spans(c.body, highlight) if highlight else [],
            "previous": prev, "next": nxt}
