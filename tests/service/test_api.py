"""The HTTP API on a small real store (FastAPI's TestClient, nothing mocked): every route under
every key scope, the status codes, the body and question limits, the query log and feedback,
generated answers through a local chat-completions server, and ``clinqa serve``'s settings hand-over."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer
from fastapi.testclient import TestClient
from service_data import KEYS, headers, patient_chunk_ids, settings_for
from typer.testing import CliRunner

from clinqa.logs.querylog import QueryLog
from clinqa.pipeline import Pipeline
from clinqa.retrieval import Filters
from clinqa.service.app import ENV_SETTINGS, app_from_env, create_app, highlight_spans

P1_Q = {"question": "Which anticoagulant was started?", "patient_id": "P1"}
P2_Q = {"question": "Which anticoagulant was started?", "patient_id": "P2"}
GUIDE_Q = {"question": "How long does the cough last after acute bronchitis?"}


@pytest.fixture(scope="module")
def p2_query_id(client: TestClient) -> str:
    """A question about P2 asked with key "all" (logged, P2-scoped)."""
    r = client.post("/ask", json=P2_Q, headers=headers("all"))
    assert r.status_code == 200, r.text
    return r.json()["query_id"]


def _text(payload: object) -> str:
    return json.dumps(payload)


# -- schema, health, stats -----------------------------------------------------------------------
def test_openapi_lists_routes_and_the_key_header(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for route, method in [("/ask", "post"), ("/search", "post"), ("/documents", "get"),
                          ("/documents/{doc_id}", "get"), ("/chunks/{chunk_id}", "get"), ("/feedback", "post"),
                          ("/queries/{query_id}", "get"), ("/health", "get"), ("/stats", "get"),
                          ("/whoami", "get")]:
        assert method in paths[route], route
    assert "/" not in paths  # the web page is not an API route
    assert schema["components"]["securitySchemes"]["APIKeyHeader"]["name"] == "X-API-Key"
    ask = paths["/ask"]["post"]
    assert {"200", "401", "403", "409", "413", "422"} <= set(ask["responses"])
    fb = schema["components"]["schemas"]["FeedbackRequest"]["properties"]
    assert fb["score"]["enum"] == [1.0, 0.6, 0.2]
    assert "description" in schema["components"]["schemas"]["AskRequest"]["properties"]["patient_id"]


def test_health_needs_no_key_and_stats_are_counts_only(client: TestClient) -> None:
    r = client.get("/health")
    assert r.status_code == 200 and r.json()["status"] == "ok" and r.json()["store_empty"] is False
    s = client.get("/stats", headers=headers("all"))
    assert s.status_code == 200
    body = s.json()
    assert body["documents"] == 7 and body["patients"] == 2 and body["chunks"] > 7
    assert "P1" not in s.text and "P2" not in s.text and "data_dir" not in body


def test_stats_count_only_what_the_key_may_see(client: TestClient, service_pipe: Pipeline) -> None:
    every = client.get("/stats", headers=headers("all")).json()
    assert every["sources"] == {"NICE": 1, "AAFP": 1, "ACC/AHA": 1, "notes": 4}
    note_chunks = {p: len(service_pipe.store.export(["chunk_id"], Filters(patient_id=p, exclude_levels=())))
                   for p in ("P1", "P2")}
    # "none": the three guidelines only; nothing tells that notes of two patients exist
    none = client.get("/stats", headers=headers("none")).json()
    assert none["documents"] == 3 and none["patients"] == 0
    assert none["sources"] == {"NICE": 1, "AAFP": 1, "ACC/AHA": 1}
    assert none["chunks"] == every["chunks"] - note_chunks["P1"] - note_chunks["P2"]
    assert sum(none["levels"].values()) == none["chunks"]
    guide_chunks = sum(d["chunks"] for d in client.get("/documents", headers=headers("none")).json()["documents"])
    assert none["chunks"] == guide_chunks
    # "p1": the guidelines and P1's two notes
    p1 = client.get("/stats", headers=headers("p1")).json()
    assert p1["documents"] == 5 and p1["patients"] == 1 and p1["sources"]["notes"] == 2
    assert p1["chunks"] == none["chunks"] + note_chunks["P1"] and sum(p1["levels"].values()) == p1["chunks"]
    assert p1["model_id"] == every["model_id"] and p1["corpus_version"] == every["corpus_version"]


@pytest.mark.parametrize("method,path,body", [
    ("post", "/ask", GUIDE_Q), ("post", "/search", {"query": "cough"}), ("get", "/documents", None),
    ("get", "/documents/bronchitis", None), ("get", "/chunks/bronchitis%23acute-bronchitis%2Fcourse%230", None),
    ("post", "/feedback", {"query_id": "x", "score": 1.0}), ("get", "/queries/x", None), ("get", "/stats", None),
    ("get", "/whoami", None),
])
def test_missing_or_unknown_key_is_401(client: TestClient, method: str, path: str, body: dict | None) -> None:
    for h in ({}, {"X-API-Key": "not-a-key"}, {"X-API-Key": KEYS["p1"][0] + "x"}):
        r = client.request(method.upper(), path, json=body, headers=h)
        assert r.status_code == 401, (path, h, r.text)
        assert r.headers["www-authenticate"] == "API-Key"


# -- patient scope -------------------------------------------------------------------------------
def test_key_without_the_patient_gets_403_on_every_route(client: TestClient, service_pipe: Pipeline,
                                                         p2_query_id: str) -> None:
    p2_chunk = patient_chunk_ids(service_pipe, "P2")[0]
    for key in ("p1", "none"):
        h = headers(key)
        checks = [
            client.post("/ask", json=P2_Q, headers=h),
            client.post("/search", json={"query": "warfarin", "patient_id": "P2"}, headers=h),
            client.get("/documents", params={"patient_id": "P2"}, headers=h),
            client.get("/documents/note:P2:N1", headers=h),
            client.get("/chunks/" + p2_chunk.replace("#", "%23"), headers=h),
        ]
        for r in checks:
            assert r.status_code == 403, (key, r.request.url, r.text)
            assert "outside its scope" in r.json()["detail"], r.text
            assert "P2" not in r.text and "warfarin" not in r.text.lower()  # the patient is never named
        # another key's query (here about P2) is answered as an unknown id: the key is checked first
        for r in (client.post("/feedback", json={"query_id": p2_query_id, "score": 0.2}, headers=h),
                  client.get(f"/queries/{p2_query_id}", headers=h)):
            assert r.status_code == 404 and r.json() == {"detail": f"no query {p2_query_id!r} in the query log"}
    # nothing was recorded by the refused feedback
    assert QueryLog.for_pipeline(service_pipe).get(p2_query_id)["feedback"] == []
    # key "all" reads it back
    assert client.get(f"/queries/{p2_query_id}", headers=headers("all")).status_code == 200


def test_note_ids_out_of_scope_are_403_whether_or_not_they_exist(client: TestClient, service_pipe: Pipeline) -> None:
    p2_chunk = patient_chunk_ids(service_pipe, "P2")[0].replace("#", "%23")
    for key in ("p1", "none"):
        h = headers(key)
        for path in ("/documents/note:P2:N1", "/documents/note:P2:BOGUS", "/documents/note:P9:N1",
                     "/chunks/" + p2_chunk, "/chunks/note:P2:BOGUS%23hpi%230", "/chunks/note:P9:N1%23x%230"):
            r = client.get(path, headers=h)
            assert r.status_code == 403, (key, path, r.text)
    # a key that may read the patient gets 404 for ids that do not exist
    assert client.get("/documents/note:P1:BOGUS", headers=headers("p1")).status_code == 404
    assert client.get("/chunks/note:P1:N1%23bogus%230", headers=headers("p1")).status_code == 404
    assert client.get("/documents/note:P2:BOGUS", headers=headers("all")).status_code == 404
    # ids that are not note ids: 404 as before
    assert client.get("/documents/nope", headers=headers("none")).status_code == 404


def test_key_reads_its_own_patient_only(client: TestClient, service_pipe: Pipeline) -> None:
    h = headers("p1")
    ask = client.post("/ask", json=P1_Q, headers=h)
    assert ask.status_code == 200
    a = ask.json()
    assert not a["refused"] and "apixaban" in a["answer"].lower()
    assert a["citations"] and all(c["doc_id"].startswith("note:P1:") for c in a["citations"])
    # the synonym expansion lists table terms (warfarin among the anticoagulants), not another patient's text
    assert a["query_expansion"]["anticoagulant"][:2] == ["warfarin", "apixaban"]
    record = {k: v for k, v in a.items() if k != "query_expansion"}
    assert "P2" not in _text(record) and "warfarin" not in _text(record).lower()
    search = client.post("/search", json={"query": "anticoagulant warfarin apixaban", "patient_id": "P1", "k": 20},
                         headers=h).json()
    assert search["hits"] and {x["patient_id"] for x in search["hits"]} == {"P1"}
    docs = client.get("/documents", headers=h).json()
    ids = {d["doc_id"] for d in docs["documents"]}
    assert ids == {"bronchitis", "otitis", "perioperative", "note:P1:N1", "note:P1:N2"} and docs["count"] == 5
    only = client.get("/documents", params={"patient_id": "P1"}, headers=h).json()
    assert {d["doc_id"] for d in only["documents"]} == {"note:P1:N1", "note:P1:N2"}
    # where each source came from and when it was stored (issue 42); never the file path
    assert {d["source_from"] for d in only["documents"]} == {"loader default"}
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ?(?:\+00:00)?")
    assert all(stamp.fullmatch(d["ingested_at"]) for d in docs["documents"])
    assert all("path" not in d for d in docs["documents"])
    assert client.get("/documents/note:P1:N2", headers=h).status_code == 200
    chunk = patient_chunk_ids(service_pipe, "P1")[0]
    assert client.get("/chunks/" + chunk.replace("#", "%23"), headers=h).status_code == 200
    # the "all" key lists every note; "none" lists none
    assert client.get("/documents", headers=headers("all")).json()["count"] == 7
    none = client.get("/documents", headers=headers("none")).json()
    assert {d["patient_id"] for d in none["documents"]} == {None}
    assert client.get("/whoami", headers=h).json() == {"name": "p1", "patients": ["P1"], "keys_required": True}
    assert client.get("/whoami", headers=headers("all")).json()["patients"] == "*"


def test_question_without_patient_never_sees_notes(client: TestClient) -> None:
    r = client.post("/search", json={"query": "apixaban warfarin anticoagulation", "k": 50}, headers=headers("all"))
    assert r.status_code == 200
    assert all(h["patient_id"] is None for h in r.json()["hits"])
    a = client.post("/ask", json={"question": "Which anticoagulant was started?"}, headers=headers("all")).json()
    assert "note:" not in _text(a)


def test_anonymous_access_when_no_keys_configured(service_pipe: Pipeline) -> None:
    s = settings_for(service_pipe.data_dir, keys=False)
    with TestClient(create_app(s, service_pipe)) as c:
        assert c.post("/ask", json=GUIDE_Q).status_code == 200
        assert c.get("/whoami").json() == {"name": None, "patients": [], "keys_required": False}
        r = c.post("/ask", json=P1_Q)
        assert r.status_code == 403 and "anonymous" in r.json()["detail"]
        assert {d["patient_id"] for d in c.get("/documents").json()["documents"]} == {None}
        assert c.get("/documents/note:P1:N1").status_code == 403
        assert c.get("/", headers={"X-API-Key": "anything"}).status_code == 200


def test_service_sees_an_ingest_made_by_another_pipeline(tmp_path: Path, service_pipe: Pipeline) -> None:
    """``clinqa serve`` keeps its store open; ``clinqa ingest`` of an edited file in another process
    (here another Pipeline on the same data dir) shows at once in /search and in /ask with the cache off."""
    doc = tmp_path / "corpus" / "cough.md"
    doc.parent.mkdir()
    doc.write_text("# Cough\n\n## Course\n\nThe cough of acute bronchitis may persist for 3 weeks.\n")
    s = settings_for(tmp_path / "data")
    s = s.model_copy(update={"cache": s.cache.model_copy(update={"backend": "none"})})
    served, writer = Pipeline(s), Pipeline(s)
    served._encoder = writer._encoder = service_pipe.encoder
    writer.ingest([doc.parent], progress=False)
    question = "How long does the cough last after acute bronchitis?"
    with TestClient(create_app(s, served)) as c:
        h = headers("none")
        first = c.post("/search", json={"query": question}, headers=h).json()["hits"]
        assert "3 weeks" in first[0]["text"]
        doc.write_text("# Cough\n\n## Course\n\nThe cough of acute bronchitis may persist for 8 weeks.\n")
        writer.ingest([doc.parent], progress=False)
        hits = c.post("/search", json={"query": question}, headers=h).json()["hits"]
        assert "8 weeks" in hits[0]["text"] and not any("3 weeks" in x["text"] for x in hits)
        answer = c.post("/ask", json={"question": question}, headers=h).json()
        assert "8 weeks" in answer["answer"] and "3 weeks" not in answer["answer"]


# -- errors and limits ---------------------------------------------------------------------------
def test_status_codes_for_bad_requests(client: TestClient) -> None:
    h = headers("all")
    too_long = client.post("/ask", json={"question": "why " * 100}, headers=h)
    # the message the CLI and the chat give too (tests/cli/test_question_limit.py)
    assert too_long.status_code == 422 and too_long.json()["detail"][0]["msg"] == (
        "the question is 400 characters long; the limit is 300 (service.max_question_chars)")
    r = client.post("/search", json={"query": "x" * 301}, headers=h)
    assert r.status_code == 422 and r.json()["detail"][0]["msg"] == (
        "the query is 301 characters long; the limit is 300 (service.max_question_chars)")
    assert client.post("/ask", json={"question": "cough", "since": 2020, "until": 2010}, headers=h).status_code == 422
    assert client.post("/ask", json={"question": "cough", "bogus": 1}, headers=h).status_code == 422
    assert client.get("/documents/nope", headers=h).status_code == 404
    assert client.get("/chunks/nope%23x%230", headers=h).status_code == 404
    assert client.get("/queries/" + "0" * 32, headers=h).status_code == 404
    assert client.post("/feedback", json={"query_id": "0" * 32, "score": 1.0}, headers=h).status_code == 404


@pytest.mark.parametrize(("route", "field"), [("/ask", "question"), ("/search", "query")])
@pytest.mark.parametrize("text", ["", "   ", "\n\t ", "\u200b\u00a0"])
def test_empty_question_is_422_on_every_route(client: TestClient, route: str, field: str, text: str) -> None:
    """Issue 16: ``POST /search {"query": "   "}`` returned hits, ``POST /ask`` a 400; both are 422 now."""
    r = client.post(route, json={field: text}, headers=headers("all"))
    assert r.status_code == 422
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", field] and error["msg"] == "the question is empty"
    assert error["type"] == "empty_question"


def test_request_body_limit_is_413(client: TestClient) -> None:
    big = json.dumps({"question": "cough", "sources": ["x" * 5000]})
    r = client.post("/ask", content=big, headers={**headers("all"), "Content-Type": "application/json"})
    assert r.status_code == 413 and "4096 bytes" in r.json()["detail"]

    def streamed() -> Iterator[bytes]:  # no Content-Length: chunked transfer
        yield b'{"question": "cough", "sources": ["'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"]}'

    r = client.post("/ask", content=streamed(), headers={**headers("all"), "Content-Type": "application/json"})
    assert r.status_code == 413
    # a small streamed body still reaches the route
    small = client.post("/ask", content=iter([b'{"question": "How long does the cough ', b'last?"}']),
                        headers={**headers("all"), "Content-Type": "application/json"})
    assert small.status_code == 200, small.text


def test_empty_store_is_409(tmp_path: Path) -> None:
    s = settings_for(tmp_path / "empty")
    with TestClient(create_app(s)) as c:
        r = c.post("/ask", json=GUIDE_Q, headers=headers("all"))
        assert r.status_code == 409 and "empty" in r.json()["detail"]
        assert c.post("/search", json={"query": "cough"}, headers=headers("all")).status_code == 409
        assert c.get("/health").json()["store_empty"] is True


# -- answers, passages, feedback -----------------------------------------------------------------
def test_ask_logs_and_feedback_reads_back(client: TestClient, service_pipe: Pipeline) -> None:
    h = headers("p1")
    r = client.post("/ask", json=GUIDE_Q, headers={**h, "X-Clinqa-Client": "web"})
    a = r.json()
    assert r.status_code == 200 and a["query_id"] and a["mode"] == "extractive" and a["citations"]
    assert set(a) >= {"question", "refused", "answer", "filters", "citations", "related_topics", "reason", "gate",
                      "timings_ms", "retrieved", "warnings", "time_filter", "sentences", "llm", "identifiers",
                      "cache_hit", "related", "missing_terms"}
    again = client.post("/ask", json=GUIDE_Q, headers=h).json()
    assert again["cache_hit"] is True and again["answer"] == a["answer"] and again["query_id"] != a["query_id"]
    fb = client.post("/feedback", json={"query_id": a["query_id"], "score": 0.6, "comment": "too short",
                                        "category": "content_missing"}, headers=h)
    assert fb.status_code == 200
    assert [(x["score"], x["comment"], x["category"]) for x in fb.json()["feedback"]] == [
        (0.6, "too short", "content_missing")]
    q = client.get(f"/queries/{a['query_id']}", headers=h).json()
    assert q["source"] == "web" and q["api_key_name"] == "p1" and q["question"] == GUIDE_Q["question"]
    assert q["feedback"][0]["score"] == 0.6 and "query_vector" not in q
    logged = QueryLog.for_pipeline(service_pipe).get(again["query_id"])
    assert logged["source"] == "api" and logged["cache_hit"] is True and logged["api_key_name"] == "p1"
    # invalid grades and categories are 422
    for bad in ({"score": 0.5}, {"score": 1.0, "category": "nonsense"}, {"score": 1.0, "comment": "x" * 2001}):
        r = client.post("/feedback", json={"query_id": a["query_id"], **bad}, headers=h)
        assert r.status_code == 422, bad


def test_a_key_reads_and_rates_only_its_own_queries(client: TestClient, service_pipe: Pipeline) -> None:
    a = client.post("/ask", json=GUIDE_Q, headers=headers("p1")).json()
    for key in ("none", "all"):  # no patient involved: only the key name decides, "*" included
        h = headers(key)
        r = client.get(f"/queries/{a['query_id']}", headers=h)  # the same 404 as an unknown id
        assert r.status_code == 404 and r.json() == {"detail": f"no query {a['query_id']!r} in the query log"}
        assert GUIDE_Q["question"] not in r.text
        r = client.post("/feedback", json={"query_id": a["query_id"], "score": 0.2}, headers=h)
        assert r.status_code == 404, (key, r.text)
    assert QueryLog.for_pipeline(service_pipe).get(a["query_id"])["feedback"] == []  # nothing recorded
    assert client.post("/feedback", json={"query_id": a["query_id"], "score": 1.0},
                       headers=headers("p1")).status_code == 200
    assert client.get(f"/queries/{a['query_id']}", headers=headers("p1")).json()["feedback"][0]["score"] == 1.0
    # unknown ids stay 404 for every key
    assert client.get("/queries/" + "0" * 32, headers=headers("none")).status_code == 404


def test_anonymous_queries_stay_readable_without_keys(service_pipe: Pipeline) -> None:
    s = settings_for(service_pipe.data_dir, keys=False)
    with TestClient(create_app(s, service_pipe)) as c:
        qid = c.post("/ask", json=GUIDE_Q).json()["query_id"]
        assert c.post("/feedback", json={"query_id": qid, "score": 0.6}).status_code == 200
        assert c.get(f"/queries/{qid}").json()["feedback"][0]["score"] == 0.6
        st = c.get("/stats").json()  # anonymous access has no "*" scope: the guidelines only
        assert st["documents"] == 3 and st["patients"] == 0


def test_refusal_has_reason_and_related_topics(client: TestClient) -> None:
    a = client.post("/ask", json={"question": "How do I change a car tyre?"}, headers=headers("none")).json()
    assert a["refused"] and a["mode"] == "refusal" and a["reason"] == a["answer"] and not a["citations"]
    # clearly off topic: no unrelated guidelines listed as related topics
    assert a["related_topics"] == [] and a["related"] == []


def test_chunk_in_context_with_highlight(client: TestClient) -> None:
    h = headers("none")
    a = client.post("/ask", json=GUIDE_Q, headers=h).json()
    cite = next(c for c in a["citations"] if c["chunk_id"].endswith("course#1"))
    r = client.get("/chunks/" + cite["chunk_id"].replace("#", "%23").replace("/", "%2F"),
                   params={"highlight": cite["quote"], "context": 2}, headers=h)
    assert r.status_code == 200
    c = r.json()
    assert c["chunk_id"] == cite["chunk_id"] and c["section"] == "Acute bronchitis > Course"
    marked = [c["body"][s:e] for s, e in c["highlights"]]
    assert marked == [cite["quote"]]
    assert [x["chunk_id"] for x in c["previous"]] == ["bronchitis#acute-bronchitis/course#0"]
    assert [x["chunk_id"] for x in c["next"]] == ["bronchitis#acute-bronchitis/course#2"]
    assert "Sputum colour" in c["next"][0]["body"]
    none = client.get("/chunks/" + cite["chunk_id"].replace("#", "%23"), params={"context": 0}, headers=h).json()
    assert none["previous"] == none["next"] == [] and none["highlights"] == []
    doc = client.get("/documents/bronchitis", headers=h).json()
    assert doc["year"] == 2019 and doc["source"] == "NICE"
    course = next(s for s in doc["sections"] if s["section"] == "Acute bronchitis > Course")
    assert [x["chunk_index"] for x in course["chunks"]] == [0, 1, 2]


def test_highlight_spans() -> None:
    body = "Women:\nCHA2DS2-VASc = 2: OAC may be\n considered. Men: never.\n\nOther text."
    spans = highlight_spans(body, "CHA2DS2-VASc = 2: OAC may be considered.")
    assert [body[s:e] for s, e in spans] == ["CHA2DS2-VASc = 2: OAC may be\n considered."]
    spans = highlight_spans(body, "Nothing here. men: never. Other text")
    assert [body[s:e] for s, e in spans] == ["Men: never.", "Other text."]
    assert highlight_spans(body, "not in it") == []


# -- generated answers ---------------------------------------------------------------------------
def test_generated_answer_shows_sentences_warnings_and_usage(service_pipe: Pipeline, chat_server: ChatServer) -> None:
    s = service_pipe.settings.model_copy(update={"llm": service_pipe.settings.llm.model_copy(update={
        "backend": "openai", "base_url": chat_server.url, "model": "gpt-4o-mini", "max_retries": 0, "timeout_s": 5})})
    pipe = Pipeline(s)
    pipe._encoder = service_pipe.encoder

    def responder(req: dict) -> str:
        user = req["messages"][-1]["content"]
        n = next(b.split("]")[0] for b in user.split("\n\n[") if "persist for 4 weeks" in b).lstrip("[")
        return f"The cough may persist for 4 weeks after the infection [{n}]. Antibiotics cure bronchitis [9]."

    chat_server.responder = responder
    with TestClient(create_app(s, pipe)) as c:
        a = c.post("/ask", json=GUIDE_Q, headers=headers("all")).json()
    assert a["mode"] == "generated" and a["answer"].startswith("The cough may persist")
    assert [x["supported"] for x in a["sentences"]] == [True, False]
    assert any("1 of 2 generated sentences were dropped" in w for w in a["warnings"])
    assert a["llm"]["prompt_tokens"] > 0 and a["llm"]["cost_usd"] is not None and a["llm"]["model"] == "gpt-4o-mini"


# -- clinqa serve ---------------------------------------------------------------------------------
def test_serve_hands_validated_settings_to_the_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from clinqa.cli import app as cli

    calls: list[tuple[tuple, dict]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    monkeypatch.setenv(ENV_SETTINGS, "")  # restored after the test: run() sets it
    monkeypatch.setenv("SERVICE_TEST_KEY", "from-env-123")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("service: {port: 9001, api_keys: [{name: ops, key: 'env:SERVICE_TEST_KEY', patients: ['*']}]}\n")
    r = CliRunner().invoke(cli, ["serve", "--config", str(cfg), "--data-dir", str(tmp_path / "d"), "--workers", "3",
                                 "--host", "0.0.0.0"])
    assert r.exit_code == 0, r.output
    (args, kw), = calls
    assert args == ("clinqa.service.app:app_from_env",) and kw["factory"] is True and kw["workers"] == 3
    assert kw["host"] == "0.0.0.0" and kw["port"] == 9001
    app = app_from_env()  # what each worker does
    svc = app.state.service
    assert svc.settings.data_dir == tmp_path / "d" and svc.settings.service.port == 9001
    assert svc.keys.authenticate("from-env-123").name == "ops"
    # an env: key whose variable is unset fails before anything listens
    monkeypatch.delenv("SERVICE_TEST_KEY")
    r = CliRunner().invoke(cli, ["serve", "--config", str(cfg), "--data-dir", str(tmp_path / "d")])
    assert r.exit_code == 2 and "SERVICE_TEST_KEY" in r.output and len(calls) == 1


def test_warm_up_loads_the_question_tagger_with_the_lexicon(service_pipe: Pipeline) -> None:
    """A server loads the tagger that reads a question's parts of speech at start (Service.warm_up), as it
    loads the lexicon's resources, so the first question with a word the corpus lacks does not wait for it."""
    from clinqa.question.terms import _tagger
    from clinqa.service.state import Service

    _tagger.cache_clear()
    Service(service_pipe.settings, service_pipe).warm_up()
    assert _tagger.cache_info().currsize == 1
