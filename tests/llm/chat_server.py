"""A real local HTTP server speaking OpenAI's chat-completions protocol, for tests.

The ``openai`` client talks to it over a socket exactly as it would to vLLM or Ollama; nothing is
mocked. It serves ``POST /v1/chat/completions`` (and ``/chat/completions``) plus ``GET /v1/models``
on ``127.0.0.1`` at a free port, in a background thread.

What it answers, per request, in this order:

1. the next scripted :class:`Reply` of the queue (:meth:`ChatServer.push`): a reply text, an HTTP
   error status (e.g. ``push(500, 500, "ok")`` to test retries), a delay (to test timeouts),
   ``usage=False`` (a server that reports no token counts) or ``disconnect=True`` (the socket is
   closed without an answer);
2. else the ``responder`` callable, ``responder(request_json) -> str | Reply`` (for generation
   tests that answer from the prompt);
3. else HTTP 418 with ``x-should-retry: false`` and the message ``chat_server: no reply
   queued``, so a missing script fails loudly instead of hanging.

Every request is recorded (:attr:`ChatServer.requests`: the JSON body, plus path and headers in
:attr:`ChatServer.received`), so tests can assert the model id, messages, max_tokens and
temperature that were sent. Error replies carry ``retry-after-ms`` (default 10 ms) so the client's
retries do not sleep its 0.5 s/1 s backoff in tests; ``ChatServer(retry_after_ms=None)`` keeps the
real backoff.

Use in ``tests/llm`` through the ``chat_server`` fixture (``tests/llm/conftest.py``). Another test
folder can reuse it from its own ``conftest.py``::

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
    from chat_server import ChatServer, Reply, chat_server  # noqa: E402,F401  (fixture re-export)
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")


@dataclass
class Reply:
    """One scripted answer.

    ``text``: the assistant message content (status 200). ``status``: HTTP status; other than 200
    the body is an OpenAI-style error ``{"error": {"message": error, ...}}``. ``delay_s``: seconds
    to wait before answering (interrupted when the server stops). ``usage``: include the ``usage``
    object; its counts are ``prompt_tokens`` / ``completion_tokens`` when given, else the number of
    whitespace-separated words of all message contents / of ``text``. ``finish_reason``: of the
    choice. ``headers``: extra response headers. ``disconnect``: close the connection without
    any response (a dropped connection). ``raw_body``: send these bytes as the 200 body instead
    of a completion (a malformed reply).
    """

    text: str = "ok"
    status: int = 200
    delay_s: float = 0.0
    usage: bool = True
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"
    error: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disconnect: bool = False
    raw_body: bytes | None = None


Responder = Callable[[dict[str, Any]], "str | Reply"]


def as_reply(item: Reply | str | int) -> Reply:
    """``str`` -> a 200 reply with that text; ``int`` -> an error reply with that HTTP status."""
    if isinstance(item, Reply):
        return item
    if isinstance(item, bool):
        raise TypeError("a reply is a Reply, a text or an HTTP status")
    if isinstance(item, int):
        return Reply(status=item)
    if isinstance(item, str):
        return Reply(text=item)
    raise TypeError(f"a reply is a Reply, a text or an HTTP status, not {type(item).__name__}")


@dataclass
class Received:
    """One request as the server saw it: path, headers (lower-case names) and JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ChatServer:
    """The chat-completions server. ``url`` (``http://127.0.0.1:<port>/v1``) is the ``base_url``
    to give a client. Start with :meth:`start` or ``with ChatServer() as server:``."""

    def __init__(self, responder: Responder | None = None, *, retry_after_ms: int | None = 10) -> None:
        self.responder = responder
        self.retry_after_ms = retry_after_ms
        self.received: list[Received] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- scripting -------------------------------------------------------------------------
    def push(self, *items: Reply | str | int) -> ChatServer:
        """Queue replies, answered one per request in order (see :func:`as_reply`)."""
        with self._lock:
            self._queue.extend(as_reply(item) for item in items)
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the chat requests received so far, oldest first."""
        with self._lock:
            return [r.body for r in self.received if r.path in CHAT_PATHS]

    def reset(self) -> None:
        """Forget received requests and queued replies."""
        with self._lock:
            self.received.clear()
            self._queue.clear()

    # ---- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the chat server is not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ChatServer:
        server = self

        class Handler(_Handler):
            chat = server

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="chat-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; delayed replies still waiting are cut short."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- answering -------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return as_reply(self.responder(body))
        return Reply(status=418, error="chat_server: no reply queued", headers={"x-should-retry": "false"})

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    chat: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
        pass

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. its timeout)
            self.close_connection = True

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._send_json(status, {"error": {"message": message, "type": kind, "code": None}}, headers)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in MODELS_PATHS:
            self._send_json(200, {"object": "list", "data": [{"id": "test-model", "object": "model",
                                                              "created": 0, "owned_by": "chat_server"}]})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        server = self.chat
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0].rstrip("/")
        with server._lock:
            server.received.append(Received(path, {k.lower(): v for k, v in self.headers.items()}, body))
        if path not in CHAT_PATHS:
            self._error(404, f"no route {self.path}")
            return
        if body.get("stream"):
            self._error(400, "chat_server: streaming is not supported")
            return
        reply = server._next_reply(body)
        if reply.delay_s:
            server._wait(reply.delay_s)
            if server._stopping.is_set():  # cut short by stop(): nobody is waiting for the answer
                self.close_connection = True
                return
        if reply.disconnect:
            self.close_connection = True
            self.connection.close()
            return
        headers = dict(reply.headers)
        if reply.raw_body is not None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply.raw_body)))
            self.end_headers()
            self.wfile.write(reply.raw_body)
            return
        if reply.status != 200:
            if server.retry_after_ms is not None:
                headers.setdefault("retry-after-ms", str(server.retry_after_ms))
            self._error(reply.status, reply.error or f"scripted HTTP {reply.status}", headers)
            return
        self._send_json(200, _completion_body(body, reply), headers)


def _completion_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": f"chatcmpl-test-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "test-model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                     "finish_reason": reply.finish_reason, "logprobs": None}],
    }
    if reply.usage:
        words = sum(len(str(m.get("content") or "").split()) for m in request.get("messages", []))
        prompt = words if reply.prompt_tokens is None else reply.prompt_tokens
        completion = len(reply.text.split()) if reply.completion_tokens is None else reply.completion_tokens
        payload["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                            "total_tokens": prompt + completion}
    return payload


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A started :class:`ChatServer` (empty queue, no responder), stopped after the test."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()
