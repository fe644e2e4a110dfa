"""Render evaluation outputs as Markdown (``clinqa eval report RUNS_DIR``).

Reads whatever the eval commands wrote under ``RUNS_DIR`` (any depth): ``report.json`` from
``eval retrieval``, ``fusion.json``, ``chunking.json``, ``models.json``, ``refusal.json``
(with ``refusal.png`` beside it) and the ``answers.json`` of the fact benchmark and BioASQ runs
of ``eval answers``, and renders one section per file, tables with 95% CIs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clinqa.evaluation.metrics import METRICS


def ci(m: dict[str, Any]) -> str:
    """``"0.897 [0.808, 0.974]"`` from ``{"value", "ci95"}``."""
    return f"{m['value']:.3f} [{m['ci95'][0]:.3f}, {m['ci95'][1]:.3f}]"


def paired(d: dict[str, Any] | None) -> str:
    """``"+0.037 (p 0.069)"`` from a paired test's ``{"diff", "p_value"}``; ``"-"`` when there is none."""
    return f"{d['diff']:+.3f} (p {d['p_value']:.3f})" if d else "-"


def _table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def retrieval_section(rep: dict[str, Any], where: Path) -> str:
    """Metrics of the hybrid, dense and BM25 runs of one ``report.json``."""
    runs = list(rep["metrics"])
    rows = [[m, *(ci(rep["metrics"][r][m]) for r in runs)] for m in METRICS]
    sub = rep.get("subset") or {}
    scope = (f"subset: judged + {sub['distractors']} distractors (seed {sub['seed']})"
             if sub.get("distractors") is not None else "full corpus")
    pr = rep["pool_recall"]
    return (f"### Retrieval: {rep['dataset']} ({where})\n\n{rep['n_documents']} documents, {rep['n_chunks']} chunks, "
            f"{rep['n_judged']} judged of {rep['n_queries']} queries, {scope}; model {rep['model_id']}; search p50 "
            f"{rep['latency_ms']['p50']:.0f} ms, p95 {rep['latency_ms']['p95']:.0f} ms.\n\n"
            + _table(["metric", *runs], rows)
            + f"\n\nCandidate-pool recall (dense top-{pr['depth']} ∪ BM25 top-{pr['depth']}): {ci(pr)}\n")


def fusion_section(rows: list[dict[str, Any]], where: Path) -> str:
    """One row per fusion rule."""
    cols = ["MRR@10", "Hit@1", "Hit@10", "nDCG@10", "Recall@30"]
    return (f"### Fusion study ({where})\n\n"
            + _table(["rule", *cols, "MRR@10 vs first row (paired p)"],
                     [[r["rule"], *(ci(r["metrics"][c]) for c in cols), paired(r.get("vs_first", {}).get("MRR@10"))]
                      for r in rows]) + "\n")


def chunking_section(rows: list[dict[str, Any]], where: Path) -> str:
    """One row per chunking strategy."""
    ref = next((r["vs_reference"]["strategy"] for r in rows if "vs_reference" in r), "reference")
    return (f"### Chunking comparison ({where})\n\n"
            + _table(["strategy", "chunks", "mean words", "context loss", "over model limit", "MRR@10", "Hit@10",
                      f"MRR@10 vs {ref} (paired p)"],
                     [[r["strategy"], str(r["chunks"]), f"{r['mean_words']:.1f}", f"{r['context_loss']:.1%}",
                       f"{r.get('over_limit', 0):.1%}", ci(r["MRR@10"]), ci(r["Hit@10"]),
                       paired(r.get("vs_reference", {}).get("MRR@10"))] for r in rows])
            + "\n")


def models_section(rows: list[dict[str, Any]], where: Path) -> str:
    """One row per (model, run)."""
    cols = ["MRR@10", "P@1", "P@3", "P@5", "Hit@10"]
    out = []
    for r in rows:
        speed = [f"{r['chunks_per_s']:.1f}", f"{r['tokens_per_s']:.0f}"] if r.get("chunks_per_s") else ["-", "-"]
        out.append([r["model"], r["run"], str(r["dim"] or "-"), *(f"{r[c]['value']:.3f}" for c in cols), *speed])
    return (f"### Embedding models ({where})\n\n"
            + _table(["model", "run", "dim", *cols, "chunks/s", "tokens/s"], out) + "\n")


def refusal_section(rep: dict[str, Any], where: Path) -> str:
    """The chosen threshold and the refusal rates at it."""
    c = rep["chosen"]
    rates = ", ".join(f"{b} {r:.1%}" for b, r in c["rates"].items())
    png = where / "refusal.png"
    img = f"\n![refusal curves]({png})\n" if png.exists() else ""
    return (f"### Refusal calibration ({where})\n\nChosen threshold {c['threshold']:.3f} (refuse >= "
            f"{c['target_oos']:.0%} of out-of-scope): {rates}.{img}\n")


def render(runs_dir: Path) -> str:
    """Markdown for every evaluation output found under ``runs_dir`` (sorted by path)."""
    parts = [f"# clinqa evaluation report: {runs_dir}\n"]
    renderers = {"report.json": retrieval_section, "fusion.json": fusion_section,
                 "chunking.json": chunking_section, "models.json": models_section, "refusal.json": refusal_section}
    for path in sorted(runs_dir.rglob("*.json")):
        fn = renderers.get(path.name)
        if fn is not None:
            parts.append(fn(json.loads(path.read_text()), path.parent))
        elif path.name == "answers.json":
            body = json.loads(path.read_text())
            if isinstance(body, dict) and body.get("benchmark") in ("facts", "bioasq"):
                from clinqa.evaluation.facts import markdown

                parts.append(markdown(body, f"({path.parent})"))
    if len(parts) == 1:
        parts.append(f"No evaluation outputs (report.json, fusion.json, ...) under {runs_dir}.\n")
    return "\n".join(parts)
