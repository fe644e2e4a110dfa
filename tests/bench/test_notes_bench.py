"""The synthetic-notes benchmark script (bench/notes/run.py) runs end to end on the fixed reproductions.

It broke silently once (``Answer.gate`` became a typed ``GateDecision`` and the script still called
``.get`` on it); this runs it on two generated patients plus the hand-made reproductions of
``bench/notes/repro.jsonl`` and checks the figures that must hold whatever the retrieval rule: no chunk
of another patient on any route, every unanswerable reproduction refused.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "notes"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_notes_{name}", BENCH / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_notes_benchmark_runs_on_two_generated_patients(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "notes"
    assert _load("generate").main(["--patients", "2", "--seed", "0", "--output", str(notes)]) == 0
    out = tmp_path / "out.json"
    monkeypatch.setattr(sys, "argv", ["run.py", str(notes), "--data-dir", str(tmp_path / "store"),
                                      "--output", str(out)])
    _load("run").main()
    rep = json.loads(out.read_text())
    assert rep["isolation_leaks"] == 0  # the repro patients and the two generated ones never mix
    assert rep["questions"] == len((notes / "questions.jsonl").read_text().splitlines()) > 0
    assert rep["repro"]["refused_when_unanswerable"] == 1.0
    assert all(set(d["gate"]) == {"signal", "threshold", "kind"} for d in rep["repro"]["questions_detail"])
