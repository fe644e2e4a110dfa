"""Content-gap report on hand-made embeddings: two clear clusters become two topics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clinqa.logs import QueryLog
from clinqa.reports.gaps import cluster_vectors, ctfidf_labels, format_gaps, gap_report, gaps_from_log


def unit(i: int, dim: int = 8, **extra: float) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[i] = 1.0
    for k, x in extra.items():
        v[int(k[1:])] = x
    return v


OTITIS = ["What dose of amoxicillin for otitis media?", "How long to treat acute otitis media in children?",
          "Otitis media with effusion: when to refer?", "Is watchful waiting ok for otitis media?"]
LITHIUM = ["Is lithium safe in pregnancy?", "Lithium levels during pregnancy?"]


@pytest.fixture
def gap_log(qlog: QueryLog, answer_factory, rec) -> QueryLog:
    # topic A (otitis, near axis 0): three refusals and one poorly rated answer; the last is off-centre
    for q, v in zip(OTITIS[:3], (unit(0, e3=0.05), unit(0, e4=0.05), unit(0, e5=0.05)), strict=True):
        rec(qlog, answer_factory(q, refused=True, vector=v))
    poor = rec(qlog, answer_factory(OTITIS[3], vector=unit(0, e6=0.4)))
    qlog.add_feedback(poor, 0.2, category="content_missing")
    # topic B (lithium, near axis 1): one refusal, one answer rated 1.0 then 0.2 (latest counts)
    rec(qlog, answer_factory(LITHIUM[0], refused=True, vector=unit(1, e3=0.1)))
    b2 = rec(qlog, answer_factory(LITHIUM[1], vector=unit(1, e4=0.1)))
    qlog.add_feedback(b2, 1.0)
    qlog.add_feedback(b2, 0.2, category="retrieval_miss")
    # not failing: answered and well rated (same direction as topic A), answered unrated
    good = rec(qlog, answer_factory("Amoxicillin dose in otitis media for adults?", vector=unit(0)))
    qlog.add_feedback(good, 0.6, category="other")
    rec(qlog, answer_factory("Unrated answer about otitis", vector=unit(0)))
    # a failing singleton (axis 2), a refusal without embedding, another model's refusal, a replayed refusal
    rec(qlog, answer_factory("How do I change a car tyre?", refused=True, vector=unit(2)))
    no_vec = answer_factory("Question answered by the model alone", refused=True)
    no_vec.query_vector = None
    nv = rec(qlog, no_vec)
    qlog.add_feedback(nv, 0.2, category="temporal")
    rec(qlog, answer_factory("Other-model question", refused=True, vector=np.ones(4, dtype=np.float32)),
        model_id="other")
    rec(qlog, answer_factory("Replayed otitis question", refused=True, vector=unit(0)), source="replay")
    # the newest failing question decides which model's embeddings are clustered
    rec(qlog, answer_factory("Lithium and breastfeeding?", refused=True, vector=unit(1, e5=0.1)))
    return qlog


def test_two_clear_clusters_become_two_topics(gap_log: QueryLog) -> None:
    rep = gaps_from_log(gap_log, min_size=2)
    # failing: 4 otitis + 3 lithium + tyre + no-vector + other-model = 10 (not the replayed one)
    assert rep["questions"] == 10
    assert rep["refused"] == 8 and rep["poorly_rated"] == 3  # poorly rated: otitis #4, lithium #2, no-vector
    assert rep["skipped_no_embedding"] == 1 and rep["skipped_other_model"] == 1
    assert rep["unclustered"] == 1  # the tyre question is a cluster of one
    assert rep["clustered"] == 7 and rep["model_id"] == "m"
    topics = rep["topics"]
    assert [t["count"] for t in topics] == [4, 3]
    a, b = topics
    assert a["refused"] == 3 and a["poorly_rated"] == 1
    assert b["refused"] == 2 and b["poorly_rated"] == 1
    # examples: the three questions closest to the centroid; the off-centre fourth is left out
    assert sorted(a["examples"]) == sorted(OTITIS[:3])
    assert sorted(b["examples"]) == sorted([*LITHIUM, "Lithium and breastfeeding?"])
    assert a["terms"][:2] == ["media", "otitis"] and a["label"].startswith("media, otitis")
    assert b["terms"][0] == "lithium"
    assert len(a["query_ids"]) == 4
    assert rep["failure_categories"] == {"content_missing": 1, "retrieval_miss": 1, "temporal": 1,
                                         "wrong_answer": 0, "citation_wrong": 0, "other": 0}
    text = format_gaps(rep)
    assert "1. media, otitis" in text and "4 asks of 4 distinct questions (3 refused, 1 poorly rated)" in text
    assert "1 without a stored embedding" in text and "1 embedded by another model than m" in text
    assert "content_missing 1, retrieval_miss 1, temporal 1" in text
    # the failing questions in no topic, newest first: another model's, the one without embedding, the tyre
    assert [(x["question"], x["refused"], x["rating"], x["category"], x["asks"]) for x in rep["unclustered_examples"]] \
        == [("Other-model question", True, None, None, 1),
            ("Question answered by the model alone", True, 0.2, "temporal", 1),
            ("How do I change a car tyre?", True, None, None, 1)]
    assert "unclustered failing questions" not in text  # topics formed: the text lists the topics only
    # min_size 1 lists the singleton too
    rep1 = gaps_from_log(gap_log, min_size=1)
    assert [t["count"] for t in rep1["topics"]] == [4, 3, 1] and rep1["unclustered"] == 0
    assert rep1["topics"][2]["examples"] == ["How do I change a car tyre?"]
    with pytest.raises(ValueError):
        gap_report([], min_size=0)


def test_ctfidf_by_hand() -> None:
    labels = ctfidf_labels([["otitis media dose", "otitis media children"], ["lithium pregnancy"]])
    # class 0: otitis 2, media 2, dose 1, children 1 (6 terms); class 1: lithium 1, pregnancy 1 (2 terms);
    # A = mean terms per class = 4; weight = tf/size * log(1 + A / f(t))
    w_otitis, w_dose = 2 / 6 * math.log(1 + 4 / 2), 1 / 6 * math.log(1 + 4 / 1)
    assert w_otitis > w_dose
    assert labels == [["media", "otitis", "children"], ["lithium", "pregnancy"]]


def test_cluster_vectors_edge_cases() -> None:
    assert cluster_vectors(np.zeros((0, 3))).tolist() == []
    assert cluster_vectors(np.ones((1, 3))).tolist() == [0]
    x = np.array([[1, 0], [0.99, 0.1], [0, 1]], dtype=float)
    labels = cluster_vectors(x)
    assert labels[0] == labels[1] != labels[2]
    empty = gap_report([])
    assert empty["topics"] == [] and empty["questions"] == 0 and "failing questions: 0" in format_gaps(empty)


def test_one_question_asked_twice_is_not_a_topic() -> None:
    from datetime import UTC, datetime

    import numpy as np

    rows = [{"source": "api", "refused": True, "feedback": [], "query_vector": np.array([1.0, 0.0, 0.0]),
             "model_id": "m", "question": q, "query_id": str(i), "time": datetime(2026, 1, 1, tzinfo=UTC)}
            for i, q in enumerate(["Is lithium safe in pregnancy?", "is lithium  safe in pregnancy?",
                                   "How to climb Everest?"])]
    rows[2]["query_vector"] = np.array([0.0, 1.0, 0.0])
    rep = gap_report(rows, min_size=2)
    assert rep["topics"] == [] and rep["unclustered"] == 3
    rep = gap_report(rows, min_size=1)
    assert [(t["count"], t["distinct"]) for t in rep["topics"]] == [(2, 1), (1, 1)]


def test_failing_questions_without_a_topic_are_listed_anyway(qlog: QueryLog, answer_factory, rec) -> None:
    # three unrelated failing questions (orthogonal embeddings): no topic of two distinct questions
    rec(qlog, answer_factory("How do I change a car tyre?", refused=True, vector=unit(2)))
    poor = rec(qlog, answer_factory("Dose of lithium in pregnancy?", vector=unit(3)))
    qlog.add_feedback(poor, 0.2, category="content_missing")
    rec(qlog, answer_factory("Is Everest climbable in winter?", refused=True, vector=unit(4)))
    rec(qlog, answer_factory("how do I change a car  tyre?", refused=True, vector=unit(2)))  # asked again
    rec(qlog, answer_factory("A well answered question", vector=unit(5)))  # not failing
    rep = gaps_from_log(qlog, min_size=2)
    assert rep["topics"] == [] and rep["questions"] == 4 and rep["unclustered"] == 4
    assert [(x["question"], x["refused"], x["rating"], x["category"], x["asks"]) for x in rep["unclustered_examples"]] \
        == [("how do I change a car  tyre?", True, None, None, 2),
            ("Is Everest climbable in winter?", True, None, None, 1),
            ("Dose of lithium in pregnancy?", False, 0.2, "content_missing", 1)]
    assert all(x["query_id"] and x["time"] for x in rep["unclustered_examples"])
    text = format_gaps(rep)
    assert "unclustered failing questions (newest first, up to 10):" in text
    assert "     - how do I change a car  tyre? (refused, asked 2 times)" in text
    assert "     - Dose of lithium in pregnancy? (rated 0.2, content_missing)" in text
    assert text.index("Everest") < text.index("lithium")


def test_at_most_ten_unclustered_examples() -> None:
    from datetime import UTC, datetime

    rows = [{"source": "api", "refused": True, "feedback": [], "query_vector": None, "model_id": None,
             "question": f"question {i}", "query_id": str(i), "time": datetime(2026, 1, 1, 0, i, tzinfo=UTC)}
            for i in range(12)]
    rep = gap_report(rows)
    assert rep["skipped_no_embedding"] == 12
    assert [x["question"] for x in rep["unclustered_examples"]] == [f"question {i}" for i in range(11, 1, -1)]
    assert gap_report([])["unclustered_examples"] == []


def test_an_accepted_refusal_is_not_a_gap() -> None:
    from clinqa.reports.gaps import failing

    base = {"source": "api", "refused": True}
    assert failing({**base, "feedback": []})
    assert not failing({**base, "feedback": [{"score": 1.0, "category": None, "ts": "t"}]})
    assert failing({**base, "refused": False, "feedback": [{"score": 0.2, "category": None, "ts": "t"}]})
    assert not failing({**base, "refused": False, "feedback": []})
