"""Language-model backends behind one interface (:class:`LLMBackend`).

``make_backend(settings.llm)`` returns the configured backend: ``None`` for ``backend: none``
(extractive answers only), :class:`~clinqa.llm.openai_backend.OpenAIBackend` for ``openai`` (any
chat-completions server) or :class:`~clinqa.llm.local.LocalBackend` for ``local``
(llama-cpp-python in process). Token counting and cost: :mod:`clinqa.llm.tokens`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinqa.llm.base import Completion, LLMBackend, LLMError, LLMUnavailable, Message
from clinqa.llm.tokens import cost_usd, count_messages, count_tokens

if TYPE_CHECKING:
    from clinqa.settings import LLMSettings

__all__ = [
    "Completion",
    "LLMBackend",
    "LLMError",
    "LLMUnavailable",
    "Message",
    "cost_usd",
    "count_messages",
    "count_tokens",
    "make_backend",
]


def make_backend(settings: LLMSettings) -> LLMBackend | None:
    """The backend ``settings.backend`` names, ready to call; ``None`` for ``"none"``.

    The ``openai`` client and llama-cpp-python are imported only when chosen. Raises
    :class:`LLMError` for a configuration that cannot work (missing API key for a remote server,
    missing GGUF file), :class:`LLMUnavailable` when the local backend is not installed and
    :class:`clinqa.extras.MissingExtra` when the openai client is not (``clinqa[llm]``).
    Connecting to a server happens on the first ``complete`` call, not here.
    """
    if settings.backend == "none":
        return None
    if settings.backend == "openai":
        from clinqa.extras import extra_needed
        from clinqa.llm.openai_backend import OpenAIBackend

        with extra_needed("llm.backend: openai"):
            return OpenAIBackend(settings)
    if settings.backend == "local":
        from clinqa.llm.local import LocalBackend

        return LocalBackend(settings)
    raise LLMError(f"unknown llm.backend {settings.backend!r}: use none, openai or local")
