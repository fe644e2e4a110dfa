"""Issue 40: with a language model configured, a follow-up is rewritten by the model (the "condense question"
step of chat RAG) and the rewrite is checked the way the rules read the follow-up; a real local
chat-completions server stands in for the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from chat_server import ChatServer

from clinqa.conversation import CONDENSE, ask_turn, resolve_turn
from clinqa.logs.conversations import Conversation, ConversationStore
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

DOC = """# Apixaban in atrial fibrillation

## Dosing by kidney function

| CrCl (mL/min) | Apixaban dose |
|---|---|
| > 25 | 5 mg twice daily |
| 15-25 | 2.5 mg twice daily |
"""


@pytest.fixture
def pipe(tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Pipeline:
    monkeypatch.setenv("CONDENSE_TEST_KEY", "sk-test")
    (tmp_path / "apixaban.md").write_text(DOC)
    p = Pipeline(Settings(data_dir=tmp_path / "data", llm={"backend": "openai", "base_url": chat_server.url,
                                                           "model": "m", "api_key_env": "CONDENSE_TEST_KEY",
                                                           "max_retries": 0, "timeout_s": 5.0}))
    assert p.ingest([tmp_path / "apixaban.md"], progress=False).failed == []
    return p


def _conversation(pipe: Pipeline, tmp_path: Path) -> tuple[ConversationStore, Conversation]:
    store = ConversationStore(tmp_path / "c.sqlite")
    conv = store.start("local", None)
    store.add(conv, "apixaban dose for AF with CrCl 50?", "apixaban dose for AF with CrCl 50?", "first", [], None,
              False)
    return store, conv


def test_a_rewrite_that_keeps_topic_and_values_is_used(pipe: Pipeline, chat_server: ChatServer,
                                                       tmp_path: Path) -> None:
    store, conv = _conversation(pipe, tmp_path)
    chat_server.push("What apixaban dose is used for atrial fibrillation with CrCl 20 mL/min?")
    answer, _ = ask_turn(pipe, store, conv, "and if CrCl is 20?", pipe.filters())
    assert answer.standalone_question == "What apixaban dose is used for atrial fibrillation with CrCl 20 mL/min?"
    assert conv.turns[-1].kind == "llm" and "2.5 mg twice daily" in answer.answer
    sent = chat_server.requests[0]["messages"]  # then the answer itself is asked of the model (no reply queued)
    assert sent[0] == {"role": "system", "content": CONDENSE}
    assert sent[1]["content"] == ("Earlier question: apixaban dose for AF with CrCl 50?\nFollow-up: and if CrCl is 20?"
                                  "\nStandalone question:")


def test_a_rewrite_that_keeps_the_old_value_or_drops_the_new_one_is_not_used(pipe: Pipeline, chat_server: ChatServer,
                                                                             tmp_path: Path) -> None:
    _, conv = _conversation(pipe, tmp_path)
    chat_server.push("apixaban dose for AF with CrCl 50?")  # the model ignored the follow-up
    res = resolve_turn(pipe, conv, "and if CrCl is 20?")
    assert (res.standalone, res.kind) == ("apixaban dose for AF with CrCl 20?", "slot")
    assert res.notes == ["the language model's rewrite 'apixaban dose for AF with CrCl 50?' was not used: it drops "
                         "'20'; keeps the replaced 'CrCl 50'"]
    chat_server.push("What is the dose?")  # the topic lost
    assert "keeps nothing of the earlier topic" in resolve_turn(pipe, conv, "and if CrCl is 20?").notes[0]


def test_a_failed_model_leaves_the_rules_reading_with_a_warning(pipe: Pipeline, chat_server: ChatServer,
                                                                tmp_path: Path) -> None:
    store, conv = _conversation(pipe, tmp_path)
    chat_server.push(500)
    answer, _ = ask_turn(pipe, store, conv, "and if CrCl is 20?", pipe.filters())
    assert answer.standalone_question == "apixaban dose for AF with CrCl 20?"
    assert any(w.startswith("the language model could not rewrite the follow-up") for w in answer.warnings)
    # a new topic is never sent to the model
    n = len(chat_server.requests)
    assert resolve_turn(pipe, conv, "unrelated - rivaroxaban dose for DVT?").kind == "switch"
    assert len(chat_server.requests) == n


def test_another_case_is_condensed_against_the_turn_it_was_read_against(pipe: Pipeline, chat_server: ChatServer,
                                                                        tmp_path: Path) -> None:
    """"what about in CKD?" after "and if she's pregnant?" is read against the first turn (the new case replaces the
    supposed one), and the model is given that turn as the earlier question, not the pregnant one."""
    store, conv = _conversation(pipe, tmp_path)
    store.add(conv, "and if she's pregnant?", "apixaban dose for AF with CrCl 50 in pregnant?", "slot", [1], None,
              False)
    chat_server.push("What apixaban dose is used for atrial fibrillation with CrCl 50 mL/min in CKD?")
    res = resolve_turn(pipe, conv, "what about in CKD?")
    assert res.drew_on == [1]
    sent = chat_server.requests[0]["messages"]
    assert sent[1]["content"].startswith("Earlier question: apixaban dose for AF with CrCl 50?\n")
