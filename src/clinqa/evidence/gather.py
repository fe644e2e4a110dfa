"""Gathering, for one question, the evidence the decision weighs (:class:`Gathered`, taken into
:class:`clinqa.decision.verdict.Case` and read by :mod:`clinqa.decision.table`): the search and the passages an
answer may quote, the corpus coverage of the question's words, the key-term test (looked for deeper when the first
passages miss a decisive term). What follows the decision (the draft, the quote, the refusal) is
:mod:`clinqa.answer.assemble`'s. The pipeline's stages come in through :class:`Stages`, built by
:meth:`clinqa.pipeline.Pipeline.stages`, so this module never imports the pipeline; the key-term test's judgement
(which missing term is decisive) comes in the same way (:attr:`Stages.judge`), so it never imports the decision:
what it reads of the decision's records is written as protocols (:class:`Calibrated`, :class:`ScoresAnswers` here;
:class:`clinqa.evidence.mentions.Judgement` beside the key-term test).

Gathering calls down and is not called back (issue 48, walk round 6): the coverage of the question's words is read
first, from the question alone (:func:`clinqa.evidence.coverage.missing_and_rare`); the choice of passages
(:mod:`clinqa.evidence.passages`: the search's first choice, the later heading and band passages, the deeper look,
the quote's choice) is handed what it reads as data (the key-term test, :class:`clinqa.evidence.mentions.KeyTermTest`;
the documents' chunks, :class:`clinqa.evidence.passages.DocumentChunks`). ``KeyTermTest``, ``Judge``,
``Judgement``, ``word_equivalents`` and ``passages_to_quote`` are re-exported here for their callers."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from clinqa.evidence.coverage import missing_and_rare
from clinqa.evidence.mentions import Judge, Judgement, KeyTermTest, deeper_context, word_equivalents
from clinqa.evidence.passages import (
    DocumentChunks,
    band_sections,
    heading_context,
    search_context,
)
from clinqa.evidence.passages import passages_to_quote as passages_to_quote  # the quote's choice, re-exported
from clinqa.evidence.reading import PassageReadings
from clinqa.lexicon import Lexicon, typo_of
from clinqa.lexicon import lexicon as lexicon_for
from clinqa.question.asks import AsksRead
from clinqa.question.profile import QuestionProfile
from clinqa.question.terms import QUANTITY

if TYPE_CHECKING:
    import numpy as np

    from clinqa.embedding import Encoder
    from clinqa.question.terms import KeyTerm
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import Settings
    from clinqa.store import Store


class Calibrated(Protocol):
    """What gathering reads of the scope's calibration (:class:`clinqa.decision.calibration.Resolved`): the
    general-English Zipf cut below which a question word is a key term."""

    key_term_max_zipf: float


class ScoresAnswers(Protocol):
    """The answer model (:class:`clinqa.decision.answer_model.AnswerModel`) as gathering uses it: the best
    probability that one of ``texts`` answers ``question``."""

    def best(self, question: str, texts: Sequence[str]) -> float: ...


@dataclass(frozen=True)
class Stages:
    """What gathering one question's evidence needs, handed to them by ``Pipeline.ask``
    (:meth:`clinqa.pipeline.Pipeline.stages`) instead of the pipeline itself: the settings, the store and the
    search, and what is read once for the question's scope: its vocabulary (the corpus's, plus the patient's own
    notes for a patient-scoped question), its calibration, the answer model with its threshold (reference scope
    only; None when ``answer.answer_model`` is unset) and whether the store holds patient notes. The unit encoder
    and whether reference documents carry years are read only when a step needs them (``unit_encoder()``,
    ``reference_has_years()``). ``judge``: the key-term test's judgement (:func:`clinqa.decision.answerability.judge`
    with the decisive-word model of ``answer.decisive_words`` bound), handed in by the pipeline, so gathering never
    imports the decision."""

    settings: Settings
    store: Store
    search: Callable[..., RetrievalResult]
    vocabulary: Vocabulary
    calibration: Calibrated
    answer_model: tuple[ScoresAnswers, float] | None
    has_patient_notes: bool
    unit_encoder: Callable[[], Encoder]
    reference_has_years: Callable[[], bool]
    judge: Judge


def with_unknown_compounds(check: Judgement, asked: AsksRead, missing: Sequence[str],
                           common_from: float | None = None) -> Judgement:
    """``check`` plus, as missing decisive phrase terms, the compounds a key term the passages mention
    forms with the common English word right after it that the corpus never has ("thyroid storm": the
    corpus has "thyroid" and no "storm", which is no key term on its own). ``missing``: the question's
    content words no visible chunk has (:func:`clinqa.evidence.coverage.term_counts`). Only a lower-case word
    of letters, general English (wordfreq Zipf >= ``common_from``; None: ``answer.rarity.decisive_below``,
    3.0), not a verb form, an adverb or a word of the kind of
    answer asked for ("urate target": :data:`clinqa.question.terms.SCAFFOLD`), right after the key
    term with nothing between: a word on its own, after a comma, or next to no key term only warns. ``asked``:
    what was read of the question (its :attr:`clinqa.question.asks.AsksRead.tokens`)."""
    from clinqa.question.terms import KeyTerm, default_rarity, is_scaffold
    from clinqa.text.zipf import zipf

    common_from = default_rarity().decisive_below if common_from is None else common_from
    tokens = asked.tokens
    terms = {t.text for t in check.key_terms}
    present = {t.text for t in check.key_terms if t not in check.missing and t.kind in ("specific", "phrase")}
    heads = {w for t in present for w in t.split()}
    added: list[KeyTerm] = []
    for before, w in itertools.pairwise(tokens):
        low = w.lower()
        if (low not in missing or w != low or not w.isalpha() or low in terms or zipf(low) < common_from
                or is_scaffold(low) or re.search(r"(?:ed|ing|ly)$", low) or before.lower() not in heads):
            continue
        phrase = f"{before.lower()} {low}"
        if all(t.text != phrase for t in added):
            added.append(KeyTerm(phrase, "phrase", phrase, typed=phrase))
    if not added:
        return check
    return replace(check, key_terms=[*check.key_terms, *added], missing=[*check.missing, *added],
                   in_corpus={**check.in_corpus, **{t.text: False for t in added}})


def with_unknown_things(check: Judgement, missing: Sequence[str], lex: Lexicon) -> Judgement:
    """``check`` plus, as missing key terms, the words of ``missing`` (the question's content words no visible
    chunk has) that the lexicon knows as concrete things with no clinical sense and no name the corpus has
    (:meth:`clinqa.lexicon.Lexicon.kind` ``concrete``, no :meth:`~clinqa.lexicon.Lexicon.corpus_name`) and that
    WordNet files first as a food, a plant or an animal: "pizza" in "can I give my septic patient pizza" is what
    the question is about, however common the word (Zipf 4.6: no key term by rarity). The ward's own things
    ("labs", "theatre", "drip", "swab": artifacts) are left to the other rules (on blind dev, "labs" refused an
    answerable question). Such a term is decisive by the rule ``not_in_corpus``."""
    from clinqa.lexicon.wordnet import wordnet
    from clinqa.question.terms import KeyTerm

    def edible_or_living(w: str) -> bool:  # foods, plants, animals; not the ward's things ("labs", "theatre", "drip")
        first = next((s for s in wordnet().senses(w) if s.pos == "n"), None)
        return first is not None and first.lexname in ("noun.food", "noun.plant", "noun.animal")

    known = {t.text for t in check.key_terms}
    added = [KeyTerm(w, "specific", w, typed=w, lexical="concrete") for w in dict.fromkeys(m.lower() for m in missing)
             if w not in known and w.isalpha() and lex.kind(w) == "concrete" and edible_or_living(w)
             and lex.corpus_name(w) is None]
    if not added:
        return check
    return replace(check, key_terms=[*check.key_terms, *added], missing=[*check.missing, *added],
                   in_corpus={**check.in_corpus, **{t.text: False for t in added}})


@dataclass
class Gathered:
    """What :func:`gather` found for one question, which the pipeline hands to the decision's
    :class:`~clinqa.decision.verdict.Case` (:meth:`~clinqa.decision.verdict.Case.take`) and the quote takes:
    the question ``asked`` (after spelling repair) and the ``repairs`` made, the search ``result``, the ``context``
    an answer may quote, the ``rare`` question words (few chunks have them; less ``unwarned``, the only use
    being the warning that a quote does not name them), the key-term ``test``, the ``profile``
    read of ``asked``; for the decision the question words no visible chunk has (``missing``), the key-term test of
    the context (``check``, None when it did not run), whether the question is about a time only (``timed``), the
    answer model's best probability over the first quotable passages and its threshold (``answer_score``,
    ``answer_threshold``; None when the model did not run), what a filter let the search see (``scope``:
    :meth:`clinqa.store.filters.Filters.scope`, or "the reference
    documents" of a store with patient notes asked without a patient; "" when nothing narrowed it) and
    which of ``missing`` and of the rare words the unknown-word warnings leave out (``unwarned``): those the lexicon
    reads as ordinary English ("honestly", "wonder", "think"), the patient's values typed as one word ("58kg":
    :data:`clinqa.question.terms.QUANTITY`), the words asking a kind of answer ("max", "dose":
    ``profile.scaffold``, read with the question; the quote's rare-word warning leaves them out too), the words of a
    phrase the synonym table reads whole ("thinner" of "blood thinner", searched as "anticoagulant") and, of
    ``missing``, the key terms a quotable passage names under another
    name (the key-term test found them: "anticoagulant" in a note that names rivaroxaban) and the words of the time
    the question names (``intent.phrase``: "still on", "last")."""

    asked: str
    repairs: dict[str, str]
    result: RetrievalResult
    context: list[Any]
    rare: list[str]
    test: KeyTermTest
    profile: QuestionProfile
    missing: list[str] = field(default_factory=list)
    check: Judgement | None = None
    timed: bool = False
    answer_score: float | None = None
    answer_threshold: float | None = None
    scope: str = ""
    #: a patient question about now: the question's words its notes state with a number ("Hb" of "Hb 12.1")
    measured: frozenset[str] = frozenset()
    unwarned: frozenset[str] = frozenset()


def answer_model_texts(hits: Sequence[Any], units: bool, readings: PassageReadings | None = None) -> list[str]:
    """What the answer model reads of ``hits``: each passage whole (its stored text, header included), or with
    ``units`` each quotable unit under its section heading (:func:`clinqa.chunking.units.embedding_text`, the
    texts ingest embeds), so the passage's answering sentence is read even past the model's token limit. The units
    are the ask's readings' (``readings``: each passage read once per ask, its
    :attr:`~clinqa.evidence.reading.PassageReading.unit_texts`; None: read here)."""
    if not units:
        return [h.chunk.text for h in hits]
    read = readings if readings is not None else PassageReadings()
    return [t for h in hits for t in read.of(h.chunk).unit_texts] or [h.chunk.text for h in hits]


def gather(stages: Stages, question: str, filters: Filters, intent: TimeIntent,
           query_vector: np.ndarray | None = None) -> Gathered:
    """The retrieval-phase evidence of ``question`` (as typed) under ``filters`` (time ``intent`` applied): the
    question repaired against the vocabulary of its scope (:func:`clinqa.question.repair.repair_question`, when
    ``retrieval.repair_spelling``; its time in ``timings_ms["repair"]``), the search and quotable context
    (:func:`clinqa.evidence.passages.search_context`), the coverage
    (:func:`clinqa.evidence.coverage.missing_and_rare`, read before the search: it needs the question alone), the
    key-term test on the context (after :func:`clinqa.evidence.passages.heading_context` adds a later passage filed
    under the kind of answer asked for, and :func:`clinqa.evidence.passages.band_sections` the section of a
    retrieved document whose heading band holds a value the question gives), whether the question is about a time
    only (``timed``, read from that first test), the deeper context
    (:func:`clinqa.evidence.mentions.deeper_context`), the unknown compounds (:func:`with_unknown_compounds`,
    reference scope, only with ``answer.unknown_compounds``: off by default), the answer model's score of the first
    quotable passages (``answer.answer_model``, reference scope) and whether a filter scoped the search. The
    question (after repair) is read once, before the search, into :attr:`Gathered.profile`
    (:class:`clinqa.question.profile.QuestionProfile`: what it asks for, its qualifiers, its key terms with the
    scope's vocabulary and the calibration's ``key_term_max_zipf``, these only when ``answer.key_terms`` is not
    ``ignore``), which every later reader of the question takes."""
    from clinqa.question.repair import repair_question

    s = stages.settings.answer
    t0 = time.perf_counter()
    vocab = stages.vocabulary
    lex = lexicon_for(vocab) if s.lexicon else None
    asked, repairs = question, {}
    if stages.settings.retrieval.repair_spelling:
        asked, repairs = repair_question(question, vocab, s.rarity.repair_below,
                                         known=lex.knows if lex is not None else None,
                                         rename=lex.corpus_name if lex is not None else None,
                                         typo=typo_of if lex is not None else None)
    repair_ms = (time.perf_counter() - t0) * 1e3
    zipf = stages.calibration.key_term_max_zipf
    profile = QuestionProfile.read(asked, intent, vocab, zipf if s.key_terms != "ignore" else None,
                                   equivalents=word_equivalents(lex), rarity=s.rarity, lexicon=lex,
                                   search_names=stages.settings.retrieval.expand_synonyms)
    more = dict(profile.search_names) if profile.search_names is not None else None
    timings_ms = {"repair": repair_ms}
    missing, rare = missing_and_rare(stages.store, profile, filters, s.unknown_terms, timings_ms,
                                     s.rarity.misspelt_common_above)
    readings = PassageReadings()  # each retrieved passage is read once for this ask, by every reader below
    result, context, pool, measured = search_context(stages, asked, filters, intent.recency, query_vector, profile,
                                                     more, readings)  # pool: the hits that fit the question, read once
    result.timings_ms.update(timings_ms)
    documents = DocumentChunks(stages.store, filters)  # the chunks of a whole document, read through the store
    test = KeyTermTest(asked, vocab, zipf, stages.judge, profile, s.rarity, s.lexicon, readings)
    if s.key_terms != "ignore":  # a later passage filed under the kind of answer asked for ("> Dosing")
        context = heading_context(profile, pool, context, test, readings)
        context = band_sections(profile, result.hits, context, documents,
                                rows="rows" in s.scoring.parts, readings=readings)
    check = None
    if s.key_terms != "ignore" and context:
        t0 = time.perf_counter()
        check = test.on(context)
        result.timings_ms["key_terms"] = (time.perf_counter() - t0) * 1e3
    timed = intent.has_dates or (filters.has_years and bool(intent.phrase) and check is not None
                                 and not check.key_terms)
    context, check = deeper_context(test, pool, context, check, s.context_chunks)
    if s.unknown_compounds and check is not None and missing and filters.patient_id is None:  # one patient's few
        check = with_unknown_compounds(check, profile, missing, s.rarity.decisive_below)  # notes lack most words
    if check is not None and missing and lex is not None and filters.patient_id is None:
        check = with_unknown_things(check, missing, lex)
    # a word no chunk spells that a quotable passage names under another name (the key-term test's judgement:
    # "anticoagulant" by "rivaroxaban") is no word the passages lack
    named = frozenset(t.text for t in check.key_terms if t not in check.missing) if check is not None else frozenset()
    # the words the time reader took ("still on", "last"): the question's time, no topic a passage should name
    timing = frozenset(intent.phrase.lower().split())
    unwarned = frozenset(w for w in (*missing, *rare) if QUANTITY.fullmatch(w) or (w in named and w in missing)
                         or w in timing or w in profile.phrase_words or w in profile.scaffold
                         or (lex is not None and lex.kind(w) == "ordinary"))
    found = Gathered(asked, repairs, result, context, [w for w in rare if w not in unwarned], test, profile, missing,
                     check, timed, measured=measured, unwarned=unwarned)  # measured: "most recent Hb", a note states
    model = stages.answer_model if filters.patient_id is None else None
    if model is not None and context:
        t0 = time.perf_counter()
        found.answer_score = model[0].best(asked, answer_model_texts(context[: s.answer_model_passages],
                                                                     s.answer_model_units, readings))
        found.answer_threshold = model[1]
        result.timings_ms["answer_model"] = (time.perf_counter() - t0) * 1e3
        if found.check is not None:
            found.check = replace(found.check, answer_score=found.answer_score)
    # a store with patient notes, asked without a patient, searched the reference documents only
    found.scope = filters.scope() or ("the reference documents" if stages.has_patient_notes else "")
    return found
