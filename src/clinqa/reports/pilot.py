"""The pilot report: how a deployment is used and how well it serves, from the query log.

Modelled on what a published two-week clinician pilot learned most from: feedback scores,
latency, and the failure categories of poorly rated answers. Replayed runs (source ``replay``)
are not clinicians' questions and are left out.

Definitions (over the logged questions in the window, each one a "conversation": clinqa is
single-turn):

- ``feedback_rate``: share of questions with at least one rating;
- the latest rating of a question is the one that counts; ``success_rate`` is the share of rated
  questions whose latest score is >= 0.6 (Acceptable or Excellent); ``satisfaction_mean`` is the
  mean latest score, ``satisfaction`` the counts of latest scores 1.0 / 0.6 / 0.2;
- latency is the logged ``total`` of each question in ms: ``p50``/``p95`` by
  :func:`numpy.percentile` (linear interpolation), ``max``, ``std`` (population standard
  deviation, ``numpy.std`` with ``ddof=0``), ``under_5s`` (share of questions with latency < 5000 ms);
- ``refusal_rate``: share of questions refused;
- ``cost_per_query_usd``: mean of the known costs (0.0 for questions no model was called for),
  with ``cost_unknown`` the number of questions whose cost is unknown (no price for the model);
- ``failure_categories``: counts of the category of each question's latest rating, where set.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.logs.querylog import FAILURE_CATEGORIES, SCORES, QueryLog, latest_feedback

#: answers faster than this count as "under 5 s"
FAST_MS = 5000.0


def pilot_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The pilot figures (module docstring) of rows from :meth:`QueryLog.rows`; rows with source
    ``replay`` are ignored. Rates are shares in [0, 1], latencies in ms, costs in USD; a figure
    with nothing to compute it from is None."""
    rows = [r for r in rows if r["source"] != "replay"]
    n = len(rows)
    latest = [f for f in (latest_feedback(r) for r in rows) if f is not None]
    scores = [float(f["score"]) for f in latest]
    lat = np.array([r["latency_ms"] for r in rows if r["latency_ms"] is not None], dtype=float)
    costs = [float(r["cost_usd"]) for r in rows if r["cost_usd"] is not None]
    cats = {c: 0 for c in FAILURE_CATEGORIES}
    for f in latest:
        if f["category"]:
            cats[f["category"]] = cats.get(f["category"], 0) + 1
    sources: dict[str, int] = {}
    for r in rows:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    return {
        "conversations": n,
        "sources": sources,
        "first": rows[0]["time"] if rows else None,
        "last": rows[-1]["time"] if rows else None,
        "rated": len(latest),
        "feedback_rate": len(latest) / n if n else None,
        "success_rate": sum(s >= 0.6 for s in scores) / len(scores) if scores else None,
        "satisfaction_mean": float(np.mean(scores)) if scores else None,
        "satisfaction": {f"{s:.1f}": sum(abs(x - s) < 1e-9 for x in scores) for s in SCORES},
        "latency_ms": {
            "n": int(lat.size),
            "p50": float(np.percentile(lat, 50)) if lat.size else None,
            "p95": float(np.percentile(lat, 95)) if lat.size else None,
            "max": float(lat.max()) if lat.size else None,
            "std": float(np.std(lat)) if lat.size else None,
            "under_5s": float(np.mean(lat < FAST_MS)) if lat.size else None,
        },
        "refusal_rate": sum(r["refused"] for r in rows) / n if n else None,
        "cost_per_query_usd": float(np.mean(costs)) if costs else None,
        "cost_known": len(costs),
        "cost_unknown": n - len(costs),
        "failure_categories": cats,
    }


def pilot_report(log: QueryLog, since: datetime | None = None, until: datetime | None = None) -> dict[str, Any]:
    """:func:`pilot_figures` of the questions logged with ``since <= time < until``."""
    return pilot_figures(log.rows(since=since, until=until))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def _num(x: float | None, fmt: str = ".0f") -> str:
    return "-" if x is None else format(x, fmt)


def format_pilot(fig: dict[str, Any]) -> str:
    """Human-readable pilot report of :func:`pilot_figures`."""
    lat = fig["latency_ms"]
    sat = fig["satisfaction"]
    lines = [
        f"conversations (questions): {fig['conversations']}"
        + (f"  from {fig['first']} to {fig['last']}" if fig["first"] else "")
        + ("  [" + ", ".join(f"{k} {v}" for k, v in sorted(fig["sources"].items())) + "]" if fig["sources"] else ""),
        f"feedback rate: {_pct(fig['feedback_rate'])} ({fig['rated']} rated)",
        f"success rate (latest rating >= 0.6): {_pct(fig['success_rate'])}",
        f"satisfaction: mean {_num(fig['satisfaction_mean'], '.3f')}; "
        + ", ".join(f"{s} ({SCORES[float(s)]}) {c}" for s, c in sat.items()),
        f"latency: p50 {_num(lat['p50'])} ms, p95 {_num(lat['p95'])} ms, max {_num(lat['max'])} ms, "
        f"std {_num(lat['std'])} ms; under 5 s {_pct(lat['under_5s'])} (n = {lat['n']})",
        f"refusal rate: {_pct(fig['refusal_rate'])}",
        "cost per query: " + ("-" if fig["cost_per_query_usd"] is None else f"${fig['cost_per_query_usd']:.6f}")
        + f" (mean of {fig['cost_known']} known; {fig['cost_unknown']} unknown)",
        "failure categories: " + (", ".join(f"{c} {n}" for c, n in fig["failure_categories"].items() if n)
                                  or "none recorded"),
    ]
    return "\n".join(lines)


def plot_pilot(rows: list[dict[str, Any]], path: Path) -> Path:
    """One PNG at ``path``: a histogram of latencies (seconds) and bars of the latest ratings
    (counts of 1.0 / 0.6 / 0.2). Uses matplotlib's Agg backend; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    rows = [r for r in rows if r["source"] != "replay"]
    fig_data = pilot_figures(rows)
    lat = [r["latency_ms"] / 1e3 for r in rows if r["latency_ms"] is not None]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.hist(lat, bins=min(30, max(5, len(lat) // 3 or 1)), color="#4477aa")
    ax1.axvline(FAST_MS / 1e3, color="#cc3311", linestyle="--", label="5 s")
    ax1.set_xlabel("latency (s)")
    ax1.set_ylabel("questions")
    ax1.set_title(f"latency (n = {len(lat)})")
    ax1.legend()
    labels = [f"{s} {SCORES[float(s)]}" for s in fig_data["satisfaction"]]
    ax2.bar(labels, list(fig_data["satisfaction"].values()), color=["#228833", "#ccbb44", "#ee6677"])
    ax2.set_ylim(0, max(1, *fig_data["satisfaction"].values()) * 1.1)
    ax2.set_ylabel("questions (latest rating)")
    ax2.set_title(f"satisfaction (n = {fig_data['rated']} rated)")
    for ax in (ax1, ax2):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
