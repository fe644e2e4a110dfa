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
from clinqa.training.data import TrainQuery, in_holdout, medquad_queries, sibling_key, split_queries
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


def test_sibling_key() -> None:
    assert sibling_key("GARD_0000123_Sec2") == "GARD_0000123"
    assert sibling_key("CancerGov_0000001_1_Sec10") == "CancerGov_0000001_1"
    assert sibling_key("d1") is None and sibling_key("_Sec") is None


def test_mining_adds_sibling_then_random_negatives(tmp_path: Path) -> None:
    from clinqa.evaluation.datasets import load_dataset
    from clinqa.evaluation.retrieval import build_eval_pipeline
    from clinqa.settings import Settings
    from clinqa.training.data import mine_examples

    docs = {  # two MedQuAD-like pages of two answers each, plus two unrelated passages
        "P_1_Sec1": ("Glaucoma", "Glaucoma symptoms include loss of side vision and eye pain."),
        "P_1_Sec2": ("Glaucoma", "Glaucoma is treated with eye drops, laser therapy or surgery."),
        "P_2_Sec1": ("Gout", "Gout causes sudden painful swelling of the big toe joint."),
        "P_2_Sec2": ("Gout", "Gout is treated with colchicine and allopurinol."),
        "x1": ("Asthma", "Inhaled corticosteroids control persistent asthma."),
        "x2": ("Sepsis", "Give 30 mL/kg of crystalloid within three hours in sepsis."),
    }
    d = tmp_path / "beir"
    (d / "qrels").mkdir(parents=True)
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n"
                                            for k, (t, x) in docs.items()))
    (d / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "What are the symptoms of glaucoma?"}) + "\n")
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tP_1_Sec1\t1\n")
    pipe, _, _ = build_eval_pipeline(load_dataset(d), Settings(data_dir=tmp_path / "data"), None, 0, progress=False)
    q = TrainQuery("q1", "What are the symptoms of glaucoma?", {"P_1_Sec1"})
    text = {k: f"{t}\n\n{x}" for k, (t, x) in docs.items()}  # a passage is indexed under its title
    (ex,) = mine_examples(pipe, [q], n_negatives=1, progress=False, n_siblings=1, n_random=1, seed=7)
    assert ex.positive == text["P_1_Sec1"]
    assert len(ex.negatives) == 3 and len(set(ex.negatives)) == 3
    assert text["P_1_Sec1"] not in ex.negatives
    assert ex.negatives[1] == text["P_1_Sec2"]  # the page's only other answer
    # the random one is from another page, never the same one
    assert ex.negatives[2] in {t for k, t in text.items() if not k.startswith("P_1")}
    again = mine_examples(pipe, [q], n_negatives=1, progress=False, n_siblings=1, n_random=1, seed=7)
    assert again[0].negatives == ex.negatives  # seeded
    (none,) = mine_examples(pipe, [q], n_negatives=1, progress=False)
    assert none.negatives == ex.negatives[:1]


def test_title_qualifiers_are_stripped_from_headers_only() -> None:
    from clinqa.training.data import without_title_qualifier as strip

    assert strip("Gout (treatment)\n\nNSAIDs (oral) help.") == "Gout\n\nNSAIDs (oral) help."
    assert strip("Gout\n\nNSAIDs (oral) help.") == "Gout\n\nNSAIDs (oral) help."
    assert strip("NSAIDs (oral) help.") == "NSAIDs (oral) help."  # no header: unchanged
    assert strip("Noonan syndrome (a (b))\n\nx") == "Noonan syndrome (a (b))\n\nx"  # nested: left alone
