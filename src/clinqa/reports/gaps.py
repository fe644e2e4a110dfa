"""The content-gap report: what clinicians ask that the corpus does not answer.

In a published clinician pilot, 43% of failures were content missing from the corpus. This
report groups the failing questions of the query log into topics, so the missing content can
be found and ingested.

- **Which questions**: poorly rated ones (latest rating < 0.6) and refused ones nobody rated
  0.6 or better (an accepted refusal is not a gap), from every source but ``replay``.
  Questions logged without an embedding (model-only ``no-context`` answers) are skipped and
  counted, and so are questions embedded by another encoder than
  the newest failing question's (their vectors are not comparable).
- **Clustering**: the L2-normalised logged query embeddings are clustered by agglomerative
  clustering (:class:`sklearn.cluster.AgglomerativeClustering`) with cosine distance, average
  linkage and a distance threshold (default 0.5): two groups merge while the mean cosine
  distance between their questions is below the threshold, i.e. their mean cosine similarity is
  above 0.5. Clusters with fewer than ``min_size`` distinct questions (case and spacing
  ignored) are not listed as topics (``unclustered``): the same question asked twice is not a
  topic. A topic's ``count`` counts every ask, ``distinct`` the different questions.
- **Labels**: the three most distinctive terms of each cluster by class-based TF-IDF (c-TF-IDF,
  Grootendorst 2022, BERTopic): each cluster is one class; ``tf(t, c)`` is the number of the
  cluster's questions containing the content word ``t`` (stopwords dropped, as in
  :func:`clinqa.evidence.coverage.content_terms`) over the cluster's total term count, and the
  weight is ``tf(t, c) * log(1 + A / f(t))`` with ``A`` the mean term count per class and
  ``f(t)`` the count of ``t`` over all classes (small clusters included as classes).
- **Examples**: up to three distinct questions of a cluster, those closest (cosine) to the
  cluster's mean direction.
- **Unclustered examples**: the failing questions in no topic (clusters too small, no stored
  embedding, another encoder), newest first, up to ten distinct ones (case and spacing ignored),
  each with whether it was refused and its latest rating, so the corpus owner sees something even
  when no topic forms. The text report lists them when there is no topic; the JSON always has them.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import numpy as np

from clinqa.evidence.coverage import content_terms
from clinqa.logs.querylog import FAILURE_CATEGORIES, QueryLog, latest_feedback

#: default cosine-distance threshold of the clustering (mean similarity above 0.5 merges)
DISTANCE_THRESHOLD = 0.5
#: a question whose latest rating is below this counts as poorly rated
POOR_BELOW = 0.6
#: how many failing questions outside every topic are listed (``unclustered_examples``)
MAX_UNCLUSTERED_EXAMPLES = 10


def failing(row: dict[str, Any]) -> bool:
    """True when a logged question's latest rating is below 0.6, or it was refused and nobody
    rated the refusal 0.6 or better (a refusal the user accepted, e.g. of an off-topic
    question, is not missing content)."""
    f = latest_feedback(row)
    if f is not None:
        return float(f["score"]) < POOR_BELOW
    return bool(row["refused"])


def cluster_vectors(vectors: np.ndarray, distance_threshold: float = DISTANCE_THRESHOLD) -> np.ndarray:
    """Cluster labels (``(n,)`` ints) of ``(n, dim)`` vectors: agglomerative, cosine distance,
    average linkage, merging while the distance is below ``distance_threshold``. One vector gets
    label 0; an empty input an empty array."""
    n = len(vectors)
    if n == 0:
        return np.zeros(0, dtype=int)
    if n == 1:
        return np.zeros(1, dtype=int)
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                    distance_threshold=distance_threshold)
    return np.asarray(model.fit_predict(vectors), dtype=int)


def ctfidf_labels(docs_per_class: list[list[str]], top: int = 3) -> list[list[str]]:
    """The ``top`` most distinctive content words of each class by c-TF-IDF (module docstring);
    ``docs_per_class[c]`` is the list of class ``c``'s questions. Ties go to the term seen in
    more questions, then alphabetical order."""
    counts: list[dict[str, int]] = []
    for docs in docs_per_class:
        c: dict[str, int] = {}
        for q in docs:
            for t in content_terms(q):
                c[t] = c.get(t, 0) + 1
        counts.append(c)
    total: dict[str, int] = {}
    for c in counts:
        for t, n in c.items():
            total[t] = total.get(t, 0) + n
    avg = float(np.mean([sum(c.values()) for c in counts])) if counts else 0.0
    out = []
    for c in counts:
        size = sum(c.values()) or 1
        w = {t: (n / size) * math.log(1 + avg / total[t]) for t, n in c.items()}
        out.append(sorted(w, key=lambda t: (-round(w[t], 12), -c[t], t))[:top])
    return out


def gap_report(rows: list[dict[str, Any]], min_size: int = 2,
               distance_threshold: float = DISTANCE_THRESHOLD) -> dict[str, Any]:
    """Topics of the failing questions among ``rows`` (from :meth:`QueryLog.rows`), largest first.

    Returns ``{questions, refused, poorly_rated, clustered, skipped_no_embedding,
    skipped_other_model, unclustered, model_id, distance_threshold, min_size, topics,
    failure_categories, unclustered_examples}``; each topic is ``{label, terms, count, distinct, refused,
    poorly_rated, examples, query_ids}``. ``failure_categories`` counts the latest rating's category of
    every failing question. ``unclustered_examples`` lists up to ten distinct failing questions in no
    topic, newest first, as ``{question, query_id, time, asks, refused, rating, category}`` (the newest
    ask's query id, time, refusal and latest rating; ``rating`` None when unrated; ``asks`` how often it
    was asked among those questions). Raises :class:`ValueError` for ``min_size < 1``."""
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1, got {min_size}")
    cands = [r for r in rows if r["source"] != "replay" and failing(r)]
    cats = {c: 0 for c in FAILURE_CATEGORIES}
    for r in cands:
        f = latest_feedback(r)
        if f is not None and f["category"]:
            cats[f["category"]] = cats.get(f["category"], 0) + 1
    with_vec = [r for r in cands if r["query_vector"] is not None]
    model_id = with_vec[-1]["model_id"] if with_vec else None
    dim = with_vec[-1]["query_vector"].shape[0] if with_vec else None
    usable = [r for r in with_vec if r["model_id"] == model_id and r["query_vector"].shape[0] == dim]
    topics: list[dict[str, Any]] = []
    unclustered = 0
    in_topic: set[str] = set()
    if usable:
        x = np.stack([r["query_vector"] for r in usable]).astype(np.float64)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        labels = cluster_vectors(x, distance_threshold)
        classes = sorted(set(labels.tolist()))
        members = {c: [i for i in range(len(usable)) if labels[i] == c] for c in classes}
        terms = ctfidf_labels([[usable[i]["question"] for i in members[c]] for c in classes])
        for c, t in zip(classes, terms, strict=True):
            idx = members[c]
            distinct = {" ".join(usable[i]["question"].lower().split()) for i in idx}
            if len(distinct) < min_size:  # one question asked twice is not a topic
                unclustered += len(idx)
                continue
            centre = x[idx].mean(axis=0)
            centre /= max(float(np.linalg.norm(centre)), 1e-12)
            order = sorted(idx, key=lambda i: (-float(x[i] @ centre), usable[i]["time"]))
            examples: list[str] = []
            for i in order:
                q = usable[i]["question"]
                if q not in examples:
                    examples.append(q)
                if len(examples) == 3:
                    break
            topics.append({
                "label": ", ".join(t) or "(no content words)", "terms": t, "count": len(idx),
                "distinct": len(distinct),
                "refused": sum(usable[i]["refused"] for i in idx),
                "poorly_rated": sum(_poor(usable[i]) for i in idx),
                "examples": examples, "query_ids": [usable[i]["query_id"] for i in idx],
            })
            in_topic.update(usable[i]["query_id"] for i in idx)
    topics.sort(key=lambda tp: (-tp["count"], tp["label"]))
    return {
        "questions": len(cands), "refused": sum(r["refused"] for r in cands),
        "poorly_rated": sum(_poor(r) for r in cands), "clustered": len(usable) - unclustered,
        "skipped_no_embedding": len(cands) - len(with_vec), "skipped_other_model": len(with_vec) - len(usable),
        "unclustered": unclustered, "model_id": model_id, "distance_threshold": distance_threshold,
        "min_size": min_size, "topics": topics, "failure_categories": cats,
        "unclustered_examples": _unclustered_examples([r for r in cands if r["query_id"] not in in_topic]),
    }


def _unclustered_examples(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Up to :data:`MAX_UNCLUSTERED_EXAMPLES` distinct questions of ``rows`` (oldest first, as logged),
    newest first; see :func:`gap_report`."""
    out: dict[str, dict[str, Any]] = {}
    for r in reversed(rows):
        key = " ".join(r["question"].lower().split())
        if key in out:
            out[key]["asks"] += 1
            continue
        f = latest_feedback(r)
        out[key] = {"question": r["question"], "query_id": r["query_id"], "time": str(r["time"]), "asks": 1,
                    "refused": bool(r["refused"]), "rating": None if f is None else float(f["score"]),
                    "category": None if f is None else (f["category"] or None)}
    return list(out.values())[:MAX_UNCLUSTERED_EXAMPLES]


def _poor(row: dict[str, Any]) -> bool:
    f = latest_feedback(row)
    return f is not None and float(f["score"]) < POOR_BELOW


def gaps_from_log(log: QueryLog, since: datetime | None = None, until: datetime | None = None, min_size: int = 2,
                  distance_threshold: float = DISTANCE_THRESHOLD) -> dict[str, Any]:
    """:func:`gap_report` of the questions logged with ``since <= time < until``."""
    return gap_report(log.rows(since=since, until=until), min_size, distance_threshold)


def format_gaps(rep: dict[str, Any]) -> str:
    """Human-readable content-gap report of :func:`gap_report`."""
    lines = [f"failing questions: {rep['questions']} ({rep['refused']} refused, {rep['poorly_rated']} rated "
             f"below 0.6); clustered {rep['clustered']} into {len(rep['topics'])} topics of at least "
             f"{rep['min_size']} (cosine distance < {rep['distance_threshold']}, average linkage)"]
    skipped = []
    if rep["skipped_no_embedding"]:
        skipped.append(f"{rep['skipped_no_embedding']} without a stored embedding")
    if rep["skipped_other_model"]:
        skipped.append(f"{rep['skipped_other_model']} embedded by another model than {rep['model_id']}")
    if rep["unclustered"]:
        skipped.append(f"{rep['unclustered']} in clusters of fewer than {rep['min_size']} distinct questions")
    if skipped:
        lines.append("not in a topic: " + "; ".join(skipped))
    for n, tp in enumerate(rep["topics"], 1):
        lines.append(f"{n}. {tp['label']}: {tp['count']} asks of {tp['distinct']} distinct questions "
                     f"({tp['refused']} refused, {tp['poorly_rated']} poorly rated)")
        lines.extend(f"     - {q}" for q in tp["examples"])
    examples = rep.get("unclustered_examples") or []
    if examples and not rep["topics"]:
        lines.append(f"unclustered failing questions (newest first, up to {MAX_UNCLUSTERED_EXAMPLES}):")
        for ex in examples:
            why = ["refused"] if ex["refused"] else []
            if ex["rating"] is not None:
                why.append(f"rated {ex['rating']:g}" + (f", {ex['category']}" if ex["category"] else ""))
            asks = f", asked {ex['asks']} times" if ex["asks"] > 1 else ""
            lines.append(f"     - {ex['question']} ({'; '.join(why) or 'failing'}{asks})")
    cats = {c: k for c, k in rep["failure_categories"].items() if k}
    lines.append("failure categories of these questions: "
                 + (", ".join(f"{c} {k}" for c, k in cats.items()) or "none recorded"))
    return "\n".join(lines)
