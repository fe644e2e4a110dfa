"""The answer model (clinqa.decision.answer_model): its place in
``Pipeline.ask`` (reference questions only, never one patient's notes) and its errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from clinqa.corpora import guidelines_path
from clinqa.decision import answer_model as d_answer_model
from clinqa.decision.answer_model import AnswerModel, model_folder
from clinqa.errors import ConfigError
from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

NOTE = {"patient_id": "A", "note_id": "a1", "date": "2023-03-01", "note_type": "progress",
        "text": "ASSESSMENT:\nAtrial fibrillation.\n\nPLAN:\nStarted apixaban 5 mg twice daily."}
QUESTION = "Should a beta-blocker be started on the day of surgery?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One guideline (perioperative cardiac care) and one patient's note, ingested once."""
    d = tmp_path_factory.mktemp("am")
    src, g = guidelines_path(), d / "g"
    shutil.copytree(src / "content" / "acc_aha_perioperative_2014", g / "content" / "acc_aha_perioperative_2014")
    shutil.copy(src / "registry.json", g / "registry.json")
    (d / "notes.jsonl").write_text(json.dumps(NOTE) + "\n")
    s = Settings(data_dir=d / "data")
    p = Pipeline(s.model_copy(update={"answer": s.answer.model_copy(update={"precompute_units": False})}))
    assert p.ingest([g, d / "notes.jsonl"], progress=False).failed == []
    return d / "data"


def _pipe(data_dir: Path, **answer: object) -> Pipeline:
    s = Settings(data_dir=data_dir)
    return Pipeline(s.model_copy(update={"answer": s.answer.model_copy(update={"precompute_units": False,
                                                                                **answer})}))


def test_the_answer_model_refuses_reference_questions_below_its_threshold(data_dir: Path, tiny_reranker: Path) -> None:
    off = _pipe(data_dir).ask(QUESTION)
    assert not off.refused and "answer_model" not in off.timings_ms
    strict = _pipe(data_dir, answer_model=str(tiny_reranker), answer_model_threshold=1.0)
    ans = strict.ask(QUESTION)
    assert ans.refused and ans.reason == d_answer_model.NOT_ANSWERED
    assert ans.gate is not None and ans.gate.kind.endswith("+answer_model") and "answer_model" in ans.timings_ms
    lenient = _pipe(data_dir, answer_model=str(tiny_reranker), answer_model_threshold=0.0).ask(QUESTION)
    assert lenient.answer == off.answer
    assert [c.chunk_id for c in lenient.citations] == [c.chunk_id for c in off.citations]
    # one patient's notes: the model (trained on reference passages) is not asked
    fa = strict.filters(patient_id="A")
    scoped = strict.ask("What anticoagulant was started?", fa)
    assert "answer_model" not in scoped.timings_ms
    assert scoped.answer == _pipe(data_dir).ask("What anticoagulant was started?", fa).answer
    # the cache key changes with the model's threshold
    assert strict.calibration_key() != _pipe(data_dir, answer_model=str(tiny_reranker),
                                             answer_model_threshold=0.5).calibration_key()
    assert strict.calibration_key() != _pipe(data_dir).calibration_key()


def test_unknown_answer_models_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a local folder"):
        model_folder("answerability-v0")
    with pytest.raises(ConfigError, match="no tokenizer"):
        AnswerModel(str(tmp_path))
