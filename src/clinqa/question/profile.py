"""What a question asks for, read once: :class:`QuestionProfile`.

The question's text is read here, once per question (:func:`clinqa.evidence.gather.gather` reads the question
after spelling repair), and the readers downstream take the profile instead of parsing the question again:
the key-term test (:func:`clinqa.key_term_test.check`), the choice of passages
(:func:`clinqa.evidence.passages.fitting_hits`, :func:`~clinqa.evidence.passages.heading_context`,
:func:`~clinqa.evidence.passages.with_siblings`), the extractive answer
(:func:`clinqa.answer.extractive.extract_answer`), the decision's amount check
(:func:`clinqa.decision.quote.missing_amount_reason`) and the corpus coverage
(:func:`clinqa.evidence.coverage.term_counts`). Those of :mod:`clinqa.answer.extractive`, the amount check and
the coverage take the read (:class:`clinqa.question.asks.AsksRead`, which the profile is), not the question's
text; a caller with no profile reads one (:func:`clinqa.question.asks.read_asks`, :func:`~clinqa.question.asks.
asks_of`). The key-term test still takes the question too and reads it when given no profile of it.

The patterns themselves stay with the rule they serve (a dose question is :data:`clinqa.answer.extractive.
DOSE_QUESTION` ...); units come from the one unit table, :data:`clinqa.text.quantities.UNITS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from clinqa.question import asks, terms
from clinqa.question.asks import AsksRead, Qualifier
from clinqa.question.terms import TermsRead, synonym_phrases
from clinqa.text.negation import negated_words
from clinqa.text.unicode import fold_dashes, normalize
from clinqa.text.words import words_of

if TYPE_CHECKING:
    from clinqa.lexicon import Lexicon
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import WordRarity

__all__ = ["Qualifier", "QuestionProfile", "synonym_phrases"]


@dataclass(frozen=True)
class QuestionProfile(TermsRead, AsksRead):
    """What one question asks for, read from its text once (:meth:`read`).

    Read from ``question`` as given (in ``ask``: after spelling repair), as the passage choice and the
    extractive answer read it:

    - ``wants_list``: it asks for criteria, components, steps or another list, not their count
      (:func:`clinqa.answer.extractive.wants_list`).
    - ``asks_number`` / ``asks_dose`` / ``asks_count`` / ``asks_date``: it asks for a number (a dose,
      threshold, target, duration: :data:`~clinqa.answer.extractive.NUMBER_QUESTION`), a dose
      (:data:`~clinqa.answer.extractive.DOSE_QUESTION`), a count ("how many":
      :data:`~clinqa.answer.extractive.COUNT_QUESTION`), a date (:data:`~clinqa.answer.extractive.DATE_QUESTION`).
    - ``asks_duration``: how long something lasts (:data:`clinqa.question.asks.DURATION_QUESTION`), not a
      length (:data:`~clinqa.answer.assemble.LENGTH_QUESTION`: "How long in bp ...").
    - ``heading_kinds``: the section-heading words of the kind of answer asked for ("dose", "dosing" ...;
      :func:`clinqa.answer.extractive.heading_kinds`), empty when none.
    - ``qualifiers``: ``(name, words that state it, words that state its opposite)`` per qualifier
      ("without comorbidities", "first-line", "children"; :data:`clinqa.answer.extractive.OPPOSITES`).
    - ``conditions``: its words rare in general English that may name a condition, lower case
      (:func:`clinqa.evidence.passages.names_subtype` reads them).

    Read from ``normalized`` (:func:`clinqa.text.unicode.normalize` of ``question``), as the key-term test
    reads it; a patient's age ("a 72-year-old") is left out of the last five:

    - ``treatment`` / ``prevention``: it asks what to give or aim for
      (:data:`clinqa.question.terms.TREATMENT_QUESTION`), about preventing something
      (:data:`~clinqa.question.terms.PREVENTION_QUESTION`).
    - ``asked_sentence``: the sentence that asks, in a question of several sentences, else ``""``
      (:func:`clinqa.question.terms.asked_sentence`).
    - ``definitions``: ``(short form lower case, long form)`` pairs it defines ("... transcript (LINC-PINT)";
      :func:`clinqa.text.abbreviations.definitions`), in order.
    - ``phrases``: the synonym table's phrases found in ``question`` (:func:`synonym_phrases`); ``aliases``:
      the terms the table adds for every phrase it found, in order (:func:`clinqa.retrieval.synonyms.expand`:
      "TNK" adds "tenecteplase"), which may name a table row (:func:`clinqa.answer.extractive.extract_answer`).
    - ``answer_types``: the nouns that name the kind of thing asked for ("which cell *organelle*", "what
      *dose* of"; :func:`clinqa.question.terms.answer_type_words`, with the corpus's verbs when read
      with a vocabulary).
    - ``dosed``: the words of the thing whose dose is asked (:func:`clinqa.question.terms.dosed_words`).
    - ``populations``: the population groups it names, in order ("pregnancy", "children";
      :func:`clinqa.question.terms.populations_in`), a kind asked for ("Which cancer ...") excepted.
    - ``quantities``: ``(number, canonical unit)`` per number with a unit ("55 kg" -> ``("55", "kg")``; a
      decimal comma read as a point; :func:`clinqa.question.terms.quantities_in`).
    - ``key_terms``: its key terms (:func:`clinqa.question.terms.key_terms`), read with ``vocabulary``
      and ``max_zipf`` (and the synonym table's ``equivalents``, the question's own definitions added), each
      marked with what the lexicon says it is (:func:`clinqa.question.terms.lexical_marks`) when read with one:
      None when :meth:`read` was given no ``max_zipf``.

    ``time_intent``: the time intent read for the question (:class:`clinqa.question.time.TimeIntent`;
    None when not given). ``max_zipf``: the general-English frequency cut the key terms were read with.
    ``search_names``: what the BM25 query adds, ``(word as written, its names the corpus has)`` in order
    (:meth:`clinqa.lexicon.Lexicon.search_terms`, from the same reading of the question's abbreviations as the
    synonym expansion's); None when read without a lexicon or without ``search_names``."""

    time_intent: TimeIntent | None = None
    max_zipf: float | None = None
    search_names: tuple[tuple[str, tuple[str, ...]], ...] | None = None

    @classmethod
    def read(cls, question: str, intent: TimeIntent | None = None, vocabulary: Vocabulary | None = None,
             max_zipf: float | None = None, phrases: Iterable[str] | None = None,
             equivalents: Callable[[str], Iterable[str]] | None = None,
             rarity: WordRarity | None = None, lexicon: Lexicon | None = None,
             search_names: bool = False) -> QuestionProfile:
        """The profile of ``question`` (see the class docstring). ``intent``: the time intent already read for
        it. The key terms are read only when ``max_zipf`` is given, with ``vocabulary`` (spelling repair,
        corpus verbs; None: neither), ``phrases`` (default: the synonym table's, :func:`synonym_phrases`)
        and ``equivalents`` (the synonym table's :func:`clinqa.retrieval.synonyms.equivalents` in ``ask``;
        None: none). ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: their defaults);
        ``lexicon``: marks each key term with what the lexicon says it is (:attr:`KeyTerm.lexical`,
        :func:`clinqa.question.terms.lexical_marks`); with ``search_names`` (``retrieval.expand_synonyms``) its
        names of the question's words for the BM25 query are read too (:attr:`search_names`). Each reader is called
        once, in this order, and the profile reads nothing itself after them: the lexicon, the synonym table, the
        question's normalised text, its text with dashes folded and its words (each read once, handed on), the asks
        (:func:`clinqa.question.asks.asks_from`), the key terms (:func:`clinqa.question.terms.terms_of`). Pure
        function of its inputs; never raises for any string."""
        from clinqa.retrieval import synonyms

        rarity = rarity or terms.default_rarity()
        # the question's abbreviations and long forms, as this corpus uses them: read once, for the synonym
        # expansion and the BM25 query's names
        abbreviations = lexicon.abbreviation_terms(question) if lexicon is not None else None
        names = (tuple(lexicon.search_terms(question, abbreviations).items())
                 if lexicon is not None and search_names else None)
        expansion = synonyms.expand(question)
        if abbreviations is not None:
            expansion = expansion.with_terms(abbreviations)
        # its normalised text, its text with dashes folded, its words and the words it negates: read once, handed on
        text, dashed, words = normalize(question), fold_dashes(question), frozenset(words_of(question))
        negated = negated_words(question)
        asked = asks.asks_from(question, dashed, words, expansion, rarity.condition_below, negated)
        found = terms.phrases_of(expansion) if phrases is None else tuple(phrases)
        termed = terms.terms_of(question, text, found, vocabulary, max_zipf, equivalents, rarity, lexicon)
        read = {f.name: getattr(part, f.name) for part in (termed, asked) for f in fields(part)}
        return cls(**read, time_intent=intent, max_zipf=max_zipf, search_names=names)
