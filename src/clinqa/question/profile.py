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

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from clinqa.question import asks, terms
from clinqa.question.asks import AsksRead, Qualifier
from clinqa.question.terms import TermsRead, synonym_phrases
from clinqa.text.quantities import UNITS
from clinqa.text.unicode import fold_dashes, normalize
from clinqa.text.words import WORD, whole_word

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
      :data:`clinqa.question.terms.POPULATION_WORDS`), a kind asked for ("Which cancer ...") excepted.
    - ``quantities``: ``(number, canonical unit)`` per number with a unit ("55 kg" -> ``("55", "kg")``; a
      decimal comma read as a point; units of :data:`clinqa.text.quantities.QUESTION_UNITS`, canonical per
      :data:`clinqa.text.quantities.UNITS`).
    - ``key_terms``: its key terms (:func:`clinqa.question.terms.key_terms`), read with ``vocabulary``
      and ``max_zipf`` (and the synonym table's ``equivalents``, the question's own definitions added):
      None when :meth:`read` was given no ``max_zipf``.

    ``time_intent``: the time intent read for the question (:class:`clinqa.question.time.TimeIntent`;
    None when not given). ``max_zipf``: the general-English frequency cut the key terms were read with.
    ``search_names``: what the BM25 query adds, ``(word as written, its names the corpus has)`` in order
    (:meth:`clinqa.lexicon.Lexicon.search_terms`, from the same reading of the question's abbreviations as the
    synonym expansion's); None when read without a lexicon or without ``search_names``."""

    populations: tuple[str, ...]
    quantities: tuple[tuple[str, str], ...]
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
        ``lexicon``: marks each key term with what the lexicon says it is (:attr:`KeyTerm.lexical`); with
        ``search_names`` (``retrieval.expand_synonyms``) its names of the question's words for the BM25 query are
        read too (:attr:`search_names`). Pure function of its inputs; never raises for any string."""
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
        # its normalised text and its text with dashes folded: read once, handed on
        text, dashed = normalize(question), fold_dashes(question)
        found = terms.phrases_of(expansion) if phrases is None else tuple(phrases)
        termed = terms.terms_of(question, text, found, vocabulary, max_zipf, equivalents, rarity)
        if lexicon is not None and termed.key_terms is not None:
            termed = replace(termed, key_terms=_lexical(termed.key_terms, termed.normalized, lexicon))
        asked = asks.asks_from(question, dashed, expansion, rarity.condition_below)
        aged = terms.without_ages(termed.normalized)  # a patient's age is context (as key_terms reads the question)
        read = {f.name: getattr(part, f.name) for part in (termed, asked) for f in fields(part)}
        return cls(**read, populations=_populations(aged, termed.answer_types), quantities=_quantities(aged),
                   time_intent=intent, max_zipf=max_zipf, search_names=names)


def _lexical(key_terms: tuple[terms.KeyTerm, ...], normalized: str, lexicon: Lexicon) -> tuple[terms.KeyTerm, ...]:
    """``key_terms`` each marked with what the lexicon says it is (:attr:`clinqa.question.terms.KeyTerm.lexical`,
    :meth:`clinqa.lexicon.Lexicon.kind`). A quantity the patient's story gives (:func:`_told`: a body weight, a
    number before the question's last clause break), or a thing the question gives a value ("RR 22", "eGFR 48":
    :func:`clinqa.question.asks.named_values`) and asks nothing else of, is the patient's story: ``context``,
    whatever the lexicon says ("BP 210/118 ... BP and heart rate goals" asks of BP). A quantity in a one-clause
    question ("Can the cough persist for 8 weeks?") is what it asks of: it keeps the lexicon's word."""
    aged = terms.without_ages(normalized)
    given = [w for w, _ in asks.values_in(aged)]  # a normalised text's dashes are folded
    valued = {w for w in given if len(whole_word(w, re.I).findall(aged))
              <= given.count(w)}
    story = story_part(aged)
    return tuple(replace(t, lexical="context" if t.text in valued or (t.kind == "quantity" and _told(t, story))
                         else lexicon.kind(t.typed or t.match)) for t in key_terms)


#: where a question's story ends and what it asks begins: a dash, a semicolon, a colon or a sentence end
#: ("72 kg man, stroke 2 h ago - alteplase dose?", "Finished 6 months of rivaroxaban. Can the dose be lowered?")
_STORY_END = re.compile(r"\s[-–—]\s|[;:]\s|[.!?]\s+(?=\S)")
#: a body weight ("72 kg", "14kg"): the patient's, wherever the question gives it
_WEIGHT = re.compile(r"\bkg$", re.IGNORECASE)


def story_part(text: str) -> str:
    """The part of question ``text`` that tells the patient's story: everything before the last break between
    clauses (:data:`_STORY_END`: " - ", "; ", ": ", a sentence end), lower case; "" when the question is one
    clause ("Can the cough persist for 8 weeks after acute bronchitis?" tells no story: it asks of 8 weeks)."""
    ends = [m.end() for m in _STORY_END.finditer(text.rstrip())]
    return text[:ends[-1]].lower() if ends else ""


def _told(term: terms.KeyTerm, story: str) -> bool:
    """Is quantity ``term`` part of the patient's story: a body weight, or a number given in ``story``
    (:func:`story_part`)? Such a number is context; a number in what is asked ("persist for 8 weeks?",
    "is 5 days enough?") is what the passage must state."""
    return bool(_WEIGHT.search(term.text)) or (bool(story) and re.search(
        r"(?<![\w.])" + re.escape(term.text).replace(r"\ ", r"\s*") + r"(?![\w])", story) is not None)


def _populations(text: str, kinds: frozenset[str]) -> tuple[str, ...]:
    """The population groups ``text`` names, in order of first mention, as the key terms read them
    ("cancer-associated" names cancer; a word of ``kinds``, the kind asked for, does not count)."""
    groups: list[str] = []
    for m in WORD.finditer(text):
        w = m.group(0).strip("'").lower()
        if w.endswith("'s"):
            w = w[:-2]
        first, _, rest = w.partition("-")
        if first in terms.POPULATION_WORDS and rest in terms.RELATION_SUFFIXES:
            w = first
        group = terms.POPULATION_WORDS.get(w)
        if group is not None and w not in kinds and group not in groups:
            groups.append(group)
    return tuple(groups)


def _quantities(text: str) -> tuple[tuple[str, str], ...]:
    """``(number, canonical unit)`` of each number with a unit in ``text`` (:data:`clinqa.question.terms.
    QUANTITY`), in order."""
    return tuple((m.group(1).replace(",", "."), UNITS.get(m.group(2).lower(), m.group(2).lower()))
                 for m in terms.QUANTITY.finditer(text))
