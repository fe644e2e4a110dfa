"""Language-model backends behind one interface (:class:`LLMBackend`).

``build_llm_backend(settings.llm)`` returns the configured backend (:data:`LLM_BACKENDS`): ``None`` for
``backend: none`` (extractive answers only), :class:`~clinqa.llm.openai_backend.OpenAIBackend` for
``openai`` (any chat-completions server) or :class:`~clinqa.llm.local.LocalBackend` for ``local``
(llama-cpp-python in process). Token counting: :mod:`clinqa.llm.tokens`; a call's cost: :meth:`Completion.usage`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from clinqa.llm.base import Completion, LLMBackend, LLMError, LLMUnavailable, Message, cost_usd
from clinqa.llm.tokens import count_messages, count_tokens

if TYPE_CHECKING:
    from clinqa.settings import LLMSettings

__all__ = [
    "LLM_BACKENDS",
    "Completion",
    "LLMBackend",
    "LLMError",
    "LLMUnavailable",
    "Message",
    "build_llm_backend",
    "cost_usd",
    "count_messages",
    "count_tokens",
    "make_backend",
]

#: ``settings -> LLMBackend | None``
LLMBuilder = Callable[["LLMSettings"], "LLMBackend | None"]


def _none(settings: LLMSettings) -> LLMBackend | None:
    return None


def _openai(settings: LLMSettings) -> LLMBackend | None:
    from clinqa.extras import extra_needed
    from clinqa.llm.openai_backend import OpenAIBackend

    with extra_needed("llm.backend: openai"):
        return OpenAIBackend(settings)


def _local(settings: LLMSettings) -> LLMBackend | None:
    from clinqa.llm.local import LocalBackend

    return LocalBackend(settings)


#: the language-model backends by ``llm.backend`` (the settings ``Literal`` names these keys;
#: tests/test_registries.py checks it). Each imports its client only when built.
LLM_BACKENDS: dict[str, LLMBuilder] = {"none": _none, "openai": _openai, "local": _local}


def build_llm_backend(settings: LLMSettings) -> LLMBackend | None:
    """The backend ``settings.backend`` names in :data:`LLM_BACKENDS`, ready to call; ``None`` for ``"none"``.

    The ``openai`` client and llama-cpp-python are imported only when chosen. Raises
    :class:`LLMError` for an unknown backend or a configuration that cannot work (missing API key for a
    remote server, missing GGUF file), :class:`LLMUnavailable` when the local backend is not installed
    and :class:`clinqa.extras.MissingExtra` when the openai client is not (``clinqa[llm]``).
    Connecting to a server happens on the first ``complete`` call, not here.
    """
    builder = LLM_BACKENDS.get(settings.backend)
    if builder is None:
        *rest, last = LLM_BACKENDS
        raise LLMError(f"unknown llm.backend {settings.backend!r}: use {', '.join(rest)} or {last}")
    return builder(settings)


#: the former name of :func:`build_llm_backend`, kept for callers not yet moved (``clinqa.cli``)
make_backend = build_llm_backend
