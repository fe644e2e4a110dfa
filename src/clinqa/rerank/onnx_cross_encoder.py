"""Cross-encoder on ONNX Runtime and tokenizers, without torch (Nogueira & Cho 2019, "Passage
Re-ranking with BERT"): the question and the passage are read together as one sequence pair
(``[CLS] question [SEP] passage [SEP]``, token types 0 / 1) and the classification head gives the
score.

The folder holds either an ONNX graph (``*.onnx``, e.g. the int8 copy ``clinqa train export`` writes)
with ``tokenizer.json``, or a Hugging Face BERT sequence-classification folder (``config.json`` +
``model.safetensors``, what ``clinqa train reranker`` writes), whose graph is built without torch by
:func:`clinqa.embedding.bert_onnx.build_onnx` into ``<cache>/onnx/`` once. Scores match
:class:`clinqa.rerank.cross_encoder.CrossEncoderReranker` (PyTorch) to ~1e-6 on the fp32 graph.
Each pair is cut to ``max_tokens`` by cutting the passage only, never the question.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from clinqa.embedding.fingerprint import fingerprint
from clinqa.errors import ConfigError


def has_graph(folder: Path) -> bool:
    """True when ``folder`` holds an ``*.onnx`` graph or BERT weights :func:`onnx_graph` can build one from."""
    from clinqa.embedding.export import is_bert

    return any(folder.glob("*.onnx")) or is_bert(folder)


def runs_on_onnx(folder: Path) -> bool:
    """True when :class:`OnnxCrossEncoder` can load ``folder``: a folder with ``tokenizer.json`` and a graph
    (:func:`has_graph`)."""
    return folder.is_dir() and (folder / "tokenizer.json").exists() and has_graph(folder)


def onnx_graph(folder: Path) -> Path:
    """The ONNX file of ``folder``: its first ``*.onnx`` (sorted by name), else the classifier graph built
    from its BERT weights into ``<cache>/onnx/<name>@<fingerprint>-classifier.onnx``. Raises
    :class:`ConfigError` when the folder has neither."""
    graphs = sorted(folder.glob("*.onnx"))
    if graphs:
        return graphs[0]
    from clinqa.paths import cache_dir

    if not has_graph(folder):
        raise ConfigError(f"cross-encoder {folder}: no .onnx file and no BERT config.json + model.safetensors")
    target = cache_dir() / "onnx" / f"{folder.name}@{fingerprint(folder)}-classifier.onnx"
    if not target.exists():
        from clinqa.embedding.bert_onnx import build_onnx

        build_onnx(folder, target, head="classifier")
    return target


class OnnxCrossEncoder:
    """Score (question, passage) pairs with an ONNX sequence-classification graph.

    ``path``: a folder (see the module docstring). ``max_tokens``: limit per pair (question +
    passage + special tokens), at most the model's ``max_position_embeddings`` when its
    ``config.json`` says. ``batch_size``: pairs per run. ``threads``: ONNX Runtime intra-op threads
    (default: all cores). Scores: sigmoid of the logit for a one-label head (a probability in
    [0, 1]), softmax of the last class otherwise. Raises :class:`ConfigError` when the folder is
    missing, has no tokenizer, or no graph.
    """

    def __init__(self, path: str | Path, max_tokens: int = 512, batch_size: int = 32,
                 threads: int | None = None) -> None:
        from tokenizers import Tokenizer

        from clinqa.embedding.onnx import cpu_session

        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            raise ConfigError(f"cross-encoder {path}: not a folder")
        tok = self.path / "tokenizer.json"
        if not tok.exists():
            raise ConfigError(f"cross-encoder {self.path}: no tokenizer.json")
        graph = onnx_graph(self.path)
        limit = 512
        if (self.path / "config.json").exists():
            limit = int(json.loads((self.path / "config.json").read_text()).get("max_position_embeddings", 512))
        self.max_tokens = min(max_tokens, limit)
        self.batch_size = batch_size
        # the graph's fingerprint (a built graph's name carries its folder's): a model card edited beside a
        # shipped graph keeps the id, and with it the calibration stored for it
        self.model_id = f"{self.path.name}@{fingerprint(graph)}"
        self._sess = cpu_session(graph, threads)
        self._inputs = {i.name for i in self._sess.get_inputs()}
        self._tok = Tokenizer.from_file(str(tok))
        self._tok.no_padding()
        self._tok.no_truncation()

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Scores, shape ``(len(passages),)`` floats in [0, 1]; see the class docstring."""
        if not passages:
            return np.zeros(0)
        q_tokens = len(self._tok.encode(query, add_special_tokens=False).ids)
        # the question is never cut: if it alone fills the limit, keep it and a token of passage
        limit = max(self.max_tokens, q_tokens + 4)
        self._tok.enable_truncation(limit, strategy="only_second")
        self._tok.enable_padding()
        try:
            out: list[np.ndarray] = []
            for i in range(0, len(passages), self.batch_size):
                enc = self._tok.encode_batch([(query, p) for p in passages[i:i + self.batch_size]])
                feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
                if "token_type_ids" in self._inputs:
                    feed["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
                logits = np.asarray(self._sess.run(None, feed)[0], dtype=np.float64)
                if logits.shape[-1] == 1:
                    out.append(1.0 / (1.0 + np.exp(-logits[:, 0])))
                else:
                    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
                    out.append(z[:, -1] / z.sum(axis=-1))
        finally:
            self._tok.no_padding()
            self._tok.no_truncation()
        return np.concatenate(out).astype(float)


def export_int8(folder: Path, out: Path) -> Path:
    """Write a shippable int8 copy of the cross-encoder in ``folder`` (a BERT folder ``clinqa train
    reranker`` wrote) to ``out``: ``model_int8.onnx`` (the classifier graph of :func:`onnx_graph`, weights
    quantized to int8 per channel by ONNX Runtime's dynamic quantization, activations quantized at run
    time; MiniLM-L6: ~23 MB), ``tokenizer.json``, ``config.json`` and the ``clinqa-training/`` record when
    there is one. Returns ``out``. Raises :class:`ConfigError` when ``folder`` has no tokenizer or graph,
    or ``out`` exists and is not empty."""
    import shutil

    from clinqa.embedding.onnx import quantize_int8

    folder, out = Path(folder), Path(out)
    if not (folder / "tokenizer.json").exists():
        raise ConfigError(f"cross-encoder {folder}: no tokenizer.json")
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"{out}: exists and is not empty")
    graph = onnx_graph(folder)
    out.mkdir(parents=True, exist_ok=True)
    quantize_int8(graph, out / "model_int8.onnx")
    for name in ("tokenizer.json", "config.json"):
        if (folder / name).exists():
            shutil.copy(folder / name, out / name)
    if (folder / "clinqa-training").is_dir():
        shutil.copytree(folder / "clinqa-training", out / "clinqa-training")
    return out
