"""Answer-correctness evaluation on a hand-made set: the local chat-completions server plays both
the generating model and the judge, with rules simple enough to work out every figure by hand."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from chat_server import ChatServer
from typer.testing import CliRunner

from clinqa.cli import app
from clinqa.evaluation.answers import answer_items, evaluate_answers, judge, read_decision
from clinqa.evaluation.datasets import load_dataset
from clinqa.evaluation.retrieval import build_eval_pipeline
from clinqa.llm import build_llm_backend
from clinqa.settings import Settings
from tiny_data import TINY_DOCS

QUERIES = [  # two closed (PubMedQA style), two open (LiveQA style)
    {"_id": "c1", "text": "Does apixaban prevent stroke in atrial fibrillation?",
     "metadata": {"final_decision": "yes", "long_answer": TINY_DOCS["d1"][1]}},
    {"_id": "c2", "text": "Is metformin contraindicated as first-line therapy in type 2 diabetes?",
     "metadata": {"final_decision": "no", "long_answer": TINY_DOCS["d2"][1]}},
    {"_id": "o1", "text": "sepsis fluids", "metadata": {
        "summary": "How much fluid should be given in sepsis?",
        "reference_answers": [{"aid": "o1A1", "text": TINY_DOCS["d3"][1]}]}},
    {"_id": "o2", "text": "gout", "metadata": {
        "summary": "How is urate lowered in gout?",
        "reference_answers": [{"aid": "o2A1", "text": TINY_DOCS["d5"][1]}]}},
    {"_id": "x1", "text": "no reference here", "metadata": {}},
]
GOLD = {"c1": "d1", "c2": "d2", "o1": "d3", "o2": "d5", "x1": "d8"}


@pytest.fixture(scope="module")
def qa_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("qa-set")
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n"
                                            for k, (t, x) in TINY_DOCS.items()))
    (d / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (d / "qrels").mkdir()
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{g}\t1\n"
                                                                                for q, g in GOLD.items()))
    return d


def long_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 6}


def model(req: dict) -> str:
    """Generator and judge. Judge: CORRECT iff the candidate shares a 6+ letter word with the reference.
    Grounded generator: copies the first sentence of evidence [1] with its citation, led by Yes for
    apixaban and No otherwise when a decision is asked. No context: "No, I cannot say." """
    system, user = req["messages"][0]["content"], req["messages"][-1]["content"]
    if system.startswith("You grade"):
        ref = re.search(r"Reference answer: (.*?)\n\nCandidate answer: (.*?)\n\n", user, re.S)
        assert ref, user
        return "CORRECT" if long_words(ref.group(1)) & long_words(ref.group(2)) else "INCORRECT"
    if "Evidence:" not in user:
        return "No, I cannot say."
    first = re.search(r"^\[1\] .*\n(.*?[.;])", user, re.M).group(1).rstrip(";.")
    lead = ("Yes. " if "apixaban" in user.split("Question:")[-1].lower() else "No. ") if "Yes, No or Maybe" in system \
        else ""
    return f"{lead}{first} [1]."


def test_items_and_decisions(qa_set: Path) -> None:
    items = answer_items(load_dataset(qa_set), seed=0)
    assert sorted((i.qid, i.qtype, i.decision) for i in items) == [
        ("c1", "closed", "yes"), ("c2", "closed", "no"), ("o1", "open", None), ("o2", "open", None)]
    assert {i.qid: i.question for i in items}["o1"] == "How much fluid should be given in sepsis?"
    assert [read_decision(t) for t in ("Yes, it does.", "no.", " Maybe [1]", "Probably", "Nothing")] == [
        "yes", "no", "maybe", None, None]


def test_judge_is_blinded(chat_server: ChatServer) -> None:
    chat_server.push("CORRECT")
    backend = build_llm_backend(Settings().llm.model_copy(update={"backend": "openai", "base_url": chat_server.url}))
    verdict, _ = judge(backend, "Q?", "ref text", "Apixaban works [1][2]. It is safe [3].")
    assert verdict is True
    sent = json.dumps(chat_server.requests[-1])
    assert "[1]" not in sent and "Apixaban works. It is safe." in sent
    assert not re.search(r"generated|extractive|no-context|citation", sent.lower())
    chat_server.push("I think so")
    assert judge(backend, "Q?", "ref", "cand")[0] is None


def test_evaluate_answers_figures(qa_set: Path, chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.responder = model
    s = Settings(data_dir=tmp_path)
    s = s.model_copy(update={"llm": s.llm.model_copy(update={"backend": "openai", "base_url": chat_server.url,
                                                               "model": "gpt-4o-mini"}),
                             "answer": s.answer.model_copy(update={"refusal_threshold": -1.0})})
    ds = load_dataset(qa_set)
    pipe, _, _ = build_eval_pipeline(ds, s, None, 0, progress=False)
    ev = evaluate_answers(ds, pipe, pipe.llm, progress=False)
    summary = ev.summary(n_resamples=200)
    m = summary["modes"]
    # no context: "No, I cannot say." shares no 6+ letter word with any reference -> 0/4 judged correct;
    # decisions: c1 (yes) wrong, c2 (no) right -> 1/2
    assert m["no-context"]["all"]["correct"]["value"] == 0.0
    assert m["no-context"]["closed"]["decision_accuracy"]["value"] == 0.5
    # extractive quotes the gold passage (top-1 for each question) -> 4/4; it has no decision
    assert m["extractive"]["all"]["correct"]["value"] == 1.0
    assert m["extractive"]["closed"]["decision_accuracy"]["n"] == 0
    # generated: copies evidence [1] with its citation (supported, none dropped) and decides Yes for
    # apixaban, No for metformin -> decisions 2/2, judged 4/4
    g = m["generated"]
    assert g["all"]["correct"]["value"] == 1.0 and g["closed"]["decision_accuracy"]["value"] == 1.0
    assert g["all"]["dropped_share"] == 0.0 and g["all"]["sentences"] == 6  # 2 closed x 2 + 2 open x 1
    assert g["all"]["refused"] == 0.0 and g["all"]["fallback_extractive"] == 0.0
    assert g["all"]["cost_usd_per_query"] > 0 and m["extractive"]["all"]["tokens_per_query"] is None
    assert summary["models"] == {"generator": "openai:gpt-4o-mini", "judge": "openai:gpt-4o-mini"}
    assert len(ev.rows) == 12


def test_cli_eval_answers(qa_set: Path, chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.responder = model
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["eval", "answers", str(qa_set), "--llm", "openai", "--llm-url", chat_server.url,
                                 "--modes", "extractive,generated", "--limit", "2", "--output", str(out),
                                 "--data-dir", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "answers.json").read_text())
    assert set(summary["modes"]) == {"extractive", "generated"}
    with (out / "answers.csv").open(newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 2 * 2
    bad = CliRunner().invoke(app, ["eval", "answers", str(qa_set), "--modes", "generated",
                                   "--data-dir", str(tmp_path / "d")])
    assert bad.exit_code == 2 and "need a language model" in bad.output
