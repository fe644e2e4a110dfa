"""Scope probe of every route that takes an id (issue 51 item 1), on the small real store of service_data:
three API keys ("all": every patient, "p1": patient P1, "none": no patient) and two patients (P1, P2).

Each key probes the query, feedback, conversation, document and chunk routes with its own ids, the other keys'
ids and unknown ids. Two things must hold for every response:

- no body names a patient outside the asking key's scope (not even one the request itself named);
- another key's query or conversation id gets the same status and the same body (its id aside) as an id that
  was never issued, so a key cannot tell which ids exist.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from service_data import ask_ok, headers, patient_chunk_ids, settings_for

from clinqa.pipeline import Pipeline
from clinqa.service.app import create_app

KEYS = ("all", "p1", "none")
PATIENTS = ("P1", "P2")
#: the patients each key may read
SCOPE = {"all": {"P1", "P2"}, "p1": {"P1"}, "none": set()}
UNKNOWN = "0123456789abcdef" * 2  # 32 hex characters, as a real id, never issued
GUIDE_Q = "How long does the cough last after acute bronchitis?"
NOTE_Q = "Which anticoagulant was started?"


@pytest.fixture(scope="module")
def issued(client: TestClient) -> dict[str, dict[str, list[str]]]:
    """``{key: {"queries": [...], "conversations": [...]}}``: query and conversation ids each key made, about
    no patient and about every patient in its scope."""
    out: dict[str, dict[str, list[str]]] = {}
    for key in KEYS:
        queries, convs = [], []
        for patient in [None, *sorted(SCOPE[key])]:
            body: dict[str, object] = {"question": NOTE_Q if patient else GUIDE_Q}
            if patient:
                body["patient_id"] = patient
            queries.append(ask_ok(client, key, **body)["query_id"])
            a = ask_ok(client, key, **body, conversation=True)
            queries.append(a["query_id"])
            convs.append(a["conversation_id"])
        out[key] = {"queries": queries, "conversations": convs}
    return out


def _probes(client: TestClient, key: str, ident: str, kind: str) -> list[Response]:
    """Every route that takes a query id (``kind`` "queries") or a conversation id ("conversations")."""
    h = headers(key)
    if kind == "queries":
        return [client.get(f"/queries/{ident}", headers=h),
                client.post("/feedback", json={"query_id": ident, "score": 0.2}, headers=h)]
    return [client.get(f"/conversations/{ident}", headers=h),
            client.post("/ask", json={"question": "and the dose?", "conversation_id": ident}, headers=h)]


def _names_no_patient_out_of_scope(key: str, r: Response) -> None:
    for p in set(PATIENTS) - SCOPE[key]:
        assert p not in r.text, (key, r.request.method, str(r.request.url), r.status_code, r.text)


def test_another_keys_id_is_answered_as_an_unknown_id(client: TestClient, issued: dict) -> None:
    for key in KEYS:
        for kind in ("queries", "conversations"):
            unknown = _probes(client, key, UNKNOWN, kind)
            assert all(r.status_code == 404 for r in unknown), [r.text for r in unknown]
            for other in KEYS:
                if other == key:
                    continue
                for ident in issued[other][kind]:
                    for got, ref in zip(_probes(client, key, ident, kind), unknown, strict=True):
                        assert got.status_code == ref.status_code == 404, (key, other, got.request.url, got.text)
                        assert got.text.replace(ident, UNKNOWN) == ref.text, (key, other, got.text, ref.text)
                        _names_no_patient_out_of_scope(key, got)
            # its own ids are readable
            for ident in issued[key][kind]:
                assert _probes(client, key, ident, kind)[0].status_code == 200


def test_no_response_names_a_patient_outside_the_scope(client: TestClient, service_pipe: Pipeline,
                                                       issued: dict) -> None:
    chunks = {p: patient_chunk_ids(service_pipe, p)[0].replace("#", "%23") for p in PATIENTS}
    for key in KEYS:
        h = headers(key)
        seen: list[Response] = []
        for p in PATIENTS:
            seen += [
                client.post("/ask", json={"question": NOTE_Q, "patient_id": p}, headers=h),
                client.post("/search", json={"query": "warfarin apixaban", "patient_id": p}, headers=h),
                client.get("/documents", params={"patient_id": p}, headers=h),
                client.get(f"/documents/note:{p}:N1", headers=h),
                client.get(f"/documents/note:{p}:BOGUS", headers=h),
                client.get(f"/chunks/{chunks[p]}", headers=h),
                client.get(f"/chunks/note:{p}:BOGUS%23hpi%230", headers=h),
            ]
        for other in KEYS:
            for kind in ("queries", "conversations"):
                for ident in issued[other][kind]:
                    seen += _probes(client, key, ident, kind)
            # continuing another key's conversation with a patient the key may not read
            for ident in issued[other]["conversations"]:
                seen.append(client.post("/ask", json={"question": "and the dose?", "conversation_id": ident,
                                                      "patient_id": "P2"}, headers=h))
        seen += [client.get("/documents", headers=h), client.get("/stats", headers=h),
                 client.get("/whoami", headers=h)]
        for r in seen:
            _names_no_patient_out_of_scope(key, r)
        refused = [r for r in seen if r.status_code == 403]
        if key != "all":
            assert refused and all("outside its scope" in r.json()["detail"] for r in refused)
        else:
            assert not refused


def test_scoped_bm25_scores_do_not_move_when_another_patients_notes_are_added(
        tmp_path: Path, service_corpus: Path) -> None:
    """Issue 51 item 2, through /search on the default store (LanceDB): the BM25 scores and order key "p1" sees
    for patient P1, and key "none" sees without a patient, stay exactly as they were after another patient's
    notes (a new patient P3, and more of P2's) are ingested; no hit is another patient's."""
    pipe = Pipeline(settings_for(tmp_path / "store"))
    pipe.ingest([service_corpus / "guides", service_corpus / "notes.jsonl"], progress=False)
    probes = [("p1", {"query": "warfarin apixaban atrial fibrillation bleeding", "patient_id": "P1"}),
              ("none", {"query": "warfarin apixaban atrial fibrillation bleeding cough"})]

    def bm25(client: TestClient) -> list[list[tuple[str, float | None, int | None]]]:
        out = []
        for key, body in probes:
            r = client.post("/search", json=body, headers=headers(key))
            assert r.status_code == 200, r.text
            hits = r.json()["hits"]
            assert {h["patient_id"] for h in hits} <= {body.get("patient_id")}
            out.append(sorted(((h["chunk_id"], h["bm25_score"], h["bm25_rank"]) for h in hits
                               if h["bm25_rank"] is not None), key=lambda x: x[2]))
        return out

    with TestClient(create_app(pipe.settings, pipe)) as client:
        before = bm25(client)
        assert all(before)
        more = [{"patient_id": "P3", "note_id": "N1", "date": "2024-01-05", "note_type": "progress",
                 "author_role": "physician", "text": "HPI:\nWarfarin warfarin for atrial fibrillation; bleeding "
                 "gums.\n\nPlan:\nApixaban instead of warfarin; check INR."},
                {"patient_id": "P2", "note_id": "N9", "date": "2024-06-01", "note_type": "progress",
                 "author_role": "physician", "text": "HPI:\nNo bleeding since warfarin was stopped.\n\n"
                 "Plan:\nApixaban for atrial fibrillation."}]
        (tmp_path / "more.jsonl").write_text("".join(json.dumps(n) + "\n" for n in more))
        pipe.ingest([tmp_path / "more.jsonl"], progress=False)
        assert bm25(client) == before
