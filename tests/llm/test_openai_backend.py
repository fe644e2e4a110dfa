"""OpenAIBackend against a real local chat-completions server (the real ``openai`` client, no mocks)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from chat_server import ChatServer, Reply

from clinqa.llm import LLMBackend, LLMError, LLMUnavailable, Message, build_llm_backend, count_messages, count_tokens
from clinqa.llm.openai_backend import OpenAIBackend, is_local_url
from clinqa.settings import LLMSettings

KEY_ENV = "CLINQA_TEST_LLM_KEY"
QUESTION = [Message("system", "Answer from the evidence."), Message("user", "What dose of apixaban?")]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (KEY_ENV, "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def backend_for(chat_server: ChatServer) -> Iterator[Callable[..., OpenAIBackend]]:
    """``backend_for(**settings)``: an OpenAIBackend aimed at the test server (closed afterwards)."""
    made: list[OpenAIBackend] = []

    def make(**overrides: Any) -> OpenAIBackend:
        fields: dict[str, Any] = {"backend": "openai", "base_url": chat_server.url, "model": "test-model",
                                  "api_key_env": KEY_ENV, "timeout_s": 5.0, "max_retries": 0}
        fields.update(overrides)
        backend = OpenAIBackend(LLMSettings(**fields))
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()


def test_round_trip_with_server_usage(chat_server: ChatServer, backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply("Apixaban 5 mg twice daily [1].", prompt_tokens=42, completion_tokens=7))
    backend = backend_for()
    assert isinstance(backend, LLMBackend)
    out = backend.complete(QUESTION, max_tokens=32, temperature=0.3)
    assert out.text == "Apixaban 5 mg twice daily [1]."
    assert (out.prompt_tokens, out.completion_tokens, out.token_source) == (42, 7, "server")
    assert (out.backend, out.model, out.finish_reason) == ("openai", "test-model", "stop")
    assert out.latency_ms > 0
    (sent,) = chat_server.requests
    assert sent["model"] == "test-model"
    assert sent["messages"] == [{"role": "system", "content": "Answer from the evidence."},
                                {"role": "user", "content": "What dose of apixaban?"}]
    assert sent["max_tokens"] == 32
    assert sent["temperature"] == 0.3
    # no key in the environment and a local URL: the dummy key is sent
    assert chat_server.received[0].headers["authorization"] == "Bearer not-needed"
    assert chat_server.received[0].path == "/v1/chat/completions"


def test_settings_give_the_defaults(chat_server: ChatServer, backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply("ok", finish_reason="length"))
    out = backend_for(max_tokens=77, temperature=0.5).complete(QUESTION)
    assert chat_server.requests[0]["max_tokens"] == 77
    assert chat_server.requests[0]["temperature"] == 0.5
    assert out.finish_reason == "length"


def test_missing_usage_is_counted_with_cl100k(chat_server: ChatServer,
                                              backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply("The quick brown fox jumps over the lazy dog.", usage=False))
    messages = [Message("user", "hello world")]
    out = backend_for().complete(messages)
    assert out.token_source == "cl100k_base"
    assert out.completion_tokens == 10  # The| quick| brown| fox| jumps| over| the| lazy| dog|.
    assert out.prompt_tokens == count_messages(messages) == 3 + 1 + 2 + 3  # framing+user+hello world+priming


def test_environment_variables_are_honoured(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    chat_server.push("from env")
    backend = build_llm_backend(LLMSettings(backend="openai", model="my-model", max_retries=0, timeout_s=5))
    assert isinstance(backend, OpenAIBackend)
    try:
        assert backend.complete(QUESTION).text == "from env"
    finally:
        backend.close()
    assert chat_server.requests[0]["model"] == "my-model"
    assert chat_server.received[0].headers["authorization"] == "Bearer sk-test-123"


def test_model_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = LLMSettings(backend="openai", base_url="http://localhost:11434/v1")
    assert OpenAIBackend(settings).model == "gpt-4o-mini"
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    assert OpenAIBackend(settings).model == "env-model"
    assert OpenAIBackend(settings.model_copy(update={"model": "set-model"})).model == "set-model"


def test_5xx_is_retried_by_the_client(chat_server: ChatServer, backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(500, 500, "third time lucky")
    out = backend_for(max_retries=2).complete(QUESTION)
    assert out.text == "third time lucky"
    assert len(chat_server.requests) == 3
    assert [r.headers.get("x-stainless-retry-count") for r in chat_server.received] == ["0", "1", "2"]


def test_5xx_after_retries_is_unavailable(chat_server: ChatServer,
                                          backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(500, 500, 500, "never reached")
    with pytest.raises(LLMUnavailable, match=r"HTTP 500 \(3 attempts\)") as info:
        backend_for(max_retries=2).complete(QUESTION)
    assert chat_server.url in str(info.value)
    assert len(chat_server.requests) == 3
    assert chat_server.pending == 1


def test_429_after_retries_is_unavailable(chat_server: ChatServer,
                                          backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply(status=429, error="Rate limit reached"), Reply(status=429, error="Rate limit reached"))
    with pytest.raises(LLMUnavailable, match=r"HTTP 429 \(2 attempts\): Rate limit reached"):
        backend_for(max_retries=1).complete(QUESTION)
    assert len(chat_server.requests) == 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_server_down_is_unavailable_and_fast(backend_for: Callable[..., OpenAIBackend]) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there any more
    backend = backend_for(base_url=url, timeout_s=2.0, max_retries=0)
    start = time.perf_counter()
    with pytest.raises(LLMUnavailable) as info:
        backend.complete(QUESTION)
    assert time.perf_counter() - start < 1.5
    assert str(info.value).startswith(f"cannot reach the LLM server at {url}: ")
    assert "refused" in str(info.value).lower()


def test_dropped_connection_is_unavailable(chat_server: ChatServer,
                                           backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply(disconnect=True))
    with pytest.raises(LLMUnavailable, match=f"cannot reach the LLM server at {chat_server.url}"):
        backend_for().complete(QUESTION)


def test_timeout_is_unavailable(chat_server: ChatServer, backend_for: Callable[..., OpenAIBackend]) -> None:
    chat_server.push(Reply("too late", delay_s=10))
    start = time.perf_counter()
    with pytest.raises(LLMUnavailable, match=r"no reply within 0.3 s \(1 attempt\)") as info:
        backend_for(timeout_s=0.3, max_retries=0).complete(QUESTION)
    assert time.perf_counter() - start < 3
    assert chat_server.url in str(info.value)


@pytest.mark.parametrize(("status", "message"), [(401, "Incorrect API key provided"),
                                                 (404, "The model `test-model` does not exist"),
                                                 (400, "max_tokens is too large")])
def test_client_errors_are_llm_errors(chat_server: ChatServer, backend_for: Callable[..., OpenAIBackend],
                                      status: int, message: str) -> None:
    chat_server.push(Reply(status=status, error=message))
    with pytest.raises(LLMError) as info:
        backend_for(max_retries=2).complete(QUESTION)
    assert not isinstance(info.value, LLMUnavailable)
    assert f"HTTP {status}" in str(info.value)
    assert message in str(info.value)
    assert len(chat_server.requests) == 1  # 4xx (but 408/409/429) is not retried


def test_missing_key_for_remote_server(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = LLMSettings(backend="openai", base_url="https://llm.example.com/v1", api_key_env=KEY_ENV)
    with pytest.raises(LLMError, match=KEY_ENV) as info:
        build_llm_backend(settings)
    assert not isinstance(info.value, LLMUnavailable)
    monkeypatch.setenv(KEY_ENV, "sk-x")
    assert isinstance(build_llm_backend(settings), OpenAIBackend)


def test_is_local_url() -> None:
    assert is_local_url("http://localhost:11434/v1")
    assert is_local_url("http://127.0.0.1:8000/v1")
    assert is_local_url("http://[::1]:8000/v1")
    assert not is_local_url("https://api.openai.com/v1")
    assert not is_local_url("http://localhost.example.com/v1")


def test_backend_none() -> None:
    assert build_llm_backend(LLMSettings()) is None
    assert build_llm_backend(LLMSettings(backend="none")) is None


def test_chat_server_responder_and_unscripted(chat_server: ChatServer,
                                              backend_for: Callable[..., OpenAIBackend]) -> None:
    backend = backend_for()
    with pytest.raises(LLMError, match="no reply queued"):
        backend.complete(QUESTION)
    chat_server.responder = lambda body: "echo: " + body["messages"][-1]["content"]
    assert backend.complete(QUESTION).text == "echo: What dose of apixaban?"
    chat_server.push("queued first")
    assert backend.complete(QUESTION).text == "queued first"


def test_malformed_reply_is_an_llm_error(chat_server: ChatServer) -> None:
    chat_server.push(Reply(raw_body=b'{"choices": [ {"message": '))
    backend = OpenAIBackend(LLMSettings(backend="openai", base_url=chat_server.url, max_retries=0))
    with pytest.raises(LLMError, match="not a chat completion") as err:
        backend.complete([Message("user", "hi")])
    assert not isinstance(err.value, LLMUnavailable)


def test_reply_far_longer_than_max_tokens_is_cut_and_counted(chat_server: ChatServer) -> None:
    long = "Antibiotics are not recommended. " * 3000  # ~99k characters, the server claims 50 tokens
    chat_server.push(Reply(text=long, completion_tokens=50))
    c = OpenAIBackend(LLMSettings(backend="openai", base_url=chat_server.url, max_retries=0)).complete(
        [Message("user", "hi")], max_tokens=100)
    assert len(c.text) == 800 and c.finish_reason.startswith("length (cut by clinqa")
    assert c.completion_tokens == count_tokens(long) > 50
