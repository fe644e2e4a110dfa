"""Shared fixtures. Real data comes from ../shared/data (beside the repository root)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep the ONNX export cache of the test session out of the user's cache dir."""
    os.environ["CLINQA_CACHE_DIR"] = str(tmp_path_factory.mktemp("clinqa-cache"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``<repo>/../shared/data``: the real public data sets (see its README for licences)."""
    path = (REPO / ".." / "shared" / "data").resolve()
    if not path.exists():
        pytest.skip("../shared/data is not present beside the repository")
    return path
