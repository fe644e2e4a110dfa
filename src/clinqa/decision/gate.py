"""Step ``gate`` (phase ``retrieval``): the calibrated threshold (:class:`clinqa.decision.threshold.RefusalGate`)
decides first, never finally: the steps after it may overturn it. Its refusals read :data:`NOT_COVERED`, or
:data:`NO_MATCH` when nothing matched under the filters."""

from __future__ import annotations

from clinqa.decision.verdict import Case, Verdict


def gate(ev: Case, v: Verdict) -> Verdict | None:
    """The calibrated gate's decision (:meth:`RefusalGate.decide`); a refusal reads :data:`NOT_COVERED`,
    or :data:`NO_MATCH` when nothing matched."""
    assert ev.gate is not None and ev.result is not None
    d = ev.gate.decide(ev.result, ev.missing, ev.unknown_terms)
    return Verdict(d.answer, "" if d.answer else NOT_COVERED if ev.hits else NO_MATCH, d, "gate")


NOT_COVERED = "No passage found is close enough to this question to answer it."


NO_MATCH = "No passage matched the question under the applied filters."
