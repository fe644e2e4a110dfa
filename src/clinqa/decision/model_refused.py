"""Step ``model_refused`` (phase ``generate``): the language model found that the passages do not answer."""

from __future__ import annotations

from dataclasses import replace

from clinqa.decision.verdict import Case, Verdict


def model_refused(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) when the language model found that the passages do not answer (:data:`MODEL_REFUSED`)."""
    if not ev.model_refused:
        return None
    return replace(v, answer=False, reason=MODEL_REFUSED, step="model_refused", final=True)


MODEL_REFUSED = "The language model found that the passages found do not answer this question."
