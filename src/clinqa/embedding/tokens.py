"""Token counting with the embedding model's own tokenizer (HF ``tokenizers``): the counter the encoders
hand to the chunkers (``Encoder.token_counter``; :class:`clinqa.chunking.base.TokenCounter` protocol)."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer


class HFTokenCounter:
    """Counts tokens with a ``tokenizer.json`` (the same file the encoder uses).

    Truncation and padding are switched off so long texts are counted in full.
    Counts include the special tokens the model adds ([CLS] and [SEP] for BERT: 2).
    """

    def __init__(self, tokenizer_json: Path | str) -> None:
        self._tok = Tokenizer.from_file(str(tokenizer_json))
        self._tok.no_truncation()
        self._tok.no_padding()
        self._special = len(self._tok.encode("", add_special_tokens=True).ids)

    @property
    def special_tokens(self) -> int:
        """Special tokens added to every text."""
        return self._special

    def count(self, text: str) -> int:
        """Tokens in ``text`` with special tokens."""
        return len(self._tok.encode(text, add_special_tokens=True).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        """Batched :meth:`count`."""
        if not texts:
            return []
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=True)]
