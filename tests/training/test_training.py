"""`clinqa train reranker|encoder` on a hand-made slice: the code path, the outputs, resuming."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.errors import ConfigError
from clinqa.rerank import CrossEncoderReranker
from clinqa.training.data import TrainQuery, in_holdout, medquad_queries, split_queries
from clinqa.training.run import parse_duration


def test_reranker_training_writes_model_card_and_heldout_ids(tiny_reranker: Path) -> None:
    meta = tiny_reranker / "clinqa-training"
    info = json.loads((meta / "training.json").read_text())
    assert info["kind"] == "reranker" and info["steps"] == 2
    held = next(meta.glob("heldout-tiny-beir*.txt")).read_text().split()
    expected = sorted(q for q in ["q1", "q2", "q3", "q4", "q5", "q6"] if in_holdout(q, 0.34, 0))
    assert sorted(held) == expected
    # every training question got a gold passage and 3 hard negatives (8-passage corpus)
    src = next(iter(info["data"]["sources"].values()))
    assert src["train_questions"] == 6 - len(expected)
    assert info["data"]["pairs"] == 4 * src["train_questions"]
    assert (meta / "CARD.md").read_text().startswith("# clinqa reranker: tiny")
    assert (meta / "loss.png").stat().st_size > 0
    r = CrossEncoderReranker(tiny_reranker)
    s = r.score("apixaban dose", ["Apixaban 5 mg twice daily.", "Gout and urate."])
    assert s.shape == (2,) and np.all((s > 0) & (s < 1))


def test_encoder_training_and_resume(tmp_path: Path, tiny_beir: Path) -> None:
    args = ["train", "encoder", "--pairs", str(tiny_beir), "--holdout", "0", "--batch-size", "2", "--max-tokens",
            "64", "--name", "enc", "--data-dir", str(tmp_path)]
    r = CliRunner().invoke(app, [*args, "--max-steps", "1"])
    assert r.exit_code == 0, r.output
    out = tmp_path / "models" / "enc"
    assert (out / "modules.json").exists()
    # trained at 64 tokens, saved with the base model's limit (chunking must not change with it);
    # sentence-transformers 6 keeps the limit in tokenizer_config.json, which the encoder reads
    from clinqa.embedding import build_encoder
    from clinqa.settings import EmbeddingSettings

    assert build_encoder(EmbeddingSettings(model=str(out))).max_tokens == 256
    assert json.loads((out / "clinqa-training" / "training.json").read_text())["steps"] == 1
    # a second run with a higher step cap resumes from the checkpoint instead of starting over
    r = CliRunner().invoke(app, [*args, "--max-steps", "2"])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "clinqa-training" / "training.json").read_text())["steps"] == 2
    assert "trained 2 steps" in r.output


def test_split_is_deterministic_and_excludes_eval_gold() -> None:
    qs = [TrainQuery(f"q{i}", "x", {f"d{i}"}) for i in range(200)]
    train, held = split_queries(qs, 0.25, seed=3, exclude_docs={"d0", "d1"})
    assert {q.qid for q in train} | {q.qid for q in held} == {f"q{i}" for i in range(2, 200)}
    assert not {q.qid for q in train} & {q.qid for q in held}
    assert 30 <= len(held) <= 70  # ~50 of 198 by a hash
    assert [q.qid for q in split_queries(qs, 0.25, seed=3)[1]] == [q.qid for q in split_queries(qs, 0.25, 3)[1]]


def test_medquad_pairs_follow_the_corpus_id_rule(shared_dir: Path, tmp_path: Path) -> None:
    raw = shared_dir / "raw" / "medquad"
    one = tmp_path / "1_CancerGov_QA"
    one.mkdir()
    src = sorted((raw / "1_CancerGov_QA").glob("*.xml"))[0]
    (one / src.name).write_bytes(src.read_bytes())
    qs = medquad_queries(tmp_path)
    corpus = {json.loads(line)["_id"]: json.loads(line) for line in
              (shared_dir / "liveqa-medquad" / "corpus.jsonl").open() if src.stem in line}
    assert qs
    for q in qs:
        (gold,) = q.positives
        assert gold.startswith(f"CancerGov_{src.stem}_Sec")
        assert corpus[gold]["metadata"]["question"].rstrip(" ?") == q.text.rstrip(" ?")


def test_bad_training_input_errors() -> None:
    with pytest.raises(ConfigError, match="no MedQuAD subset folders"):
        medquad_queries(Path("/nonexistent"))
    assert parse_duration("20m") == 1200.0 and parse_duration("1.5h") == 5400.0 and parse_duration("90") == 90.0
    with pytest.raises(ConfigError, match="time budget"):
        parse_duration("soon")
