"""Answerability: are the things the question asks about in the passages that would be quoted?

The dense gate (:mod:`clinqa.answer.gate`) measures topic: "What dose of amoxicillin is used
for community-acquired pneumonia?" sits close enough to an asthma guideline to pass it, and the
answer then quotes the asthma dose. This test looks at *what* the question asks. Its key terms
are

- **abbreviations** typed in capitals ("CAP", "PE", "AKI"), however common the word is in English
  (not in a question typed all in capitals);
- **specific words**: content words that are rare in general English (Zipf frequency below
  ``max_zipf`` in the ``wordfreq`` lists, Speer et al. 2018): drugs, conditions, procedures,
  tests, abbreviations ("amoxicillin", "pneumonia", "qsofa", "hba1c"); words with a digit
  ("sglt2", "covid-19") always count;
- **population words** (:data:`POPULATIONS`), however common in English: children, pregnancy,
  renal impairment, older adults ... (a dose for adults is no answer for children);
- **quantities**: a number with its unit ("500 mg", "30 ml/min"): the number must appear.

Question scaffolding ("dose", "criteria", "first-line", :data:`SCAFFOLD`, also by stem: "defines")
and the stopwords of :mod:`clinqa.answer.coverage` are never key, nor is a short abbreviation that
neither the corpus nor the synonym table knows, typed in lower case ("abx": no evidence either way;
"PERC", typed as an abbreviation, stays key). A key word the
corpus lacks is first repaired against the corpus vocabulary
(:meth:`clinqa.retrieval.vocabulary.Vocabulary.repair`), so a
typo is not a missing topic. A key term is *mentioned* by a passage when the passage has the
term, its Snowball stem (Porter 2001, English stemmer of the ``snowballstemmer`` package:
"diabetes" ~ "diabetic"), its American spelling ("haemorrhage" ~ "hemorrhage"), an irregular
plural, a population equivalent ("children" ~ "paediatric"), or an equivalent from the synonym table when one is given.

A key term that none of the quotable passages (the top ``answer.context_chunks`` chunks)
mentions makes the question unanswerable from them when it is decisive (:func:`is_decisive`:
populations, quantities, abbreviations, words the corpus lacks, very specific words): the gate
refuses and names it; other missing terms only add a warning.
Thresholds are calibrated on the refusal dev set together with the dense gate
(``clinqa eval refusal``; docs/benchmarks.md).

The rules are data (:mod:`clinqa.answer.rules`): :data:`MENTION_RULES` (what counts as a mention),
:data:`DECISIVE_RULES` (which missing term refuses) and :data:`CHECK_RULES` (what :func:`check` applies to
the passages as a whole) list them by name, in order, each with a worked example that
``tests/answer/test_rules.py`` runs; :func:`mention_rule` and :func:`decisive_rule` name the rule that fired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from clinqa.answer.bands import row_holds_quantity, table_rows
from clinqa.answer.coverage import variants
from clinqa.answer.quantities import AGE_UNITS, QUESTION_UNITS, unit_pattern
from clinqa.answer.rules import Example, Golden, Rule, Step, decide, which
from clinqa.chunking.units import Unit
from clinqa.retrieval.synonyms import names_a_class_member
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.abbreviations import definitions
from clinqa.text.stems import s_stem
from clinqa.text.stems import snowball_stem as stem
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOPWORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import CLINICAL_SUFFIX, WORD, words_of
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.answer.decisive_words import DecisiveModel
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
#: question words that name a population group (lower case) -> its group in :data:`POPULATIONS`
POPULATION_WORDS: dict[str, str] = {
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
    "renal": "renal impairment", "kidney": "renal impairment", "kidneys": "renal impairment",
    "hepatic": "hepatic impairment", "liver": "hepatic impairment",
    "dialysis": "dialysis", "haemodialysis": "dialysis", "hemodialysis": "dialysis", "esrd": "dialysis",
    "cancer": "cancer", "cancers": "cancer", "malignancy": "cancer", "oncology": "cancer",
}

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
target targets goal goals level levels value values range ranges threshold thresholds cutoff cut-off
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


_ISE = re.compile(r"(?<=[a-z]{3})(is|ys)(e|es|ed|ing|ation|ations|er|ers)$")


def fold(word: str) -> str:
    """British to American spelling for matching: "haemorrhage" -> "hemorrhage", "oedema" -> "edema",
    "ischaemic" -> "ischemic", "paediatric" -> "pediatric" (the digraphs ae/oe become e), and the -ise/-yse
    verbs with their derivatives to -ize/-yze ("visualise" -> "visualize", "randomisation" ->
    "randomization", "analysed" -> "analyzed"; Oxford Dictionaries' -ise/-ize variants)."""
    return _ISE.sub(lambda m: m.group(1)[0] + "z" + m.group(2), word.replace("ae", "e").replace("oe", "e"))


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

#: a number with its unit in a question ("500 mg", "55 kg"; units: :data:`clinqa.answer.quantities.QUESTION_UNITS`)
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(" + unit_pattern(QUESTION_UNITS) + r")(?![\w])", re.IGNORECASE)


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
    :func:`verb_in`): the question's verb frames what is asked, like its participles (:func:`is_decisive`)."""

    text: str
    kind: str
    match: str
    repaired: str | None = None
    typed: str = ""
    modifies: str = ""
    answer_type: bool = False
    verb: bool = False
    dosed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"text": self.text, "kind": self.kind, "match": self.match, "repaired": self.repaired}


def shown_name(term: KeyTerm) -> str:
    """How a term is named to the user: with the question's casing ("QXR", "Reye") when the typed word
    is the term, else :attr:`KeyTerm.text` (lower case; a population group, a repaired word)."""
    return term.typed if term.typed and term.typed.lower() == term.text else term.text



@dataclass
class Answerability:
    """The key terms of a question and which of them no quotable passage mentions.
    ``in_corpus`` says, per missing term, whether the corpus has it at all (vocabulary);
    ``complete_in`` is the index of the first passage that mentions every key term (None when none
    does or the question has no key term). ``focused``: the indices of the passages that mention every
    key term whose absence would be decisive (:func:`is_decisive`: the drug, condition, population,
    quantity or abbreviation asked about; or, when no passage does and the question is a story of
    several sentences, those of the sentence that asks: :func:`asked_sentence`), in passage order, or
    all but one of them when there are
    three or more (a scientific question names more than its answering sentence repeats: with no slack,
    4 of 200 BioASQ dev answers lost their exact answer); empty when the question has no such term or
    no passage qualifies. ``apart``: the decisive terms when there are two or more, every key term is
    mentioned by some passage, no passage qualifies for ``focused`` and the question asks what to give
    or aim for (:data:`TREATMENT_QUESTION`) or one of the decisive terms is a population: the passages speak
    of each, never of them together (a neighbouring topic). ``covered``: per key term (its text), the
    indices of the passages that mention it or one of its alternatives ("dominant or recessive").
    ``prevented``: the missing terms (their text) that the passages name only as something to prevent, in a
    question about treating it
    (:func:`prevention_masked`). ``background``: in a question of several sentences, the key terms
    (their text) outside the sentence that asks (:func:`asked_sentence`), populations excepted: the
    patient's story; missing, they warn instead of refusing. ``decisive_below``: the Zipf cut of
    :func:`is_decisive` (``answer.rarity.decisive_below``; None: its default)."""

    key_terms: list[KeyTerm] = field(default_factory=list)
    missing: list[KeyTerm] = field(default_factory=list)
    in_corpus: dict[str, bool] = field(default_factory=dict)
    complete_in: int | None = None
    focused: list[int] = field(default_factory=list)
    apart: list[str] = field(default_factory=list)
    covered: dict[str, list[int]] = field(default_factory=dict)
    prevented: list[str] = field(default_factory=list)
    background: list[str] = field(default_factory=list)
    decisive_below: float | None = None
    learned: dict[str, float] | None = None
    learned_threshold: float = 0.5
    answer_score: float | None = None

    @property
    def decisive(self) -> list[KeyTerm]:
        """The missing terms that make the question unanswerable from these passages (see
        :func:`is_decisive`); the others only warrant a warning. When the passages mention **none** of the
        question's key terms, every one of them is decisive, even the kind of thing asked for: "What
        injuries did the patient have from the fall?" is not answered from a note that never mentions an
        injury (the key-term test found only "injuries"; "fall" is common English). With ``learned`` (the
        decisive-word model's probability per missing term, :mod:`clinqa.answer.decisive_words`) a term is
        decisive when it reaches ``learned_threshold``, instead of by :func:`is_decisive`'s rules."""
        if self.learned is not None:
            out = [t for t in self.missing if self.learned.get(t.text, 0.0) >= self.learned_threshold
                   and t.text not in self.background]
        else:
            out = [t for t in self.missing if is_decisive(t, self.in_corpus.get(t.text, False), self.decisive_below)
                   and t.text not in self.background]
        if not out and self.missing and len(self.missing) == len(self.key_terms):
            return list(self.missing)
        return out

    @property
    def answerable(self) -> bool:
        """True when no missing key term is decisive."""
        return not self.decisive

    def decisive_names(self) -> list[str]:
        """The decisive missing terms as the user typed them (an abbreviation keeps its capitals: "QXR")."""
        return [shown_name(t) for t in self.decisive]

    def missing_names(self) -> list[str]:
        """The missing terms as the user typed them (an abbreviation keeps its capitals)."""
        return [shown_name(t) for t in self.missing]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the ``answerability`` field of ``--json``)."""
        out = {"key_terms": [t.to_dict() for t in self.key_terms], "missing": self.missing_names(),
               "decisive": self.decisive_names(), "in_corpus": dict(self.in_corpus), "complete_in": self.complete_in}
        if self.learned is not None:
            out["decisive_probability"] = {k: round(v, 4) for k, v in self.learned.items()}
        if self.answer_score is not None:
            out["answer_model_score"] = round(self.answer_score, 4)
        return out


def key_terms(question: str, vocabulary: Vocabulary | None = None, max_zipf: float = 4.0,
              phrases: Iterable[str] = (),
              equivalents: Callable[[str], Iterable[str]] | None = None,
              answer_types: Iterable[str] | None = None, dosed: Iterable[str] | None = None,
              rarity: WordRarity | None = None) -> list[KeyTerm]:
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
    one edit from a word at least ``misspelt_common_above`` common is a typo of it."""
    rarity = rarity or default_rarity()
    aged_group = age_population(question)
    question = without_ages(question)
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
    for m in _QUANTITY.finditer(question):
        num = m.group(1).replace(",", ".")
        if all(t.match != num for t in out):
            out.append(KeyTerm(m.group(0).lower(), "quantity", num))
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
        repaired = None
        if (vocabulary is not None and w not in vocabulary and fold(w) not in vocabulary and "-" not in w
                and not names_a_class_member(w)):  # a drug's own name is no typo of another drug's
            repaired = vocabulary.repair(w)
            if repaired is not None and zipf(w) >= rarity.repair_below and stem(repaired) != stem(w):
                repaired = None  # "erectile" is a word, not a typo of the corpus's "elective" ("consistent" for
                # "consistency" is the same word)
            known = equivalents is not None and set(equivalents(w)) - {w}
            eponym = typed[:1].isupper() and _next_word(question, m.end()) in CONDITION_HEADS  # "Reye syndrome"
            if repaired is None and len(w) <= 4 and w.isalpha() and not known and not typed.isupper() and not eponym:
                continue  # an abbreviation the corpus and the synonym table do not know ("abx"): no evidence either way
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
    dose") joined into one phrase term: one drug, which a passage names as a phrase (the asthma passage's
    "magnesium sulfate"), not two terms of which a focused passage could lack one."""
    dosed = [t for t in terms if t.dosed]
    if len(dosed) < 2:
        return terms
    phrase = " ".join(t.text for t in dosed)
    if not re.search(r"(?<![\w-])" + r"\s+".join(re.escape(t.typed or t.text) for t in dosed) + r"(?![\w-])",
                     question, re.IGNORECASE):
        return terms
    at = terms.index(dosed[0])
    rest = [t for t in terms if not t.dosed]
    return [*rest[:at], KeyTerm(phrase, "phrase", phrase, typed=phrase), *rest[at:]]


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
    by their ending (:data:`_VERB_FORM`) and are not tested here. A drug or a condition is almost never
    written so, a verb of the question's frame usually is; this reads word class from the corpus itself
    instead of a part-of-speech tagger."""
    if len(word) < 4 or not word.isalpha() or _VERB_FORM.search(word):
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
    m = re.search(r"(?<![\w-])" + re.escape(term.text) + r"(?![\w-])", question, re.I)
    if m is None:
        return term
    for w in re.findall(r"[A-Za-z][\w'-]*|[^\sA-Za-z]", question[m.end():])[:3]:
        low = w.lower()
        if not w[0].isalpha() or (low in STOPWORDS and low != "use"):  # "opioid use disorder"
            break
        if CLINICAL_SUFFIX.search(low) or low in CONDITION_HEADS:
            return replace(term, modifies=low)
    return term


#: head nouns whose modifier must stand beside them in a passage to name the same thing: which valve, which use
#: disorder (measured: "postmenopausal" beside "osteoporosis" or "recurrent" beside "disease" refused answerable
#: clinician and BioASQ questions, so conditions in general keep the looser test)
BESIDE_HEAD = frozenset({"valve", "valves", "disorder", "disorders"})


def names_with_head(form: str, head: str, low: str) -> bool:
    """Does ``low`` (a lower-cased passage) name ``form`` (a modifier: "opioid", "mitral") with the head noun
    it modifies in the question ("disorder", "valve") at most two words after it, nothing but words
    between ("opioid use disorder", "mitral valve", "mitral and aortic valves"; not "opioid medications",
    not "mitral stenosis, mechanical heart valves")?"""
    return re.search(r"(?<![^\W_])" + re.escape(form) + r"(?:[\s-]+[\w'-]+){0,2}?[\s-]+" + re.escape(head)
                     + r"(?:e?s)?(?![^\W_])", low) is not None


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def misspelt_common_word(word: str, min_zipf: float | None = None) -> bool:
    """Is ``word`` unknown to general English (wordfreq Zipf 0) but one edit (deletion, insertion,
    substitution or transposition of adjacent letters: Damerau 1964) from a common word (Zipf >=
    ``min_zipf``; None: ``answer.rarity.misspelt_common_above``)? "apprived" -> "approved": True;
    "cerliponase": False. Words under 5 letters are never judged (too many neighbours)."""
    min_zipf = default_rarity().misspelt_common_above if min_zipf is None else min_zipf
    if len(word) < 5 or not word.isalpha() or zipf(word) > 0:
        return False
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = ({a + b[1:] for a, b in splits if b}
             | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
             | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
             | {a + c + b for a, b in splits for c in _LETTERS})
    return any(zipf(e) >= min_zipf for e in edits if e != word)


def _alternatives(question: str, terms: list[KeyTerm]) -> dict[str, set[str]]:
    """Key terms the question offers as alternatives ("dominant or recessive"): term -> the others."""
    q = question.lower()
    out: dict[str, set[str]] = {}
    for a in terms:
        for b in terms:
            if a is not b and re.search(r"(?<![\w-])" + re.escape(a.text) + r"\s+or\s+" + re.escape(b.text)
                                        + r"(?![\w-])", q):
                out.setdefault(a.text, set()).add(b.text)
                out.setdefault(b.text, set()).add(a.text)
    return out


Passage = tuple[str, str, set[str], set[str], tuple[Unit, ...]]


def _passage_index(text: str) -> Passage:
    """(text with single spaces, the same lower-cased, its words, their stems, its table rows) for presence
    tests. The rows (:func:`clinqa.answer.bands.table_rows`) are read before the line breaks are lost."""
    orig = " ".join(text.split())
    low = orig.lower()
    ws = set(words_of(low))
    ws |= {fold(w) for w in ws} | {w.replace("-", "") for w in ws if "-" in w}  # "CURB-65" is "curb65" too
    return orig, low, ws, {stem(w) for w in ws if len(w) >= 4}, table_rows(text)


def mentions(term: KeyTerm, passage: Passage, equivalents: Callable[[str], Iterable[str]] | None = None,
             matcher: Callable[[str, str], bool] | None = None) -> bool:
    """Does an indexed passage (:func:`_passage_index`) mention ``term``? See module docstring.
    ``equivalents(term) -> terms`` adds synonyms (e.g. :func:`clinqa.retrieval.synonyms.equivalents`);
    ``matcher(typed term, text)`` is a second test, e.g. :func:`clinqa.retrieval.synonyms.term_matches`
    (drug-class suffix rules: "ACE inhibitor" ~ "lisinopril"). A modifier of a head of :data:`BESIDE_HEAD`
    is mentioned only beside that head (:func:`names_with_head`). The rules are those of
    :data:`MENTION_RULES`, tried in order; the first that decides wins (:func:`clinqa.answer.rules.decide`)."""
    return decide(MENTION_RULES, MentionCase(term, passage, equivalents, matcher))


_TYPE_NUMBER = {"1": 1, "i": 1, "one": 1, "2": 2, "ii": 2, "two": 2}
_TYPED = r"type\s*(1|2|ii|i|one|two)\s+"
#: abbreviations that name one type of diabetes
_TYPED_ABBREVIATIONS = {1: ("t1dm", "t1d", "dm1", "iddm"), 2: ("t2dm", "t2d", "dm2", "niddm")}


def names_condition_untyped(phrase: str, low: str) -> bool:
    """Does ``low`` (lower-cased passage text) speak of the condition of a typed ``phrase`` ("type 2
    diabetes") without a type, and name no other type of it? "An A1C goal of < 7% ... for many nonpregnant
    adults with diabetes" applies to type 2 diabetes; a passage that also names type 1 diabetes, or names
    the condition only with a type or as gestational diabetes, does not count. False for a phrase that is
    not "type N <condition>"."""
    m = re.fullmatch(_TYPED + r"([a-z][a-z-]*)(?:\s.*)?", phrase)
    if m is None:
        return False
    n, head = _TYPE_NUMBER[m.group(1)], m.group(2)
    if any(_TYPE_NUMBER[t.group(1)] != n for t in re.finditer(_TYPED + re.escape(head), low)):
        return False
    other = _TYPED_ABBREVIATIONS.get(3 - n, ()) if head == "diabetes" else ()
    if any(re.search(r"(?<![^\W_])" + a + r"(?![^\W_])", low) for a in other):
        return False
    typed = re.compile(r"(?:" + _TYPED + r"|gestational\s+)$")
    heads = re.finditer(r"(?<![^\W_])" + re.escape(head) + r"(?![^\W_])", low)
    return any(not typed.search(low[:h.start()]) for h in heads)


def _phrase_pattern(phrase: str) -> str:
    """A regex for ``phrase`` (lower case) whose words may each be singular or plural (Harman's S-stemmer,
    :func:`clinqa.text.stems.s_stem`) and be joined by a space or a hyphen: "transcription start sites"
    matches "transcription start site" and "transcription-start sites"."""
    words = [w for w in re.split(r"[ -]+", phrase) if w]
    pats = []
    for w in words:
        base = s_stem(w)
        if base.endswith("y") and w.endswith("ies"):
            pats.append(re.escape(base[:-1]) + r"(?:y|ies)")
        else:
            pats.append(re.escape(base) + r"(?:s|es)?")
    return r"(?<![^\W_])" + r"[\s-]+".join(pats) + r"(?![^\W_])"


def _split_compound(word: str, ws: set[str], low: str) -> bool:
    """Is ``word`` (letters only) two words of at least 3 letters that ``low`` writes apart, with a space or
    a hyphen ("tradename" ~ "trade name", "halflife" ~ "half-life")?"""
    for i in range(3, len(word) - 2):
        a, b = word[:i], word[i:]
        if a in ws and (b in ws or b + "s" in ws) and re.search(
                r"(?<![^\W_])" + re.escape(a) + r"[\s-]" + re.escape(b), low):
            return True
    return False


def _unit(term: KeyTerm) -> str:
    """The unit of a quantity term ("55 kg" -> "kg"), lower case, spaces removed."""
    m = _QUANTITY.fullmatch(term.text.strip())
    return re.sub(r"\s+", "", m.group(2).lower()) if m else ""


_NUM = r"(\d+(?:\.\d+)?)"
#: bounds written in words ("body weight under 50 kg"), as their symbols
_WORD_OPS = {"under": "<", "below": "<", "less than": "<", "lower than": "<", "fewer than": "<",
             "over": ">", "above": ">", "more than": ">", "greater than": ">", "higher than": ">",
             "at least": "≥", "at most": "≤", "no more than": "≤", "not more than": "≤", "up to": "≤"}
_BOUND_WORDS = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in _WORD_OPS), key=len, reverse=True))


def within_stated_bound(term: KeyTerm, low: str, rows: tuple[Unit, ...] = ()) -> bool:
    """Does the passage text ``low`` (lower case, normalised: "<=" is "≤") state a bound or a range, in
    the term's unit, that the question's number lies in? "55 kg" lies in "body weight ≤ 60 kg", in "under
    60 kg" (bounds in words: :data:`_WORD_OPS`) and in "50-59 kg", not in "> 60 kg": a patient's value is
    answered by the threshold that covers it. A table row of ``rows`` (the passage's, read with its line
    breaks: :func:`clinqa.answer.bands.table_rows`) counts too: "70 mL/min" lies in the "50-90" row of a
    "CrCl (mL/min)" column (:func:`clinqa.answer.bands.row_holds_quantity`)."""
    unit = _unit(term)
    try:
        value = float(term.match)
    except ValueError:
        return False
    if not unit:
        return False
    u = re.escape(unit) + r"(?![a-z])"
    for m in re.finditer(r"(≤|≥|<|>|" + _BOUND_WORDS + r")\s*" + _NUM + r"\s*" + u, low):
        op, bound = _WORD_OPS.get(" ".join(m.group(1).split()), m.group(1)), float(m.group(2))
        if {"≤": value <= bound, "≥": value >= bound, "<": value < bound, ">": value > bound}[op]:
            return True
    for m in re.finditer(_NUM + r"\s*(?:-|–|to)\s*" + _NUM + r"\s*" + u, low):
        if float(m.group(1)) <= value <= float(m.group(2)):
            return True
    # a table row keyed by a band of the value, the unit in its column's header: "| CrCl (mL/min) |" ... "| 50-90 |"
    return row_holds_quantity(rows, value, unit)


# ---------------------------------------------------------------------------------------------------------
# Mention rules (:func:`mentions`) as data: each a named :class:`clinqa.answer.rules.Rule` with one golden
# case (tests/answer/test_rules.py runs them all through :func:`mentions`).


class MentionCase:
    """What a mention rule looks at: ``term``, the indexed ``passage`` (:func:`_passage_index`: ``orig``,
    ``low``, ``ws``, ``stems``), ``equivalents`` and ``matcher`` (as given to :func:`mentions`), and the
    forms a passage may name the term by (:attr:`forms`: read on first use, most rules never need them)."""

    __slots__ = ("_forms", "equivalents", "low", "matcher", "orig", "rows", "stems", "term", "ws")

    def __init__(self, term: KeyTerm, passage: Passage, equivalents: Callable[[str], Iterable[str]] | None,
                 matcher: Callable[[str, str], bool] | None) -> None:
        self.term = term
        self.orig, self.low, self.ws, self.stems, self.rows = passage
        self.equivalents = equivalents
        self.matcher = matcher
        self._forms: tuple[list[str], list[str]] | None = None

    @property
    def forms(self) -> tuple[list[str], list[str]]:
        """The forms (lower case, in order, each once) a passage may name the term by, split into phrases
        (words apart, or a hyphenated form the passage lacks as one word) and single words: a
        population's listed forms (:data:`POPULATIONS`) or the term with its irregular plural
        (:func:`clinqa.answer.coverage.variants`), a combination product's other spellings, their
        synonym-table equivalents and American spellings (:func:`fold`)."""
        if self._forms is None:
            term = self.term
            if term.kind == "population":
                cands: list[str] = [*POPULATIONS.get(term.match, ()), term.text]
            else:
                cands = [term.match, term.text, *variants(term.match)]
            if term.kind == "phrase" and "/" in term.match:  # "sacubitril/valsartan" ~ "sacubitril-valsartan"
                cands += [term.match.replace("/", sep) for sep in ("-", " ", " and ", " / ")]
            if self.equivalents is not None:
                for c in list(cands):
                    cands.extend(self.equivalents(c))
            cands.extend(fold(c) for c in list(cands))
            ws = self.ws
            phrases: list[str] = []
            words: list[str] = []
            for c in dict.fromkeys(x.lower() for x in cands if x):
                (phrases if " " in c or ("-" in c and c not in ws) else words).append(c)
            self._forms = (phrases, words)
        return self._forms


def _beside_head(c: MentionCase) -> bool | None:
    t = c.term
    if t.modifies not in BESIDE_HEAD:
        return None
    forms = {t.text, t.match, *(c.equivalents(t.match) if c.equivalents is not None else ())}
    return None if any(" " not in f and names_with_head(f.lower(), t.modifies, c.low) for f in forms if f) else False


def _matcher(c: MentionCase) -> bool | None:
    t = c.term
    return True if c.matcher is not None and t.kind != "quantity" and c.matcher(t.typed or t.match, c.orig) else None


def _quantity_as_written(c: MentionCase) -> bool | None:
    return True if c.term.kind == "quantity" and re.search(
        r"(?<![\d.,])" + re.escape(c.term.match) + r"(?![\d])", c.low) is not None else None


def _quantity_within_bound(c: MentionCase) -> bool | None:
    return within_stated_bound(c.term, c.low, c.rows) if c.term.kind == "quantity" else None


def _phrase_as_written(c: MentionCase) -> bool | None:
    return True if any(re.search(r"(?<![^\W_])" + re.escape(p) + r"(?![^\W_])", c.low)
                       for p in c.forms[0]) else None


def _phrase_inflected(c: MentionCase) -> bool | None:
    return True if any(re.search(_phrase_pattern(p), c.low) for p in c.forms[0]) else None


def _hyphen_apart(c: MentionCase) -> bool | None:
    for p in c.forms[0]:
        if "-" in p and " " not in p:
            parts = [x for x in re.split(r"[ -]", p) if x and x not in STOPWORDS]
            if parts and all(x in c.ws or (len(x) >= 4 and stem(x) in c.stems) for x in parts):
                return True
    return None


def _hyphen_dropped(c: MentionCase) -> bool | None:
    return True if any("-" in p and " " not in p and p.replace("-", "") in c.ws for p in c.forms[0]) else None


def _word_or_plural(c: MentionCase) -> bool | None:
    ws = c.ws
    return True if any(w in ws or w + "s" in ws or w + "es" in ws for w in c.forms[1]) else None


def _same_stem(c: MentionCase) -> bool | None:
    if c.term.kind == "population":
        return None
    return True if any(len(w) >= 4 and stem(w) in c.stems for w in c.forms[1]) else None


def _word_prefix(c: MentionCase) -> bool | None:
    return True if any(len(w) >= 5 and re.search(r"(?<![^\W_])" + re.escape(w), c.low) for w in c.forms[1]) else None


def _symbol_family(c: MentionCase) -> bool | None:
    if not c.term.typed.isupper():
        return None
    return True if any(len(w) >= 3 and w.isalpha() and re.search(
        r"(?<![^\W_])" + re.escape(w) + r"-?\d+[a-z]?(?![^\W_])", c.low) for w in c.forms[1]) else None


def _split_compound_rule(c: MentionCase) -> bool | None:
    return True if any(len(w) >= 8 and w.isalpha() and _split_compound(w, c.ws, c.low) for w in c.forms[1]) else None


def _condition_untyped(c: MentionCase) -> bool | None:
    return True if c.term.kind == "phrase" and names_condition_untyped(c.term.match, c.low) else None


#: the rules of :func:`mentions`, in the order they are tried; the first that decides (True: mentioned,
#: False: not) wins, None passes to the next. The order matters where a rule can say no: the modifier
#: beside its head comes first, since it vetoes mentions every later rule would accept ("opioid" in
#: "opioid medications" for "opioid use disorder"); a quantity is decided by its own two rules before the
#: word rules (its number is no word to stem); the form rules after them only say yes, so among them the
#: order is cheapest and most common first, which decides which rule is named (:func:`clinqa.answer.rules.which`)
#: but not the outcome; ``not_mentioned`` closes the table.
MENTION_RULES: tuple[Rule[MentionCase], ...] = (
    Rule("modifier_beside_head",
         "A modifier of a head of BESIDE_HEAD (valve, disorder) counts only beside that head, at most two words "
         "before it (names_with_head): which valve, which use disorder. Vetoes every later rule.",
         _beside_head,
         Golden(KeyTerm("opioid", "specific", "opioid", typed="opioid", modifies="disorder"),
                "Opioid medications are used for severe pain.", False,
                note="clinician set: opioid use disorder vs opioid analgesia")),
    Rule("synonym_matcher",
         "The matcher given to mentions (clinqa.retrieval.synonyms.term_matches: synonym table and drug-class "
         "suffix rules) finds the term as typed; not for quantities.",
         _matcher,
         Golden(KeyTerm("ace inhibitor", "phrase", "ace inhibitor", typed="ACE inhibitor"),
                "Start lisinopril 10 mg once daily.", True, synonyms=True)),
    Rule("quantity_as_written",
         "A quantity's number appears as written, not inside a longer number.",
         _quantity_as_written,
         Golden(KeyTerm("500 mg", "quantity", "500"), "Amoxicillin 500 mg three times a day for 5 days.", True)),
    Rule("quantity_within_stated_bound",
         "Otherwise a quantity is mentioned only by a bound or range in its unit that holds it "
         "(within_stated_bound: 55 kg lies in 'body weight <= 60 kg'); else it is not mentioned.",
         _quantity_within_bound,
         Golden(KeyTerm("55 kg", "quantity", "55"), "If body weight ≤ 60 kg, give 2.5 mg twice daily.", True)),
    Rule("phrase_as_written",
         "A form of several words (or a hyphenated one the passage lacks as one word) appears as written, "
         "between word boundaries.",
         _phrase_as_written,
         Golden(KeyTerm("heart failure", "phrase", "heart failure"), "In chronic heart failure, offer an ACE "
                "inhibitor.", True)),
    Rule("phrase_inflected",
         "A phrase form with each word singular or plural and joined by a space or a hyphen "
         "(_phrase_pattern): 'transcription start sites' ~ 'transcription-start site'. Never as a bag of its "
         "words: 'hospital-acquired pneumonia' is not 'community-acquired pneumonia ... in hospital'.",
         _phrase_inflected,
         Golden(KeyTerm("transcription start sites", "phrase", "transcription start sites"),
                "Reads were mapped to the transcription-start site of each gene.", True)),
    Rule("hyphenated_apart",
         "A hyphenated word may stand apart: each of its parts (stop words aside) is a word of the passage or "
         "shares a Snowball stem with one ('beta-blocker' ~ 'blockers of beta receptors').",
         _hyphen_apart,
         Golden(KeyTerm("beta-blocker", "specific", "beta-blocker", typed="beta-blocker"),
                "Blockers of the beta receptor reduce mortality.", True)),
    Rule("hyphen_dropped",
         "A hyphenated form written without its hyphen: 'LB-100' ~ 'LB100'.",
         _hyphen_dropped,
         Golden(KeyTerm("lb-100", "specific", "lb-100", typed="lb-100"), "Mice were given LB100 daily.", True)),
    Rule("word_or_plural",
         "A single-word form is a word of the passage (American spellings folded), or with -s/-es: 'TSS' ~ "
         "'TSSs'.",
         _word_or_plural,
         Golden(KeyTerm("tss", "specific", "tss", typed="TSS"), "TSSs were mapped genome-wide.", True)),
    Rule("same_stem",
         "A single-word form of 4+ letters shares its Snowball stem (Porter 2001) with a word of the passage "
         "('diabetes' ~ 'diabetic'); not for a population, which is matched by its own listed forms only "
         "('expectant' is not 'Expected LDL reduction').",
         _same_stem,
         Golden(KeyTerm("diabetes", "specific", "diabetes", typed="diabetes"),
                "Screen diabetic patients for retinopathy.", True)),
    Rule("word_prefix",
         "A single-word form of 5+ letters starts a word of the passage ('lymphoma' in 'lymphomatous').",
         _word_prefix,
         Golden(KeyTerm("lymphoma", "specific", "lymphoma", typed="lymphoma"),
                "Biopsy showed lymphomatous infiltration of the marrow.", True)),
    Rule("symbol_family",
         "A family asked for by its symbol, typed in capitals, counts a numbered member: 'FGFR' ~ 'FGFR3' "
         "(3+ letters: 'IL' is not 'IL6').",
         _symbol_family,
         Golden(KeyTerm("fgfr", "specific", "fgfr", typed="FGFR"), "Activating FGFR3 mutations cause "
                "achondroplasia.", True)),
    Rule("split_compound",
         "A single word of 8+ letters that the passage writes as two words of 3+ letters, apart or hyphenated "
         "(_split_compound): 'tradename' ~ 'trade name'.",
         _split_compound_rule,
         Golden(KeyTerm("tradename", "specific", "tradename", typed="tradename"),
                "Its trade name is Herceptin.", True)),
    Rule("condition_untyped",
         "A typed condition phrase ('type 2 diabetes') is mentioned by a passage that names the condition "
         "without a type and no other type of it (names_condition_untyped).",
         _condition_untyped,
         Golden(KeyTerm("type 2 diabetes", "phrase", "type 2 diabetes"),
                "An A1C goal of < 7% is appropriate for many nonpregnant adults with diabetes.", True,
                note="ADA standards: the goal applies to type 2 diabetes")),
    Rule("not_mentioned",
         "No rule above found the term: not mentioned.",
         lambda c: False,
         Golden(KeyTerm("pregnancy", "population", "pregnancy", typed="pregnant"),
                "Expected LDL reduction with high-intensity statins is 50% or more.", False,
                note="a population's listed form 'expectant' shares the stem of 'expected' (same_stem skips "
                     "populations)")),
)


def mention_rule(term: KeyTerm, passage: Passage, equivalents: Callable[[str], Iterable[str]] | None = None,
                 matcher: Callable[[str, str], bool] | None = None) -> str:
    """The name of the rule of :data:`MENTION_RULES` that decides :func:`mentions` for these arguments
    (``not_mentioned`` when none finds the term): which rule fired, for tests and for reading a refusal."""
    return which(MENTION_RULES, MentionCase(term, passage, equivalents, matcher)) or "not_mentioned"


#: a question about what to give or aim for: a dose, regimen, treatment, drug, target or level
TREATMENT_QUESTION = re.compile(
    r"\b(?:doses?|dosing|dosage|regimens?|treat(?:ed|ment|ments|ing)?|therap(?:y|ies)|drugs?|medications?|"
    r"antibiotics?|first-line|second-line|target(?:ed)?|level|prophylaxis|prevent(?:ion)?|manage(?:ment|d)?)\b",
    re.IGNORECASE)


def synonym_phrases(question: str, expansion: Expansion | None = None) -> tuple[str, ...]:
    """The synonym table's multi-word (or hyphenated) phrases found in ``question``, in the table's order of
    finding (``expansion``, default :func:`clinqa.retrieval.synonyms.expand` of ``question``): each is one key
    term of kind ``phrase``."""
    from clinqa.retrieval import synonyms

    found = synonyms.expand(question) if expansion is None else expansion
    return tuple(p for p in found.added if " " in p or "-" in p)


@dataclass(frozen=True)
class TermsRead:
    """What the key-term test reads of a question, read once (:func:`read_terms`). The question profile
    (:class:`clinqa.question.profile.QuestionProfile`) is one, with more fields; its docstring describes each.

    ``question``: as given; ``normalized``: it through :func:`clinqa.text.unicode.normalize`, which the rest is
    read from (a patient's age left out of ``answer_types`` and ``dosed``); ``treatment`` /
    ``prevention``: :data:`TREATMENT_QUESTION` / :data:`PREVENTION_QUESTION`; ``asked_sentence``:
    :func:`asked_sentence`; ``definitions``: ``(short form lower case, long form)`` pairs it defines;
    ``phrases``: the synonym table's phrases (:func:`synonym_phrases`); ``answer_types``:
    :func:`answer_type_words`; ``dosed``: :func:`dosed_words`; ``key_terms``: :func:`key_terms` (None when read
    without ``max_zipf``)."""

    question: str
    normalized: str
    treatment: bool
    prevention: bool
    asked_sentence: str
    definitions: tuple[tuple[str, str], ...]
    phrases: tuple[str, ...]
    answer_types: frozenset[str]
    dosed: frozenset[str]
    key_terms: tuple[KeyTerm, ...] | None

    def reads(self, question: str) -> bool:
        """Was this read from ``question`` (the same text)?"""
        return self.question == question


def read_terms(question: str, vocabulary: Vocabulary | None = None, max_zipf: float | None = None,
               phrases: Iterable[str] | None = None, equivalents: Callable[[str], Iterable[str]] | None = None,
               rarity: WordRarity | None = None, expansion: Expansion | None = None) -> TermsRead:
    """:class:`TermsRead` of ``question``. The key terms are read only when ``max_zipf`` is given, with
    ``vocabulary`` (spelling repair, corpus verbs; None: neither), ``phrases`` (None: the synonym table's,
    :func:`synonym_phrases` of ``expansion``) and ``equivalents`` (the question's own definitions added);
    ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: their defaults). Pure function of its
    inputs; never raises for any string."""
    text = normalize(question)
    aged = without_ages(text)  # a patient's age is context (as key_terms reads the question)
    verb = (lambda w: verb_in(w, vocabulary)) if vocabulary is not None else None
    kinds = frozenset(answer_type_words(aged, is_verb=verb))
    rarity = rarity or default_rarity()
    dosed = frozenset(dosed_words(aged, rarity.dosed_below))
    defined = tuple((d.short.lower(), d.long) for d in definitions(text))
    found = synonym_phrases(question, expansion) if phrases is None else tuple(phrases)
    terms = None
    if max_zipf is not None:
        known = dict(defined)
        eq = _with_definitions(equivalents, known) if known else equivalents
        terms = tuple(key_terms(text, vocabulary, max_zipf, found, eq, answer_types=kinds, dosed=dosed,
                                rarity=rarity))
    return TermsRead(question=question, normalized=text, treatment=TREATMENT_QUESTION.search(text) is not None,
                     prevention=PREVENTION_QUESTION.search(text) is not None, asked_sentence=asked_sentence(text),
                     definitions=defined, phrases=found, answer_types=kinds, dosed=dosed, key_terms=terms)


def check(question: str, passages: list[str], vocabulary: Vocabulary | None = None, max_zipf: float = 4.0,
          phrases: Iterable[str] = (), equivalents: Callable[[str], Iterable[str]] | None = None,
          matcher: Callable[[str, str], bool] | None = None, profile: TermsRead | None = None,
          rarity: WordRarity | None = None, decider: DecisiveModel | None = None) -> Answerability:
    """Key terms of ``question`` and those that none of ``passages`` (the texts that may be
    quoted, header included) mentions. Both are read through :func:`clinqa.text.unicode.normalize`
    first (ligatures, full-width letters, Greek mu: "ﬁbrillation" is "fibrillation"), as BM25 reads
    them. ``profile``: what was read of the question (:class:`TermsRead`, e.g. its
    :class:`clinqa.question.profile.QuestionProfile`), read with the same
    ``vocabulary``, ``max_zipf``, ``phrases`` and ``equivalents`` (its key terms, definitions and question
    kind are used instead of reading the question again); read here when None, not read from ``question``
    or read without key terms. ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: the defaults).
    ``decider``: the decisive-word model (:mod:`clinqa.answer.decisive_words`); when given, each missing term's
    probability of deciding is in :attr:`Answerability.learned`, and it, not :func:`is_decisive`, says which
    missing term refuses. Pure function of its inputs; no store access."""
    if profile is None or profile.key_terms is None or not profile.reads(question):
        profile = read_terms(question, vocabulary, max_zipf, phrases, equivalents, rarity)
    assert profile.key_terms is not None
    question = profile.normalized
    passages = [without_scope_exclusions(normalize(p)) for p in passages]
    defined = dict(profile.definitions)
    if defined:  # "... transcript (LINC-PINT)": a passage with the long form mentions the short form
        equivalents = _with_definitions(equivalents, defined)
    terms = list(profile.key_terms)
    idx = [_passage_index(p) for p in passages]
    found = [[mentions(t, p, equivalents, matcher) and not defined_otherwise(t, p[0], equivalents) for p in idx]
             for t in terms]
    prevented: list[str] = []
    if profile.treatment and not profile.prevention:
        # "treatment for ventilator-associated pneumonia" is not answered by "feeding ... to reduce the
        # incidence of ventilator-associated pneumonia": such a mention is no mention of what is treated
        for k, t in enumerate(terms):
            if not any(found[k]):
                continue
            forms = [t.match, t.text, *(equivalents(t.match) if equivalents is not None else ())]
            again = [hit and mentions(t, _passage_index(masked), equivalents, matcher)
                     if (masked := prevention_masked(passages[j], forms)) != passages[j] else hit
                     for j, hit in enumerate(found[k])]
            if not any(again):
                prevented.append(t.text)
            found[k] = again
    present = {t.text for t, hits in zip(terms, found, strict=True) if any(hits)}
    alternatives = _alternatives(question, terms)  # "dominant or recessive": one of them suffices
    missing = [t for t, hits in zip(terms, found, strict=True)
               if not any(hits) and not (alternatives.get(t.text, set()) & present)]
    in_corpus = {t.text: vocabulary is None or _in_vocabulary(t, vocabulary) for t in missing}
    learned = None
    if decider is not None:
        from clinqa.answer.decisive_words import PassageWords
        from clinqa.answer.decisive_words import features as word_features

        words_in = PassageWords.of(passages)
        rows = [word_features(t, in_corpus[t.text], vocabulary, words_in, len(terms), len(missing)) for t in missing]
        learned = {t.text: float(p) for t, p in zip(missing, decider.prob(rows), strict=True)}
    by_text = {t.text: hits for t, hits in zip(terms, found, strict=True)}
    def covers(j: int, names: Iterable[str]) -> bool:
        return all(by_text[t][j] or any(by_text[o][j] for o in alternatives.get(t, ())) for t in names)

    complete = [j for j in range(len(idx)) if covers(j, by_text)] if terms else []
    decisive: list[str] = []
    below = rarity.decisive_below if rarity is not None else None
    for t in terms:  # alternatives ("colchicine or ibuprofen") are one thing asked about
        if is_decisive(t, True, below) and not alternatives.get(t.text, set()) & set(decisive):
            decisive.append(t.text)
    slack = 0 if len(decisive) <= 2 else 1  # see Answerability.focused
    groups = {t.text for t in terms if t.kind == "population"}

    def focus(names: list[str], slack: int) -> list[int]:
        # a population is never the term a passage may lack: the statin dose table does not answer "... for
        # a pregnant woman with high LDL" (new-user helper; the corpus says statins are contraindicated)
        return [j for j in range(len(idx)) if covers(j, [t for t in names if t in groups])
                and sum(not covers(j, [t]) for t in names if t not in groups) <= slack]

    focused = focus(decisive, slack) if decisive else []
    asked = profile.asked_sentence
    background: list[str] = []
    if decisive and asked:
        # a vignette ("... type 2 diabetes on metformin ... What dose of apixaban should she be on?"): the
        # story's drugs, conditions and numbers are background (a population stays decisive wherever it
        # is); they only warn when missing, and the sentence that asks says what must be answered
        low = asked.lower()
        own = [t.text for t in terms if t.text in decisive and (t.kind == "population" or any(
            re.search(r"(?<![\w-])" + re.escape(f.lower()) + r"(?![\w-])", low) for f in (t.text, t.typed) if f))]
        if own and len(own) < len(decisive):
            background = [t for t in decisive if t not in own]
            decisive = own
            if not focused:  # no passage names every drug and condition of the story
                focused = focus(own, 0 if len(own) <= 2 else 1)
    # each decisive term is in some passage, but no passage has them together: a neighbouring topic
    # (magnesium sulfate for asthma, prophylaxis of seizures in brain injury, for "magnesium sulfate
    # for seizure prophylaxis in preeclampsia"); only for what a clinician acts on (a dose, a regimen, a
    # treatment, a target): on BioASQ dev it refused 3 scientific questions, 2 answered right before; and
    # whatever is asked, when a decisive term is a population: "Is allopurinol safe in pregnancy?" is not
    # answered by asthma drugs that are safe in pregnancy beside allopurinol for gout (found by a new user;
    # no answer of the clinician, held-out, vignette, BioASQ, notes or refusal sets changed)
    populations = {t.text for t in terms if t.kind == "population"}
    apart = decisive if (len(decisive) >= 2 and not focused and not missing
                         and (profile.treatment or bool(populations & set(decisive)))) else []
    covered = {t.text: [j for j in range(len(idx)) if covers(j, [t.text])] for t in terms}
    return Answerability(terms, missing, in_corpus, complete[0] if complete else None, focused, apart, covered,
                         [t.text for t in missing if t.text in prevented],
                         [t.text for t in terms if t.text in background or (
                             background and t.text not in decisive and not is_decisive(t, True, below))],
                         below, learned, decider.threshold if decider is not None else 0.5)


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
#: the words before a condition named as something to prevent: "to reduce the incidence of", "prevention of",
#: "prophylaxis against", "prevents" (at most two words between: "prevent recurrent ...")
_PREVENTION_FRAME = (r"(?:prevent(?:s|ed|ing)?|prevention[ \t]+of|prophylaxis[ \t]+(?:of|against|for)|"
                     r"(?:reduc(?:e|es|ed|ing)|lower(?:s|ed|ing)?|decreas(?:e|es|ed|ing))[ \t]+(?:the[ \t]+)?"
                     r"(?:incidence|risk|rate|occurrence)[ \t]+of)[ \t]+"
                     # words in between qualify the condition ("recurrent"), on the same line; a preposition
                     # starts another phrase ("preventing rebleeding in SAH": SAH is not what is prevented)
                     r"(?:(?!(?:in|after|of|with|during|for|among|from|by|and|or|the|a|an|to|at)\b)"
                     r"[A-Za-z][\w-]*[ \t]+){0,2}?")


def prevention_masked(text: str, forms: Iterable[str]) -> str:
    """``text`` with each of ``forms`` (a term and its synonyms) blanked out where it is named as
    something to prevent (:data:`_PREVENTION_FRAME`: "to reduce the incidence of ventilator-associated
    pneumonia (VAP)"), with an abbreviation in brackets right after it; other mentions stay.
    Case-insensitive; ``text`` itself when nothing is framed so."""
    alts = tuple(sorted({f.lower() for f in forms if f and len(f) >= 2}, key=len, reverse=True))
    if not alts or not _FRAME_ALONE.search(text):  # most passages have no such frame: no pattern to build
        return text
    return _prevention_pattern(alts).sub(lambda m: m.group(1) + "\u2026", text)


_FRAME_ALONE = re.compile(_PREVENTION_FRAME, re.IGNORECASE)


@lru_cache(maxsize=1024)
def _prevention_pattern(alts: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("(" + _PREVENTION_FRAME + r")(?:" + "|".join(re.escape(a) for a in alts)
                      + r")(?![\w-])(?:\s*\([^()]{1,15}\))?", re.IGNORECASE)


def defined_otherwise(term: KeyTerm, text: str, equivalents: Callable[[str], Iterable[str]] | None) -> bool:
    """Does ``text`` define the abbreviation ``term`` as something else than the synonym table's
    expansions of it, and name none of them? "CAP (Controlled Attenuation Parameter via FibroScan)" is
    not community-acquired pneumonia. Only for an abbreviation typed in capitals that
    ``equivalents`` expands (an unknown one has no expected meaning); the long forms are compared by
    their content-word stems (:func:`clinqa.text.abbreviations.definitions` finds them)."""
    typed = term.typed or term.text
    if not (typed.isupper() and len(typed) >= 2) or equivalents is None or typed not in text:
        return False
    expansions = [e for e in equivalents(typed) if " " in e or "-" in e]
    if not expansions:
        return False
    theirs = [d.long for d in definitions(text) if d.short == typed]
    if not theirs:
        return False

    def stems(phrase: str) -> set[str]:
        return {stem(w) for w in words_of(phrase.lower()) if w not in STOPWORDS and len(w) >= 3}

    known = [stems(e) for e in expansions]
    low = text.lower()
    if any(e.lower() in low for e in expansions):
        return False  # the passage also names what the question means
    return all(not any(stems(t) & k for k in known) for t in theirs)


#: a sentence saying that the document does not cover something ("Cancer-associated VTE ... is addressed
#: in separate ASH guideline modules, not in this document")
SCOPE_EXCLUSION = re.compile(
    r"\b(?:not\s+(?:covered|addressed|discussed|included|considered)\s+(?:in|by)\s+this|not\s+in\s+this|"
    r"(?:beyond|outside)\s+the\s+scope\s+of\s+this)\s+(?:document|guideline|guidance|module|section|summary|"
    r"review|chapter)s?\b", re.IGNORECASE)


def without_scope_exclusions(text: str) -> str:
    """``text`` less its sentences and list lines that say the document does not cover something
    (:data:`SCOPE_EXCLUSION`): a term named only there is not something the passage answers."""
    if not SCOPE_EXCLUSION.search(text):
        return text
    pieces = re.split(r"(?<=[.;!?])\s+|\n", text)
    return " ".join(p for p in pieces if not SCOPE_EXCLUSION.search(p))


#: the rules :func:`check` applies to the question and its passages as a whole, in the order it applies them
#: (its code applies them inline; this table names, documents and tests them: tests/answer/test_rules.py).
CHECK_RULES: tuple[Step, ...] = (
    Step("scope_exclusion",
         "A sentence or list line saying the document does not cover something (SCOPE_EXCLUSION: 'not "
         "covered in this guideline') is dropped before any test: a term named only there is not answered.",
         without_scope_exclusions,
         Example("How is Kawasaki disease treated in children?",
                 ("Kawasaki disease is not covered in this guideline. Fever in children is common.",),
                 "missing", ("kawasaki",), masked=True)),
    Step("defined_otherwise",
         "A passage that defines the question's capital abbreviation as something other than the synonym "
         "table's expansions, and names none of them, does not mention it: 'CAP (Controlled Attenuation "
         "Parameter)' is not community-acquired pneumonia.",
         defined_otherwise,
         Example("What is the first-line antibiotic for CAP?",
                 ("CAP (Controlled Attenuation Parameter) measured by FibroScan was 280 dB/m. Antibiotic choice "
                  "depends on the organism.",), "missing", ("cap",), masked=True)),
    Step("prevention_frame",
         "In a question about treating something (TREATMENT_QUESTION, not PREVENTION_QUESTION), a passage that "
         "names it only as something to prevent (_PREVENTION_FRAME: 'to reduce the incidence of') does not "
         "mention it (prevention_masked); such terms are listed as prevented.",
         prevention_masked,
         Example("What is the treatment for ventilator-associated pneumonia?",
                 ("Early enteral feeding is used to reduce the incidence of ventilator-associated pneumonia.",),
                 "prevented", ("ventilator-associated", "pneumonia"), masked=True)),
    Step("alternatives",
         "Key terms the question offers as alternatives ('heterozygous or homozygous') are one thing asked "
         "about: a passage with one of them suffices (_alternatives).",
         _alternatives,
         Example("Were the patients heterozygous or homozygous for the mutation?",
                 ("All patients were heterozygous for the mutation.",), "missing", (), absent=("homozygous",))),
    Step("background_of_story",
         "In a question of several sentences, the decisive terms outside the sentence that asks "
         "(asked_sentence), populations excepted, are the patient's story: missing, they warn instead of "
         "refusing.",
         asked_sentence,
         Example("My mum is 82 and has atrial fibrillation and takes metformin. What dose of apixaban should "
                 "she be on?",
                 ("Apixaban 5 mg twice daily is used for atrial fibrillation; 2.5 mg twice daily if two of age 80 "
                  "or older, weight 60 kg or less.",), "background", ("atrial", "fibrillation", "metformin"))),
    Step("treatment_apart",
         "In a question about what to give or aim for (TREATMENT_QUESTION), two or more decisive terms each "
         "mentioned by some passage but by none together are a neighbouring topic (Answerability.apart): "
         "magnesium sulfate for asthma does not answer magnesium sulfate in preeclampsia.",
         None,
         Example("What is the dose of magnesium sulfate in preeclampsia?",
                 ("Magnesium sulfate 2 g IV is given for acute severe asthma.",
                  "Preeclampsia is managed by planned delivery."), "apart", ("magnesium sulfate", "preeclampsia"))),
    Step("population_apart",
         "Whatever is asked, two or more decisive terms of which one is a population (pregnancy, children ...), "
         "each mentioned by some passage but by none together, are a neighbouring topic too (Answerability.apart): "
         "asthma drugs safe in pregnancy beside allopurinol for gout do not answer allopurinol in pregnancy.",
         None,
         Example("Is allopurinol safe in pregnancy?",
                 ("Allopurinol is started at 100 mg daily and titrated to the urate target.",
                  "Inhaled corticosteroids are considered safe during pregnancy."), "apart",
                 ("allopurinol", "pregnancy"))),
)


def _with_definitions(equivalents: Callable[[str], Iterable[str]] | None,
                      defined: dict[str, str]) -> Callable[[str], list[str]]:
    """``equivalents`` plus, for a short form the question defines (lower case -> long form), its long form."""
    def both(term: str) -> list[str]:
        more = [defined[term.lower()]] if term.lower() in defined else []
        return [*(equivalents(term) if equivalents is not None else ()), *more]

    return both


#: a question's verbs and participles ("inhibited", "deposited", "evaluated", "comprising") frame the
#: question; they are key only when the corpus lacks them altogether
_VERB_FORM = re.compile(r"(?:ed|ing)$")
#: adverbs ("preferentially", "significantly", "reversibly") say how, not what: never decisive by rarity
_ADVERB = re.compile(r"(?:ally|ively|ently|antly|ously|ably|ibly|edly|ingly|arly)$")


def is_decisive(term: KeyTerm, in_corpus: bool, below: float | None = None) -> bool:
    """Does missing ``term`` make the question unanswerable? Always for a population, a quantity,
    a synonym-table phrase and a capital abbreviation; for a word the corpus lacks altogether ("The
    documents do not mention amoxicillin"); and for a word the corpus has elsewhere only when it is
    very specific (wordfreq Zipf < ``below``, ``answer.rarity.decisive_below``, 3.0 by default: a drug or
    condition, "dexamethasone") and not a verb form (by its
    ending, or a verb the corpus inflects: :attr:`KeyTerm.verb`) or an adverb ("preferentially"), or
    carries a clinical suffix (-itis, -osis, -aemia, -pathy, -ectomy ...: "meningitis", "hepatitis").
    Measured on BioASQ dev: scientific questions are full of general academic words (Zipf 3-4:
    "characteristic", "manifestations", "molecule") that the answering snippet need not repeat.
    The rules are those of :data:`DECISIVE_RULES`, tried in order; the first that decides wins."""
    return decide(DECISIVE_RULES, DecisiveCase(term, in_corpus,
                                               default_rarity().decisive_below if below is None else below))


@dataclass(frozen=True)
class DecisiveCase:
    """What a decisiveness rule looks at: the missing ``term``, whether the corpus has it (``in_corpus``) and the
    general-English Zipf cut below which a word is specific (``below``: ``answer.rarity.decisive_below``)."""

    term: KeyTerm
    in_corpus: bool
    below: float = field(default_factory=lambda: default_rarity().decisive_below)


def _always_decisive_kind(c: DecisiveCase) -> bool | None:
    return True if c.term.kind in ("population", "quantity", "phrase") else None


def _capital_abbreviation(c: DecisiveCase) -> bool | None:
    typed = c.term.typed
    return True if typed.isupper() and len(typed) >= 2 and typed not in NOT_ABBREVIATIONS else None


def _common_verb_form(c: DecisiveCase) -> bool | None:
    return False if _VERB_FORM.search(c.term.match) and zipf(c.term.match) >= c.below else None


def _rare_word(c: DecisiveCase) -> bool | None:
    m = c.term.match
    return zipf(m) < c.below and not _VERB_FORM.search(m) and not c.term.verb and not _ADVERB.search(m)


#: the rules of :func:`is_decisive`, in the order they are tried; the first that decides (True: decisive,
#: False: only a warning) wins, None passes to the next. The order matters: what a missing term *is*
#: (population, quantity, phrase, abbreviation, the dosed drug) decides before how it is used (the kind of
#: answer asked for, a verb form of the question's frame), and both before what the corpus says of it (not
#: in it at all) and the word's own shape (a modifier, a clinical suffix, rarity in English), which only
#: apply to a plain specific word; ``rare_word`` closes the table and always decides.
DECISIVE_RULES: tuple[Rule[DecisiveCase], ...] = (
    Rule("population_quantity_phrase",
         "A population, a quantity or a synonym-table phrase is always decisive (a dose for adults is no "
         "answer for children).",
         _always_decisive_kind,
         Golden(KeyTerm("children", "population", "children", typed="children"), expected=True)),
    Rule("capital_abbreviation",
         "An abbreviation typed in capitals (2+ letters, not in NOT_ABBREVIATIONS) is decisive: 'CAP', 'PE'.",
         _capital_abbreviation,
         Golden(KeyTerm("cap", "specific", "cap", typed="CAP"), expected=True)),
    Rule("dosed_drug",
         "The thing whose dose is asked (dosed_words) is decisive, however common the word: 'What is the "
         "magnesium sulfate dose ...'.",
         lambda c: True if c.term.dosed else None,
         Golden(KeyTerm("magnesium", "specific", "magnesium", typed="magnesium", dosed=True), expected=True)),
    Rule("answer_type_word",
         "The kind of thing asked for (answer_type_words: 'which cell organelle') is never decisive: the "
         "passage names a member ('the nucleus').",
         lambda c: False if c.term.answer_type else None,
         Golden(KeyTerm("organelle", "specific", "organelle", typed="organelle", answer_type=True),
                in_corpus=False, expected=False)),
    Rule("common_verb_form",
         "A word with a verb ending (-ed, -ing) of Zipf >= 3.0 is the question's frame ('weighing', "
         "'treated'), not decisive, even where a small corpus lacks the form.",
         _common_verb_form,
         Golden(KeyTerm("weighing", "specific", "weighing", typed="weighing"), in_corpus=False, expected=False)),
    Rule("not_in_corpus",
         "A word the corpus lacks altogether is decisive ('The documents do not mention amoxicillin').",
         lambda c: None if c.in_corpus else True,
         Golden(KeyTerm("amoxicillin", "specific", "amoxicillin", typed="amoxicillin"), in_corpus=False,
                expected=True)),
    Rule("modifier_of_condition",
         "A word that qualifies a condition or procedure word in the question (KeyTerm.modifies: 'cerebral' "
         "in 'cerebral venous sinus thrombosis') says which one: decisive.",
         lambda c: True if c.term.modifies else None,
         Golden(KeyTerm("cerebral", "specific", "cerebral", typed="cerebral", modifies="thrombosis"),
                expected=True)),
    Rule("clinical_suffix",
         "A word with a Greek or Latin suffix of conditions and procedures (CLINICAL_SUFFIX: -itis, -osis, "
         "-aemia, -pathy, -ectomy ...) names what is asked about: decisive ('meningitis', Zipf 3.1).",
         lambda c: True if CLINICAL_SUFFIX.search(c.term.match) else None,
         Golden(KeyTerm("meningitis", "specific", "meningitis", typed="meningitis"), expected=True)),
    Rule("rare_word",
         "Otherwise decisive when very specific (wordfreq Zipf < 3.0: 'dexamethasone') and not a verb form "
         "(ending, or KeyTerm.verb) or an adverb ('preferentially'); measured on BioASQ dev, where general "
         "academic words (Zipf 3-4) need not be repeated by the answering snippet.",
         _rare_word,
         Golden(KeyTerm("dexamethasone", "specific", "dexamethasone", typed="dexamethasone"), expected=True)),
)


def decisive_rule(term: KeyTerm, in_corpus: bool) -> str:
    """The name of the rule of :data:`DECISIVE_RULES` that decides :func:`is_decisive` for these arguments."""
    return which(DECISIVE_RULES, DecisiveCase(term, in_corpus)) or DECISIVE_RULES[-1].name


def _in_vocabulary(term: KeyTerm, vocabulary: Vocabulary) -> bool:
    """Does the corpus have ``term`` at all (one of its population equivalents, every word of a phrase)?"""
    if term.kind == "population":
        return any(all(w in vocabulary for w in words_of(e)) for e in POPULATIONS.get(term.match, ()))
    return all(w in vocabulary for w in words_of(term.match))
