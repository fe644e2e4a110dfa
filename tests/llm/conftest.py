"""Fixtures of the LLM tests: ``chat_server``, a real local chat-completions server (see chat_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # pytest's default (prepend) import mode already does this; importlib mode does not
    sys.path.insert(0, _HERE)

from chat_server import chat_server  # noqa: E402

__all__ = ["chat_server"]
