"""Pilot report on a hand-made log: every figure checked against values worked out by hand."""

from __future__ import annotations

import math
import statistics
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from clinqa.logs import QueryLog
from clinqa.reports.pilot import format_pilot, pilot_figures, pilot_report, plot_pilot

LATENCIES = [120.0, 340.0, 560.0, 800.0, 1500.0, 2600.0, 4900.0, 5100.0, 7300.0, 12000.0]


@pytest.fixture
def pilot_log(qlog: QueryLog, answer_factory, rec, settime) -> tuple[QueryLog, list[str]]:
    llm = {0: {"backend": "openai", "model": "gpt-4o-mini", "prompt_tokens": 900, "completion_tokens": 50,
               "cost_usd": 0.001},
           1: {"backend": "openai", "model": "gpt-4o-mini", "prompt_tokens": 2700, "completion_tokens": 150,
               "cost_usd": 0.003},
           2: {"backend": "openai", "model": "no-price", "prompt_tokens": 100, "completion_tokens": 10,
               "cost_usd": None}}
    ids = [rec(qlog, answer_factory(f"q{i}", refused=i >= 8, latency_ms=lat, llm=llm.get(i)))
           for i, lat in enumerate(LATENCIES)]
    qlog.add_feedback(ids[0], 1.0)
    qlog.add_feedback(ids[1], 0.6)
    qlog.add_feedback(ids[2], 0.2, category="wrong_answer")
    qlog.add_feedback(ids[2], 1.0)  # the latest rating counts: 1.0, no category
    qlog.add_feedback(ids[3], 0.2, category="content_missing")
    qlog.add_feedback(ids[4], 0.6, category="other")
    qlog.add_feedback(ids[5], 0.2, category="retrieval_miss")
    replayed = rec(qlog, answer_factory("replayed", latency_ms=99999.0), source="replay")  # never counted
    qlog.add_feedback(replayed, 0.2, category="temporal")
    for i, qid in enumerate(ids):
        settime(qlog, qid, f"2025-0{1 if i < 5 else 2}-01T12:00:{i:02d}.000000+00:00")
    return qlog, ids


def test_pilot_figures_by_hand(pilot_log) -> None:
    log, _ = pilot_log
    fig = pilot_report(log)
    assert fig["conversations"] == 10 and fig["sources"] == {"cli": 10}
    assert fig["rated"] == 6
    assert fig["feedback_rate"] == pytest.approx(6 / 10)
    # latest scores 1.0, 0.6, 1.0, 0.2, 0.6, 0.2: four of six are >= 0.6
    assert fig["success_rate"] == pytest.approx(4 / 6)
    assert fig["satisfaction_mean"] == pytest.approx(3.6 / 6)
    assert fig["satisfaction"] == {"1.0": 2, "0.6": 2, "0.2": 2}
    lat = fig["latency_ms"]
    assert lat["n"] == 10
    assert lat["p50"] == pytest.approx((1500 + 2600) / 2)  # even count: mean of the middle two
    # p95, linear interpolation: position 0.95 * 9 = 8.55 between 7300 and 12000
    assert lat["p95"] == pytest.approx(7300 + 0.55 * (12000 - 7300))
    assert lat["p95"] == pytest.approx(float(np.percentile(LATENCIES, 95)))
    assert lat["max"] == 12000.0
    mean = sum(LATENCIES) / 10
    assert mean == 3522.0
    assert lat["std"] == pytest.approx(math.sqrt(sum((x - mean) ** 2 for x in LATENCIES) / 10))
    assert lat["std"] == pytest.approx(statistics.pstdev(LATENCIES))
    assert lat["under_5s"] == pytest.approx(7 / 10)  # 5100, 7300 and 12000 are slower
    assert fig["refusal_rate"] == pytest.approx(2 / 10)
    # known costs: 0.001, 0.003 and seven answers no model was called for (0.0); one unknown price
    assert fig["cost_known"] == 9 and fig["cost_unknown"] == 1
    assert fig["cost_per_query_usd"] == pytest.approx(0.004 / 9)
    assert fig["failure_categories"] == {"content_missing": 1, "retrieval_miss": 1, "temporal": 0,
                                         "wrong_answer": 0, "citation_wrong": 0, "other": 1}
    text = format_pilot(fig)
    assert "conversations (questions): 10" in text
    assert "feedback rate: 60.0% (6 rated)" in text
    assert "success rate (latest rating >= 0.6): 66.7%" in text
    assert "p50 2050 ms, p95 9885 ms, max 12000 ms" in text
    assert "under 5 s 70.0%" in text and "refusal rate: 20.0%" in text
    assert "content_missing 1, retrieval_miss 1, other 1" in text


def test_pilot_time_window(pilot_log) -> None:
    log, _ = pilot_log
    late = pilot_report(log, since=datetime(2025, 1, 15), until=datetime(2025, 3, 1))
    assert late["conversations"] == 5  # q5..q9 (the replayed row is ignored)
    assert late["latency_ms"]["p50"] == 5100.0 and late["refusal_rate"] == pytest.approx(2 / 5)
    assert late["rated"] == 1 and late["success_rate"] == 0.0
    early = pilot_report(log, until=datetime(2025, 1, 15))
    assert early["conversations"] == 5 and early["rated"] == 5 and early["refusal_rate"] == 0.0
    assert early["success_rate"] == pytest.approx(4 / 5)


def test_empty_log_and_plot(qlog: QueryLog, pilot_log, tmp_path: Path) -> None:
    empty = pilot_figures([])
    assert empty["conversations"] == 0 and empty["feedback_rate"] is None and empty["latency_ms"]["p50"] is None
    assert "conversations (questions): 0" in format_pilot(empty)
    log, _ = pilot_log
    out = plot_pilot(log.rows(), tmp_path / "out" / "pilot.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
