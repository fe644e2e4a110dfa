"""Answer assembly: the last layer of an ask (question -> evidence -> decision -> answer). Refusal wording, related
topics, warnings and the extractive :class:`~clinqa.answer.types.Answer` (pure functions: no store, no model);
whether to answer is decided in :mod:`clinqa.decision.table`, and this module renders what it decided.

- From the gathered evidence (:class:`clinqa.evidence.gather.Gathered`) and the decision to the answer, in one pass,
  once every phase of the decision that runs has run: :func:`answer_of` (``Pipeline.ask`` calls it once), from
  :func:`draft_of` (what every answer or refusal is rendered from), then :func:`refusal_for` (the refusal, or the
  year-range refusal when the hits outside the range answer: :func:`clinqa.decision.threshold.outside_years`
  searched for them), the quote phase's refusal, :func:`extractive` and, with a language model's reply,
  :func:`generated`. What is read before the decision (the quote: ``passages.passages_to_quote`` and
  ``extract_answer``; the model's reply: :func:`clinqa.answer.generate.model_reply`, told the missing-term notes of
  :func:`clinqa.decision.key_terms.model_notes`) is ``Pipeline.ask``'s, handed down here as data.

- :func:`gate_warnings`: an uncalibrated threshold, question words no visible chunk has.
- The sentences of the decision's refusals are each step's own (:mod:`clinqa.decision`): e.g.
  :func:`clinqa.decision.key_terms.missing_reason`, :func:`clinqa.decision.quote.missing_amount_reason`,
  :func:`clinqa.decision.no_note.no_note_reason`.
- :func:`refuse`, :func:`year_range_refusal`, :func:`no_note_refusal`: the refusal answers;
  :func:`extractive`: the answer, with ``also_in`` (:func:`also_in`); the decision's warnings (the
  unmentioned-rare-word warning is step ``rare_word_warning``) come with the draft.

What a refusal tells the reader:

A refusal is one short plain sentence of why (``Answer.answer`` and ``Answer.reason``), then the
closest topics the documents do have, only when they are close (``Answer.related``, shown once by
the CLI and the web page as a list). Numbers (the gate's signal and threshold) stay in
``Answer.gate``.

- The dense gate refused: "No passage found is close enough to this question to answer it." (the closest topics
  follow, when the question is close to the corpus: the right section may be among them, below the threshold)
- A key term is missing (:mod:`clinqa.decision.answerability`): "The documents do not mention
  amoxicillin." when no chunk of the corpus has it, else "The passages found do not mention
  children." (the corpus has the word, but not in the passages that would answer).
- A year range emptied the answer: "Nothing close enough is dated from 2024 on".

Related topics: the distinct (document, last heading) pairs of the top hits, listed only when
the gate signal is at least the *related* threshold, a second, lower threshold calibrated with
the gate (:mod:`clinqa.decision.calibration`): questions clearly off topic ("How do I change a
car tyre?") get no topics instead of five unrelated guidelines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from clinqa.answer.types import Answer, Citation
from clinqa.decision.threshold import GateDecision, RefusalGate
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import Retrieved

if TYPE_CHECKING:
    from clinqa.answer.extractive import Extract
    from clinqa.answer.generate import Reply
    from clinqa.decision.answerability import Answerability
    from clinqa.decision.table import Decision
    from clinqa.decision.verdict import Case, Verdict
    from clinqa.evidence.gather import Gathered, Stages
    from clinqa.question.time import TimeIntent

MAY_NOT_ANSWER = "; the quoted passages may not answer the question"


def related(hits: Sequence[Retrieved], n: int, exclude: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Up to ``n`` related topics from ``hits`` (best first): one per (document, last heading),
    ``{"title", "section", "chunk_id", "doc_id", "note_date"}``; ``section`` is the last heading of
    the chunk's section path ("" for a document without sections). ``exclude``: chunk ids to skip."""
    out: list[dict[str, Any]] = []
    if n <= 0:
        return out
    seen: set[tuple[str, str]] = set()
    for h in hits:
        c = h.chunk
        if c.chunk_id in exclude:
            continue
        section = c.section_path[-1] if c.section_path else ""
        key = (c.doc_id, section)
        if key in seen:
            continue
        seen.add(key)
        out.append({"title": c.title or c.doc_id, "section": section, "chunk_id": c.chunk_id, "doc_id": c.doc_id,
                    "note_date": c.note_date.isoformat() if c.note_date else None})
        if len(out) >= n:
            break
    return out


def topic_label(t: dict[str, Any]) -> str:
    """``"Title > section"`` (the ``related_topics`` string of one related topic); a patient note's
    date is added: ``"Progress note > Plan (2023-04-02)"``."""
    label = " > ".join(x for x in (t["title"], t["section"]) if x)
    return f"{label} ({t['note_date']})" if t.get("note_date") else label


# -- warnings -----------------------------------------------------------------------------------------
def gate_warnings(gate: RefusalGate, missing: Sequence[str], unknown_terms: str, scope: str,
                  answering: bool) -> list[str]:
    """The warnings known once the gate has decided: an uncalibrated threshold (``gate.calibrated``
    False), then, with ``unknown_terms == "warn"``, the question words in ``missing`` (those no
    visible chunk has, :func:`clinqa.evidence.coverage.term_counts`). ``scope``: what a patient, year,
    source or document filter lets the question see (:meth:`clinqa.store.filters.Filters.scope`; the words are then
    missing there: "no passage in patient P1's notes mentions ..."), ``""`` when none applied;
    ``answering``: the gate's own decision, which adds that the quoted passages may not answer."""
    out = []
    if not gate.calibrated:
        out.append(f"the refusal threshold {gate.threshold:.2f} is not calibrated for this model "
                   f"({gate.model_id}): run `clinqa eval refusal ... --save`")
    if missing and unknown_terms == "warn":
        where = f"no passage in {scope} mentions " if scope else "the corpus never mentions "
        out.append(where + ", ".join(f"'{w}'" for w in missing)
                   + (MAY_NOT_ANSWER if answering else ""))
    return out


# -- the answer ----------------------------------------------------------------------------------------
@dataclass
class Draft:
    """What every answer to one question carries, refused or not: the question as typed, the
    ``filters`` applied (time intent included), the ``hits`` (best first), the final ``decision``,
    the ``warnings`` so far, the key-term ``check`` (None when it did not run), the spelling
    ``repairs``, the BM25 ``expansion``, the ``time_filter`` description, the question's
    ``query_vector`` (``(dim,)`` float32), the stage ``timings_ms`` (shared with the answer) and whether the
    answer ends with the hint that patient notes were not searched (``patient_hint``: :func:`draft_of`)."""

    question: str
    filters: Filters
    hits: list[Retrieved]
    decision: GateDecision
    warnings: list[str] = field(default_factory=list)
    check: Answerability | None = None
    repairs: dict[str, str] = field(default_factory=dict)
    expansion: dict[str, list[str]] = field(default_factory=dict)
    time_filter: str = ""
    query_vector: Any = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    patient_hint: bool = False

    def common(self) -> dict[str, Any]:
        """The :class:`~clinqa.answer.types.Answer` keyword arguments shared by answers and refusals; the warnings
        end with :data:`clinqa.question.repair.PATIENT_HINT` when :attr:`patient_hint` (once)."""
        from clinqa.question.repair import PATIENT_HINT

        c = self.check
        hint = self.patient_hint and PATIENT_HINT not in self.warnings
        return {"question": self.question, "filters": self.filters, "gate": self.decision,
                "timings_ms": self.timings_ms, "retrieved": retrieved_rows(self.hits),
                "warnings": [*self.warnings, PATIENT_HINT] if hint else self.warnings,
                "time_filter": self.time_filter, "query_vector": self.query_vector,
                "answerability": c.to_dict() if c else {}, "missing_terms": c.missing_names() if c else [],
                "query_repair": self.repairs, "query_expansion": self.expansion}


def retrieved_rows(hits: Sequence[Retrieved]) -> list[dict[str, Any]]:
    """``Answer.retrieved``: one ``{"rank", "chunk_id", "score", "rrf", "ranks", "scores"}`` per hit, in order;
    ``score`` is the fused score of the configured fusion (convex or RRF); ``rrf`` holds the same number
    under its older name, kept for clients that read it."""
    return [{"rank": h.rank, "chunk_id": h.chunk.chunk_id, "score": h.score, "rrf": h.score, "ranks": h.ranks,
             "scores": h.scores}
            for h in hits]


def refusal(draft: Draft, reason: str, topics: list[dict[str, Any]], text: str | None = None) -> Answer:
    """The refusal :class:`~clinqa.answer.types.Answer` of ``draft``: ``answer`` is ``text`` (default
    ``reason``), ``related`` the ``topics`` (:func:`related`) and ``related_topics`` their labels."""
    return Answer(**draft.common(), refused=True, answer=text or reason, reason=reason, mode="refusal",
                  related_topics=[topic_label(t) for t in topics], related=topics)


def refuse(draft: Draft, reason: str, related_min: float, n_topics: int) -> Answer:
    """The refusal of ``draft`` for ``reason`` (the decision's sentence, :mod:`clinqa.decision.table`) when
    no wider year range answers: up to ``n_topics`` related topics of the hits, only when the gate signal
    (None counts as -1) is at least ``related_min`` (the related threshold,
    :class:`clinqa.decision.calibration.Resolved`); for a patient-scoped question without a year range that
    matched nothing, a text telling the reader to check the patient id."""
    signal = draft.decision.signal if draft.decision.signal is not None else -1.0
    topics = related(draft.hits, n_topics) if signal >= related_min else []
    f = draft.filters
    if not draft.hits and f.patient_id is not None and not f.has_years:
        return refusal(draft, reason, [], f"{reason} Patient {f.patient_id} has no matching notes; "
                                          "check the patient id.")
    return refusal(draft, reason, topics)


def no_note_refusal(ev: Case, reason: str, timings_ms: dict[str, float]) -> Answer:
    """The refusal :class:`~clinqa.answer.types.Answer` of a question about a day with no note, for the decision's
    ``reason`` (step ``no_note_dated``, :func:`clinqa.decision.no_note.no_note_reason`): the nearest notes
    (``ev.near_notes``) are its related topics; ``ev.filters`` are shown without the internal no-note document
    id."""
    related_ = [{"title": f"{kind + ' note ' if kind else 'note '}{day}", "section": "", "chunk_id": "", "doc_id": d}
                for day, kind, d in ev.near_notes]
    return Answer(question=ev.question, refused=True, answer=reason, reason=reason,
                  filters=replace(ev.filters, doc_ids=()), mode="refusal", related=related_,
                  related_topics=[r["title"] for r in related_], time_filter=ev.time_filter, timings_ms=timings_ms)


def question_warnings(intent: TimeIntent, notes_unsearched: bool) -> list[str]:
    """The warnings the question's time intent calls for, first in an answer: a date that is none
    (``intent.invalid``), then years that could not limit the search (``intent.undated``): the
    :data:`clinqa.question.repair.PATIENT_HINT` when ``notes_unsearched`` (a reference question to a store
    with patient notes, which carry the dates), else :func:`undated_warning`."""
    from clinqa.question.repair import PATIENT_HINT

    out = [f"'{intent.invalid}' is not a date: no date filter was applied"] if intent.invalid else []
    if intent.undated:
        out.append(PATIENT_HINT if notes_unsearched else undated_warning(intent.undated))
    return out


def undated_warning(phrase: str) -> str:
    """The warning of an answer whose question named years (``phrase``: "in 2019") that could not limit
    the search, because no reference document carries a year."""
    return f"no document in the corpus carries a year, so '{phrase}' could not limit the search to those years"


def year_span(year_min: int | None, year_max: int | None) -> str:
    """A year range in words: "in 2019", "in the years 2001-2003", "from 2024 on", "up to 2004"."""
    if year_min is not None and year_max is not None:
        return f"in {year_min}" if year_min == year_max else f"in the years {year_min}-{year_max}"
    if year_min is not None:
        return f"from {year_min} on"
    return f"up to {year_max}" if year_max is not None else "in any year"


def year_range_refusal(draft: Draft, outside: Sequence[Retrieved], phrase: str, n_topics: int,
                       undated: bool = False) -> Answer:
    """The refusal of a question whose year range (``draft.filters``) emptied the answer while the same
    question answers without it: "Nothing close enough is dated from 2030 on", naming the
    time ``phrase`` it was read from (empty: the filters were explicit), with up to ``n_topics``
    related topics of the ``outside`` hits (those dated outside the range). ``undated``: no document in
    the scope carries a year at all, so the range excludes every one, and the reason says that."""
    f = draft.filters
    read = f" (read from '{phrase}')" if phrase else ""
    if undated:
        reason = (f"No document in the corpus carries a year, so the year range ({year_span(f.year_min, f.year_max)}"
                  f"{read}) excludes them all.")
        return refusal(draft, reason, related(outside, n_topics),
                       f"{reason} Remove the year range (--since/--until) to search them.")
    reason = f"Nothing close enough is dated {year_span(f.year_min, f.year_max)}{read}."
    return refusal(draft, reason, related(outside, n_topics),
                   f"{reason} Outside that range the documents have the topics listed; widen or remove the "
                   "year range to see them.")


def _norm(text: str) -> str:
    """Lower-cased text with whitespace runs collapsed, for containment checks."""
    return " ".join(text.lower().split())


def also_in(citations: Sequence[Citation], quotes: dict[str, list[str]], hits: Sequence[Retrieved]) -> None:
    """Set each citation's ``also_in`` (in place): the near-copies folded into its hit
    (``Retrieved.duplicates``, patient-scoped queries) that hold every quoted unit of it (``quotes``:
    chunk id -> units), word for word up to case and spacing, each as ``"<type> note <date> (<doc_id>)"``
    (the type and date left out when unknown; the document year when there is no note date)."""
    copies = {h.chunk.chunk_id: h.duplicates for h in hits if h.duplicates}
    for c in citations:
        units = [_norm(u) for u in quotes.get(c.chunk_id, [])]
        c.also_in = [f"{d.note_type + ' note ' if d.note_type else ''}{d.note_date or d.year or ''} ({d.doc_id})"
                     for d in copies.get(c.chunk_id, []) if units and all(u in _norm(d.body) for u in units)]


def extractive(draft: Draft, ext: Extract) -> Answer:
    """The extractive :class:`~clinqa.answer.types.Answer` of ``draft`` from ``ext``
    (:func:`clinqa.answer.extractive.extract_answer`, which quoted something: the decision refuses an
    empty or amount-less quote, :mod:`clinqa.decision.table`, and warns of rare question words the quoted passages
    miss, step ``rare_word_warning``, in the draft's warnings); ``also_in`` is filled (:func:`also_in`). Raises
    ``ValueError`` for an empty ``ext``."""
    if not ext.text:
        raise ValueError("an extractive answer needs quoted text; the decision refuses an empty quote")
    also_in(ext.citations, ext.quotes, draft.hits)
    return Answer(**draft.common(), refused=False, answer=ext.text, citations=ext.citations, mode="extractive")


# --- from the gathered evidence and the decision to the answer, in one pass -------------------------------

def refusal_for(stages: Stages, draft: Draft, reason: str, ev: Case, outside: Sequence[Retrieved]) -> Answer:
    """The refusal for ``reason`` (the decision's sentence): the year-range refusal when a year range applied and
    the question answers without it (``outside``: the hits dated outside the range,
    :func:`clinqa.decision.threshold.outside_years`; :func:`year_range_refusal`), else :func:`refuse` with the
    calibration's related threshold."""
    n = stages.settings.answer.related_topics
    if outside:
        undated = draft.filters.patient_id is None and not stages.reference_has_years()
        return year_range_refusal(draft, outside, ev.intent.phrase, n, undated=undated)
    assert ev.calibration is not None
    return refuse(draft, reason, ev.calibration.related_threshold, n)


def refused_after_model(extractive: Answer, reason: str, topics: list[dict[str, Any]], **fields: Any) -> Answer:
    """``extractive`` turned into the refusal for ``reason`` (the decision's ``generate`` phase), with the
    related ``topics`` (:func:`related`) and any other ``fields`` of the answer (timings, sentences, usage)."""
    return replace(extractive, refused=True, answer=reason, citations=[],
                   related_topics=[topic_label(t) for t in topics], related=topics,
                   reason=reason, mode="refusal", **fields)


def generated(extractive: Answer, reply: Reply, verdict: Verdict, hits: Sequence[Retrieved], n_topics: int) -> Answer:
    """The answer once the language model replied (``reply``, :func:`clinqa.answer.generate.model_reply`) to a
    question whose ``extractive`` answer stood: the decision's ``generate``-phase refusal (``verdict``: the model's
    own, or the key-term rules' when it gave no usable answer) with up to ``n_topics`` related topics of the
    ``hits``; the extractive answer with a warning when the model failed or none of its sentences is
    supported; else the generated answer, its checked sentences, usage and identifiers, warning of dropped or
    unsupported sentences, invalid citations and redactions. ``timings_ms["generate"]``: the model's latency."""
    g = reply.generated
    fields: dict[str, Any] = {"llm": reply.failure}
    if g is not None:
        check = g.verification
        assert check is not None
        timings = {**extractive.timings_ms, "generate": g.completion.latency_ms}
        extra = {"sentences": [c.to_dict() for c in check.sentences], "llm": g.usage, "identifiers": g.identifiers}
        fields = {"timings_ms": timings, **extra}
    if not verdict.answer:
        return refused_after_model(extractive, verdict.reason, related(hits, n_topics), **fields)
    if g is None:
        extractive.warnings.append(f"no generated answer ({reply.failure['error']}); this is the extractive answer")
        extractive.llm = reply.failure
        return extractive
    n = len(check.sentences)
    if not g.text:
        extractive.warnings.append(f"none of the {n} generated sentences was supported by the passages it "
                                   "cites; this is the extractive answer")
        return replace(extractive, **fields)
    warnings = list(extractive.warnings)
    if check.dropped:
        warnings.append(f"{check.dropped} of {n} generated sentences were dropped: not supported by the "
                        "passages they cite (see 'sentences' in --json)")
    elif any(not c.supported for c in check.sentences):
        warnings.append("sentences marked [unsupported] are not backed by the passages they cite")
    bad_ids = sorted({i for c in check.sentences for i in c.invalid})
    if bad_ids:
        warnings.append("the model cited passages that do not exist (" + ", ".join(f"[{i}]" for i in bad_ids)
                        + "); those citations were removed")
    if g.redacted:
        warnings.append("patient identifiers that are not in the cited passages were redacted")
    return replace(extractive, answer=g.text, citations=g.citations, mode="generated", warnings=warnings, **fields)


def draft_of(stages: Stages, ev: Case, found: Gathered, decision: Decision,
             timings_ms: dict[str, float] | None = None) -> Draft:
    """The :class:`Draft` every answer or refusal of the question is rendered from: the decision's gate record as the
    ``retrieval`` phase left it and its warnings as the ``quote`` phase left them
    (:meth:`clinqa.decision.table.Decision.at_end_of`; the quote phase keeps the gate record, the generate phase's
    refusals are rendered from the extractive answer), after the question's own (:func:`question_warnings`) and the
    gate's (:func:`gate_warnings`, on the missing words less ``found.unwarned``, ordinary English and typed values:
    "hey, honestly, I wonder ..." is no reason to doubt a quote; the quoted passages "may not answer" only when the gate
    with the dated-note step answered and the decision still does). The hint that patient notes were not searched
    (:data:`clinqa.question.repair.PATIENT_HINT`) is chosen here, in both cases: years that could not limit a reference
    question (:func:`question_warnings`), and question words no reference passage has that a warning would name
    (``ev.missing`` less ``found.unwarned``), for a question
    without a patient to a store holding patient notes ("the corpus never mentions X" when only a patient's note does):
    then it ends the answer's warnings (``Draft.patient_hint``). ``timings_ms``: stage timings after the search's (the
    quote's ``extract``)."""
    verdict, filters, result = decision.at_end_of("retrieval"), ev.filters, found.result
    assert ev.gate is not None and verdict.gate is not None
    answering = decision.after("dated_note").answer and verdict.answer
    warnings = [*question_warnings(ev.intent, filters.patient_id is None and stages.has_patient_notes),
                *gate_warnings(ev.gate, [w for w in ev.missing if w not in found.unwarned], ev.unknown_terms,
                               ev.scope, answering),
                *decision.at_end_of("quote").warnings]
    return Draft(ev.question, filters, result.hits, verdict.gate, warnings, ev.check, found.repairs,
                 result.expansion, ev.time_filter, result.query_vector,
                 {**result.timings_ms, **(timings_ms or {})},
                 patient_hint=filters.patient_id is None and stages.has_patient_notes
                 and any(w not in found.unwarned for w in ev.missing))


def answer_of(stages: Stages | None, ev: Case, found: Gathered | None, decision: Decision,
              outside: Sequence[Retrieved], reply: Reply | None, timings_ms: dict[str, float]) -> Answer:
    """The answer to the question, rendered in one pass from the gathered evidence and the decision, once every
    phase that runs has run (``Pipeline.ask`` calls it once, for every question): with nothing gathered
    (``found`` None: the ``time`` phase refused, final, before any search: a patient question about a day with no
    note), :func:`no_note_refusal`; else from the :class:`Draft` (:func:`draft_of`), the refusal of the
    ``retrieval`` phase (:func:`refusal_for`, the year-range wording when ``outside`` is not empty), else that of
    the ``quote`` phase (with the related topics of the hits), else the extractive answer (:func:`extractive`,
    ``ev.extract``), which with the language model's ``reply`` becomes :func:`generated`."""
    if found is None or stages is None:
        return no_note_refusal(ev, decision.verdict.reason, timings_ms)
    draft = draft_of(stages, ev, found, decision, timings_ms)
    n = stages.settings.answer.related_topics
    if not decision.at_end_of("retrieval").answer:
        return refusal_for(stages, draft, decision.verdict.reason, ev, outside)
    if not decision.at_end_of("quote").answer:
        return refusal(draft, decision.verdict.reason, related(draft.hits, n))
    assert ev.extract is not None
    answer = extractive(draft, ev.extract)
    if reply is None:
        return answer
    return generated(answer, reply, decision.verdict, draft.hits, n)
