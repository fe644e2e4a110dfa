"""The time intent of a question as year filters and a recency flag (regexes, no model).

``parse_time_intent(question, today)`` reads, case-insensitively:

- ranges, both bounds inclusive: "between 2015 and 2020", "from 2015 to 2020", "2015-2020",
  "2015–2020" (reversed bounds are swapped);
- lower bounds: "since / from / as of / starting (in) 2021", "no earlier than 2021",
  "2021 onwards / or later / and later / and beyond" -> ``year_min`` 2021; "after / later than /
  newer than / more recent than 2020" -> ``year_min`` 2021 (exclusive). "from 2021" alone means
  since 2021;
- upper bounds: "until / till / up to / up until / through / by / no later than 2019",
  "2019 or earlier / or before" -> ``year_max`` 2019; "before / prior to / older than /
  earlier than / pre-2019" -> ``year_max`` 2018 (exclusive);
- one year: "in / during (March) 2023", "this year" (``today.year``), "last year" or
  "previous year" without "the"/"past" (the previous calendar year) -> ``year_min = year_max``;
  "in / during 2023" in a sentence in the first person ("I was diagnosed with AMD in 1982") is the
  asker's history, not a date of the documents, and is ignored; with ``reference=True`` (a question
  to the reference documents, not to one patient's notes) so is "in 2023" or "last year" in a
  sentence about a person ("She fell last year; what fall risk assessment ...?", "my patient had an
  MI in 2019"): the patient's history, not the year of a guideline; and with ``reference=True`` a rolling
  period or "this year" applies only in a sentence that names the documents, guidance or evidence ("guidance from
  the last 5 years"), never in the patient's story ("an MI last month", "had a stroke last year": issue 49);
- rolling periods: "(over / in / within ...) the last / past N years / decades / months / weeks /
  days" -> ``year_min`` = the year N units before ``today``, ``year_max`` None ("the past year",
  "in the last year" are rolling: ``today.year - 1``). N is digits, one..twenty, "a couple of"
  (2), "a few" (3), or absent (1);
- a bare year counts (as one year) only after "the" or "'s" ("the 2019 ESC guideline",
  "NICE's 2019 update") or when a document word (guideline, note, recommendation, statement,
  update, review, study, trial, paper, article, consensus, edition, version, ...) follows it,
  optionally after up to two upper-case acronyms ("2020 ESC AF guidelines"); otherwise ignored, but in a question
  to one patient's notes (``reference=False``), where any bare year is the year of the notes asked about ("2021
  renal fx", "eGFR 2020"); and there a dose asked with no time and no word of a past event ("xarelto dose", not
  "what dose was started", "why was the dose reduced") is the dose in force (``recency=True``);
- whole dates: ISO "2022-04-18", "18 April 2022", "April 18, 2022" -> ``date_min = date_max`` (the
  day, and its year as ``year_min = year_max``); "since / from / after D" and "before / until / by D"
  bound the days as they bound years; "between D1 and D2" is a range. A patient's notes are then
  limited to those dated so (:meth:`clinqa.pipeline.Pipeline.time_intent`); documents without a note
  date keep the year bounds only. Slashed dates are not read (day-month and month-day orders clash);
- recency: "latest", "most recent", "newest", "the last visit / note / appointment",
  "current(ly) (recommended)", "up to date", "up-to-date", "recent(ly)", "now", "nowadays", "today", what the
  patient takes now ("still on", "still taking", "is she on", "is the patient taking"), "last" before a word
  that is no count or time unit ("last Cr", "last lamotrigine level"; not "last 3 months", "last year", "last
  resort") ->
  ``recency=True``; not the "now" of "what now?" or "now what?" (what to do next, found by a new user). Note that this
  also fires on "recent MI" or "current smoker" (newer notes first is harmless there).

A 4-digit number is a year only in 1900..``today.year + 1``, not glued to letters, digits,
".", "," or "/", and not followed by a unit or a count noun ("2000 mg", "5000 units", "2000
patients"). Several time expressions combine by intersecting their bounds ("after 2018 and
before 2022" -> 2019..2021); if only one-year expressions are found, their span is used ("the
2019 and 2021 guidelines" -> 2019..2021); if the bounds contradict each other, the first
expression in the question wins. ``phrase`` is the matched text, several pieces joined by "; "
in question order. Nothing matched -> ``TimeIntent()``; no string input raises.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from clinqa.text.quantities import SPELLED_NUMBERS

if TYPE_CHECKING:
    from clinqa.retrieval.filters import Filters


@dataclass(frozen=True)
class TimeIntent:
    """Year bounds (inclusive, ``None`` = open), a recency flag and the text they came from.
    ``undated`` is the phrase of year bounds that were read but not applied, because no document
    searched carries a year (:meth:`clinqa.pipeline.Pipeline.time_intent`); empty otherwise.
    ``date_min`` / ``date_max``: whole-date bounds (ISO); ``invalid``: the text of a date that is none
    ("2022-02-30"), which filters nothing."""

    year_min: int | None = None
    year_max: int | None = None
    recency: bool = False
    phrase: str = ""
    undated: str = ""
    date_min: str | None = None
    date_max: str | None = None
    invalid: str = ""

    @property
    def has_dates(self) -> bool:
        """True when a whole date bound (``date_min`` / ``date_max``, ISO ``YYYY-MM-DD``) was read."""
        return self.date_min is not None or self.date_max is not None

    def is_empty(self) -> bool:
        """True when there is neither a year bound nor recency."""
        return self.year_min is None and self.year_max is None and not self.recency

    def describe(self, today: datetime.date | None = None) -> str:
        """Text for the answer, e.g. ``"years 2021-2026 (from 'since 2021')"`` ("2021 onwards"
        without ``today``), ``"year 2023 (from 'in 2023')"``, ``"years up to 2018 (from 'before
        2019')"``, ``"most recent first (from 'latest')"``; ``""`` when empty."""
        lo, hi = self.year_min, self.year_max
        if self.has_dates:
            dl, dh = self.date_min, self.date_max
            span = (f"date {dl}" if dl == dh else f"dates {dl} to {dh}" if dl and dh
                    else f"dates from {dl}" if dl else f"dates up to {dh}")
            return f"{span}{', most recent first' if self.recency else ''} (from '{self.phrase}')"
        if lo is not None and hi is None and today is not None:
            hi = max(today.year, lo)
        parts = []
        if lo is not None and hi is not None:
            parts.append(f"year {lo}" if lo == hi else f"years {lo}-{hi}")
        elif lo is not None:
            parts.append(f"years {lo} onwards")
        elif hi is not None:
            parts.append(f"years up to {hi}")
        if self.recency:
            parts.append("most recent first")
        return f"{', '.join(parts)} (from '{self.phrase}')" if parts else ""

    def to_dict(self) -> dict[str, Any]:
        """``{"year_min", "year_max", "recency", "phrase"}`` (and ``"undated"``, ``"date_min"``,
        ``"date_max"`` when set), JSON-ready."""
        d = asdict(self)
        for key in ("undated", "date_min", "date_max", "invalid"):
            if not d[key]:
                del d[key]
        return d


#: numbers in words of a time phrase: one to twenty (:data:`clinqa.text.quantities.SPELLED_NUMBERS`), "a few"
NUMBER_WORDS: dict[str, int] = {**SPELLED_NUMBERS, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3}
_NUM = "|".join(w.replace(" ", r"\s+") for w in sorted(NUMBER_WORDS, key=len, reverse=True))

_UNITS = (
    r"mg|mcg|µg|ug|g|grams?|kg|ml|mls|l|litres?|liters?|units?|u|iu|mmol|meq|kcal|cal|mm|mmhg|cm|cc"
    r"|patients|participants|people|subjects|adults|children|cases"
)
_Y = rf"(?<![\w.,/])([0-9]{{4}})(?!\w|[.,/]\d)(?!\s*(?:%|(?:{_UNITS})\b))"  # a year candidate (group)
_MONTH = r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+)?"
_DOC = (
    r"guidelines?|guidance|notes?|recommendations?|statements?|updates?|reviews?|study|studies|trials?"
    r"|papers?|articles?|consensus|editions?|versions?|reports?|letters?|summary|summaries"
)
_ACRONYMS = r"(?:\s+(?-i:[A-Z][A-Z0-9/&-]+)){0,2}"
_ONWARDS = r"(?:\s+(?:onwards?|or\s+later|and\s+later|or\s+newer|and\s+beyond))?"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


#: four digits in a row: every year pattern (``_Y``) and whole-date pattern (:func:`_date_patterns`) needs
#: them, so a question without them skips those patterns, which are compiled on first need (a start-up saving)
_FOUR_DIGITS = re.compile(r"\d{4}")


@lru_cache(maxsize=1)
def _bare_year() -> re.Pattern[str]:
    """A bare year candidate, read as one year only in a question to one patient's notes (``reference=False``): not
    a part of a date ("2022-02-30") nor after "in"/"during", which :func:`_year_patterns` reads (and may set aside as
    the asker's history). Compiled on first need, as the year patterns are."""
    return _rx(rf"(?<!-)(?<!\bin\s)(?<!\bduring\s){_Y}(?!-\d)")


#: a dose asked of one patient's notes with no time (:func:`parse_time_intent`, ``reference=False``): the dose in force
_DOSE_NOW = _rx(r"\b(?:dose|dosing|dosage)\b")
#: words that ask about a past dose or event, not the dose in force ("was started", "initial dose", "why", "when")
_NOT_NOW = _rx(r"\b(?:was|were|had|did|started?|starting|initial(?:ly)?|first|given|prior|previous(?:ly)?|before|"
               r"originally|when|why|changed?|reduced|increased|held|stopped)\b")


@lru_cache(maxsize=1)
def _year_patterns() -> list[tuple[re.Pattern[str], str]]:
    """(pattern, kind) in priority order; a match that overlaps an earlier-claimed span is skipped."""
    return [
        (_rx(rf"\bbetween\s+{_MONTH}{_Y}\s*(?:and|&|to|[-–—])\s*{_MONTH}{_Y}"), "range"),
        (_rx(rf"(?:\bfrom\s+{_MONTH})?{_Y}\s*(?:[-–—]|\b(?:to|through|thru|until|till)\b)\s*{_MONTH}{_Y}"), "range"),
        (_rx(rf"\bno\s+(?:later|newer)\s+than\s+{_MONTH}{_Y}"), "max"),
        (_rx(rf"\bno\s+(?:earlier|older)\s+than\s+{_MONTH}{_Y}{_ONWARDS}"), "min"),
        (_rx(rf"\b(?:since|from|as\s+of|starting(?:\s+(?:in|from))?)\s+{_MONTH}{_Y}{_ONWARDS}"), "min"),
        (_rx(rf"\b(?:after|later\s+than|newer\s+than|more\s+recent\s+than)\s+{_MONTH}{_Y}"), "min_excl"),
        (_rx(rf"{_Y}\s+(?:onwards?|or\s+later|and\s+later|or\s+newer|or\s+after|and\s+beyond)\b"), "min"),
        (_rx(rf"\b(?:until|till|up\s+to(?:\s+and\s+including)?|up\s+until|through|thru|by)\s+{_MONTH}{_Y}"), "max"),
        (_rx(rf"{_Y}\s+(?:or|and)\s+(?:earlier|before|older)\b"), "max"),
        (_rx(rf"(?:\b(?:before|prior\s+to|older\s+than|earlier\s+than)\s+{_MONTH}|\bpre-\s*){_Y}"), "max_excl"),
        (_rx(rf"\b(?:in|during)\s+(?:the\s+year\s+)?{_MONTH}{_Y}"), "year_in"),
        (_rx(rf"(?:\bthe\s+|(?<=['’]s\s)){_Y}{_ACRONYMS}(?:\s+(?:{_DOC})\b)?|{_Y}{_ACRONYMS}\s+(?:{_DOC})\b"), "year"),
    ]


_ROLLING = _rx(
    r"(?:\b(?:over|in|within|during|for|from|of)\s+)?(?P<the>\bthe\s+)?\b(?P<which>last|past|previous|preceding)\s+"
    rf"(?:(?P<n>[0-9]{{1,3}}|{_NUM})\s+)?(?P<unit>years?|decades?|months?|weeks?|days?)\b"
)
_THIS_YEAR = _rx(r"\bthis\s+(?:calendar\s+)?year\b")
_RECENCY = _rx(
    r"\b(?:most\s+recent(?:ly)?|(?:most\s+)?up[-\s]?to[-\s]?date|latest|newest|current(?:ly)?(?:\s+recommended)?"
    r"|recent(?:ly)?|nowadays|(?<!what )(?<!do I do )now(?!\s+what)|today"
    r"|(?:last|latest|most\s+recent)\s+(?:visit|note|appointment|review|consultation|admission|encounter|clinic)"
    # what the patient takes now: "still on", "is she taking"; the last of a value: "last Cr", not "last 3 months"
    r"|still\s+(?:on|taking|using|getting|receiving)|(?:is|are)\s+(?:he|she|they|pt|the\s+(?:patient|pt))\s+"
    r"(?:still\s+)?(?:on|taking|using)"
    r"|last(?=\s+[a-z])(?!\s+(?:one|two|three|four|five|six|few|several|couple|years?|decades?|months?|weeks?|days?"
    r"|hours?|night|time|resort|line)\b))\b"
)


def _rolling_bounds(m: re.Match[str], today: datetime.date) -> tuple[int | None, int | None]:
    raw, unit = (m["n"] or "").lower(), m["unit"].lower().rstrip("s")
    n = int(raw) if raw.isdigit() else NUMBER_WORDS.get(" ".join(raw.split()), 1)
    if m["unit"].lower() == "year" and not raw and not m["the"] and m["which"].lower() in ("last", "previous"):
        return today.year - 1, today.year - 1  # "last year": the previous calendar year
    if unit in ("year", "decade"):
        return today.year - n * (10 if unit == "decade" else 1), None
    if unit == "month":
        return (today.year * 12 + today.month - 1 - n) // 12, None
    days = n * (7 if unit == "week" else 1)
    return (today - datetime.timedelta(days=days)).year, None


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|[Mm]e|[Mm]y|[Mm]yself)\b")
_PERSON = re.compile(r"\b(?:she|he|her|his|him|they|their|them|patient|patients|son|daughter|wife|husband|mother|"
                     r"father|mum|mom|dad|baby|child)\b", re.I)


def _sentence_of(text: str, at: int) -> str:
    """The sentence of ``text`` around position ``at`` (split at ". ", "? ", "! " and line breaks)."""
    start = max(text.rfind(sep, 0, at) for sep in (". ", "? ", "! ", "\n"))
    ends = [i for i in (text.find(sep, at) for sep in (". ", "? ", "! ", "\n")) if i >= 0]
    return text[start + 1: min(ends) if ends else len(text)]


def _history(text: str, at: int, reference: bool) -> bool:
    """Is the time expression at ``at`` part of someone's history: a first-person sentence, or, for a
    ``reference`` question, a sentence about a person (pronoun, "patient", a relative)?"""
    sentence = _sentence_of(text, at)
    return bool(_FIRST_PERSON.search(sentence) or (reference and _PERSON.search(sentence)))


#: words that make a relative time phrase about the documents, not about the patient ("guidance from the last
#: 5 years", "what changed this year in the recommendations")
_EVIDENCE = _rx(r"\b(?:guidelines?|guidance|recommend\w*|evidence|stud(?:y|ies)|trials?|publi\w*|updated?s?|advice|"
                r"literature|papers?|articles?|reviews?|consensus|statements?|editions?|versions?|data|research|"
                r"documents?|sources?|changed?|new)\b")


#: recency words that, in a sentence about a patient that names no evidence, date the story, not the evidence
#: ("pt ... flu jab today", "recently started on warfarin, can she fly?"); "latest", "newest", "up to date" always
#: ask for the newest evidence, and so do these in a sentence about no one ("How is AF managed now?")
_STORY_NOW = _rx(r"today|now|recent(?:ly)?|currently")
#: a sentence about someone: :data:`_PERSON`'s words, the ward's "pt", or the first person
_STORY_PERSON = re.compile(r"\b(?:pts?|I|my|me)\b|" + _PERSON.pattern, re.I)


def _about_patient(text: str, at: int, reference: bool) -> bool:
    """For a ``reference`` question: is the relative time phrase at ``at`` about the patient's story (its sentence
    names no document, guidance or evidence: "an MI last month", "two falls this winter", "since last year on
    warfarin")? Such a phrase is context, not a filter on the documents' dates (issue 49)."""
    return reference and not _EVIDENCE.search(_sentence_of(text, at))


def _bounds(kind: str, years: list[int]) -> tuple[int | None, int | None]:
    if kind == "range":
        return min(years), max(years)
    y = years[0]
    bounds = {"min": (y, None), "min_excl": (y + 1, None), "max": (None, y), "max_excl": (None, y - 1)}
    return bounds.get(kind, (y, y))  # "year": that one year


_MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
_MONTH_NAME = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
#: a whole date: ISO "2022-04-18", "18 April 2022" / "18th Apr 2022", "April 18, 2022" (slashes are
#: ambiguous between day-month and month-day orders and are not read)
@lru_cache(maxsize=1)
def _date_patterns() -> list[tuple[re.Pattern[str], str]]:
    """The whole-date patterns and their field orders (compiled on first need)."""
    return [
        (_rx(r"(?<![\w.,/-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w-]|[.,/]\d)"), "ymd"),
        (_rx(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_NAME}\s*,?\s+(\d{{4}})\b"), "dmy"),
        (_rx(rf"\b{_MONTH_NAME}\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s+(\d{{4}})\b"), "mdy"),
    ]


@lru_cache(maxsize=1)
def _date_bound() -> re.Pattern[str]:
    """The word before a date that makes it a bound rather than the day itself (compiled on first need)."""
    return _rx(r"\b(since|from|after|as\s+of|starting|before|until|till|up\s+to|by|prior\s+to|between|and|to)"
               r"\s+(?:the\s+)?$")


def _dates(question: str, invalid: list[str] | None = None) -> list[tuple[int, int, datetime.date]]:
    """``(start, end, date)`` of each whole date in ``question``, in order; an impossible one
    ("2022-02-30") is skipped and its text appended to ``invalid`` when given."""
    out: list[tuple[int, int, datetime.date]] = []
    for rx, order in _date_patterns():
        for m in rx.finditer(question):
            g = m.groups()
            try:
                if order == "ymd":
                    d = datetime.date(int(g[0]), int(g[1]), int(g[2]))
                elif order == "dmy":
                    d = datetime.date(int(g[2]), _MONTHS[g[1][:3].lower()], int(g[0]))
                else:
                    d = datetime.date(int(g[2]), _MONTHS[g[0][:3].lower()], int(g[1]))
            except ValueError:
                if invalid is not None:
                    invalid.append(m.group(0))
                continue
            if all(m.end() <= s or m.start() >= e for s, e, _ in out):
                out.append((m.start(), m.end(), d))
    return sorted(out)


def _date_bounds(question: str, found: list[tuple[int, int, datetime.date]]) -> tuple[str | None, str | None, int]:
    """``(date_min, date_max, start of the phrase)`` of the whole dates ``found`` in ``question``: "since /
    from / after D" is a lower bound (after: exclusive), "before / until / by D" an upper one (before:
    exclusive), "between D1 and D2" / "from D1 to D2" a range, a date alone (or several) the day(s) itself."""
    lo: datetime.date | None = None
    hi: datetime.date | None = None
    start = found[0][0]
    days = []
    for s, _, d in found:
        m = _date_bound().search(question[:s])
        word = " ".join(m.group(1).lower().split()) if m else ""
        if m:
            start = min(start, m.start())
        if word in ("since", "from", "as of", "starting", "between"):
            lo = d if lo is None else max(lo, d)
        elif word == "after":
            lo = d + datetime.timedelta(days=1)
        elif word in ("until", "till", "up to", "by", "and", "to"):
            hi = d if hi is None else min(hi, d)
        elif word in ("before", "prior to"):
            hi = d - datetime.timedelta(days=1)
        else:
            days.append(d)
    if days and lo is None and hi is None:
        lo, hi = min(days), max(days)
    return (lo.isoformat() if lo else None), (hi.isoformat() if hi else None), start


def parse_time_intent(question: str, today: datetime.date, reference: bool = False) -> TimeIntent:
    """The :class:`TimeIntent` of ``question`` by the rules in the module docstring. ``reference``: the
    question is asked of the reference documents (no patient scope), where a one-year expression in a
    sentence about a person is that person's history."""
    if not isinstance(question, str) or not question.strip():
        return TimeIntent()
    found: list[tuple[int, int, int | None, int | None]] = []  # (start, end, year_min, year_max)
    bad: list[str] = []
    digits = _FOUR_DIGITS.search(question) is not None  # without them no year or whole-date pattern matches
    dates = _dates(question, bad) if digits else []
    date_min = date_max = None
    date_entry = None
    if dates:  # whole dates: the day (or a range of days), and its years as year bounds
        date_min, date_max, start = _date_bounds(question, dates)
        date_entry = (start, dates[-1][1], int(date_min[:4]) if date_min else None,
                      int(date_max[:4]) if date_max else None)
        found.append(date_entry)

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= s or m.start() >= e for s, e, *_ in found)

    # of one patient's notes a bare year is the notes' year ("2021 renal fx", "eGFR 2020"): no guideline is meant
    bare = [(_bare_year(), "year")] if digits and not reference else []
    for rx, kind in [*(_year_patterns() if digits else ()), *bare]:
        for m in rx.finditer(question):
            if kind == "year_in" and _history(question, m.start(), reference):
                continue  # "I was diagnosed with AMD in 1982": the asker's history, not a date of the documents
            years = [int(g) for g in m.groups() if g]
            if years and all(1900 <= y <= today.year + 1 for y in years) and free(m):
                found.append((m.start(), m.end(), *_bounds(kind, years)))
    for m in _ROLLING.finditer(question):
        lo, hi = _rolling_bounds(m, today)
        if lo is not None and lo == hi and reference and _history(question, m.start(), reference):
            continue  # "She fell last year": when she fell, not which year's documents
        if _about_patient(question, m.start(), reference):
            continue  # "an MI last month": the patient's story, not which documents
        if free(m):
            found.append((m.start(), m.end(), lo, hi))
    for m in _THIS_YEAR.finditer(question):
        if free(m) and not _about_patient(question, m.start(), reference):
            found.append((m.start(), m.end(), today.year, today.year))
    found.sort()
    rec = next((m for m in _RECENCY.finditer(question) if free(m) and not (
        _STORY_NOW.fullmatch(m.group(0)) and _about_patient(question, m.start(), reference)
        and _STORY_PERSON.search(_sentence_of(question, m.start())))), None)
    if rec is None and not found and not reference and not _NOT_NOW.search(question):
        # of one patient's notes, a dose asked with no time is the dose in force ("xarelto dose")
        rec = _DOSE_NOW.search(question)
    lows = [lo for _, _, lo, _ in found if lo is not None]
    highs = [hi for _, _, _, hi in found if hi is not None]
    lo, hi = (max(lows) if lows else None), (min(highs) if highs else None)
    if found and all(a == b for *_, a, b in found):  # only one-year expressions: their span
        lo, hi = min(lows), max(highs)
    elif lo is not None and hi is not None and lo > hi:  # contradiction: the first expression wins
        found = found[:1]
        lo, hi = found[0][2], found[0][3]
    spans = [(s, e) for s, e, *_ in found]
    if rec is not None:
        spans = sorted([*spans, rec.span()])
    phrase = "; ".join(question[s:e] for s, e in spans)
    if date_entry is not None and date_entry not in found:
        date_min = date_max = None  # contradicting bounds: an earlier expression won over the dates
    return TimeIntent(year_min=lo, year_max=hi, recency=rec is not None, phrase=phrase, date_min=date_min,
                      date_max=date_max, invalid="; ".join(bad))


#: the document id that stands for "no note dated so" in a patient query's ``doc_ids`` (no document has it)
NO_NOTE = "\x00no-note-dated-so"


def apply_time_intent(question: str, filters: Filters, reference_has_years: Callable[[], bool],
                      patient_notes: Callable[[str], dict[str, tuple[str, str]]],
                      today: datetime.date | None = None) -> tuple[Filters, TimeIntent]:
    """Apply the question's time intent (:func:`clinqa.question.time.parse_time_intent`, ``today``,
    default today's date) to ``filters``: its year bounds when ``filters`` has none (explicit filters
    win), and its recency flag. A reference question to a corpus of which no document carries a year
    (``reference_has_years()`` False) keeps its filters and the intent says so (``undated``). A patient
    question naming whole dates is limited to that patient's notes dated so (``patient_notes(id)``:
    ``{doc_id: (note date ISO, note type)}``) by document id, or to :data:`NO_NOTE` when none is.
    Returns the filters and the intent actually used."""
    today = today or datetime.date.today()
    intent = parse_time_intent(question, today, reference=filters.patient_id is None)
    if filters.has_years:
        return filters, TimeIntent(recency=intent.recency, phrase=intent.phrase if intent.recency else "")
    if intent.year_min is None and intent.year_max is None:
        return filters, intent
    if filters.patient_id is None and not reference_has_years():
        # a corpus without dates (PubMed snippets, undated PDFs) cannot be limited to "in 2019":
        # the bounds would exclude every passage; the answer says they were not applied
        return filters, TimeIntent(recency=intent.recency, phrase=intent.phrase if intent.recency else "",
                                   undated=intent.phrase)
    filters = replace(filters, year_min=intent.year_min, year_max=intent.year_max)
    if intent.has_dates and filters.patient_id is not None:
        # "on 2022-04-18": that day's notes only, by document id inside the store query (a note's
        # date is its own, not a year's); none dated so: NO_NOTE, which no document has
        dated = [d for d, (day, _) in patient_notes(filters.patient_id).items()
                 if day and (intent.date_min or day) <= day <= (intent.date_max or day)
                 and (not filters.doc_ids or d in filters.doc_ids)]
        filters = replace(filters, doc_ids=tuple(dated) or (NO_NOTE,))
    return filters, intent


def nearest_notes(notes: dict[str, tuple[str, str]], intent: TimeIntent) -> list[tuple[str, str, str]]:
    """Up to three ``(day, note type, doc id)`` of the dated ``notes`` (``{doc_id: (note date ISO or "", note type
    or "")}``) nearest the day the question asks about (``intent.date_min``, else ``date_max``, ISO), nearest first
    by distance in days, then doc id; a day and type given by several notes once: the notes a question about a day
    with no note (:func:`apply_time_intent`'s :data:`NO_NOTE`) is told of."""
    wanted = datetime.date.fromisoformat(intent.date_min or intent.date_max or "1900-01-01")

    def distance(day: str) -> int:
        return abs((datetime.date.fromisoformat(day) - wanted).days)

    dated = sorted(((d, day, kind) for d, (day, kind) in notes.items() if day), key=lambda x: (distance(x[1]), x[0]))
    return list(dict.fromkeys((day, kind, d) for d, day, kind in dated))[:3]
