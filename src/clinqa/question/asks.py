"""What kind of answer a question asks for, and the qualifiers it puts on it: a list or its count, a number, a
dose, a date, a duration, the section-heading words of the answer's kind, "with/without X", "first-line",
"outpatient", "children" and their opposites, and the words that may name a condition. Read once per question
into :class:`AsksRead` (:func:`read_asks`); the choice of passages and the extractive answer
(:mod:`clinqa.answer.extractive`) take it instead of reading the question again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from clinqa.question.terms import (
    POPULATION_WORDS,
    content_terms,
    default_rarity,
    drug_words,
    is_scaffold,
    measure_words,
    values_in,
    without_ages,
)
from clinqa.retrieval.vocabulary import words_of
from clinqa.text.negation import negated_words
from clinqa.text.quantities import DIGITS, UNIT_WORD, number_with_unit, unit_pattern
from clinqa.text.stems import snowball_stem as stem
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOPWORDS
from clinqa.text.unicode import fold_dashes
from clinqa.text.words import TYPED_TOKEN
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.retrieval.synonyms import Expansion


#: a question asking for a whole list: criteria, components, steps, signs ...
LIST_QUESTION = re.compile(
    r"\b(?:criteria|criterion|components?|steps?|elements?|items?|features|signs|list|bundle|"
    r"factors|parameters|what are the|which are the|checklist|goes into|go into|made up of|contraindications|"
    r"indications|exclusions|red flags)\b", re.IGNORECASE)


#: a question asking for a number: a dose, a threshold or target, a duration
NUMBER_QUESTION = re.compile(
    r"\b(?:doses?|dosing|dosage|how much|regimen|threshold|target|goal|cut-?off|level|at what|how many|"
    r"how long|duration|how often|interval|rate|maximum|minimum|max|min)\b", re.IGNORECASE)


#: words that ask for a dose (a question's, or a table column's: "Dose: 1 mg/kg; Frequency: Every 12 hours")
DOSE_HEADERS = frozenset({"dose", "doses", "dosing", "dosage", "regimen"})


#: a question asking for a dose
DOSE_QUESTION = re.compile(r"\b(?:" + "|".join(sorted(DOSE_HEADERS)) + r"|how much)\b", re.IGNORECASE)


#: a question asking when something happened ("When was Afrezza approved by the FDA?"): it wants a date; not
#: "When is prasugrel contraindicated?" or "When should ...", which ask for a condition
DATE_QUESTION = re.compile(r"^\s*when\s+(?:did|was|were)\b|\bwhat year\b|\bin which year\b", re.IGNORECASE)
#: a question that asks for the reason of something ("why was ... stopped", "reason for ...", "what was ... held for")
REASON_QUESTION = re.compile(r"^\s*why\b|\breasons?\s+(?:for|why)\b|\bwhat\s+(?:was|were|is)\b.*\bfor\s*\??\s*$",
                             re.IGNORECASE)


#: a question asking how many: it wants the count, not the list ("How many DSM-5 criteria are needed?")
COUNT_QUESTION = re.compile(r"\bhow many\b", re.IGNORECASE)


#: "How long in bp is PAR2?": a length, not a time
LENGTH_QUESTION = re.compile(r"\bhow long in\b|\blength\b|\b(?:bp|kb|mb|nucleotides|amino acids|residues)\b",
                             re.IGNORECASE)


#: a question asking how long something lasts or goes on
DURATION_QUESTION = re.compile(r"\bhow long\b|\bduration\b|\bfor how many (?:"
                               + unit_pattern(("hours", "days", "weeks", "months", "years")) + r")\b", re.IGNORECASE)


#: a question asking what to give or do ("what to give", "treatment", "management", "which antibiotics"): its
#: answer is a treatment line, not a definition, a criterion or a risk factor (a dose question is one too)
TREATMENT_ASK = re.compile(
    r"\bwhat (?:to|should (?:i|we|you)|do (?:i|we|you)|can (?:i|we)) (?:give|start|use|prescribe|treat)\b|"
    r"\b(?:treat(?:s|ed|ing|ment|ments)?|therap(?:y|ies)|manag(?:e|ed|ing|ement)|regimens?|antibiotics?|"
    r"first-line|second-line|drug of choice|doses?|dosing|dosage)\b", re.IGNORECASE)


#: qualifier -> the words that state its opposite (in a heading or label)
OPPOSITES: dict[str, tuple[str, ...]] = {
    "first-line": ("second-line", "third-line", "refractory", "alternative"),
    "second-line": ("first-line",),
    "outpatient": ("inpatient", "icu", "hospitalized", "hospitalised", "ward"),
    "inpatient": ("outpatient", "ambulatory"),
    "mild": ("severe",),
    "severe": ("mild", "non-severe"),
    "acute": ("chronic",),
    "chronic": ("acute",),
    "children": ("adult", "adults"),
    "adults": ("children", "child", "paediatric", "pediatric"),
}


#: words that make a heading a qualifier of the population, severity, setting, step or line its lines are for
#: ("Adults With Comorbidities", "Severe Exacerbation", "Inpatient, ICU", "Penicillin Allergy", "Step 3"): such a
#: heading chooses among sibling sections, and a line quoted from under one the question did not name says where
#: it comes from
QUALIFIER_WORDS = frozenset("""
comorbidities comorbidity comorbid healthy uncomplicated complicated severe mild moderate non-severe
life-threatening critical icu outpatient outpatients inpatient inpatients hospitalized hospitalised ward
ambulatory emergency children child pediatric paediatric adults adult elderly older pregnancy pregnant infants
infant neonates neonatal newborn adolescents first-line second-line third-line step allergy allergic
renal hepatic dialysis resistant refractory initial maintenance acute chronic high-risk low-risk
intermediate-risk frail postpartum stage
""".split())


_WITH = re.compile(r"\b(with|without|no)\s+(\w+)", re.IGNORECASE)


_SLASH_WITH = re.compile(r"\bw/(o\b)?\s*", re.IGNORECASE)


def qualifiers_of(question: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The question's qualifiers as ``(name, words that state it, words that state its opposite)``."""
    q = _SLASH_WITH.sub(lambda m: "without " if m.group(1) else "with ", question.lower())  # "w/o shock"
    out: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    for m in _WITH.finditer(q):
        word, obj = m.group(1), m.group(2)
        if obj in STOPWORDS:
            continue
        if word in ("without", "no"):
            out.append((f"without {obj}", (f"without {obj}", f"no {obj}"), (f"with {obj}",)))
        else:
            out.append((f"with {obj}", (f"with {obj}",), (f"without {obj}", f"no {obj}")))
    ws = set(words_of(q))
    for name, opp in OPPOSITES.items():
        group = POPULATION_WORDS.get(name, name)
        named = (any(v in ws for v in (name, name + "s", name.removesuffix("s")))  # "outpatients", "adult"
                 or (name == "children" and any(POPULATION_WORDS.get(w) == "children" for w in ws)))
        if named and group and _negated_only(q, name):
            # "non-severe CAP": the qualifier negated states its opposites, and a heading that states it is the
            # opposite ("Severe CAP, ICU" for "non-severe CAP"), not the qualifier itself
            out.append((f"non-{name}", tuple(dict.fromkeys((f"non-{name}", f"non {name}", f"not {name}", *opp))),
                        (name,)))
        elif named and group:
            out.append((name, (name,), opp))
    return out


def _negated_only(question: str, name: str) -> bool:
    """Does the lower-cased ``question`` state ``name`` (a qualifier of :data:`OPPOSITES`) negated only:
    "non-severe", "non severe", "not severe", and never "severe" alone ("non-severe vs severe CAP" names both)?"""
    said = [m.group(1) is not None
            for m in re.finditer(r"(?<![\w-])(non-?|non |not\s+)?" + re.escape(name) + r"(?![\w-])", question)]
    return bool(said) and all(said)


def condition_words(question: str, max_zipf: float | None = None) -> set[str]:
    """The question's words rare in general English (wordfreq Zipf < ``max_zipf``; None:
    ``answer.rarity.condition_below``) that may name a condition, lower case: "hypertension" in "What blood
    pressure target is recommended in hypertension?"."""
    return rare_condition_words(words_of(question.lower()), max_zipf)


def rare_condition_words(words: Iterable[str], max_zipf: float | None = None) -> set[str]:
    """Those of ``words`` (lower case, :func:`clinqa.retrieval.vocabulary.words_of`) that may name a condition: 4+
    letters, no stopword, rare in general English (as :func:`condition_words`)."""
    max_zipf = default_rarity().condition_below if max_zipf is None else max_zipf
    return {w for w in words if len(w) >= 4 and w.isalpha() and w not in STOPWORDS and zipf(w) < max_zipf}


def wants_list(question: str) -> bool:
    """Does the question ask for criteria, components, steps or another list (:data:`LIST_QUESTION`),
    not for their count (:data:`COUNT_QUESTION`)?"""
    return bool(question and LIST_QUESTION.search(question) and not COUNT_QUESTION.search(question))


#: what a question asks for (its cue) -> the section headings that hold that kind of answer: a guideline files
#: a dose under "Dosing", a duration under "Treatment Duration", a staging table under "AKI Staging"
HEADING_KINDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\b(?:doses?|dosing|dosage|how much|regimens?)\b", re.IGNORECASE),
     frozenset({"dose", "doses", "dosing", "dosage", "regimen", "regimens"})),
    (re.compile(r"\b(?:how long|duration)\b", re.IGNORECASE), frozenset({"duration"})),
    (re.compile(r"\b(?:staged?|stages|staging)\b", re.IGNORECASE), frozenset({"staging", "stages"})),
    (re.compile(r"\b(?:targets?|goals?)\b", re.IGNORECASE), frozenset({"target", "targets", "goal", "goals"})),
    (re.compile(r"\b(?:criteria|components?|include|includes)\b", re.IGNORECASE),
     frozenset({"criteria", "components"})),
    (re.compile(r"\bcontraindicat", re.IGNORECASE), frozenset({"contraindications"})),
)


def heading_kinds(question: str) -> frozenset[str]:
    """The heading words that name the kind of answer ``question`` asks for (:data:`HEADING_KINDS`;
    empty when it asks for none of them): "What is the epinephrine dose ...?" -> dose, dosing, dosage, ..."""
    return frozenset().union(*(words for cue, words in HEADING_KINDS if cue.search(question)))


Qualifier = tuple[str, tuple[str, ...], tuple[str, ...]]


def content_stems(text: str) -> frozenset[str]:
    """Snowball stems of the content words of ``text`` (stopwords and one-letter words left out, but a capital
    letter standing alone, a symbol: "K" of "latest K?" and of "K 5.6", :func:`symbols_of`); a hyphenated
    name with a digit also counts joined ("CURB-65" is "curb65" too, as a question may type it). Read of a question
    once (:attr:`AsksRead.stems`) and of each candidate unit by :mod:`clinqa.answer.extractive`."""
    return stems_of(words_of(text)) | symbols_of(text)


def symbols_of(text: str) -> frozenset[str]:
    """The capital letters of ``text`` that stand alone as a word (:data:`_TOKEN`), a symbol ("K" potassium, "D"
    vitamin D), lower case; not the words "A" and "I": ``"latest K?"`` -> ``{"k"}``."""
    return frozenset(m.group(0).lower() for m in _TOKEN.finditer(text)
                     if len(m.group(0)) == 1 and m.group(0).isupper() and m.group(0) not in "AI"
                     and (m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "'+-_")))


def stems_of(words: Iterable[str]) -> frozenset[str]:
    """:func:`content_stems` of the words of a text already split (:func:`clinqa.retrieval.vocabulary.words_of`)."""
    content = [w for w in words if w not in STOPWORDS and len(w) >= 2]
    return frozenset({stem(w) for w in content} | {w.replace("-", "") for w in content
                                                   if "-" in w and any(c.isdigit() for c in w)})


#: a number of the question with the unit typed after it ("70 mL/min", "55 kg"), for naming a column by its unit
_Q_QUANTITY = re.compile(number_with_unit(UNIT_WORD), re.IGNORECASE)
#: a word as typed (a letter, then word characters, apostrophes, hyphens), else one other non-space character
_TOKEN = TYPED_TOKEN


@dataclass(frozen=True)
class AsksRead:
    """What the choice of passages and the extractive answer read of a question, read once (:func:`read_asks`).
    The question profile (:class:`clinqa.question.profile.QuestionProfile`) is one, with more fields; its
    docstring describes each. All read from ``question`` as given: ``wants_list`` (:func:`wants_list`),
    ``asks_number`` / ``asks_dose`` / ``asks_count`` / ``asks_date`` / ``asks_reason`` (:data:`NUMBER_QUESTION`,
    :data:`DOSE_QUESTION`, :data:`COUNT_QUESTION`, :data:`DATE_QUESTION`, :data:`REASON_QUESTION`), ``asks_duration``
    (:data:`DURATION_QUESTION` and not :data:`LENGTH_QUESTION`), ``asks_treatment`` (:data:`TREATMENT_ASK`, and not
    a list of criteria, a count or a number other than a dose), ``heading_kinds`` (:func:`heading_kinds`),
    ``qualifiers`` (``(name, words that state it, words that state its opposite)``: :data:`OPPOSITES`),
    ``conditions`` (words that may name a condition: :func:`names_subtype`) and ``aliases`` (the terms the
    synonym table adds for the phrases it found, in order).

    The question's wording, as the passage choice and the extractive answer match it against headings, table
    rows and units (so that nothing downstream parses the question's text again):

    - ``values``: ``(word, value)`` per number it gives a named thing (:func:`named_values`: "NEWS2 score of 5"
      -> ``(("score", 5.0),)``).
    - ``words``: its words, lower case (:func:`clinqa.retrieval.vocabulary.words_of`); ``word_stems``: their
      Snowball stems; ``stems``: the stems of its content words (:func:`content_stems`).
    - ``folded_words``, ``folded_numbers``, ``folded_values``, ``folded_quantities``: read from the question lower
      case with its dashes folded (:func:`clinqa.text.unicode.fold_dashes`), as table rows are matched: its
      words; its digit runs joined by "-" ("CrCl 15-29" -> ``"15-29"``); :func:`named_values`; ``(number, unit as
      typed)`` per number with a unit after it ("70 mL/min" -> ``("70", "ml/min")``).
    - ``content_terms``: its content words, a patient's age and sex left out (:func:`clinqa.question.terms.
      content_terms` of :func:`clinqa.question.terms.without_ages`), which the corpus coverage counts
      (:func:`clinqa.evidence.coverage.term_counts`).
    - ``tokens``: its words (a letter, then word characters, apostrophes and hyphens) and other characters, one
      by one, as typed (:data:`_TOKEN`), for the compounds a key term forms with the word after it
      (:func:`clinqa.evidence.gather.with_unknown_compounds`)."""

    question: str
    wants_list: bool
    asks_number: bool
    asks_dose: bool
    asks_count: bool
    asks_date: bool
    asks_reason: bool
    asks_duration: bool
    heading_kinds: frozenset[str]
    qualifiers: tuple[Qualifier, ...]
    conditions: frozenset[str]
    aliases: tuple[str, ...]
    asks_treatment: bool
    values: tuple[tuple[str, float], ...]
    words: frozenset[str]
    word_stems: frozenset[str]
    stems: frozenset[str]
    folded_words: frozenset[str]
    folded_numbers: str
    folded_values: tuple[tuple[str, float], ...]
    folded_quantities: tuple[tuple[str, str], ...]
    content_terms: tuple[str, ...]
    tokens: tuple[str, ...]
    #: the words that may name a measure a patient's note states with a number ("hb", "cr", "inr", "k" of "latest
    #: K?"): not stop words, not words asking a kind of answer ("dose"), not drug names (a drug's dose in force is the
    #: note naming it under any name: :func:`clinqa.evidence.passages.in_force`)
    measures: frozenset[str]
    #: its words that name a drug (:func:`clinqa.question.terms.drug_words`: "pegloticase", "eliquis")
    drugs: frozenset[str]
    #: the stems of the words it negates ("no surgery, immobility or trauma": :func:`clinqa.text.negation.
    #: negated_words`), stop words left out
    negated: frozenset[str]

    def reads(self, question: str) -> bool:
        """Was this read from ``question`` (the same text)?"""
        return self.question == question

    @property
    def scaffold(self) -> frozenset[str]:
        """Of :attr:`content_terms`, the words that ask a kind of answer ("max", "dose", "components":
        :func:`clinqa.question.terms.is_scaffold`): no topic a passage must name, so no word a warning names
        missing."""
        return frozenset(w for w in self.content_terms if is_scaffold(w))


def read_asks(question: str, expansion: Expansion | None = None, condition_below: float | None = None) -> AsksRead:
    """:class:`AsksRead` of ``question`` for a caller with no profile of it: :func:`asks_from` it, its lower-case
    text with dashes folded (:func:`clinqa.text.unicode.fold_dashes`), its words
    (:func:`clinqa.retrieval.vocabulary.words_of`) and ``expansion`` (default: the synonym table's,
    :func:`clinqa.retrieval.synonyms.expand`). Never raises for any string."""
    from clinqa.retrieval import synonyms

    found = synonyms.expand(question) if expansion is None else expansion
    return asks_from(question, fold_dashes(question), frozenset(words_of(question)), found, condition_below,
                     negated_words(question))


def asks_from(question: str, dashed: str, words: frozenset[str], expansion: Expansion,
              condition_below: float | None = None, negated: frozenset[str] = frozenset()) -> AsksRead:
    """:class:`AsksRead` of ``question``; ``dashed``: its text with dashes folded
    (:func:`clinqa.text.unicode.fold_dashes`) and ``words``: its words, lower case
    (:func:`clinqa.retrieval.vocabulary.words_of`) and ``negated``: the words it negates
    (:func:`clinqa.text.negation.negated_words`), each read once by the caller (the question's profile hands on
    its own; the folded text's lower case is the folded text of the lower case, as lower case never makes a dash);
    ``expansion``: its synonym expansion (:func:`clinqa.retrieval.synonyms.expand`); ``condition_below``:
    ``answer.rarity.condition_below`` (None: the default). Its stems and condition words are read from ``words``
    (:func:`stems_of`, :func:`rare_condition_words`). Pure function of its inputs; never raises for any string."""
    folded = dashed.lower()
    symbols = symbols_of(question)  # "K" of "latest K?": a content stem, and a measure a note may state
    return AsksRead(
        question=question, wants_list=wants_list(question),
        asks_number=bool(question and NUMBER_QUESTION.search(question)),
        asks_dose=DOSE_QUESTION.search(question) is not None,
        asks_count=COUNT_QUESTION.search(question) is not None,
        asks_date=bool(question and DATE_QUESTION.search(question)),
        asks_reason=bool(question and REASON_QUESTION.search(question)),
        asks_duration=bool(DURATION_QUESTION.search(question) and not LENGTH_QUESTION.search(question)),
        heading_kinds=heading_kinds(question) if question else frozenset(),
        qualifiers=tuple(qualifiers_of(question)) if question else (),
        conditions=frozenset(rare_condition_words(words, condition_below)) if question else frozenset(),
        aliases=tuple(t for ts in expansion.added.values() for t in ts),
        asks_treatment=bool(question and TREATMENT_ASK.search(question) and not wants_list(question)
                            and not COUNT_QUESTION.search(question)
                            # "At what ICP should treatment start?" asks for a threshold
                            and not (NUMBER_QUESTION.search(question) and not DOSE_QUESTION.search(question))),
        values=values_in(dashed), words=words, word_stems=frozenset(stem(w) for w in words),
        stems=stems_of(words) | symbols, folded_words=frozenset(words_of(folded)),
        folded_numbers="-".join(DIGITS.findall(folded)), folded_values=values_in(folded),
        folded_quantities=tuple((n, u) for n, u in _Q_QUANTITY.findall(folded)),
        content_terms=tuple(content_terms(without_ages(question))), tokens=tuple(_TOKEN.findall(question)),
        measures=measure_words(words | symbols), drugs=drug_words(words),
        negated=frozenset(stem(w) for w in negated if w not in STOPWORDS and w.isalpha()))


def asks_of(question: str, read: AsksRead | None) -> AsksRead:
    """``read`` when it was read from ``question`` (:meth:`AsksRead.reads`), else :func:`read_asks` of ``question``
    (a profile read before spelling repair, or none). Never raises for any string."""
    if read is not None and read.reads(question):
        return read
    return read_asks(question)


def has_qualifiers(question: str) -> bool:
    """Does ``question`` carry a qualifier with an opposite (with/without X, first-line, outpatient,
    adults, children, acute ...; :data:`OPPOSITES`)?"""
    return bool(qualifiers_of(question))


@lru_cache(maxsize=256)
def named_values(question: str) -> tuple[tuple[str, float], ...]:
    """``(word, value)`` for each number the question gives a named thing, the word lower case: "NEWS2
    score of 5" -> ``(("score", 5.0),)``, "CrCl 20" -> ``(("crcl", 20.0),)``. A number inside a token
    ("67F", "3a", "4F-PCC") is not a value; nor is one after a stop word alone ("in 2 weeks"). Read once per
    question text (cached): the bands of every heading and row of an answer's passages are read against it.
    :func:`clinqa.question.terms.values_in` its text with dashes folded (:func:`clinqa.text.unicode.fold_dashes`)."""
    return values_in(fold_dashes(question))

