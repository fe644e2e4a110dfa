"""Bounded load test of the HTTP API: many concurrent clients ask real questions while an ingest runs.

What it does (nothing is mocked; loopback only; a fixed number of requests and an overall deadline):

1. Picks real MedQuAD passages from ``../shared/data/liveqa-medquad`` (BEIR format): the passages
   judged relevant to the developer questions first (so questions get answered, not only refused),
   then seeded distractors, each at most ``--max-chars`` characters. ``--base`` of them are
   ingested in-process into a fresh data dir; ``--ingest`` others are written as Markdown files
   (one per passage, YAML front matter with title, source and URL) under ``<data_dir>/incoming/``.
2. Starts the real service, ``clinqa serve --workers N`` (uvicorn, 127.0.0.1, a free port, one
   API key), and waits until every worker has started.
3. At once: an ingest thread runs ``clinqa ingest`` of the incoming files (``--ingest-rounds``
   subprocesses one after the other, one folder each), and ``--clients`` client threads (one
   ``httpx.Client`` each, so one connection each) send ``--requests`` requests each:
   ``POST /ask`` and ``POST /search`` alternately, with the LiveQA developer questions of
   ``queries.jsonl``. A client's requests come in ``rounds + 1`` waves, each request at a seeded
   offset within ``--spread`` seconds of its wave's start: the load's start, then the moment each
   ingest round's first commit is visible in the store (so requests run while the ingest embeds and
   while it compacts and updates the indexes after a commit, and answers come from several corpus
   versions). Every ``/ask`` that returns a ``query_id`` is rated (``POST /feedback``, a known
   score and comment) and read back (``GET /queries/{id}``). With ``--base 0`` the service starts
   on an empty store: ``409`` is expected, and accepted, until the first commit.
4. Checks: every response arrived before the deadline with status 200 (no 5xx, no connection
   error); the query log holds exactly one row per ``/ask`` that returned a query id (the same
   question, logged under the key) and exactly the feedback that was posted; the ingest
   subprocesses exited 0 and ``/stats`` counts every document afterwards; a search for an
   ingested passage's title finds it (the running service sees the other process's commit); the
   service log holds no traceback and no "database is locked".
5. Writes ``summary.json`` (requests, status counts, p50/p95/max latency per route, log and
   feedback rows checked, ingest duration, problems found) to ``--output``; exits 1 when a check
   failed.

The defaults are the CI variant, ``tests/service/test_load.py`` (50 clients x 2 requests, 100 base
passages, one ingest round of 60; it imports :func:`run` from this file; about a minute on 2 cores).
A longer soak, e.g.::

    .venv/bin/python bench/load/run.py --output runs/load --clients 50 --requests 20 \\
        --base 400 --ingest 600 --ingest-rounds 4 --workers 2 --spread 120 --deadline 1800

``--model`` defaults to paraphrase-MiniLM-L3-v2 (a shipped 3-layer encoder: the load, not the
answer quality, is measured); pass ``--model all-MiniLM-L6-v2`` for the default encoder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "liveqa-medquad"
KEY_NAME = "load-client"
KEY_ENV = "CLINQA_LOAD_KEY"
KEY = "load-key-not-secret-0123456789"
#: feedback scores cycled over the rated answers
SCORES = (1.0, 0.6, 0.2)
#: service-log lines that mean a request or a worker failed
LOG_PROBLEMS = ("traceback", "database is locked", "commit conflict", "internal server error")


@dataclass
class LoadConfig:
    """One load run. The defaults are the CI test's (``tests/service/test_load.py``)."""

    clients: int = 50
    requests: int = 2
    base_passages: int = 100
    ingest_passages: int = 60
    ingest_rounds: int = 1
    workers: int = 2
    spread_s: float = 10.0
    deadline_s: float = 240.0
    max_chars: int = 1500
    model: str = "paraphrase-MiniLM-L3-v2"
    threads: int | None = 1
    seed: int = 0


@dataclass
class Call:
    """One HTTP request of a client: route, status (None: no response), latency and when it ran
    (seconds since the load started)."""

    client: int
    route: str
    status: int | None
    ms: float
    start: float
    end: float
    error: str = ""


@dataclass
class IngestRound:
    """One ``clinqa ingest`` subprocess."""

    folder: str
    start: float
    end: float = 0.0
    rc: int | None = None
    documents: int = 0
    output: str = ""


@dataclass
class LoadResult:
    """Everything a run observed; :func:`summary` turns it into the JSON report."""

    config: LoadConfig
    calls: list[Call] = field(default_factory=list)
    asked: dict[str, str] = field(default_factory=dict)  # query_id -> question
    rated: dict[str, tuple[float, str]] = field(default_factory=dict)  # query_id -> (score, comment)
    readback_missing: list[str] = field(default_factory=list)  # GET /queries without the posted feedback
    unanswered: int = 0  # requests never sent because the deadline had passed
    ingest: list[IngestRound] = field(default_factory=list)
    load_s: float = 0.0
    commits_seen_s: list[float | None] = field(default_factory=list)  # per ingest round: its first commit seen
    checks: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


# -- data ------------------------------------------------------------------------------------
def dev_questions(data: Path = DATA) -> list[str]:
    """The LiveQA developer questions (``queries.jsonl`` text, typos kept), in file order."""
    return [json.loads(x)["text"] for x in (data / "queries.jsonl").read_text().splitlines() if x.strip()]


def choose_passages(n_base: int, n_ingest: int, seed: int = 0, max_chars: int = 1500,
                    data: Path = DATA) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two disjoint lists of corpus records (``_id, title, text, metadata``), ``n_base`` and
    ``n_ingest`` long, of passages at most ``max_chars`` characters: the base list starts with
    the passages judged relevant to the developer questions (``qrels/test.tsv`` order, up to
    60% of it), the rest are seeded random distractors."""
    records = {}
    with (data / "corpus.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            if len(r["text"]) <= max_chars and r["text"].strip():
                records[r["_id"]] = r
    judged: list[str] = []
    for line in (data / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        doc = line.split("\t")[1]
        if doc in records and doc not in judged:
            judged.append(doc)
    judged = judged[: int(n_base * 0.6)]
    taken = set(judged)
    rest = sorted(k for k in records if k not in taken)
    random.Random(seed).shuffle(rest)
    need = n_base - len(judged) + n_ingest
    if need > len(rest):
        raise ValueError(f"only {len(rest) + len(judged)} passages of at most {max_chars} characters")
    base = [records[k] for k in judged + rest[: n_base - len(judged)]]
    extra = [records[k] for k in rest[n_base - len(judged): need]]
    return base, extra


def write_markdown(records: list[dict[str, Any]], folder: Path) -> None:
    """One Markdown file per record (``<_id>.md``: front matter title/source/url, then the text)."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in records:
        meta = {"title": r.get("title") or r["_id"], "source": "medquad-load",
                "url": (r.get("metadata") or {}).get("url") or ""}
        (folder / f"{r['_id']}.md").write_text("---\n" + yaml.safe_dump(meta, allow_unicode=True) + "---\n\n"
                                               + r["text"] + "\n")


def settings_dict(data_dir: Path, cfg: LoadConfig) -> dict[str, Any]:
    """The service's and the ingest's config (YAML-ready): the data dir, the encoder, one API key
    read from ``$CLINQA_LOAD_KEY`` (no patient scope), the default SQLite query log and cache."""
    emb: dict[str, Any] = {"model": cfg.model}
    if cfg.threads:
        emb["threads"] = cfg.threads
    return {"data_dir": str(data_dir), "embedding": emb,
            "service": {"api_keys": [{"name": KEY_NAME, "key": f"env:{KEY_ENV}", "patients": []}]}}


def prepare(workdir: Path, cfg: LoadConfig, data: Path = DATA) -> tuple[Path, Path, list[Path]]:
    """Write the passages, ingest the base ones in-process and the config file; returns
    ``(data_dir, config_path, incoming folders)`` (one folder per ingest round). Also runs one
    query through the encoder so its ONNX export (shared by every process through
    ``$CLINQA_CACHE_DIR``) exists before the workers start."""
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings

    data_dir = workdir / "data"
    base, extra = choose_passages(cfg.base_passages, cfg.ingest_passages, cfg.seed, cfg.max_chars, data)
    (workdir / "base").mkdir(parents=True, exist_ok=True)
    (workdir / "base" / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in base))
    folders = []
    rounds = max(1, cfg.ingest_rounds)
    for i in range(rounds):
        folder = data_dir / "incoming" / f"round-{i + 1}"
        write_markdown(extra[i::rounds], folder)
        folders.append(folder)
    settings = settings_dict(data_dir, cfg)
    config = workdir / "load.yaml"
    config.write_text(yaml.safe_dump(settings))
    alone = Settings.model_validate(settings)  # nothing else runs yet: the base ingest may use every core
    pipe = Pipeline(alone.model_copy(update={"embedding": alone.embedding.model_copy(update={"threads": None})}))
    if base:  # none: the service starts on an empty store and the load's ingest is the first one
        report = pipe.ingest([workdir / "base" / "corpus.jsonl"], progress=False, batch_chunks=100)
        if report.failed or report.documents != len(base):
            raise RuntimeError(f"base ingest: {report.to_dict()}")
    pipe.encoder.encode_queries(["warm-up"])
    return data_dir, config, folders


# -- processes -------------------------------------------------------------------------------
def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_env() -> dict[str, str]:
    """The environment of the service and ingest subprocesses: offline, the API key set, no
    variable that would override the config file."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLINQA_DATA_DIR", "CLINQA_SETTINGS_JSON", "CLINQA_CONFIG")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                KEY_ENV: KEY})
    return env


def clinqa_cmd(*args: str) -> list[str]:
    """``python -m clinqa.cli ARGS`` with this interpreter."""
    return [sys.executable, "-m", "clinqa.cli", *args]


def stop(proc: subprocess.Popen[Any], timeout: float = 30.0) -> None:
    """SIGTERM the process group of ``proc`` (started with ``start_new_session``; uvicorn's workers
    included), then SIGKILL it if it has not exited after ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextmanager
def serve(config: Path, workers: int, log_path: Path, timeout_s: float = 180.0) -> Iterator[str]:
    """``clinqa serve --config CONFIG --workers N`` on a free loopback port; yields its base URL
    once ``/health`` answers and every worker logged "Application startup complete". The output
    goes to ``log_path``. Raises RuntimeError when it does not start within ``timeout_s``."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log_path.open("w") as log:
        proc = subprocess.Popen(clinqa_cmd("serve", "--config", str(config), "--host", "127.0.0.1", "--port",
                                           str(port), "--workers", str(workers)),
                                env=child_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"clinqa serve exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"clinqa serve did not start in {timeout_s:.0f} s:\n{log_path.read_text()[-3000:]}")
            started = log_path.read_text().count("Application startup complete")
            if started >= workers:
                with suppress(httpx.TransportError):
                    if httpx.get(url + "/health", timeout=5).status_code == 200:
                        break
            time.sleep(0.2)
        yield url
    finally:
        stop(proc)


def run_ingest(config: Path, folders: list[Path], result: LoadResult, t0: float, deadline: float) -> None:
    """``clinqa ingest --json`` of each folder in turn (one subprocess each), recorded in
    ``result.ingest``; a round still running at ``deadline`` is killed (rc None)."""
    for folder in folders:
        rnd = IngestRound(folder.name, time.monotonic() - t0)
        result.ingest.append(rnd)
        proc = subprocess.Popen(clinqa_cmd("ingest", "--config", str(config), "--json", str(folder)),
                                env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stop(proc, timeout=5)
            out = "killed at the deadline"
        rnd.end = time.monotonic() - t0
        rnd.rc = proc.returncode if proc.returncode is not None and proc.returncode >= 0 else None
        rnd.output = out[-2000:]
        match = re.search(r"\{.*\}", out, re.S)
        if rnd.rc == 0 and match:
            rnd.documents = int(json.loads(match.group(0)).get("documents", 0))


# -- clients ---------------------------------------------------------------------------------
def waves_of(requests: int, rounds: int) -> list[int]:
    """The wave of each of a client's ``requests``: ``rounds + 1`` waves of (nearly) equal size, in
    order. Wave 0 starts with the load, wave ``k`` when ingest round ``k``'s first commit is seen."""
    return [i * (rounds + 1) // requests for i in range(requests)]


def _client(c: int, url: str, questions: list[str], offsets: list[float], result: LoadResult, t0: float,
            deadline: float, lock: threading.Lock, commits: list[threading.Event]) -> None:
    """Client ``c``: request ``i`` starts ``offsets[i]`` seconds after the start of its wave
    (:func:`waves_of`): the load's start, or the moment an ingest round's first commit was seen."""
    calls: list[Call] = []

    def send(http: httpx.Client, method: str, route: str, path: str, **kw: Any) -> httpx.Response | None:
        left = deadline - time.monotonic()
        if left <= 0:
            with lock:
                result.unanswered += 1
            return None
        start = time.monotonic()
        try:
            r = http.request(method, path, timeout=left, **kw)
            status, error = r.status_code, ""
        except httpx.HTTPError as exc:
            r, status, error = None, None, f"{type(exc).__name__}: {exc}"
        end = time.monotonic()
        calls.append(Call(c, route, status, (end - start) * 1e3, start - t0, end - t0, error))
        return r

    waves = waves_of(len(offsets), len(commits))
    with httpx.Client(base_url=url, headers={"X-API-Key": KEY}) as http:
        for i, offset in enumerate(offsets):
            start = t0
            if waves[i]:
                commits[waves[i] - 1].wait(timeout=max(0.0, deadline - time.monotonic()))
                start = t0 + (result.commits_seen_s[waves[i] - 1] or 0.0)
            time.sleep(max(0.0, start + offset - time.monotonic()))
            q = questions[(c * len(offsets) + i) % len(questions)]
            if (c + i) % 2:
                send(http, "POST", "/search", "/search", json={"query": q, "k": 5})
                continue
            r = send(http, "POST", "/ask", "/ask", json={"question": q})
            if r is None or r.status_code != 200:
                continue
            qid = r.json().get("query_id")
            if not qid:
                continue
            score = SCORES[(c + i) % len(SCORES)]
            comment = f"load client {c} request {i}"
            with lock:
                result.asked[qid] = q
            fb = send(http, "POST", "/feedback", "/feedback", json={
                "query_id": qid, "score": score, "comment": comment,
                "category": "other" if score == 0.2 else None})
            if fb is None or fb.status_code != 200:
                continue
            with lock:
                result.rated[qid] = (score, comment)
            back = send(http, "GET", "/queries/{id}", f"/queries/{qid}")
            got = back.json()["feedback"] if back is not None and back.status_code == 200 else None
            if got is not None and [(f["score"], f["comment"]) for f in got] != [(score, comment)]:
                with lock:
                    result.readback_missing.append(qid)
    with lock:
        result.calls.extend(calls)


def _watch_commits(data_dir: Path, result: LoadResult, t0: float, deadline: float,
                   commits: list[threading.Event]) -> None:
    """For each ingest round in turn: once it has started, set its event (and its entry of
    ``result.commits_seen_s``) when the store's chunk count changes, i.e. its first data commit is
    visible (not the empty table's creation), or when the round ended without one."""
    from clinqa.store import LanceStore

    store = LanceStore(data_dir / "lancedb")
    for k, event in enumerate(commits):
        while len(result.ingest) <= k and time.monotonic() < deadline:
            time.sleep(0.05)
        before = store.count()  # the round's subprocess needs seconds to start: no commit yet
        while time.monotonic() < deadline:
            if store.count() != before or (len(result.ingest) > k and result.ingest[k].end):
                break
            time.sleep(0.1)
        result.commits_seen_s[k] = time.monotonic() - t0
        event.set()


def drive(url: str, data_dir: Path, config: Path, folders: list[Path], questions: list[str],
          cfg: LoadConfig) -> LoadResult:
    """Start the ingest thread and the client threads together; return when all have finished
    (each is bounded by ``cfg.deadline_s``). Each client's requests come in ``rounds + 1`` waves
    (:func:`waves_of`), each request at a seeded offset within ``cfg.spread_s`` of its wave's start:
    the load's start, then the moment each ingest round's first commit became visible. So requests
    are in flight while the ingest embeds, right after each commit while it compacts and rebuilds
    the indexes, and answers come from several corpus versions."""
    result = LoadResult(cfg)
    rounds = len(folders)
    result.commits_seen_s = [None] * rounds
    rng = random.Random(cfg.seed)
    waves = waves_of(cfg.requests, rounds)
    offsets = []
    for _ in range(cfg.clients):
        per_wave = {w: sorted(rng.uniform(0, cfg.spread_s) for _ in range(waves.count(w))) for w in set(waves)}
        offsets.append([per_wave[w].pop(0) for w in waves])
    lock = threading.Lock()
    commits = [threading.Event() for _ in range(rounds)]
    t0 = time.monotonic()
    deadline = t0 + cfg.deadline_s
    ingest = threading.Thread(target=run_ingest, args=(config, folders, result, t0, deadline), daemon=True)
    watcher = threading.Thread(target=_watch_commits, args=(data_dir, result, t0, deadline, commits), daemon=True)
    clients = [threading.Thread(target=_client, args=(c, url, questions, offsets[c], result, t0, deadline, lock,
                                                      commits), daemon=True) for c in range(cfg.clients)]
    ingest.start()
    watcher.start()
    for t in clients:
        t.start()
    for t in [*clients, ingest, watcher]:
        t.join(timeout=max(0.0, deadline - time.monotonic()) + 15)
    result.load_s = time.monotonic() - t0
    if any(t.is_alive() for t in [*clients, ingest, watcher]):
        result.problems.append("a client or the ingest was still running 15 s after the deadline")
    return result


# -- checks ----------------------------------------------------------------------------------
def check_after(url: str, result: LoadResult, folders: list[Path]) -> None:
    """With the service still up: ``/stats`` counts every document; a search for an ingested
    passage's title returns it. Adds to ``result.checks`` and ``result.problems``."""
    cfg = result.config
    with httpx.Client(base_url=url, headers={"X-API-Key": KEY}, timeout=120) as http:
        stats = http.get("/stats").json()
        want = cfg.base_passages + cfg.ingest_passages
        result.checks["documents_after"] = stats.get("documents")
        if stats.get("documents") != want:
            result.problems.append(f"/stats counts {stats.get('documents')} documents after the ingest, not {want}")
        probe = sorted(folders[-1].glob("*.md"))
        if probe:
            text = probe[0].read_text()
            title = yaml.safe_load(text.split("---")[1])["title"]
            hits = http.post("/search", json={"query": title, "k": 10}).json().get("hits", [])
            found = any(h["doc_id"].endswith(probe[0].stem) for h in hits)
            result.checks["ingested_doc_searchable"] = found
            if not found:
                result.problems.append(f"a search for {title!r} does not find the ingested {probe[0].name}")


def check_log(log_path: Path, result: LoadResult) -> None:
    """The query log holds exactly one row per ``/ask`` that returned a query id (same question,
    logged under the load key with source "api") and exactly the feedback posted for it."""
    from clinqa.logs.querylog import QueryLog

    with QueryLog(log_path) as log:
        rows = [r for r in log.rows() if r["api_key_name"] == KEY_NAME]
    by_id = {r["query_id"]: r for r in rows}
    missing = sorted(set(result.asked) - set(by_id))
    extra = sorted(set(by_id) - set(result.asked))
    wrong = sorted(q for q, text in result.asked.items() if q in by_id and (by_id[q]["question"] != text
                                                                               or by_id[q]["source"] != "api"))
    lost_fb = sorted(q for q, (s, c) in result.rated.items()
                     if q in by_id and [(f["score"], f["comment"]) for f in by_id[q]["feedback"]] != [(s, c)])
    unasked_fb = sorted(r["query_id"] for r in rows if r["feedback"] and r["query_id"] not in result.rated)
    result.checks.update({"log_rows": len(rows), "asks_with_query_id": len(result.asked),
                          "feedback_posted": len(result.rated),
                          "feedback_rows": sum(len(r["feedback"]) for r in rows),
                          "corpus_versions_logged": sorted({int(r["corpus_version"]) for r in rows}),
                          "cache_hits_logged": sum(bool(r["cache_hit"]) for r in rows)})
    for what, ids in (("asks without a log row", missing), ("log rows without an ask", extra),
                      ("log rows with another question or source", wrong),
                      ("rated answers whose feedback is not exactly the posted one", lost_fb),
                      ("log rows with feedback nobody posted", unasked_fb),
                      ("answers whose feedback GET /queries/{id} did not return", result.readback_missing)):
        if ids:
            result.problems.append(f"{len(ids)} {what}: {ids[:5]}")


def check_calls(result: LoadResult) -> None:
    """Every request answered 200 before the deadline; every ingest round exited 0 with its documents."""
    statuses = Counter(c.status for c in result.calls)
    bad = [c for c in result.calls if c.status != 200]
    if result.config.base_passages == 0:  # an empty store answers 409 until the first commit
        seen = (result.commits_seen_s or [None])[0] or 0.0
        early = [c for c in bad if c.status == 409 and c.route in ("/ask", "/search") and c.end <= seen]
        result.checks["empty_store_409"] = len(early)
        bad = [c for c in bad if c not in early]
    if bad:
        result.problems.append(f"{len(bad)} requests not 200: {dict(statuses)}; first: {asdict(bad[0])}")
    if result.unanswered:
        result.problems.append(f"{result.unanswered} requests not sent before the deadline")
    cfg = result.config
    want = cfg.clients * cfg.requests
    sent = sum(c.route in ("/ask", "/search") for c in result.calls)
    if sent != want:
        result.problems.append(f"{sent} /ask and /search requests made, not {want}")
    for rnd in result.ingest:
        if rnd.rc != 0:
            result.problems.append(f"ingest {rnd.folder} exited {rnd.rc}: {rnd.output[-500:]}")
    if sum(r.documents for r in result.ingest) != cfg.ingest_passages:
        result.problems.append(f"the ingest stored {sum(r.documents for r in result.ingest)} documents, "
                               f"not {cfg.ingest_passages}")


def check_service_log(log_path: Path, result: LoadResult) -> None:
    """No traceback, lock error, commit conflict or 500 in the service's output (case-insensitive)."""
    text = log_path.read_text(errors="replace")
    low = text.lower()  # same offsets as text for these ASCII phrases
    found = {p: low.count(p) for p in LOG_PROBLEMS if p in low}
    result.checks["service_log_problems"] = found
    if found:
        first = min(low.index(p) for p in found)
        result.problems.append(f"the service log has {found}; from: {text[first:first + 1500]}")


# -- report ----------------------------------------------------------------------------------
def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (linear interpolation between closest ranks); 0.0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summary(result: LoadResult) -> dict[str, Any]:
    """The JSON report: config, per-route counts, statuses and latency percentiles (ms), checks,
    ingest rounds, overlap of requests with the ingest, problems."""
    routes: dict[str, Any] = {}
    for route in sorted({c.route for c in result.calls}):
        calls = [c for c in result.calls if c.route == route]
        ms = [c.ms for c in calls]
        routes[route] = {"requests": len(calls), "status": {str(k): v for k, v in Counter(c.status for c in calls)
                                                            .items()},
                         "p50_ms": round(percentile(ms, 50), 1), "p95_ms": round(percentile(ms, 95), 1),
                         "max_ms": round(max(ms), 1)}
    all_ms = [c.ms for c in result.calls]
    ingest_start = min((r.start for r in result.ingest), default=0.0)
    ingest_end = max((r.end for r in result.ingest), default=0.0)
    during = sum(1 for c in result.calls if c.start < ingest_end and c.end > ingest_start)
    seen = [x for x in result.commits_seen_s if x is not None]
    in_round = [(x, r.end) for x, r in zip(result.commits_seen_s, result.ingest, strict=False) if x is not None]
    after = sum(1 for c in result.calls if any(x < c.start < end for x, end in in_round))
    return {
        "config": asdict(result.config),
        "requests": len(result.calls),
        "status": {str(k): v for k, v in Counter(c.status for c in result.calls).items()},
        "p50_ms": round(percentile(all_ms, 50), 1), "p95_ms": round(percentile(all_ms, 95), 1),
        "max_ms": round(max(all_ms, default=0.0), 1),
        "routes": routes,
        "load_s": round(result.load_s, 1),
        "ingest": [{k: v for k, v in asdict(r).items() if k != "output"} | {"seconds": round(r.end - r.start, 1)}
                   for r in result.ingest],
        "ingest_s": round(ingest_end - ingest_start, 1),
        "requests_during_ingest": during,
        "commits_seen_s": [round(x, 1) for x in seen],
        "requests_after_commit_during_ingest": after,
        "first_start_s": round(min((c.start for c in result.calls), default=0.0), 1),
        "last_end_s": round(max((c.end for c in result.calls), default=0.0), 1),
        "checks": result.checks,
        "problems": result.problems,
    }


def format_summary(s: dict[str, Any]) -> str:
    """A few lines for a terminal or a test's output."""
    lines = [f"{s['requests']} requests in {s['load_s']} s, status {s['status']}; "
             f"all routes p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, max {s['max_ms']} ms"]
    for route, r in s["routes"].items():
        lines.append(f"  {route:<14} {r['requests']:>5}  status {r['status']}  p50 {r['p50_ms']:>8} ms  "
                     f"p95 {r['p95_ms']:>8} ms  max {r['max_ms']:>8} ms")
    lines.append(f"ingest {s['ingest_s']} s ({len(s['ingest'])} rounds, first commits seen at "
                 f"{s['commits_seen_s']} s): "
                 f"{s['requests_during_ingest']} requests overlapped it, {s['requests_after_commit_during_ingest']} "
                 f"started after a round's first commit while that round still ran (compaction, index updates); "
                 f"requests from {s['first_start_s']} s to {s['last_end_s']} s")
    lines.append(f"checks {s['checks']}")
    lines.extend(f"PROBLEM: {p}" for p in s["problems"])
    return "\n".join(lines)


def run(workdir: Path, cfg: LoadConfig, data: Path = DATA) -> dict[str, Any]:
    """Prepare, serve, drive the load with the ingest, check, and return :func:`summary` (also
    written to ``workdir/summary.json``; every request is in ``workdir/calls.jsonl``, the service's
    output in ``workdir/serve.log``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    t = time.monotonic()
    data_dir, config, folders = prepare(workdir, cfg, data)
    prepare_s = time.monotonic() - t
    questions = dev_questions(data)
    serve_log = workdir / "serve.log"
    t = time.monotonic()
    with serve(config, cfg.workers, serve_log) as url:
        start_s = time.monotonic() - t
        result = drive(url, data_dir, config, folders, questions, cfg)
        check_after(url, result, folders)
    check_calls(result)
    check_log(data_dir / "querylog.sqlite", result)
    check_service_log(serve_log, result)
    out = summary(result) | {"prepare_s": round(prepare_s, 1), "serve_start_s": round(start_s, 1)}
    (workdir / "summary.json").write_text(json.dumps(out, indent=2))
    calls = sorted(result.calls, key=lambda c: c.start)
    (workdir / "calls.jsonl").write_text("".join(json.dumps(asdict(c)) + "\n" for c in calls))
    return out


def main() -> None:
    """Command line: see the module docstring."""
    d = LoadConfig()
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--output", type=Path, required=True, help="Work folder: data dir, serve.log, summary.json.")
    ap.add_argument("--clients", type=int, default=d.clients)
    ap.add_argument("--requests", type=int, default=d.requests, help="Requests (/ask or /search) per client.")
    ap.add_argument("--base", type=int, default=d.base_passages, help="Passages ingested before the service starts.")
    ap.add_argument("--ingest", type=int, default=d.ingest_passages, help="Passages ingested during the load.")
    ap.add_argument("--ingest-rounds", type=int, default=d.ingest_rounds, help="clinqa ingest runs, one after "
                    "the other, each of an equal share of --ingest.")
    ap.add_argument("--workers", type=int, default=d.workers)
    ap.add_argument("--spread", type=float, default=d.spread_s, help="Seconds over which request starts are spread.")
    ap.add_argument("--deadline", type=float, default=d.deadline_s, help="Seconds after which no request is sent "
                    "and every response must have arrived.")
    ap.add_argument("--max-chars", type=int, default=d.max_chars, help="Longest passage used.")
    ap.add_argument("--model", default=d.model)
    ap.add_argument("--threads", type=int, default=d.threads, help="Encoder threads per process (0: all cores).")
    ap.add_argument("--seed", type=int, default=d.seed)
    args = ap.parse_args()
    if not DATA.exists():
        raise SystemExit(f"{DATA} is not present")
    if args.output.exists() and any(args.output.iterdir()):
        raise SystemExit(f"{args.output} is not empty: give a new folder")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    cfg = LoadConfig(args.clients, args.requests, args.base, args.ingest, args.ingest_rounds, args.workers,
                     args.spread, args.deadline, args.max_chars, args.model, args.threads or None, args.seed)
    s = run(args.output.resolve(), cfg)
    print(format_summary(s))
    print(f"summary: {args.output / 'summary.json'}")
    if s["problems"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
