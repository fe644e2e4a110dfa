"""The refusal gate: answer only when the evidence is strong enough.

Signal: the cosine similarity between the question and the best dense hit (top-1), as in
many production RAG systems; refuse below ``threshold``. Second signal: content words of the
question that the corpus never mentions (:mod:`clinqa.answer.coverage`), which refuse or
warn according to ``answer.unknown_terms``. The threshold is a setting; its
calibration on labelled in-scope / out-of-scope questions is the evaluation harness's job.
"""

from __future__ import annotations

from dataclasses import dataclass

from clinqa.retrieval.hybrid import RetrievalResult


@dataclass
class GateDecision:
    """``answer`` is False to refuse; ``signal`` is what was compared with ``threshold``."""

    answer: bool
    signal: float | None
    threshold: float
    reason: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {"answer": self.answer, "signal": self.signal, "threshold": self.threshold,
                "kind": "top1_dense_cosine", "reason": self.reason}


class CosineGate:
    """Refuse when the top-1 dense cosine similarity is below ``threshold`` (or nothing matched)."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def decide(self, result: RetrievalResult, missing: list[str] | None = None,
               unknown_terms: str = "ignore") -> GateDecision:
        """Decide on one retrieval result. ``missing`` are question words the corpus never
        mentions (:func:`clinqa.answer.coverage.missing_terms`); with ``unknown_terms="refuse"``
        any of them refuses."""
        top = result.top_dense_cosine
        if missing and unknown_terms == "refuse":
            words = ", ".join(f"'{w}'" for w in missing)
            return GateDecision(False, top, self.threshold,
                                f"the ingested corpus never mentions {words}, so it cannot answer this question")
        if top is None or not result.hits:
            return GateDecision(False, None, self.threshold,
                                "no passage in the corpus matched the question under the applied filters")
        if top < self.threshold:
            return GateDecision(
                False, top, self.threshold,
                f"the closest passage has similarity {top:.2f}, below the answer threshold "
                f"{self.threshold:.2f}: the ingested corpus does not appear to cover this question",
            )
        return GateDecision(True, top, self.threshold, f"closest passage similarity {top:.2f}")
