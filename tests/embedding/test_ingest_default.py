"""The ingest default of issue 51: a new store gets the int8 encoder and late unit vectors
(``embedding.precision: auto``, ``embedding.unit_vectors: late``); a store built at full precision before
(fp32 or bf16) keeps being searched and extended at full precision; ``--preset exact-ingest`` gives the old
default; the int8 model id finds a shipped refusal calibration."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinqa.decision.calibration import find_calibration
from clinqa.documents.model import Block, Document, Section
from clinqa.embedding.sentence_transformers import SentenceTransformerEncoder, cpu_has_bf16
from clinqa.errors import ConfigError
from clinqa.pipeline import Pipeline
from clinqa.settings import EmbeddingSettings, Settings, load_settings

BODY = ("Beta-blockers should not be started on the day of surgery in beta-blocker naive patients. "
        "Patients already taking them should continue them.")


def _doc(doc_id: str, text: str = BODY) -> Document:
    return Document(doc_id=doc_id, path=f"{doc_id}.md", title="Perioperative care",
                    sections=[Section(title="Beta-blockers", blocks=[Block(kind="paragraph", text=text)])])


def _pipe(data_dir: Path, preset: str | None = None) -> Pipeline:
    return Pipeline(load_settings(preset=preset, data_dir=data_dir))


def test_the_defaults_are_int8_and_late_units() -> None:
    s = EmbeddingSettings()
    assert (s.precision, s.unit_vectors) == ("auto", "late")


def test_for_store_follows_the_model_id_in_store_json() -> None:
    from clinqa.embedding import for_store

    auto = EmbeddingSettings()
    assert for_store(auto, None) is auto  # a new store: auto stays auto (int8 where the model runs it)
    assert for_store(auto, "all-MiniLM-L6-v2@15673a4b681a+int8").precision == "int8"
    assert for_store(auto, "all-MiniLM-L6-v2@15673a4b681a").precision == "full"  # built fp32 or bf16
    fp32 = EmbeddingSettings(precision="fp32")
    assert for_store(fp32, "all-MiniLM-L6-v2@15673a4b681a+int8") is fp32  # explicit: kept (and refused on use)


def test_a_new_store_is_built_int8_and_an_old_one_opens_at_its_precision(tmp_path: Path) -> None:
    new = _pipe(tmp_path / "new")
    assert new.encoder.model_id.endswith("+int8")
    report = new.ingest_documents([_doc("periop")], progress=False)
    assert report.units_late == report.units_embedded > 0  # late units: pooled from the chunk's own pass
    assert new.store_meta()["model_id"] == new.encoder.model_id

    # a store built with the old default (exact-ingest: full precision, separate units)
    old = _pipe(tmp_path / "old", preset="exact-ingest")
    full_id = old.encoder.model_id
    assert not full_id.endswith("+int8") and full_id + "+int8" == new.encoder.model_id
    old.ingest_documents([_doc("periop")], progress=False)

    # opened with the defaults: the store's own encoder, so it is searched and extended with no error
    again = _pipe(tmp_path / "old")
    assert again.encoder.model_id == full_id
    r = again.ingest_documents([_doc("statins", "Statins are continued through surgery.")], progress=False)
    assert (r.documents, r.failed) == (1, [])
    hits = again.search("beta-blockers on the day of surgery", k=3)
    assert hits.hits[0].chunk.doc_id == "periop" and {h.chunk.doc_id for h in hits.hits} == {"periop", "statins"}
    assert again.store_meta()["model_id"] == full_id

    # an explicit precision that does not match the store is refused, naming both encoders
    with pytest.raises(ConfigError, match=r"built with encoder .*\+int8.*configured encoder is"):
        _pipe(tmp_path / "new", preset="exact-ingest").ingest_documents([_doc("x")], progress=False)


def test_exact_ingest_is_the_old_default() -> None:
    s = load_settings(preset="exact-ingest").embedding
    assert (s.precision, s.unit_vectors) == ("full", "separate")
    from clinqa.embedding.shipped import minilm_folder

    enc = SentenceTransformerEncoder(minilm_folder(), precision="full")
    assert not enc.int8 and enc.bf16 == cpu_has_bf16()  # bf16 where the CPU has the units, else fp32
    assert not enc.model_id.endswith("+int8")


def test_the_int8_model_has_the_fp32_calibration() -> None:
    from clinqa.embedding import build_encoder

    int8 = build_encoder(EmbeddingSettings()).model_id
    assert int8.endswith("+int8")
    for scope, threshold in (("reference", 0.3764), ("patient", 0.2)):
        cal, where = find_calibration("dense_cosine", int8, None, scope)
        full, _ = find_calibration("dense_cosine", int8.removesuffix("+int8"), None, scope)
        assert cal is not None and full is not None and where.endswith("calibrations.json")
        assert cal.threshold == full.threshold == threshold
        assert (cal.key_term_max_zipf, cal.related_threshold, cal.support_threshold) == (
            full.key_term_max_zipf, full.related_threshold, full.support_threshold)


def test_settings_default_is_documented_with_the_preset() -> None:
    info = Settings.model_fields["embedding"].annotation.model_fields["precision"]  # type: ignore[union-attr]
    assert "exact-ingest" in (info.description or "")
