"""Answer benchmark by required facts: does the extractive answer quote what a clinician needs?

Two question sources:

* **A fact-annotated question set** (``bench/answers/guidelines.jsonl``, JSON Lines): one
  question per line, ``{"id", "question", "kind", "doc_id", "facts": [[alt, alt, ...], ...]}``
  where each inner list is one required fact given as acceptable strings (any one satisfies
  it), optionally ``"forbidden": [string, ...]`` (strings that must not be quoted: the sibling line for
  another population, severity, step, drug or score band), optionally ``"patient_id"`` (the question is asked
  of that patient's notes: ``pipe.filters(patient_id=...)``; without it, of the documents of no patient),
  plus questions of kind ``uncovered`` (no
  facts; ``missing`` names the absent key term) that the corpus does not answer and that should be refused.
* **BioASQ** factoid and list questions (Tsatsaronis et al., BMC Bioinformatics 2015) whose
  ``metadata.exact_answer`` is a list of items, each a list of synonyms.

Matching (:func:`contains`) is case-insensitive substring search after collapsing whitespace
runs to one space on both sides; citation markers (``[n]``) are removed from the answer text
first. It is deliberately literal: "≥ 22" does not match ">= 22", so acceptable strings list
the variants a correct quote may carry.

Per fact-set question (:func:`score_question`):

* ``facts_answer`` / ``facts_quotes``: for each fact, whether the answer text / the citation
  quotes (joined) contain one of its strings; a refusal finds nothing.
* ``all_facts`` (every fact in the answer text), ``any_fact`` (at least one),
  ``all_facts_quotes`` (every fact in the quotes).
* ``wrong_passage``: answered, and no cited chunk comes from the expected ``doc_id``;
  ``first_citation_wrong``: answered, and citation [1] comes from another document.
* ``forbidden_found``: the forbidden strings the answer text holds; ``on_target``: answered, every
  fact in the answer text and no forbidden string (matched as facts are).
* ``words``: words of the answer text without markers (0 for a refusal).

Summary (:func:`summarize`): fact recall = mean ``all_facts`` over *all* answerable questions
(a refused one counts 0), any-fact recall, fact recall in the quotes, mean share of facts
found, wrong-passage rate (and first-citation-wrong rate) over answered answerable questions,
in-scope refusal rate, uncovered
refusal rate, on-target rate (of all answerable questions and of the answered ones), the rate of
answers holding a forbidden string, answer length (median and 90th percentile words over answered answerable
questions), ``ask`` latency, and the share of answerable questions whose facts all lie in
the top chunks the answer quotes from (``facts_in_context``). Rates carry 95% percentile-bootstrap intervals
(:func:`clinqa.evaluation.metrics.bootstrap_ci`, 2,000 resamples) clustered by the expected
document (questions on one guideline are not independent); uncovered questions are their own
clusters. :func:`compare_to_baseline` gives a paired sign-flip randomization test
(:func:`clinqa.evaluation.metrics.paired_test`) per question against an earlier run.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from clinqa.answer.citations import strip_markers
from clinqa.answer.types import Answer
from clinqa.errors import ConfigError
from clinqa.evaluation.datasets import Dataset, Query
from clinqa.evaluation.metrics import bootstrap_ci, paired_test
from clinqa.pipeline import Pipeline

KINDS = ("dose", "threshold", "criteria", "duration", "first_line", "contraindication", "yes_no", "temporal",
         "abbreviation", "misspelling", "uncovered")
#: the kinds of the on-target sets (bench/answers/ontarget_*.jsonl): which sibling line the question must not quote
ONTARGET_KINDS = ("score_band", "whole_list", "treatment", "drug", "setting", "population", "severity",
                  "comorbidity", "step", "renal", "dose_level")
#: the kinds of the other blind sets: a question that says what the patient does not have (bench/answers/negation_*);
#: of a patient-notes set (bench/answers/notes_recency_*), the patient's regimen now, the latest value, an event, its
#: reason, what a note of a year said
OTHER_KINDS = ("negation", "current", "latest_value", "event", "reason", "note_year")
#: every kind a question of a fact set may have, in report order
ALL_KINDS = KINDS + ONTARGET_KINDS + OTHER_KINDS
N_RESAMPLES = 2000


def normalize(text: str) -> str:
    """``text`` through clinqa's own Unicode normaliser (:func:`clinqa.text.normalize`: typographic
    dashes and quotes, NFKC, ">=" as "≥"; chunk text is stored that way since chunking version 5),
    lower-cased, every whitespace run collapsed to one space (ends stripped). A fact written
    "5–7 days" in the guideline file thus matches the stored and quoted "5-7 days"."""
    from clinqa.text import normalize as unicode_normalize

    return " ".join(unicode_normalize(text).lower().split())


def contains(text: str, alternatives: list[str]) -> bool:
    """True when the normalised ``text`` contains one of the normalised ``alternatives``."""
    t = normalize(text)
    return any(normalize(a) in t for a in alternatives if a.strip())


@dataclass
class FactQuestion:
    """One benchmark question. ``facts`` is empty and ``missing`` set for ``kind == "uncovered"``."""

    qid: str
    question: str
    kind: str
    doc_id: str | None
    facts: list[list[str]] = field(default_factory=list)
    missing: str | None = None
    forbidden: list[str] = field(default_factory=list)
    patient_id: str | None = None

    @property
    def answerable(self) -> bool:
        """Whether the corpus answers it (kind is not ``uncovered``)."""
        return self.kind != "uncovered"


def load_questions(path: Path) -> list[FactQuestion]:
    """Read a question set (JSON Lines, schema in the module docstring).

    Raises :class:`ConfigError` naming the file and line for invalid JSON, a missing or
    mistyped field, an unknown ``kind``, a duplicate id, an answerable question without facts
    or ``doc_id``, an empty acceptable string, a ``forbidden`` that is not a list of non-empty strings, a
    ``patient_id`` that is not a non-empty string, or an uncovered question with facts or without ``missing``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such question file")
    out: list[FactQuestion] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}: line {lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: invalid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise ConfigError(f"{where}: expected a JSON object")
            for key in ("id", "question", "kind"):
                if not isinstance(row.get(key), str) or not row[key].strip():
                    raise ConfigError(f"{where}: field {key!r} must be a non-empty string")
            qid, kind = row["id"], row["kind"]
            if qid in seen:
                raise ConfigError(f"{where}: duplicate id {qid!r}")
            seen.add(qid)
            if kind not in ALL_KINDS:
                raise ConfigError(f"{where}: unknown kind {kind!r} (one of {', '.join(ALL_KINDS)})")
            facts = row.get("facts", [])
            if not isinstance(facts, list) or not all(
                    isinstance(f, list) and f and all(isinstance(a, str) and a.strip() for a in f) for f in facts):
                raise ConfigError(f"{where}: 'facts' must be a list of non-empty lists of non-empty strings")
            forbidden = row.get("forbidden", [])
            if not isinstance(forbidden, list) or not all(isinstance(a, str) and a.strip() for a in forbidden):
                raise ConfigError(f"{where}: 'forbidden' must be a list of non-empty strings")
            patient = row.get("patient_id")
            if patient is not None and (not isinstance(patient, str) or not patient.strip()):
                raise ConfigError(f"{where}: 'patient_id' must be a non-empty string")
            if kind == "uncovered":
                if facts:
                    raise ConfigError(f"{where}: an uncovered question has no facts")
                if not isinstance(row.get("missing"), str) or not row["missing"].strip():
                    raise ConfigError(f"{where}: an uncovered question needs 'missing' (the absent key term)")
            else:
                if not facts:
                    raise ConfigError(f"{where}: an answerable question needs at least one fact")
                if not isinstance(row.get("doc_id"), str) or not row["doc_id"].strip():
                    raise ConfigError(f"{where}: an answerable question needs 'doc_id'")
            out.append(FactQuestion(qid, row["question"], kind, row.get("doc_id"), facts, row.get("missing"),
                                    forbidden, patient))
    if not out:
        raise ConfigError(f"{path}: no questions")
    return out


def answer_words(answer: Answer) -> int:
    """Words of the answer text without citation markers; 0 for a refusal."""
    return 0 if answer.refused else len(strip_markers(answer.answer).split())


def score_question(q: FactQuestion, answer: Answer, context: str | None = None) -> dict[str, Any]:
    """One per-question row (JSON-ready): the question, refusal, answer text, cited doc ids,
    cited chunk ids, the gate signal, per-fact hits in the answer text and in the quotes,
    ``all_facts``, ``any_fact``, ``all_facts_quotes``, ``fact_share``, ``forbidden_found`` (the
    question's forbidden strings the answer text holds), ``on_target`` (answered, every fact and no
    forbidden string), ``wrong_passage`` (None
    when refused; absent for uncovered questions), ``words`` and latency in ms. ``context`` (the
    passages the answer drew from, joined) adds ``all_facts_in_context``: every fact is in those
    passages, whether or not the answer quoted it (the ceiling of unit selection; a table or list
    is matched in its stored form, so this undercounts a little)."""
    text = "" if answer.refused else strip_markers(answer.answer)
    quotes = "" if answer.refused else "\n".join(c.quote for c in answer.citations)
    cited = list(dict.fromkeys(c.doc_id for c in answer.citations)) if not answer.refused else []
    in_answer = [contains(text, f) for f in q.facts]
    in_quotes = [contains(quotes, f) for f in q.facts]
    row: dict[str, Any] = {
        "id": q.qid, "question": q.question, "kind": q.kind, "doc_id": q.doc_id, "refused": answer.refused,
        "answer": answer.answer, "cited_doc_ids": cited, "words": answer_words(answer),
        "cited_chunks": [c.chunk_id for c in answer.citations],
        "gate_signal": answer.gate.signal if answer.gate else None,
        "latency_ms": round(answer.timings_ms.get("total", 0.0), 1),
        "missing_terms": list(answer.missing_terms), "decided_by": answer.decided_by,
    }
    for key in ("decisive_probability", "answer_model_score"):  # the learned decision's inputs, when on
        if key in answer.answerability:
            row[key] = answer.answerability[key]
    if q.answerable:
        forbidden = [f for f in q.forbidden if contains(text, [f])]
        row.update({
            "facts_found": [f[0] for f, hit in zip(q.facts, in_answer, strict=True) if hit],
            "facts_missing": [f[0] for f, hit in zip(q.facts, in_answer, strict=True) if not hit],
            "facts_found_quotes": [f[0] for f, hit in zip(q.facts, in_quotes, strict=True) if hit],
            "all_facts": all(in_answer), "any_fact": any(in_answer), "all_facts_quotes": all(in_quotes),
            "fact_share": sum(in_answer) / len(in_answer),
            "forbidden_found": forbidden,
            "on_target": not answer.refused and all(in_answer) and not forbidden,
            "wrong_passage": None if answer.refused else q.doc_id not in cited,
            "first_citation_wrong": None if answer.refused or not cited else cited[0] != q.doc_id,
        })
        if context is not None:
            row["all_facts_in_context"] = all(contains(context, f) for f in q.facts)
    else:
        row["missing"] = q.missing
    if answer.refused:
        row["reason"] = answer.reason
    return row


def _rate(values: dict[str, float], clusters: dict[str, str]) -> dict[str, Any]:
    """``{"value", "ci95", "n"}`` of a per-question 0/1 (or [0, 1]) value; None when empty."""
    if not values:
        return {"value": None, "ci95": None, "n": 0}
    lo, hi = bootstrap_ci(values, {q: clusters.get(q, q) for q in values}, n_resamples=N_RESAMPLES)
    return {"value": float(np.mean(list(values.values()))), "ci95": [lo, hi], "n": len(values)}


def _percentile(values: list[float], p: float) -> float | None:
    return float(np.percentile(values, p)) if values else None


def _on_target(row: dict[str, Any]) -> bool:
    """``row["on_target"]``; for a row of an older run without it, answered with every fact (no forbidden
    strings were checked then)."""
    if "on_target" in row:
        return bool(row["on_target"])
    return not row["refused"] and bool(row["all_facts"])


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary of fact-set rows (see module docstring): rates with 95% cluster-bootstrap CIs,
    answer length and latency, and fact recall per kind (no CI)."""
    clusters = {r["id"]: (r["doc_id"] or r["id"]) for r in rows}
    ans = [r for r in rows if r["kind"] != "uncovered"]
    unc = [r for r in rows if r["kind"] == "uncovered"]
    answered = [r for r in ans if not r["refused"]]
    words = [r["words"] for r in answered]
    lat = [r["latency_ms"] for r in rows]
    by_kind: dict[str, Any] = {}
    for kind in ALL_KINDS:
        sel = [r for r in ans if r["kind"] == kind]
        if sel:
            by_kind[kind] = {"n": len(sel), "fact_recall": sum(r["all_facts"] for r in sel) / len(sel),
                             "any_fact_recall": sum(r["any_fact"] for r in sel) / len(sel),
                             "refused": sum(r["refused"] for r in sel) / len(sel)}
    return {
        "n_answerable": len(ans), "n_uncovered": len(unc),
        "fact_recall": _rate({r["id"]: float(r["all_facts"]) for r in ans}, clusters),
        "fact_recall_quotes": _rate({r["id"]: float(r["all_facts_quotes"]) for r in ans}, clusters),
        "any_fact_recall": _rate({r["id"]: float(r["any_fact"]) for r in ans}, clusters),
        "fact_share": _rate({r["id"]: float(r["fact_share"]) for r in ans}, clusters),
        "facts_in_context": _rate({r["id"]: float(r["all_facts_in_context"]) for r in ans
                                   if "all_facts_in_context" in r}, clusters),
        "wrong_passage_rate": _rate({r["id"]: float(r["wrong_passage"]) for r in answered}, clusters),
        "first_citation_wrong_rate": _rate({r["id"]: float(r["first_citation_wrong"]) for r in answered
                                            if r.get("first_citation_wrong") is not None}, clusters),
        "in_scope_refusal_rate": _rate({r["id"]: float(r["refused"]) for r in ans}, clusters),
        "on_target": _rate({r["id"]: float(_on_target(r)) for r in ans}, clusters),
        "on_target_answered": _rate({r["id"]: float(_on_target(r)) for r in answered}, clusters),
        "forbidden_rate": _rate({r["id"]: float(bool(r.get("forbidden_found"))) for r in answered}, clusters),
        "uncovered_refusal_rate": _rate({r["id"]: float(r["refused"]) for r in unc}, clusters),
        "answer_words": {"median": _percentile(words, 50), "p90": _percentile(words, 90), "n": len(words)},
        "latency_ms": {"p50": _percentile(lat, 50), "p95": _percentile(lat, 95)},
        "by_kind": by_kind,
    }


def context_text(pipe: Pipeline, answer: Answer) -> str:
    """Bodies of the top ``answer.context_chunks`` retrieved chunks (those the extractive answer
    quotes from), joined by newlines; refusals included, since they carry ``retrieved`` too."""
    ids = [r["chunk_id"] for r in answer.retrieved[: pipe.settings.answer.context_chunks]]
    return "\n".join(c.body for c in pipe.store.get_chunks(ids)) if ids else ""


def evaluate_fact_set(questions: list[FactQuestion], pipe: Pipeline, progress: bool = True) -> list[dict[str, Any]]:
    """Ask every question with ``pipe`` (extractive: ``generate=False``; a question with a ``patient_id`` scoped to
    that patient's notes) and score it, with the context ceiling of :func:`score_question`; rows in question
    order."""
    rows = []
    for q in tqdm(questions, desc="answers", disable=not progress):
        scope = pipe.filters(patient_id=q.patient_id) if q.patient_id else None
        ans = pipe.ask(q.question, scope, generate=False)
        rows.append(score_question(q, ans, context_text(pipe, ans) if q.answerable else None))
    return rows


# --- paired comparison with an earlier run -------------------------------------------------

PAIRED = ("on_target", "all_facts", "any_fact", "all_facts_quotes", "refused")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Per-question rows of an ``answers.json`` (a file or the ``--output`` folder holding it).
    Raises :class:`ConfigError` when it is missing or holds no ``rows``."""
    path = Path(path)
    path = path / "answers.json" if path.is_dir() else path
    if not path.is_file():
        raise ConfigError(f"{path}: no answers.json (pass the --output folder of `clinqa eval answers`)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON ({exc.msg})") from exc
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ConfigError(f"{path}: no 'rows' (not an answers.json of the fact benchmark)")
    return rows


def compare_to_baseline(baseline: list[dict[str, Any]], current: list[dict[str, Any]],
                        n_resamples: int = 10000, seed: int = 0) -> dict[str, dict[str, float]]:
    """Paired sign-flip test of current vs baseline on each 0/1 per-question measure the rows
    carry (``on_target``, ``all_facts``, ``any_fact``, ``all_facts_quotes`` for answerable questions,
    ``refused`` for all; BioASQ rows: ``contains``, ``item_share``), over the common ids.
    Returns ``{measure: {"baseline", "current" (means), "diff" (current - baseline), "p_value", "n"}}``.
    Raises :class:`ConfigError` when the runs share no question."""
    a = {r["id"]: r for r in baseline}
    b = {r["id"]: r for r in current}
    common = sorted(set(a) & set(b))
    if not common:
        raise ConfigError("the baseline run and this run have no question id in common")
    out: dict[str, dict[str, float]] = {}
    for m in (*PAIRED, "contains", "item_share"):
        va = {q: float(a[q][m]) for q in common if a[q].get(m) is not None and b[q].get(m) is not None}
        vb = {q: float(b[q][m]) for q in va}
        if va:
            res = paired_test(vb, va, n_resamples=n_resamples, seed=seed)
            out[m] = {"baseline": res["mean_b"], "current": res["mean_a"], "diff": res["diff"],
                      "p_value": res["p_value"], "n": res["n"]}
    return out


# --- BioASQ exact-answer containment --------------------------------------------------------

@dataclass
class ExactQuestion:
    """A BioASQ factoid or list question: ``items`` are the exact-answer items, each a list of synonyms."""

    qid: str
    question: str
    qtype: str
    items: list[list[str]]


def exact_questions(dataset: Dataset, limit: int | None = None, seed: int = 0) -> list[ExactQuestion]:
    """Factoid and list questions of ``dataset`` with a non-empty ``metadata.exact_answer``, in
    a seeded random order (``random.Random(seed)``), at most ``limit``. Raises ``ValueError``
    when there is none."""
    items: list[ExactQuestion] = []
    for q in dataset.queries:
        md = q.metadata or {}
        qtype = md.get("type")
        exact = md.get("exact_answer")
        if qtype not in ("factoid", "list") or not exact:
            continue
        groups = [[s for s in (g if isinstance(g, list) else [g]) if isinstance(s, str) and s.strip()]
                  for g in exact]
        groups = [g for g in groups if g]
        if groups:
            items.append(ExactQuestion(q.qid, q.text, qtype, groups))
    if not items:
        raise ValueError(f"{dataset.path}: no factoid or list question with metadata.exact_answer")
    random.Random(seed).shuffle(items)
    return items[:limit] if limit else items


def restrict(dataset: Dataset, qids: set[str]) -> Dataset:
    """``dataset`` with only the queries (and qrels) in ``qids``, so that a ``--subset`` store
    holds those questions' gold passages plus the distractors."""
    queries: list[Query] = [q for q in dataset.queries if q.qid in qids]
    return replace(dataset, queries=queries, qrels={q: r for q, r in dataset.qrels.items() if q in qids})


def score_exact(q: ExactQuestion, answer: Answer) -> dict[str, Any]:
    """One BioASQ row: ``contains`` (the answer text holds a string of any item; factoid: any
    synonym of any candidate), ``item_share`` (list questions: share of items found; factoid:
    same as ``contains``), the same in the quotes (``contains_quotes``), refusal, words."""
    text = "" if answer.refused else strip_markers(answer.answer)
    quotes = "" if answer.refused else "\n".join(c.quote for c in answer.citations)
    hits = [contains(text, g) for g in q.items]
    qhits = [contains(quotes, g) for g in q.items]
    share = sum(hits) / len(hits) if q.qtype == "list" else float(any(hits))
    return {"id": q.qid, "question": q.question, "type": q.qtype, "refused": answer.refused,
            "answer": answer.answer, "cited_doc_ids": list(dict.fromkeys(c.doc_id for c in answer.citations)),
            "contains": any(hits), "item_share": share, "contains_quotes": any(qhits),
            "items_found": [g[0] for g, h in zip(q.items, hits, strict=True) if h], "n_items": len(q.items),
            "words": answer_words(answer), "latency_ms": round(answer.timings_ms.get("total", 0.0), 1)}


def summarize_exact(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per type (``factoid``, ``list``, ``all``): containment in the answer text and in the
    quotes, list item share, refusal rate (95% bootstrap CIs over questions), answer length."""
    out: dict[str, Any] = {}
    for t in ("factoid", "list", "all"):
        sel = [r for r in rows if t == "all" or r["type"] == t]
        if not sel:
            continue
        words = [r["words"] for r in sel if not r["refused"]]
        block = {"n": len(sel),
                 "contains": _rate({r["id"]: float(r["contains"]) for r in sel}, {}),
                 "contains_quotes": _rate({r["id"]: float(r["contains_quotes"]) for r in sel}, {}),
                 "refused": _rate({r["id"]: float(r["refused"]) for r in sel}, {}),
                 "answer_words": {"median": _percentile(words, 50), "p90": _percentile(words, 90)}}
        if t == "list":
            block["item_share"] = _rate({r["id"]: float(r["item_share"]) for r in sel}, {})
        out[t] = block
    lat = [r["latency_ms"] for r in rows]
    out["latency_ms"] = {"p50": _percentile(lat, 50), "p95": _percentile(lat, 95)}
    return out


def evaluate_exact(questions: list[ExactQuestion], pipe: Pipeline, progress: bool = True) -> list[dict[str, Any]]:
    """Ask every BioASQ question with ``pipe`` (extractive) and score its containment."""
    return [score_exact(q, pipe.ask(q.question, generate=False))
            for q in tqdm(questions, desc="bioasq", disable=not progress)]


def markdown(body: dict[str, Any], where: str = "") -> str:
    """Markdown tables of one ``answers.json`` written by the fact benchmark or the BioASQ run
    (``body["benchmark"]`` is ``facts`` or ``bioasq``), with the paired test when present."""
    s = body["summary"]
    if body["benchmark"] == "facts":
        w, lat = s["answer_words"], s["latency_ms"]
        rows = [
            ("fact recall (answer text)", fmt_rate(s["fact_recall"])),
            ("fact recall (citation quotes)", fmt_rate(s["fact_recall_quotes"])),
            ("any-fact recall", fmt_rate(s["any_fact_recall"])),
            ("share of required facts found", fmt_rate(s["fact_share"])),
            ("every fact in the top chunks quoted from (ceiling)", fmt_rate(s.get("facts_in_context", {}))),
            (f"wrong-passage rate ({s['wrong_passage_rate']['n']} answered)", fmt_rate(s["wrong_passage_rate"])),
            ("citation [1] from another guideline", fmt_rate(s["first_citation_wrong_rate"])),
            (f"in-scope refusal rate ({s['n_answerable']} questions)", fmt_rate(s["in_scope_refusal_rate"])),
            ("on target: every fact, no forbidden string (all)", fmt_rate(s.get("on_target", {}))),
            ("on target (of the answered)", fmt_rate(s.get("on_target_answered", {}))),
            ("answered with a forbidden string", fmt_rate(s.get("forbidden_rate", {}))),
            (f"uncovered refusal rate ({s['n_uncovered']} questions)", fmt_rate(s["uncovered_refusal_rate"])),
            ("answer length, words: median / p90", f"{median_or_dash(w['median'])} / {median_or_dash(w['p90'])}"),
            ("`ask` latency ms: p50 / p95", f"{median_or_dash(lat['p50'])} / {median_or_dash(lat['p95'])}"),
        ]
        out = [f"### Fact benchmark: {body.get('questions', '')} {where}".rstrip(), "",
               "| measure | value [95% CI] |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows), "",
               "| kind | n | fact recall | any-fact recall | refused |", "|---|---|---|---|---|",
               *(f"| {k} | {b['n']} | {b['fact_recall']:.3f} | {b['any_fact_recall']:.3f} | {b['refused']:.3f} |"
                 for k, b in s["by_kind"].items())]
    else:
        out = [f"### BioASQ exact-answer containment {where}".rstrip(), "",
               "| type | n | contains (answer text) | contains (quotes) | list items found | refused | words p50 |",
               "|---|---|---|---|---|---|---|"]
        for t in ("factoid", "list", "all"):
            if t in s:
                b = s[t]
                items = fmt_rate(b["item_share"]) if "item_share" in b else "-"
                out.append(f"| {t} | {b['n']} | {fmt_rate(b['contains'])} | {fmt_rate(b['contains_quotes'])} | "
                           f"{items} | {b['refused']['value']:.3f} | {median_or_dash(b['answer_words']['median'])} |")
    paired = body.get("vs_baseline")
    if paired:
        out += ["", "| vs baseline | baseline | this run | diff | paired p | n |", "|---|---|---|---|---|---|",
                *(f"| {m} | {r['baseline']:.3f} | {r['current']:.3f} | {r['diff']:+.3f} | {r['p_value']:.3f} | "
                  f"{r['n']:.0f} |" for m, r in paired.items())]
    return "\n".join(out) + "\n"


def fmt_rate(r: dict[str, Any]) -> str:
    """``"0.850 [0.780, 0.910]"`` for a rate block, ``"-"`` when empty."""
    if r.get("value") is None:
        return "-"
    return f"{r['value']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"


def median_or_dash(v: float | None) -> str:
    """A number with no decimals, or ``-``."""
    return "-" if v is None else f"{v:.0f}"


__all__ = [
    "ExactQuestion",
    "FactQuestion",
    "compare_to_baseline",
    "contains",
    "evaluate_exact",
    "evaluate_fact_set",
    "exact_questions",
    "load_questions",
    "markdown",
    "normalize",
    "read_rows",
    "restrict",
    "score_exact",
    "score_question",
    "summarize",
    "summarize_exact",
]


def run_fact_benchmark(pipe: Pipeline, questions: Path | None = None, bioasq: Path | None = None,
                       corpus: Path | None = None, max_questions: int | None = None, baseline: Path | None = None,
                       subset: int | None = None, seed: int = 0, progress: bool = True,
                       notify: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``clinqa eval answers QUESTIONS.jsonl`` (fact benchmark) or ``--bioasq DIR`` (exact-answer
    containment), run with ``pipe``'s settings.

    Question set: ingests ``corpus`` into ``pipe``'s store first (or the bundled guideline corpus when
    the store is empty; ``notify`` gets ``"ingesting <src> into <data dir>"``), answers at most
    ``max_questions`` questions and scores them (:func:`evaluate_fact_set`, :func:`summarize`).
    BioASQ: a seeded sample of ``max_questions`` factoid/list questions over an evaluation store of
    their judged passages plus ``subset`` distractors (:func:`evaluate_exact`). With ``baseline`` (the
    ``--output`` folder of an earlier run) a paired sign-flip test per metric is added.

    Returns ``{"meta", "summary", "rows", "paired"}``; ``meta["benchmark"]`` is ``"facts"`` or
    ``"bioasq"``. Raises :class:`ConfigError` when both or neither of ``questions`` and ``bioasq``
    are given, and a ClinqaError when the corpus fails to ingest."""
    from clinqa.errors import ClinqaError

    if questions is not None and bioasq is not None:
        raise ConfigError("give either a question set or --bioasq, not both")
    if questions is None and bioasq is None:
        raise ConfigError("give a question set (.jsonl), a BEIR folder, or --bioasq DIR")
    if bioasq is not None:
        from clinqa.evaluation.datasets import load_dataset
        from clinqa.evaluation.retrieval import build_eval_pipeline

        ds = load_dataset(bioasq)
        items = exact_questions(ds, max_questions, seed)
        epipe, sub, _ = build_eval_pipeline(restrict(ds, {q.qid for q in items}), pipe.settings, subset, seed,
                                            progress=progress)
        rows = evaluate_exact(items, epipe, progress=progress)
        summary: dict[str, Any] = summarize_exact(rows)
        meta = {"benchmark": "bioasq", "dataset": str(bioasq), "subset": sub, "max_questions": max_questions,
                "documents": len(epipe.store.documents()), "chunks": epipe.store.count()}
    else:
        assert questions is not None
        qs = load_questions(questions)[:max_questions]
        if corpus is not None or pipe.store.count() == 0:
            from clinqa.corpora import guidelines_path

            src = corpus or guidelines_path()
            if notify is not None:
                notify(f"ingesting {src} into {pipe.data_dir}")
            report = pipe.ingest([src], progress=progress)
            if report.failed:
                raise ClinqaError(f"{src}: {len(report.failed)} files failed to ingest: {report.failed[:3]}")
        rows = evaluate_fact_set(qs, pipe, progress=progress)
        summary = summarize(rows)
        meta = {"benchmark": "facts", "questions": str(questions), "documents": len(pipe.store.documents()),
                "chunks": pipe.store.count()}
    paired = compare_to_baseline(read_rows(baseline), rows) if baseline is not None else None
    return {"meta": meta, "summary": summary, "rows": rows, "paired": paired}
