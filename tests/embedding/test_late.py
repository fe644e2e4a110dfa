"""Late chunking of answer units (clinqa.embedding.late, OnnxEncoder.encode_with_spans, ingest.embed_late) and
the int8 encoder (embedding.precision int8)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clinqa.documents.model import Block, Document, Section
from clinqa.embedding import EmbeddingCache, build_encoder, text_hash
from clinqa.embedding.late import late_key, locate
from clinqa.embedding.onnx import pool_spans
from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder
from clinqa.settings import EmbeddingSettings, Settings

BODY = ("Beta-blockers should not be started on the day of surgery. "
        "Patients already taking them should continue. Statins are continued too.")


@pytest.fixture(scope="module")
def fp32() -> SentenceTransformerEncoder:
    enc = build_encoder(EmbeddingSettings(precision="fp32"))
    assert isinstance(enc, SentenceTransformerEncoder)
    return enc


def test_locate_by_words_in_reading_order() -> None:
    text = "Head\n\n- **Dose:** 5 mg daily.\n- Dose: 5 mg daily.\n| A | B |"
    spans = locate(text, ["Dose: 5 mg daily.", "Dose: 5 mg daily.", "a b", "missing words", "..."], start=6)
    # markup between words is ignored; the repeated item maps to its own (second) occurrence
    assert spans[0] == (text.index("Dose"), text.index("daily") + 5)
    assert spans[1] == (text.index("Dose", spans[0][1]), text.index("daily", spans[0][1]) + 5)
    assert spans[2] == (text.index("A |"), text.index("B |") + 1)
    assert spans[3:] == [None, None]
    assert locate("Head one", ["Head"], start=5) == [None]  # before start: the header is not searched
    assert late_key("m@abc") == "m@abc#late"


def test_pool_spans_is_the_mean_of_the_tokens_inside() -> None:
    tokens = np.array([[9.0, 9.0], [1.0, 0.0], [3.0, 4.0], [0.0, 2.0], [9.0, 9.0]], dtype=np.float32)
    offsets = [(0, 0), (0, 4), (5, 9), (10, 14), (0, 0)]  # [CLS] w0 w1 w2 [SEP]
    mask = np.array([1, 1, 1, 1, 1])
    out = pool_spans(tokens, offsets, mask, [(5, 14), (0, 4), (20, 30)])
    np.testing.assert_allclose(out[0], np.array([3.0, 6.0]) / np.hypot(3.0, 6.0), atol=1e-6)  # mean of w1, w2
    np.testing.assert_allclose(out[1], [1.0, 0.0], atol=1e-6)
    assert not out[2].any()  # past the truncation: a zero row, never the special tokens


def test_encode_with_spans_is_one_pass_of_the_same_vectors(fp32: SentenceTransformerEncoder) -> None:
    texts = ["Perioperative care\n\n" + BODY, "How do I change a car tyre?"]
    spans = [[(s, e) for s, e in locate(texts[0], [BODY.split(". ")[0], "Statins are continued too."], 20)], []]
    vecs, units = fp32.encode_with_spans(texts, spans)  # type: ignore[arg-type]
    np.testing.assert_allclose(vecs, fp32.encode_passages(texts), atol=1e-6)  # the chunk vector is unchanged
    assert units[0] is not None and units[0].shape == (2, 384) and units[1] is not None and units[1].shape == (0, 384)
    np.testing.assert_allclose(np.linalg.norm(units[0], axis=1), 1.0, atol=1e-5)
    # the contextual mean of a sentence's tokens is near that sentence encoded alone, not equal to it
    alone = fp32.encode_passages([BODY.split(". ")[0], "Statins are continued too."])
    cos = np.sum(units[0] * alone, axis=1)
    assert (cos > 0.6).all() and (cos < 0.999).all()


def _doc() -> Document:
    blocks = [Block(kind="paragraph", text=BODY),
              Block(kind="table", text="| Drug | Dose |\n|---|---|\n| Metoprolol | 25 mg twice daily |")]
    return Document(doc_id="periop", path="periop.md", title="Perioperative care",
                    sections=[Section(title="Beta-blockers", blocks=blocks)])


def test_late_ingest_pools_units_and_the_answer_reads_them(tmp_path: Path) -> None:
    """embedding.unit_vectors late: one forward pass per chunk; its units' vectors are stored under the late
    key, the chunk vectors are exactly a plain ingest's, and the pipeline's unit encoder reads the late ones."""
    from clinqa.ingest import chunk_units
    from clinqa.pipeline import Pipeline

    def pipe(name: str, late: bool) -> Pipeline:
        s = Settings(data_dir=tmp_path / name)
        emb = s.embedding.model_copy(update={"precision": "fp32", "unit_vectors": "late" if late else "separate"})
        return Pipeline(s.model_copy(update={"embedding": emb}))

    late, plain = pipe("late", True), pipe("plain", False)
    r_late = late.ingest_documents([_doc()], progress=False)
    r_plain = plain.ingest_documents([_doc()], progress=False)
    assert r_late.chunks == r_plain.chunks and r_late.embedded == r_plain.embedded
    from clinqa.chunking import build_chunker
    from clinqa.retrieval.filters import Filters

    enc = late.encoder
    chunks = build_chunker(late.settings.chunking, enc.token_counter, enc.max_tokens).chunk(_doc())
    units = [(t, s) for c in chunks for t, s in chunk_units(c)]
    assert units and all(s is not None for _, s in units)  # the table row is placed by its cells
    assert any(t.endswith("Metoprolol; Dose: 25 mg twice daily") for t, _ in units)
    assert r_late.units_late == r_late.units_embedded == len({t for t, _ in units})
    assert r_plain.units_late == 0 and r_plain.units_embedded == r_late.units_embedded
    cache = EmbeddingCache(late.cache_path)
    model = late.encoder.model_id
    pooled = cache.get(late_key(model), [text_hash(t) for t, _ in units])
    assert len(pooled) == len({t for t, _ in units})
    texts = [t for t, _ in units]
    np.testing.assert_allclose(late.unit_encoder.encode_passages(texts),
                               np.stack([pooled[text_hash(t)] for t in texts]))
    alone = plain.unit_encoder.encode_passages(texts)
    assert np.abs(late.unit_encoder.encode_passages(texts) - alone).max() > 1e-3  # really the pooled ones
    # chunk vectors: the same as a plain ingest's
    def vectors(p: Pipeline) -> dict[str, np.ndarray]:
        t = p.store.export(["chunk_id", "vector"], Filters()).to_pylist()
        return {r["chunk_id"]: np.asarray(r["vector"]) for r in t}

    a, b = vectors(late), vectors(plain)
    assert a.keys() == b.keys() and len(a) == sum(c.hierarchy_level != "document" for c in chunks)
    assert max(float(np.abs(a[k] - b[k]).max()) for k in a) < 1e-6
    # a re-run with everything cached runs nothing
    again = pipe("late2", True)
    again.cache_path = late.cache_path
    r = again.ingest_documents([_doc()], progress=False)
    assert (r.embedded, r.units_embedded) == (0, 0)


def test_int8_precision_is_its_own_model(fp32: SentenceTransformerEncoder) -> None:
    int8 = build_encoder(EmbeddingSettings(precision="int8"))
    assert isinstance(int8, SentenceTransformerEncoder) and int8.onnx_only
    assert int8.model_id == fp32.model_id + "+int8"  # never shares a cache key or a store with fp32
    texts = ["Beta-blockers should not be started on the day of surgery.", BODY, "How do I change a car tyre?"]
    a, b = int8.encode_passages(texts), fp32.encode_passages(texts)
    cos = np.sum(a * b, axis=1)
    assert (cos > 0.97).all() and np.abs(a - b).max() > 1e-3
    onnx_files = list(Path(__import__("clinqa.paths", fromlist=["cache_dir"]).cache_dir(), "onnx").glob("*+int8.onnx"))
    assert onnx_files and onnx_files[0].stat().st_size < 30e6  # int8 weights: ~22 MB (fp32: ~87 MB)


def test_usable_cores_follow_affinity_and_the_cgroup_quota(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from clinqa.embedding import onnx

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    quota = tmp_path / "cpu.max"
    monkeypatch.setattr(onnx, "CPU_MAX", quota)
    assert onnx.usable_cores() == 4  # no cgroup file: the affinity
    quota.write_text("max 100000\n")
    assert onnx.usable_cores() == 4
    quota.write_text("200000 100000\n")  # docker --cpus 2
    assert onnx.usable_cores() == 2
    quota.write_text("50000 100000\n")  # half a core: still one thread
    assert onnx.usable_cores() == 1
