"""Build the ONNX graph of a BERT encoder from its ``config.json`` and ``model.safetensors``, without torch.

The graph computes what Hugging Face's ``BertModel`` returns as ``last_hidden_state`` (Devlin et al.
2019, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding", NAACL; the
encoder of Vaswani et al. 2017): word + absolute position + token-type embeddings, LayerNorm, then
``num_hidden_layers`` post-norm blocks of multi-head self-attention (scaled dot product, padding masked
by an additive large negative) and a GELU (erf) feed-forward layer, each with a residual connection and
LayerNorm. Operators from the ONNX standard, opset 17 (``LayerNormalization`` is opset 17). Weights are
read with ``safetensors``' NumPy loader and stored as initializers (a 6-layer, 384-wide MiniLM: ~90 MB).

Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, ``(batch, tokens)``); output 0
``token_embeddings`` (float32, ``(batch, tokens, hidden)``), which :class:`clinqa.embedding.onnx.OnnxEncoder`
mean-pools over the mask and normalises, as sentence-transformers' Pooling and Normalize modules do.

With ``head="classifier"`` the graph is ``BertForSequenceClassification`` instead (a cross-encoder such
as the ones ``clinqa train reranker`` writes): the first token's state, the pooler (dense + tanh) and the
classification layer, output ``logits`` (float32, ``(batch, num_labels)``).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.errors import ConfigError

OPSET = 17


def _weights(folder: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of ``folder/model.safetensors`` by name, without a leading ``bert.``."""
    from safetensors.numpy import load_file

    path = folder / "model.safetensors"
    if not path.exists():
        raise ConfigError(f"{folder}: no model.safetensors to build the ONNX encoder from")
    raw = load_file(str(path))
    return {k.removeprefix("bert."): v.astype(np.float32) for k, v in raw.items()}


def bert_config(folder: Path) -> dict[str, Any]:
    """``folder/config.json`` when it describes a BERT encoder this builder reproduces (``model_type``
    ``bert``, absolute positions, GELU); raises :class:`ConfigError` naming the folder otherwise."""
    try:
        cfg = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{folder}: cannot read config.json ({exc})") from exc
    if cfg.get("model_type") != "bert":
        raise ConfigError(f"{folder}: config.json describes a {cfg.get('model_type')!r} model, not a BERT "
                          "encoder; the torch-free ONNX build reproduces BERT only (install clinqa[models] "
                          "for sentence-transformers)")
    if cfg.get("position_embedding_type", "absolute") != "absolute" or cfg.get("hidden_act", "gelu") != "gelu":
        raise ConfigError(f"{folder}: only absolute positions and GELU are reproduced without torch")
    return cfg


def build_graph(folder: Path, head: str = "tokens") -> Any:
    """The ``onnx.ModelProto`` of the BERT encoder in ``folder`` (see module docstring); ``head`` is
    ``"tokens"`` (token embeddings) or ``"classifier"`` (sequence-classification logits). Raises
    :class:`ConfigError` for a folder that is not a BERT encoder or lacks a weight."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    cfg = bert_config(folder)
    w = _weights(folder)
    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    head_dim, eps = hidden // heads, float(cfg.get("layer_norm_eps", 1e-12))
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def weight(name: str, transpose: bool = False) -> str:
        if name not in w:
            raise ConfigError(f"{folder}: model.safetensors has no tensor {name!r}")
        return const(name, np.ascontiguousarray(w[name].T if transpose else w[name]))

    counter = itertools.count()

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        out = f"{kind.lower()}_{next(counter)}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x: str, prefix: str) -> str:
        return op("Add", [op("MatMul", [x, weight(f"{prefix}.weight", transpose=True)]), weight(f"{prefix}.bias")])

    def layer_norm(x: str, prefix: str) -> str:
        return op("LayerNormalization", [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")], axis=-1,
                  epsilon=eps)

    # embeddings: positions 0..T-1 of the batch's length
    length = op("Gather", [op("Shape", ["input_ids"]), const("one_i", np.array(1, dtype=np.int64))], axis=0)
    positions = op("Range", [const("zero_i", np.array(0, dtype=np.int64)), length, "one_i"])
    x = op("Add", [op("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], axis=0),
                   op("Gather", [weight("embeddings.position_embeddings.weight"), positions], axis=0)])
    x = op("Add", [x, op("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], axis=0)])
    x = layer_norm(x, "embeddings.LayerNorm")
    # additive mask (batch, 1, 1, tokens): 0 for a token, the float32 minimum for padding (as BertModel)
    keep = op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = op("Mul", [op("Sub", [const("one_f", np.array(1.0, dtype=np.float32)), keep]),
                      const("neg_f", np.array(np.finfo(np.float32).min, dtype=np.float32))])
    mask = op("Unsqueeze", [mask, const("axes_12", np.array([1, 2], dtype=np.int64))])
    split = const("split_shape", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge = const("merge_shape", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(head_dim), dtype=np.float32))
    half = const("half_f", np.array(0.5, dtype=np.float32))
    sqrt2 = const("sqrt2_f", np.array(np.sqrt(2.0), dtype=np.float32))

    def heads_of(t: str, perm: list[int]) -> str:
        return op("Transpose", [op("Reshape", [t, split])], perm=perm)

    for i in range(int(cfg["num_hidden_layers"])):
        p = f"encoder.layer.{i}"
        q = heads_of(linear(x, f"{p}.attention.self.query"), [0, 2, 1, 3])
        k = heads_of(linear(x, f"{p}.attention.self.key"), [0, 2, 3, 1])
        v = heads_of(linear(x, f"{p}.attention.self.value"), [0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), mask])
        ctx = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        ctx = op("Reshape", [op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        x = layer_norm(op("Add", [linear(ctx, f"{p}.attention.output.dense"), x]), f"{p}.attention.output.LayerNorm")
        h = linear(x, f"{p}.intermediate.dense")  # GELU(h) = h * (1 + erf(h / sqrt 2)) / 2
        h = op("Mul", [op("Mul", [h, half]), op("Add", [op("Erf", [op("Div", [h, sqrt2])]), "one_f"])])
        x = layer_norm(op("Add", [linear(h, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    if head == "classifier":  # BertPooler (first token, dense, tanh), then the classification layer
        first = op("Gather", [x, "zero_i"], axis=1)
        logits = linear(op("Tanh", [linear(first, "pooler.dense")]), "classifier")
        nodes.append(helper.make_node("Identity", [logits], ["logits"]))
        labels = int(w["classifier.bias"].shape[0]) if "classifier.bias" in w else 1
        out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])
    elif head == "tokens":
        nodes.append(helper.make_node("Identity", [x], ["token_embeddings"]))
        out = helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "tokens", hidden])
    else:
        raise ValueError(f"head {head!r}: expected 'tokens' or 'classifier'")
    graph = helper.make_graph(nodes, "bert_encoder", ints, [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="clinqa")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build_onnx(folder: Path, target: Path, head: str = "tokens") -> Path:
    """Write the ONNX graph of the BERT model in ``folder`` (``head`` as in :func:`build_graph`) to
    ``target`` (atomically; a second of work for MiniLM). Returns ``target``. Raises
    :class:`ConfigError` for a folder that is not a BERT encoder."""
    import onnx

    model = build_graph(Path(folder), head)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    onnx.save_model(model, str(tmp))
    os.replace(tmp, target)
    return target
