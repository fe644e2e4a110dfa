"""Crash safety of ingest: a real ingest process is killed with SIGKILL at random moments while it
replaces every document of a store; after each kill the store opens, every document is wholly the
old version or wholly the new one, and a final run completes with everything new and searchable.

The ingest runs the real pipeline (LanceDB, embedding cache, answer-unit pre-computation) with the
int8 ONNX MiniLM (no PyTorch import, so a process starts in about a second) and one document per
commit, so the kills land between and inside store commits. ``bench/soak/crash.py`` runs many more
kills."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from clinqa.pipeline import Pipeline
from clinqa.retrieval.filters import Filters
from clinqa.settings import load_settings

N_DOCS = 40
KILLS = int(os.environ.get("CLINQA_CRASH_KILLS", "6"))

DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from clinqa.pipeline import Pipeline
    from clinqa.settings import load_settings
    pipe = Pipeline(load_settings(Path(sys.argv[1])))
    print("started", flush=True)
    report = pipe.ingest([Path(sys.argv[2])], progress=False, batch_chunks=1)
    print("done", report.documents, report.unchanged, len(report.failed), flush=True)
""")


def write_corpus(folder: Path, version: int) -> None:
    """``N_DOCS`` Markdown guidelines; version 2 changes every document (text and paragraph count)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(N_DOCS):
        paras = [f"Recommendation {j} of topic {i} in edition v{version}: give drug{i} at {j + version} mg "
                 f"with food, and review renal function every {j + 2} weeks." for j in range(2 + version % 2)]
        marker = f"\n\nOnly the second edition mentions sentinelword{i}." if version == 2 else ""
        (folder / f"doc{i:02d}.md").write_text(f"# Guideline {i}\n\n## Dosing\n\n" + "\n\n".join(paras) + marker + "\n")


def snapshot(pipe: Pipeline) -> dict[str, tuple[str, frozenset[str]]]:
    """``{doc_id: (doc_hash, chunk texts)}``; raises AssertionError when a document's chunks carry
    two different doc hashes (a half-replaced document)."""
    table = pipe.store.export(["doc_id", "doc_hash", "text"], Filters(exclude_levels=()))
    hashes: dict[str, set[str]] = {}
    texts: dict[str, set[str]] = {}
    for d, h, t in zip(*(table.column(c).to_pylist() for c in ("doc_id", "doc_hash", "text")), strict=True):
        hashes.setdefault(d, set()).add(h)
        texts.setdefault(d, set()).add(t)
    mixed = {d: h for d, h in hashes.items() if len(h) > 1}
    assert not mixed, f"documents with chunks of two versions: {mixed}"
    return {d: (next(iter(hashes[d])), frozenset(texts[d])) for d in hashes}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("crash")
    for v in (1, 2):  # the same folder name: doc ids are paths below the folder passed
        write_corpus(root / f"v{v}" / "guidelines", v)

    def config(name: str) -> Path:
        p = root / f"{name}.yaml"
        p.write_text(f"data_dir: {root / name}\nembedding:\n  model: all-MiniLM-L6-v2-int8\n  threads: 1\n")
        return p

    # what each version looks like when ingested cleanly (reference stores, same settings)
    expected = {}
    for v in ("v1", "v2"):
        pipe = Pipeline(load_settings(config(f"ref-{v}")))
        report = pipe.ingest([root / v / "guidelines"], progress=False)
        assert report.documents == N_DOCS and not report.failed
        expected[v] = snapshot(pipe)
    write_corpus(root / "live" / "guidelines", 1)
    return {"root": root, "config": config("live"), "expected": expected}


def run_ingest(cfg: Path, corpus: Path, kill_after: float | None) -> str:
    """Run the driver on ``corpus``; SIGKILL it ``kill_after`` seconds after it reports started."""
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(cfg), str(corpus)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "started"
    if kill_after is None:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        return out
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return "killed" if proc.returncode == -signal.SIGKILL else "finished"


@pytest.mark.time_limit(300)
def test_sigkill_during_ingest_never_leaves_a_half_document(setup: dict) -> None:
    root, cfg, expected = setup["root"], setup["config"], setup["expected"]
    corpus = root / "live" / "guidelines"
    assert "done 40 0 0" in run_ingest(cfg, corpus, None)  # the old version, complete
    write_corpus(corpus, 2)  # every document changes
    rng = random.Random(20261129)
    outcomes = []
    for _ in range(KILLS):
        outcomes.append(run_ingest(cfg, corpus, rng.uniform(0.05, 2.5)))
        state = snapshot(Pipeline(load_settings(cfg)))  # the store opens and reads after a kill
        assert set(state) == set(expected["v1"])  # no document lost, none invented
        for doc, version in state.items():  # each document wholly old or wholly new
            assert version in (expected["v1"][doc], expected["v2"][doc]), doc
    assert "killed" in outcomes
    final = run_ingest(cfg, corpus, None).split()
    assert final[0] == "done" and int(final[1]) + int(final[2]) == N_DOCS and final[3] == "0"
    pipe = Pipeline(load_settings(cfg))
    assert snapshot(pipe) == expected["v2"]
    for i in (0, 17, 39):  # every new text is searchable, also those a killed run wrote before its index update
        hits = pipe.store.bm25_search(f"sentinelword{i}", 3, Filters())
        assert [h.chunk.doc_id for h in hits][:1] == [f"guidelines/doc{i:02d}"], i
    assert pipe.ask("How often should renal function be reviewed with drug7?").refused is False
