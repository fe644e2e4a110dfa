"""Calibrated refusal thresholds, stored with the signal and the model they were measured for.

A calibration is ``(signal, model_id, scope) -> threshold`` plus how it was obtained. ``scope``
is the kind of evidence the question is asked over: ``reference`` (guidelines, articles, consumer
pages: no ``--patient``) or ``patient`` (one patient's notes), since short terse notes sit
further from a question in cosine than encyclopaedic passages do. A calibration also carries the
*related* threshold (below it a refusal lists no related topics) and the general-English
frequency cut of the key-term test (:mod:`clinqa.answer.answerability`), chosen together. ``model_id``
is the encoder's id for ``dense_cosine`` and the reranker's id for ``rerank``; both carry a
fingerprint of the weights (``name@sha``), so retrained or swapped weights find no
calibration instead of silently keeping an old threshold.

Lookup order (:func:`resolve_threshold`): ``answer.refusal_threshold`` from the config, then
``<data_dir>/calibration.json`` (written by ``clinqa eval refusal --save``), then the table
shipped with clinqa for the shipped models (``calibrations.json`` beside this module,
measured on the ``refusal`` dev set over the full liveqa-medquad corpus; see
docs/benchmarks.md). Without any, the fallback threshold is used and the answer says so.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from clinqa.errors import ConfigError

SHIPPED = Path(__file__).with_name("calibrations.json")
FALLBACK = {"dense_cosine": 0.40, "rerank": 0.50}


@dataclass
class Calibration:
    """One calibrated threshold: refuse when ``signal`` < ``threshold`` for ``model_id``.
    ``rates`` holds the refusal rate per bucket at the threshold on ``dataset``; ``scope`` is
    ``reference`` or ``patient``; ``related_threshold``, ``key_term_max_zipf`` and
    ``support_threshold`` are None when they were not calibrated (the settings' defaults apply).
    ``support_threshold`` (<= ``threshold``) is the signal that suffices when the passages to be
    quoted mention every key term of the question (at least one): lexical support for a weaker
    dense match."""

    signal: str
    model_id: str
    threshold: float
    target_oos: float = 0.95
    rates: dict[str, float] = field(default_factory=dict)
    dataset: str = ""
    created: str = ""
    scope: str = "reference"
    related_threshold: float | None = None
    key_term_max_zipf: float | None = None
    support_threshold: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


_READ: dict[Path, tuple[tuple[int, int], list[Calibration]]] = {}
"""Parsed calibration files by path, with the (mtime_ns, size) they were parsed at: one ask looks
the calibration up three times (gate, key-term parameters, support threshold)."""


def _read(path: Path) -> list[Calibration]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return []
    key = (st.st_mtime_ns, st.st_size)
    cached = _READ.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        raw = json.loads(path.read_text())
        out = [Calibration(**c) for c in raw.get("calibrations", [])]
    except (ValueError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{path}: not a clinqa calibration file: {exc}") from exc
    _READ[path] = (key, out)
    return out


def find_calibration(signal: str, model_id: str, data_dir: Path | None,
                     scope: str = "reference") -> tuple[Calibration | None, str]:
    """The calibration for ``(signal, model_id, scope)`` and where it was found (a path), or
    ``(None, "")``. The user's file wins over the shipped table."""
    for path in ([Path(data_dir) / "calibration.json"] if data_dir else []) + [SHIPPED]:
        for c in _read(path):
            if c.signal == signal and c.model_id == model_id and c.scope == scope:
                return c, str(path)
    return None, ""


def save_calibration(data_dir: Path, cal: Calibration) -> Path:
    """Add or replace ``cal`` (same signal, model and scope) in ``<data_dir>/calibration.json``,
    atomically; returns the file's path."""
    path = Path(data_dir) / "calibration.json"
    kept = [c for c in _read(path) if (c.signal, c.model_id, c.scope) != (cal.signal, cal.model_id, cal.scope)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"calibrations": [c.to_dict() for c in [*kept, cal]]}, indent=2))
    tmp.replace(path)
    return path


def resolve_threshold(signal: str, model_id: str, configured: float | None,
                      data_dir: Path | None, scope: str = "reference") -> tuple[float, str, bool]:
    """``(threshold, source, calibrated)`` for the gate. ``source`` is ``"config"``, a
    calibration file path, or ``"fallback"`` (``calibrated`` is False only then)."""
    if configured is not None:
        return configured, "config", True
    cal, where = find_calibration(signal, model_id, data_dir, scope)
    if cal is not None:
        return cal.threshold, where, True
    return FALLBACK[signal], "fallback", False
