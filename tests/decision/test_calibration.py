"""Calibrated thresholds are tied to (signal, model): lookup order, saving, the shipped table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinqa.decision.calibration import SHIPPED, Calibration, find_calibration, resolve_threshold, save_calibration
from clinqa.embedding import build_encoder
from clinqa.errors import ConfigError
from clinqa.settings import EmbeddingSettings


def test_lookup_order_config_then_user_file_then_shipped_then_fallback(tmp_path: Path) -> None:
    shipped = json.loads(SHIPPED.read_text())["calibrations"][0]
    mid = shipped["model_id"]
    assert resolve_threshold("dense_cosine", mid, 0.55, tmp_path) == (0.55, "config", True)
    assert resolve_threshold("dense_cosine", mid, None, tmp_path) == (shipped["threshold"], str(SHIPPED), True)
    path = save_calibration(tmp_path, Calibration("dense_cosine", mid, 0.42))
    assert resolve_threshold("dense_cosine", mid, None, tmp_path) == (0.42, str(path), True)
    # another model (or retrained weights: another fingerprint) never inherits the threshold
    assert resolve_threshold("dense_cosine", "all-MiniLM-L6-v2@000000000000", None, tmp_path) == (
        0.40, "fallback", False)
    assert resolve_threshold("rerank", mid, None, tmp_path) == (0.50, "fallback", False)


def test_save_replaces_same_signal_and_model_only(tmp_path: Path) -> None:
    save_calibration(tmp_path, Calibration("dense_cosine", "m@1", 0.3))
    save_calibration(tmp_path, Calibration("rerank", "r@1", 0.7))
    save_calibration(tmp_path, Calibration("dense_cosine", "m@1", 0.35))
    cals = json.loads((tmp_path / "calibration.json").read_text())["calibrations"]
    assert sorted((c["signal"], c["model_id"], c["threshold"]) for c in cals) == [
        ("dense_cosine", "m@1", 0.35), ("rerank", "r@1", 0.7)]
    assert find_calibration("rerank", "r@1", tmp_path)[0].threshold == 0.7


def test_broken_calibration_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "calibration.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"calibration\.json"):
        resolve_threshold("dense_cosine", "m@1", None, tmp_path)


def test_shipped_calibration_matches_the_shipped_model() -> None:
    """If the shipped weights change, their fingerprint changes and this fails: recalibrate."""
    enc = build_encoder(EmbeddingSettings())
    cal, where = find_calibration("dense_cosine", enc.model_id, None)
    assert cal is not None and where == str(SHIPPED)
    assert 0.3 < cal.threshold < 0.5


def test_a_model_without_calibration_warns_on_every_answer(tmp_path: Path) -> None:
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings

    (tmp_path / "doc.md").write_text("# Gout\n\nAllopurinol lowers serum urate in gout; titrate to below 6 mg/dL.\n")
    p = Pipeline(Settings(data_dir=tmp_path / "d", embedding=EmbeddingSettings(model="all-MiniLM-L6-v2-int8")))
    assert p.ingest([tmp_path / "doc.md"], progress=False).failed == []
    ans = p.ask("How is urate lowered in gout?")
    assert ans.gate.calibration == f"uncalibrated fallback for {p.encoder.model_id}"
    assert ans.gate.threshold == 0.40
    assert f"not calibrated for this model ({p.encoder.model_id})" in " ".join(ans.warnings)
    # once calibrated for this model (eval refusal --save), the warning goes
    save_calibration(p.data_dir, Calibration("dense_cosine", p.encoder.model_id, 0.2))
    ans = p.ask("How is urate lowered in gout?")
    assert ans.gate.threshold == 0.2 and not any("calibrated" in w for w in ans.warnings)


def test_scopes_are_calibrated_apart(tmp_path: Path) -> None:
    save_calibration(tmp_path, Calibration("dense_cosine", "m@1", 0.38))
    save_calibration(tmp_path, Calibration("dense_cosine", "m@1", 0.12, scope="patient", related_threshold=0.05))
    assert resolve_threshold("dense_cosine", "m@1", None, tmp_path)[0] == 0.38
    assert resolve_threshold("dense_cosine", "m@1", None, tmp_path, "patient")[0] == 0.12
    assert find_calibration("dense_cosine", "m@1", tmp_path, "patient")[0].related_threshold == 0.05


def test_presets_load_by_name_and_a_real_file_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clinqa.settings import load_settings

    assert load_settings(Path("consumer-questions")).answer.key_terms == "warn"
    assert load_settings(None).answer.key_terms == "refuse"
    assert load_settings(Path("clinician-shorthand")).answer.decisive_words == "model"
    assert load_settings(None).answer.decisive_words == "rules"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "consumer-questions").write_text("{}")  # a file of that name is read as a config (JSON)
    assert load_settings(Path("consumer-questions")).answer.key_terms == "refuse"
    with pytest.raises(ConfigError, match="no-such-preset"):
        load_settings(Path("no-such-preset"))


def test_a_calibration_file_is_parsed_once_until_it_changes(tmp_path: Path) -> None:
    save_calibration(tmp_path, Calibration("dense_cosine", "m1", 0.41))
    a, _ = find_calibration("dense_cosine", "m1", tmp_path)
    b, _ = find_calibration("dense_cosine", "m1", tmp_path)
    assert a is b and a is not None and a.threshold == 0.41  # the second lookup reads no file
    save_calibration(tmp_path, Calibration("dense_cosine", "m1", 0.52))  # a rewrite is seen at once
    c, _ = find_calibration("dense_cosine", "m1", tmp_path)
    assert c is not None and c.threshold == 0.52
    (tmp_path / "calibration.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"calibration\.json"):
        find_calibration("dense_cosine", "m1", tmp_path)


def test_resolve_takes_each_value_from_settings_then_calibration_then_the_one_fallback_table(tmp_path: Path) -> None:
    from clinqa.decision.calibration import FALLBACK, resolve
    from clinqa.settings import AnswerSettings

    shipped = json.loads(SHIPPED.read_text())["calibrations"][0]
    mid = shipped["model_id"]
    r = resolve("dense_cosine", mid, AnswerSettings(), tmp_path)
    assert (r.threshold, r.source, r.calibrated) == (0.3764, str(SHIPPED), True)
    assert (r.key_term_max_zipf, r.related_threshold, r.support_threshold) == (4.0, 0.3085, 0.33)
    # the patient scope: its own calibration (no support threshold calibrated there)
    p = resolve("dense_cosine", mid, AnswerSettings(), tmp_path, "patient")
    assert (p.threshold, p.key_term_max_zipf, p.related_threshold, p.support_threshold) == (0.2, 4.5, 0.0, None)
    # configured values win; a configured threshold turns the calibrated support rule off
    c = resolve("dense_cosine", mid, AnswerSettings(refusal_threshold=0.5, related_threshold=0.1), tmp_path)
    assert (c.threshold, c.source, c.related_threshold, c.support_threshold, c.key_term_max_zipf) == (
        0.5, "config", 0.1, None, 4.0)
    assert resolve("dense_cosine", mid, AnswerSettings(refusal_threshold=0.5, support_threshold=0.2),
                   tmp_path).support_threshold == 0.2
    # no calibration: every value from FALLBACK
    f = resolve("rerank", mid, AnswerSettings(), tmp_path)
    assert (f.threshold, f.source, f.calibrated, f.key_term_max_zipf, f.related_threshold, f.support_threshold) == (
        0.50, "fallback", False, 4.0, 0.25, None)
    assert FALLBACK["threshold"] == {"dense_cosine": 0.40, "rerank": 0.50, "answer_model": 0.50}
    assert resolve_threshold("answer_model", "m@1", None, tmp_path) == (0.50, "fallback", False)
    assert f.gate().calibration == f"uncalibrated fallback for {mid}" and r.gate().threshold == 0.3764


def test_one_ask_reads_the_calibration_once_per_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: ``ask`` looked the calibration up three times (gate, key-term parameters, support)."""
    import clinqa.decision.calibration as cal
    from clinqa.pipeline import Pipeline
    from clinqa.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Sepsis\n\n## Fluids\n\nGive 30 mL/kg of IV crystalloid within 3 hours.\n")
    pipe = Pipeline(Settings(data_dir=tmp_path / "data"))
    pipe.ingest([docs], progress=False)
    calls: list[str] = []
    real = cal.find_calibration

    def counting(*args: object, **kw: object) -> object:
        calls.append(str(args[3] if len(args) > 3 else kw.get("scope", "reference")))
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cal, "find_calibration", counting)
    pipe.ask("How much crystalloid in sepsis?", generate=False)
    assert calls == ["reference"]
