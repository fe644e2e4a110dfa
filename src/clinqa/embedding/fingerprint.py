"""A cheap, stable fingerprint of model weights on disk (for cache keys and query logs)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def fingerprint(path: Path) -> str:
    """First 12 hex digits of SHA-256 over the names and sizes of the model's files and the
    first 1 MiB of each weights file. Changes when the weights change; costs milliseconds."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        h.update(str(f.relative_to(path.parent if path.is_file() else path)).encode())
        h.update(str(f.stat().st_size).encode())
        if f.suffix in (".safetensors", ".bin", ".onnx", ".json"):
            with f.open("rb") as fh:
                h.update(fh.read(1 << 20))
    return h.hexdigest()[:12]
