"""Answer-correctness evaluation: the model alone (no context) vs the extractive answer vs the
generated, citation-checked answer, on questions with reference answers.

Question types:

* **closed**: PubMedQA (Jin et al., EMNLP 2019) yes/no/maybe questions. ``no-context`` and
  ``generated`` are asked to lead with Yes/No/Maybe; **decision accuracy** is exact match of
  that word with ``final_decision``, no judge involved. The extractive answer only quotes, so
  it has no decision.
* **open**: TREC LiveQA 2017 medical questions (Ben Abacha et al., 2017) with NIST reference
  answers (``metadata.reference_answers``).

Every non-refused answer of every mode is also judged against the reference answer (PubMedQA's
``long_answer``, LiveQA's first reference answer) by an LLM judge through the same backend
interface, **blinded**: the judge sees the question, the reference and the candidate's text with
citation markers removed, never the mode or the sources. A refusal scores 0 and is counted in
the refusal rate. A small local model (Gemma 3 270M) is a weak, noisy judge: its verdicts
measure little beyond agreement of wording; use a strong model for numbers that matter.

Confidence intervals are 95% cluster-bootstrap intervals over questions, clustered by the gold
document (:meth:`clinqa.evaluation.datasets.Dataset.cluster_of`).
"""

from __future__ import annotations

import csv
import random
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from clinqa.answer.citations import strip_markers
from clinqa.answer.types import Answer
from clinqa.errors import ConfigError
from clinqa.evaluation.datasets import Dataset
from clinqa.evaluation.metrics import bootstrap_ci
from clinqa.llm.base import LLMBackend, LLMError, Message
from clinqa.pipeline import Pipeline

MODES = ("no-context", "extractive", "generated")
DECISIONS = ("yes", "no", "maybe")

JUDGE_SYSTEM = """You grade answers to medical questions. You are given a question, a reference answer written by \
an expert, and a candidate answer. Reply with exactly one word: CORRECT if the candidate answers the question and \
agrees with the reference on the main point, INCORRECT if it disagrees with the reference, misses the point or does \
not answer."""


@dataclass
class AnswerItem:
    """One question with its reference. ``qtype`` is ``closed`` (has ``decision``) or ``open``."""

    qid: str
    question: str
    qtype: str
    reference: str
    decision: str | None
    cluster: str


def answer_items(dataset: Dataset, limit: int | None = None, seed: int = 0) -> list[AnswerItem]:
    """Questions of ``dataset`` that have a reference answer, in a seeded random order, at most
    ``limit``. Raises ``ValueError`` when none has one."""
    items = []
    for q in dataset.queries:
        md = q.metadata or {}
        if md.get("final_decision"):
            items.append(AnswerItem(q.qid, q.text, "closed", md.get("long_answer", ""),
                                    str(md["final_decision"]).lower(), dataset.cluster_of(q.qid)))
        elif md.get("reference_answers"):
            refs = [r["text"] for r in md["reference_answers"] if r.get("text")]
            if refs:
                question = md.get("summary") or md.get("paraphrase") or q.text
                items.append(AnswerItem(q.qid, question, "open", refs[0], None, dataset.cluster_of(q.qid)))
    if not items:
        raise ValueError(f"{dataset.path}: no question has a reference answer (metadata.final_decision or "
                         "metadata.reference_answers)")
    random.Random(seed).shuffle(items)
    return items[:limit] if limit else items


def read_decision(text: str) -> str | None:
    """The leading Yes/No/Maybe of an answer ("Yes, ..." -> "yes"), or None."""
    m = re.match(r"\W*(yes|no|maybe)\b", text.strip(), re.IGNORECASE)
    return m.group(1).lower() if m else None


def judge(backend: LLMBackend, question: str, reference: str, candidate: str,
          max_reference_words: int = 250) -> tuple[bool | None, dict[str, Any]]:
    """Ask ``backend`` whether ``candidate`` agrees with ``reference``; returns (verdict or None
    when the reply is neither CORRECT nor INCORRECT, usage dict). Citation markers are removed
    from the candidate so the judge cannot tell grounded from ungrounded answers."""
    ref = " ".join(reference.split()[:max_reference_words])
    user = f"Question: {question}\n\nReference answer: {ref}\n\nCandidate answer: {strip_markers(candidate)}\n\n" \
           "Verdict (CORRECT or INCORRECT):"
    c = backend.complete([Message("system", JUDGE_SYSTEM), Message("user", user)], max_tokens=4, temperature=0.0)
    word = re.search(r"\b(INCORRECT|CORRECT)\b", c.text.upper())
    verdict = None if word is None else word.group(1) == "CORRECT"
    return verdict, {"prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens, "raw": c.text[:40]}


@dataclass
class AnswerEval:
    """Per-question rows and the summary (:meth:`summary`)."""

    dataset: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    clusters: dict[str, str] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)

    def summary(self, n_resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
        """Per mode (and per question type): judged correctness with CI, decision accuracy with CI
        (closed), refusal rate, dropped-sentence share, tokens and cost per query."""
        out: dict[str, Any] = {"dataset": self.dataset, "models": self.models, "modes": {}}
        for mode in MODES:
            rows = [r for r in self.rows if r["mode"] == mode]
            if not rows:
                continue
            per_type: dict[str, Any] = {}
            for qtype in ("all", "closed", "open"):
                sel = [r for r in rows if qtype == "all" or r["qtype"] == qtype]
                if sel:
                    per_type[qtype] = self._block(sel, n_resamples, seed)
            out["modes"][mode] = per_type
        return out

    def _block(self, rows: list[dict[str, Any]], n_resamples: int, seed: int) -> dict[str, Any]:
        def rate(values: dict[str, float]) -> dict[str, Any]:
            if not values:
                return {"value": None, "ci": None, "n": 0}
            lo, hi = bootstrap_ci(values, self.clusters, n_resamples=n_resamples, seed=seed)
            return {"value": sum(values.values()) / len(values), "ci": [lo, hi], "n": len(values)}

        judged = {r["qid"]: float(bool(r["correct"])) for r in rows if r["correct"] is not None}
        decided = {r["qid"]: float(r["decision"] == r["gold_decision"]) for r in rows
                   if r["qtype"] == "closed" and r["mode"] != "extractive"}
        sentences = sum(r["sentences"] for r in rows)
        dropped = sum(r["dropped"] for r in rows)
        tokens = [r["prompt_tokens"] + r["completion_tokens"] for r in rows if r["prompt_tokens"] is not None]
        costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
        return {
            "n": len(rows),
            "correct": rate(judged),
            "unjudged": sum(r["correct"] is None and not r["refused"] for r in rows),
            "decision_accuracy": rate(decided),
            "refused": sum(r["refused"] for r in rows) / len(rows),
            "fallback_extractive": sum(r["fallback"] for r in rows) / len(rows),
            "sentences": sentences,
            "dropped_share": dropped / sentences if sentences else None,
            "tokens_per_query": statistics.mean(tokens) if tokens else None,
            "prompt_tokens_per_query": statistics.mean([r["prompt_tokens"] for r in rows
                                                        if r["prompt_tokens"] is not None]) if tokens else None,
            "cost_usd_per_query": statistics.mean(costs) if costs else None,
            "latency_ms_p50": statistics.median([r["latency_ms"] for r in rows]),
        }

    def write(self, out: Path) -> None:
        """Write ``answers.csv`` (one row per question and mode) to ``out``."""
        out.mkdir(parents=True, exist_ok=True)
        with (out / "answers.csv").open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(self.rows[0]))
            w.writeheader()
            w.writerows(self.rows)


def _row(item: AnswerItem, mode: str, ans: Answer) -> dict[str, Any]:
    u = ans.llm or {}
    sentences = ans.sentences
    return {
        "qid": item.qid, "qtype": item.qtype, "mode": mode, "refused": ans.refused,
        "fallback": mode == "generated" and ans.mode == "extractive",
        "decision": read_decision(ans.answer) if not ans.refused else None, "gold_decision": item.decision,
        "sentences": len(sentences) if mode == "generated" else 0,
        "dropped": sum(not s["supported"] for s in sentences) if mode == "generated" else 0,
        "prompt_tokens": u.get("prompt_tokens"), "completion_tokens": u.get("completion_tokens"),
        "cost_usd": u.get("cost_usd"), "latency_ms": round(ans.timings_ms.get("total", 0.0), 1),
        "correct": None, "judge_raw": "", "answer": ans.answer,
    }


def evaluate_answers(dataset: Dataset, pipe: Pipeline, judge_backend: LLMBackend | None,
                     modes: tuple[str, ...] = MODES, limit: int | None = None, seed: int = 0,
                     progress: bool = True) -> AnswerEval:
    """Answer up to ``limit`` questions of ``dataset`` in each of ``modes`` with ``pipe`` (whose
    ``llm`` settings give the generating model) and judge them with ``judge_backend`` (None:
    no judging; closed questions still get decision accuracy). Raises ``ValueError`` for an
    unknown mode and :class:`clinqa.errors.ConfigError` when a mode needs a model and none is set."""
    bad = set(modes) - set(MODES)
    if bad:
        raise ValueError(f"unknown modes {sorted(bad)}; choose from {MODES}")
    if pipe.llm is None and set(modes) & {"no-context", "generated"}:
        raise ConfigError("modes no-context and generated need a language model: set --llm (llm.backend)")
    items = answer_items(dataset, limit, seed)
    ev = AnswerEval(dataset.name, clusters={i.qid: i.cluster for i in items},
                    models={"generator": f"{pipe.settings.llm.backend}:{pipe.llm.model if pipe.llm else '-'}",
                            "judge": f"{judge_backend.name}:{judge_backend.model}" if judge_backend else "none"})
    for item in tqdm(items, desc="answers", disable=not progress):
        closed = item.qtype == "closed"
        for mode in modes:
            if mode == "no-context":
                ans = pipe.ask_no_context(item.question, closed=closed)
            else:
                ans = pipe.ask(item.question, closed=closed, generate=mode == "generated")
            row = _row(item, mode, ans)
            if judge_backend is not None and not ans.refused and ans.answer.strip():
                try:
                    row["correct"], usage = judge(judge_backend, item.question, item.reference, ans.answer)
                    row["judge_raw"] = usage["raw"]
                except LLMError as exc:
                    row["judge_raw"] = f"error: {exc}"[:80]
            elif ans.refused:
                row["correct"] = False
            ev.rows.append(row)
    return ev
