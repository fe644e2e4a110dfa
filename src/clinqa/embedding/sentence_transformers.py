"""Encoder backed by a local sentence-transformers folder (PyTorch, CPU)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from clinqa.chunking.tokens import HFTokenCounter
from clinqa.embedding.base import length_sorted_batches, normalise
from clinqa.embedding.fingerprint import fingerprint


class SentenceTransformerEncoder:
    """all-MiniLM-L6-v2 by default (Reimers & Gurevych 2019, Sentence-BERT; model card
    sentence-transformers/all-MiniLM-L6-v2: 384-d, 256 word pieces).

    Loads with ``local_files_only``: a missing model is an error, never a download.
    ``threads`` pins torch's intra-op threads.
    """

    def __init__(self, path: Path, name: str | None = None, batch_size: int = 32,
                 threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # clinqa never downloads weights
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()

        if threads:
            torch.set_num_threads(threads)
        self.path = Path(path)
        self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.batch_size = batch_size
        self.dim = int(self._model.get_embedding_dimension())
        self.max_tokens = int(self._model.max_seq_length)
        self.model_id = f"{name or self.path.name}@{fingerprint(self.path)}"
        tok = self.path / "tokenizer.json"
        self._counter = HFTokenCounter(tok) if tok.exists() else None

    @property
    def token_counter(self) -> HFTokenCounter:
        """Counts tokens with this model's ``tokenizer.json``."""
        if self._counter is None:
            raise RuntimeError(f"{self.path}: no tokenizer.json to count tokens with")
        return self._counter

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # length-sorted groups of batches: minimal padding, and a progress bar per group
        groups = length_sorted_batches(texts, self.batch_size * 8)
        for idx in tqdm(groups, disable=not progress, desc="embedding", unit="batch",
                        unit_scale=self.batch_size * 8):
            vecs = self._model.encode([texts[i] for i in idx], batch_size=self.batch_size,
                                      convert_to_numpy=True, normalize_embeddings=True,
                                      show_progress_bar=False)
            out[idx] = vecs
        return normalise(out)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` unit vectors for questions."""
        return self._encode(texts, progress=False)

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """``(n, dim)`` unit vectors for passages (truncated at ``max_tokens``)."""
        return self._encode(texts, progress)
