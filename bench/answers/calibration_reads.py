"""Calibration look-ups per ``ask``: calls of ``clinqa.decision.calibration.find_calibration`` (each reads the
calibration files of the store and the package) while one question is answered, on a store built by
``clinqa demo --data-dir DIR``, with whatever clinqa is importable (``PYTHONPATH=<checkout>/src``). Issue 28:
three before the decision table (c2ed813), one after.

    PYTHONPATH=/path/to/checkout/src python bench/answers/calibration_reads.py DIR
"""

import sys
from collections import Counter
from pathlib import Path

import clinqa.decision.calibration as cal
from clinqa.pipeline import Pipeline
from clinqa.settings import load_settings

calls: Counter[str] = Counter()
orig = cal.find_calibration


def counting(*a, **k):  # type: ignore[no-untyped-def]
    """``find_calibration``, counted."""
    calls["find"] += 1
    return orig(*a, **k)


cal.find_calibration = counting
import clinqa.pipeline as pl  # noqa: E402  (the old pipeline imported the function by name)

if hasattr(pl, "find_calibration"):
    pl.find_calibration = counting
pipe = Pipeline(load_settings(None, data_dir=Path(sys.argv[1])))
qs = ["What is the alteplase dose for acute ischemic stroke?", "Amoxicillin dose for otitis media in children?",
      "What is the qSOFA score?"]
pipe.ask(qs[0], generate=False)  # warm
for q in qs:
    calls.clear()
    a = pipe.ask(q, generate=False)
    print(f"{calls['find']} calibration reads: refused={a.refused} {q}")
