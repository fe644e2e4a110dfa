"""The Encoder protocol: text in, L2-normalised float32 vectors out."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from clinqa.chunking.base import TokenCounter


class Encoder(Protocol):
    """A dense bi-encoder.

    ``model_id`` identifies the weights (used as the embedding-cache key, so two different
    models never share cached vectors). ``max_tokens`` is the input limit; longer inputs are
    truncated by the model. Outputs have shape ``(n, dim)``, dtype float32, unit L2 norm, so
    a dot product is the cosine similarity.
    """

    model_id: str
    dim: int
    max_tokens: int

    @property
    def token_counter(self) -> TokenCounter:
        """Counts tokens with this model's tokenizer."""
        ...

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embed questions: ``(n, dim)`` float32, unit norm."""
        ...

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """Embed passages: ``(n, dim)`` float32, unit norm; batches sorted by length."""
        ...


def normalise(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


def length_sorted_batches(texts: list[str], batch_size: int) -> list[list[int]]:
    """Index batches of ``texts`` sorted by length (longest first), so padding is minimal."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
