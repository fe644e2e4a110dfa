"""Backend for any server speaking OpenAI's chat-completions protocol, via the official client.

Works with OpenAI, Azure OpenAI's v1 endpoint, vLLM, Ollama (``http://localhost:11434/v1``),
llama.cpp's server and Gemini's OpenAI-compatible endpoint. Timeouts and retries are the
``openai`` client's own: ``timeout=settings.timeout_s`` (connect, read, write and pool limit of
each attempt) and ``max_retries=settings.max_retries`` (the client retries connection errors,
timeouts, HTTP 408, 409, 429 and 5xx with exponential backoff: 0.5 s, 1 s, 2 s ... capped at
8 s, minus up to 25 % jitter, or the server's ``Retry-After``/``retry-after-ms`` up to 2 min).
"""

from __future__ import annotations

import ipaddress
import os
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from clinqa.llm.base import Completion, LLMError, LLMUnavailable, Message
from clinqa.llm.tokens import TOKEN_SOURCE, count_messages, count_tokens

if TYPE_CHECKING:
    import openai

    from clinqa.settings import LLMSettings

DEFAULT_MODEL = "gpt-4o-mini"
#: environment variable naming the model when ``llm.model`` is unset
MODEL_ENV = "OPENAI_MODEL"
#: API key sent to local servers (which ignore it) when the key variable is unset
LOCAL_DUMMY_KEY = "not-needed"
_OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def is_local_url(url: str) -> bool:
    """True when ``url``'s host is this machine (``localhost``, ``*.localhost``, a loopback IP
    such as 127.0.0.1 or ::1, or 0.0.0.0)."""
    host = (urlparse(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


class OpenAIBackend:
    """Chat completions over HTTP with the official ``openai`` client.

    Resolution (at construction, no network): the URL is ``settings.base_url``, else
    ``$OPENAI_BASE_URL``, else OpenAI's (``https://api.openai.com/v1``); the model is
    ``settings.model``, else ``$OPENAI_MODEL``, else ``gpt-4o-mini``; the API key is read from the
    environment variable named by ``settings.api_key_env`` (default ``OPENAI_API_KEY``). Without a
    key a local URL (localhost, 127.0.0.1, ::1) gets the dummy key ``not-needed``; any other URL
    raises :class:`LLMError` naming the variable.

    ``complete`` raises :class:`LLMUnavailable` when the server cannot be reached, does not
    answer within ``settings.timeout_s`` seconds, or still answers 5xx/429 after
    ``settings.max_retries`` retries; :class:`LLMError` for any other HTTP error (401 bad key,
    404 unknown model, 400 bad request ...), with the status and the server's message.
    """

    name = "openai"

    def __init__(self, settings: LLMSettings) -> None:
        import openai

        self.settings = settings
        base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.base_url = (base_url or _OPENAI_DEFAULT_URL).rstrip("/")
        self.model: str = settings.model or os.environ.get(MODEL_ENV) or DEFAULT_MODEL
        api_key = os.environ.get(settings.api_key_env)
        if not api_key:
            if not is_local_url(self.base_url):
                raise LLMError(f"no API key for the LLM server at {self.base_url}: set the environment "
                               f"variable {settings.api_key_env} (llm.api_key_env names which variable)")
            api_key = LOCAL_DUMMY_KEY
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )

    def complete(
        self, messages: list[Message], *, max_tokens: int | None = None, temperature: float | None = None
    ) -> Completion:
        """Send ``messages`` to ``<base_url>/chat/completions`` and return the first choice.

        ``max_tokens`` / ``temperature``: per call; ``None`` means ``settings.max_tokens`` /
        ``settings.temperature``. Token counts are the server's ``usage`` when it reports one
        (``token_source="server"``), else counted offline with cl100k_base
        (``token_source="cl100k_base"``). ``latency_ms`` includes retries and backoff. Raises
        :class:`LLMUnavailable` / :class:`LLMError` as described on the class.
        """
        import openai

        payload = [{"role": m.role, "content": m.content} for m in messages]
        attempts = self.settings.max_retries + 1
        where = f"the LLM server at {self.base_url}"
        start = time.perf_counter()
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=payload,  # type: ignore[arg-type]
                max_tokens=self.settings.max_tokens if max_tokens is None else max_tokens,
                temperature=self.settings.temperature if temperature is None else temperature,
            )
        except openai.APITimeoutError as exc:
            raise LLMUnavailable(f"cannot reach {where}: no reply within {self.settings.timeout_s:g} s "
                                 f"({_attempts(attempts)})") from exc
        except openai.APIConnectionError as exc:
            raise LLMUnavailable(f"cannot reach {where}: {_cause(exc)} ({_attempts(attempts)})") from exc
        except (openai.InternalServerError, openai.RateLimitError) as exc:
            raise LLMUnavailable(f"{where} answered HTTP {exc.status_code} ({_attempts(attempts)}): "
                                 f"{_server_message(exc)}") from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"{where} answered HTTP {exc.status_code} for model {self.model!r}: "
                           f"{_server_message(exc)}") from exc
        except openai.OpenAIError as exc:
            raise LLMError(f"{where}: {exc}") from exc
        except (ValueError, TypeError, AttributeError) as exc:  # a body that is not a chat completion
            raise LLMError(f"{where} sent a reply that is not a chat completion ({type(exc).__name__}: "
                           f"{str(exc)[:120]})") from exc
        latency_ms = (time.perf_counter() - start) * 1000.0

        if not response.choices:
            raise LLMError(f"{where} returned no choices for model {self.model!r}")
        choice = response.choices[0]
        text = (choice.message.content if choice.message is not None else None) or ""
        finish = str(choice.finish_reason or "")
        usage = response.usage
        if usage is not None and usage.prompt_tokens is not None and usage.completion_tokens is not None:
            prompt_tokens, completion_tokens, source = usage.prompt_tokens, usage.completion_tokens, "server"
        else:
            prompt_tokens, completion_tokens, source = count_messages(messages), count_tokens(text), TOKEN_SOURCE
        # a server that ignores max_tokens: keep what was asked for (about 4 characters a token, with
        # room) and count what was actually sent, whatever the server claims
        limit = self.settings.max_tokens if max_tokens is None else max_tokens
        if len(text) > limit * 8:
            completion_tokens = max(int(completion_tokens), count_tokens(text))
            text, finish = text[: limit * 8], "length (cut by clinqa: longer than max_tokens)"
        return Completion(
            text=text,
            model=self.model,
            backend=self.name,
            prompt_tokens=int(prompt_tokens),
            completion_tokens=int(completion_tokens),
            latency_ms=latency_ms,
            token_source=source,
            finish_reason=finish,
        )

    def close(self) -> None:
        """Close the HTTP connection pool (also done when the object is garbage-collected)."""
        self._client.close()

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r})"


def _attempts(n: int) -> str:
    return "1 attempt" if n == 1 else f"{n} attempts"


def _cause(exc: BaseException) -> str:
    """The innermost useful reason of a connection error (e.g. ``[Errno 111] Connection refused``)."""
    reason: BaseException = exc
    while reason.__cause__ is not None:
        reason = reason.__cause__
    return str(reason) or type(reason).__name__


def _server_message(exc: openai.APIStatusError) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the body (cut to 300 characters:
    a proxy may answer an HTML page) or the exception text."""
    body: Any = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    text = " ".join(str(body).split()) if body else str(exc)
    return text if len(text) <= 300 else text[:297] + "..."
