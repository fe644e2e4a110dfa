"""Cold start of the command line: median wall time of ``clinqa --help`` and of a cold ``clinqa ask``
(a new process each run, so every import and the store/model opening are paid each time; the
operating system's file cache stays warm) over ``--runs`` runs, plus the import-time profile
(``python -X importtime``) of both, summed by top-level package.

    python bench/cold_start.py --data-dir /tmp/render-demo --runs 5 [--json out.json]

Targets (issue 14): ``ask`` <= 1.5 s, ``--help`` <= 0.5 s, on 2 cores. Wall figures depend on the
machine's load (printed with them): run it on an idle machine and read the spread (min..max) and the
CPU seconds (user + system, less sensitive to other processes) beside the median. Compare two
versions of the code by running it twice with ``PYTHONPATH`` pointing at each ``src``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

QUESTION = "How long does the cough last after acute bronchitis?"


def clinqa_script() -> Path:
    """The ``clinqa`` console script of the running interpreter's environment."""
    return Path(sys.executable).with_name("clinqa")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one run of ``cmd`` (cpu: user + system of the child, which a busy
    machine inflates less than wall); raises ``RuntimeError`` with its stderr when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_profile(cmd: list[str], env: dict[str, str], top: int = 12) -> dict[str, object]:
    """``python -X importtime`` of ``cmd`` (a console script run by this interpreter): total import
    seconds, and the ``top`` top-level packages by summed self time (seconds), largest first."""
    r = subprocess.run([sys.executable, "-X", "importtime", *cmd], env=env, capture_output=True, text=True)
    by_pkg: dict[str, int] = defaultdict(int)
    total = 0
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, self_us, _cum, name = (x.strip() for x in line.replace("import time:", "|", 1).split("|"))
        by_pkg[name.split(".")[0]] += int(self_us)
        total += int(self_us)
    ranked = sorted(by_pkg.items(), key=lambda kv: -kv[1])[:top]
    return {"imports_s": round(total / 1e6, 3), "top": [(k, round(v / 1e6, 3)) for k, v in ranked]}


def main() -> None:
    """Run the measurement and print (and optionally write) the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path, help="a built store (clinqa demo --data-dir ...)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    exe = str(clinqa_script())
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    help_cmd = [exe, "--help"]
    ask_cmd = [exe, "ask", "--data-dir", str(args.data_dir), args.question]
    timed(ask_cmd, env)  # one untimed run: file cache warm, the ONNX query model exported if needed
    out: dict[str, object] = {"runs": args.runs, "question": args.question}
    for name, cmd in (("help", help_cmd), ("ask", ask_cmd)):
        runs = [timed(cmd, env) for _ in range(args.runs)]
        walls = [w for w, _ in runs]
        out[name] = {"median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
                     "max_s": round(max(walls), 3), "runs_s": [round(w, 3) for w in walls],
                     "median_cpu_s": round(statistics.median(c for _, c in runs), 3),
                     "importtime": import_profile(cmd, env)}
    out["cpus"] = os.cpu_count()
    out["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    for name in ("help", "ask"):
        r = out[name]
        print(f"clinqa {name}: median {r['median_s']:.2f} s wall (min {r['min_s']:.2f}, max {r['max_s']:.2f}, "
              f"{args.runs} runs), {r['median_cpu_s']:.2f} s cpu; imports {r['importtime']['imports_s']:.2f} s, top: "
              + ", ".join(f"{k} {v:.2f}" for k, v in r["importtime"]["top"][:8]))
    print(f"load average {out['load_avg']} on {out['cpus']} CPUs")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
