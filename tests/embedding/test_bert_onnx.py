"""The torch-free ONNX graph of a BERT encoder (clinqa.embedding.bert_onnx): its structure, its vectors
against sentence-transformers on real guideline text, errors, the cache file, and a core run without torch."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from clinqa.embedding.bert_onnx import build_graph, build_onnx
from clinqa.embedding.onnx import OnnxEncoder
from clinqa.embedding.shipped import minilm_folder
from clinqa.errors import ConfigError


def _guideline_paragraphs(n: int) -> list[str]:
    """``n`` paragraphs of the bundled open-medicine guidelines, of every length, plus one over 256 tokens."""
    import open_medicine

    out: list[str] = []
    for f in sorted(Path(open_medicine.__file__).parent.rglob("*.md")):
        out += [p for p in f.read_text().split("\n\n") if len(p) > 30]
        if len(out) >= n:
            break
    return [*out[:n], " ".join(out[:25])]


@pytest.fixture(scope="module")
def onnx_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_onnx(minilm_folder(), tmp_path_factory.mktemp("bert") / "minilm.onnx")


def test_graph_has_one_block_per_layer() -> None:
    g = build_graph(minilm_folder()).graph
    ops = [n.op_type for n in g.node]
    layers = json.loads((minilm_folder() / "config.json").read_text())["num_hidden_layers"]
    assert layers == 6
    assert ops.count("LayerNormalization") == 1 + 2 * layers and ops.count("Erf") == layers
    assert ops.count("Softmax") == layers
    assert [i.name for i in g.input] == ["input_ids", "attention_mask", "token_type_ids"]
    assert g.output[0].name == "token_embeddings"


def test_vectors_equal_sentence_transformers(onnx_file: Path) -> None:
    st = pytest.importorskip("sentence_transformers")
    texts = _guideline_paragraphs(120)
    enc = OnnxEncoder(onnx_file, tokenizer=minilm_folder() / "tokenizer.json", max_tokens=256, dim=384,
                      batch_size=16)
    ours = enc.encode_passages(texts)  # length-sorted batches with padding; the last text is truncated
    ref = st.SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)
    ref.max_seq_length = 256
    theirs = ref.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=True)
    assert np.abs(ours - theirs).max() < 1e-5


def test_not_a_bert_is_refused_naming_the_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "mpnet"}))
    with pytest.raises(ConfigError, match=re.escape(str(tmp_path)) + ".*'mpnet'"):
        build_graph(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 8}))
    with pytest.raises(ConfigError, match=r"no model\.safetensors"):
        build_graph(tmp_path)


def test_the_cache_file_is_built_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder

    monkeypatch.setattr("clinqa.embedding.sentence_transformers.cache_dir", lambda: tmp_path)
    a = SentenceTransformerEncoder(minilm_folder(), precision="fp32")
    va = a.encode_queries(["qSOFA criteria"])
    built = next((tmp_path / "onnx").glob("*.onnx"))
    stamp = built.stat().st_mtime_ns
    b = SentenceTransformerEncoder(minilm_folder(), precision="fp32")
    assert np.array_equal(b.encode_queries(["qSOFA criteria"]), va)
    assert built.stat().st_mtime_ns == stamp and len(list((tmp_path / "onnx").glob("*"))) == 1


def test_ingest_and_ask_never_import_torch(tmp_path: Path) -> None:
    """The core path (the shipped encoder, ingest, an extractive answer) runs without torch, transformers or
    sentence-transformers, in a fresh interpreter."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sepsis.md").write_text("# Sepsis\n\n## Fluids\n\nGive 30 mL/kg of IV crystalloid within 3 hours.\n\n"
                                    + "## Antibiotics\n\n" + " ".join(["Start broad-spectrum antibiotics."] * 60))
    code = f"""
import sys
from pathlib import Path
from clinqa.pipeline import Pipeline
from clinqa.settings import EmbeddingSettings, Settings
p = Pipeline(Settings(data_dir=Path({str(tmp_path / 'data')!r}), embedding=EmbeddingSettings(precision="fp32")))
r = p.ingest([Path({str(docs)!r})], progress=False)
a = p.ask("How much crystalloid in sepsis?", generate=False)
print(r.chunks, a.refused, "30 mL/kg" in a.answer)
print(sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules))
"""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    counts, modules = out.stdout.strip().splitlines()[-2:]
    assert counts.split()[1:] == ["False", "True"]
    assert modules == "[]"
