"""Generated answers end to end: the real ``openai`` client talks to a local chat-completions
server (tests/llm/chat_server.py) that answers from the prompt it receives; clinqa numbers the
evidence, checks every sentence against the passage it cites, and falls back or refuses."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from chat_server import ChatServer, Reply
from typer.testing import CliRunner

from clinqa.answer.prompt import REFUSAL_PHRASE
from clinqa.cli import app
from clinqa.llm.base import cost_usd
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings
from tiny_data import with_llm

DOCS = {
    "bronchitis.md": "# Acute bronchitis\n\n## Course\n\nMost patients recover fully without antibiotics. "
                     "The cough may persist for 4 weeks after the infection.\n\n## Treatment\n\nAntibiotics are "
                     "not recommended for acute bronchitis in otherwise healthy adults.\n",
    "otitis.md": "# Acute otitis media\n\n## Treatment\n\nGive amoxicillin 500 mg three times daily for 5 days. "
                 "Penicillin-allergic patients can receive clarithromycin.\n",
    "theatre.md": "# Operating theatre environment\n\n## Temperature\n\nThe operating room temperature should be "
                  "kept between 20 and 24 °C with relative humidity of 30-60%.\n",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("gen-corpus")
    for name, text in DOCS.items():
        (d / name).write_text(text)
    return d


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Pipeline:
    p = Pipeline(Settings(data_dir=tmp_path_factory.mktemp("gen-store")))
    assert p.ingest([corpus], progress=False).failed == []
    return p


def evidence_number(request: dict, needle: str) -> int:
    """The [n] under which the prompt shows the passage containing ``needle``."""
    user = request["messages"][-1]["content"]
    for block in user.split("\n\n["):
        m = re.match(r"\[?(\d+)\] ", block)
        if m and needle in block:
            return int(m.group(1))
    raise AssertionError(f"{needle!r} not in the evidence sent")


def test_generated_answer_keeps_only_supported_sentences(base: Pipeline, chat_server: ChatServer) -> None:
    def responder(req: dict) -> str:
        n = evidence_number(req, "persist for 4 weeks")
        return (f"The cough may persist for 4 weeks after the infection [{n}]. "
                f"The cough resolves within 4 weeks [{n}]. Antibiotics cure bronchitis [9].")

    chat_server.responder = responder
    p = with_llm(base, chat_server.url)
    ans = p.ask("How long does the cough last after acute bronchitis?")
    assert ans.mode == "generated" and not ans.refused
    req = chat_server.requests[-1]
    n = evidence_number(req, "persist for 4 weeks")
    assert ans.answer == f"The cough may persist for 4 weeks after the infection [{n}]."
    assert [(s["supported"], s["citations"], s["invalid"]) for s in ans.sentences] == [
        (True, [n], []), (False, [n], []), (False, [], [9])]
    assert "numbers not in the cited text" in ans.sentences[1]["reasons"][0]
    assert ans.sentences[2]["reasons"][0].startswith("cites [9], not in the evidence")
    # [n] maps to the chunk that was shown as [n]
    assert len(ans.citations) == 1 and ans.citations[0].n == n
    assert "persist for 4 weeks" in ans.citations[0].quote and ans.citations[0].doc_id.endswith("/bronchitis")
    assert any("2 of 3 generated sentences were dropped" in w for w in ans.warnings)
    # what was sent: model, settings and the numbered evidence with the fixed rules
    assert req["model"] == "gpt-4o-mini" and req["temperature"] == 0.0 and req["max_tokens"] == 400
    assert REFUSAL_PHRASE in req["messages"][0]["content"]
    u = ans.llm
    assert u["token_source"] == "server" and u["prompt_tokens"] > 0 and u["completion_tokens"] > 0
    assert u["cost_usd"] == pytest.approx(cost_usd("gpt-4o-mini", u["prompt_tokens"], u["completion_tokens"],
                                                   p.settings.llm.prices))
    assert u["cost_usd"] == pytest.approx((u["prompt_tokens"] * 0.15 + u["completion_tokens"] * 0.60) / 1e6)


def test_flag_mode_keeps_unsupported_sentences_marked(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.responder = lambda req: (f"Give amoxicillin 500 mg three times daily for 5 days "
                                         f"[{evidence_number(req, 'amoxicillin 500 mg')}]. It is safe in pregnancy "
                                         f"[{evidence_number(req, 'amoxicillin 500 mg')}].")
    flagging = with_llm(base, chat_server.url, generation={"unsupported": "flag"})
    ans = flagging.ask("What dose of amoxicillin for otitis media?")
    assert ans.mode == "generated" and ans.answer.endswith("[unsupported]") and ans.answer.count("[unsupported]") == 1


def test_server_down_falls_back_to_extractive(base: Pipeline) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    ans = with_llm(base, url).ask("What dose of amoxicillin for otitis media?")
    assert not ans.refused and ans.mode == "extractive" and "amoxicillin 500 mg" in ans.answer.lower()
    assert any(w.startswith("no generated answer (") and url in w and "extractive answer" in w for w in ans.warnings)
    assert "error" in ans.llm


def test_nothing_supported_falls_back_to_extractive(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.push("Otitis media always needs surgery [1]. Ear tubes are placed within 2 days [2].")
    ans = with_llm(base, chat_server.url).ask("What dose of amoxicillin for otitis media?")
    assert ans.mode == "extractive" and "amoxicillin 500 mg" in ans.answer.lower()
    assert any("none of the 2 generated sentences was supported" in w for w in ans.warnings)
    assert [s["supported"] for s in ans.sentences] == [False, False] and ans.llm["completion_tokens"] > 0


def test_model_refusal_is_a_refusal(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.push(REFUSAL_PHRASE)
    ans = with_llm(base, chat_server.url).ask("What dose of amoxicillin for otitis media?")
    assert ans.refused and ans.mode == "refusal" and ans.citations == []
    assert ans.answer.startswith("The language model found that the passages found do not answer this question.")
    assert ans.related_topics


def test_gate_refusal_never_calls_the_model(base: Pipeline, chat_server: ChatServer) -> None:
    p = with_llm(base, chat_server.url)
    p.settings = p.settings.model_copy(update={"answer": p.settings.answer.model_copy(
        update={"refusal_threshold": 0.99})})
    ans = p.ask("What is the recommended dose of amoxicillin?")
    assert ans.refused and chat_server.requests == []


def test_no_context_sends_no_evidence(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.push("Yes, it usually is.")
    ans = with_llm(base, chat_server.url).ask_no_context("Is bronchitis self-limiting?", closed=True)
    assert ans.mode == "no-context" and ans.answer == "Yes, it usually is." and ans.citations == []
    sent = " ".join(m["content"] for m in chat_server.requests[-1]["messages"])
    assert "Evidence" not in sent and "Yes, No or Maybe" in sent


def test_cli_ask_llm_json(base: Pipeline, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    chat_server.responder = lambda req: (f"The operating room temperature should be kept between 20 and 24 °C "
                                         f"[{evidence_number(req, '20 and 24')}].")
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    r = CliRunner().invoke(app, ["ask", "What temperature should the operating room be?", "--llm", "openai",
                                 "--llm-model", "gpt-4o-mini", "--json", "--data-dir", str(base.data_dir)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["mode"] == "generated" and out["sentences"][0]["supported"] is True
    assert out["citations"][0]["n"] == out["sentences"][0]["citations"][0]
    assert chat_server.received[-1].headers["authorization"] == "Bearer sk-test"
    text = CliRunner().invoke(app, ["ask", "What temperature should the operating room be?", "--llm", "openai",
                                    "--data-dir", str(base.data_dir)]).output
    assert "each sentence checked against its sources" in text and "completion tokens" in text
    bad = CliRunner().invoke(app, ["ask", "x", "--llm", "gpt", "--data-dir", str(base.data_dir)])
    assert bad.exit_code == 2 and "--llm must be openai, local or none" in bad.output


def test_reply_without_usage_is_counted_offline(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.push(Reply(text=REFUSAL_PHRASE, usage=False))
    ans = with_llm(base, chat_server.url).ask("What dose of amoxicillin for otitis media?")
    assert ans.llm.get("token_source") == "cl100k_base", ans.llm
    assert ans.llm["completion_tokens"] == 8  # The|evidence|does|not|answer|this|question|.


def test_identifiers_not_in_evidence_are_redacted(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.responder = lambda req: (
        f"Give amoxicillin 500 mg three times daily for 5 days [{evidence_number(req, 'amoxicillin 500 mg')}]. "
        f"Call John Smith at (555) 010-4477 to confirm [{evidence_number(req, 'amoxicillin 500 mg')}].")
    flagging = with_llm(base, chat_server.url, generation={"unsupported": "flag"})
    ans = flagging.ask("What dose of amoxicillin for otitis media?")
    assert ans.mode == "generated"
    assert "John Smith" not in json.dumps(ans.to_dict()) and "010-4477" not in json.dumps(ans.to_dict())
    assert "[REDACTED PERSON]" in ans.answer and "[REDACTED PHONE_NUMBER]" in ans.answer
    assert {(i["type"], i["redacted"], i["in_evidence"]) for i in ans.identifiers} == {
        ("PERSON", True, False), ("PHONE_NUMBER", True, False)}
    assert any("identifiers that are not in the cited passages were redacted" in w for w in ans.warnings)
