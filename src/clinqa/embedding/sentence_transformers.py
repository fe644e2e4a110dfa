"""Encoder backed by a local sentence-transformers folder.

A mean-pooled BERT (the shipped all-MiniLM-L6-v2) runs entirely on ONNX Runtime, ingest and
questions alike, from a graph built without torch (:mod:`clinqa.embedding.bert_onnx`): the core
install has no torch. PyTorch (sentence-transformers, ``clinqa[models]``) runs only what ONNX does not
reproduce: another architecture or pooling, bulk encoding in bf16 on a CPU with bfloat16 units, or
``fast_queries`` off; for a mean-pooled model small batches (a question, the sentences of an extractive
answer) still run on an ONNX export. Both paths give the same vectors (max abs difference ~2e-7,
checked in tests), so they share one ``model_id`` and one cache.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, get_args

import numpy as np
from tqdm.auto import tqdm

from clinqa.embedding.base import length_sorted_batches, normalise
from clinqa.embedding.export import export_onnx, is_bert, mean_pooled
from clinqa.embedding.fingerprint import fingerprint
from clinqa.embedding.tokens import HFTokenCounter
from clinqa.paths import cache_dir
from clinqa.settings import Precision

#: the values of ``embedding.precision`` (:class:`clinqa.settings.EmbeddingSettings`), from its type
PRECISIONS: tuple[str, ...] = get_args(Precision)

#: at most this many texts go through the ONNX fast path in one call
SMALL_BATCH = 128


def cpu_has_bf16() -> bool:
    """True when ``/proc/cpuinfo`` lists ``amx_bf16`` or ``avx512_bf16`` (x86 bfloat16 units);
    False elsewhere or when it cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"amx_bf16", "avx512_bf16"})
    except OSError:
        pass
    return False


def _torch_installed() -> bool:
    """True when torch can be imported (looked up, not imported)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


class SentenceTransformerEncoder:
    """all-MiniLM-L6-v2 by default (Reimers & Gurevych 2019, Sentence-BERT; model card
    sentence-transformers/all-MiniLM-L6-v2: 384-d, 256 word pieces).

    Loads with ``local_files_only``: a missing model is an error, never a download.
    ``threads`` pins torch's and ONNX Runtime's intra-op threads. Backends load lazily.

    ``precision``: bulk passage encoding in ``"fp32"`` or ``"bf16"`` (``torch.autocast``: matrix
    products in bfloat16, run on AMX/AVX512-BF16 units through oneDNN); ``"full"`` picks bf16 when
    the CPU has such units (:func:`cpu_has_bf16`), else fp32. bf16 vectors agree with fp32 to a cosine of
    0.99997 or better on real chunks (``bench/encoder/throughput.py``), so both share ``model_id``
    and the cache, like the ONNX query path. ``"int8"``: every encoding on ONNX Runtime with int8 weights
    (its own ``model_id``, ``+int8``). ``"auto"``: int8 when the model can run it (a mean-pooled BERT with
    ``tokenizer.json``, :attr:`int8_capable`), else full; a store's own precision is chosen before the
    encoder is built (:func:`clinqa.embedding.for_store`).
    """

    def __init__(self, path: Path, name: str | None = None, batch_size: int = 32,
                 threads: int | None = None, fast_queries: bool = True, precision: str = "auto") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # clinqa never downloads weights
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.path = Path(path)
        self.batch_size = batch_size
        self.threads = threads
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        self.int8_capable = (fast_queries and mean_pooled(self.path) and (self.path / "tokenizer.json").exists()
                             and is_bert(self.path))
        self.int8 = precision == "int8" or (precision == "auto" and self.int8_capable)
        self.bf16 = not self.int8 and (precision == "bf16" or (precision in ("auto", "full") and cpu_has_bf16()))
        # int8 vectors differ from fp32 ones (cosine ~0.994): another model id, so another cache key and store
        self.model_id = f"{name or self.path.name}@{fingerprint(self.path)}" + ("+int8" if self.int8 else "")
        self.max_tokens = self._max_seq_length()
        self._st: Any = None
        self._onnx: Any = None
        self._lock = threading.Lock()
        self.fast = fast_queries and mean_pooled(self.path) and (self.path / "tokenizer.json").exists()
        # everything on ONNX (no torch) for a mean-pooled BERT, unless bf16 bulk encoding was chosen
        self.onnx_only = self.fast and is_bert(self.path) and (self.int8 or not (self.bf16 and _torch_installed()))
        if self.int8 and not self.onnx_only:
            from clinqa.errors import ConfigError

            raise ConfigError(f"embedding.precision int8 needs a mean-pooled BERT model with tokenizer.json; "
                              f"{self.path} is not one")
        pool = self._config("1_Pooling/config.json").get("word_embedding_dimension")
        self.dim = int(pool) if pool else int(self._model().get_embedding_dimension())
        tok = self.path / "tokenizer.json"
        self._counter = HFTokenCounter(tok) if tok.exists() else None

    def _max_seq_length(self) -> int:
        """The model's input limit in tokens: ``max_seq_length`` of ``sentence_bert_config.json``
        (sentence-transformers < 6), else ``model_max_length`` of ``tokenizer_config.json`` (where
        sentence-transformers 6 saves it; ignored when it is the "unlimited" sentinel), else the
        transformer's ``max_position_embeddings``, else 512."""
        limit = self._config("sentence_bert_config.json").get("max_seq_length")
        if limit is None:
            tok = self._config("tokenizer_config.json").get("model_max_length")
            limit = tok if isinstance(tok, int) and tok < 100_000 else None
        if limit is None:
            limit = self._config("config.json").get("max_position_embeddings", 512)
        return int(limit)

    def _config(self, rel: str) -> dict[str, Any]:
        try:
            return json.loads((self.path / rel).read_text())
        except (OSError, ValueError):
            return {}

    def _model(self) -> Any:
        from clinqa.extras import extra_needed

        with self._lock, extra_needed(f"the encoder {self.path.name} on sentence-transformers"):
            if self._st is None:
                import torch
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.set_verbosity_error()
                hf_logging.disable_progress_bar()
                if self.threads:
                    torch.set_num_threads(self.threads)
                self._st = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
                self._st.max_seq_length = self.max_tokens
            return self._st

    def _onnx_encoder(self) -> Any:
        with self._lock:
            if self._onnx is None:
                from clinqa.embedding.onnx import OnnxEncoder

                target = cache_dir() / "onnx" / f"{self.model_id.replace('/', '_')}.onnx"
                if not target.exists() and self.int8:
                    from clinqa.embedding.onnx import quantize_int8

                    fp32 = target.with_name(target.name.replace("+int8", ""))
                    if not fp32.exists():
                        export_onnx(self.path, fp32)
                    quantize_int8(fp32, target)
                elif not target.exists():
                    export_onnx(self.path, target)
                self._onnx = OnnxEncoder(target, name=self.model_id, batch_size=self.batch_size,
                                         threads=self.threads, tokenizer=self.path / "tokenizer.json",
                                         max_tokens=self.max_tokens, dim=self.dim)
            return self._onnx

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
        if self.onnx_only or (self.fast and len(texts) <= SMALL_BATCH):
            return self._onnx_encoder().encode_passages(texts, progress=progress)
        model = self._model()
        # length-sorted groups of batches: minimal padding, and a progress bar per group
        groups = length_sorted_batches(texts, self.batch_size * 8)
        for idx in tqdm(groups, disable=not progress, desc="embedding", unit="batch",
                        unit_scale=self.batch_size * 8):
            with self._precision():
                vecs = model.encode([texts[i] for i in idx], batch_size=self.batch_size,
                                    convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
            out[idx] = vecs
        return normalise(out)

    def _precision(self) -> Any:
        """The autocast context of :attr:`bf16` (a no-op context for fp32)."""
        import contextlib

        import torch

        return torch.autocast("cpu", dtype=torch.bfloat16) if self.bf16 else contextlib.nullcontext()

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` unit vectors for questions."""
        return self._encode(texts, progress=False)

    @property
    def pools_spans(self) -> bool:
        """True when :meth:`encode_with_spans` runs (the model runs entirely on ONNX Runtime)."""
        return self.onnx_only

    def encode_with_spans(self, texts: list[str], spans: list[list[tuple[int, int]]],
                          progress: bool = False) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """Passage vectors and late-pooled span vectors in one pass
        (:meth:`clinqa.embedding.onnx.OnnxEncoder.encode_with_spans`; same shapes). Raises
        :class:`ValueError` when the model does not run on ONNX Runtime (:attr:`pools_spans` False)."""
        if not self.onnx_only:
            raise ValueError(f"{self.model_id}: span pooling needs the ONNX path (a mean-pooled BERT, fp32 or int8)")
        return self._onnx_encoder().encode_with_spans(texts, spans, progress=progress)

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """``(n, dim)`` unit vectors for passages (truncated at ``max_tokens``)."""
        return self._encode(texts, progress)
