"""Where clinqa keeps what it derives from installed packages (ONNX exports, assembled model files,
the Zipf table, evaluation stores). A leaf module: it imports nothing else of clinqa, so any layer
(:mod:`clinqa.text` included) may use it."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir


def cache_dir() -> Path:
    """``$CLINQA_CACHE_DIR`` if set, else the per-user cache directory (platformdirs,
    e.g. ``~/.cache/clinqa`` on Linux). Not created here."""
    env = os.environ.get("CLINQA_CACHE_DIR")
    return Path(env).expanduser() if env else Path(user_cache_dir("clinqa", appauthor=False))
