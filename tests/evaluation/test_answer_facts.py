"""The fact benchmark scorer (clinqa.evaluation.facts) on hand-made answers, every expected value
worked out by hand; and `clinqa eval answers QUESTIONS.jsonl` end to end on a two-guideline store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinqa.answer.types import Answer, Citation
from clinqa.cli import app
from clinqa.corpora import guidelines_path
from clinqa.errors import ConfigError
from clinqa.evaluation.datasets import Dataset, Query
from clinqa.evaluation.facts import (
    ExactQuestion,
    FactQuestion,
    compare_to_baseline,
    contains,
    exact_questions,
    load_questions,
    restrict,
    score_exact,
    score_question,
    summarize,
    summarize_exact,
)


def cite(n: int, doc_id: str, quote: str) -> Citation:
    return Citation(n=n, chunk_id=f"{doc_id}#s#0", doc_id=doc_id, title="T", section="S", year=2016, source="",
                    url="", score=0.5, quote=quote)


def answer(text: str, citations: list[Citation], refused: bool = False, ms: float = 100.0) -> Answer:
    return Answer(question="q", refused=refused, answer=text, filters={}, citations=citations,
                  timings_ms={"total": ms})


QSOFA = FactQuestion("g1", "What are the qSOFA criteria?", "criteria", "sepsis3_2016",
                     [["22 breaths per minute"], ["GCS) < 15", "Altered Mentation"], ["100 mmHg"]])


def test_contains_is_case_and_whitespace_insensitive_but_literal() -> None:
    assert contains("Respiratory  Rate:\n ≥ 22 BREATHS per minute", ["≥ 22 breaths"])
    # clinqa's Unicode normaliser on both sides (chunk text is stored normalised): ">=" is "≥", "–" is "-"
    assert contains("respiratory rate >= 22 breaths", ["≥ 22 breaths"])
    assert contains("Uncomplicated CAP: 5-7 days", ["5\u20137 days"])
    assert not contains("respiratory rate > 22 breaths", ["≥ 22 breaths"])
    assert contains("x", ["nope", "X"])
    assert not contains("anything", [])


def test_score_question_answer_text_and_quotes_differ() -> None:
    text = "qSOFA Criteria: Respiratory Rate: ≥ 22 breaths per minute [1]. Altered Mentation [1]."
    quote = "Respiratory Rate: ≥ 22 breaths per minute Altered Mentation: GCS < 15 Systolic Blood Pressure: ≤ 100 mmHg"
    row = score_question(QSOFA, answer(text, [cite(1, "sepsis3_2016", quote)]))
    assert row["facts_found"] == ["22 breaths per minute", "GCS) < 15"]  # named by the first alternative
    assert row["facts_missing"] == ["100 mmHg"]
    assert row["facts_found_quotes"] == ["22 breaths per minute", "GCS) < 15", "100 mmHg"]
    assert (row["all_facts"], row["any_fact"], row["all_facts_quotes"]) == (False, True, True)
    assert row["fact_share"] == pytest.approx(2 / 3)
    assert row["wrong_passage"] is False and row["first_citation_wrong"] is False
    # whitespace-separated tokens once the two markers are removed: "qSOFA Criteria: Respiratory Rate: ≥ 22
    # breaths per minute. Altered Mentation." = 11
    assert row["words"] == 11
    assert row["cited_doc_ids"] == ["sepsis3_2016"]


def test_score_question_wrong_passage_and_refusal() -> None:
    other = score_question(QSOFA, answer("Score 2 [1]. 100 mmHg [2].", [cite(1, "rcp_news2_2017", "Score 2"),
                                                                        cite(2, "rcp_news2_2017", "100 mmHg")]))
    assert other["wrong_passage"] is True and other["cited_doc_ids"] == ["rcp_news2_2017"]
    second = score_question(QSOFA, answer("a [1]. b [2].", [cite(1, "ssc_sepsis_2021", "a"),
                                                             cite(2, "sepsis3_2016", "b")]))
    assert (second["wrong_passage"], second["first_citation_wrong"]) == (False, True)
    assert (other["all_facts"], other["any_fact"], other["fact_share"]) == (False, True, pytest.approx(1 / 3))
    ctx = score_question(QSOFA, answer("x [1].", [cite(1, "sepsis3_2016", "x")]),
                         context="Respiratory Rate: ≥ 22 breaths per minute\nAltered Mentation\nSBP ≤ 100 mmHg")
    assert (ctx["all_facts"], ctx["all_facts_in_context"]) == (False, True)
    assert "all_facts_in_context" not in other
    refused = score_question(QSOFA, answer("The documents do not cover 22 breaths per minute.", [], refused=True))
    assert (refused["all_facts"], refused["any_fact"], refused["wrong_passage"], refused["words"]) == (
        False, False, None, 0)


def _row(qid: str, kind: str, doc: str | None, refused: bool, all_facts: bool = False, any_fact: bool = False,
         quotes: bool = False, share: float = 0.0, wrong: bool | None = None, words: int = 0) -> dict:
    r = {"id": qid, "kind": kind, "doc_id": doc, "refused": refused, "words": words, "latency_ms": 10.0}
    if kind != "uncovered":
        r.update(all_facts=all_facts, any_fact=any_fact, all_facts_quotes=quotes, fact_share=share,
                 wrong_passage=None if refused else wrong, first_citation_wrong=None if refused else wrong)
    return r


def test_summarize_by_hand() -> None:
    rows = [
        _row("a", "dose", "d1", False, True, True, True, 1.0, False, 10),
        _row("b", "dose", "d1", False, False, True, True, 0.5, False, 20),
        _row("c", "criteria", "d2", False, False, False, False, 0.0, True, 40),
        _row("d", "criteria", "d3", True),
        _row("u1", "uncovered", None, True),
        _row("u2", "uncovered", None, False, words=7),
    ]
    s = summarize(rows)
    assert (s["n_answerable"], s["n_uncovered"]) == (4, 2)
    assert s["fact_recall"]["value"] == pytest.approx(1 / 4)        # only a; the refused d counts 0
    assert s["fact_recall_quotes"]["value"] == pytest.approx(2 / 4)  # a, b
    assert s["any_fact_recall"]["value"] == pytest.approx(2 / 4)
    assert s["fact_share"]["value"] == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert s["facts_in_context"] == {"value": None, "ci95": None, "n": 0}  # no row carries a context
    assert s["wrong_passage_rate"]["value"] == pytest.approx(1 / 3) and s["wrong_passage_rate"]["n"] == 3
    assert s["first_citation_wrong_rate"]["value"] == pytest.approx(1 / 3)
    assert s["in_scope_refusal_rate"]["value"] == pytest.approx(1 / 4)
    assert s["uncovered_refusal_rate"]["value"] == pytest.approx(1 / 2)
    # words of the answered answerable questions 10, 20, 40: median 20, p90 = 20 + 0.8 * (40 - 20) = 36
    assert s["answer_words"] == {"median": 20.0, "p90": pytest.approx(36.0), "n": 3}
    assert s["by_kind"]["dose"] == {"n": 2, "fact_recall": 0.5, "any_fact_recall": 1.0, "refused": 0.0}
    assert s["by_kind"]["criteria"] == {"n": 2, "fact_recall": 0.0, "any_fact_recall": 0.0, "refused": 0.5}
    lo, hi = s["fact_recall"]["ci95"]
    assert 0.0 <= lo <= 0.25 <= hi <= 1.0
    # everything refused: every CI collapses onto its value
    allref = summarize([_row("x", "dose", "d1", True), _row("y", "uncovered", None, True)])
    assert allref["in_scope_refusal_rate"]["ci95"] == [1.0, 1.0]
    assert allref["wrong_passage_rate"] == {"value": None, "ci95": None, "n": 0}
    assert allref["answer_words"]["median"] is None


def test_paired_comparison_exact_by_hand() -> None:
    base = [_row("a", "dose", "d", False, False), _row("b", "dose", "d", False, False),
            _row("c", "dose", "d", False, True)]
    cur = [_row("a", "dose", "d", False, True), _row("b", "dose", "d", False, True),
           _row("c", "dose", "d", False, True), _row("new", "dose", "d", False, True)]
    res = compare_to_baseline(base, cur)
    r = res["all_facts"]
    # common ids a, b, c; differences 1, 1, 0; of the 8 sign assignments 4 reach |sum| >= 2
    assert (r["baseline"], r["current"], r["diff"], r["p_value"], r["n"]) == (
        pytest.approx(1 / 3), 1.0, pytest.approx(2 / 3), 0.5, 3)
    assert res["refused"]["p_value"] == 1.0  # identical
    with pytest.raises(ConfigError, match="no question id in common"):
        compare_to_baseline(base, [_row("zz", "dose", "d", False)])


CAP = FactQuestion("o1", "Outpatient CAP antibiotics in a healthy adult?", "first_line", "ats_cap_2019",
                  [["Amoxicillin 1 g"]], forbidden=["levofloxacin", "Amoxicillin/clavulanate"])


def test_on_target_needs_every_fact_and_no_forbidden_string() -> None:
    right = score_question(CAP, answer("Amoxicillin 1 g orally three times daily [1].", [cite(1, "ats_cap_2019", "")]))
    assert (right["on_target"], right["forbidden_found"], right["all_facts"]) == (True, [], True)
    # the fact is there, but so is the comorbidities line (matched case-insensitively, like facts)
    sibling = score_question(CAP, answer("Amoxicillin 1 g three times daily; or LEVOFLOXACIN 750 mg daily [1].",
                                         [cite(1, "ats_cap_2019", "")]))
    assert (sibling["on_target"], sibling["forbidden_found"], sibling["all_facts"]) == (False, ["levofloxacin"], True)
    missing = score_question(CAP, answer("Doxycycline 100 mg [1].", [cite(1, "ats_cap_2019", "")]))
    assert (missing["on_target"], missing["forbidden_found"]) == (False, [])
    refused = score_question(CAP, answer("The documents do not cover it.", [], refused=True))
    assert refused["on_target"] is False
    rows = [{**r, "id": f"o{i}"} for i, r in enumerate([right, sibling, missing, refused])]
    s = summarize(rows)
    assert s["on_target"]["value"] == pytest.approx(1 / 4)           # of all four
    assert s["on_target_answered"]["value"] == pytest.approx(1 / 3)  # of the three answered
    assert s["forbidden_rate"]["value"] == pytest.approx(1 / 3)      # sibling, of the answered
    # words of the answered: "Amoxicillin 1 g orally three times daily." 7, the sibling's 11, "Doxycycline 100 mg." 3
    assert [r["words"] for r in rows] == [7, 11, 3, 0] and s["answer_words"]["median"] == 7.0
    # an older run's rows without on_target: answered with every fact
    old = summarize([_row("a", "dose", "d", False, True, wrong=False), _row("b", "dose", "d", True)])
    assert old["on_target"]["value"] == 0.5


def test_load_questions_reads_forbidden(tmp_path: Path) -> None:
    p = tmp_path / "set.jsonl"
    row = {"id": "g1", "question": "q?", "kind": "dose", "doc_id": "d", "facts": [["5 mg"]], "forbidden": ["10 mg"]}
    p.write_text(json.dumps(row) + "\n")
    assert load_questions(p)[0].forbidden == ["10 mg"]
    p.write_text(json.dumps({**row, "forbidden": ["10 mg", ""]}) + "\n")
    with pytest.raises(ConfigError, match="line 1: 'forbidden' must be a list of non-empty strings"):
        load_questions(p)


def test_load_questions_names_file_and_line(tmp_path: Path) -> None:
    good = {"id": "g1", "question": "q?", "kind": "dose", "doc_id": "d", "facts": [["5 mg"]]}
    cases = {
        "{not json": "line 2: invalid JSON",
        json.dumps({**good, "id": "g2", "kind": "nonsense"}): "line 2: unknown kind 'nonsense'",
        json.dumps({**good}): "line 2: duplicate id 'g1'",
        json.dumps({**good, "id": "g2", "facts": []}): "line 2: an answerable question needs at least one fact",
        json.dumps({**good, "id": "g2", "facts": [["5 mg", " "]]}): "line 2: 'facts' must be",
        json.dumps({"id": "u1", "question": "q?", "kind": "uncovered", "doc_id": None, "facts": []}):
            "line 2: an uncovered question needs 'missing'",
    }
    for second, message in cases.items():
        p = tmp_path / "set.jsonl"
        p.write_text(json.dumps(good) + "\n" + second + "\n")
        with pytest.raises(ConfigError, match=message) as info:
            load_questions(p)
        assert str(p) in str(info.value)
    with pytest.raises(ConfigError, match="no such question file"):
        load_questions(tmp_path / "absent.jsonl")
    res = CliRunner().invoke(app, ["eval", "answers", str(tmp_path / "absent.jsonl"), "--data-dir", str(tmp_path)])
    assert res.exit_code == 2 and "absent.jsonl: no such question file" in res.output


def test_bioasq_containment_by_hand() -> None:
    fq = ExactQuestion("f", "What does the pembrolizumab test assess?", "factoid", [["PD-L1 status", "PD-L1"]])
    lq = ExactQuestion("l", "In what states is GDF15 increased?", "list",
                       [["inflammation"], ["hypoxia"], ["telomere erosion"], ["oncogene activation"]])
    f = score_exact(fq, answer("It assesses pd-l1  status [1].", [cite(1, "p1", "assess PD-L1 status")]))
    assert (f["contains"], f["item_share"], f["contains_quotes"]) == (True, 1.0, True)
    lrow = score_exact(lq, answer("Expressed in inflammation and hypoxia [1].",
                                  [cite(1, "p2", "inflammation, hypoxia, telomere erosion")]))
    assert (lrow["contains"], lrow["item_share"], lrow["items_found"]) == (True, 0.5, ["inflammation", "hypoxia"])
    lq2 = ExactQuestion("l2", "Which genes?", "list", [["BRCA1"], ["BRCA2"]])
    none = score_exact(lq2, answer("", [], refused=True))
    assert (none["contains"], none["item_share"], none["words"]) == (False, 0.0, 0)
    s = summarize_exact([f, lrow, none])
    assert s["factoid"]["contains"]["value"] == 1.0 and s["factoid"]["n"] == 1
    assert s["list"]["contains"]["value"] == pytest.approx(1 / 2)
    assert s["list"]["item_share"]["value"] == pytest.approx((0.5 + 0.0) / 2)
    assert s["all"]["refused"]["value"] == pytest.approx(1 / 3)


def test_exact_questions_keep_factoid_and_list_only() -> None:
    ds = Dataset("b", Path("b"), None, [
        Query("1", "f?", {"type": "factoid", "exact_answer": [["A", "a1"]]}),
        Query("2", "l?", {"type": "list", "exact_answer": [["x"], ["y"]]}),
        Query("3", "y?", {"type": "yesno", "exact_answer": "yes"}),
        Query("4", "s?", {"type": "summary"}),
        Query("5", "f2?", {"type": "factoid", "exact_answer": [[""]]}),
    ], {"1": {"p1": 1}, "2": {"p2": 1}, "3": {"p3": 1}})
    qs = exact_questions(ds, seed=0)
    assert sorted((q.qid, q.qtype) for q in qs) == [("1", "factoid"), ("2", "list")]
    assert len(exact_questions(ds, limit=1)) == 1
    only = restrict(ds, {"2"})
    assert [q.qid for q in only.queries] == ["2"] and only.qrels == {"2": {"p2": 1}}


@pytest.fixture(scope="module")
def two_guidelines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sepsis3_2016 and wells_pe_2000 of the bundled corpus with their registry entries (6 files)."""
    src = guidelines_path()
    d = tmp_path_factory.mktemp("two-guidelines")
    keep = ("sepsis3_2016", "wells_pe_2000")
    for k in keep:
        shutil.copytree(src / "content" / k, d / "content" / k)
    reg = [r for r in json.loads((src / "registry.json").read_text()) if r["id"] in keep]
    (d / "registry.json").write_text(json.dumps(reg))
    return d


def test_eval_answers_end_to_end(tmp_path: Path, two_guidelines: Path) -> None:
    qfile = tmp_path / "q.jsonl"
    rows = [
        {"id": "g1", "question": "What are the qSOFA criteria?", "kind": "criteria", "doc_id": "sepsis3_2016",
         "facts": [["22 breaths per minute"], ["Altered Mentation"], ["100 mmHg"]]},
        {"id": "g2", "question": "What is the first-line imaging when PE is likely?", "kind": "first_line",
         "doc_id": "wells_pe_2000", "facts": [["CTPA"]]},
        {"id": "u1", "question": "How do I change a car tyre?", "kind": "uncovered", "doc_id": None, "facts": [],
         "missing": "tyre"},
    ]
    qfile.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    args = ["eval", "answers", str(qfile), "--corpus", str(two_guidelines), "--data-dir", str(tmp_path / "data"),
            "--output", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "fact recall (answer text)" in res.output and "uncovered refusal rate" in res.output
    data = json.loads((out / "answers.json").read_text())
    assert data["benchmark"] == "facts" and data["documents"] == 2
    by_id = {r["id"]: r for r in data["rows"]}
    assert by_id["u1"]["refused"] is True  # far off topic
    assert data["summary"]["uncovered_refusal_rate"]["value"] == 1.0
    for qid in ("g1", "g2"):
        r = by_id[qid]
        # the row agrees with its own answer text, recomputed here
        from clinqa.answer.citations import strip_markers

        text = "" if r["refused"] else strip_markers(r["answer"])
        facts = next(x["facts"] for x in rows if x["id"] == qid)
        assert r["all_facts"] == all(contains(text, f) for f in facts)
        assert r["wrong_passage"] == (None if r["refused"] else r["doc_id"] not in r["cited_doc_ids"])
        assert isinstance(r["all_facts_in_context"], bool)
    s = data["summary"]
    assert s["fact_recall"]["value"] == pytest.approx((by_id["g1"]["all_facts"] + by_id["g2"]["all_facts"]) / 2)
    assert s["n_answerable"] == 2 and s["n_uncovered"] == 1
    # a second run against the first: identical answers, so every paired p is 1
    res2 = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "run2"), "--baseline", str(out)])
    assert res2.exit_code == 0, res2.output
    again = json.loads((tmp_path / "run2" / "answers.json").read_text())
    assert again["vs_baseline"]["all_facts"]["p_value"] == 1.0
    assert again["vs_baseline"]["all_facts"]["n"] == 2
    # `eval report` renders both runs, the second with its paired table
    rep = CliRunner().invoke(app, ["eval", "report", str(tmp_path)])
    assert rep.exit_code == 0, rep.output
    assert rep.output.count("| fact recall (answer text) |") == 2
    assert "| all_facts | " in rep.output and "| 1.000 | 2 |" in rep.output


def test_eval_answers_bioasq_end_to_end(tmp_path: Path) -> None:
    """`eval answers --bioasq` on a hand-made BioASQ-shaped folder (the tiny passages): a factoid
    question whose passage is the only one mentioning its answer, and a yes/no one that is skipped."""
    from tiny_data import TINY_DOCS

    d = tmp_path / "bioasq"
    (d / "qrels").mkdir(parents=True)
    (d / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n"
                                            for k, (t, x) in TINY_DOCS.items()))
    queries = [
        {"_id": "f1", "text": "What target INR is used for warfarin in atrial fibrillation?",
         "metadata": {"type": "factoid", "exact_answer": [["2 to 3", "2-3"]]}},
        {"_id": "y1", "text": "Is metformin first-line?", "metadata": {"type": "yesno", "exact_answer": "yes"}},
    ]
    (d / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nf1\td7\t1\ny1\td2\t1\n")
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", "answers", "--bioasq", str(d), "--subset", "2", "--data-dir",
                                   str(tmp_path / "data"), "--output", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "answers.json").read_text())
    # only f1 is a factoid/list question; the store holds its gold passage d7 plus 2 distractors
    assert [r["id"] for r in data["rows"]] == ["f1"] and data["documents"] == 3
    row = data["rows"][0]
    assert row["contains"] == (not row["refused"] and contains(row["answer"], ["2 to 3", "2-3"]))
    assert data["summary"]["factoid"]["n"] == 1 and "list" not in data["summary"]


def test_load_questions_reads_patient_id(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"id": "n1", "question": "current anticoagulant?", "kind": "current", "doc_id": "note:A:n2",
                             "facts": [["apixaban"]], "patient_id": "A"}) + "\n")
    assert load_questions(f)[0].patient_id == "A"
    f.write_text(json.dumps({"id": "n1", "question": "q?", "kind": "event", "doc_id": "d", "facts": [["x"]],
                             "patient_id": ""}) + "\n")
    with pytest.raises(ConfigError, match="line 1: 'patient_id' must be a non-empty string"):
        load_questions(f)


def test_a_question_with_a_patient_is_asked_of_that_patients_notes_only(tmp_path: Path) -> None:
    """Two patients whose notes both name warfarin, with different doses: each question is answered from its own
    patient's note (every citation is that patient's), never the other's."""
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps(n) + "\n" for n in [
        {"patient_id": "A", "note_id": "n1", "date": "2022-01-10", "note_type": "clinic", "author_role": "physician",
         "text": "Atrial fibrillation. Started warfarin 5 mg daily, INR target 2-3."},
        {"patient_id": "B", "note_id": "n1", "date": "2023-03-02", "note_type": "clinic", "author_role": "physician",
         "text": "Deep vein thrombosis of the left leg. Started warfarin 3 mg daily."},
    ]))
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "a", "question": "What warfarin dose was started?", "kind": "event", "doc_id": "note:A:n1",
         "facts": [["5 mg"]], "forbidden": ["3 mg"], "patient_id": "A"},
        {"id": "b", "question": "What warfarin dose was started?", "kind": "event", "doc_id": "note:B:n1",
         "facts": [["3 mg"]], "forbidden": ["5 mg"], "patient_id": "B"},
    ]))
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", "answers", str(qfile), "--corpus", str(notes), "--data-dir",
                                   str(tmp_path / "data"), "--output", str(out)])
    assert res.exit_code == 0, res.output
    by_id = {r["id"]: r for r in json.loads((out / "answers.json").read_text())["rows"]}
    assert by_id["a"]["cited_doc_ids"] == ["note:A:n1"] and by_id["a"]["on_target"] is True
    assert by_id["b"]["cited_doc_ids"] == ["note:B:n1"] and by_id["b"]["on_target"] is True
