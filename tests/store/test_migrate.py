"""``clinqa migrate --to qdrant`` (a hand-made LanceDB store copied into Qdrant local mode gives the
same search results) and one Pipeline run end to end with ``store.backend: qdrant``."""

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


def test_migrate_copies_everything_and_searches_agree(data_dir: Path) -> None:
    r = CliRunner().invoke(app, ["migrate", "--to", "qdrant", "--data-dir", str(data_dir), "-q", "--batch-size", "3"])
    assert r.exit_code == 0, r.output
    assert "migrated 16 chunks of 8 documents" in r.output and "counts match" in r.output
    assert "store:\n  backend: qdrant" in r.output
    lance, qd = LanceStore(data_dir / "lancedb"), QdrantStore(data_dir / "qdrant")
    assert qd.count() == lance.count() == 16
    assert qd.documents() == lance.documents()
    assert qd.doc_hashes() == lance.doc_hashes()
    assert qd.level_counts() == lance.level_counts() == {"document": 1, "section": 15}
    all_ids = [c.chunk_id for c in corpus()[0]]
    assert qd.get_chunks(all_ids) == lance.get_chunks(all_ids)  # every field, patients included
    assert [(c.page_start, c.page_end, c.ocr) for c in qd.get_chunks(["g1#s#0", "g1#s#1", "g2#s#0"])] == [
        (1, 2, False), (2, 3, True), (None, None, False)]  # pages and the OCR flag are kept
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


def test_migrate_refuses_to_overwrite_and_bad_targets(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    runner = CliRunner()
    args = ["migrate", "--to", "qdrant", "--data-dir", str(data_dir), "-q"]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already holds 16 chunks" in again.output
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
    assert QdrantStore(data_dir / "qdrant").count() == 16
    bad = runner.invoke(app, ["migrate", "--to", "milvus", "--data-dir", str(data_dir)])
    assert bad.exit_code == 2 and "only target is 'qdrant'" in bad.output
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


def test_pipeline_end_to_end_on_qdrant(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name, text in GUIDES.items():
        (corpus_dir / f"{name}.md").write_text(text)
    (corpus_dir / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    settings = Settings(data_dir=tmp_path / "data", store=StoreSettings(backend="qdrant"))
    pipe = Pipeline(settings)
    report = pipe.ingest([corpus_dir], progress=False)
    assert report.failed == [] and report.documents == 5
    assert isinstance(pipe.store, QdrantStore) and (tmp_path / "data" / "qdrant").is_dir()
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
