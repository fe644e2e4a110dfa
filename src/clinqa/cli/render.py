"""Every human-readable output of the CLI: the answer view (:func:`format_answer` and the helpers the
web page mirrors: :func:`related_items`, :func:`refusal_sentence`, :func:`source_groups`), the ingest,
search, stats and migrate summaries, the evaluation tables and the training summary.

Each printer takes the data a command computed (an ``Answer.to_dict()``, a report object, the rows
of an evaluation) and returns text or a list of lines; none of them computes anything or prints.
The ``--json`` output is the data itself and is not rendered here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_WIDTH = 100


def _width(width: int | None) -> int:
    """Columns to wrap human output at: ``width`` if given, else the terminal's
    (:func:`shutil.get_terminal_size`, 100 when it cannot be read), never under 40."""
    import shutil

    return max(40, width or shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _wrap(text: str, width: int, first: str = "", rest: str | None = None) -> list[str]:
    """``text`` wrapped at ``width`` columns: the first line starts with ``first``, continuation
    lines with ``rest`` (default: as many spaces as ``first``, a hanging indent). Words and
    hyphenated terms ("5-10", "beta-blocker") are never split; a longer word overflows its line."""
    import textwrap

    rest = " " * len(first) if rest is None else rest
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _pages(c: dict[str, Any]) -> str:
    """``", p. 4"`` / ``", pp. 4–6"`` from a citation's optional ``page_start``/``page_end``; empty without pages."""
    start, end = c.get("page_start"), c.get("page_end")
    if start is None:
        return ""
    return f", pp. {start}–{end}" if end is not None and end != start else f", p. {start}"


def related_items(ans: dict[str, Any]) -> list[tuple[str, str]]:
    """The related topics of a refusal as ``(title, last section heading)`` pairs, each once, in
    order: from ``related`` when it has items, else from the ``"Title > A > B"`` strings of
    ``related_topics`` (answers made before ``related`` existed). Empty: show no topics."""
    if ans.get("related"):
        pairs = [(r.get("title", ""), r.get("section", "")) for r in ans["related"]]
    else:
        pairs = []
        for t in ans.get("related_topics") or []:
            parts = [x.strip() for x in t.split(" > ")]
            pairs.append((parts[0], parts[-1] if len(parts) > 1 else ""))
    seen: list[tuple[str, str]] = []
    for pair in pairs:
        if pair not in seen and any(pair):
            seen.append(pair)
    return seen


def refusal_sentence(ans: dict[str, Any]) -> str:
    """What a refusal says to a person: the answer text when it starts with the ``reason`` (the
    reason sentence plus any clause the pipeline added), else the ``reason`` alone (older
    answers repeated the related topics in the text; those are listed separately)."""
    reason = (ans.get("reason") or "").strip()
    text = (ans.get("answer") or "").strip()
    if not reason:
        return text
    return text if text.startswith(reason.rstrip(".")) else reason


def source_groups(citations: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Citations grouped so that each source is listed once: citations of the same document title,
    year, section path, pages, url/source, note date and copies (two passages of one section) form
    one group, in the order of their first number. ``[[c1], [c2, c3]]`` for ``[1]`` alone and
    ``[2][3]`` from the same section."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for c in citations:
        key = (c.get("title"), c.get("year"), c.get("section"), c.get("page_start"), c.get("page_end"),
               c.get("url") or c.get("source"), c.get("note_date"), tuple(c.get("also_in") or ()))
        groups.setdefault(key, []).append(c)
    return list(groups.values())


def _cautions(ans: dict[str, Any]) -> list[str]:
    """Warnings plus, on answers, a caution naming ``missing_terms`` less the patient's values
    (:data:`clinqa.question.terms.QUANTITY`: "70 kg"), unless a warning already names every one of them in quotes."""
    from clinqa.question.terms import QUANTITY

    warnings = list(ans.get("warnings") or [])
    # a value the patient has ("70 kg", "INR 4.8") is no term a passage states: it chose the band, if any
    missing = [] if ans.get("refused") else [t for t in ans.get("missing_terms") or [] if not QUANTITY.fullmatch(t)]
    if missing and not all(any(f"'{t}'" in w for w in warnings) for t in missing):
        warnings.append("no quoted passage mentions " + ", ".join(f"'{t}'" for t in missing)
                        + ": check that the sources answer the question")
    return warnings


def format_answer(ans: dict[str, Any], width: int | None = None, verbose: bool = False) -> str:
    """Human-readable rendering of an answer dict (``Answer.to_dict()``), wrapped at ``width``
    columns (default: the terminal width, else 100).

    Answers: the question (in a conversation, then ``Answering: <standalone question>`` when the follow-up was
    read with an earlier turn), the answer text (one paragraph per line of it, ``[n]`` markers kept),
    then ``Sources:`` with each source once as ``[n] Title (year) — Section > Path, p. N`` (``[2][3]``
    for two passages of one section, :func:`source_groups`) and its url (or source) and chunk id(s)
    on the next line, then warnings with a hanging indent. Refusals:
    ``Not answered: <reason>``, then ``Closest topics in the documents:`` with one aligned bullet
    per topic (``  - Title — last heading``) only when there are any. The gate's signal and
    threshold are shown only when ``verbose``."""
    w = _width(width)
    lines = _wrap(ans["question"], w, "Q: ")
    standalone = ans.get("standalone_question")
    if standalone and standalone != ans["question"]:  # a follow-up, read with the turn before it
        lines += _wrap(standalone, w, "Answering: ")
    applied = {k: v for k, v in ans["filters"].items() if v not in (None, [], ()) and k != "exclude_levels"}
    if applied:
        lines += _wrap(", ".join(f"{k}={v}" for k, v in applied.items()), w, "Filters: ")
    if ans.get("time_filter"):
        lines += _wrap(ans["time_filter"], w, "Time filter read from the question: ")
    if ans.get("query_repair"):  # a repaired word changes what was searched: say so beside the question
        lines += _wrap(", ".join(f"'{a}' as '{b}'" for a, b in ans["query_repair"].items()), w, "Searched: ")
    lines.append("")
    if ans["refused"]:
        lines += _wrap(refusal_sentence(ans), w, "Not answered: ")
        topics = related_items(ans)
        if topics:
            lines += ["", "Closest topics in the documents:"]
            for title, section in topics:
                lines += _wrap(" — ".join(x for x in (title, section) if x), w, "  - ")
    else:
        label = {"generated": "Answer (written by the language model; each sentence checked against its sources):",
                 "no-context": "Answer (the language model alone, no sources):"}.get(ans.get("mode", ""))
        if label:
            lines += _wrap(label, w)
        for para in ans["answer"].splitlines():
            lines += _wrap(para, w) if para.strip() else []
        if ans["citations"]:
            lines += ["", "Sources:"]
        for group in source_groups(ans["citations"]):
            c = group[0]
            year = f" ({c['year']})" if c.get("year") else ""
            where = " > ".join(x for x in (c.get("section") or "").split(" > ") if x)
            tag = "  " + "".join(f"[{x['n']}]" for x in group) + " "
            indent = " " * len(tag)
            lines += _wrap(f"{c['title']}{year}" + (f" — {where}" if where else "") + _pages(c), w, tag, indent)
            if c.get("note_date"):
                lines += _wrap(f"note date: {c['note_date']}", w, indent)
            if c.get("also_in"):
                lines += _wrap("same text copied in: " + "; ".join(c["also_in"]), w, indent)
            ids = ("chunks " if len(group) > 1 else "chunk ") + ", ".join(x["chunk_id"] for x in group)
            lines += _wrap(" · ".join(x for x in (c.get("url") or c.get("source"), ids) if x), w, indent)
        dropped = [x for x in ans.get("sentences", []) if not x["supported"]]
        if dropped:
            lines.append("")
            lines.append("Not supported by the cited passages (not shown above):" if ans["mode"] == "generated"
                         and "[unsupported]" not in ans["answer"] else "Not supported by the cited passages:")
            for x in dropped:
                lines += _wrap(f"{x['text']}  ({'; '.join(x['reasons'])})", w, "  - ")
    cautions = _cautions(ans)
    if cautions:
        lines.append("")
        for text in cautions:
            lines += _wrap(text, w, "Warning: ")
    gate = ans.get("gate") or {}
    if verbose and gate.get("signal") is not None:
        sig, thr = gate["signal"], gate.get("threshold")
        lines += ["", f"Gate: {gate.get('kind') or 'signal'} {sig:.3f}"
                  + (f", threshold {thr:.3f}" if thr is not None else "")
                  + (f" ({gate['calibration']})" if gate.get("calibration") else "")]
    lines.extend(_usage_lines(ans))
    return "\n".join(lines)


def _usage_lines(ans: dict[str, Any]) -> list[str]:
    u = ans.get("llm") or {}
    if "prompt_tokens" not in u:
        return []
    cost = "cost unknown (no price for this model in llm.prices)" if u["cost_usd"] is None \
        else f"${u['cost_usd']:.6f}"
    return ["", f"Model: {u['backend']} {u['model']}, {u['prompt_tokens']} prompt + {u['completion_tokens']} "
            f"completion tokens, {cost}, {u['latency_ms'] / 1e3:.1f} s"]


def wrote(folder: Path, names: list[str]) -> str:
    """``"wrote runs/x/a.json"``, ``"wrote runs/x/a.json and b.png"``, ``"wrote runs/x/a, b, c"``: the
    line a command prints after writing its ``--output`` files."""
    if len(names) == 1:
        return f"wrote {folder}/{names[0]}"
    if len(names) == 2:
        return f"wrote {folder}/{names[0]} and {names[1]}"
    return f"wrote {folder}/" + ", ".join(names)


def _s(n: int) -> str:
    return "s" if n != 1 else ""


# -- corpus ---------------------------------------------------------------------------------------

def ingest_summary(report: Any) -> list[str]:
    """The lines after ``clinqa ingest`` for an :class:`~clinqa.pipeline.IngestReport`: counts and
    seconds, OCR pages, each skipped file with its reason, each file with sentences addressed to an
    AI model (indexed, never quoted)."""
    lines = [f"ingested {_n(report.documents, 'document')} ({report.chunks} chunks, {report.embedded} newly "
             f"embedded) in {report.seconds:.1f} s; {report.unchanged} unchanged, "
             f"{len(report.skipped)} skipped, {len(report.failed)} failed"]
    if getattr(report, "no_year", 0):
        lines.append(f"  {_n(report.no_year, 'document')} {'has' if report.no_year == 1 else 'have'} no year: a year "
                     "filter (--since, --until) leaves them out unless retrieval.keep_undated is true (a 'Year:' "
                     "line near the top or a registry sidecar gives a year)")
    if report.ocr_pages:
        lines.append(f"  OCR: read {report.ocr_pages} scanned PDF page{_s(report.ocr_pages)} "
                     "from their images (chunks marked ocr: true)")
    for path, reason in report.skipped:
        lines.append(f"  skipped {path}: {reason.removeprefix('skipped: ')}")
    for path, n in report.suspicious:
        lines.append(f"{path}: {n} sentence{_s(n)} addressed to an AI model "
                     f"{'were' if n != 1 else 'was'} indexed but will never be quoted")
    lines.extend(boilerplate_lines(report.boilerplate))
    return lines


def boilerplate_lines(groups: list[dict[str, Any]]) -> list[str]:
    """One line per group of an ingest's ``boilerplate`` (:meth:`clinqa.documents.boilerplate.Boilerplate.summary`):
    lines and kinds left out, of how many documents, and the first kind's example line."""
    out = []
    for g in groups:
        where = "all documents of the run" if g["group"] == "*" else f"source {g['group'] or '(none)'}"
        example = g["examples"][0] if g["examples"] else ""
        out.append(f"  boilerplate: {g['lines']} line{_s(g['lines'])} of {g['kinds']} kind{_s(g['kinds'])} left out "
                   f"of {g['documents']} document{_s(g['documents'])} ({where}), e.g. "
                   f"\"{example[:90]}{'...' if len(example) > 90 else ''}\"")
    return out


def estimate_lines(e: dict[str, Any]) -> str:
    """``clinqa ingest --dry-run``'s estimate as text."""
    minutes = e["estimated_seconds"] / 60
    return "\n".join([
        f"dry run: nothing was written. {e['documents']} documents to ingest ({e['unchanged']} unchanged, "
        f"{e['failed']} failed, {e['skipped']} skipped); parsing took {e['parse_seconds']:.1f} s",
        f"sample: {e['sample_documents']} documents, {e['sample_chunks']} chunks embedded in "
        f"{e['sample_seconds']:.1f} s ({e['chunks_per_second']:.1f} chunks/s, cold cache)",
        f"estimate: about {e['estimated_chunks']} chunks in {minutes:.1f} min on this machine",
    ])


def stats_lines(s: dict[str, Any]) -> list[str]:
    """``clinqa stats`` for the dict of :meth:`Pipeline.stats` (data dir, documents, chunks, levels,
    patients, model, suspicious chunks when any)."""
    lines = [f"data dir:  {s['data_dir']}", f"documents: {s['documents']}", f"chunks:    {s['chunks']}",
             "levels:    " + ", ".join(f"{k}={v}" for k, v in sorted(s["levels"].items())),
             f"patients:  {s['patients']}", f"model:     {s['model_id']}"]
    if s.get("suspicious_chunks"):
        lines.append(f"suspicious chunks: {s['suspicious_chunks']} (text addressed to an AI model; never quoted)")
    return lines


def migrate_lines(report: Any) -> list[str]:
    """``clinqa migrate`` for a :class:`~clinqa.store.migrate.MigrationReport`: counts, time, BM25
    average document length, and the settings that switch to the new store."""
    return [f"migrated {report.chunks} chunks of {report.documents} documents to {report.target} in "
            f"{report.seconds:.1f} s; counts match (BM25 avgdl {report.avgdl:.1f}).",
            "To use it, put this in your --config file:\n\n" + "\n".join(report.config)]


def demo_ingest_line(report: Any) -> str:
    """The one line ``clinqa demo`` prints after ingesting the bundled corpus."""
    left_out = sum(g["lines"] for g in report.boilerplate)
    return (f"ingested {_n(report.documents, 'document')} ({report.chunks} chunks) in {report.seconds:.1f} s; "
            f"{report.unchanged} unchanged, {len(report.failed)} failed"
            + (f"; {left_out} boilerplate line{_s(left_out)} left out" if left_out else ""))


def documents_table(rows: list[dict[str, Any]]) -> list[str]:
    """``clinqa documents``: one row per document (id, title, source and where it came from, year, chunks,
    file, ingested at; a patient column when any is a note), ``-`` for what the store does not know (stores
    written before the file's source and ingest time were kept)."""
    if not rows:
        return ["No documents."]
    notes = any(r["patient_id"] for r in rows)

    def cells(r: dict[str, Any]) -> list[str]:
        src = r["source"] or "-"
        if r["source"] and r["source_from"]:
            src += f" ({r['source_from']})"
        out = [r["doc_id"], _cut(r["title"] or "-", 48), src, str(r["year"] or "-"), str(r["chunks"]),
               r["path"] or "-", r["ingested_at"] or "-"]
        return [*out, r["patient_id"] or "-"] if notes else out

    head = ["id", "title", "source", "year", "chunks", "file", "ingested at"] + (["patient"] if notes else [])
    table = [head] + [cells(r) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {3, 4}
    lines = ["  ".join(c.rjust(w) if i in right else c.ljust(w)
                       for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in table]
    return [*lines, f"{len(rows)} document{_s(len(rows))}"]


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


# -- search ---------------------------------------------------------------------------------------

def search_lines(rows: list[dict[str, Any]]) -> list[str]:
    """``clinqa search``: per hit (rows of its ``--json`` ``hits``) the rank, fused score, reranker
    score, dense and BM25 ranks and chunk id; then title (year) > section, pages, OCR; then the first
    160 characters of the text."""
    from clinqa.answer.types import pages_label  # not at import: keeps `clinqa --help` light

    lines = []
    for r in rows:
        d = "-" if r["dense_rank"] is None else r["dense_rank"]
        b = "-" if r["bm25_rank"] is None else r["bm25_rank"]
        rr = "" if r["rerank_score"] is None else f" rerank={r['rerank_score']:.3f}"
        lines.append(f"{r['rank']:>2}. score={r['rrf']:.4f}{rr} dense#{d} bm25#{b}  {r['chunk_id']}")
        year = f" ({r['year']})" if r["year"] else ""
        pages = pages_label(r["page_start"], r["page_end"])
        lines.append(f"    {r['title']}{year} > {r['section']}{', ' + pages if pages else ''}"
                     f"{' (OCR)' if r['ocr'] else ''}")
        lines.append(f"    {' '.join(r['text'].split())[:160]}")
    return lines


# -- evaluation -----------------------------------------------------------------------------------

def fmt_metric(v: dict[str, Any]) -> str:
    """``"0.612 [0.540, 0.680]"`` for a metric dict with ``value`` and ``ci95``."""
    return f"{v['value']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"


def retrieval_table(ev: Any) -> list[str]:
    """``clinqa eval retrieval`` for a :class:`~clinqa.evaluation.retrieval.RetrievalEvaluation`: the
    data line (queries, documents, chunks, model, latency), one row per metric with a value and 95%
    CI per run, and the candidate-pool recall."""
    lat = ev.latency_ms
    lines = [f"{ev.dataset}: {ev.n_judged} judged of {ev.n_queries} queries; {ev.n_documents} documents, "
             f"{ev.n_chunks} chunks; model {ev.model_id}; search p50 {lat['p50']:.0f} ms"
             + (f"; rerank p50 {lat['rerank_p50']:.0f} ms, p95 {lat['rerank_p95']:.0f} ms" if "rerank_p50" in lat
                else "")]
    lines.append(f"{'metric':<11}" + "".join(f"{r:>26}" for r in ev.metrics))
    for m in ev.metrics["hybrid"]:
        lines.append(f"{m:<11}" + "".join(f"{fmt_metric(ev.metrics[r][m]):>26}" for r in ev.metrics))
    pr = ev.pool_recall
    lines.append(f"candidate-pool recall (dense top-{pr['depth']} U BM25 top-{pr['depth']}): "
                 f"{pr['value']:.3f} [{pr['ci95'][0]:.3f}, {pr['ci95'][1]:.3f}]")
    return lines


def fusion_table(rows: list[dict[str, Any]]) -> list[str]:
    """``clinqa eval fusion``: one row per fusion rule with five metrics and MRR@10 against the first
    rule (difference and paired p)."""
    cols = ("MRR@10", "Hit@1", "Hit@10", "nDCG@10", "Recall@30")
    w = max([34, *(len(r["rule"]) + 2 for r in rows)])
    lines = [f"{'rule':<{w}}" + "".join(f"{c:>24}" for c in cols) + "   dMRR vs first (p)"]
    for r in rows:
        d = r["vs_first"]["MRR@10"]
        lines.append(f"{r['rule']:<{w}}" + "".join(f"{fmt_metric(r['metrics'][c]):>24}" for c in cols)
                     + f"   {d['diff']:+.3f} ({d['p_value']:.3f})")
    return lines


def chunking_table(rows: list[dict[str, Any]]) -> list[str]:
    """``clinqa eval chunking``: per strategy chunks, mean words, context loss, share over the model
    limit, MRR@10, Hit@10 and MRR@10 against the reference strategy (paired p)."""
    from clinqa.evaluation.report import paired

    ref = rows[0]["vs_reference"]["strategy"] if rows else ""
    lines = [f"{'strategy':<28}{'chunks':>8}{'words':>8}{'loss':>8}{'>limit':>8}{'MRR@10':>24}{'Hit@10':>24}"
             f"  MRR@10 vs {ref} (paired p)"]
    for r in rows:
        lines.append(f"{r['strategy']:<28}{r['chunks']:>8}{r['mean_words']:>8.1f}{r['context_loss']:>8.1%}"
                     f"{r['over_limit']:>8.1%}"
                     f"{fmt_metric(r['MRR@10']):>24}{fmt_metric(r['Hit@10']):>24}"
                     f"  {paired(r['vs_reference']['MRR@10'])}")
    return lines


def models_table(rows: list[dict[str, Any]], columns: tuple[str, ...] | list[str]) -> list[str]:
    """``clinqa eval models``: per model and run the dimensions, each of ``columns`` and the encoding
    throughput (chunks/s, tokens/s; ``-`` for BM25)."""
    head = f"{'model':<28}{'run':<8}{'dim':>5}" + "".join(f"{c:>9}" for c in columns)
    lines = [head + f"{'chunks/s':>10}{'tok/s':>9}"]
    for r in rows:
        speed = f"{r['chunks_per_s']:>10.1f}{r['tokens_per_s']:>9.0f}" if r["chunks_per_s"] else f"{'-':>10}{'-':>9}"
        lines.append(f"{r['model'][:27]:<28}{r['run']:<8}{r['dim']:>5}" +
                     "".join(f"{r[c]['value']:>9.3f}" for c in columns) + speed)
    return lines


def compare_table(res: dict[str, dict[str, Any]]) -> list[str]:
    """``clinqa eval compare``: per metric the means of runs A and B, B-A and the paired p-value."""
    lines = [f"{'metric':<11}{'A':>8}{'B':>8}{'B-A':>9}{'p':>8}   (n = {next(iter(res.values()))['n']:.0f})"]
    for m, r in res.items():
        gain = r["mean_b"] - r["mean_a"]
        lines.append(f"{m:<11}{r['mean_a']:>8.3f}{r['mean_b']:>8.3f}{gain:>+9.3f}{r['p_value']:>8.3f}")
    return lines


def refusal_lines(cal: Any, current: float, source: str, rates: dict[str, float]) -> list[str]:
    """``clinqa eval refusal`` for a :class:`~clinqa.evaluation.refusal.RefusalCalibration`: the dense
    gate's chosen threshold with refusal rates per bucket, the joint (key-term) calibration and its
    per-cut rows when present, and the rates at the threshold in force (``current`` from ``source``)."""
    c = cal.chosen
    lines = [f"dense gate alone: threshold {c['threshold']:.3f} (refuse >= {c['target_oos']:.0%} out-of-scope): " +
             ", ".join(f"{b} refused {r:.1%}" for b, r in c["rates"].items()) +
             ("" if c["meets_target"] else f"  [in-scope refusal above {c['max_in_scope']:.0%}]")]
    j = cal.joint
    if j:
        lines.append(f"with the key-term test: threshold {j['threshold']:.4f}, key terms below Zipf "
                     f"{j['key_term_max_zipf']:.1f}: "
                     + ", ".join(f"{b} refused {r:.1%}" for b, r in j["rates"].items())
                     + ("" if j["meets_target"] else f"  [in-scope refusal above {j['max_in_scope']:.0%}]"))
        lines.append(f"related topics listed above signal {j['related_threshold']:.4f} "
                     f"({j['oos_with_topics']:.1%} of out-of-scope questions would list some)")
        for z, row in j["per_cut"].items():
            lines.append(f"  Zipf < {z}: threshold {row['threshold']:.4f}: "
                         + ", ".join(f"{b} {r:.1%}" for b, r in row["rates"].items()))
    lines.append(f"current threshold {current:.4f} ({source}), dense gate alone: " +
                 ", ".join(f"{b} refused {r:.1%}" for b, r in rates.items()))
    if getattr(cal, "shipped", None):
        lines.append("asked end to end as configured (gate, lexical support, key terms): " +
                     ", ".join(f"{b} refused {r:.1%}" for b, r in cal.shipped["rates"].items()))
    return lines


def answers_lines(summary: dict[str, Any]) -> list[str]:
    """``clinqa eval answers`` on a BEIR folder: per mode and question type the judged-correct rate
    and decision accuracy with CIs, refusals, dropped sentences, tokens and cost per query."""
    lines = []
    for mode, blocks in summary["modes"].items():
        for qtype, b in blocks.items():
            corr = b["correct"]
            dec = b["decision_accuracy"]
            parts = [f"{mode:<10} {qtype:<6} n={b['n']:<4}"]
            if corr["value"] is not None:
                parts.append(f"judged correct {corr['value']:.3f} [{corr['ci'][0]:.3f}, {corr['ci'][1]:.3f}]")
            if dec["value"] is not None:
                parts.append(f"decision acc {dec['value']:.3f} [{dec['ci'][0]:.3f}, {dec['ci'][1]:.3f}]")
            parts.append(f"refused {b['refused']:.1%}")
            if b["dropped_share"] is not None:
                parts.append(f"sentences dropped {b['dropped_share']:.1%} of {b['sentences']}")
            if b["tokens_per_query"] is not None:
                cost = "-" if b["cost_usd_per_query"] is None else f"${b['cost_usd_per_query']:.6f}"
                parts.append(f"tokens/query {b['tokens_per_query']:.0f}, cost/query {cost}")
            lines.append("  ".join(parts))
    return lines


def facts_lines(result: dict[str, Any], questions: Path | None, bioasq: Path | None,
                baseline: Path | None) -> list[str]:
    """``clinqa eval answers QUESTIONS.jsonl`` / ``--bioasq DIR`` for the dict of
    :func:`clinqa.evaluation.facts.run_fact_benchmark`: the store line, the rates with CIs (fact set)
    or the per-type containment table (BioASQ), then the paired comparison with ``baseline``."""
    from clinqa.evaluation import facts as F

    meta, summary, paired = result["meta"], result["summary"], result["paired"]
    lines: list[str] = []
    if meta["benchmark"] == "facts":
        lines.append(f"{summary['n_answerable']} answerable + {summary['n_uncovered']} uncovered questions "
                     f"({questions}); store {meta['documents']} documents, {meta['chunks']} chunks")
        rates = [("fact recall (answer text)", F.fmt_rate(summary["fact_recall"])),
                 ("fact recall (citation quotes)", F.fmt_rate(summary["fact_recall_quotes"])),
                 ("any-fact recall", F.fmt_rate(summary["any_fact_recall"])),
                 ("share of facts found", F.fmt_rate(summary["fact_share"])),
                 ("all facts in the top chunks (ceiling)", F.fmt_rate(summary["facts_in_context"])),
                 (f"wrong-passage rate (n={summary['wrong_passage_rate']['n']} answered)",
                  F.fmt_rate(summary["wrong_passage_rate"])),
                 ("citation [1] from another guideline", F.fmt_rate(summary["first_citation_wrong_rate"])),
                 ("in-scope refusal rate", F.fmt_rate(summary["in_scope_refusal_rate"])),
                 ("on target (all)", F.fmt_rate(summary.get("on_target", {}))),
                 ("on target (of the answered)", F.fmt_rate(summary.get("on_target_answered", {}))),
                 ("answered with a forbidden string", F.fmt_rate(summary.get("forbidden_rate", {}))),
                 ("uncovered refusal rate", F.fmt_rate(summary["uncovered_refusal_rate"])),
                 ("answer words median / p90", f"{F.median_or_dash(summary['answer_words']['median'])} / "
                                               f"{F.median_or_dash(summary['answer_words']['p90'])}"),
                 ("ask ms p50 / p95", f"{F.median_or_dash(summary['latency_ms']['p50'])} / "
                                      f"{F.median_or_dash(summary['latency_ms']['p95'])}")]
        lines += [f"{name:<40}{value}" for name, value in rates]
        lines.append(f"{'kind':<18}{'n':>4}{'facts':>8}{'any':>8}{'refused':>9}")
        for kind, b in summary["by_kind"].items():
            lines.append(f"{kind:<18}{b['n']:>4}{b['fact_recall']:>8.3f}{b['any_fact_recall']:>8.3f}"
                         f"{b['refused']:>9.3f}")
    else:
        lines.append(f"BioASQ {bioasq}: {summary['all']['n']} factoid/list questions; store {meta['documents']} "
                     f"passages ({meta['subset']})")
        lines.append(f"{'type':<9}{'n':>5}{'contains (answer)':>28}{'contains (quotes)':>28}{'list items':>28}"
                     f"{'refused':>9}{'words p50':>10}")
        for t in ("factoid", "list", "all"):
            if t in summary:
                b = summary[t]
                items = F.fmt_rate(b["item_share"]) if "item_share" in b else "-"
                lines.append(f"{t:<9}{b['n']:>5}{F.fmt_rate(b['contains']):>28}"
                             f"{F.fmt_rate(b['contains_quotes']):>28}{items:>28}{b['refused']['value']:>9.3f}"
                             f"{F.median_or_dash(b['answer_words']['median']):>10}")
    if paired:
        lines.append(f"vs baseline {baseline}:")
        for m, r in paired.items():
            lines.append(f"  {m:<18}{r['baseline']:>8.3f} -> {r['current']:.3f}  ({r['diff']:+.3f}, paired p "
                         f"{r['p_value']:.3f}, n={r['n']:.0f})")
    return lines


# -- training -------------------------------------------------------------------------------------

def training_plan_line(plan: Any) -> str:
    """``training questions: medquad 1200 (held out 300), ...`` for a :class:`~clinqa.training.run.Plan`."""
    return "training questions: " + ", ".join(f"{k} {len(v)} (held out {len(plan.held[k])})"
                                              for k, v in plan.train.items())


def training_lines(res: Any, out: Path, kind: str) -> list[str]:
    """The lines after ``clinqa train reranker|encoder``: steps and seconds (and whether the time
    budget stopped it), held-out dev figures, where the model and its card are and which setting
    uses it."""
    use = "rerank.model" if kind == "reranker" else "embedding.model"
    return [f"trained {res.steps} steps in {res.seconds:.0f} s" + (" (stopped by the time budget)"
                                                                  if res.stopped_by_budget else ""),
            "held-out dev: " + ", ".join(f"{k} {v:.3f}" for k, v in res.dev.items()),
            f"saved {out} (model card: {out}/clinqa-training/CARD.md); use it with {use}: {out}"]


def _n(count: int, noun: str) -> str:
    """``"1 document"``, ``"2 documents"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
