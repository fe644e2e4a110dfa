"""Offline cl100k_base counting and cost arithmetic."""

from __future__ import annotations

import pytest

from clinqa.llm import Message
from clinqa.llm.base import cost_usd
from clinqa.llm.tokens import count_messages, count_tokens, encoding
from clinqa.settings import LLMSettings, Price


def test_known_cl100k_counts() -> None:
    # Published cl100k_base encodings: "hello world" -> [15339, 1917]; the pangram is 10 tokens
    # (The| quick| brown| fox| jumps| over| the| lazy| dog|.).
    assert encoding().encode("hello world") == [15339, 1917]
    assert count_tokens("hello world") == 2
    assert count_tokens("The quick brown fox jumps over the lazy dog.") == 10
    assert count_tokens("") == 0


def test_special_token_text_is_ordinary_text() -> None:
    # would raise with tiktoken's default disallowed_special="all"
    assert count_tokens("<|endoftext|>") == 7


def test_count_messages_follows_openai_accounting() -> None:
    # per message: 3 + role + content; plus 3 priming the reply
    # "system"=1, "user"=1 token; "hello world"=2, "The quick ... dog."=10
    msgs = [Message("system", "hello world"), Message("user", "The quick brown fox jumps over the lazy dog.")]
    assert count_messages(msgs) == (3 + 1 + 2) + (3 + 1 + 10) + 3 == 23
    assert count_messages([{"role": "user", "content": "hello world"}]) == 3 + 1 + 2 + 3
    assert count_messages([]) == 3


def test_cost_usd_hand_computed() -> None:
    prices = LLMSettings().prices
    # 1000 * 0.15 / 1e6 + 500 * 0.60 / 1e6 = 0.00015 + 0.00030
    assert cost_usd("gpt-4o-mini", 1000, 500, prices) == pytest.approx(0.00045, abs=1e-12)
    assert cost_usd("gemma-3-270m", 1000, 500, prices) == 0.0
    assert cost_usd("no-such-model", 1000, 500, prices) is None
    assert cost_usd("m", 2_000_000, 0, {"m": Price(prompt=2.5, completion=10)}) == pytest.approx(5.0)


def test_completion_usage_is_read_where_the_completion_is_made() -> None:
    """Issue 48: the usage of a call (tokens, cost, latency) is read once, by the llm layer, as the completion is
    made (``Completion.usage``, in ``generate_answer``), not by the answer's ``Generated`` afterwards; cost by hand:
    1200 prompt tokens at $0.15/M plus 300 completion tokens at $0.60/M = 0.00018 + 0.00018 = 0.00036."""
    from clinqa.llm.base import Completion

    c = Completion("Yes [1].", "gpt-4o-mini", "openai", 1200, 300, 812.345, "server", "stop")
    prices = {"gpt-4o-mini": Price(prompt=0.15, completion=0.60)}
    u = c.usage(prices)
    assert u == {"backend": "openai", "model": "gpt-4o-mini", "prompt_tokens": 1200, "completion_tokens": 300,
                 "token_source": "server", "cost_usd": pytest.approx(0.00036, abs=1e-12), "latency_ms": 812.3,
                 "finish_reason": "stop"}
    assert c.usage({})["cost_usd"] is None  # no price: unknown, not zero
