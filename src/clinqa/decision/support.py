"""Step ``support`` (phase ``retrieval``): a weaker match whose first quotable passage mentions every key term
answers (the calibrated support threshold)."""

from __future__ import annotations

from clinqa.decision.verdict import Case, Verdict


def support(ev: Case, v: Verdict) -> Verdict | None:
    """Answer a refused question when the first quotable passage mentions every key term
    (``check.complete_in == 0``) and the signal reaches the support threshold (``calibration.
    support_threshold``; None: no such rule); ``kind`` gains ``+key_term_support``."""
    check, d = ev.check, v.gate
    s = ev.calibration.support_threshold if ev.calibration is not None and check is not None else None
    if (v.answer or d is None or check is None or s is None or d.signal is None or check.complete_in != 0
            or d.signal < s):
        return None
    return v.overturned("support", "key_term_support", f"signal {d.signal:.3f} is below the threshold "
                        f"{d.threshold:.3f} but at least {s:.3f}, and the best passage mentions every key term")
