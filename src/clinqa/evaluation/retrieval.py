"""Retrieval evaluation: ingest a BEIR corpus into a throwaway store, run every query through
the same hybrid search users run, and score document-level runs.

Chunk hits are aggregated to corpus documents: **a document's rank is the rank of its best
chunk** (the first time any of its chunks appears in the fused list); later chunks of the same
document are dropped. Three runs come from one retrieval pass: ``hybrid`` (weighted RRF, what
``clinqa ask`` uses without a reranker), ``dense`` and ``bm25`` (each list alone). With
``rerank.model`` set a fourth run, ``rerank``, reorders the production candidate pool (union of
dense top-``dense_k`` and BM25 top-``bm25_k``, 30 + 30 by default) by the cross-encoder, as
``clinqa ask`` then does; documents outside that pool are not ranked by it.

Candidate lists are retrieved ``depth`` deep per list (100 by default, so Recall@100 is
defined; production uses ``retrieval.dense_k``/``bm25_k`` = 30). Candidate-pool recall is
computed from the first 30 chunks of each list: the share of judged queries with a relevant
document in the union of dense top-30 and BM25 top-30 (the ceiling for any reranker of that
pool).
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from clinqa.chunking import CHUNKING_VERSION
from clinqa.errors import ConfigError
from clinqa.evaluation import metrics as M
from clinqa.evaluation.datasets import Dataset, Query
from clinqa.paths import cache_dir
from clinqa.pipeline import Pipeline
from clinqa.rerank import rerank_hits
from clinqa.retrieval.hybrid import RetrievalResult, Retrieved, bm25_only, fuse_hits, fuse_scored
from clinqa.settings import RetrievalSettings, Settings

RUNS = ("hybrid", "dense", "bm25")


def docs_in_order(doc_ids: list[str]) -> list[str]:
    """Document ids by the rank of their best chunk: ``["a", "b", "a", "c"] -> ["a", "b", "c"]``."""
    seen: set[str] = set()
    out: list[str] = []
    for d in doc_ids:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def with_ci(per_query: dict[str, dict[str, float]], clusters: dict[str, str], n_resamples: int = 2000,
            seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{metric: {"value": mean, "ci95": [lo, hi]}}`` with a cluster bootstrap over queries."""
    out: dict[str, dict[str, Any]] = {}
    for m in M.METRICS:
        values = {qid: v[m] for qid, v in per_query.items()}
        lo, hi = M.bootstrap_ci(values, {q: clusters.get(q, q) for q in values}, n_resamples=n_resamples, seed=seed)
        out[m] = {"value": float(np.mean(list(values.values()))) if values else 0.0, "ci95": [lo, hi]}
    return out


Scored = list[tuple[str, str, float]]
"""``(chunk_id, doc_id, score)`` best first: one chunk list of one question."""
Lists = dict[str, tuple[Scored, Scored, list[tuple[str, float]], dict[str, float]]]
"""qid -> (dense, bm25, documents, dense_extra): :data:`Scored` chunk lists (cosine, BM25 score),
``(doc_id, cosine)`` best first for the document list (empty when ``retrieval.document_weight`` is 0)
and the exact cosines of BM25 hits outside the dense list (convex fusion;
:attr:`clinqa.retrieval.hybrid.RetrievalResult.dense_extra`)."""


def run_searches(pipe: Pipeline, queries: list[Query], depth: int, progress: bool = True,
                 reranked: dict[str, list[tuple[str, str]]] | None = None,
                 rerank_ms: list[float] | None = None) -> tuple[Lists, list[float]]:
    """Search every query with ``depth`` candidates per list under the production filters.

    Returns ``({qid: (dense, bm25, documents)}, latencies_ms)`` (see :data:`Lists`). When ``pipe``
    has a reranker and ``reranked`` is given, it is filled with ``{qid: reranked pool}`` (the
    production pool: fused dense top-``dense_k`` and BM25 top-``bm25_k``, reordered by the
    reranker) and ``rerank_ms`` with the reranking time per query.
    """
    rs = pipe.settings.retrieval
    filters = pipe.filters()
    lists: Lists = {}
    latencies: list[float] = []
    reranker = pipe.reranker if reranked is not None else None
    for q in tqdm(queries, desc="queries", disable=not progress):
        t0 = time.perf_counter()
        res = pipe.search(q.text, filters, k=1, rerank=False, depth=depth)
        latencies.append((time.perf_counter() - t0) * 1e3)
        lists[q.qid] = ([(h.chunk.chunk_id, h.chunk.doc_id, h.score) for h in res.dense],
                        [(h.chunk.chunk_id, h.chunk.doc_id, h.score) for h in res.bm25],
                        list(res.documents), dict(res.dense_extra))
        if reranker is not None and reranked is not None:
            pool = production_pool(res, rs)
            t1 = time.perf_counter()
            out = rerank_hits(reranker, q.text, pool, len(pool))
            if rerank_ms is not None:
                rerank_ms.append((time.perf_counter() - t1) * 1e3)
            reranked[q.qid] = [(h.chunk.chunk_id, h.chunk.doc_id) for h in out]
    return lists, latencies


def production_pool(res: RetrievalResult, rs: RetrievalSettings) -> list[Retrieved]:
    """The candidate pool ``clinqa ask`` reranks, rebuilt from deeper lists: the configured fusion of
    dense top-``rs.dense_k`` and BM25 top-``rs.bm25_k``, every chunk of the union, fused order."""
    dense, bm25 = res.dense[: rs.dense_k], res.bm25[: rs.bm25_k]
    extra = {}
    if rs.fusion == "convex":  # cosines of BM25 hits outside the cut dense list: from the deeper one or as searched
        cos = {h.chunk.chunk_id: h.score for h in res.dense} | res.dense_extra
        extra = {c: cos[c] for c in bm25_only([h.chunk.chunk_id for h in dense], [h.chunk.chunk_id for h in bm25])
                 if c in cos}
    return fuse_hits(dense, bm25, rs, documents=res.documents[: rs.document_k], dense_extra=extra)


def fuse_docs(dense: Scored, bm25: Scored, settings: RetrievalSettings,
              documents: list[tuple[str, float]] | None = None, depth: int | None = None,
              dense_extra: dict[str, float] | None = None) -> list[str]:
    """The configured fusion of the chunk lists (:func:`clinqa.retrieval.hybrid.fuse_scored`, the code
    ``clinqa ask`` runs; the document list a parent list when given and ``settings.document_weight`` is
    above 0), then documents by their best chunk. ``depth``: the lists were searched that deep (as
    :meth:`clinqa.pipeline.Pipeline.search` deepens them), not ``settings``' own ``*_k``; ``dense_extra``:
    the exact cosines of BM25 hits outside the dense list (:data:`Lists`)."""
    if depth is not None:
        settings = settings.model_copy(update={k: max(depth, getattr(settings, k))
                                               for k in ("dense_k", "bm25_k", "document_k")})
    doc_of = {c: d for c, d, _ in (*dense, *bm25)}
    fused = fuse_scored([(c, s) for c, _, s in dense], [(c, s) for c, _, s in bm25], settings, doc_of, documents,
                        dense_extra)
    return docs_in_order([doc_of[c] for c, _ in fused])


@dataclass
class RetrievalEval:
    """Everything one ``clinqa eval retrieval`` run measured."""

    dataset: str
    settings: dict[str, Any]
    model_id: str
    n_queries: int
    n_judged: int
    n_documents: int
    n_chunks: int
    ingest_seconds: float
    depth: int
    runs: dict[str, M.Run]
    per_query: dict[str, dict[str, dict[str, float]]]
    metrics: dict[str, dict[str, dict[str, Any]]]
    pool_recall: dict[str, Any]
    latency_ms: dict[str, float]
    clusters: dict[str, str] = field(default_factory=dict)
    subset: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """JSON-ready report (runs and per-query values left out)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("runs", "per_query", "clusters")}
        return d


def eval_store_dir(dataset: Dataset, settings: Settings, model_id: str, ids: set[str] | None) -> Path:
    """Throwaway store folder for this dataset, chunking, model and subset (reused by re-runs)."""
    h = hashlib.sha256()
    h.update(str(dataset.corpus).encode())
    h.update(settings.chunking.model_dump_json().encode())
    h.update(str(CHUNKING_VERSION).encode())
    h.update(model_id.encode())
    h.update(",".join(sorted(ids)).encode() if ids is not None else b"full")
    if settings.embedding.unit_vectors == "late":  # its unit vectors exist only from its own ingest
        h.update(b"late units")
    return cache_dir() / "eval" / f"{dataset.name}-{h.hexdigest()[:12]}"


def build_eval_pipeline(dataset: Dataset, settings: Settings, distractors: int | None, seed: int,
                        progress: bool = True) -> tuple[Pipeline, dict[str, Any], float]:
    """Ingest the dataset corpus (or a subset) into its throwaway store; returns the pipeline,
    a subset description and the ingest time in seconds (0 when everything was unchanged)."""
    ids = dataset.subset_ids(distractors, seed)
    probe = Pipeline(settings)
    model_id = probe.encoder.model_id
    store = eval_store_dir(dataset, settings, model_id, ids)
    # retrieval studies quote nothing: answer units are embedded (and cached) only when asked for, except
    # late-pooled ones, which only an ingest can make
    late = settings.embedding.unit_vectors == "late"
    eval_settings = settings.model_copy(update={
        "data_dir": store, "answer": settings.answer.model_copy(update={"precompute_units": late})})
    # same model: load it once
    pipe = Pipeline(eval_settings, cache_path=Path(settings.data_dir) / "embeddings.sqlite", encoder=probe.encoder)
    total = len(ids) if ids is not None else None
    report = pipe.ingest_documents(dataset.documents(ids), progress=progress, total=total)
    if report.failed:
        raise RuntimeError(f"{dataset.corpus}: {len(report.failed)} documents failed: {report.failed[:3]}")
    subset = {"distractors": distractors, "seed": seed, "documents": len(ids) if ids is not None else None}
    return pipe, subset, report.seconds if report.documents else 0.0


def evaluate_retrieval(
    dataset: Dataset,
    settings: Settings,
    distractors: int | None = None,
    seed: int = 0,
    depth: int = 100,
    pool_depth: int = 30,
    n_resamples: int = 2000,
    progress: bool = True,
    pipe: Pipeline | None = None,
    only_queries: set[str] | None = None,
) -> RetrievalEval:
    """Run every query of ``dataset`` and score the document-level runs (see module docstring).
    ``only_queries`` restricts the queries (e.g. to those a trained model never saw); the corpus
    and subset stay as for the whole dataset."""
    subset: dict[str, Any] = {}
    ingest_s = 0.0
    if pipe is None:
        pipe, subset, ingest_s = build_eval_pipeline(dataset, settings, distractors, seed, progress)
    if only_queries is not None:
        missing = only_queries - {q.qid for q in dataset.queries}
        if missing:
            raise ConfigError(f"{len(missing)} query ids are not in {dataset.name}, e.g. {sorted(missing)[:3]}")
        dataset = replace(dataset, queries=[q for q in dataset.queries if q.qid in only_queries],
                          qrels={q: r for q, r in dataset.qrels.items() if q in only_queries})
    rs = settings.retrieval
    reranked: dict[str, list[tuple[str, str]]] = {}
    rerank_ms: list[float] = []
    lists, latencies = run_searches(pipe, dataset.queries, depth, progress, reranked, rerank_ms)
    queries = dataset.queries
    runs: dict[str, M.Run] = {r: {} for r in RUNS}
    if pipe.reranker is not None:
        runs["rerank"] = {qid: docs_in_order([d for _, d in pool]) for qid, pool in reranked.items()}
    pool_hit: dict[str, float] = {}
    for q in queries:
        dense, bm25, documents, extra = lists[q.qid]
        runs["hybrid"][q.qid] = fuse_docs(dense, bm25, rs, documents, depth, extra)
        runs["dense"][q.qid] = docs_in_order([d for _, d, _ in dense])
        runs["bm25"][q.qid] = docs_in_order([d for _, d, _ in bm25])
        gold = dataset.qrels.get(q.qid)
        if gold:
            pool = {d for _, d, _ in dense[:pool_depth]} | {d for _, d, _ in bm25[:pool_depth]}
            pool_hit[q.qid] = float(any(d in pool for d in gold))
    clusters = {q.qid: dataset.cluster_of(q.qid) for q in queries}
    per_query = {name: M.evaluate(dataset.qrels, run) for name, run in runs.items()}
    metrics = {name: with_ci(pq, clusters, n_resamples, seed) for name, pq in per_query.items()}
    lo, hi = M.bootstrap_ci(pool_hit, {q: clusters[q] for q in pool_hit}, n_resamples=n_resamples, seed=seed)
    lat = np.array(latencies) if latencies else np.zeros(1)
    return RetrievalEval(
        dataset=dataset.name, settings=json.loads(settings.model_dump_json(exclude={"data_dir"})),
        model_id=pipe.encoder.model_id, n_queries=len(queries), n_judged=len(per_query["hybrid"]),
        n_documents=len(pipe.store.documents()), n_chunks=pipe.store.count(), ingest_seconds=ingest_s,
        depth=depth, runs=runs, per_query=per_query, metrics=metrics,
        pool_recall={"depth": pool_depth, "value": float(np.mean(list(pool_hit.values()))) if pool_hit else 0.0,
                     "ci95": [lo, hi]},
        latency_ms={"p50": float(np.percentile(lat, 50)), "p95": float(np.percentile(lat, 95)),
                    **({"rerank_p50": float(np.percentile(rerank_ms, 50)),
                        "rerank_p95": float(np.percentile(rerank_ms, 95))} if rerank_ms else {})},
        clusters=clusters, subset=subset,
    )


def write_outputs(ev: RetrievalEval, out: Path) -> None:
    """``metrics.json`` (metric -> value), ``run.trec`` and ``per_query.csv`` for the production
    run (``rerank`` when a reranker is configured, else ``hybrid``); ``report.json``
    (everything, with CIs); ``run.<name>.trec`` for every run."""
    out.mkdir(parents=True, exist_ok=True)
    main = "rerank" if "rerank" in ev.runs else "hybrid"
    (out / "metrics.json").write_text(json.dumps({m: v["value"] for m, v in ev.metrics[main].items()}, indent=2))
    (out / "report.json").write_text(json.dumps(ev.summary(), indent=2))
    M.write_trec_run(ev.runs[main], out / "run.trec", tag=f"clinqa-{main}")
    M.write_trec_run(ev.runs["hybrid"], out / "run.hybrid.trec", tag="clinqa-hybrid")
    M.write_trec_run(ev.runs["dense"], out / "run.dense.trec", tag="clinqa-dense")
    M.write_trec_run(ev.runs["bm25"], out / "run.bm25.trec", tag="clinqa-bm25")
    if "rerank" in ev.runs:
        M.write_trec_run(ev.runs["rerank"], out / "run.rerank.trec", tag="clinqa-rerank")
    with (out / "per_query.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["qid", "cluster", *M.METRICS])
        for qid, vals in sorted(ev.per_query[main].items()):
            w.writerow([qid, ev.clusters.get(qid, qid), *(f"{vals[m]:.6f}" for m in M.METRICS)])


def read_per_query(path: Path) -> dict[str, dict[str, float]]:
    """``per_query.csv`` (a file or the output folder holding it) -> ``{qid: {metric: value}}``."""
    path = path / "per_query.csv" if path.is_dir() else path
    if not path.is_file():
        raise ConfigError(f"{path}: no per_query.csv (compare the --output folders of `clinqa eval retrieval`)")
    with path.open(newline="") as fh:
        return {row["qid"]: {m: float(row[m]) for m in M.METRICS if m in row} for row in csv.DictReader(fh)}


def compare_runs(a: Path, b: Path, n_resamples: int = 10000, seed: int = 0) -> dict[str, dict[str, float]]:
    """Paired randomization test per metric between two ``--output`` folders (common queries)."""
    pa, pb = read_per_query(a), read_per_query(b)
    return {m: M.paired_test({q: v[m] for q, v in pa.items()}, {q: v[m] for q, v in pb.items()},
                             n_resamples=n_resamples, seed=seed) for m in M.METRICS}
