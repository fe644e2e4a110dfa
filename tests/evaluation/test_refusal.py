"""Threshold sweep and choice on hand-made signals."""

from __future__ import annotations

import pytest

from clinqa.evaluation.refusal import RefusalCalibration, choose_threshold, plot_curves, refusal_rates

SIGNALS = {"i1": 0.70, "i2": 0.55, "i3": 0.35, "t1": 0.40, "o1": 0.10, "o2": 0.20, "o3": 0.30, "o4": 0.45}
BUCKETS = {"i1": "in_scope", "i2": "in_scope", "i3": "in_scope", "t1": "thin",
           "o1": "out_of_scope", "o2": "out_of_scope", "o3": "out_of_scope", "o4": "out_of_scope"}


def test_rates() -> None:
    r = refusal_rates(SIGNALS, BUCKETS, [0.0, 0.31, 0.5, 1.0])
    assert r["out_of_scope"] == [0.0, 0.75, 1.0, 1.0]
    assert r["in_scope"] == [0.0, 0.0, 1 / 3, 1.0]
    assert r["thin"] == [0.0, 0.0, 1.0, 1.0]


def test_choose_smallest_threshold_meeting_target() -> None:
    c = choose_threshold(SIGNALS, BUCKETS, target_oos=0.75)
    # refusing 3 of 4 out-of-scope needs t just above 0.30
    assert c["threshold"] == 0.3001
    assert c["rates"] == {"in_scope": 0.0, "out_of_scope": 0.75, "thin": 0.0}
    assert c["meets_target"]
    c = choose_threshold(SIGNALS, BUCKETS, target_oos=1.0)
    assert c["threshold"] == 0.4501
    assert c["rates"]["in_scope"] == pytest.approx(1 / 3)
    assert not c["meets_target"]


def test_plot(tmp_path) -> None:
    ths = [0.0, 0.5, 1.0]
    cal = RefusalCalibration(SIGNALS, BUCKETS, ths, refusal_rates(SIGNALS, BUCKETS, ths),
                             choose_threshold(SIGNALS, BUCKETS))
    plot_curves(cal, tmp_path / "r.png")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
