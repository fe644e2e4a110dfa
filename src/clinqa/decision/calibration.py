"""Calibrated refusal thresholds, stored with the signal and the model they were measured for.

A calibration is ``(signal, model_id, scope) -> threshold`` plus how it was obtained. ``scope``
is the kind of evidence the question is asked over: ``reference`` (guidelines, articles, consumer
pages: no ``--patient``) or ``patient`` (one patient's notes), since short terse notes sit
further from a question in cosine than encyclopaedic passages do. A calibration also carries the
*related* threshold (below it a refusal lists no related topics) and the general-English
frequency cut of the key-term test (:mod:`clinqa.decision.answerability`), chosen together. ``model_id``
is the encoder's id for ``dense_cosine`` and the reranker's id for ``rerank``; both carry a
fingerprint of the weights (``name@sha``), so retrained or swapped weights find no
calibration instead of silently keeping an old threshold.

Lookup order (:func:`resolve`, and :func:`resolve_threshold` for the threshold alone):
``answer.refusal_threshold`` from the config, then
``<data_dir>/calibration.json`` (written by ``clinqa eval refusal --save``), then the table
shipped with clinqa for the shipped models (``calibrations.json`` beside this module,
measured on the ``refusal`` dev set over the full liveqa-medquad corpus; see
docs/benchmarks.md). Without any, the fallback threshold is used and the answer says so.

:func:`resolve` gives everything one question needs, from one lookup: the threshold and its source,
the related threshold, the key-term Zipf cut and the support threshold, each from the settings when
set, else from the calibration, else from :data:`FALLBACK` (the one table of fallbacks).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinqa.errors import ConfigError

if TYPE_CHECKING:
    from clinqa.decision.threshold import RefusalGate

SHIPPED = Path(__file__).with_name("calibrations.json")
#: the values used when neither the settings nor a calibration give one: the gate threshold per signal
#: (0.40 dense cosine, 0.50 a reranker probability, 0.50 the answer model's probability), the key-term
#: test's general-English Zipf cut (4.0, chosen on bench/answers/guidelines.jsonl) and the related
#: threshold (0.25); there is no fallback support threshold (None: the rule is off)
FALLBACK: dict[str, Any] = {"threshold": {"dense_cosine": 0.40, "rerank": 0.50, "answer_model": 0.50},
                            "key_term_max_zipf": 4.0,
                            "related_threshold": 0.25, "support_threshold": None}


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
"""Parsed calibration files by path, with the (mtime_ns, size) they were parsed at: a file is parsed
again only when it changed (``eval refusal --save``), not on every question."""


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
    if configured is not None:  # no calibration file is read
        return configured, "config", True
    return _threshold(signal, None, *find_calibration(signal, model_id, data_dir, scope))


def _threshold(signal: str, configured: float | None, cal: Calibration | None,
               where: str) -> tuple[float, str, bool]:
    """``(threshold, source, calibrated)``: ``configured``, else ``cal``'s (found at ``where``), else the
    :data:`FALLBACK` of ``signal``."""
    if configured is not None:
        return configured, "config", True
    if cal is not None:
        return cal.threshold, where, True
    return FALLBACK["threshold"][signal], "fallback", False


@dataclass(frozen=True)
class Resolved:
    """The calibration in force for one ``(signal, model_id, scope)``, every value already resolved:
    ``threshold`` (gate signal units: cosine, or reranker score) with its ``source`` (``"config"``, a
    calibration file path or ``"fallback"``) and ``calibrated`` (False only for the fallback);
    ``key_term_max_zipf`` (Zipf, the key-term test's cut), ``related_threshold`` (gate signal units) and
    ``support_threshold`` (gate signal units, None: the lexical-support rescue is off)."""

    signal: str
    model_id: str
    scope: str
    threshold: float
    source: str
    calibrated: bool
    key_term_max_zipf: float
    related_threshold: float
    support_threshold: float | None

    def gate(self) -> RefusalGate:
        """The refusal gate of this calibration; its label is the source, or says it is an uncalibrated
        fallback for ``model_id``."""
        from clinqa.decision.threshold import RefusalGate

        label = self.source if self.calibrated else f"uncalibrated fallback for {self.model_id}"
        return RefusalGate(self.threshold, self.signal, label, model_id=self.model_id, calibrated=self.calibrated)

    def key(self) -> str:
        """Every value that can change an answer, as one string (for the answer cache's key)."""
        support = "-" if self.support_threshold is None else f"{self.support_threshold:.6f}"
        return (f"{self.scope}:{self.signal}:{self.model_id}:t={self.threshold:.6f}:z={self.key_term_max_zipf:.6f}"
                f":r={self.related_threshold:.6f}:s={support}:c={int(self.calibrated)}")


def resolve(signal: str, model_id: str, settings: Any, data_dir: Path | None, scope: str = "reference") -> Resolved:
    """The :class:`Resolved` calibration for ``(signal, model_id, scope)`` from one lookup
    (:func:`find_calibration`). ``settings``: the :class:`clinqa.settings.AnswerSettings` (its
    ``refusal_threshold``, ``key_term_max_zipf``, ``related_threshold`` and ``support_threshold`` win when
    set). A configured ``refusal_threshold`` turns the calibrated support threshold off, since that was
    chosen together with the calibrated threshold. Raises ``KeyError`` for an unknown ``signal`` without
    a threshold; :class:`ConfigError` for an unreadable calibration file."""
    cal, where = find_calibration(signal, model_id, data_dir, scope)
    threshold, source, calibrated = _threshold(signal, settings.refusal_threshold, cal, where)

    def pick(name: str) -> Any:
        configured = getattr(settings, name)
        if configured is not None:
            return configured
        if name == "support_threshold" and settings.refusal_threshold is not None:
            return None
        calibrated_value = getattr(cal, name) if cal is not None else None
        return calibrated_value if calibrated_value is not None else FALLBACK[name]

    return Resolved(signal, model_id, scope, threshold, source, calibrated, pick("key_term_max_zipf"),
                    pick("related_threshold"), pick("support_threshold"))


#: the scopes a calibration is resolved for, in the order of the answer cache's key (:func:`cache_key`)
SCOPES = ("reference", "patient")


def gate_model_id(signal: str, reranker: Callable[[], Any], encoder: Callable[[], Any]) -> str:
    """The id of the model whose score the gate reads for ``signal``: the reranker's (``reranker()``, built
    only then) for ``rerank``, else the encoder's (``encoder()``). Raises :class:`ConfigError` for ``rerank``
    without a reranker (``reranker()`` None: ``rerank.model`` is unset)."""
    if signal == "rerank":
        built = reranker()
        if built is None:
            raise ConfigError("answer.gate_signal 'rerank' needs a reranker: set rerank.model")
        return built.model_id
    return encoder().model_id


def cache_key(resolved: Iterable[Resolved], answer_model: tuple[Any, float] | None) -> str:
    """Every calibrated value of the ``resolved`` calibrations (:meth:`Resolved.key`, one per scope of
    :data:`SCOPES`) and the answer model's id and threshold when it is on, as one string: the answer
    cache's key changes with a re-calibration of either scope or of the answer model."""
    tail = [f"answer_model:{answer_model[0].model_id}:t={answer_model[1]:.6f}"] if answer_model is not None else []
    return "|".join([*(r.key() for r in resolved), *tail])
