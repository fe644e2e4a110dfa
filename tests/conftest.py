"""Shared fixtures. Real data comes from ../shared/data (beside the repository root)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]

# the local chat-completions server (tests/llm/chat_server.py) as a fixture for every folder
sys.path.insert(0, str(Path(__file__).resolve().parent / "llm"))
from chat_server import chat_server  # noqa: E402,F401


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


from tiny_data import TINY_DOCS, TINY_QUERIES  # noqa: E402


@pytest.fixture(scope="session")
def tiny_beir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny BEIR folder (8 passages, 6 judged questions) written by hand for training tests."""
    import json

    d = tmp_path_factory.mktemp("tiny-beir")
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n"
                                            for k, (t, x) in TINY_DOCS.items()))
    (d / "queries.jsonl").write_text("".join(json.dumps({"_id": k, "text": q}) + "\n"
                                             for k, (q, _) in TINY_QUERIES.items()))
    (d / "qrels").mkdir()
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{k}\t{g}\t1\n" for k, (_, g) in TINY_QUERIES.items()))
    return d


@pytest.fixture(scope="session")
def tiny_reranker(tmp_path_factory: pytest.TempPathFactory, tiny_beir: Path) -> Path:
    """A cross-encoder trained for 2 steps by `clinqa train reranker` on :func:`tiny_beir`
    (proves the code path; its scores mean nothing)."""
    from typer.testing import CliRunner

    from clinqa.cli import app

    data = tmp_path_factory.mktemp("train-data")
    r = CliRunner().invoke(app, ["train", "reranker", "--pairs", str(tiny_beir), "--holdout", "0.34",
                                 "--max-steps", "2", "--batch-size", "4", "--max-tokens", "64", "--name", "tiny",
                                 "--data-dir", str(data)])
    assert r.exit_code == 0, r.output
    return data / "models" / "tiny"
