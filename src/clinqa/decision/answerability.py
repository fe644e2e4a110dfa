"""Answerability: are the things the question asks about in the passages that would be quoted?

The dense gate (:mod:`clinqa.decision.threshold`) measures topic: "What dose of amoxicillin is used
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
and the stopwords of :mod:`clinqa.evidence.coverage` are never key, nor is a short abbreviation that
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

The rules are data (:mod:`clinqa.evidence.rules`): :data:`MENTION_RULES` (what counts as a mention),
:data:`DECISIVE_RULES` (which missing term refuses) and :data:`CHECK_RULES` (what :func:`check` applies to
the passages as a whole) list them by name, in order, each with a worked example that
``tests/answer/test_rules.py`` runs; :func:`mention_rule` and :func:`decisive_rule` name the rule that fired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from clinqa.chunking.units import Unit
from clinqa.evidence.bands import row_holds_quantity, table_rows
from clinqa.evidence.coverage import variants
from clinqa.evidence.rules import Example, Golden, Rule, Step, decide, which
from clinqa.question.terms import (
    NOT_ABBREVIATIONS,
    POPULATIONS,
    QUANTITY,
    VERB_FORM,
    KeyTerm,
    TermsRead,
    alternatives,
    asked_sentence,
    default_rarity,
    fold,
    read_terms,
    shown_name,
    with_definitions,
)
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.abbreviations import definitions
from clinqa.text.quantities import BOUND, NUMBER, RANGE_JOIN, bound_op, within_bound
from clinqa.text.stems import s_stem
from clinqa.text.stems import snowball_stem as stem
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOPWORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import CLINICAL_SUFFIX, words_of
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.decision.decisive_words import DecisiveModel
    from clinqa.settings import WordRarity


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
    :func:`is_decisive` (``answer.rarity.decisive_below``; None: its default). ``searched``: per missing term
    (its text), the other forms the passages were searched for (:func:`searched_forms`: plurals, spellings, the
    synonym table's equivalents; the term's own text and match left out); a term added after the
    test (:func:`clinqa.answer.gather.with_unknown_compounds`) has none. The missing-term notes a language
    model is given list them (:func:`clinqa.decision.key_terms.missing_notes`)."""

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
    searched: dict[str, list[str]] = field(default_factory=dict)

    @property
    def decisive(self) -> list[KeyTerm]:
        """The missing terms that make the question unanswerable from these passages (see
        :func:`is_decisive`); the others only warrant a warning. When the passages mention **none** of the
        question's key terms, every one of them is decisive, even the kind of thing asked for: "What
        injuries did the patient have from the fall?" is not answered from a note that never mentions an
        injury (the key-term test found only "injuries"; "fall" is common English). With ``learned`` (the
        decisive-word model's probability per missing term, :mod:`clinqa.decision.decisive_words`) a term is
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


Passage = tuple[str, str, set[str], set[str], tuple[Unit, ...]]


def _passage_index(text: str) -> Passage:
    """(text with single spaces, the same lower-cased, its words, their stems, its table rows) for presence
    tests. The rows (:func:`clinqa.evidence.bands.table_rows`) are read before the line breaks are lost."""
    orig = " ".join(text.split())
    low = orig.lower()
    ws = set(words_of(low))
    ws |= {fold(w) for w in ws} | {w.replace("-", "") for w in ws if "-" in w}  # "CURB-65" is "curb65" too
    return orig, low, ws, {stem(w) for w in ws if len(w) >= 4}, table_rows(text)


@dataclass(frozen=True, eq=False)
class CheckedPassage:
    """One passage as the key-term test (:func:`check`) reads it, read once however many tests of an ask read it:
    ``text``, the passage normalised (:func:`clinqa.text.unicode.normalize`) with its scope exclusions removed
    (:func:`without_scope_exclusions`), and its :attr:`index` (:func:`_passage_index`: single-spaced text, lower
    case, words, stems, table rows), built on first use. :meth:`of` reads one from a raw passage text;
    :class:`clinqa.evidence.reading.PassageReading` holds one per retrieved chunk."""

    text: str

    @classmethod
    def of(cls, raw: str) -> CheckedPassage:
        """The passage ``raw`` (a stored chunk's text, header included) read for the test."""
        return cls(without_scope_exclusions(normalize(raw)))

    @cached_property
    def index(self) -> Passage:
        """:func:`_passage_index` of :attr:`text`, built once."""
        return _passage_index(self.text)


def mentions(term: KeyTerm, passage: Passage, equivalents: Callable[[str], Iterable[str]] | None = None,
             matcher: Callable[[str, str], bool] | None = None) -> bool:
    """Does an indexed passage (:func:`_passage_index`) mention ``term``? See module docstring.
    ``equivalents(term) -> terms`` adds synonyms (e.g. :func:`clinqa.retrieval.synonyms.equivalents`);
    ``matcher(typed term, text)`` is a second test, e.g. :func:`clinqa.retrieval.synonyms.term_matches`
    (drug-class suffix rules: "ACE inhibitor" ~ "lisinopril"). A modifier of a head of :data:`BESIDE_HEAD`
    is mentioned only beside that head (:func:`names_with_head`). The rules are those of
    :data:`MENTION_RULES`, tried in order; the first that decides wins (:func:`clinqa.evidence.rules.decide`)."""
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
    m = QUANTITY.fullmatch(term.text.strip())
    return re.sub(r"\s+", "", m.group(2).lower()) if m else ""


_NUM = "(" + NUMBER + ")"


def within_stated_bound(term: KeyTerm, low: str, rows: tuple[Unit, ...] = ()) -> bool:
    """Does the passage text ``low`` (lower case, normalised: "<=" is "≤") state a bound or a range, in
    the term's unit, that the question's number lies in? "55 kg" lies in "body weight ≤ 60 kg", in "under
    60 kg" (bounds in words: :data:`clinqa.text.quantities.BOUND_WORDS`) and in "50-59 kg", not in "> 60
    kg": a patient's value is answered by the threshold that covers it. A table row of ``rows`` (the
    passage's, read with its line breaks: :func:`clinqa.evidence.bands.table_rows`) counts too: "70 mL/min"
    lies in the "50-90" row of a "CrCl (mL/min)" column (:func:`clinqa.evidence.bands.row_holds_quantity`)."""
    unit = _unit(term)
    try:
        value = float(term.match)
    except ValueError:
        return False
    if not unit:
        return False
    u = re.escape(unit) + r"(?![a-z])"
    for m in re.finditer("(" + BOUND + r")\s*" + _NUM + r"\s*" + u, low):
        if within_bound(value, bound_op(m.group(1)), float(m.group(2))):
            return True
    for m in re.finditer(_NUM + RANGE_JOIN + _NUM + r"\s*" + u, low):
        if float(m.group(1)) <= value <= float(m.group(2)):
            return True
    # a table row keyed by a band of the value, the unit in its column's header: "| CrCl (mL/min) |" ... "| 50-90 |"
    return row_holds_quantity(rows, value, unit)


# ---------------------------------------------------------------------------------------------------------
# Mention rules (:func:`mentions`) as data: each a named :class:`clinqa.evidence.rules.Rule` with one golden
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
        """The forms of :func:`term_forms` (lower case, in order, each once) a passage may name the term by,
        split into phrases (words apart, or a hyphenated form the passage lacks as one word) and single
        words."""
        if self._forms is None:
            ws = self.ws
            phrases: list[str] = []
            words: list[str] = []
            for c in term_forms(self.term, self.equivalents):
                (phrases if " " in c or ("-" in c and c not in ws) else words).append(c)
            self._forms = (phrases, words)
        return self._forms


def term_forms(term: KeyTerm, equivalents: Callable[[str], Iterable[str]] | None = None) -> list[str]:
    """The forms (lower case, in order, each once) a passage may name ``term`` by: a population's listed forms
    (:data:`POPULATIONS`) or the term with its irregular plural (:func:`clinqa.evidence.coverage.variants`), a
    combination product's other spellings, their ``equivalents`` (the synonym table's,
    :func:`clinqa.retrieval.synonyms.equivalents`) and American spellings (:func:`fold`). What
    :attr:`MentionCase.forms` searches, and what :attr:`Answerability.searched` lists for a missing term."""
    if term.kind == "population":
        cands: list[str] = [*POPULATIONS.get(term.match, ()), term.text]
    else:
        cands = [term.match, term.text, *variants(term.match)]
    if term.kind == "phrase" and "/" in term.match:  # "sacubitril/valsartan" ~ "sacubitril-valsartan"
        cands += [term.match.replace("/", sep) for sep in ("-", " ", " and ", " / ")]
    if equivalents is not None:
        # the term as typed too: an abbreviation's senses depend on its capitals ("SBP", "Bx")
        typed = [term.typed] if term.typed and term.typed.lower() != term.typed else []
        for c in [*cands, *typed]:
            cands.extend(equivalents(c))
    cands.extend(fold(c) for c in list(cands))
    return list(dict.fromkeys(x.lower() for x in cands if x))


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
#: order is cheapest and most common first, which decides which rule is named (:func:`clinqa.evidence.rules.which`)
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


def check(question: str, passages: Sequence[str | CheckedPassage], vocabulary: Vocabulary | None = None,
          max_zipf: float = 4.0, phrases: Iterable[str] = (), equivalents: Callable[[str], Iterable[str]] | None = None,
          matcher: Callable[[str, str], bool] | None = None, profile: TermsRead | None = None,
          rarity: WordRarity | None = None, decider: DecisiveModel | None = None) -> Answerability:
    """Key terms of ``question`` and those that none of ``passages`` (the texts that may be
    quoted, header included) mentions. Both are read through :func:`clinqa.text.unicode.normalize`
    first (ligatures, full-width letters, Greek mu: "ﬁbrillation" is "fibrillation"), as BM25 reads
    them; a passage given as a :class:`CheckedPassage` was read so already (and its index is reused), as each
    retrieved chunk is once per ask (:class:`clinqa.evidence.reading.PassageReading`).
    ``profile``: what was read of the question (:class:`TermsRead`, e.g. its
    :class:`clinqa.question.profile.QuestionProfile`), read with the same
    ``vocabulary``, ``max_zipf``, ``phrases`` and ``equivalents`` (its key terms, definitions and question
    kind are used instead of reading the question again); read here when None, not read from ``question``
    or read without key terms. ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: the defaults).
    ``decider``: the decisive-word model (:mod:`clinqa.decision.decisive_words`); when given, each missing term's
    probability of deciding is in :attr:`Answerability.learned`, and it, not :func:`is_decisive`, says which
    missing term refuses. Pure function of its inputs; no store access."""
    if profile is None or profile.key_terms is None or not profile.reads(question):
        profile = read_terms(question, vocabulary, max_zipf, phrases, equivalents, rarity)
    assert profile.key_terms is not None
    question = profile.normalized
    read = [p if isinstance(p, CheckedPassage) else CheckedPassage.of(p) for p in passages]
    texts = [r.text for r in read]
    defined = dict(profile.definitions)
    if defined:  # "... transcript (LINC-PINT)": a passage with the long form mentions the short form
        equivalents = with_definitions(equivalents, defined)
    terms = list(profile.key_terms)
    idx = [r.index for r in read]
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
                     if (masked := prevention_masked(texts[j], forms)) != texts[j] else hit
                     for j, hit in enumerate(found[k])]
            if not any(again):
                prevented.append(t.text)
            found[k] = again
    present = {t.text for t, hits in zip(terms, found, strict=True) if any(hits)}
    alternatives = {a: set(o) for a, o in profile.alternatives}  # "dominant or recessive": one of them suffices
    missing = [t for t, hits in zip(terms, found, strict=True)
               if not any(hits) and not (alternatives.get(t.text, set()) & present)]
    in_corpus = {t.text: vocabulary is None or _in_vocabulary(t, vocabulary) for t in missing}
    learned = None
    if decider is not None:
        from clinqa.decision.decisive_words import PassageWords
        from clinqa.decision.decisive_words import features as word_features

        words_in = PassageWords.of(texts)
        rows = [word_features(t, in_corpus[t.text], vocabulary, words_in, len(terms), len(missing)) for t in missing]
        learned = {t.text: float(p) for t, p in zip(missing, decider.prob(rows), strict=True)}
    by_text = {t.text: hits for t, hits in zip(terms, found, strict=True)}
    def covers(j: int, names: Iterable[str]) -> bool:
        return all(by_text[t][j] or any(by_text[o][j] for o in alternatives.get(t, ())) for t in names)

    complete = [j for j in range(len(idx)) if covers(j, by_text)] if terms else []
    decisive: list[str] = []
    below = rarity.decisive_below if rarity is not None else None
    focal: list[str] = []
    for t in terms:  # alternatives ("colchicine or ibuprofen") are one thing asked about
        if is_decisive(t, True, below) and not alternatives.get(t.text, set()) & set(decisive):
            decisive.append(t.text)
        # which passages to focus on is read without the lexicon's judgement: a vignette's "lactate 4.5" does
        # not refuse when missing, but a passage that names it is still the closer one
        if is_decisive(replace(t, lexical=""), True, below) and not alternatives.get(t.text, set()) & set(focal):
            focal.append(t.text)
    slack = 0 if len(focal) <= 2 else 1  # see Answerability.focused
    groups = {t.text for t in terms if t.kind == "population"}

    def focus(names: list[str], slack: int) -> list[int]:
        # a population is never the term a passage may lack: the statin dose table does not answer "... for
        # a pregnant woman with high LDL" (new-user helper; the corpus says statins are contraindicated)
        return [j for j in range(len(idx)) if covers(j, [t for t in names if t in groups])
                and sum(not covers(j, [t]) for t in names if t not in groups) <= slack]

    focused = focus(focal, slack) if focal else []
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
                         below, learned, decider.threshold if decider is not None else 0.5,
                         searched={t.text: searched_forms(t, equivalents) for t in missing})


def searched_forms(term: KeyTerm, equivalents: Callable[[str], Iterable[str]] | None) -> list[str]:
    """The forms a passage was searched for besides ``term`` itself (:func:`own_forms`), lower case, each once:
    :func:`term_forms`, then the ``equivalents`` of the term as typed (a capitalised abbreviation, "CAP", is
    looked up as typed by the matcher: :func:`clinqa.retrieval.synonyms.term_matches`). Drug-class members
    reached only by a suffix rule are not listed."""
    typed = [e.lower() for e in equivalents(term.typed)] if equivalents is not None and term.typed else []
    own = own_forms(term)
    return [f for f in dict.fromkeys([*term_forms(term, equivalents), *typed]) if f not in own]


def own_forms(term: KeyTerm) -> set[str]:
    """The forms that are ``term`` itself, not an equivalent of it: its text, match and typed form, lower case."""
    return {f.lower() for f in (term.text, term.match, term.typed) if f}


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
         "about: a passage with one of them suffices (alternatives, read once with the key terms).",
         alternatives,
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
    return False if VERB_FORM.search(c.term.match) and zipf(c.term.match) >= c.below else None


def _rare_word(c: DecisiveCase) -> bool | None:
    m = c.term.match
    return zipf(m) < c.below and not VERB_FORM.search(m) and not c.term.verb and not _ADVERB.search(m)


#: the rules of :func:`is_decisive`, in the order they are tried; the first that decides (True: decisive,
#: False: only a warning) wins, None passes to the next. The order matters: what a missing term *is*
#: (population, quantity, phrase, abbreviation, the dosed drug) decides before how it is used (the kind of
#: answer asked for, a verb form of the question's frame), and both before what the corpus says of it (not
#: in it at all) and the word's own shape (a modifier, a clinical suffix, rarity in English), which only
#: apply to a plain specific word; ``rare_word`` closes the table and always decides.
DECISIVE_RULES: tuple[Rule[DecisiveCase], ...] = (
    Rule("vignette_number",
         "A number with its unit that the patient's story gives (a weight anywhere; any number before the "
         "question's last clause break: '72 kg man, stroke 2 h ago - alteplase dose?'), or a thing the question "
         "gives a value ('RR 22', 'eGFR 48'), is the patient's story: missing, it warns. A number in a one-clause "
         "question ('Can the cough persist for 8 weeks?') is asked of and stays decisive. A number still selects "
         "the band or row of a table or heading that holds it (quantity_within_stated_bound). Only with the "
         "lexicon (answer.lexicon); issue 49.",
         lambda c: False if c.term.lexical == "context" else None,
         Golden(KeyTerm("92 kg", "quantity", "92", lexical="context"), expected=False)),
    Rule("ward_shorthand",
         "Dosing or ward shorthand (the lexicon's curated table: 'QDS', 'nocte', 'PRN', 'outpt') says how or "
         "where, not what about: missing, it warns, also typed in capitals.",
         lambda c: False if c.term.lexical == "shorthand" else None,
         Golden(KeyTerm("qds", "specific", "qds", typed="QDS", lexical="shorthand"), expected=False)),
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
    Rule("ordinary_word",
         "A word the lexicon knows as ordinary English with no clinical sense in WordNet ('okay', 'chase', "
         "'hold') or as a typo of a common word ('recieve') frames the question: missing, it warns.",
         lambda c: False if c.term.lexical in ("ordinary", "typo") and not c.term.modifies else None,
         Golden(KeyTerm("okay", "specific", "okay", typed="okay", lexical="ordinary"), in_corpus=False,
                expected=False)),
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
