"""With ``--llm`` the model decides on a missing key term (issue 49, item 3): the real ``openai`` client against
the local chat-completions server (tests/llm/chat_server.py), over a tiny corpus that names only "apixaban".

A brand name ("Eliquis") is in no passage: without a model the key-term rule refuses ("The documents do not
mention Eliquis."); with one, the model gets the passages with the note "the passages do not mention 'Eliquis';
equivalents searched: none" and answers (its scripted reply cites the apixaban passage, checked as any
generated answer) or refuses with its own refusal phrase. A model that gives no usable answer leaves the key-term
refusal. The lexicon (issue 49 item 1) knows Eliquis is apixaban, so these tests turn it off
(``answer.lexicon: false``) to have a term that stays missing; with it on, the brand question is answered by the
rules alone (the last test)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from chat_server import ChatServer
from typer.testing import CliRunner

from clinqa.answer.prompt import NOTES_RULE, REFUSAL_PHRASE
from clinqa.cli import app
from clinqa.decision.model_refused import MODEL_REFUSED
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings
from tiny_data import with_llm

DOCS = {
    "af.md": "# Atrial fibrillation\n\n## Anticoagulation\n\nApixaban 5 mg twice daily is the standard dose for "
             "stroke prevention in atrial fibrillation. Reduce the dose to 2.5 mg twice daily when two of these "
             "apply: age 80 years or older, body weight 60 kg or less, serum creatinine 1.5 mg/dL or more.\n",
    "bronchitis.md": "# Acute bronchitis\n\n## Course\n\nMost patients recover fully without antibiotics. The cough "
                     "may persist for 4 weeks after the infection.\n",
    "otitis.md": "# Acute otitis media\n\n## Treatment\n\nGive amoxicillin 500 mg three times daily for 5 days.\n",
}
BRAND_Q = "Eliquis dose for atrial fibrillation?"
BRAND_NOTE = "- Note: the passages do not mention 'Eliquis'; equivalents searched: none"
#: a drug the corpus never names, asked in a setting it covers: the gate passes (cosine 0.61 > 0.38 here)
UNCOVERED_Q = "What is the dose of rivaroxaban in atrial fibrillation?"
ANSWER = ("Eliquis is apixaban; the standard dose for stroke prevention in atrial fibrillation is 5 mg twice daily "
          "[{n}].")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    corpus = tmp_path_factory.mktemp("decides-corpus")
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    p = Pipeline(Settings(data_dir=tmp_path_factory.mktemp("decides-store"), answer={"lexicon": False}))
    assert p.ingest([corpus], progress=False).failed == []
    return p


def number_of(user: str, needle: str) -> int:
    """The [n] under which the prompt's evidence shows the passage containing ``needle``."""
    m = re.search(r"(?:^|\n\n)\[(\d+)\] [^\n]*\n[^\n]*" + re.escape(needle), user)
    assert m is not None, f"{needle!r} not in the evidence sent"
    return int(m.group(1))


def answering(req: dict) -> str:
    return ANSWER.format(n=number_of(req["messages"][-1]["content"], "Apixaban 5 mg twice daily"))


def test_without_a_model_the_brand_question_still_refuses_with_the_key_term_sentence(base: Pipeline) -> None:
    ans = base.ask(BRAND_Q)
    assert ans.refused and ans.answer == "The documents do not mention Eliquis."
    assert ans.gate is not None and ans.gate.answer is False  # the key-term step refused: gate kind "+key_terms"
    assert ans.gate.kind.endswith("+key_terms")


def test_the_model_answers_the_brand_question_told_what_is_missing(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.responder = answering
    ans = with_llm(base, chat_server.url).ask(BRAND_Q)
    [req] = chat_server.requests
    system, user = req["messages"][0]["content"], req["messages"][-1]["content"]
    assert NOTES_RULE in system
    assert f"\n\nNotes on the evidence:\n{BRAND_NOTE}\n\nQuestion: Eliquis dose for atrial fibrillation?" in user
    assert user.endswith("Question: Eliquis dose for atrial fibrillation?")
    n = number_of(user, "Apixaban 5 mg twice daily")
    assert not ans.refused and ans.mode == "generated"
    assert ans.answer == ANSWER.format(n=n)
    assert [s["supported"] for s in ans.sentences] == [True]
    assert [(c.n, c.doc_id) for c in ans.citations] == [(n, ans.citations[0].doc_id)]
    assert ans.citations[0].doc_id.endswith("/af")
    # the reader is still told, once, that nothing names the brand (the corpus never does)
    assert "the corpus never mentions 'eliquis'; the quoted passages may not answer the question" in ans.warnings
    assert not any("do not mention 'Eliquis'" in w for w in ans.warnings)


def test_the_model_refuses_an_uncovered_question_with_its_own_reply(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.push(REFUSAL_PHRASE)
    ans = with_llm(base, chat_server.url).ask(UNCOVERED_Q)
    user = chat_server.requests[-1]["messages"][-1]["content"]
    assert "- Note: the passages do not mention 'rivaroxaban'; equivalents searched: none" in user
    assert ans.refused and ans.answer == MODEL_REFUSED and ans.reason == MODEL_REFUSED
    assert ans.citations == []
    without = base.ask(UNCOVERED_Q)  # without the model the key-term rule refuses it
    assert without.refused and without.answer == "The documents do not mention rivaroxaban."


def test_a_covered_question_sends_no_notes(base: Pipeline, chat_server: ChatServer) -> None:
    chat_server.responder = lambda req: ("Apixaban 5 mg twice daily is the standard dose for stroke prevention in "
                                         "atrial fibrillation [{}].".format(number_of(req["messages"][-1]["content"],
                                                                                      "Apixaban 5 mg twice daily")))
    ans = with_llm(base, chat_server.url).ask("What is the apixaban dose for atrial fibrillation?")
    req = chat_server.requests[-1]
    assert "Notes on the evidence" not in req["messages"][-1]["content"]
    assert NOTES_RULE not in req["messages"][0]["content"]
    assert ans.mode == "generated" and not ans.refused


def test_no_usable_model_answer_leaves_the_key_term_refusal(base: Pipeline, chat_server: ChatServer) -> None:
    """The model was to decide; unreachable, or with no supported sentence, the extractive answer would stand in
    unjudged, so the key-term rule refuses as without a model (step unjudged_key_terms)."""
    chat_server.push("Eliquis is given as 500 mg four times daily [1].")  # not what passage 1 says
    ans = with_llm(base, chat_server.url).ask(BRAND_Q)
    assert ans.refused and ans.answer == "The documents do not mention Eliquis."
    assert [s["supported"] for s in ans.sentences] == [False]
    down = with_llm(base, "http://127.0.0.1:9/v1").ask(BRAND_Q)  # port 9 (discard): nothing listens
    assert down.refused and down.answer == "The documents do not mention Eliquis."
    assert down.llm is not None and "error" in down.llm


def test_cli_ask_llm_answers_the_brand_question(base: Pipeline, chat_server: ChatServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    chat_server.responder = answering
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    data = str(Path(base.data_dir))
    r = CliRunner().invoke(app, ["ask", BRAND_Q, "--llm", "openai", "--llm-model", "gpt-4o-mini", "--json",
                                 "--data-dir", data, "--set", "answer.lexicon=false"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["mode"] == "generated" and out["refused"] is False
    assert BRAND_NOTE in chat_server.requests[-1]["messages"][-1]["content"]
    plain = json.loads(CliRunner().invoke(app, ["ask", BRAND_Q, "--json", "--data-dir", data,
                                                "--set", "answer.lexicon=false"]).output)
    assert plain["refused"] is True and plain["answer"] == "The documents do not mention Eliquis."


def test_with_the_lexicon_the_rules_answer_the_brand_question_without_a_model(base: Pipeline) -> None:
    s = base.settings.model_copy(update={"answer": base.settings.answer.model_copy(update={"lexicon": True})})
    p = Pipeline(s)
    p._encoder = base.encoder
    ans = p.ask(BRAND_Q)
    assert not ans.refused and "Apixaban 5 mg twice daily" in ans.answer
    assert ans.query_repair == {"Eliquis": "apixaban"}  # read as the corpus's name for it
