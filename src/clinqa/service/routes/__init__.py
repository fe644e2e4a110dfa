"""The routes of the HTTP API and the web page, one :class:`fastapi.APIRouter` per area (issue 48):
:mod:`.service` (page, health, key, counts, examples), :mod:`.answers` (questions, searches,
conversations), :mod:`.documents` (documents and chunks) and :mod:`.feedback` (grades and logged queries).
:func:`clinqa.service.app.create_app` includes :data:`ROUTERS` in this order; every route reaches the app's
:class:`clinqa.service.state.Service` through the dependency :data:`clinqa.service.state.ServiceDep`.

Routes (every data route needs ``X-API-Key`` when ``service.api_keys`` is set, else 401; errors
are ``{"detail": message}``):

==========================  =====================================================================
``GET /``                   the web page (no key needed to load it; the page asks for one)
``GET /health``             200 ``{"status": "ok", ...}`` (no key)
``GET /whoami``             the key's name and patient scope
``GET /stats``              counts only, of what the key may see (documents, chunks, levels, years, ...)
``GET /examples``           three example questions for the page, from headings of non-patient documents
``POST /ask``               answer or refusal + ``query_id``; 403 patient out of scope, 409 empty
                            store, 400 bad input (ClinqaError), 422 invalid/too long, 413 body
``POST /search``            ranked chunks; same codes as /ask
``GET /documents``          documents this key may see; ``?patient_id=`` 403 out of scope
``GET /documents/{id}``     metadata and chunks by section; 404 unknown, 403 another patient's note
                            (a note id of such a patient is 403 whether or not the note exists)
``GET /chunks/{id}``        a chunk, its neighbours, highlight offsets; 404 / 403 as above
``POST /feedback``          grade a logged answer; 404 unknown query, 403 query scoped to a patient
                            out of scope or logged under another key, 409 query log disabled,
                            422 invalid
``GET /queries/{id}``       the logged query with its feedback; 404 / 403 / 409 as /feedback
``GET /conversations/{id}`` a conversation of this key with its turns; 404 unknown, expired or
                            another key's (never told apart), 403 its patient out of scope
==========================  =====================================================================

Scope: a key reads notes only of the patients it lists (``["*"]``: all). Questions and searches
without ``patient_id`` never see notes (the store query enforces it); document listings show
non-patient documents plus notes of patients in scope; everything naming or returning another
patient's note is 403. A note id names its patient (``note:<patient>:<note>``), so the scope is
decided from the id before the store is asked: an out-of-scope note id is 403 whether or not the
note exists (404 would tell which notes exist); 404 only for ids the key could read if they existed.
``/stats`` counts only what the key may see. With keys configured, a logged query (``/queries``,
``/feedback``) is readable and ratable only with the key it was asked with.

Conversations (issue 40): ``POST /ask`` with ``conversation: true`` starts one, with ``conversation_id``
continues it; the follow-up is read with the turn before it into a standalone question
(:func:`clinqa.conversation.ask_turn`), which goes through the same cached, logged ask as a plain
question. A conversation belongs to the key that started it (its name;
:data:`clinqa.service.state.ANONYMOUS_OWNER` when no keys are configured, so then every caller shares them)
and to the patient scope it started with: another key gets 404 for it, exactly as for an unknown id, and a
follow-up with another ``patient_id`` (or none) is 409 (as :class:`clinqa.logs.conversations.ScopeChanged`
in the CLI), after the usual 403 for a patient out of scope.

Every ``POST /ask`` goes through the answer cache (:func:`clinqa.cache.cached_ask`) and is recorded
in the query log with source ``"web"`` (header ``X-Clinqa-Client: web``, sent by the page) or
``"api"``, and the key's name.
"""

from __future__ import annotations

from fastapi import APIRouter

from clinqa.service.routes import answers, documents, feedback, service

#: every router of the app, in the order :func:`clinqa.service.app.create_app` includes them
ROUTERS: tuple[APIRouter, ...] = (service.router, answers.router, documents.router, feedback.router)
