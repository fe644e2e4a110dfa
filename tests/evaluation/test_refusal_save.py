"""`clinqa eval refusal --save` domain code (moved out of the CLI): which calibration is stored and the
rates at the threshold in force (:func:`save_chosen`, :func:`current_threshold_rates`)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from clinqa.decision.calibration import find_calibration, resolve_threshold
from clinqa.evaluation.refusal import RefusalCalibration, current_threshold_rates, save_chosen

SIGNALS = {"q1": 0.20, "q2": 0.50, "q3": 0.35, "q4": 0.45}
BUCKETS = {"q1": "out_of_scope", "q2": "in_scope", "q3": "in_scope", "q4": "out_of_scope"}
CHOSEN = {"threshold": 0.46, "target_oos": 0.95, "rates": {"in_scope": 0.5, "out_of_scope": 1.0}}
JOINT = {"threshold": 0.3, "target_oos": 0.95, "rates": {"in_scope": 0.0, "out_of_scope": 1.0},
         "related_threshold": 0.33, "key_term_max_zipf": 3.5}


def _cal(joint: dict) -> RefusalCalibration:
    return RefusalCalibration(SIGNALS, BUCKETS, [0.3, 0.46], {}, CHOSEN, "dense_cosine", "m@abc", joint=joint)


def test_save_prefers_the_joint_calibration(tmp_path: Path) -> None:
    path, threshold = save_chosen(_cal(JOINT), tmp_path, "dev over corpus")
    assert (path, threshold) == (tmp_path / "calibration.json", 0.3)
    (stored,) = json.loads(path.read_text())["calibrations"]
    assert stored == {"signal": "dense_cosine", "model_id": "m@abc", "threshold": 0.3, "target_oos": 0.95,
                      "rates": {"in_scope": 0.0, "out_of_scope": 1.0}, "dataset": "dev over corpus",
                      "created": datetime.date.today().isoformat(), "scope": "reference",
                      "related_threshold": 0.33, "key_term_max_zipf": 3.5,
                      "support_threshold": None}  # a saved calibration has no lexical-support rule (yet)
    assert resolve_threshold("dense_cosine", "m@abc", None, tmp_path) == (0.3, str(path), True)


def test_save_without_key_terms_keeps_the_dense_threshold_and_replaces_the_old_entry(tmp_path: Path) -> None:
    save_chosen(_cal(JOINT), tmp_path, "first")
    path, threshold = save_chosen(_cal({}), tmp_path, "second")
    assert threshold == 0.46
    cal, where = find_calibration("dense_cosine", "m@abc", tmp_path)
    assert where == str(path) and cal is not None
    assert (cal.threshold, cal.dataset, cal.related_threshold, cal.key_term_max_zipf) == (0.46, "second", None, None)
    assert len(json.loads(path.read_text())["calibrations"]) == 1


def test_current_threshold_rates(tmp_path: Path) -> None:
    # configured 0.4: q1 (0.20) and q3 (0.35) are below it -> out_of_scope 1 of 2, in_scope 1 of 2
    assert current_threshold_rates(_cal({}), 0.4, tmp_path) == (0.4, "config", {"in_scope": 0.5,
                                                                                  "out_of_scope": 0.5})
    save_chosen(_cal({}), tmp_path, "saved")  # 0.46: q1, q3, q4 below it
    current, source, rates = current_threshold_rates(_cal({}), None, tmp_path)
    assert (current, source, rates) == (0.46, str(tmp_path / "calibration.json"),
                                        {"in_scope": 0.5, "out_of_scope": 1.0})
