"""``clinqa migrate --to qdrant`` and ``--to qdrant-edge`` (a hand-made LanceDB store copied into Qdrant
local mode and into Qdrant's engine in the process gives the same ids, payloads, unit vectors and search
results), and one Pipeline run end to end with ``store.backend: qdrant`` and ``qdrant-edge``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from clinqa.chunking.base import Chunk
from clinqa.cli import app
from clinqa.pipeline import Pipeline
from clinqa.retrieval.filters import Filters
from clinqa.settings import Settings, StoreSettings
from clinqa.store import LanceStore
from clinqa.store.qdrant import QdrantStore

DIM = 6
DRUGS = ["warfarin", "apixaban", "statin", "metformin", "colchicine", "allopurinol", "amoxicillin", "heparin"]


def corpus() -> tuple[list[Chunk], np.ndarray]:
    """16 chunks of 8 documents: 4 guidelines (one with an overview chunk), 2 notes each of patients P1
    and P2; each chunk names one drug, so a drug name is a rare term. Vectors: seeded random (not unit)."""
    rng = np.random.default_rng(3)
    chunks: list[Chunk] = []
    for d in range(8):
        pid = None if d < 4 else ("P1" if d < 6 else "P2")
        doc = f"note:{pid}:{d}" if pid else f"g{d}"
        for i in range(2):
            drug = DRUGS[(2 * d + i) % len(DRUGS)]
            text = f"{drug} dosing and monitoring advice number {d}-{i} for adults"
            level = "document" if (d == 0 and i == 0) else "section"
            chunks.append(Chunk(chunk_id=f"{doc}#s#{i}", doc_id=doc, text=text, body=text, patient_id=pid,
                                year=2010 + d, source="NICE" if d % 2 else "bts", hierarchy_level=level,
                                doc_hash=f"h{d}", section_path=["Dosing", f"part {i}"],
                                page_start=(i + 1) if d == 1 else None, page_end=(i + 2) if d == 1 else None,
                                ocr=d == 1 and i == 1))
    return chunks, rng.normal(size=(len(chunks), DIM)).astype(np.float32)


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    chunks, vecs = corpus()
    s = LanceStore(tmp_path / "lancedb")
    s.replace_documents(sorted({c.doc_id for c in chunks}), chunks, vecs)
    s.refresh_indexes()
    return tmp_path


def ids(hits) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def _target(data_dir: Path, to: str):
    if to == "qdrant-edge":
        from clinqa.store.qdrant_edge import EdgeStore

        return EdgeStore(data_dir / "qdrant-edge")
    return QdrantStore(data_dir / "qdrant")


@pytest.mark.parametrize("to", ["qdrant", "qdrant-edge"])
def test_migrate_copies_everything_and_searches_agree(data_dir: Path, to: str) -> None:
    r = CliRunner().invoke(app, ["migrate", "--to", to, "--data-dir", str(data_dir), "-q", "--batch-size", "3"])
    assert r.exit_code == 0, r.output
    assert "migrated 16 chunks of 8 documents" in r.output and "counts match" in r.output
    assert f"store:\n  backend: {to}\n" in r.output
    assert "checked 16 chunks: the same ids and payloads, vectors equal within" in r.output
    lance, qd = LanceStore(data_dir / "lancedb"), _target(data_dir, to)
    assert qd.count() == lance.count() == 16
    assert qd.documents() == lance.documents()
    assert qd.doc_hashes() == lance.doc_hashes()
    assert qd.level_counts() == lance.level_counts() == {"document": 1, "section": 15}
    all_ids = [c.chunk_id for c in corpus()[0]]
    assert qd.get_chunks(all_ids) == lance.get_chunks(all_ids)  # every field, patients included
    assert [(c.page_start, c.page_end, c.ocr) for c in qd.get_chunks(["g1#s#0", "g1#s#1", "g2#s#0"])] == [
        (1, 2, False), (2, 3, True), (None, None, False)]  # pages and the OCR flag are kept
    # the proof of the copy, by hand: equal ids and payloads, vectors equal within 1e-6 once unit-normalised
    everything = Filters(exclude_levels=())
    cols = ["chunk_id", "doc_id", "text", "body", "patient_id", "year", "source", "doc_hash", "vector"]
    rows = {}
    for name, s in (("lance", lance), ("qdrant", qd)):
        t = pa_concat([s.export(cols, everything), *(s.export(cols, Filters(patient_id=p, exclude_levels=()))
                                                     for p in ("P1", "P2"))])
        rows[name] = sorted(t.to_pylist(), key=lambda r: r["chunk_id"])
    assert [r["chunk_id"] for r in rows["qdrant"]] == [r["chunk_id"] for r in rows["lance"]] == sorted(all_ids)
    strip = lambda r: {k: v for k, v in r.items() if k != "vector"}  # noqa: E731
    assert [strip(r) for r in rows["qdrant"]] == [strip(r) for r in rows["lance"]]
    la = np.array([r["vector"] for r in rows["lance"]], dtype=np.float64)
    qa = np.array([r["vector"] for r in rows["qdrant"]], dtype=np.float64)
    unit = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    assert np.abs(unit(la) - unit(qa)).max() <= 1e-6
    # Qdrant's engine stores cosine vectors normalised; qdrant-client's local mode keeps them as given
    assert np.allclose(np.linalg.norm(qa, axis=1), 1.0, atol=1e-6) == (to == "qdrant-edge")
    rng = np.random.default_rng(11)
    scopes = [Filters(), Filters(exclude_levels=()), Filters(patient_id="P1"), Filters(patient_id="P2"),
              Filters(sources=("nice",), year_min=2011), Filters(patient_id="P1", sources=("BTS",))]
    for f in scopes:
        for _ in range(3):
            q = rng.normal(size=DIM).astype(np.float32)
            lh, qh = lance.dense_search(q, 4, f), qd.dense_search(q, 4, f)
            assert ids(qh) == ids(lh) and ids(lh)
            assert [h.score for h in qh] == pytest.approx([h.score for h in lh], abs=1e-5)
    # BM25: a drug named in few chunks ranks first on both stores
    for drug, f in [("colchicine", Filters()), ("colchicine", Filters(patient_id="P2")),
                    ("metformin", Filters(patient_id="P1")), ("warfarin", Filters(patient_id="P1")),
                    ("amoxicillin", Filters()), ("heparin", Filters())]:
        lh, qh = lance.bm25_search(f"{drug} dose?", 5, f), qd.bm25_search(f"{drug} dose?", 5, f)
        assert ids(qh)[:1] == ids(lh)[:1] and ids(lh)
        assert drug in qh[0].chunk.text
    qd.close()


def pa_concat(tables):
    import pyarrow as pa

    return pa.concat_tables(tables)


def test_a_copy_that_differs_is_caught(data_dir: Path) -> None:
    """The check after the copy compares every chunk: a vector changed in the target is reported."""
    from clinqa.errors import ClinqaError
    from clinqa.store.migrate import _batches, migrate_to_qdrant, verify_copy
    from clinqa.store.qdrant_edge import EdgeStore

    lance, edge = LanceStore(data_dir / "lancedb"), EdgeStore(data_dir / "qdrant-edge")
    report = migrate_to_qdrant(lance, edge, batch_chunks=4, progress=False)
    assert (report.verified, report.chunks) == (16, 16) and report.max_vector_diff <= 1e-6
    chunks, vecs = corpus()
    edge.upsert_chunks(chunks[5:6], vecs[6:7])  # one chunk gets another chunk's vector
    with pytest.raises(ClinqaError, match="vectors differ"):
        verify_copy(lance, edge, list(_batches(lance, 4)))
    edge.upsert_chunks([chunks[5].model_copy(update={"title": "changed"})], vecs[5:6])
    with pytest.raises(ClinqaError, match=r"differs in \['title'\]"):
        verify_copy(lance, edge, list(_batches(lance, 4)))
    edge.close()


def test_migrate_refuses_to_overwrite_and_bad_targets(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    runner = CliRunner()
    args = ["migrate", "--to", "qdrant", "--data-dir", str(data_dir), "-q"]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already holds 16 chunks" in again.output
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
    assert QdrantStore(data_dir / "qdrant").count() == 16
    bad = runner.invoke(app, ["migrate", "--to", "milvus", "--data-dir", str(data_dir)])
    assert bad.exit_code == 2 and "only targets are 'qdrant' and 'qdrant-edge'" in bad.output
    edge = ["migrate", "--to", "qdrant-edge", "--data-dir", str(data_dir), "-q"]
    assert runner.invoke(app, edge).exit_code == 0
    again = runner.invoke(app, edge)
    assert again.exit_code == 2 and "Qdrant Edge store" in again.output and "already holds 16 chunks" in again.output
    assert runner.invoke(app, [*edge, "--overwrite"]).exit_code == 0
    empty = runner.invoke(app, ["migrate", "--to", "qdrant", "--data-dir", str(tmp_path_factory.mktemp("e")), "-q"])
    assert empty.exit_code == 2 and "nothing to migrate" in empty.output


# -- the Pipeline on Qdrant ----------------------------------------------------------------------
NOTES = [
    {"patient_id": "P1", "note_id": "1", "date": "2024-03-01", "note_type": "progress",
     "text": "ASSESSMENT: atrial fibrillation on warfarin, INR 2.4 today.\n\nPLAN: continue warfarin 5 mg."},
    {"patient_id": "P2", "note_id": "1", "date": "2024-04-02", "note_type": "progress",
     "text": "ASSESSMENT: atrial fibrillation on apixaban 5 mg twice daily.\n\nPLAN: rivaroxaban was stopped."},
]
GUIDES = {
    "apixaban": "# Apixaban\n\nApixaban 5 mg twice daily is used for stroke prevention in atrial fibrillation.\n",
    "warfarin": "# Warfarin\n\nWarfarin needs INR monitoring with a target INR of 2 to 3 in atrial fibrillation.\n",
    "gout": "# Gout\n\nAllopurinol lowers urate; start low and titrate to a serum urate below 6 mg/dL.\n",
}


@pytest.mark.parametrize("backend", ["qdrant", "qdrant-edge"])
def test_pipeline_end_to_end_on_qdrant(tmp_path: Path, backend: str) -> None:
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name, text in GUIDES.items():
        (corpus_dir / f"{name}.md").write_text(text)
    (corpus_dir / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    settings = Settings(data_dir=tmp_path / "data", store=StoreSettings(backend=backend))
    pipe = Pipeline(settings)
    report = pipe.ingest([corpus_dir], progress=False)
    assert report.failed == [] and report.documents == 5
    assert type(pipe.store).__name__ == ("QdrantStore" if backend == "qdrant" else "EdgeStore")
    assert (tmp_path / "data" / backend).is_dir()
    assert not (tmp_path / "data" / "lancedb").exists()
    assert pipe.stats()["documents"] == 5 and pipe.stats()["patients"] == 2
    assert pipe.ingest([corpus_dir], progress=False).unchanged == 5  # doc hashes read back from Qdrant

    ans = pipe.ask("What INR target for warfarin?")
    assert not ans.refused
    assert ans.citations[0].doc_id == "corpus/warfarin" and "target INR of 2 to 3" in ans.answer
    # patient isolation through the whole search path (dense, BM25, fusion)
    for q in ("warfarin INR", "apixaban twice daily", "rivaroxaban"):
        p1 = pipe.search(q, pipe.filters(patient_id="P1"), k=10, rerank=False)
        assert p1.hits and {h.chunk.patient_id for h in p1.hits} == {"P1"}
        p2 = pipe.search(q, pipe.filters(patient_id="P2"), k=10, rerank=False)
        assert p2.hits and {h.chunk.patient_id for h in p2.hits} == {"P2"}
        general = pipe.search(q, pipe.filters(), k=10, rerank=False)
        assert all(h.chunk.patient_id is None for h in general.hits)
    assert "rivaroxaban" not in " ".join(h.chunk.text for h in pipe.search(
        "rivaroxaban", pipe.filters(patient_id="P1"), k=10, rerank=False).hits)
    assert pipe.remove("corpus/gout") >= 1 and "corpus/gout" not in pipe.store.doc_hashes()


def test_migrate_an_older_store_without_the_added_columns(tmp_path: Path) -> None:
    """A LanceDB table written before page_start/page_end/ocr and source_from/ingested_at existed exports
    nulls there; the copy writes the Chunk defaults and its check counts those as equal (a real evaluation
    store, written by an older clinqa, failed the check before)."""
    import lancedb
    import pyarrow as pa

    from clinqa.store.lancedb import ADDED_COLUMNS, TABLE
    from clinqa.store.migrate import migrate_to_qdrant
    from clinqa.store.qdrant_edge import EdgeStore
    from clinqa.store.schema import chunk_schema

    chunks, vecs = corpus()
    gone = set(ADDED_COLUMNS) | {"source_from", "ingested_at"}
    old = pa.schema([f for f in chunk_schema(DIM) if f.name not in gone])
    rows = [{k: v for k, v in c.model_dump(mode="json").items() if k in old.names} | {"vector": v.tolist()}
            for c, v in zip(chunks, vecs, strict=True)]
    lancedb.connect(str(tmp_path / "lancedb")).create_table(TABLE, data=pa.Table.from_pylist(rows, schema=old))
    lance, edge = LanceStore(tmp_path / "lancedb"), EdgeStore(tmp_path / "qdrant-edge")
    assert lance.export(["chunk_id", "source_from", "ocr"], Filters(exclude_levels=())).column("ocr").null_count == 8
    report = migrate_to_qdrant(lance, edge, batch_chunks=5, progress=False)
    assert (report.chunks, report.verified) == (16, 16)
    [c] = edge.get_chunks(["g1#s#1"])
    assert (c.source_from, c.ingested_at, c.ocr, c.page_start) == ("", "", False, None)
    edge.close()
