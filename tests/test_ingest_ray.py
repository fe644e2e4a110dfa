"""`clinqa ingest --ray` on a local 2-worker Ray cluster against a plain ingest of the same files: same chunk
ids, the same vectors within 1e-6, the same cached answer units, the same answers (issue 30)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from clinqa.corpora import guidelines_path
from clinqa.pipeline import Pipeline
from clinqa.retrieval.filters import Filters
from clinqa.settings import Settings

pytest.importorskip("ray")

GUIDELINES = ("wells_pe_2000", "gold_copd_2024", "kdigo_ckd_2024")
QUESTIONS = ("What is the Wells score threshold for PE being likely?",
             "When should a patient with CKD be referred to a nephrologist?",
             "How is airflow obstruction graded in COPD?",
             "What is the dose of amoxicillin for otitis media?")


@pytest.fixture(scope="module")
def cluster():  # type: ignore[no-untyped-def]
    """One local 2-CPU Ray cluster for the module (ingest_ray joins a running one instead of starting its own)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src, g = guidelines_path(), tmp_path_factory.mktemp("ray-corpus") / "g"
    for name in GUIDELINES:
        shutil.copytree(src / "content" / name, g / "content" / name)
    shutil.copy(src / "registry.json", g / "registry.json")
    (g / "content" / "broken.pdf").write_bytes(b"not a pdf")  # reported by both, never stops either
    return g


def _pipe(root: Path, unit_vectors: str) -> Pipeline:
    s = Settings(data_dir=root)
    # fp32 on ONNX Runtime, as the core install runs (auto would pick bf16 for large batches where torch is)
    emb = s.embedding.model_copy(update={"unit_vectors": unit_vectors, "precision": "fp32"})
    return Pipeline(s.model_copy(update={"embedding": emb}))


def _vectors(p: Pipeline) -> dict[str, np.ndarray]:
    t = p.store.export(["chunk_id", "vector"], Filters(exclude_levels=())).to_pylist()
    return {r["chunk_id"]: np.asarray(r["vector"], dtype=np.float32) for r in t}


def _cache(p: Pipeline) -> dict[tuple[str, str], np.ndarray]:
    with sqlite3.connect(p.cache_path) as db:
        rows = db.execute("SELECT model, hash, vec FROM emb").fetchall()
    return {(m, h): np.frombuffer(v, dtype=np.float32) for m, h, v in rows}


@pytest.mark.parametrize("unit_vectors", ["separate", "late"])
def test_ray_ingest_matches_plain(cluster, corpus: Path, tmp_path: Path, unit_vectors: str) -> None:  # type: ignore[no-untyped-def]
    from clinqa.ingest_ray import ingest_ray

    plain, ray = _pipe(tmp_path / "plain", unit_vectors), _pipe(tmp_path / "ray", unit_vectors)
    a = plain.ingest([corpus], progress=False)
    b = ingest_ray(ray, [corpus], workers=2, progress=False)
    assert a.documents == b.documents == len(GUIDELINES)
    assert (a.chunks, a.embedded, a.units_embedded, a.units_late) == (b.chunks, b.embedded, b.units_embedded,
                                                                       b.units_late)
    assert [p for p, _ in a.failed] == [p for p, _ in b.failed] and len(b.failed) == 1
    assert (b.units_late > 0) == (unit_vectors == "late")
    va, vb = _vectors(plain), _vectors(ray)
    assert va.keys() == vb.keys() and len(va) == a.chunks
    assert max(float(np.abs(va[k] - vb[k]).max()) for k in va) < 1e-6
    ca, cb = _cache(plain), _cache(ray)
    assert ca.keys() == cb.keys()
    assert max(float(np.abs(ca[k] - cb[k]).max()) for k in ca) < 1e-6
    assert json.loads((tmp_path / "ray" / "store.json").read_text()) == json.loads(
        (tmp_path / "plain" / "store.json").read_text())
    for q in QUESTIONS:
        x, y = plain.ask(q), ray.ask(q)
        assert (x.refused, x.answer, [c.chunk_id for c in x.citations]) == (
            y.refused, y.answer, [c.chunk_id for c in y.citations]), q
    # a second Ray run finds everything unchanged; the cluster it joined is left running
    again = ingest_ray(ray, [corpus], workers=2, progress=False)
    assert (again.documents, again.unchanged) == (0, len(GUIDELINES)) and cluster.is_initialized()
