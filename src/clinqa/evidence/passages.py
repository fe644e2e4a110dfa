"""The choice of passages: which retrieved hits an answer may quote, and which further passages of their documents
join them, read from the question's :class:`clinqa.question.asks.AsksRead` and the passages' section paths and
units. Nothing here decides whether to answer or renders a quote (:mod:`clinqa.answer.extractive` quotes from
what is chosen here); gathering (:mod:`clinqa.evidence.gather`) and the quote (:mod:`clinqa.answer.assemble`) call it.

- :func:`fitting_hits`: the first hits whose section path neither contradicts a qualifier of the question, nor
  states a band that excludes a value it gives, nor names a subtype of a condition it names alone
  (:func:`names_subtype`);
- :func:`heading_context` and :func:`band_sections`: a later passage filed under the kind of answer asked for or
  under the band that holds a value the question gives;
- :func:`sibling_sections` (:func:`qualifier_fit`) and :func:`with_siblings`: a sibling section whose heading
  fits the question's qualifiers better, the neighbouring chunks a list or table goes on into;
- :data:`BOILERPLATE`: text that is never an answer.

Moved out of :mod:`clinqa.answer.extractive` (issue 48 item 4: the evidence layer) unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from clinqa.chunking.base import Chunk
from clinqa.evidence.coverage import STOPWORDS
from clinqa.evidence.reading import PassageReadings
from clinqa.question.asks import LIST_QUESTION, QUALIFIER_WORDS, AsksRead, Qualifier
from clinqa.question.asks import content_stems as _stems
from clinqa.question.terms import POPULATION_WORDS
from clinqa.retrieval.hybrid import Retrieved
from clinqa.retrieval.vocabulary import words_of
from clinqa.text.stems import snowball_stem as stem

if TYPE_CHECKING:
    import numpy as np

    from clinqa.evidence.mentions import Judgement, KeyTermTest
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult
    from clinqa.settings import Settings
    from clinqa.store import Store

#: text that is never an answer: disclaimers, calculator/tool advertisements, navigation

BOILERPLATE = re.compile(
    r"not (?:intended as |a substitute for )?medical advice|for (?:educational|informational) purposes|"
    r"\bcalculator\b|available via mcp|\bcalculate_\w+|\bclick here\b|\bsee also\b|all rights reserved|"
    r"\bcopyright\b|\bdisclaimer\b|this (?:page|summary|document) (?:is|was) (?:generated|provided|intended)|"
    r"\bconsult (?:your|a) (?:doctor|physician|healthcare)",
    re.IGNORECASE)

#: words that make a condition named after them a subtype of it ("resistant hypertension", "gestational
#: diabetes"); a passage under such a heading answers a narrower question than one that names the
#: condition alone
SUBTYPE_MODIFIERS = frozenset("""
resistant refractory secondary primary pulmonary gestational malignant uncontrolled isolated masked white-coat
drug-induced hospital-acquired ventilator-associated healthcare-associated atypical recurrent complicated
congenital familial neonatal perinatal postpartum postoperative post-operative traumatic fulminant
""".split())
#: nouns after a condition's adjective that do not make a subtype ("hypertensive patients")
_NOT_SUBTYPE = frozenset({"patient", "patients", "adult", "adults", "people", "persons", "individuals", "women",
                          "men", "children", "population", "populations", "subjects", "participants"})
_ADJECTIVE = re.compile(r"(?:ive|ic|tic|al)$")


class DocumentChunks:
    """The chunks of whole documents that one step of an ask reads besides its retrieved hits (the section of a
    value's band: :func:`band_sections`; a sibling section: :func:`sibling_sections`), read from ``store`` under the
    ask's ``filters`` (patient scope, years, sources kept; each document's overview chunk left out) once per
    document and handed down to the step as data (it was a callback up into :mod:`clinqa.evidence.gather`).
    :meth:`chunks_of` gives them in the store's export order."""

    def __init__(self, store: Store, filters: Filters) -> None:
        self.store, self.filters = store, filters
        self._read: dict[str, list[Chunk]] = {}

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        """The chunks of document ``doc_id`` that :attr:`filters` admit (:meth:`clinqa.store.base.Store.export` of
        their ids, then :meth:`~clinqa.store.base.Store.get_chunks`), read on the first call for that document."""
        if doc_id not in self._read:
            ids = self.store.export(["chunk_id"], replace(self.filters, doc_ids=(doc_id,))).column("chunk_id")
            self._read[doc_id] = self.store.get_chunks([str(i) for i in ids.to_pylist()])
        return list(self._read[doc_id])


class ChunksOf(Protocol):
    """What :func:`band_sections` and :func:`sibling_sections` read of a document: its chunks under the ask's
    filters (:class:`DocumentChunks`)."""

    def chunks_of(self, doc_id: str) -> list[Chunk]: ...


class Decides(Protocol):
    """What :func:`heading_context` reads of a key-term test's judgement: the decisive key terms no passage
    mentions."""

    @property
    def decisive(self) -> Sequence[object]: ...


class TestsHits(Protocol):
    """The question's key-term test as :func:`heading_context` uses it (:class:`clinqa.evidence.mentions.KeyTermTest`):
    the judgement of a list of hits."""

    def on(self, hits: Sequence[Retrieved]) -> Decides: ...


class Covers(Protocol):
    """What :func:`in_force` reads of a key-term test's judgement (:class:`clinqa.decision.answerability.
    Answerability`): per key term, the indices of the passages that mention it."""

    @property
    def covered(self) -> dict[str, list[int]]: ...


class HasStore(Protocol):
    """What :func:`passages_to_quote` reads of the ask's stages (:class:`clinqa.evidence.gather.Stages`): the
    settings and the store."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...


class Searches(HasStore, Protocol):
    """What :func:`search_context` reads of the ask's stages (:class:`clinqa.evidence.gather.Stages`): the settings
    and the search (``search(asked, filters, recency=..., query_vector=..., more=..., k=...) -> RetrievalResult``)."""

    @property
    def search(self) -> Callable[..., RetrievalResult]: ...


class QuoteFrom(Protocol):
    """What :func:`passages_to_quote` reads of what gathering found (:class:`clinqa.evidence.gather.Gathered`): the
    context, its key-term test's judgement (``check``) and the test (its passage readings), the question's profile
    and whether it is about a time only."""

    context: list[Retrieved]
    check: Judgement | None
    test: KeyTermTest
    profile: AsksRead
    timed: bool


class Focused(Protocol):
    """What :func:`quotable` reads of the key-term test's judgement: the indices of the passages that mention every
    decisive key term (``focused``; empty: none or no decisive term)."""

    focused: list[int]


@lru_cache(maxsize=256)
def _condition_stems(conditions: frozenset[str]) -> dict[str, str]:
    """Condition stem -> condition word (for :func:`names_subtype`; cached per set, so not to be changed by
    callers)."""
    return {stem(w): w for w in conditions}


def names_subtype(context: str, asked: AsksRead, conditions: set[str] | frozenset[str] | None = None) -> bool:
    """Does ``context`` (a section path) name a subtype of a condition the question (read as ``asked``) names
    without one? Either a modifier of :data:`SUBTYPE_MODIFIERS` the question lacks stands right before the
    condition word ("Resistant Hypertension" for "... in hypertension?"), or the condition's adjective
    is followed by another noun the question lacks ("Hypertensive Crises", "Diabetic Ketoacidosis"),
    not a population ("hypertensive patients"). ``conditions``: the question's condition words (None:
    ``asked.conditions``)."""
    conditions = asked.conditions if conditions is None else conditions
    if not conditions:
        return False
    words, asked_stems, stems = asked.words, asked.word_stems, _condition_stems(frozenset(conditions))
    toks = words_of(context.lower())
    for i, tok in enumerate(toks):
        if tok in conditions and i > 0 and toks[i - 1] in SUBTYPE_MODIFIERS and toks[i - 1] not in words:
            return True
        noun = stems.get(stem(tok)) if tok not in words and _ADJECTIVE.search(tok) else None
        # an adjective of the condition, not the same noun ("antibiotic" for "antibiotics")
        if noun and not noun.startswith(tok) and not tok.startswith(noun) and i + 1 < len(toks):
            nxt = toks[i + 1]
            if (nxt.isalpha() and len(nxt) >= 4 and nxt not in STOPWORDS and nxt not in _NOT_SUBTYPE
                    and stem(nxt) not in asked_stems):
                return True
    return False

def neighbour_ids(chunk_id: str) -> tuple[str | None, str | None]:
    """``(before, after)``: ids of the chunks before and after ``chunk_id`` in its section
    (``"<doc>#<section>#<n>"``: ``n - 1`` and ``n + 1``); None for the first chunk's ``before`` and
    for both when the id has no numeric last part."""
    base, _, idx = chunk_id.rpartition("#")
    if not base or not idx.isdigit():
        return None, None
    n = int(idx)
    return (f"{base}#{n - 1}" if n > 0 else None), f"{base}#{n + 1}"


def sibling_ids(chunk_id: str) -> list[str]:
    """The ids of :func:`neighbour_ids` that exist as ids (before first)."""
    return [i for i in neighbour_ids(chunk_id) if i is not None]


def with_siblings(hits: Sequence[Retrieved], asked: AsksRead, fetch: Callable[[list[str]], list[Chunk]],
                  read_on: bool = True, readings: PassageReadings | None = None) -> list[Retrieved]:
    """``hits`` with the neighbouring chunks of the same section (:func:`sibling_ids`, read by ``fetch``:
    ids -> chunks, missing ones left out) placed before or after the hit they continue, when the
    question asks for a list (a criteria list or score table split over two chunks is quoted whole),
    the hit's heading names a list ("Score Components", "Absolute Contraindications"), or the question asks
    for a dose, a number, a treatment or the row of a value it gives (a dosing list of four drugs split after
    the second: the asked drug may be the third), and its chunk
    starts or ends with a list item or table row (the neighbour on that side) or holds only
    boilerplate (both neighbours), or it is the first hit whose section path states a qualifier of the
    question (the "Adults With Comorbidities"
    section's first regimen is in the chunk before the one retrieved). A neighbour comes from the same
    document, section and patient as its hit, so it passed the same filters; it carries the hit's
    score and rank and no list scores. Small-to-big retrieval at section level (as LlamaIndex's
    auto-merging retriever merges child chunks into their parent). ``asked``: what was read of the
    question (:class:`AsksRead`, e.g. its :class:`clinqa.question.profile.QuestionProfile`); ``readings``: the
    ask's passage readings, whose units are read (None: readings of its own)."""
    hits = list(hits)
    readings = readings if readings is not None else PassageReadings()
    listing = asked.wants_list
    # a dose, a treatment or a score value is one item of a list or one row of a table: the list or table goes on
    structured = listing or (read_on and (asked.asks_number or asked.asks_treatment or bool(asked.values)))
    quals = list(asked.qualifiers)
    sides: dict[int, tuple[str | None, str | None]] = {}  # id(hit) -> the neighbours to add, before and after
    stated = False
    for h in hits:
        before, after = neighbour_ids(h.chunk.chunk_id)
        if quals and not stated and _states(" ".join(h.chunk.section_path), quals):
            sides[id(h)] = (before, after)
            stated = True  # the best passage of the section the question names
        elif after is not None and (structured or (listing and LIST_QUESTION.search(readings.of(h.chunk).heading))):
            # a list or table at an edge of the chunk may go on past it; a chunk of boilerplate alone
            # ("OpenMedicine Calculator ...") split from its table says nothing without its neighbours
            units = [u for u in readings.units(h.chunk) if not BOILERPLATE.search(u.full)]
            starts = not units or units[0].kind != "sentence"
            ends = not units or units[-1].kind != "sentence"
            sides[id(h)] = (before if starts else None, after if ends else None)
    have = {h.chunk.chunk_id for h in hits}
    want = list(dict.fromkeys(i for pair in sides.values() for i in pair if i is not None and i not in have))
    if not want:
        return hits
    found = {c.chunk_id: c for c in fetch(want)}

    def neighbour(sid: str | None, h: Retrieved) -> list[Retrieved]:
        c = found.get(sid) if sid is not None and sid not in have else None
        if (c is None or c.doc_id != h.chunk.doc_id or c.section_path != h.chunk.section_path
                or c.patient_id != h.chunk.patient_id):
            return []
        have.add(c.chunk_id)
        return [Retrieved(c, h.score, h.rank)]

    out: list[Retrieved] = []
    for h in hits:
        before, after = sides.get(id(h), (None, None))
        out.extend([*neighbour(before, h), h, *neighbour(after, h)])
    return out


def filed_under(chunk: Chunk, kinds: frozenset[str]) -> bool:
    """Does the last heading of ``chunk``'s section path hold one of ``kinds`` (:func:`heading_kinds`)?"""
    return bool(chunk.section_path) and bool(kinds & set(words_of(chunk.section_path[-1].lower())))


def band_sections(asked: AsksRead, hits: Sequence[Retrieved], context: list[Retrieved],
                  documents: ChunksOf, rows: bool = True,
                  readings: PassageReadings | None = None) -> list[Retrieved]:
    """``context`` plus the passage of the section whose heading band holds a value the question gives, from a
    retrieved document (of ``hits``) that files its sections by bands of that thing, when no passage of
    ``context`` has such a heading: "NEWS2 of 7" retrieved the "NEWS2 Score 0" and "Score 1–4" sections of the response
    algorithm but neither "Score 5–6" nor "Score ≥ 7" (ranks beyond the search's ``top_k``); the document's own
    "NEWS2 Score ≥ 7 — Emergency Response" section is added (its first chunk; :func:`with_siblings` reads the
    rest of a list). ``documents``: the chunks of a document the question's filters admit (the same patient
    scope; :class:`DocumentChunks`). A band section of another document is never added. Else, when no passage of
    ``context`` has a row or item that gives the band holding the value
    (:func:`clinqa.evidence.bands.value_holders`: the "High Risk | 5-7" row for "TIMI score 5", in a chunk after the
    one retrieved), the first chunk of the first two documents of ``context``
    that has one is added. Unchanged when the question (read as ``asked``) gives no named value
    (:attr:`AsksRead.values`) or a passage already holds it. ``readings``: the ask's passage readings, whose heading
    bands and units are read (:meth:`clinqa.evidence.reading.PassageReading.section_fit`,
    :meth:`~clinqa.evidence.reading.PassageReading.holds_value`; None: readings of its own)."""
    values = asked.values
    read = readings if readings is not None else PassageReadings()
    if not values or any(read.section_fit(h.chunk, values) for h in context):
        return context
    banded = list(dict.fromkeys(h.chunk.doc_id for h in hits if read.section_fit(h.chunk, values) is False))
    have = {h.chunk.chunk_id for h in context}
    last = max((h.rank for h in context), default=0)
    for doc in banded:
        fits = [c for c in documents.chunks_of(doc) if c.chunk_id not in have and c.doc_id == doc
                and read.section_fit(c, values)]
        if fits:
            first = min(fits, key=lambda c: (c.section_path, c.chunk_index))
            return [*context, Retrieved(first, 0.0, last + 1)]
    if not rows or any(read.holds_value(h.chunk, values) for h in context):
        return context
    for doc in list(dict.fromkeys(h.chunk.doc_id for h in context))[:2]:
        holding = [c for c in documents.chunks_of(doc) if c.chunk_id not in have and c.doc_id == doc
                   and read.holds_value(c, values)]
        if holding:
            first = min(holding, key=lambda c: (c.section_path, c.chunk_index))
            return [*context, Retrieved(first, 0.0, last + 1)]
    return context


#: word or stem -> population group (:data:`clinqa.question.terms.POPULATION_WORDS`, plus adults)
_POPULATIONS: dict[str, str] = {**{k: v for w, v in POPULATION_WORDS.items() for k in (w, stem(w))},
                                "adult": "adults", "adults": "adults"}
_HEADING_WITH = re.compile(r"\b(with|without|no)\s+(\w+)", re.IGNORECASE)


def _compounds(text: str) -> list[str]:
    """The words of ``text`` with hyphenated compounds kept whole ("child-pugh" is no child, "first-line" one
    word)."""
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())


def qualifier_words(heading: str) -> list[str]:
    """The words of ``heading`` (lower case) that qualify a population, severity, setting, step or line
    (:data:`clinqa.question.asks.QUALIFIER_WORDS`) and the objects of its "with X" / "without X": "Adults With
    Comorbidities" -> ``["adults", "comorbidities"]``."""
    low = heading.lower()
    words = [w for w in _compounds(low) if w in QUALIFIER_WORDS]
    words += [m.group(2) for m in _HEADING_WITH.finditer(low) if m.group(2) not in words]
    return words


def qualifier_fit(heading: str, q_stems: set[str] | frozenset[str], quals: list[Qualifier]) -> float:
    """How well a section heading's qualifiers fit the question (only the qualifier words count, not the topic
    words a sibling repeats): +1 per qualifier word of the heading (:func:`qualifier_words`) the question names
    (by stem: "Severe" for "severe CAP") and -0.5 per one it does not, +1 when the heading states a qualifier
    of the question and -2 when it states the opposite (:data:`clinqa.question.asks.OPPOSITES`), -2 when it
    names a population group and the question names only others ("Adults" for adolescents), -1 for a "with X"
    whose X the question does not name (a patient not said to have comorbidities is the default population).
    Examples for "outpatient CAP antibiotics healthy adult" (qualifiers outpatient, adults): "Adults With
    Comorbidities" +1 (adults named) +1 (states adults) -1 (with comorbidities) = 1; "Healthy Adults Without
    Comorbidities or Risk Factors for Resistant Pathogens" +1 (healthy) +1 (adults) +1 (states adults) -0.5
    (resistant) = 2.5 (the object of "without" is neither named nor missed)."""
    low = " ".join(heading.lower().split())
    score = 0.0
    objects = {m.group(2) for m in _HEADING_WITH.finditer(low)}
    for w in qualifier_words(low):
        if w in objects:
            continue
        score += 1.0 if _stems(w) & q_stems else -0.5
    for m in _HEADING_WITH.finditer(low):
        if m.group(1) == "with" and not (_stems(m.group(2)) & q_stems):
            score -= 1.0
    if quals and _states(low, quals):
        score += 1.0
    if quals and _contradicts(low, quals):
        score -= 2.0
    asked = _population_groups(" ".join(sorted(q_stems)))
    named = _population_groups(low)
    if asked and named and not asked & named:  # "for Adults" when the question is about adolescents
        score -= 2.0
    return score


def _population_groups(text: str) -> set[str]:
    """The population groups ``text`` names (:data:`clinqa.question.terms.POPULATION_WORDS`, plus adults), by
    word or Snowball stem."""
    out = set()
    for w in words_of(text.lower()):
        group = _POPULATIONS.get(w) or _POPULATIONS.get(stem(w))
        if group:
            out.add(group)
    return out


def sibling_sections(asked: AsksRead, hits: Sequence[Retrieved], documents: ChunksOf,
                     max_chunks: int = 3) -> list[Retrieved]:
    """``hits`` with each hit under a qualifier heading ("Adults With Comorbidities", "Mild-Moderate", "Step 2")
    replaced by the first ``max_chunks`` chunks (in order) of a sibling section of its document (the same parent
    path, another last heading that is a qualifier heading too) whose heading fits the question's qualifiers
    better (:func:`qualifier_fit`): "outpatient CAP antibiotics in a healthy adult" retrieved the "With
    Comorbidities" regimen, and its sibling "Without Comorbidities" is read instead. The sibling's chunks carry
    the hit's score and rank; a chunk already among the hits is not repeated. ``documents``: the
    chunks of a document the question's filters admit (:class:`DocumentChunks`). ``asked``: what was read of the
    question (:class:`AsksRead`). Unchanged when no hit sits under a qualifier heading or no sibling fits better."""
    q_stems = asked.stems
    quals = list(asked.qualifiers)
    if not q_stems:
        return list(hits)
    docs: dict[str, dict[tuple[str, ...], list[Chunk]]] = {}
    out: list[Retrieved] = []
    for h in hits:
        path = tuple(h.chunk.section_path)
        if len(path) < 2 or not qualifier_words(path[-1]):
            out.append(h)
            continue
        if h.chunk.doc_id not in docs:
            sections: dict[tuple[str, ...], list[Chunk]] = {}
            for c in documents.chunks_of(h.chunk.doc_id):
                if c.doc_id == h.chunk.doc_id and c.patient_id == h.chunk.patient_id:
                    sections.setdefault(tuple(c.section_path), []).append(c)
            docs[h.chunk.doc_id] = sections
        own = qualifier_fit(path[-1], q_stems, quals)
        best, best_fit = None, own
        for sib in docs[h.chunk.doc_id]:
            if len(sib) == len(path) and sib[:-1] == path[:-1] and sib != path and qualifier_words(sib[-1]):
                fit = qualifier_fit(sib[-1], q_stems, quals)
                if fit >= best_fit + 1.0:  # clearly better, not by a stray word
                    best, best_fit = sib, fit
        if best is None:
            out.append(h)
            continue
        chunks = sorted(docs[h.chunk.doc_id][best], key=lambda c: c.chunk_index)[:max_chunks]
        out.extend(Retrieved(c, h.score, h.rank) for c in chunks)
    seen: set[str] = set()
    return [r for r in out if not (r.chunk.chunk_id in seen or seen.add(r.chunk.chunk_id))]

def heading_context(asked: AsksRead, hits: Sequence[Retrieved], context: list[Retrieved],
                    test: TestsHits | None = None,
                    readings: PassageReadings | None = None) -> list[Retrieved]:
    """``context`` (the passages an answer may quote, the first of ``hits``) plus the best-ranked later hit
    whose last heading names the kind of answer the question asks for (:func:`heading_kinds`: "Epinephrine >
    Dosing" for "What is the epinephrine dose in neonatal resuscitation?", found at rank 6 behind the
    limitations and administration notes) that the question's key-term test ``test`` (handed down as data:
    :class:`clinqa.evidence.mentions.KeyTermTest`) finds no decisive term missing from (it names what the question
    is about; None: every hit),
    when no passage of ``context`` has such a heading; and likewise the best-ranked later hit filed under a
    band that holds a value the question gives (:func:`clinqa.evidence.bands.heading_fit`: "NEWS2 Score 5–6 —
    Urgent Response" for "NEWS2 score of 5", found at rank 10). The hits are not re-ranked: the added ones
    come last. Unchanged when the question asks for no such kind and gives no such value. ``asked``: what
    was read of the question (:class:`AsksRead`, e.g. its :class:`clinqa.question.profile.QuestionProfile`);
    ``readings``: the ask's passage readings, whose heading bands are read (None: readings of its own)."""
    kinds, values = asked.heading_kinds, asked.values
    read = readings if readings is not None else PassageReadings()
    if kinds and not any(filed_under(h.chunk, kinds) for h in context):
        have = {h.chunk.chunk_id for h in context}
        extra = next((h for h in hits if h.chunk.chunk_id not in have and filed_under(h.chunk, kinds)
                      and _names(test, h)), None)
        context = context if extra is None else [*context, extra]
    if values and not any(read.section_fit(h.chunk, values) for h in context):
        have = {h.chunk.chunk_id for h in context}
        extra = next((h for h in hits if h.chunk.chunk_id not in have and _names(test, h)
                      and read.section_fit(h.chunk, values)), None)
        context = context if extra is None else [*context, extra]
    return context


def _names(test: TestsHits | None, hit: Retrieved) -> bool:
    """Does ``hit`` name what the question is about: no decisive key term missing by ``test`` (None: yes)?"""
    return test is None or not test.on([hit]).decisive


def quotable(hits: Sequence[Retrieved], check: Focused | None, context: int) -> list[Retrieved]:
    """The first ``context`` hits that an extractive answer may quote: when some of them mention every
    decisive key term of the question (``check.focused``: the drug, condition, population ... asked
    about), only those, in rank order; otherwise all of them. "What is the colchicine dose for
    pericarditis?" then quotes the pericarditis passage, not the gout table's colchicine dose beside it."""
    ctx = list(hits)[:context]
    if check is None or not check.focused:
        return ctx
    return [ctx[j] for j in check.focused if j < len(ctx)]


def fitting_hits(hits: Sequence[Retrieved], asked: AsksRead, n: int, subtypes: bool = True,
                 readings: PassageReadings | None = None) -> list[Retrieved]:
    """The first ``n`` of ``hits`` (best first) whose section path does not state the opposite of a
    qualifier of the question ("Adults With Comorbidities" or "Inpatient" for "outpatient CAP in adults
    without comorbidities") nor a band that excludes a value the question gives
    (:func:`clinqa.evidence.bands.heading_fit`: "NEWS2 Score ≥ 7" for "NEWS2 score of 5"), then, of those,
    the ones whose section path names no subtype of a condition
    the question names alone (:func:`names_subtype`: "Resistant Hypertension", "Hypertensive Crises" for
    "... in hypertension?") or names a drug the question names (:attr:`AsksRead.drugs`) that no general section
    path names ("Refractory Gout: Pegloticase" for "should pegloticase be used in gout ..."), in retrieval
    order. A step that would leave no hit is skipped, so with no
    qualifier and no subtype this is the first ``n`` hits (``subtypes=False``: the qualifier step only).
    The chunks are not re-ranked: the others are passed over for the next retrieved ones. ``asked``: the
    question's :class:`AsksRead` (e.g. its :class:`clinqa.question.profile.QuestionProfile`); ``readings``: the
    ask's passage readings, whose heading bands are read (None: readings of its own)."""
    quals = list(asked.qualifiers)
    hits = list(hits)
    if quals:
        fitting = [h for h in hits if not _contradicts(" ".join(h.chunk.section_path), quals)]
        hits = fitting or hits
    if asked.values:  # "NEWS2 score of 5": not the "NEWS2 Score 0" or "Score ≥ 7" section
        read = readings if readings is not None else PassageReadings()
        in_band = [h for h in hits if read.section_fit(h.chunk, asked.values) is not False]
        hits = in_band or hits
    conditions = asked.conditions if subtypes else frozenset()
    if conditions:  # "in hypertension": passages about resistant hypertension or hypertensive crises pass
        paths = [" ".join(h.chunk.section_path) for h in hits]
        sub = [names_subtype(p, asked, conditions) for p in paths]
        # ... unless the section is the only place a drug the question names is a heading ("pegloticase":
        # "Refractory Gout: Pegloticase", where the question did not say "refractory"): it is the drug asked about
        if not all(sub):  # some section is general (else every hit stays, in retrieval order)
            drugs = [asked.drugs.intersection(words_of(p.lower())) for p in paths]
            headed = set().union(*(d for d, s in zip(drugs, sub, strict=True) if not s))
            hits = [h for h, d, s in zip(hits, drugs, sub, strict=True) if not s or d - headed]
    return hits[:n]


def _says(context: str, words: tuple[str, ...]) -> bool:
    """Does ``context`` (lower-cased) contain one of ``words`` as a whole word (hyphens join words)?"""
    return any(re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", context) for w in words)


def _contradicts(context: str, qualifiers: list[tuple[str, tuple[str, ...], tuple[str, ...]]]) -> bool:
    """Does ``context`` (a heading or label) state the opposite of a qualifier and not the qualifier?"""
    c = " ".join(context.lower().split())
    return any(_says(c, opposite) and not _says(c, same) for _, same, opposite in qualifiers)

def _states(context: str, qualifiers: list[tuple[str, tuple[str, ...], tuple[str, ...]]]) -> bool:
    """Does ``context`` (a heading or label) state one of the qualifiers (and not its opposite)?"""
    c = " ".join(context.lower().split())
    return any(_says(c, same) and not _says(c, opposite) for _, same, opposite in qualifiers)


def passages_to_quote(stages: HasStore, found: QuoteFrom, filters: Filters,
                      intent: TimeIntent) -> tuple[list[Retrieved], bool]:
    """``(quoted, by_time)``: the passages an extractive answer quotes, chosen once, by this layer, when the decision
    answers (:meth:`clinqa.pipeline.Pipeline.ask` calls it: a refused question fetches no neighbouring chunk;
    moved here from :mod:`clinqa.evidence.gather`, which re-exports it), so the answer phase quotes them as they
    are. The first quotable passages of ``found.context`` (:func:`quotable`:
    those that mention every decisive key term, when some do); with ``siblings`` in ``answer.scoring.parts`` a
    passage under a qualifier heading replaced by a sibling section that fits the question's qualifiers better
    (:func:`sibling_sections`, the document's chunks read through the store under ``filters``:
    :class:`DocumentChunks`, handed down); with their neighbouring chunks (:func:`with_siblings`); those whose
    section path fits the question (:func:`fitting_hits`). ``by_time``: the question is about a time and nothing else
    (``found.timed`` and no key term read: "What happened in 2023?"), so the notes of that time are quoted oldest
    first. A patient's notes otherwise read oldest first, as the record runs, newest first for "current", "latest",
    "most recent" (``intent.recency``: the first line is then the value in force), and then only the newest note that
    names every key term (:func:`in_force`)."""
    s, check, read = stages.settings.answer, found.check, found.profile
    passages = quotable(found.context, check, max(s.context_chunks, len(found.context)))
    if "siblings" in s.scoring.parts:  # issue 50's mechanisms (answer.scoring.parts, off by default)
        passages = sibling_sections(read, passages, DocumentChunks(stages.store, filters))
    quoted = with_siblings(passages, read, stages.store.get_chunks, read_on="read_on" in s.scoring.parts,
                           readings=found.test.readings)
    by_time = found.timed and (check is None or not check.key_terms)
    if by_time:
        quoted = sorted(quoted, key=lambda h: (str(h.chunk.note_date or h.chunk.year or ""), h.chunk.doc_id,
                                               h.chunk.chunk_index))
    elif filters.patient_id is not None:
        order = {id(h): i for i, h in enumerate(quoted)}
        dated = sorted({str(h.chunk.note_date or "") for h in quoted}, reverse=intent.recency)
        rank = {d: i for i, d in enumerate(dated)}
        quoted = sorted(quoted, key=lambda h: (rank[str(h.chunk.note_date or "")], order[id(h)]))
        if intent.recency:  # the latest stated value of a measure the question names, else the note in force
            measured = measured_words(quoted, read.measures, found.test.readings)
            if measured:
                quoted = latest_stated(quoted, measured, found.test.readings)
            elif check is not None:
                quoted = in_force(quoted, found.context, check)
    return fitting_hits(quoted, read, len(quoted), readings=found.test.readings), by_time


def measured_words(hits: Sequence[Retrieved], measures: frozenset[str], readings: PassageReadings) -> frozenset[str]:
    """The words of ``measures`` (a question's :attr:`clinqa.question.asks.AsksRead.measures`: "hb", "cr", "k") that a
    passage of ``hits`` states with a number, as notes write a measured value ("Hb 12.1", "Cr 1.6, eGFR 33", "K: 4.8";
    :attr:`clinqa.evidence.reading.PassageReading.stated`, read once per passage). Empty when none is stated."""
    if not measures:
        return frozenset()
    return frozenset(w for h in hits for w in readings.stated(h.chunk) & measures)


def latest_stated(quoted: list[Retrieved], words: frozenset[str], readings: PassageReadings) -> list[Retrieved]:
    """Of ``quoted`` (one patient's notes, newest first), the hits of the newest note that states a value of one of
    ``words`` (:func:`measured_words`): "most recent Cr" is the last note's "Cr 1.6", not the older notes' values nor
    a newer note that names Cr without a value ("Cr pending"). ``quoted`` unchanged when no note states one."""
    for h in quoted:
        if readings.stated(h.chunk) & words:
            return [x for x in quoted if x.chunk.note_date == h.chunk.note_date]
    return quoted


def in_force(quoted: list[Retrieved], context: Sequence[Retrieved], check: Covers) -> list[Retrieved]:
    """The value in force, for a patient question about now: of ``quoted`` (one patient's notes, newest first), the
    hits of the newest note that names every key term of the question (under any name, as the key-term test found:
    ``check.covered``, indices into ``context``, the passages it was run on: "current anticoagulant?" is named by
    "switched to rivaroxaban"). The older notes it supersedes would quote a stopped drug or an old value. ``quoted``
    unchanged when the question has no key term or no quoted note names every one."""
    if not check.covered:
        return quoted
    naming = set(range(len(context)))
    for found in check.covered.values():
        naming &= set(found)
    notes = {context[i].chunk.doc_id for i in naming}
    newest = next((h for h in quoted if h.chunk.doc_id in notes), None)
    if newest is None:
        return quoted
    return [h for h in quoted if h.chunk.note_date == newest.chunk.note_date]


def search_context(stages: Searches, asked: str, filters: Filters, recency: bool,
                   query_vector: np.ndarray | None,
                   profile: AsksRead, more: dict[str, tuple[str, ...]] | None = None,
                   readings: PassageReadings | None = None
                   ) -> tuple[RetrievalResult, list[Retrieved], list[Retrieved], frozenset[str]]:
    """``(result, context, fitting, measured)``: the search for ``asked``, the ``answer.context_chunks`` hits an answer
    may quote, the measures of a patient question about now that those notes state with a number (``measured``:
    :func:`measured_words`; empty otherwise) and every hit of ``result`` that fits the question (``fitting``, of
    which ``context`` is the first ones when the
    search did not go deeper: one :func:`fitting_hits` of all the hits, read once and handed on to the later heading
    passages and the deeper look) (:func:`fitting_hits`: passages that state the opposite of a qualifier of the
    question, or name a subtype of the condition it names alone, are passed over). A question with a qualifier that
    fewer than ``answer.context_chunks`` of the ``retrieval.top_k`` hits fit is searched again
    ``answer.qualifier_depth`` hits deep; the hits kept in ``result`` are then the usual ``top_k`` and any deeper
    one in ``context`` (timings summed). ``profile``: what was read of ``asked``
    (:class:`clinqa.question.asks.AsksRead`, e.g. its :class:`clinqa.question.profile.QuestionProfile`), which the
    choice of passages takes. ``more``: the lexicon's names of question words the corpus lacks, added to the BM25
    query (:meth:`clinqa.lexicon.Lexicon.search_terms`, read with the question's profile:
    :attr:`clinqa.question.profile.QuestionProfile.search_names`). ``readings``: the ask's passage readings (each
    hit's heading bands read once; None: readings of its own). Moved here from :mod:`clinqa.evidence.gather` (issue
    48, walk round 6): the search's first choice of passages is made where the others are."""
    s, top_k = stages.settings.answer, stages.settings.retrieval.top_k
    readings = readings if readings is not None else PassageReadings()
    result = stages.search(asked, filters, recency=recency, query_vector=query_vector, more=more)
    fitting = fitting_hits(result.hits, profile, len(result.hits), readings=readings)
    context = fitting[: s.context_chunks]
    if (s.qualifier_depth > top_k and len(result.hits) == top_k and bool(profile.qualifiers)
            and len(fitting_hits(result.hits, profile, top_k, subtypes=False, readings=readings)) < s.context_chunks):
        # too few of the top_k fit the qualifier: search deeper (the question's vector is reused)
        deeper = stages.search(asked, filters, k=s.qualifier_depth, recency=recency,
                               query_vector=result.query_vector, more=more)
        context = fitting_hits(deeper.hits, profile, s.context_chunks, readings=readings)
        pos = {id(h): i for i, h in enumerate(deeper.hits, 1)}
        deeper.hits = deeper.hits[: max([top_k] + [pos[id(h)] for h in context])]
        deeper.timings_ms = {k: v + deeper.timings_ms.get(k, 0.0) for k, v in result.timings_ms.items()}
        result = deeper
        fitting = fitting_hits(result.hits, profile, len(result.hits), readings=readings)
    # a patient question about now: the measures its notes state with a number ("Hb 12.1" for "most recent Hb")
    measured = (measured_words(fitting, profile.measures, readings) if recency and filters.patient_id is not None
                else frozenset())
    return result, context, fitting, measured
