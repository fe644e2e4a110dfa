"""Mention matching: does a passage mention a key term of the question, under any of its names?

One file decides it, for every reader of an ask: the key-term test (:func:`clinqa.key_term_test.check`,
which says whether a term no passage mentions is decisive), the choice of passages and the extractive answer.
A key term (:class:`clinqa.question.terms.KeyTerm`, read once from the question) is *mentioned* by a passage when
the passage has the term, its Snowball stem (Porter 2001, English stemmer of the ``snowballstemmer`` package:
"diabetes" ~ "diabetic"), its American spelling ("haemorrhage" ~ "hemorrhage"), an irregular plural, a
population equivalent ("children" ~ "paediatric"), or an equivalent from the synonym table when one is given; a
quantity is mentioned by a table row or heading whose band holds it (:func:`within_stated_bound`,
:mod:`clinqa.evidence.bands`).

Each passage is read once (:class:`CheckedPassage`: normalised, its scope exclusions removed, its index of words,
stems and table rows built on first use; :class:`clinqa.evidence.reading.PassageReading` holds one per retrieved
chunk). What is not a mention although the words are there: a sentence saying the document does not cover the
term (:func:`without_scope_exclusions`), an abbreviation the passage defines as something else
(:func:`defined_otherwise`), a condition named only as something to prevent (:func:`prevention_masked`).

:func:`passage_mentions` runs them over a question's key terms and an ask's passages: which passage mentions
which term (:class:`PassageMentions`), the table the key-term test's judgement reads.

The rules are data (:mod:`clinqa.evidence.rules`): :data:`MENTION_RULES` lists them by name, in order, each with a
worked example that ``tests/decision/test_rules.py`` runs; :func:`mention_rule` names the rule that fired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from clinqa.chunking.units import Unit, without_suspicious
from clinqa.evidence.bands import row_holds_quantity, table_rows
from clinqa.evidence.coverage import variants
from clinqa.evidence.rules import Golden, Rule, decide, which
from clinqa.lexicon import Lexicon
from clinqa.lexicon import lexicon as lexicon_for
from clinqa.question.profile import QuestionProfile
from clinqa.question.terms import POPULATIONS, QUANTITY, KeyTerm, TermsRead, fold, with_definitions
from clinqa.text.abbreviations import definitions
from clinqa.text.quantities import BOUND, NUMBER, RANGE_JOIN, bound_cutoff, bound_op, within_bound
from clinqa.text.stems import s_stem
from clinqa.text.stems import snowball_stem as stem
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOPWORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import words_of

if TYPE_CHECKING:
    from clinqa.chunking import Chunk
    from clinqa.retrieval.hybrid import Retrieved
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import WordRarity

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
    """One passage as the key-term test (:func:`clinqa.key_term_test.check`) reads it, read once however
    many tests of an ask read it: ``text``, the passage normalised (:func:`clinqa.text.unicode.normalize`) with
    its scope exclusions removed (:func:`without_scope_exclusions`), and its :attr:`index` (:func:`_passage_index`:
    single-spaced text, lower case, words, stems, table rows), built on first use. :meth:`of` reads one from a raw
    passage text; :class:`clinqa.evidence.reading.PassageReading` holds one per retrieved chunk."""

    text: str

    @classmethod
    def of(cls, raw: str) -> CheckedPassage:
        """The passage ``raw`` (a stored chunk's text, header included) read for the test."""
        return cls(without_scope_exclusions(normalize(raw)))

    @cached_property
    def index(self) -> Passage:
        """:func:`_passage_index` of :attr:`text`, built once."""
        return _passage_index(self.text)

    @cached_property
    def defined(self) -> dict[str, tuple[str, ...]]:
        """``{short form: (long forms, ...)}`` of the abbreviations the passage defines, read single-spaced as its
        :attr:`index` holds it ("CAP (Controlled Attenuation
        Parameter)" -> ``{"CAP": ("Controlled Attenuation Parameter",)}``; Schwartz & Hearst 2003,
        :func:`clinqa.text.abbreviations.definitions`), read once, on the first test that asks
        (:func:`defined_otherwise`)."""
        found: dict[str, tuple[str, ...]] = {}
        for d in definitions(self.index[0]):
            found[d.short] = (*found.get(d.short, ()), d.long)
        return found


def mentions(term: KeyTerm, passage: Passage, equivalents: Callable[[str], Iterable[str]] | None = None,
             matcher: Callable[[str, str], bool] | None = None) -> bool:
    """Does an indexed passage (:func:`_passage_index`) mention ``term``? See module docstring.
    ``equivalents(term) -> terms`` adds synonyms (e.g. :func:`clinqa.retrieval.synonyms.equivalents`);
    ``matcher(typed term, text)`` is a second test, e.g. :func:`clinqa.retrieval.synonyms.term_matches`
    (drug-class suffix rules: "ACE inhibitor" ~ "lisinopril"). A modifier of a head of :data:`BESIDE_HEAD`
    is mentioned only beside that head (:func:`names_with_head`). The rules are those of
    :data:`MENTION_RULES`, tried in order; the first that decides wins (:func:`clinqa.evidence.rules.decide`)."""
    case = MentionCase(term, passage, equivalents, matcher)
    return decide(MENTION_RULES, case)


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
    kg", and in a bound on a range of cut-offs up to its farther end ("CrCl < 30-35 mL/min" holds 25 and 32 mL/min,
    not 40): a patient's value is answered by the threshold that covers it. A table row of ``rows`` (the
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
    for m in re.finditer("(" + BOUND + r")\s*" + _NUM + "(?:" + RANGE_JOIN + _NUM + r")?\s*" + u, low):
        # a bound on a range of cut-offs ("CrCl < 30-35 mL/min": sources differ on where the line is) holds
        # what lies within its farther end: 25 and 32 are below it, 40 is not
        op = bound_op(m.group(1))
        if within_bound(value, op, bound_cutoff(op, float(m.group(2)), float(m.group(3)) if m.group(3) else None)):
            return True
    for m in re.finditer(_NUM + RANGE_JOIN + _NUM + r"\s*" + u, low):
        if float(m.group(1)) <= value <= float(m.group(2)):
            return True
    # a table row keyed by a band of the value, the unit in its column's header: "| CrCl (mL/min) |" ... "| 50-90 |"
    return row_holds_quantity(rows, value, unit)


# ---------------------------------------------------------------------------------------------------------
# Mention rules (:func:`mentions`) as data: each a named :class:`clinqa.evidence.rules.Rule` with one golden
# case (tests/decision/test_rules.py runs them all through :func:`mentions`).


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
    :attr:`MentionCase.forms` searches, and what :attr:`clinqa.decision.answerability.Answerability.searched`
    lists for a missing term."""
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


def _as_word(w: str, ws: set[str]) -> bool:
    """Is ``w`` a word of the passage (``ws``), or with -s/-es?"""
    return w in ws or w + "s" in ws or w + "es" in ws


def _by_stem(w: str, stems: set[str]) -> bool:
    """Does ``w`` (4+ letters) share its Snowball stem with a word of the passage (``stems``)?"""
    return len(w) >= 4 and stem(w) in stems


def _hyphen_apart(c: MentionCase) -> bool | None:
    for p in c.forms[0]:
        if "-" in p and " " not in p:
            parts = [x for x in re.split(r"[ -]", p) if x and x not in STOPWORDS]
            if parts and all(x in c.ws or _by_stem(x, c.stems) for x in parts):
                return True
    return None


def _hyphen_dropped(c: MentionCase) -> bool | None:
    return True if any("-" in p and " " not in p and p.replace("-", "") in c.ws for p in c.forms[0]) else None


def _word_or_plural(c: MentionCase) -> bool | None:
    return True if any(_as_word(w, c.ws) for w in c.forms[1]) else None


def _same_stem(c: MentionCase) -> bool | None:
    if c.term.kind == "population":
        return None
    return True if any(_by_stem(w, c.stems) for w in c.forms[1]) else None


def _word_prefix(c: MentionCase) -> bool | None:
    return True if any(len(w) >= 5 and re.search(r"(?<![^\W_])" + re.escape(w), c.low) for w in c.forms[1]) else None


def _symbol_family(c: MentionCase) -> bool | None:
    if not c.term.typed.isupper():
        return None
    return True if any(len(w) >= 3 and w.isalpha() and re.search(
        r"(?<![^\W_])" + re.escape(w) + r"-?\d+[a-z]?(?![^\W_])", c.low) for w in c.forms[1]) else None


def _split_compound_rule(c: MentionCase) -> bool | None:
    return True if any(len(w) >= 8 and w.isalpha() and _split_compound(w, c.ws, c.low) for w in c.forms[1]) else None


def _dosed_words_together(c: MentionCase) -> bool | None:
    t = c.term
    if t.kind != "phrase" or not t.dosed:
        return None
    words = [w for w in t.match.split() if w not in STOPWORDS]
    return True if words and all(_as_word(w, c.ws) or _by_stem(w, c.stems) for w in words) else None


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
    Rule("dosed_words_together",
         "The words a question puts side by side before 'dose' ('gout flare colchicine dose', 'CRRT effluent "
         "dose') are joined into one dosed phrase term (clinqa.question.terms._dosed_phrase), which is no name: "
         "a passage mentions it when it has each of its words (stop words aside) as a word, a plural or a "
         "Snowball stem, in any order ('Gout Flare Treatment > Colchicine'). A phrase of the synonym table or a "
         "drug combination is never read so (phrase_inflected).",
         _dosed_words_together,
         Golden(KeyTerm("crrt effluent", "phrase", "crrt effluent", typed="crrt effluent", dosed=True),
                "CRRT: Target effluent volume 20-25 mL/kg/h.", True)),
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


def defined_otherwise(term: KeyTerm, passage: CheckedPassage,
                      equivalents: Callable[[str], Iterable[str]] | None) -> bool:
    """Does ``passage`` define the abbreviation ``term`` as something else than the synonym table's
    expansions of it, and name none of them? "CAP (Controlled Attenuation Parameter via FibroScan)" is
    not community-acquired pneumonia. Only for an abbreviation typed in capitals that
    ``equivalents`` expands (an unknown one has no expected meaning); the long forms are compared by
    their content-word stems (the passage's :attr:`CheckedPassage.defined`, read once per passage)."""
    typed, text = term.typed or term.text, passage.index[0]  # single-spaced
    if not (typed.isupper() and len(typed) >= 2) or equivalents is None or typed not in text:
        return False
    expansions = [e for e in equivalents(typed) if " " in e or "-" in e]
    if not expansions:
        return False
    theirs = passage.defined.get(typed, ())
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


@dataclass
class PassageMentions:
    """Which of the question's key terms each passage mentions, under any of its names: the evidence half of the
    key-term test (:func:`passage_mentions`; the judgement, which missing term is decisive, is
    :func:`clinqa.key_term_test.check`'s). ``terms``: the question's key terms; ``found[k][j]``: passage
    ``j`` mentions ``terms[k]`` (:func:`mentions`, not :func:`defined_otherwise`, and in a question about treating
    a condition not only as something to prevent); ``texts``: the passages as read for the test (normalised, scope
    exclusions removed); ``alternatives``: per term (its text), the terms the question offers beside it ("dominant
    or recessive": one of them suffices); ``prevented``: the terms named only as something to prevent
    (:func:`prevention_masked`); ``equivalents``: what counted as another name (the question's own definitions
    added: "... transcript (LINC-PINT)")."""

    terms: list[KeyTerm]
    found: list[list[bool]]
    texts: list[str]
    alternatives: dict[str, set[str]]
    prevented: list[str]
    equivalents: Callable[[str], Iterable[str]] | None

    @cached_property
    def by_text(self) -> dict[str, list[bool]]:
        """``found`` per term text (a text given twice: its last term's row)."""
        return {t.text: hits for t, hits in zip(self.terms, self.found, strict=True)}

    @cached_property
    def missing(self) -> list[KeyTerm]:
        """The terms no passage mentions, neither itself nor one of its :attr:`alternatives`."""
        present = {t.text for t, hits in zip(self.terms, self.found, strict=True) if any(hits)}
        return [t for t, hits in zip(self.terms, self.found, strict=True)
                if not any(hits) and not (self.alternatives.get(t.text, set()) & present)]

    def covers(self, j: int, names: Iterable[str]) -> bool:
        """Does passage ``j`` mention every term of ``names`` (texts), itself or one of its alternatives?"""
        by_text, alternatives = self.by_text, self.alternatives
        return all(by_text[t][j] or any(by_text[o][j] for o in alternatives.get(t, ())) for t in names)


def passage_mentions(profile: TermsRead, passages: Sequence[str | CheckedPassage],
                     equivalents: Callable[[str], Iterable[str]] | None = None,
                     matcher: Callable[[str, str], bool] | None = None) -> PassageMentions:
    """Which key terms of the question (read as ``profile``, with its key terms) each of ``passages`` mentions
    (texts read through :meth:`CheckedPassage.of`, or passages already read so). ``equivalents``: what counts as
    another name of a term (the question's own definitions are added: :func:`clinqa.question.terms.with_definitions`);
    ``matcher``: the synonym table's matcher (:func:`clinqa.retrieval.synonyms.term_matches`). In a question about
    treating something (not preventing it), a passage that names a term only as something to prevent does not
    mention it (:func:`prevention_masked`). Pure function of its inputs."""
    assert profile.key_terms is not None
    read = [p if isinstance(p, CheckedPassage) else CheckedPassage.of(p) for p in passages]
    texts = [r.text for r in read]
    defined = {**dict(profile.named_twice), **dict(profile.definitions)}
    if defined:  # "... transcript (LINC-PINT)": a passage with the long form mentions the short form; "Kcentra
        # (4F-PCC)": a passage with either name mentions the other
        equivalents = with_definitions(equivalents, defined)
    terms = list(profile.key_terms)
    found = [[mentions(t, r.index, equivalents, matcher) and not defined_otherwise(t, r, equivalents) for r in read]
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
    alternatives = {a: set(o) for a, o in profile.alternatives}  # "dominant or recessive": one of them suffices
    return PassageMentions(terms, found, texts, alternatives, prevented, equivalents)


# ---------------------------------------------------------------------------------------------------------
# The key-term test of one question, bound (moved here from :mod:`clinqa.evidence.gather`, which re-exports it:
# the mention table is read here, the judgement comes in as data, :attr:`KeyTermTest.judge`), so the choice of
# passages (:mod:`clinqa.evidence.passages`) is handed the test and never calls back up into gathering.


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


class ReadsChecked(Protocol):
    """One passage's reading as the key-term test takes it (:class:`clinqa.evidence.reading.PassageReading`): the
    passage read for the test."""

    @property
    def checked(self) -> CheckedPassage: ...


class ReadsPassages(Protocol):
    """The ask's passage readings as the key-term test takes them (:class:`clinqa.evidence.reading.PassageReadings`,
    which imports this module): the reading of a chunk, read once per ask."""

    def of(self, chunk: Chunk) -> ReadsChecked: ...


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
    vocabulary and ``max_zipf`` (:func:`clinqa.evidence.gather.gather`); else it is read on first use
    (:attr:`question_profile`).
    ``readings``: the ask's passage readings (:class:`clinqa.evidence.reading.PassageReadings`), so that each hit's
    text is read for the test once however many tests read it (:meth:`on`); None: each hit is read anew (the same
    reading: :attr:`clinqa.evidence.reading.PassageReading.checked`)."""

    question: str
    vocab: Vocabulary
    max_zipf: float
    judge: Judge
    profile: QuestionProfile | None = None
    rarity: WordRarity | None = None
    use_lexicon: bool = True
    readings: ReadsPassages | None = None

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
        :attr:`readings`; without readings, read here the same way)."""
        if self.readings is None:  # no ask's readings: each hit read anew, as PassageReading.checked reads it
            passages = [CheckedPassage.of(without_suspicious(h.chunk.text)) for h in hits]
        else:
            passages = [self.readings.of(h.chunk).checked for h in hits]
        return self._check(passages)

    def on_texts(self, texts: Sequence[str]) -> Judgement:
        """The test against passage ``texts`` (stored chunk texts, header included; units addressed to an AI model
        left out, :func:`clinqa.chunking.units.without_suspicious`); the question's key terms are read once per test
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


def deeper_context(test: KeyTermTest, fitting: Sequence[Retrieved], context: list[Retrieved],
                   check: Judgement | None, n: int) -> tuple[list[Retrieved], Judgement | None]:
    """``(context, check)``, the quotable passages and their key-term test, looked for deeper when the first ``n``
    (``answer.context_chunks``) miss a decisive key term (the drug, condition, population ... asked about) that a
    later hit of the ``retrieval.top_k`` names: then the context is the first ``n`` ``fitting`` hits
    (:func:`clinqa.evidence.passages.fitting_hits` of all the hits, read once by gathering and handed in) that
    mention every decisive term (:attr:`Answerability.focused` over all the hits), those naming the missing terms
    first, in rank order, and the test is run again on them. "How long should anticoagulation continue after a
    *provoked* DVT?" is answered from the duration passage at rank 7 instead of refused for lack of "provoked" in
    ranks 1-5. Unchanged when nothing is missing, when no later hit names the missing terms, or when the key-term
    test does not run (``check`` None). ``test``: the question's key-term test (:class:`KeyTermTest`), whose
    judgements of the passages choose them; moved here from :mod:`clinqa.evidence.gather` (issue 48, walk round 6)."""
    # what the first passages lack: a decisive term, else a term of the patient's story (a vignette's
    # "sepsis" when the first passages are about DKA: Answerability.background)
    story = [t.text for t in check.missing if t.text in check.background] if check is not None else []
    if check is None or not (check.decisive or story):
        return context, check
    deeper = list(fitting)
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
