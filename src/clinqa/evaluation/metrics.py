"""IR metrics, confidence intervals and significance tests for retrieval runs.

The per-query numbers are computed by ir-measures (MacAvaney, Macdonald & Ounis, "Streamlining
Evaluation with ir-measures", ECIR 2022) with trec_eval (NIST; through the ``pytrec_eval-terrier``
bindings) as the back end for P, Success, R and nDCG, and ir-measures' bundled MS MARCO
implementation for RR with a cut-off (trec_eval's ``recip_rank`` has none). The test suite
cross-checks every value against a second, independent implementation, ranx (Bassani, "ranx: A
Blazing-Fast Python Library for Ranking Evaluation and Comparison", ECIR 2022).

Notation: for a query q, ``rel(d)`` is the graded relevance of document d in the qrels (absent
or < 1 means not relevant, i.e. 0), ``R`` the set of documents with ``rel >= 1``, ``d_i`` the
document at rank i (1-based) of the run after de-duplication, and ``[x]`` is 1 if x holds else 0.

============  ======================================================================  ==============
ours          definition                                                              ir-measures
============  ======================================================================  ==============
MRR@k         1 / min{i <= k : d_i in R}, or 0 if no relevant document in the top k   ``RR@k``
P@k           |{i <= k : d_i in R}| / k   (always divided by k, even if the run is     ``P@k``
              shorter than k, as trec_eval does)
Hit@k         [exists i <= k : d_i in R]                                              ``Success@k``
Recall@k      |{i <= k : d_i in R}| / |R|                                             ``R@k``
nDCG@k        DCG@k / IDCG@k with DCG@k = sum_{i<=k} rel(d_i) / log2(i + 1) (gain =   ``nDCG@k``
              the grade itself, not 2^rel - 1; trec_eval's ``ndcg_cut``), and IDCG@k
              the DCG@k of the qrels' documents sorted by grade, best first
============  ======================================================================  ==============

Any ``k`` works (``"Recall@50"``); :data:`METRICS` is the default set. The relevance threshold of
the binary measures is ``rel >= 1``; nDCG uses the grades.

Conventions (each one a trap that the libraries do not handle the way we want, so it is decided
here, before the data reach them):

1. Duplicates. A run is a list, best first, and may repeat an id (e.g. after fusing chunk lists
   into document lists). Only the first (best) occurrence counts; later ones are dropped before
   evaluation. Handing a duplicate to the libraries would let it count twice (P) or, in their
   dict-of-dict input, keep the *last* score.
2. Ties. The libraries sort by score and break ties their own way (trec_eval by document id,
   descending; the MS MARCO code by id, ascending). The list position is the ranking here, so
   position i (0-based) of an n-long list is handed over with the strictly decreasing score
   ``n - i``: library rank = list position.
3. Query set. Only queries of the qrels with at least one relevant document (``rel >= 1``) are
   scored: with none, recall and nDCG are undefined (0/0) and the others are 0 for every system,
   so such queries would only dilute means. (trec_eval/pytrec_eval would average them in as 0 if
   they appear in the run; we drop them.) A scored query that the run lacks, or for which it
   returns an empty list, scores 0 on every metric (trec_eval's ``-c``). Run queries absent
   from the qrels are ignored.
4. Graded relevance. nDCG uses the grades as gains (see above), not the binarised labels.

Uncertainty: :func:`bootstrap_ci` gives a percentile bootstrap interval of the mean over queries
(Efron & Tibshirani, "An Introduction to the Bootstrap", 1993), optionally a cluster bootstrap
that resamples whole clusters of correlated queries (Field & Welsh, "Bootstrapping clustered
data", JRSS B 69(3), 2007). :func:`paired_test` is the two-sided paired randomization test
recommended by Smucker, Allan & Carterette ("A comparison of statistical significance tests for
information retrieval evaluation", CIKM 2007).

File formats: TREC runs (``qid Q0 docid rank score tag``), BEIR qrels TSV (header ``query-id
corpus-id score``) and TREC qrels (``qid 0 docid rel``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
from ir_measures import providers as _providers

__all__ = [
    "METRICS",
    "Qrels",
    "Run",
    "bootstrap_ci",
    "dedupe",
    "evaluate",
    "mean",
    "paired_test",
    "read_qrels",
    "read_trec_run",
    "write_trec_run",
]

METRICS: tuple[str, ...] = (
    "MRR@10",
    "P@1",
    "P@3",
    "P@5",
    "Hit@1",
    "Hit@3",
    "Hit@5",
    "Hit@10",
    "Recall@10",
    "Recall@30",
    "Recall@100",
    "nDCG@10",
)

Qrels = dict[str, dict[str, int]]
"""qid -> {docid: graded relevance}; ``>= 1`` is relevant, absent (or < 1) is not relevant."""
Run = dict[str, list[str]]
"""qid -> docids best first; may contain duplicates (the first occurrence counts)."""

# our name -> ir-measures measure family
_FAMILIES: dict[str, Any] = {
    "MRR": ir_measures.RR,
    "P": ir_measures.P,
    "Hit": ir_measures.Success,
    "Recall": ir_measures.R,
    "nDCG": ir_measures.nDCG,
}
_METRIC_RE = re.compile(r"^(MRR|P|Hit|Recall|nDCG)@([1-9][0-9]*)$")

# Explicit providers: trec_eval for everything it has, the MS MARCO code for RR@k. Never the
# default pipeline, which would silently fall back to ranx (our cross-check) when it is installed.
_PIPELINE = _providers.FallbackProvider([ir_measures.pytrec_eval, ir_measures.msmarco])

# Bootstrap / permutation work is done in blocks of about this many matrix cells (memory bound).
_BLOCK_CELLS = 2_000_000
# paired_test enumerates all 2**n sign assignments up to this many queries (if n_resamples allows)
_MAX_EXACT_N = 16


def _measure(name: str) -> Any:
    match = _METRIC_RE.match(name)
    if match is None:
        raise ValueError(
            f"unknown metric {name!r}: expected <family>@<k> with family one of {sorted(_FAMILIES)} and k >= 1"
        )
    return _FAMILIES[match.group(1)] @ int(match.group(2))


def dedupe(docids: Iterable[str]) -> list[str]:
    """The ids in order with every repeat after the first (best) occurrence dropped."""
    return list(dict.fromkeys(docids))


def _relevant_qrels(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Only the ``rel >= 1`` judgments of the queries that have any; validates types."""
    out: dict[str, dict[str, int]] = {}
    for qid, judged in qrels.items():
        if not isinstance(qid, str):
            raise TypeError(f"query ids must be str, got {type(qid).__name__} {qid!r}")
        rel: dict[str, int] = {}
        for docid, grade in judged.items():
            if not isinstance(docid, str):
                raise TypeError(f"document ids must be str, got {type(docid).__name__} {docid!r} (query {qid!r})")
            if isinstance(grade, bool) or not isinstance(grade, int | float):
                raise TypeError(f"relevance grades must be int, got {type(grade).__name__} for ({qid!r}, {docid!r})")
            if not float(grade).is_integer():
                raise ValueError(f"relevance grades must be integers, got {grade!r} for ({qid!r}, {docid!r})")
            if grade >= 1:
                rel[docid] = int(grade)
        if rel:
            out[qid] = rel
    return out


def evaluate(qrels: Qrels, run: Run, metrics: Sequence[str] = METRICS) -> dict[str, dict[str, float]]:
    """Per-query metric values of a run.

    ``qrels``: qid -> {docid: grade} (``>= 1`` relevant). ``run``: qid -> docids best first.
    ``metrics``: names like ``"MRR@10"``, ``"P@3"``, ``"Hit@5"``, ``"Recall@100"``, ``"nDCG@10"``
    (definitions in the module docstring).

    Returns ``{qid: {metric: value}}`` for every qrels query with at least one relevant document
    (others are excluded); a scored query missing from the run (or with an empty list) gets 0 on
    every metric; run queries not in the qrels are ignored. Duplicate ids in a list count once,
    at their first position; the list order is the ranking (no tie-breaking by id).

    Raises ``ValueError`` for an unknown metric name, an empty ``metrics`` or a non-integer grade,
    ``TypeError`` for non-string ids. Computed by ir-measures / trec_eval (see module docstring).
    """
    names = list(dict.fromkeys(metrics))
    if not names:
        raise ValueError("no metrics requested")
    measures = {name: _measure(name) for name in names}
    by_measure = {measure: name for name, measure in measures.items()}

    rel_qrels = _relevant_qrels(qrels)
    lib_run: dict[str, dict[str, float]] = {}
    for qid in rel_qrels:
        docids = run.get(qid)
        if not docids:
            continue
        if isinstance(docids, str):
            raise TypeError(f"run[{qid!r}] must be a list of document ids, not a str")
        unique = dedupe(docids)
        for docid in unique:
            if not isinstance(docid, str):
                raise TypeError(f"document ids must be str, got {type(docid).__name__} {docid!r} (query {qid!r})")
        n = len(unique)
        lib_run[qid] = {docid: float(n - i) for i, docid in enumerate(unique)}

    out: dict[str, dict[str, float]] = {qid: dict.fromkeys(names, 0.0) for qid in rel_qrels}
    if lib_run:
        # The libraries only see the queries that have both judgments and results.
        lib_qrels = {qid: rel_qrels[qid] for qid in lib_run}
        for metric in _PIPELINE.iter_calc(list(measures.values()), lib_qrels, lib_run):
            out[metric.query_id][by_measure[metric.measure]] = float(metric.value)
    return out


def mean(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Arithmetic mean of each metric over the queries of :func:`evaluate`'s output.

    ``{qid: {metric: value}}`` -> ``{metric: mean}`` (``math.fsum``); ``{}`` for no queries.
    Raises ``ValueError`` if the queries do not all carry the same metrics.
    """
    if not per_query:
        return {}
    rows = list(per_query.values())
    names = list(rows[0])
    for qid, row in per_query.items():
        if set(row) != set(names):
            raise ValueError(f"query {qid!r} has metrics {sorted(row)}, expected {sorted(names)}")
    return {name: math.fsum(row[name] for row in rows) / len(rows) for name in names}


def _check_values(values: Mapping[str, float], what: str) -> None:
    for qid, value in values.items():
        if not math.isfinite(value):
            raise ValueError(f"{what}[{qid!r}] = {value!r} is not a finite number")


def bootstrap_ci(
    values: Mapping[str, float],
    clusters: Mapping[str, str] | None = None,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean over queries.

    ``values``: qid -> per-query value (one metric). Without ``clusters`` the queries are
    resampled with replacement (Efron & Tibshirani 1993, percentile method). With ``clusters``
    (qid -> cluster id, e.g. the gold document or the patient; extra keys are ignored) whole
    clusters are resampled with replacement and each replicate's statistic is the mean over all
    queries of the drawn clusters (cluster bootstrap, Field & Welsh 2007), so queries that share a
    cluster are not counted as independent evidence; expect a wider interval when they are
    correlated.

    Returns ``(low, high)``: the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles
    (numpy's linear interpolation) of ``n_resamples`` replicate means. Deterministic for a given
    ``seed`` and content (qids are sorted first, so dict order does not matter). All values equal
    -> exactly ``(v, v)``.

    Raises ``ValueError`` for no values, non-finite values, a qid without a cluster,
    ``n_resamples < 1`` or ``confidence`` outside (0, 1).
    """
    if not values:
        raise ValueError("bootstrap_ci needs at least one value")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    _check_values(values, "values")
    qids = sorted(values)
    x = np.array([values[q] for q in qids], dtype=np.float64)
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))

    if clusters is None:
        sums, sizes = x, np.ones_like(x)
    else:
        missing = [q for q in qids if q not in clusters]
        if missing:
            raise ValueError(f"{len(missing)} qids have no cluster, e.g. {missing[:5]}")
        index: dict[str, int] = {}
        for cid in sorted({str(clusters[q]) for q in qids}):
            index[cid] = len(index)
        members = np.array([index[str(clusters[q])] for q in qids])
        sums = np.bincount(members, weights=x, minlength=len(index))
        sizes = np.bincount(members, minlength=len(index)).astype(np.float64)

    rng = np.random.default_rng(seed)
    g = len(sums)
    replicates = np.empty(n_resamples, dtype=np.float64)
    block = max(1, _BLOCK_CELLS // g)
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        draw = rng.integers(0, g, size=(stop - start, g))
        replicates[start:stop] = sums[draw].sum(axis=1) / sizes[draw].sum(axis=1)
    alpha = 1.0 - confidence
    low, high = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0])
    return (float(low), float(high))


def paired_test(
    a: Mapping[str, float],
    b: Mapping[str, float],
    n_resamples: int = 10000,
    seed: int = 0,
) -> dict[str, float]:
    """Two-sided paired randomization (sign-flip permutation) test of mean(a) = mean(b).

    ``a``, ``b``: qid -> per-query value of one metric for systems A and B; only the common qids
    are used. Under the null hypothesis the labels A/B are exchangeable within each query, so
    each per-query difference ``d_q = a_q - b_q`` keeps or flips its sign with probability 1/2
    (Smucker, Allan & Carterette, CIKM 2007). The statistic is the mean difference; the p-value
    is the share of sign assignments whose ``|mean|`` reaches the observed one. If
    ``n <= 16`` and ``2**n <= n_resamples``, all assignments are enumerated (exact test, p = count / 2**n);
    otherwise ``n_resamples`` random ones are drawn (seeded) and ``p = (count + 1) /
    (n_resamples + 1)`` (the observed assignment counts as one draw, so p > 0; Phipson & Smyth
    2010). Identical systems give p = 1.

    Returns ``{"mean_a", "mean_b", "diff" (= mean_a - mean_b over the common qids), "p_value",
    "n" (number of common qids)}``. Raises ``ValueError`` if there is no common qid, a value is
    not finite or ``n_resamples < 1``.
    """
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    _check_values(a, "a")
    _check_values(b, "b")
    qids = sorted(set(a) & set(b))
    if not qids:
        raise ValueError("paired_test: a and b have no query in common")
    n = len(qids)
    va = np.array([a[q] for q in qids], dtype=np.float64)
    vb = np.array([b[q] for q in qids], dtype=np.float64)
    d = va - vb
    observed = abs(float(d.sum()))
    # tolerate rounding when a flipped sum equals the observed one exactly in real arithmetic
    tol = 1e-9 * max(float(np.abs(d).sum()), 1e-300)

    if n <= _MAX_EXACT_N and 2**n <= n_resamples:
        bits = (np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
        flipped = np.abs((1 - 2 * bits) @ d)
        p_value = float(np.count_nonzero(flipped >= observed - tol)) / 2**n
    else:
        rng = np.random.default_rng(seed)
        count = 0
        block = max(1, _BLOCK_CELLS // n)
        for start in range(0, n_resamples, block):
            size = min(n_resamples, start + block) - start
            signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n))
            count += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
        p_value = (count + 1) / (n_resamples + 1)

    mean_a = math.fsum(va) / n
    mean_b = math.fsum(vb) / n
    return {
        "mean_a": mean_a,
        "mean_b": mean_b,
        "diff": math.fsum(d) / n,
        "p_value": min(1.0, p_value),
        "n": n,
    }


def _check_token(value: str, what: str) -> None:
    if not value or any(ch.isspace() for ch in value):
        raise ValueError(f"{what} {value!r} is empty or contains whitespace; the TREC format cannot hold it")


def write_trec_run(
    run: Run,
    path: Path,
    tag: str,
    scores: Mapping[str, Sequence[float]] | None = None,
) -> None:
    """Write a run in the standard TREC format, one line ``qid Q0 docid rank score tag`` per document.

    Queries in sorted order, documents in list order, rank from 1. Duplicate ids are dropped after
    their first occurrence (trec_eval rejects duplicates) and the ranks renumbered. Without
    ``scores``, score = 1/rank (strictly decreasing, so trec_eval's score order equals the rank
    order). With ``scores`` (qid -> one score per list entry, aligned with ``run[qid]`` before
    de-duplication) they must not increase along the list; note that trec_eval breaks equal
    scores by docid, not by our rank column. Scores are written with full (repr) precision.

    Raises ``ValueError`` for whitespace in a qid, docid or tag, a scores list of the wrong
    length or increasing scores; ``KeyError`` if ``scores`` lacks a query of the run.
    """
    _check_token(tag, "tag")
    lines: list[str] = []
    for qid in sorted(run):
        _check_token(qid, "query id")
        docids = run[qid]
        if scores is not None:
            given = list(scores[qid])
            if len(given) != len(docids):
                raise ValueError(f"query {qid!r}: {len(given)} scores for {len(docids)} documents")
        seen: set[str] = set()
        rank = 0
        previous = math.inf
        for i, docid in enumerate(docids):
            if docid in seen:
                continue
            seen.add(docid)
            _check_token(docid, "document id")
            rank += 1
            if scores is None:
                score = 1.0 / rank
            else:
                score = float(given[i])
                if not math.isfinite(score):
                    raise ValueError(f"query {qid!r}: score {score!r} of {docid!r} is not finite")
                if score > previous:
                    raise ValueError(f"query {qid!r}: scores increase at rank {rank} ({previous!r} -> {score!r})")
                previous = score
            lines.append(f"{qid} Q0 {docid} {rank} {score!r} {tag}\n")
    Path(path).write_text("".join(lines), encoding="utf-8")


def read_trec_run(path: Path) -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``, whitespace separated).

    Each query's documents are ordered by score, highest first, as trec_eval does; equal scores
    keep the order of the rank column (then of the file), where trec_eval would order them by
    docid. Repeated ids are kept (``evaluate`` counts the first). Blank lines are skipped.
    Raises ``ValueError`` (with the line number) for a line without 6 fields or with a
    non-numeric rank or score.
    """
    entries: dict[str, list[tuple[float, float, int, str]]] = {}
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 6:
                raise ValueError(f"{path}:{lineno}: expected 6 fields 'qid Q0 docid rank score tag', got {line!r}")
            qid, _, docid, rank, score, _ = fields
            try:
                key = (-float(score), float(rank), lineno, docid)
            except ValueError as exc:
                raise ValueError(f"{path}:{lineno}: non-numeric rank or score in {line!r}") from exc
            entries.setdefault(qid, []).append(key)
    return {qid: [docid for *_, docid in sorted(rows)] for qid, rows in entries.items()}


def _grade(text: str, path: Path, lineno: int) -> int:
    try:
        value = float(text)
    except ValueError as exc:
        raise ValueError(f"{path}:{lineno}: relevance {text!r} is not a number") from exc
    if not value.is_integer():
        raise ValueError(f"{path}:{lineno}: relevance {text!r} is not an integer")
    return int(value)


def read_qrels(path: Path) -> Qrels:
    """Read relevance judgments: a BEIR qrels TSV or a TREC qrels file.

    BEIR: tab separated ``query-id corpus-id score`` with that header line (a first line whose
    score field is not numeric is taken as the header). TREC: whitespace separated
    ``qid iteration docid rel`` (iteration ignored). The format is told per line by the number
    of fields (3 = BEIR, 4 = TREC); BEIR lines are split on tabs when the line has any, so ids
    may contain spaces there. Grades are kept as given, including 0 and negative ones
    (``evaluate`` treats < 1 as not relevant); a pair judged twice keeps its highest grade.

    Returns qid -> {docid: grade}. Raises ``ValueError`` (with the line number) for any other
    field count or a non-integer grade.
    """
    path = Path(path)
    qrels: Qrels = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            fields = line.split("\t") if "\t" in line else line.split()
            fields = [f.strip() for f in fields]
            if len(fields) == 3:
                qid, docid, grade_text = fields
            elif len(fields) == 4:
                qid, _, docid, grade_text = fields
            else:
                raise ValueError(
                    f"{path}:{lineno}: expected 'query-id corpus-id score' or 'qid 0 docid rel', got {line!r}"
                )
            if lineno == 1 and not _is_number(grade_text):
                continue  # header
            grade = _grade(grade_text, path, lineno)
            judged = qrels.setdefault(qid, {})
            judged[docid] = max(grade, judged.get(docid, grade))
    return qrels


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
