"""Export a sentence-transformers (mean-pooled) model to ONNX, once, locally.

A BERT encoder (all-MiniLM-L6-v2, the shipped default) is built without torch from its config and
safetensors weights (:mod:`clinqa.embedding.bert_onnx`); any other architecture (MPNet ...) runs the local
weights through ``torch.onnx.export`` (TorchScript exporter, opset 17; needs ``clinqa[models]``). Either
writes ``<cache>/onnx/<model_id>.onnx``; nothing is downloaded. The ONNX graph returns
token embeddings; mean pooling and normalisation happen in
:class:`clinqa.embedding.onnx.OnnxEncoder`, exactly as sentence-transformers' Pooling and
Normalize modules do, so vectors agree with the PyTorch model to ~1e-6.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def mean_pooled(folder: Path) -> bool:
    """True when ``folder`` is a sentence-transformers model of Transformer -> mean Pooling
    (-> Normalize), the shape the ONNX fast path reproduces."""
    try:
        modules = json.loads((folder / "modules.json").read_text())
        types = [m["type"].rsplit(".", 1)[-1] for m in modules]
        pool = json.loads((folder / modules[1]["path"] / "config.json").read_text())
    except (OSError, ValueError, KeyError, IndexError):
        return False
    return (types[:2] == ["Transformer", "Pooling"] and set(types[2:]) <= {"Normalize"}
            and pool.get("pooling_mode_mean_tokens") is True
            and not any(pool.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                              "pooling_mode_mean_sqrt_len_tokens")))


def is_bert(folder: Path) -> bool:
    """True when ``folder/config.json`` describes a BERT encoder the torch-free builder reproduces."""
    from clinqa.embedding.bert_onnx import bert_config
    from clinqa.errors import ConfigError

    try:
        bert_config(folder)
    except ConfigError:
        return False
    return (folder / "model.safetensors").exists()


def export_onnx(folder: Path, target: Path) -> Path:
    """Export the transformer of ``folder`` to ``target`` (written atomically; a few seconds). A BERT
    encoder needs onnx and safetensors only (:func:`clinqa.embedding.bert_onnx.build_onnx`); another one
    needs torch and transformers (``clinqa[models]``: :class:`clinqa.extras.MissingExtra` otherwise).
    Returns ``target``."""
    if is_bert(folder):
        from clinqa.embedding.bert_onnx import build_onnx

        return build_onnx(folder, target)
    from clinqa.extras import extra_needed

    with extra_needed(f"the encoder {folder.name} (not a BERT)"):
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    dummy = torch.ones((1, 8), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            TokenEmbeddings(model), (dummy, dummy, torch.zeros_like(dummy)), str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["token_embeddings"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                          "token_embeddings": axes},
            opset_version=17, dynamo=False,
        )
    os.replace(tmp, target)
    return target
