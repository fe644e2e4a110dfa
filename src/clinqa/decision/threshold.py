"""The refusal gate: answer only when the evidence is strong enough.

Signals (``answer.gate_signal``), each computed from one :class:`RetrievalResult`:

- ``dense_cosine``: cosine similarity between the question and the best dense hit (top-1),
  as in many production RAG systems (one published system refused 94% of out-of-scope
  questions and 4% of in-scope ones with a cut at 0.72 on its own encoder).
- ``rerank``: the cross-encoder score of the best reranked hit (a probability for the
  rerankers ``clinqa train reranker`` writes); needs ``rerank.model``.

Refuse below ``threshold``. The threshold belongs to the signal *and* the model that produced
it: :mod:`clinqa.decision.calibration` stores calibrated thresholds keyed by both, so a new model
never silently keeps an old threshold. A second, independent check refuses or warns on
question words the corpus never mentions (:mod:`clinqa.evidence.coverage`,
``answer.unknown_terms``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the Answer type imports GateDecision without retrieval
    from clinqa.chunking import Chunk
    from clinqa.evidence.gather import Gathered, Stages
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult, Retrieved

SIGNALS = ("dense_cosine", "rerank")


def gate_signal(result: RetrievalResult, signal: str) -> float | None:
    """The named signal of one retrieval result, or ``None`` when nothing matched.

    Raises ``ValueError`` for an unknown signal, or for ``rerank`` when the result was not
    reranked."""
    if signal == "dense_cosine":
        return result.top_dense_cosine
    if signal == "rerank":
        if not result.hits:
            return None
        if "rerank" not in result.hits[0].scores:
            raise ValueError("gate_signal 'rerank' needs a reranker: set rerank.model")
        return max(h.scores["rerank"] for h in result.hits)
    raise ValueError(f"unknown gate signal {signal!r}; expected one of {', '.join(SIGNALS)}")


@dataclass
class GateDecision:
    """``answer`` is False to refuse; ``signal`` is what was compared with ``threshold``;
    ``calibration`` says where the threshold came from (a calibration file, the shipped table,
    the config, or an uncalibrated fallback)."""

    answer: bool
    signal: float | None
    threshold: float
    reason: str
    kind: str = "dense_cosine"
    calibration: str = ""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {"answer": self.answer, "signal": self.signal, "threshold": self.threshold,
                "kind": self.kind, "calibration": self.calibration, "reason": self.reason}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GateDecision:
        """The decision a :meth:`to_dict` dict describes (unknown keys ignored); raises ``KeyError``
        when ``answer`` or ``threshold`` is missing."""
        return cls(answer=bool(d["answer"]), signal=d.get("signal"), threshold=float(d["threshold"]),
                   reason=str(d.get("reason", "")), kind=str(d.get("kind", "dense_cosine")),
                   calibration=str(d.get("calibration", "")))


class RefusalGate:
    """Refuse when the chosen signal is below ``threshold`` (or nothing matched)."""

    def __init__(self, threshold: float, signal: str = "dense_cosine", calibration: str = "",
                 model_id: str = "", calibrated: bool = True) -> None:
        """``calibration`` says where the threshold came from; ``calibrated`` is False for a
        fallback threshold that was never measured for ``model_id``."""
        if signal not in SIGNALS:
            raise ValueError(f"unknown gate signal {signal!r}; expected one of {', '.join(SIGNALS)}")
        self.threshold = threshold
        self.signal = signal
        self.calibration = calibration
        self.model_id = model_id
        self.calibrated = calibrated

    def decide(self, result: RetrievalResult, missing: list[str] | None = None,
               unknown_terms: str = "ignore") -> GateDecision:
        """Decide on one retrieval result. ``missing`` are question words the corpus never
        mentions (:func:`clinqa.evidence.coverage.missing_terms`); with ``unknown_terms="refuse"``
        any of them refuses."""
        top = gate_signal(result, self.signal)

        def decision(answer: bool, reason: str) -> GateDecision:
            return GateDecision(answer, top, self.threshold, reason, self.signal, self.calibration)

        what = "similarity" if self.signal == "dense_cosine" else "reranker score"
        if missing and unknown_terms == "refuse":
            words = ", ".join(f"'{w}'" for w in missing)
            return decision(False, f"the ingested corpus never mentions {words}, so it cannot answer this question")
        if top is None or not result.hits:
            return decision(False, "no passage in the corpus matched the question under the applied filters")
        if top < self.threshold:
            return decision(False, f"the closest passage has {what} {top:.2f}, below the answer threshold "
                                   f"{self.threshold:.3g}: the ingested corpus does not appear to cover this question")
        return decision(True, f"closest passage {what} {top:.2f}")


def in_years(chunk: Chunk, filters: Filters) -> bool:
    """Whether ``chunk``'s year (a note's date's year, else the document year) lies inside the year
    bounds of ``filters``; an undated chunk lies outside any bound. Read here, by its one caller
    (:func:`outside_years`: the hits of the wider search dated outside the range), not in gathering."""
    year = chunk.note_date.year if chunk.note_date else chunk.year
    if year is None:
        return False
    return (filters.year_min is None or year >= filters.year_min) and (filters.year_max is None
                                                                       or year <= filters.year_max)


def outside_years(gate: RefusalGate, stages: Stages, found: Gathered, filters: Filters,
                  missing: list[str]) -> list[Retrieved]:
    """The hits dated outside ``filters``' year range of the same search without the range (same patient scope),
    when that wider search passes ``gate`` (on the same ``missing`` words) and the key-term test with
    ``answer.key_terms == "refuse"``; else ``[]``. Run once, by ``Pipeline.ask``, for a question the decision
    refused under a year range: a non-empty list turns its refusal into the year-range refusal
    (:func:`clinqa.answer.assemble.year_range_refusal`, which names them)."""
    s = stages.settings.answer
    wide_filters = replace(filters, year_min=None, year_max=None)
    wider = stages.search(found.asked, wide_filters, rerank=gate.signal == "rerank",
                          query_vector=found.result.query_vector)
    if not gate.decide(wider, missing, s.unknown_terms).answer:
        return []
    if s.key_terms == "refuse" and not found.test.on(wider.hits[: s.context_chunks]).answerable:
        return []
    inside = {h.chunk.chunk_id for h in found.result.hits}
    return [h for h in wider.hits if h.chunk.chunk_id not in inside and not in_years(h.chunk, filters)]
