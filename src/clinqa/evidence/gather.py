"""Gathering, for one question, the evidence the decision weighs (:class:`Gathered`, taken into
:class:`clinqa.decision.verdict.Case` and read by :mod:`clinqa.decision.table`): the search and the passages an
answer may quote, the corpus coverage of the question's words, the key-term test (looked for deeper when the first
passages miss a decisive term). What follows the decision (the draft, the quote, the refusal) is
:mod:`clinqa.answer.assemble`'s. The pipeline's stages come in through :class:`Stages`, built by
:meth:`clinqa.pipeline.Pipeline.stages`, so this module never imports the pipeline; the key-term test's judgement
(which missing term is decisive) comes in the same way (:attr:`Stages.judge`), so it never imports the decision:
what it reads of the decision's records is written here as protocols (:class:`Judgement`, :class:`Calibrated`,
:class:`ScoresAnswers`)."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from clinqa.chunking.units import without_suspicious
from clinqa.evidence.coverage import RARE_BELOW, term_counts
from clinqa.evidence.mentions import CheckedPassage, PassageMentions, passage_mentions
from clinqa.evidence.passages import (
    band_sections,
    fitting_hits,
    heading_context,
    quotable,
    sibling_sections,
    with_siblings,
)
from clinqa.evidence.reading import PassageReadings
from clinqa.lexicon import Lexicon, typo_of
from clinqa.lexicon import lexicon as lexicon_for
from clinqa.question.asks import AsksRead
from clinqa.question.profile import QuestionProfile
from clinqa.question.terms import QUANTITY

if TYPE_CHECKING:
    import numpy as np

    from clinqa.chunking import Chunk
    from clinqa.embedding import Encoder
    from clinqa.question.terms import KeyTerm, TermsRead
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult, Retrieved
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import Settings, WordRarity
    from clinqa.store import Store


class Judgement(Protocol):
    """What gathering reads of the key-term test's judgement (:class:`clinqa.decision.answerability.Answerability`,
    made by :attr:`Stages.judge`): the key terms, the missing ones, whether the corpus has each, the decisive ones,
    the passages that mention every decisive term (``focused``), per term the passages that mention it
    (``covered``) and the terms of the patient's story (``background``)."""

    key_terms: list[KeyTerm]
    missing: list[KeyTerm]
    in_corpus: dict[str, bool]
    focused: list[int]
    covered: dict[str, list[int]]
    background: list[str]

    @property
    def decisive(self) -> list[KeyTerm]: ...


class Judge(Protocol):
    """The key-term test's judgement of a mention table (:func:`clinqa.decision.answerability.judge`, the scope's
    decisive-word model bound): ``(found, profile, vocabulary, rarity) -> judgement``."""

    def __call__(self, found: PassageMentions, profile: TermsRead, vocabulary: Vocabulary | None = None,
                 rarity: WordRarity | None = None) -> Any: ...


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

    def doc_chunks(self, doc_id: str, filters: Filters) -> list[Chunk]:
        """The chunks of document ``doc_id`` that ``filters`` admit (patient scope, years, sources kept; the
        document's overview chunk left out), in no particular order."""
        from dataclasses import replace as with_fields

        ids = self.store.export(["chunk_id"], with_fields(filters, doc_ids=(doc_id,))).column("chunk_id").to_pylist()
        return self.store.get_chunks([str(i) for i in ids])


@dataclass(frozen=True)
class KeyTermTest:
    """The key-term test of one question, bound to its vocabulary (the corpus's, plus the patient's own notes for a
    patient-scoped question), its general-English Zipf cut ``max_zipf`` and the decision's ``judge``
    (:func:`clinqa.decision.answerability.judge`, the decisive-word model bound when ``answer.decisive_words`` is
    ``model``): which passage mentions which key term is read here
    (:func:`clinqa.evidence.mentions.passage_mentions`), which missing term is decisive the judge says. Synonyms,
    abbreviations and drug classes (:mod:`clinqa.retrieval.synonyms`) count as mentions; sentences addressed to an
    AI model do not (:func:`without_suspicious`).
    ``profile``: the question's :class:`clinqa.question.profile.QuestionProfile` when already read with this
    vocabulary and ``max_zipf`` (:func:`gather`); else it is read on first use (:attr:`question_profile`).
    ``readings``: the ask's passage readings (:class:`clinqa.evidence.reading.PassageReadings`), so that each hit's
    text is read for the test once however many tests read it (:meth:`on`); a fresh one when not given."""

    question: str
    vocab: Vocabulary
    max_zipf: float
    judge: Judge
    profile: QuestionProfile | None = None
    rarity: WordRarity | None = None
    use_lexicon: bool = True
    readings: PassageReadings = field(default_factory=PassageReadings)

    @cached_property
    def question_profile(self) -> QuestionProfile:
        """:attr:`profile` when it holds key terms read from :attr:`question`, else the profile read here once
        (vocabulary, ``max_zipf`` and the synonym table's equivalents)."""
        p = self.profile
        if p is not None and p.key_terms is not None and p.reads(self.question):
            return p
        return QuestionProfile.read(self.question, vocabulary=self.vocab, max_zipf=self.max_zipf,
                                    equivalents=self.equivalents, rarity=self.rarity, lexicon=self.lexicon)

    @property
    def lexicon(self) -> Lexicon | None:
        """The lexicon bound to :attr:`vocab` (``answer.lexicon``), or None when off."""
        return lexicon_for(self.vocab) if self.use_lexicon else None

    @property
    def equivalents(self) -> Callable[[str], Iterable[str]]:
        """What counts as another name of a term (:func:`word_equivalents` of :attr:`lexicon`)."""
        return word_equivalents(self.lexicon)

    def on(self, hits: Sequence[Any]) -> Judgement:
        """The test against every hit of ``hits`` (each with a ``.chunk``): as :meth:`on_texts` of their texts, each
        chunk read for the test once per ask (:attr:`clinqa.evidence.reading.PassageReading.checked` of
        :attr:`readings`)."""
        return self._check([self.readings.of(h.chunk).checked for h in hits])

    def on_texts(self, texts: Sequence[str]) -> Judgement:
        """The test against passage ``texts`` (stored chunk texts, header included; units addressed to an AI model
        left out, :func:`without_suspicious`); the question's key terms are read once per test
        (:attr:`question_profile`)."""
        return self._check([without_suspicious(t) for t in texts])

    def _check(self, passages: Sequence[str | CheckedPassage]) -> Judgement:
        """The test of the question against ``passages`` (texts without their suspicious units, or already read for
        the test): which passage mentions which key term (:func:`clinqa.evidence.mentions.passage_mentions`, with
        the synonym table's matcher), judged by :attr:`judge` (as :func:`clinqa.key_term_test.check`)."""
        from clinqa.retrieval import synonyms

        profile = self.question_profile
        found = passage_mentions(profile, passages, self.equivalents, synonyms.term_matches)
        return self.judge(found, profile, self.vocab, self.rarity)


def word_equivalents(lex: Lexicon | None) -> Callable[[str], Iterable[str]]:
    """What counts as another name of a term: the lexicon's (:meth:`clinqa.lexicon.Lexicon.texts`), or the curated
    synonym table's alone when the lexicon is off (``lex`` None)."""
    from clinqa.retrieval import synonyms

    return lex.texts if lex is not None else synonyms.equivalents


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


def in_years(chunk: Chunk, filters: Filters) -> bool:
    """Whether ``chunk``'s year (a note's date's year, else the document year) lies inside the year
    bounds of ``filters``; an undated chunk lies outside any bound."""
    year = chunk.note_date.year if chunk.note_date else chunk.year
    if year is None:
        return False
    return (filters.year_min is None or year >= filters.year_min) and (filters.year_max is None
                                                                       or year <= filters.year_max)


def search_context(stages: Stages, asked: str, filters: Filters, recency: bool,
                   query_vector: np.ndarray | None,
                   profile: AsksRead, more: dict[str, tuple[str, ...]] | None = None,
                   readings: PassageReadings | None = None) -> tuple[RetrievalResult, list[Retrieved]]:
    """``(result, context)``: the search for ``asked`` and the ``answer.context_chunks`` hits an answer may
    quote (:func:`clinqa.evidence.passages.fitting_hits`: passages that state the opposite of a qualifier
    of the question, or name a subtype of the condition it names alone, are passed over). A question with
    a qualifier that fewer than ``answer.context_chunks`` of the ``retrieval.top_k`` hits fit is searched
    again ``answer.qualifier_depth`` hits deep; the hits kept in ``result`` are then the usual ``top_k``
    and any deeper one in ``context`` (timings summed). ``profile``: what was read of ``asked``
    (:class:`clinqa.question.asks.AsksRead`, e.g. its :class:`clinqa.question.profile.QuestionProfile`), which
    the choice of passages takes. ``more``: the lexicon's names of question words the corpus lacks,
    added to the BM25 query (:meth:`clinqa.lexicon.Lexicon.search_terms`, read with the question's profile:
    :attr:`clinqa.question.profile.QuestionProfile.search_names`). ``readings``: the ask's passage readings
    (each hit's heading bands read once; None: readings of its own)."""
    s, top_k = stages.settings.answer, stages.settings.retrieval.top_k
    readings = readings if readings is not None else PassageReadings()
    result = stages.search(asked, filters, recency=recency, query_vector=query_vector, more=more)
    context = fitting_hits(result.hits, profile, s.context_chunks, readings=readings)
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
    return result, context


def coverage(store: Store, asked: AsksRead, filters: Filters, unknown_terms: str,
             timings_ms: dict[str, float], misspelt_from: float | None = None) -> tuple[list[str], list[str]]:
    """``(missing, rare)``: the content words of the question (read as ``asked``: its
    :attr:`~clinqa.question.asks.AsksRead.content_terms`) no chunk under ``filters`` has, and those
    fewer than ``RARE_BELOW`` chunks have (:func:`clinqa.evidence.coverage.term_counts`; none when
    ``unknown_terms`` is ``ignore``); the time goes to ``timings_ms["coverage"]`` (milliseconds). A word no
    chunk has that is one edit from a word at least ``misspelt_from`` common (None:
    ``answer.rarity.misspelt_common_above``) is a typo, not missing. A patient's age and sex ("67F", "a 72-year-old
    man") are context, not words the corpus should have (:func:`clinqa.question.terms.without_ages`)."""
    from clinqa.evidence.coverage import typo_of_stopword
    from clinqa.question.terms import misspelt_common_word

    t0 = time.perf_counter()
    counts = {} if unknown_terms == "ignore" else term_counts(store, asked.content_terms, filters)
    timings_ms["coverage"] = (time.perf_counter() - t0) * 1e3
    # a typo of a common word ("Waht is the treatement ...") is no word the corpus lacks
    return ([t for t, n in counts.items()
             if n == 0 and not misspelt_common_word(t, misspelt_from) and not typo_of_stopword(t)],
            [t for t, n in counts.items() if 0 < n < RARE_BELOW])


def deeper_context(test: KeyTermTest, hits: Sequence[Any], context: list[Any],
                   check: Judgement | None, n: int) -> tuple[list[Any], Judgement | None]:
    """``(context, check)``, the quotable passages and their key-term test, looked for deeper when the
    first ``n`` (``answer.context_chunks``) miss a decisive key term (the drug, condition, population ...
    asked about) that a later hit of the ``retrieval.top_k`` names: then the context is the first ``n``
    fitting hits that mention every decisive term (:attr:`Answerability.focused` over all the hits), those
    naming the missing terms first, in rank order, and the test is run again on them. "How long should
    anticoagulation continue after a *provoked* DVT?" is answered from the duration passage at rank 7
    instead of refused for lack of "provoked" in ranks 1-5. Unchanged when nothing is missing, when no
    later hit names the missing terms, or when the key-term test does not run (``check`` None)."""
    # what the first passages lack: a decisive term, else a term of the patient's story (a vignette's
    # "sepsis" when the first passages are about DKA: Answerability.background)
    story = [t.text for t in check.missing if t.text in check.background] if check is not None else []
    if check is None or not (check.decisive or story):
        return context, check
    deeper = fitting_hits(hits, test.question_profile, len(hits), readings=test.readings)
    if len(deeper) <= len(context):
        return context, check
    wide = test.on(deeper)
    if wide.decisive or not wide.focused:
        return context, check
    lacking = [t.text for t in check.decisive]
    if lacking:  # the passages that name what the first ones lacked come first, then the other focused ones
        naming = [j for j in wide.focused if all(j in wide.covered.get(t, ()) for t in lacking)]
    else:  # those naming most of the story's missing terms
        named = {j: sum(j in wide.covered.get(t, ()) for t in story) for j in wide.focused}
        most = max(named.values())
        naming = [j for j in wide.focused if most and named[j] == most]
    if not naming:
        return context, check
    others = [j for j in wide.focused if j not in naming] if lacking else []  # a story: its passages only
    chosen = sorted((naming + others)[:n])
    picked = [deeper[j] for j in chosen]
    return picked, test.on(picked)


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
    ``answer_threshold``; None when the model did not run), whether a filter scoped the search (``scoped``) and
    which of ``missing`` and of the rare words the unknown-word warnings leave out (``unwarned``): those the lexicon
    reads as ordinary English ("honestly", "wonder", "think") and the patient's values typed as one word ("58kg":
    :data:`clinqa.question.terms.QUANTITY`)."""

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
    scoped: bool = False
    unwarned: frozenset[str] = frozenset()


def passages_to_quote(stages: Stages, found: Gathered, filters: Filters, intent: TimeIntent) -> tuple[list[Any], bool]:
    """``(quoted, by_time)``: the passages an extractive answer quotes, chosen once, by this layer, when the decision
    answers (:meth:`clinqa.pipeline.Pipeline.ask` calls it: a refused question fetches no neighbouring chunk), so
    the answer phase quotes them as they are. The first quotable passages of ``found.context`` (:func:`quotable`:
    those that mention every decisive key term, when some do); with ``siblings`` in ``answer.scoring.parts`` a
    passage under a qualifier heading replaced by a sibling section that fits the question's qualifiers better
    (:func:`sibling_sections`); with their neighbouring chunks (:func:`with_siblings`); those whose section path
    fits the question (:func:`fitting_hits`). ``by_time``: the question is about a time and nothing else
    (``found.timed`` and no key term read: "What happened in 2023?"), so the notes of that time are quoted oldest
    first. A patient's notes otherwise read oldest first, as the record runs, newest first for "current", "latest",
    "most recent" (``intent.recency``: the first line is then the value in force)."""
    s, check, read = stages.settings.answer, found.check, found.profile
    passages = quotable(found.context, check, max(s.context_chunks, len(found.context)))
    if "siblings" in s.scoring.parts:  # issue 50's mechanisms (answer.scoring.parts, off by default)
        passages = sibling_sections(read, passages, lambda doc: stages.doc_chunks(doc, filters))
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
    return fitting_hits(quoted, read, len(quoted), readings=found.test.readings), by_time


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
    (:func:`search_context`), the coverage (:func:`coverage`), the key-term test on the context (after
    :func:`clinqa.evidence.passages.heading_context` adds a later passage filed under the kind of answer asked
    for, and :func:`clinqa.evidence.passages.band_sections` the section of a retrieved document whose heading band
    holds a value the question gives), whether the question is about a time only (``timed``, read from that first
    test), the deeper context (:func:`deeper_context`), the unknown compounds (:func:`with_unknown_compounds`,
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
    readings = PassageReadings()  # each retrieved passage is read once for this ask, by every reader below
    result, context = search_context(stages, asked, filters, intent.recency, query_vector, profile, more, readings)
    result.timings_ms["repair"] = repair_ms
    missing, rare = coverage(stages.store, profile, filters, s.unknown_terms, result.timings_ms,
                             s.rarity.misspelt_common_above)
    test = KeyTermTest(asked, vocab, zipf, stages.judge, profile, s.rarity, s.lexicon, readings)
    if s.key_terms != "ignore":  # a later passage filed under the kind of answer asked for ("> Dosing")
        pool = fitting_hits(result.hits, profile, len(result.hits), readings=readings)
        context = heading_context(profile, pool, context, lambda h: not test.on([h]).decisive, readings)
        context = band_sections(profile, result.hits, context, lambda doc: stages.doc_chunks(doc, filters),
                                rows="rows" in s.scoring.parts, readings=readings)
    check = None
    if s.key_terms != "ignore" and context:
        t0 = time.perf_counter()
        check = test.on(context)
        result.timings_ms["key_terms"] = (time.perf_counter() - t0) * 1e3
    timed = intent.has_dates or (filters.has_years and bool(intent.phrase) and check is not None
                                 and not check.key_terms)
    context, check = deeper_context(test, result.hits, context, check, s.context_chunks)
    if s.unknown_compounds and check is not None and missing and filters.patient_id is None:  # one patient's few
        check = with_unknown_compounds(check, profile, missing, s.rarity.decisive_below)  # notes lack most words
    if check is not None and missing and lex is not None and filters.patient_id is None:
        check = with_unknown_things(check, missing, lex)
    unwarned = frozenset(w for w in (*missing, *rare) if QUANTITY.fullmatch(w)
                         or (lex is not None and lex.kind(w) == "ordinary"))
    found = Gathered(asked, repairs, result, context, [w for w in rare if w not in unwarned], test, profile, missing,
                     check, timed, unwarned=unwarned)
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
    found.scoped = (filters.patient_id is not None or filters.has_years or bool(filters.sources or filters.doc_ids)
                    or stages.has_patient_notes)
    return found
