"""The one interface every language-model backend implements.

A backend turns a list of chat messages into a :class:`Completion` (text plus token counts).
Backends: :mod:`clinqa.llm.openai_backend` (any server speaking OpenAI's chat-completions
protocol: OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server, Gemini's OpenAI-compatible
endpoint) and :mod:`clinqa.llm.local` (llama-cpp-python in process, the ``local-llm`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from clinqa.errors import ClinqaError

if TYPE_CHECKING:
    from clinqa.settings import Price


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

    def usage(self, prices: Mapping[str, Price]) -> dict[str, Any]:
        """Tokens, cost and latency of this call, for ``Answer.llm`` and the logs: ``{"backend", "model",
        "prompt_tokens", "completion_tokens", "token_source", "cost_usd", "latency_ms", "finish_reason"}``;
        ``cost_usd`` in US dollars from ``prices`` (:func:`cost_usd`; None when the model has no price),
        ``latency_ms`` rounded to 0.1 ms. Read once, as the completion is made
        (:func:`clinqa.answer.generate.generate_answer`)."""
        return {"backend": self.backend, "model": self.model, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "token_source": self.token_source,
                "cost_usd": cost_usd(self.model, self.prompt_tokens, self.completion_tokens, prices),
                "latency_ms": round(self.latency_ms, 1), "finish_reason": self.finish_reason}


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int, prices: Mapping[str, Price]) -> float | None:
    """US dollars for one call: ``prompt_tokens * price.prompt / 1e6 + completion_tokens *
    price.completion / 1e6`` (prices are USD per 1M tokens, :class:`clinqa.settings.Price`).

    ``None`` when ``model`` has no entry in ``prices`` (cost unknown, not zero)."""
    price = prices.get(model)
    if price is None:
        return None
    return (prompt_tokens * price.prompt + completion_tokens * price.completion) / 1_000_000


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
