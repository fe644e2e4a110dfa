"""Fusion study: one retrieval pass, re-fused under several rules, scored side by side.

Rules: the convex combination of normalised scores (:func:`clinqa.retrieval.fusion.convex`) with equal
weights, with and without the document list (weight 0.4, :func:`~clinqa.retrieval.fusion.parent_convex`);
RRF with k in {10, 60, 100} and equal weights; k = 60 with dense/BM25 weights 0.3/0.7 (the weighting of
a published clinical-notes study) and 0.7/0.3; k = 60 with the query-dependent "dynamic alpha" weights
of :func:`clinqa.evaluation.weights.dynamic_weights`; k = 60 and k = 10 with the document list as a
parent list of weight 1 (:func:`clinqa.retrieval.fusion.parent_rrf`); the document-list rules need the
lists searched with ``retrieval.document_weight`` above 0, else those rows equal their chunk-only rule;
and each list alone. Because the candidate lists are shared, differences come from the fusion rule only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from clinqa.evaluation import metrics as M
from clinqa.evaluation.datasets import Dataset
from clinqa.evaluation.retrieval import Lists, Scored, docs_in_order, fuse_docs, with_ci
from clinqa.evaluation.weights import dynamic_weights
from clinqa.settings import RetrievalSettings


@dataclass(frozen=True)
class FusionRule:
    """A fusion rule: ``fusion`` (``"rrf"`` or ``"convex"``), RRF ``k``, ``weights`` ``(dense, bm25)``
    or ``None`` for dynamic alpha, ``documents`` the document list's weight; ``only`` names a single
    list (``"dense"``/``"bm25"``) to use without fusion."""

    name: str
    k: int = 60
    weights: tuple[float, float] | None = (1.0, 1.0)
    only: str | None = None
    documents: float = 0.0
    fusion: str = "rrf"


RULES = (
    FusionRule("convex, equal", fusion="convex"),
    FusionRule("convex, equal, + document list 0.4", fusion="convex", documents=0.4),
    FusionRule("RRF k=60, equal"),
    FusionRule("RRF k=10, equal", k=10),
    FusionRule("RRF k=100, equal", k=100),
    FusionRule("RRF k=60, dense 0.3 / BM25 0.7", weights=(0.3, 0.7)),
    FusionRule("RRF k=60, dense 0.7 / BM25 0.3", weights=(0.7, 0.3)),
    FusionRule("RRF k=60, dynamic alpha", weights=None),
    FusionRule("RRF k=60, equal, + document list 1.0", documents=1.0),
    FusionRule("RRF k=10, equal, + document list 1.0", k=10, documents=1.0),
    FusionRule("dense only", only="dense"),
    FusionRule("BM25 only", only="bm25"),
)


def apply_rule(rule: FusionRule, query: str, dense: Scored, bm25: Scored,
               documents: list[tuple[str, float]] | None = None, dense_extra: dict[str, float] | None = None,
               depth: int | None = None) -> list[str]:
    """Document ranking of one query under ``rule`` (``documents``: the document list, ``(doc_id,
    cosine)`` best first; ``dense_extra`` and ``depth``: see :func:`clinqa.evaluation.retrieval.fuse_docs`)."""
    if rule.only == "dense":
        return docs_in_order([d for _, d, _ in dense])
    if rule.only == "bm25":
        return docs_in_order([d for _, d, _ in bm25])
    wd, wb = rule.weights if rule.weights is not None else dynamic_weights(query)
    return fuse_docs(dense, bm25, _settings(rule.fusion, rule.k, wd, wb, rule.documents), documents, depth,
                     dense_extra)


@lru_cache(maxsize=64)
def _settings(fusion: str, k: int, dense: float, bm25: float, documents: float) -> RetrievalSettings:
    """The retrieval settings of one rule, validated once (a study applies each rule to every question)."""
    return RetrievalSettings(fusion=fusion, rrf_k=k, dense_weight=dense, bm25_weight=bm25, document_weight=documents)


def default_rule(rs: RetrievalSettings) -> FusionRule:
    """The configured fusion (``fusion``, ``rrf_k``, list weights, ``document_weight``) as a rule, named
    e.g. ``configured (convex, dense 1 / BM25 1, document list 0.4)``."""
    how = f"RRF k={rs.rrf_k}" if rs.fusion == "rrf" else "convex"
    return FusionRule(f"configured ({how}, dense {rs.dense_weight:g} / BM25 {rs.bm25_weight:g}, "
                      f"document list {rs.document_weight:g})", k=rs.rrf_k,
                      weights=(rs.dense_weight, rs.bm25_weight), documents=rs.document_weight, fusion=rs.fusion)


def fusion_study(dataset: Dataset, lists: Lists, rules: tuple[FusionRule, ...] = RULES,
                 n_resamples: int = 2000, seed: int = 0, depth: int | None = None) -> list[dict[str, Any]]:
    """One row per rule: name, ``{metric: {value, ci95}}`` (see :func:`with_ci`) and
    ``vs_first``: the paired randomization test (:func:`clinqa.evaluation.metrics.paired_test`)
    of MRR@10 and nDCG@10 against the first rule (the production default), ``{metric: {diff,
    p_value}}``."""
    clusters = {q.qid: dataset.cluster_of(q.qid) for q in dataset.queries}
    text = {q.qid: q.text for q in dataset.queries}
    rows = []
    first: dict[str, dict[str, float]] | None = None
    for rule in rules:
        run = {qid: apply_rule(rule, text[qid], *ls, depth=depth) for qid, ls in lists.items()}
        per_query = M.evaluate(dataset.qrels, run)
        first = first or per_query
        vs = {m: M.paired_test({q: v[m] for q, v in per_query.items()}, {q: v[m] for q, v in first.items()},
                               seed=seed) for m in ("MRR@10", "nDCG@10")}
        rows.append({"rule": rule.name, "metrics": with_ci(per_query, clusters, n_resamples, seed),
                     "vs_first": {m: {"diff": r["diff"], "p_value": r["p_value"]} for m, r in vs.items()}})
    return rows
