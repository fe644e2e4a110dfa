"""The torch-free cross-encoder: its scores against the PyTorch cross-encoder (the reference), the
graph it builds from a trained folder, and its errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from clinqa.errors import ConfigError
from clinqa.rerank.onnx_cross_encoder import OnnxCrossEncoder, onnx_graph

PASSAGES = [
    "Apixaban 5 mg twice daily is the usual dose for stroke prevention in atrial fibrillation.",
    "Gout flares are treated with colchicine, NSAIDs or corticosteroids.",
    "apixaban " * 200,  # longer than the limit: the passage is cut, never the question
]


def test_scores_equal_the_pytorch_cross_encoder(tiny_reranker: Path) -> None:
    pytest.importorskip("torch")
    from clinqa.rerank import CrossEncoderReranker

    ref = CrossEncoderReranker(tiny_reranker, max_tokens=64).score("what is the apixaban dose", PASSAGES)
    got = OnnxCrossEncoder(tiny_reranker, max_tokens=64, batch_size=2).score("what is the apixaban dose", PASSAGES)
    assert got.shape == (3,)
    assert ((got >= 0) & (got <= 1)).all()
    np.testing.assert_allclose(got, ref, atol=1e-5)


def test_the_question_is_never_cut(tiny_reranker: Path) -> None:
    r = OnnxCrossEncoder(tiny_reranker, max_tokens=48)
    head = "apixaban is an oral anticoagulant " * 10  # fills the 48-token limit by itself
    a, b = r.score("what is apixaban", [head + "gout " * 300, head + "asthma " * 300])
    assert a == pytest.approx(b, abs=1e-6)
    s = r.score("does apixaban " * 40, ["apixaban", "gout"])
    assert s.shape == (2,) and np.isfinite(s).all()
    assert r.score("x", []).shape == (0,)


def test_graph_is_built_once_then_an_onnx_file_in_the_folder_is_used(tiny_reranker: Path, tmp_path: Path) -> None:
    built = onnx_graph(tiny_reranker)
    assert built.name.endswith("-classifier.onnx") and built.exists()
    mtime = built.stat().st_mtime_ns
    assert onnx_graph(tiny_reranker) == built and built.stat().st_mtime_ns == mtime
    # a shipped folder: the graph and the tokenizer only, no weights
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    shutil.copy(built, shipped / "model.onnx")
    shutil.copy(tiny_reranker / "tokenizer.json", shipped / "tokenizer.json")
    assert onnx_graph(shipped) == shipped / "model.onnx"
    a = OnnxCrossEncoder(shipped, max_tokens=64).score("apixaban dose", PASSAGES[:2])
    b = OnnxCrossEncoder(tiny_reranker, max_tokens=64).score("apixaban dose", PASSAGES[:2])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_bad_folders_are_clear_errors(tmp_path: Path, tiny_reranker: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        OnnxCrossEncoder(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"no tokenizer\.json"):
        OnnxCrossEncoder(empty)
    (empty / "tokenizer.json").write_bytes((tiny_reranker / "tokenizer.json").read_bytes())
    with pytest.raises(ConfigError, match=r"no \.onnx file and no BERT"):
        OnnxCrossEncoder(empty)


def test_int8_export_keeps_the_scores_and_refuses_a_used_folder(tiny_reranker: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clinqa.cli import app

    out = tmp_path / "int8"
    r = CliRunner().invoke(app, ["train", "export", str(tiny_reranker), str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["clinqa-training", "config.json", "model_int8.onnx",
                                                     "tokenizer.json"]
    fp32 = OnnxCrossEncoder(tiny_reranker, max_tokens=64).score("what is the apixaban dose", PASSAGES)
    int8 = OnnxCrossEncoder(out, max_tokens=64).score("what is the apixaban dose", PASSAGES)
    np.testing.assert_allclose(int8, fp32, atol=0.02)
    r = CliRunner().invoke(app, ["train", "export", str(tiny_reranker), str(out)])
    assert r.exit_code != 0 and "not empty" in r.output
