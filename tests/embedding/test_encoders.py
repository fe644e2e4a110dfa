"""Encoders load offline, agree across backends, and the cache avoids recomputation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clinqa.embedding import EmbeddingCache, build_encoder, encode_with_cache
from clinqa.embedding.export import mean_pooled
from clinqa.embedding.sentence_transformers import SMALL_BATCH, SentenceTransformerEncoder
from clinqa.embedding.shipped import minilm_folder, resolve_model
from clinqa.errors import ConfigError
from clinqa.settings import EmbeddingSettings

TEXTS = [
    "Should beta-blockers be started on the day of surgery?",
    "Beta-blocker therapy should NOT be started on the day of surgery in patients who are beta-blocker naive.",
    "How do I change a car tyre?",
    # over the 256-token limit: both paths must truncate the same way
    " ".join(["Perioperative beta blockade requires careful titration of the dose."] * 40),
]


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEncoder:
    enc = build_encoder(EmbeddingSettings(precision="fp32"))
    assert isinstance(enc, SentenceTransformerEncoder)
    return enc


def test_shipped_minilm(minilm: SentenceTransformerEncoder) -> None:
    assert (minilm.dim, minilm.max_tokens) == (384, 256)
    assert minilm.model_id.startswith("all-MiniLM-L6-v2@")
    assert mean_pooled(minilm_folder())
    v = minilm.encode_queries(TEXTS[:3])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = v[0] @ v[1:].T
    assert sims[0] > 0.6 > 0.1 > sims[1]  # on-topic passage vs car tyres


def test_onnx_path_equals_pytorch(minilm: SentenceTransformerEncoder) -> None:
    """fp32 on a mean-pooled BERT: every batch size on ONNX Runtime, torch never loaded; the vectors equal
    sentence-transformers' (PyTorch) within 1e-5."""
    st = pytest.importorskip("sentence_transformers")
    fast = minilm.encode_queries(TEXTS)
    bulk = minilm.encode_passages(TEXTS * (SMALL_BATCH // len(TEXTS) + 1))[: len(TEXTS)]  # over SMALL_BATCH
    assert minilm.onnx_only and minilm._onnx is not None and minilm._st is None
    ref = st.SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)
    ref.max_seq_length = 256
    torch_vecs = ref.encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    assert np.abs(fast - torch_vecs).max() < 1e-5 and np.abs(bulk - torch_vecs).max() < 1e-5


def test_bf16_bulk_path_close_to_fp32(minilm: SentenceTransformerEncoder) -> None:
    """bfloat16 autocast (the default where the CPU has bf16 units) keeps every vector within a
    cosine of 0.9999 of fp32; emulated where the CPU lacks the units, so this runs everywhere."""
    bf16 = build_encoder(EmbeddingSettings(precision="bf16"))
    assert isinstance(bf16, SentenceTransformerEncoder) and bf16.bf16 and not minilm.bf16
    assert bf16.model_id == minilm.model_id  # same weights, same cache
    many = TEXTS * (SMALL_BATCH // len(TEXTS) + 1)  # over SMALL_BATCH: the PyTorch bulk path
    a, b = bf16.encode_passages(many)[: len(TEXTS)], minilm.encode_passages(many)[: len(TEXTS)]
    cos = np.sum(a * b, axis=1)
    assert cos.min() > 0.9999 and np.abs(a - b).max() > 0  # close, and really computed differently


def test_precision_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="precision"):
        SentenceTransformerEncoder(minilm_folder(), precision="fp8")


def test_int8_onnx_close_to_fp32(minilm: SentenceTransformerEncoder) -> None:
    int8 = build_encoder(EmbeddingSettings(model="all-MiniLM-L6-v2-int8"))
    assert int8.dim == 384 and int8.model_id != minilm.model_id
    a, b = int8.encode_queries(TEXTS[:2]), minilm.encode_queries(TEXTS[:2])
    assert abs(float(a[0] @ a[1]) - float(b[0] @ b[1])) < 0.02  # PLATFORM.md: within ~0.01


def test_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not download"):
        resolve_model("some-org/some-model")
    assert resolve_model(str(minilm_folder()))[1] == "sentence-transformers"


class CountingEncoder:
    model_id = "count@1"
    dim = 2
    max_tokens = 8

    def __init__(self) -> None:
        self.calls: list[int] = []

    def encode_passages(self, texts, progress=False):
        self.calls.append(len(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_cache_reuses_vectors(tmp_path: Path) -> None:
    enc = CountingEncoder()
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    v1, n1 = encode_with_cache(enc, ["a", "bb"], ["h1", "h2"], cache)
    v2, n2 = encode_with_cache(enc, ["bb", "ccc"], ["h2", "h3"], cache)
    assert (n1, n2) == (2, 1) and enc.calls == [2, 1]
    np.testing.assert_array_equal(v2, [[2, 1], [3, 1]])
    np.testing.assert_array_equal(v1[1], v2[0])
