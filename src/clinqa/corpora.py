"""Corpora that ship inside installed packages (so the demo needs no network and no ../shared)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from clinqa.errors import ConfigError


def guidelines_path() -> Path:
    """Folder of the open-medicine guideline summaries (PyPI ``open-medicine``, MIT, by
    RamosFBC): ``registry.json`` plus ``content/<id>/<section>.md``. Found without importing
    the package (its import pulls in a server stack we do not need).

    Raises :class:`ConfigError` if the package is not installed.
    """
    spec = importlib.util.find_spec("open_medicine")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the open-medicine package is not installed: pip install open-medicine")
    path = Path(next(iter(spec.submodule_search_locations))) / "guidelines"
    if not (path / "registry.json").exists():
        raise ConfigError(f"{path}: open-medicine has no guidelines/registry.json (unexpected version?)")
    return path
