"""Token counters for chunking: :class:`WordCounter` (whitespace words) lives here; the model-tokenizer
counter :class:`~clinqa.embedding.tokens.HFTokenCounter` lives in :mod:`clinqa.embedding.tokens` and is
re-exported here, imported on first use (so importing the chunkers does not import the embedding
package).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinqa.embedding.tokens import HFTokenCounter

__all__ = ["HFTokenCounter", "WordCounter"]


def __getattr__(name: str) -> Any:
    """``HFTokenCounter`` from :mod:`clinqa.embedding.tokens` (the old import path keeps working)."""
    if name == "HFTokenCounter":
        from clinqa.embedding.tokens import HFTokenCounter

        return HFTokenCounter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class WordCounter:
    """Whitespace word count, for strategies defined in words (``fixed``) and for tests."""

    special_tokens = 0

    def count(self, text: str) -> int:
        """Whitespace-separated words in ``text``."""
        return len(text.split())

    def count_many(self, texts: list[str]) -> list[int]:
        """Batched :meth:`count`."""
        return [len(t.split()) for t in texts]
