"""Cross-encoder reranker (Nogueira & Cho 2019, "Passage Re-ranking with BERT"): the question
and the passage are read together by one transformer whose classification head gives a
relevance score.

Loads any local Hugging Face sequence-classification folder (``local_files_only``: never
downloads): the cross-encoders ``clinqa train reranker`` writes, or a user's own (MedCPT
cross-encoder, an ms-marco MiniLM) by path. Each pair is truncated to ``max_tokens`` by
cutting the passage only (tokenizer strategy ``only_second``), never the question.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.embedding.fingerprint import fingerprint
from clinqa.errors import ConfigError


class CrossEncoderReranker:
    """Score (question, passage) pairs with a sequence-classification model on PyTorch.

    ``path``: a local folder with ``config.json``, weights and tokenizer. ``max_tokens``:
    limit per pair (question + passage + special tokens), at most the model's own limit.
    ``batch_size``: pairs per forward pass. ``threads``: torch intra-op threads (default: all).
    Scores: sigmoid of the logit for one-label models (BCE-trained; a probability in [0, 1]),
    softmax of the positive class for two-label models.
    Raises :class:`ConfigError` when the folder is missing or not a classification model.
    """

    def __init__(self, path: str | Path, max_tokens: int = 512, batch_size: int = 32,
                 threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.path = Path(path).expanduser()
        if not (self.path / "config.json").exists():
            raise ConfigError(f"reranker {path}: not a local model folder (no config.json); clinqa does not "
                              "download models: train one with `clinqa train reranker` or pass a folder")
        self.model_id = f"{self.path.name}@{fingerprint(self.path)}"
        self.batch_size = batch_size
        self.threads = threads
        self.requested_max_tokens = max_tokens
        self._model: Any = None
        self._tok: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            self._tok = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            self._model = AutoModelForSequenceClassification.from_pretrained(self.path, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"reranker {self.path}: cannot load a sequence-classification model: {exc}") from exc
        self._model.eval()
        limit = getattr(self._model.config, "max_position_embeddings", 512)
        self.max_tokens = min(self.requested_max_tokens, limit)

    @property
    def num_labels(self) -> int:
        """Classification labels of the loaded head (1 for BCE-trained rerankers)."""
        self._load()
        return int(self._model.config.num_labels)

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Relevance scores, shape ``(len(passages),)``; see the class docstring."""
        if not passages:
            return np.zeros(0)
        self._load()
        import torch

        q_tokens = len(self._tok(query, add_special_tokens=False)["input_ids"])
        # the question is never cut: if it alone fills the limit, keep it and a token of passage
        limit = max(self.max_tokens, q_tokens + 4)
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for i in range(0, len(passages), self.batch_size):
                batch = list(passages[i:i + self.batch_size])
                enc = self._tok([query] * len(batch), batch, truncation="only_second", max_length=limit,
                                padding=True, return_tensors="pt")
                logits = self._model(**enc).logits.float()
                one_label = logits.shape[-1] == 1
                s = torch.sigmoid(logits[:, 0]) if one_label else torch.softmax(logits, dim=-1)[:, -1]
                out.append(s.cpu().numpy())
        return np.concatenate(out).astype(float)
