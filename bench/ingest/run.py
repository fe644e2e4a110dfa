"""Ingest throughput: chunks/s, passages/s, peak RSS and where the time goes, for the first ``--passages``
passages of a BEIR corpus (default the LiveQA-MedQuAD corpus, ``../shared/data/liveqa-medquad``: MedQuAD,
NIH sites, CC BY 4.0 per the data README), ingested into a fresh store with a cold embedding cache.

Each run is a child process (so peak RSS is the run's own, and one run's caches never help the next).
``--seed S`` takes a seeded random sample of ``--passages`` passages (kept in file order) instead of the
first ones. ``--slices K`` ingests the passages in K consecutive slices into the same store and prints a
progress line after each (``"complete": false``), so a run stopped by ``--time-limit SECONDS`` still
gives its measured rate over the slices it finished (each slice is one ``ingest`` call: its boilerplate
screen sees that slice, and its index refresh is counted).
``--set key=value`` changes a setting for every run (``embedding.model=all-MiniLM-L6-v2-int8``); a
``--variant NAME:key=value,key=value`` adds a run with those settings, so old and new code paths run
back to back on the same machine (``ray=2`` in a variant ingests on a local 2-worker Ray cluster; the
cluster's start-up is counted). ``--profile`` adds a cProfile breakdown (cumulative seconds of the
stages: load, chunk, embed chunks, embed units, store write, index build).

    python bench/ingest/run.py --passages 1000 --variant before:embedding.unit_vectors=separate \\
        --variant after:embedding.unit_vectors=late --profile --output runs/ingest
    # issue 51: 20k seeded BioASQ snippets, 20 slices, at most 40 min per setting
    python bench/ingest/run.py --corpus ../shared/data/bioasq --passages 20000 --seed 51 --slices 20 \\
        --time-limit 2400 --variant default: --output runs/ingest-20k-default
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "liveqa-medquad"

#: profile rows: label -> (module path suffix, function name) whose cumulative time is the stage's
STAGES = {
    "load (parse)": ("loaders/beir.py", "iter_load"),
    "chunk": ("chunking/hierarchical.py", "chunk"),
    "embed chunks + units": ("embedding/cache.py", "encode_with_cache"),
    "embed late (one pass)": ("clinqa/ingest.py", "embed_late"),
    "place units (late)": ("clinqa/ingest.py", "chunk_units"),
    "model forward": ("onnxruntime_inference_collection.py", "run"),
    "tokenize": ("tokenizers/__init__.py", "encode_batch"),
    "units of chunks": ("chunking/units.py", "embedding_texts"),
    "suspicious units": ("chunking/units.py", "suspicious_units"),
    "store write": ("store/lancedb.py", "replace_documents"),
    "index build": ("store/lancedb.py", "refresh_indexes"),
}


def child(args: argparse.Namespace) -> None:
    """One ingest run in this process; prints one JSON line."""
    import cProfile
    import pstats
    import resource

    from clinqa.cli.common import settings_for
    from clinqa.pipeline import Pipeline

    data_dir = Path(args.data_dir)
    settings = settings_for(data_dir / "store", sets=[s for s in args.set if s])
    lines = (Path(args.corpus) / "corpus.jsonl").read_text().splitlines(keepends=True)
    if args.seed is None:
        lines = lines[:args.passages]  # the first N passages
    else:  # a seeded sample of N, in file order
        lines = [lines[i] for i in sorted(random.Random(args.seed).sample(range(len(lines)),
                                                                         min(args.passages, len(lines))))]
    slices = max(1, min(args.slices, len(lines)))
    files = []
    for k in range(slices):  # as files both paths ingest
        corpus = data_dir / f"corpus-{k:03d}" / "corpus.jsonl"
        corpus.parent.mkdir(parents=True)
        corpus.write_text("".join(lines[k * len(lines) // slices:(k + 1) * len(lines) // slices]))
        files.append(corpus)
    pipe = Pipeline(settings)
    pipe.encoder  # model load is not ingest time  # noqa: B018
    prof = cProfile.Profile() if args.profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    totals = {"passages": 0, "chunks": 0, "embedded": 0, "units_embedded": 0}
    for k, corpus in enumerate(files):
        if args.ray:
            from clinqa.ingest_ray import ingest_ray

            report = ingest_ray(pipe, [corpus], workers=args.ray, format="beir", progress=False)
        else:
            report = pipe.ingest([corpus], format="beir", progress=False)
        for key, value in (("passages", report.documents), ("chunks", report.chunks),
                           ("embedded", report.embedded), ("units_embedded", report.units_embedded)):
            totals[key] += value
        wall = time.perf_counter() - t0
        out = {**totals, "seconds": round(wall, 2), "chunks_per_s": round(totals["chunks"] / wall, 2),
               "passages_per_s": round(totals["passages"] / wall, 2),
               "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
               "load_avg": os.getloadavg()[0], "complete": k == len(files) - 1}
        if k < len(files) - 1:
            print(json.dumps({**out, "slice": k + 1, "of": len(files)}), flush=True)
    if prof:
        prof.disable()
    if prof:
        stats = pstats.Stats(prof)
        breakdown = {}
        for (file, _, name), (_, _, _, cum, _) in stats.stats.items():  # type: ignore[attr-defined]
            for label, (suffix, fn) in STAGES.items():
                if file.endswith(suffix) and name == fn:
                    breakdown[label] = round(breakdown.get(label, 0.0) + cum, 2)
        out["profile_s"] = breakdown
    print(json.dumps(out))


def run_child(cmd: list[str], env: dict[str, str], time_limit: float | None, name: str, n: int) -> dict:
    """Run one child; echo its progress lines to stderr; return its last JSON line (the last finished
    slice when ``time_limit`` seconds pass first, with ``"stopped_at_s"``). Exits when the child fails."""
    import threading

    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        timer = threading.Timer(time_limit, proc.kill) if time_limit else None
        if timer:
            timer.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("{"):
                print(f"{name}: {line.strip()}", file=sys.stderr, flush=True)
        code = proc.wait()
        if timer:
            timer.cancel()
        rows = [json.loads(x) for x in lines if x.startswith("{")]
        if code and not (time_limit and code == -9 and rows):
            err.seek(0)
            sys.exit(f"{name} ({n} passages) failed:\n{err.read()[-3000:]}")
    last = rows[-1]
    if code == -9:
        last = {**last, "stopped_at_s": time_limit}
    return last


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passages", type=int, nargs="+", default=[1000])
    ap.add_argument("--corpus", type=Path, default=DATA)
    ap.add_argument("--set", action="append", default=[], help="a setting for every run (key=value)")
    ap.add_argument("--variant", action="append", default=[], help="NAME:key=value,key=value (repeatable)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--output", type=Path, default=Path("runs/ingest"))
    ap.add_argument("--ray", type=int, default=0, help="ingest on a local Ray cluster of this many workers")
    ap.add_argument("--seed", type=int, default=None, help="a seeded sample of --passages, not the first ones")
    ap.add_argument("--slices", type=int, default=1, help="ingest in this many slices, a progress line each")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="stop a run after this many seconds; its row is its last finished slice")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        a.passages = a.passages[0]
        child(a)
        return
    variants = [(v.split(":", 1)[0], [s for s in v.split(":", 1)[1].split(",") if s]) for v in a.variant] or [
        ("default", [])]
    a.output.mkdir(parents=True, exist_ok=True)
    rows = []
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for n in a.passages:
        for name, sets in variants:
            with tempfile.TemporaryDirectory(prefix="clinqa-ingest-bench-") as tmp:
                cmd = [sys.executable, __file__, "--child", "--passages", str(n), "--corpus", str(a.corpus),
                       "--data-dir", tmp, "--slices", str(a.slices)]
                if a.seed is not None:
                    cmd += ["--seed", str(a.seed)]
                for s in [*a.set, *sets]:
                    cmd += ["--set", s] if not s.startswith("ray=") else ["--ray", s.split("=", 1)[1]]
                if a.profile:
                    cmd.append("--profile")
                last = run_child(cmd, env, a.time_limit, name, n)
                row = {"variant": name, "settings": [*a.set, *sets], **last}
                rows.append(row)
                print(json.dumps(row), flush=True)
    (a.output / "ingest.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
