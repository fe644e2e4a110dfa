"""Encoder backed by an ONNX Runtime session (e.g. the shipped int8 all-MiniLM-L6-v2).

Input names ``input_ids``, ``attention_mask`` and (if the graph has it) ``token_type_ids``;
the sentence vector is the attention-masked mean of output ``output_index`` (token
embeddings, as sentence-transformers' mean pooling), or that output itself when it is
already 2-D (pooled).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.embedding.base import length_sorted_batches, normalise
from clinqa.embedding.fingerprint import fingerprint
from clinqa.embedding.shipped import minilm_folder
from clinqa.embedding.tokens import HFTokenCounter

#: the cgroup v2 CPU quota of this process's container ("max 100000" when unlimited)
CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity (``os.sched_getaffinity``, where the OS has it), capped
    by a cgroup v2 CPU quota (``/sys/fs/cgroup/cpu.max``, e.g. a container's ``--cpus 2``), at least 1.
    ``os.cpu_count()`` counts the host's CPUs instead, and one thread per host CPU oversubscribes a container."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        quota, period = CPU_MAX.read_text().split()[:2]
        if quota != "max":
            n = min(n, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, n)


def cpu_session(model_file: Path, threads: int | None = None) -> Any:
    """An ONNX Runtime CPU ``InferenceSession`` of ``model_file`` with ``threads`` intra-op threads (default:
    :func:`usable_cores`), quiet logging and no busy-waiting after a run: ONNX Runtime's worker threads otherwise spin
    for a while and hold the cores that the dense product and the full-text search of the same question
    need next (bench/scale: the product took ~35 ms instead of 15 right after encoding a question)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or usable_cores()
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    return ort.InferenceSession(str(model_file), opts, providers=["CPUExecutionProvider"])


def quantize_int8(src: Path, dst: Path) -> Path:
    """Write ``src`` (an fp32 ONNX graph) to ``dst`` with its MatMul weights quantized to int8 per output
    channel and activations quantized at run time (ONNX Runtime dynamic quantization; Jacob et al. 2018,
    "Quantization and Training of Neural Networks for Efficient Integer-Arithmetic-Only Inference").
    Atomic: ``dst`` appears complete or not at all. MiniLM-L6: 87 MB -> 22 MB, about 2x faster on an
    AVX512-VNNI CPU (docs/benchmarks.md). Returns ``dst``."""
    import logging
    import shutil
    import tempfile

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    dst.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))  # quantize_dynamic warns "consider pre-processing" on the root logger
    try:
        with tempfile.TemporaryDirectory(dir=dst.parent) as tmp:  # quantize_dynamic writes beside its input
            copy = Path(tmp) / "model.onnx"
            shutil.copy(src, copy)
            quantize_dynamic(str(copy), str(Path(tmp) / "int8.onnx"), per_channel=True,
                             weight_type=QuantType.QInt8, extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
            os.replace(Path(tmp) / "int8.onnx", dst)
    finally:
        root.setLevel(level)  # the caller's logging is left as it was
    return dst


def mean_pool(tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unit-norm attention-masked means of ``tokens`` (``(batch, T, dim)``) over ``mask`` (``(batch, T)``, 1 for a
    token): sentence-transformers' mean Pooling then Normalize. ``(batch, dim)`` float32."""
    m = mask[..., None].astype(np.float32)
    return normalise((tokens * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None))


def pool_spans(tokens: np.ndarray, offsets: list[tuple[int, int]], mask: np.ndarray,
               spans: list[tuple[int, int]]) -> np.ndarray:
    """Mean of the rows of ``tokens`` (``(T, dim)`` contextual token embeddings) whose character ``offsets``
    (T pairs, as the tokenizer gives them; ``(0, 0)`` for special tokens) overlap each ``(start, end)`` of
    ``spans``, over tokens with ``mask`` 1; rows normalised to unit length. ``(len(spans), dim)`` float32;
    a span that no token overlaps (beyond the truncation) gets a zero row."""
    starts = np.array([a for a, _ in offsets], dtype=np.int64)
    ends = np.array([b for _, b in offsets], dtype=np.int64)
    real = (ends > starts) & (mask[: len(offsets)] > 0)
    res = np.zeros((len(spans), tokens.shape[1]), dtype=np.float32)
    for j, (a, b) in enumerate(spans):
        inside = real & (starts < b) & (ends > a)
        if inside.any():
            res[j] = tokens[: len(offsets)][inside].mean(axis=0)
    return normalise(res)


class OnnxEncoder:
    """ONNX bi-encoder. ``tokenizer`` defaults to ``tokenizer.json`` beside the model, else the
    shipped MiniLM tokenizer (same vocabulary as the MiniLM ONNX exports in PLATFORM.md)."""

    def __init__(self, path: Path, name: str | None = None, batch_size: int = 32,
                 threads: int | None = None, tokenizer: Path | None = None, max_tokens: int = 256,
                 output_index: int = 0, dim: int | None = None) -> None:
        from tokenizers import Tokenizer

        path = Path(path)
        model_file = path if path.is_file() else sorted(path.glob("*.onnx"))[0]
        self._sess = cpu_session(model_file, threads)
        self._inputs = {i.name for i in self._sess.get_inputs()}
        tok_path = tokenizer or (model_file.parent / "tokenizer.json")
        if not tok_path.exists():
            tok_path = minilm_folder() / "tokenizer.json"
        self._tok = Tokenizer.from_file(str(tok_path))
        self._tok.enable_truncation(max_tokens)
        self._tok.enable_padding()
        self._counter = HFTokenCounter(tok_path)
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.output_index = output_index
        self.model_id = f"{name or model_file.stem}@{fingerprint(model_file)}"
        self.dim = dim or int(self._encode_batch(["dimension probe"]).shape[1])

    @property
    def token_counter(self) -> HFTokenCounter:
        """Counts tokens with the model's tokenizer."""
        return self._counter

    def _run(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        """``(output, attention mask (batch, tokens), tokenizer encodings)`` of one batch."""
        enc = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        return self._sess.run(None, feed)[self.output_index], mask, enc

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        out, mask, _ = self._run(texts)
        return mean_pool(out, mask) if out.ndim == 3 else normalise(out)

    def encode_with_spans(self, texts: list[str], spans: list[list[tuple[int, int]]],
                          progress: bool = False) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """One forward pass per text for its own vector and the vectors of character ``spans`` of it ("late
        chunking", Günther et al. 2024, arXiv:2409.04701: a span's vector is the mean of the contextual
        token embeddings inside it, so a sentence is read in its chunk's context and costs no second pass).

        ``texts``: n passages; ``spans[i]``: ``(start, end)`` character offsets into ``texts[i]``.
        Returns ``(vectors (n, dim), unit vectors)``, the first exactly :meth:`encode_passages`'s (same
        length-sorted batches), ``unit vectors[i]`` a ``(len(spans[i]), dim)`` array of unit-norm rows, a
        zero row for a span with no token inside the model's input limit (truncated away). Raises
        :class:`ValueError` for a graph whose output is already pooled (no token embeddings to pool)."""
        out = np.zeros((len(texts), getattr(self, "dim", 0)), dtype=np.float32)
        units: list[np.ndarray | None] = [None] * len(texts)
        batches = length_sorted_batches(texts, self.batch_size)
        if progress:
            from tqdm.auto import tqdm

            batches = tqdm(batches, desc="embedding", unit="batch")
        for idx in batches:
            tokens, mask, enc = self._run([texts[i] for i in idx])
            if tokens.ndim != 3:
                raise ValueError(f"{self.model_id}: the graph's output is pooled; spans need token embeddings")
            out[idx] = mean_pool(tokens, mask)
            for row, i in enumerate(idx):
                units[i] = pool_spans(tokens[row], enc[row].offsets, mask[row], spans[i])
        return out, units

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        out: np.ndarray | None = None
        batches = length_sorted_batches(texts, self.batch_size)
        if progress:  # tqdm is imported only for a bar (a query is embedded without one)
            from tqdm.auto import tqdm

            batches = tqdm(batches, desc="embedding", unit="batch")
        for idx in batches:
            vecs = self._encode_batch([texts[i] for i in idx])
            if out is None:
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
        assert out is not None
        return out

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` unit vectors for questions."""
        return self._encode(texts, progress=False)

    def encode_passages(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """``(n, dim)`` unit vectors for passages."""
        return self._encode(texts, progress)
