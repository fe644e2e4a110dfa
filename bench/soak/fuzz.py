"""Fuzz soak: the property tests of ``tests/reliability/test_fuzz.py`` with many random examples.

CI runs a few fixed examples per property; this runs ``--examples`` random ones (hypothesis
seed ``--seed``, or a fresh one) for every loader and chunking strategy, each property under a
wall-clock limit that scales with the count, and writes what it found. A failure prints the
shrunk input and a ``@reproduce_failure`` line to paste onto the test.

    python bench/soak/fuzz.py --examples 2000 --output runs/soak
    python bench/soak/fuzz.py --examples 300 -k hierarchical   # one property

Exit code: pytest's (0 when every property held).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests" / "reliability" / "test_fuzz.py"


def main() -> int:
    """Run the soak; returns pytest's exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=2000, help="random examples per property (default 2000)")
    ap.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    ap.add_argument("-k", dest="select", default=None, help="pytest -k expression to run some properties only")
    ap.add_argument("--output", type=Path, default=None, help="folder for soak.json and soak.log")
    args = ap.parse_args()

    env = dict(os.environ, CLINQA_FUZZ_EXAMPLES=str(args.examples), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cmd = [sys.executable, "-m", "pytest", "-q", str(TESTS), "-p", "no:cacheprovider", "--durations=0",
           "--hypothesis-show-statistics"]
    if args.seed is not None:
        cmd.append(f"--hypothesis-seed={args.seed}")
    if args.select:
        cmd += ["-k", args.select]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    log = proc.stdout + proc.stderr
    summary = next((ln for ln in reversed(log.splitlines()) if re.search(r"\d+ (passed|failed)", ln)), "")
    failed = sorted(set(re.findall(r"^FAILED (\S+)", log, re.M)))
    report = {"examples_per_property": args.examples, "seed": args.seed, "select": args.select,
              "seconds": round(seconds, 1), "exit_code": proc.returncode, "summary": summary.strip("= "),
              "failed": failed}
    print(log if proc.returncode else "\n".join(ln for ln in log.splitlines() if "passing" in ln or "::" in ln))
    print(json.dumps(report, indent=2))
    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)
        (args.output / "soak.json").write_text(json.dumps(report, indent=2) + "\n")
        (args.output / "soak.log").write_text(log)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
