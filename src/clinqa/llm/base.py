"""The one interface every language-model backend implements.

A backend turns a list of chat messages into a :class:`Completion` (text plus token counts).
Backends: :mod:`clinqa.llm.openai_backend` (any server speaking OpenAI's chat-completions
protocol: OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server, Gemini's OpenAI-compatible
endpoint) and :mod:`clinqa.llm.local` (llama-cpp-python in process, the ``local-llm`` extra).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

from clinqa.errors import ClinqaError


class LLMError(ClinqaError):
    """The model call failed for a reason the user must fix (bad key, unknown model, bad reply)."""


class LLMUnavailable(LLMError):
    """The model could not be reached (server down, connection refused, timed out after the
    configured retries) or the local backend is not installed. Callers fall back to the
    extractive answer and say so."""


@dataclass(frozen=True)
class Message:
    """One chat message; ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str


@dataclass
class Completion:
    """A model reply.

    ``prompt_tokens`` / ``completion_tokens``: as reported by the server when it reports usage
    (``token_source == "server"``), by llama.cpp's own tokenizer for the local backend
    (``token_source == "llama.cpp"``), else counted offline with the cl100k_base tokenizer
    (``token_source == "cl100k_base"``; an estimate for non-OpenAI models). ``latency_ms`` is
    wall time of the call in milliseconds, retries and backoff included. ``finish_reason``:
    ``stop``, ``length`` (hit ``max_tokens``) ... as the model reported it, ``""`` if not.
    """

    text: str
    model: str
    backend: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    token_source: str = "server"
    finish_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@runtime_checkable
class LLMBackend(Protocol):
    """A chat model. ``name`` is the backend kind (``openai``, ``local``); ``model`` the model id
    used for pricing and logs."""

    name: str
    model: str

    def complete(self, messages: list[Message], *, max_tokens: int = 512, temperature: float = 0.0) -> Completion:
        """Return the model's reply to ``messages``.

        Raises :class:`LLMUnavailable` when the model cannot be reached after retries and
        :class:`LLMError` for any other failure."""
        ...
