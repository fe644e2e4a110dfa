"""Same answers? Dump every answer of the answer benchmarks with one clinqa, diff two dumps.

A refactor of ``Pipeline.ask`` must change no answer. ``dump*`` asks every question of a benchmark
with whatever clinqa is importable (point ``PYTHONPATH`` at a checkout's ``src``) and writes
``{"<set>": {"<question id>": <Answer.to_dict()>}}``, with what is not deterministic removed: the
timings (``timings_ms``, any ``*_ms`` key, ``latency``/``seconds``); and with what is not
the code's but the checkout's made neutral: the path of the clinqa package, of this script's
repository and of the data dir become ``<clinqa>``, ``<repo>`` and ``<data_dir>`` in every string
(``gate.calibration`` names a file inside the package). Everything else is kept: refused, answer,
citations (scores, quotes), retrieved, gate, warnings, related topics, filters, time_filter, ...
Next to ``OUT.json`` goes ``OUT.meta.json``: which clinqa, the date asked (``time_filter`` and
rolling windows read today's date: compare dumps made in the same year, for "last N months" the
same day), question counts and wall times.

    # the demo store of `clinqa eval answers bench/answers/guidelines.jsonl --data-dir DIR`
    PYTHONPATH=/path/to/checkout/src python bench/answers/same_answers.py dump \\
        --set guidelines=bench/answers/guidelines.jsonl --set heldout=bench/answers/heldout.jsonl \\
        --set vignettes=bench/answers/vignettes.jsonl --data-dir /tmp/demo --output /tmp/demo.json
    # BioASQ dev factoid/list questions with an exact answer (as bench/answers/bioasq_at_commit.py dump)
    PYTHONPATH=... python bench/answers/same_answers.py dump-bioasq ../shared/data/bioasq \\
        --data-dir /tmp/bq --output /tmp/bioasq.json
    # the notes benchmark (bench/notes/run.py): questions.jsonl of a generated folder + the reproductions
    python bench/notes/generate.py --patients 50 --seed 0 --output /tmp/notes50
    PYTHONPATH=... python bench/answers/same_answers.py dump-notes /tmp/notes50 \\
        --data-dir /tmp/notes50-store --output /tmp/notes.json
    # exit code 1 when any answer changed
    python bench/answers/same_answers.py diff /tmp/old.json /tmp/new.json [--show 5] [--rel-tol 1e-9]

Only public APIs that ``clinqa eval answers`` and the benchmark scripts use are called
(``clinqa.cli.common.pipeline``, ``Pipeline.ingest``/``ask``/``filters``/``time_intent``/``search``,
``load_dataset``, ``build_eval_pipeline``, ``load_settings``), so an older or newer checkout runs it too.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
NOTES_BENCH = REPO / "bench" / "notes"

#: keys dropped wherever they occur in an answer dict: wall-clock measurements
TIME_KEYS = frozenset({"timings_ms", "latency", "latency_s", "seconds", "elapsed_s"})


# --- making an answer dict comparable ------------------------------------------------------

def _replacements(data_dirs: Iterable[Path]) -> list[tuple[str, str]]:
    """``(prefix, placeholder)`` pairs, longest prefix first: the clinqa package, the data dirs, this repo."""
    import clinqa

    pairs = [(str(Path(clinqa.__file__).resolve().parent), "<clinqa>"), (str(REPO), "<repo>")]
    for d in data_dirs:
        pairs += [(str(Path(d)), "<data_dir>"), (str(Path(d).resolve()), "<data_dir>")]
    return sorted(set(pairs), key=lambda p: -len(p[0]))


def is_time_key(key: str) -> bool:
    """Whether ``key`` holds a wall-clock measurement (``timings_ms``, ``ask_ms``, ``latency``, ...)."""
    return key in TIME_KEYS or key.endswith("_ms")


def strip(value: Any, replacements: list[tuple[str, str]]) -> Any:
    """``value`` (an ``Answer.to_dict()``) without time-valued keys, checkout paths replaced in strings."""
    if isinstance(value, dict):
        return {k: strip(v, replacements) for k, v in value.items() if not is_time_key(str(k))}
    if isinstance(value, list | tuple):
        return [strip(v, replacements) for v in value]
    if isinstance(value, str):
        for prefix, placeholder in replacements:
            if prefix in value:
                value = value.replace(prefix, placeholder)
        return value
    if isinstance(value, bool | int | float) or value is None:
        return value
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a numpy scalar or array
        return strip(value.tolist(), replacements)
    return strip(json.loads(json.dumps(value, default=str)), replacements)  # dates, paths, ...


# --- dumping -------------------------------------------------------------------------------

def _git_commit(path: Path) -> str | None:
    """The commit checked out where ``path`` lies (None outside git)."""
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=False)
    except OSError:
        return None
    return out.stdout.strip() or None


def ask_all(items: list[tuple[str, Any]], ask: Callable[[Any], Any], replacements: list[tuple[str, str]],
            label: str) -> dict[str, dict[str, Any]]:
    """``{id: stripped Answer.to_dict()}`` of ``ask(question)`` for every ``(id, question)``, in order
    (``question``: whatever ``ask`` takes); progress on stderr. Raises ``SystemExit`` on a duplicate id."""
    out: dict[str, dict[str, Any]] = {}
    for i, (qid, question) in enumerate(items, 1):
        if qid in out:
            raise SystemExit(f"{label}: duplicate question id {qid!r}")
        out[qid] = strip(ask(question).to_dict(), replacements)
        if i % 50 == 0 or i == len(items):
            print(f"  {label}: {i}/{len(items)}", file=sys.stderr, flush=True)
    return out


def write_dump(output: Path, sets: dict[str, dict[str, dict[str, Any]]], meta: dict[str, Any]) -> None:
    """Write ``output`` (the answers) and ``output.meta.json`` (``meta`` plus clinqa, date, counts)."""
    import clinqa

    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(sets, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    pkg = Path(clinqa.__file__).resolve().parent
    meta = {"clinqa": str(pkg), "commit": _git_commit(pkg), "today": datetime.date.today().isoformat(),
            "questions": {name: len(v) for name, v in sets.items()}, **meta}
    output.with_name(output.name.removesuffix(".json") + ".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    counts = ", ".join(f"{name} {n}" for name, n in meta["questions"].items())
    print(f"{counts} answers -> {output} ({meta['wall_s']} s)")


def read_question_set(path: Path) -> list[tuple[str, str]]:
    """``(id, question)`` of each row of a question set (``bench/answers/*.jsonl``)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(str(r["id"]), str(r["question"])) for r in rows]


def dump_sets(sets: list[tuple[str, Path]], data_dir: Path, output: Path) -> None:
    """Every question of each named set, ``Pipeline.ask(question, generate=False)``, over the store of
    ``clinqa eval answers QUESTIONS.jsonl --data-dir DATA_DIR``: the default settings with that data
    dir, the bundled guideline corpus ingested when the store is empty (as ``clinqa demo``)."""
    from clinqa.cli.common import pipeline
    from clinqa.corpora import guidelines_path

    t0 = time.perf_counter()
    pipe = pipeline(data_dir)
    ingest_s = 0.0
    if pipe.store.count() == 0:
        print(f"ingesting {guidelines_path()} into {pipe.data_dir}", file=sys.stderr, flush=True)
        report = pipe.ingest([guidelines_path()], progress=False)
        if report.failed:
            raise SystemExit(f"ingest failed: {report.failed[:3]}")
        ingest_s = time.perf_counter() - t0
    reps = _replacements([data_dir, pipe.data_dir])
    t1 = time.perf_counter()
    out = {name: ask_all(read_question_set(path), lambda q: pipe.ask(q, generate=False), reps, name)
           for name, path in sets}
    now = time.perf_counter()
    write_dump(output, out, {"kind": "sets", "sets": {n: str(p) for n, p in sets}, "data_dir": str(data_dir),
                             "chunks": pipe.store.count(), "ingest_s": round(ingest_s, 1),
                             "ask_s": round(now - t1, 1), "wall_s": round(now - t0, 1)})


def dump_bioasq(dataset: Path, data_dir: Path, output: Path) -> None:
    """Every factoid/list question of a BioASQ BEIR folder that has an exact answer, asked
    extractively over the full corpus in its evaluation store (as ``bioasq_at_commit.py dump``)."""
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.settings import Settings

    t0 = time.perf_counter()
    ds = load_dataset(dataset)
    pipe, _, ingest_s = build_eval_pipeline(ds, Settings(data_dir=data_dir), None, 0, progress=False)
    items = [(q.qid, q.text) for q in ds.queries
             if (q.metadata or {}).get("type") in ("factoid", "list") and (q.metadata or {}).get("exact_answer")]
    reps = _replacements([data_dir, pipe.data_dir])
    t1 = time.perf_counter()
    out = {"bioasq": ask_all(items, lambda q: pipe.ask(q, generate=False), reps, "bioasq")}
    now = time.perf_counter()
    write_dump(output, out, {"kind": "bioasq", "dataset": str(dataset), "data_dir": str(data_dir),
                             "store": str(pipe.data_dir), "chunks": pipe.store.count(),
                             "ingest_s": round(ingest_s, 1), "setup_s": round(t1 - t0, 1),
                             "ask_s": round(now - t1, 1), "wall_s": round(now - t0, 1)})


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def dump_notes(notes_dir: Path, data_dir: Path, output: Path) -> None:
    """The notes benchmark as ``bench/notes/run.py NOTES_DIR --data-dir DATA_DIR`` (no ablation) asks it:
    its settings, ``notes.jsonl`` plus ``bench/notes/repro.jsonl`` ingested, and per question the
    patient-scoped ``search`` then ``ask(text, pipe.filters(patient_id=...))``. Sets ``notes``
    (``questions.jsonl``) and ``repro`` (``bench/notes/repro_questions.jsonl``)."""
    from clinqa.pipeline import Pipeline
    from clinqa.settings import load_settings

    t0 = time.perf_counter()
    settings = load_settings(None, data_dir=data_dir)
    settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={
        "parse_time": True, "copy_threshold": settings.retrieval.copy_threshold, "expand_synonyms": True})})
    pipe = Pipeline(settings)
    report = pipe.ingest([notes_dir / "notes.jsonl", NOTES_BENCH / "repro.jsonl"], progress=False)
    if report.failed:
        raise SystemExit(f"ingest failed: {report.failed}")
    ingest_s = time.perf_counter() - t0
    reps = _replacements([data_dir, pipe.data_dir, notes_dir])

    def ask(q: dict[str, Any]) -> Any:
        """``run.py``'s ``evaluate``: the patient-scoped search, then the ask with the patient filter."""
        f = pipe.filters(patient_id=q["patient_id"])
        f2, intent = pipe.time_intent(q["text"], f)
        pipe.search(q["text"], f2, k=10, recency=intent.recency)
        return pipe.ask(q["text"], f)

    def scoped(rows: list[dict[str, Any]], label: str) -> dict[str, dict[str, Any]]:
        return ask_all([(str(q["_id"]), q) for q in rows], ask, reps, label)

    t1 = time.perf_counter()
    out = {"notes": scoped(_read_jsonl(notes_dir / "questions.jsonl"), "notes"),
           "repro": scoped(_read_jsonl(NOTES_BENCH / "repro_questions.jsonl"), "repro")}
    now = time.perf_counter()
    write_dump(output, out, {"kind": "notes", "notes_dir": str(notes_dir), "data_dir": str(data_dir),
                             "chunks": pipe.store.count(), "ingest_s": round(ingest_s, 1),
                             "ask_s": round(now - t1, 1), "wall_s": round(now - t0, 1)})


# --- diffing -------------------------------------------------------------------------------

def _short(value: Any, width: int = 90) -> str:
    """``value`` as compact JSON, cut to ``width`` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[:width - 3] + "..."


def differences(a: Any, b: Any, rel_tol: float = 0.0, path: str = "") -> list[str]:
    """``"path: A -> B"`` for every leaf where ``a`` and ``b`` differ (floats within ``rel_tol`` are equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            sub = f"{path}.{k}" if path else str(k)
            if k not in b:
                out.append(f"{sub}: {_short(a[k])} -> (absent)")
            elif k not in a:
                out.append(f"{sub}: (absent) -> {_short(b[k])}")
            else:
                out += differences(a[k], b[k], rel_tol, sub)
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = [line for i, (x, y) in enumerate(zip(a, b, strict=False))
               for line in differences(x, y, rel_tol, f"{path}[{i}]")]
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items -> {len(b)} items")
        return out
    numbers = (int, float)
    if (isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool)
            and rel_tol > 0 and math.isclose(a, b, rel_tol=rel_tol, abs_tol=rel_tol)):
        return []
    if a == b and type(a) is type(b):
        return []
    if isinstance(a, str) and isinstance(b, str) and max(len(a), len(b)) > 80:
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        start = max(0, at - 20)
        return [f"{path} (from character {at}): {_short(a[start:at + 60])} -> {_short(b[start:at + 60])}"]
    return [f"{path}: {_short(a)} -> {_short(b)}"]


def _meta(path: Path) -> dict[str, Any]:
    """The ``.meta.json`` written next to a dump (``{}`` when there is none)."""
    meta = path.with_name(path.name.removesuffix(".json") + ".meta.json")
    return json.loads(meta.read_text()) if meta.is_file() else {}


def diff(path_a: Path, path_b: Path, show: int = 3, lines: int = 8, rel_tol: float = 0.0) -> int:
    """Print per set how many answers changed between two dumps, and the first ``show`` changes field by
    field (at most ``lines`` fields each). Returns 1 when anything changed (or a set or id is missing
    on one side), else 0."""
    a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (path_a, path_b))
    days = [_meta(p).get("today") for p in (path_a, path_b)]
    if all(days) and days[0] != days[1]:
        print(f"note: asked on {days[0]} and {days[1]}: answers with a time phrase ('since 2018' -> years 2018-"
              f"<this year>, 'last 6 months') depend on the date")
    changed_any = False
    for name in list(a) + [n for n in b if n not in a]:
        sa, sb = a.get(name), b.get(name)
        if sa is None or sb is None:
            print(f"{name}: only in {path_a if sb is None else path_b} ({len(sa or sb)} answers)")
            changed_any = True
            continue
        ids = list(sa) + [q for q in sb if q not in sa]
        changed = [q for q in ids if q not in sa or q not in sb or differences(sa[q], sb[q], rel_tol)]
        only = sum(q not in sa or q not in sb for q in ids)
        extra = f" ({only} only on one side)" if only else ""
        print(f"{name}: {len(changed)} changed of {len(ids)}{extra}")
        changed_any |= bool(changed)
        for qid in changed[:show]:
            if qid not in sa or qid not in sb:
                print(f"  {qid}: only in {path_a if qid in sa else path_b}")
                continue
            found = differences(sa[qid], sb[qid], rel_tol)
            print(f"  {qid} ({_short(sa[qid].get('question', ''), 70)}): {len(found)} fields")
            for line in found[:lines]:
                print(f"    {line}")
            if len(found) > lines:
                print(f"    ... {len(found) - lines} more")
    return 1 if changed_any else 0


# --- command line --------------------------------------------------------------------------

def _named_set(text: str) -> tuple[str, Path]:
    """``NAME=PATH.jsonl`` as ``(name, path)``."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=PATH.jsonl")
    return name, Path(path)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the subcommand; returns the exit code."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="question sets (bench/answers/*.jsonl) over the demo store")
    d.add_argument("--set", dest="sets", type=_named_set, action="append", required=True, metavar="NAME=PATH")
    d.add_argument("--data-dir", type=Path, required=True)
    d.add_argument("--output", type=Path, required=True)
    b = sub.add_parser("dump-bioasq", help="BioASQ factoid/list questions with an exact answer")
    b.add_argument("dataset", type=Path)
    b.add_argument("--data-dir", type=Path, required=True)
    b.add_argument("--output", type=Path, required=True)
    n = sub.add_parser("dump-notes", help="the notes benchmark (bench/notes/run.py)")
    n.add_argument("notes_dir", type=Path)
    n.add_argument("--data-dir", type=Path, required=True)
    n.add_argument("--output", type=Path, required=True)
    c = sub.add_parser("diff", help="changed answers between two dumps (exit code 1 if any)")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--show", type=int, default=3, help="changed answers to detail per set")
    c.add_argument("--lines", type=int, default=8, help="fields to show per changed answer")
    c.add_argument("--rel-tol", type=float, default=0.0, help="numbers this close are equal (default: exact)")
    a = ap.parse_args(argv)
    if a.cmd == "dump":
        dump_sets(a.sets, a.data_dir, a.output)
    elif a.cmd == "dump-bioasq":
        dump_bioasq(a.dataset, a.data_dir, a.output)
    elif a.cmd == "dump-notes":
        dump_notes(a.notes_dir, a.data_dir, a.output)
    else:
        return diff(a.a, a.b, a.show, a.lines, a.rel_tol)
    return 0


if __name__ == "__main__":
    sys.exit(main())
