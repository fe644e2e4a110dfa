"""The answer-model pairs (issue 39): rewrites keep the question's meaning, swaps change it, forbidden sets
are refused, and the sources are read as their formats say."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from clinqa.errors import ConfigError
from clinqa.training.pairs import (
    Neighbours,
    Pair,
    covidqa_items,
    entity_swap,
    guideline_items,
    line_units,
    pairs_for,
    rewrite,
    slot_swap,
    training_rows,
)


def test_slot_swap_changes_a_value_the_passage_lacks() -> None:
    rng = random.Random(0)
    passage = "non-severe community-acquired pneumonia in adults: amoxicillin 1 g"
    seen = {slot_swap("non-severe CAP in adults: which antibiotic?", passage, rng) for _ in range(40)}
    words = {w for _, w in seen}
    assert "severe" in words or "mild" in words  # the severity changed to one the passage does not name
    assert "pregnancy" in words  # a population the passage never names, added
    assert "adults" not in words and "non-severe" not in words


def test_slot_swap_never_puts_in_what_the_passage_has() -> None:
    rng = random.Random(1)
    passage = "in pregnancy, children, adults, infants, adolescents, on dialysis, breastfeeding, neonate, elderly"
    assert slot_swap("dose in adults", passage, rng) is None


def test_entity_swap_uses_a_neighbour_not_a_spelling_variant() -> None:
    vocab = Counter({"apixaban": 3, "apixabans": 3, "rivaroxaban": 3, "edoxaban": 3})
    vecs = {"apixaban": [1.0, 0.0], "apixabans": [1.0, 0.01], "rivaroxaban": [0.9, 0.3], "edoxaban": [0.8, 0.5]}

    def encode(ws: list[str]) -> np.ndarray:
        m = np.asarray([vecs[w] for w in ws], dtype=np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    nb = Neighbours(vocab, encode, cased={"rivaroxaban": "Rivaroxaban"})
    assert nb.near("apixaban")[0] == "Rivaroxaban"  # "apixabans" shares the first five letters: left out
    q, w = entity_swap("apixaban dose in AF", "apixaban 5 mg twice daily", nb, random.Random(0))
    assert w in ("Rivaroxaban", "edoxaban") and w in q and "apixaban" not in q


def test_rewrites_report_what_they_insert() -> None:
    rng = random.Random(3)
    outs = [rewrite("What is the furosemide dose for acute heart failure?", rng) for _ in range(30)]
    assert any("frusemide" in q for q, _ in outs)
    # a later typo may alter an inserted word; nearly every rewrite still shows what it inserted
    assert sum(all(w in q for w in added) for q, added in outs) >= 0.8 * len(outs)


def test_units_split_lines_and_sentences() -> None:
    assert line_units("Dose: 5 mg. Then 10 mg daily.\n- item two") == ["Dose: 5 mg.", "Then 10 mg daily.", "- item two"]


def test_forbidden_sets_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "blind_heldout.jsonl"
    path.write_text("")
    with pytest.raises(ConfigError, match="may not be trained on"):
        guideline_items([path], [])


def test_guideline_gold_is_the_chunk_with_the_fact(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    rows = [{"id": "g1", "question": "qsofa resp rate?", "kind": "threshold", "doc_id": "d1",
             "facts": [["22 breaths per minute"]]},
            {"id": "u1", "question": "centor score?", "kind": "uncovered", "doc_id": None, "facts": [],
             "missing": "centor"}]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    chunks = [("d1", "Altered mentation.\nRespiratory rate ≥ 22 breaths per minute."), ("d2", "22 breaths per minute"),
              ("d1", "Systolic BP ≤ 100 mmHg.")]
    items = guideline_items([path], chunks)
    assert [it.exclude for it in items] == [{0}, set()]
    assert items[0].units == ["Respiratory rate ≥ 22 breaths per minute."]
    pool = {"guidelines": [t for _, t in chunks]}
    rows_out = list(pairs_for(items[1], pool, [2, 0, 1], random.Random(0), None, 3, 1))
    assert {p.label for p in rows_out} == {0.0}  # an uncovered question has only negatives


def test_covidqa_windows_hold_the_answer(tmp_path: Path) -> None:
    ctx = " ".join(f"w{i}" for i in range(200)) + " The answer is here."
    data = {"data": [{"paragraphs": [{"context": ctx, "qas": [
        {"id": 7, "question": "where?", "is_impossible": False,
         "answers": [{"text": "The answer is here.", "answer_start": ctx.index("The answer")}]}]}]}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    items, texts = covidqa_items(path, window=90)
    assert len(texts) == 3 and "The answer is here." in items[0].gold[0] and items[0].exclude == {2}


def test_training_rows_repeat_guidelines_and_cap_sources() -> None:
    ps = [Pair("q", "guidelines", "positive", "a", "b", 1.0), *[Pair("q", "bioasq", "positive", "a", "b", 1.0)] * 10]
    rows = training_rows(ps, repeat_guidelines=3, caps={"bioasq": 4})
    assert len(rows["query"]) == 7


def test_evaluation_gold_is_never_trained_on(tmp_path: Path) -> None:
    from clinqa.training.pairs import evaluation_gold, medquad_items, pubmedqa_items

    (tmp_path / "pubmedqa" / "qrels").mkdir(parents=True)
    (tmp_path / "pubmedqa" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n111\t111\t1\n")
    (tmp_path / "liveqa-medquad" / "qrels").mkdir(parents=True)
    (tmp_path / "liveqa-medquad" / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nTQ1\tGARD_0001_Sec2\t1\n")
    held = evaluation_gold(tmp_path)
    assert held == {"111", "TQ1", "GARD_0001_Sec2"}
    raw = tmp_path / "pqal.json"
    raw.write_text(json.dumps({"111": {"QUESTION": "a?", "CONTEXTS": ["x"]},
                               "222": {"QUESTION": "b?", "CONTEXTS": ["y"]}, "333": {"CONTEXTS": ["z"]}}))
    items, texts = pubmedqa_items(raw, held)
    assert [it.qid for it in items] == ["pubmedqa:222"] and len(texts) == 3
    page = tmp_path / "medquad" / "2_GARD_QA"
    page.mkdir(parents=True)
    (page / "0001.xml").write_text("<Document><QAPairs>" + "".join(
        f"<QAPair><Question>q{k}?</Question><Answer>answer {k}</Answer></QAPair>" for k in (1, 2, 3))
        + "</QAPairs></Document>")
    got = medquad_items(tmp_path / "medquad", 10, 0, held)
    assert sorted(it.qid for it in got) == ["medquad:GARD_0001_Sec1", "medquad:GARD_0001_Sec3"]
    assert all("answer 2" not in n for it in got for _, n in it.negatives)
