"""Quantities in clinical text (a number, its unit and the word that qualifies it), so a
generated sentence's numbers can be checked against the passage it cites.

"within 4 weeks" and "persist for 4 weeks" hold the same number and unit but say different
things: the first bounds a time (``upper``), the second states a duration (``duration``). A
quantity is therefore ``(qualifier, low, high, unit)``; two quantities agree only when value,
unit and qualifier class agree (:func:`agrees`).

Qualifier classes (the one to three words, or the symbol, just before the number):

* ``upper``: within, up to, no more than, not more than, at most, less than, lower than, fewer than,
  under, below, maximum, not exceeding, ``<``, ``≤`` (the bound words of :data:`BOUND_WORDS` and a few more)
* ``lower``: at least, no less than, not less than, more than, greater than, higher than, over, above,
  exceeding, minimum, ``>``, ``≥``
* ``duration``: for, lasting, persists for
* ``approx``: about, approximately, around, roughly, nearly, ``~``
* ``after`` / ``before`` / ``every``: after, before, every / each / per
* ``""``: none of these

A bound written after the number counts too: "300 mg/dL or higher" is ``lower``, "5 days or
less" is ``upper``.

Units are normalised (``hrs`` -> ``hour``, ``mg/dl`` -> ``mg/dL``, ``weeks`` -> ``week``);
spelled-out numbers one to twenty are read as digits. Unit conversion (1 g = 1000 mg) is not
attempted: a converted number fails the check, which errs towards flagging.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinqa.text.sentences import MARKER as _MARKER

#: numbers spelled out, one to twenty (lower case) -> their value: the quantity check's, the question's time
#: phrases' (:data:`clinqa.question.time.NUMBER_WORDS` adds "a few", "a couple of") and a stated duration's
#: (:data:`clinqa.decision.quote.DURATION` adds "several", "a few")
SPELLED_NUMBERS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}

#: the unit table: every unit spelling clinqa reads in text (lower case, matched case-insensitively) -> its
#: canonical unit. Each reader takes a named subset of the spellings (below) and builds its alternation with
#: :func:`unit_pattern`, so a spelling is added or normalised in one place
UNITS: dict[str, str] = {
    "mg/kg/day": "mg/kg/day", "mg/kg/d": "mg/kg/day", "mg/kg": "mg/kg", "mcg/kg": "mcg/kg", "µg/kg": "mcg/kg",
    "mg/dl": "mg/dL", "g/dl": "g/dL", "mmol/l": "mmol/L", "µmol/l": "umol/L", "umol/l": "umol/L",
    "mmol/mol": "mmol/mol", "meq/l": "mEq/L", "ml/min/1.73 m2": "mL/min/1.73m2", "ml/min/1.73m2": "mL/min/1.73m2",
    "ml/min": "mL/min", "ml/h": "mL/h", "ml/kg": "mL/kg", "mmhg": "mmHg", "bpm": "bpm", "beats per minute": "bpm",
    "mg": "mg", "milligrams": "mg", "milligram": "mg", "mcg": "mcg", "µg": "mcg", "micrograms": "mcg",
    "microgram": "mcg", "g": "g", "grams": "g", "gram": "g", "kg": "kg", "kilograms": "kg", "ng/ml": "ng/mL",
    "ml": "mL", "millilitres": "mL", "milliliters": "mL", "l": "L", "litres": "L", "liters": "L",
    "iu": "IU", "units": "unit", "unit": "unit", "u": "unit", "%": "%", "percent": "%", "per cent": "%",
    "°c": "°C", "ºc": "°C", "degrees celsius": "°C", "°f": "°F", "degrees fahrenheit": "°F", "degrees": "degree",
    "seconds": "second", "second": "second", "sec": "second", "s": "second",
    "minutes": "minute", "minute": "minute", "mins": "minute", "min": "minute",
    "hours": "hour", "hour": "hour", "hrs": "hour", "hr": "hour", "h": "hour",
    "days": "day", "day": "day", "d": "day", "weeks": "week", "week": "week", "wks": "week", "wk": "week",
    "months": "month", "month": "month", "mo": "month", "years": "year", "year": "year", "yrs": "year",
    "yr": "year", "times": "time", "doses": "dose", "dose": "dose", "tablets": "tablet", "tablet": "tablet",
    "patients": "patient", "cm": "cm", "mm": "mm", "m": "m", "inches": "inch", "inch": "inch",
}
UNITS.update({"μmol/l": "umol/L", "μg/kg": "mcg/kg", "μg": "mcg"})  # Greek mu: what NFKC makes of the micro sign
#: the spellings a generated sentence's quantities are read with (:func:`extract_quantities`): the table above
CHECKED_UNITS: tuple[str, ...] = tuple(UNITS)
# spellings that only the question and answer readers below take (the quantity check above does not)
UNITS.update({"ug": "mcg", "ng": "ng", "mmol": "mmol", "mol": "mol", "meq": "mEq", "mm hg": "mmHg",
              "y": "year"})
#: a dose amount's units (:data:`clinqa.answer.extractive.DOSE_AMOUNT`: "0.9 mg/kg", "10 mL"), in the order tried
DOSE_UNITS: tuple[str, ...] = ("mg", "g", "mcg", "µg", "μg", "ug", "ng", "ml", "l", "units", "unit", "iu", "mmol",
                               "meq", "mg/kg", "ml/kg")
#: the units of a stated duration (:data:`clinqa.decision.quote.DURATION`: "7 days", "3-6 months"), in the
#: order tried
DURATION_UNITS: tuple[str, ...] = ("hours", "hour", "hrs", "hr", "h", "days", "day", "weeks", "week", "wks", "wk",
                                   "months", "month", "mo", "years", "year", "yrs", "yr", "minutes", "minute", "min")
#: the units of a quantity in a question ("500 mg", "30 ml", "55 kg", "48 hrs", "90d"; the key terms of
#: :mod:`clinqa.decision.answerability`), in the order tried: amounts, then every duration unit and "d"
QUESTION_UNITS: tuple[str, ...] = ("mg", "g", "mcg", "µg", "μg", "ug", "ng", "kg", "ml", "l", "mmol", "mol", "meq",
                                   "units", "unit", "iu", "%", "percent", "mm hg", "mmhg", "bpm",
                                   *DURATION_UNITS, "d")
#: the units of a patient's age in a question ("72-year-old", "6 month old"), in the order tried: the duration
#: units of a day or more, then "y" ("3 y old")
AGE_UNITS: tuple[str, ...] = (*(u for u in DURATION_UNITS if UNITS[u] in {"day", "week", "month", "year"}), "y")


def canonical_unit(unit: str) -> str:
    """``unit`` as :data:`UNITS` spells it ("h", "hrs" -> "hour"; "mmol/l" -> "mmol/L"), or lower case when the table
    has no entry for it."""
    key = unit.lower()
    return UNITS.get(key, key)


def unit_pattern(spellings: tuple[str, ...] | list[str]) -> str:
    """A regex alternation (no group) of ``spellings``, escaped, in the given order (a regex alternation
    tries its branches in order: the order decides which spelling a match ends with), duplicates
    dropped. Raises ``KeyError`` for a spelling not in :data:`UNITS` (the one unit table)."""
    missing = [s for s in spellings if s not in UNITS]
    if missing:
        raise KeyError(f"not in the unit table: {missing}")
    return "|".join(re.escape(s) for s in dict.fromkeys(spellings))


# --- the number, range and bound grammar: every reader of a number, a band or a bound builds on these ---------
#: a number as a band, a bound or a named value writes it: digits with an optional decimal point ("70", "4.0")
NUMBER = r"\d+(?:\.\d+)?"
#: :data:`NUMBER` compiled, to find the numbers of a text ("2.5", "40")
NUMBER_RE = re.compile(NUMBER)
#: a run of digits ("2.5" holds two): the digits of a text, or a number masked to "#"
DIGITS = re.compile(r"\d+")
#: a number that may have a decimal comma ("1,5"; :func:`_value` reads "1,000" as a thousand): a question's
#: quantities (:data:`clinqa.question.terms.QUANTITY`) and a generated sentence's (:func:`extract_quantities`)
NUMBER_OR_COMMA = r"\d+(?:[.,]\d+)?"
#: what joins a range's two ends: a hyphen, an en dash or "to", spaces around allowed ("50-90", "50–90",
#: "50 to 90"; text folded by :func:`clinqa.text.unicode.fold_dashes` has only the hyphen)
RANGE_JOIN = r"\s*(?:-|–|to)\s*"
#: bounds written in words, as the symbol each means: "under 50 kg" is "< 50 kg", "up to 4 g" is "≤ 4 g"
BOUND_WORDS: dict[str, str] = {
    "under": "<", "below": "<", "less than": "<", "lower than": "<", "fewer than": "<",
    "up to": "≤", "at most": "≤", "no more than": "≤", "not more than": "≤",
    "over": ">", "above": ">", "more than": ">", "greater than": ">", "higher than": ">",
    "at least": "≥", "no less than": "≥", "not less than": "≥",
}
#: the ASCII spellings of the two non-strict bounds (":func:`clinqa.text.unicode.normalize` writes ">=" and
#: "<=" as "≥" and "≤" already; a table cell may still say "=>")
BOUND_SYMBOLS: dict[str, str] = {"<=": "≤", ">=": "≥", "=<": "≤", "=>": "≥"}


def _words_alternation(words: list[str] | tuple[str, ...]) -> str:
    """``words`` escaped, longest first, a space matching any run of whitespace ("less\\s+than")."""
    return "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in words), key=len, reverse=True))


#: a bound as written, a symbol or words (no group; lower-case words: match case-insensitively or on lower-case
#: text): "≤", "<=", "under", "no more than". Read its meaning with :func:`bound_op`
BOUND = r"(?:<=|>=|=<|=>|<|>|≤|≥|" + _words_alternation(tuple(BOUND_WORDS)) + r")"


def bound_pattern(*ops: str, extra: tuple[str, ...] = ()) -> str:
    """A regex alternation (no group) of the bound words of :data:`BOUND_WORDS` that mean one of ``ops``
    ("<", "≤", ">", "≥"), longest first, then "<=" / ">=" (for "≤" / "≥"; not "=<" / "=>", an arrow in notes),
    then ``ops``, then ``extra`` (regex alternatives as given): ``bound_pattern("<", "≤")`` matches "under",
    "no more than", "<=", "<", "≤"."""
    words = [w for w, op in BOUND_WORDS.items() if op in ops]
    symbols = [s for s in ("<=", ">=") if BOUND_SYMBOLS[s] in ops] + list(ops)
    return "|".join([_words_alternation(words), *(re.escape(s) for s in symbols), *extra])


def bound_op(raw: str) -> str:
    """The symbol a bound as written means ("<", "≤", ">", "≥"): ``"Less  Than"`` -> ``"<"``, ``"=>"`` ->
    ``"≥"``, ``"≤"`` -> ``"≤"``. Case and runs of whitespace are ignored. Raises ``ValueError`` for anything
    that :data:`BOUND` does not match."""
    key = " ".join(raw.lower().split())
    op = BOUND_WORDS.get(key) or BOUND_SYMBOLS.get(key) or (key if key in ("<", "≤", ">", "≥") else None)
    if op is None:
        raise ValueError(f"not a bound: {raw!r}")
    return op


def bound_cutoff(op: str, low: float, high: float | None = None) -> float:
    """The cut-off of a bound written on one value (``low``) or on a range of cut-offs (``low``-``high``: "CrCl < 30-35
    mL/min", where sources differ on the line): the range's farther end from what the bound keeps, ``high`` for "<"
    and "≤", ``low`` for ">" and "≥", so that 32 lies below "< 30-35" and above "≥ 30-35"."""
    return high if high is not None and op in ("<", "≤") else low


def within_bound(value: float, op: str, bound: float) -> bool:
    """Does ``value`` satisfy ``op bound`` (``op`` one of "<", "≤", ">", "≥")? ``within_bound(55, "<", 60)``
    is ``True``, ``within_bound(60, "<", 60)`` ``False``."""
    return {"<": value < bound, "≤": value <= bound, ">": value > bound, "≥": value >= bound}[op]


#: any unit-shaped word written after a number, not only the unit table's: letters, "/", "%", digits after a
#: letter ("mL/min", "kg", "%", "mL/min/1.73m2")
UNIT_WORD = r"[a-zµμ%][\w/.%µμ]*(?:/[\w.]+)*"


def number_with_unit(units: str, number: str = NUMBER) -> str:
    """The number-with-unit pattern: a number not inside a word or a decimal (``(?<![\\w.])``), then the unit
    after optional spaces; group 1 the number, group 2 the unit. ``units`` is a regex alternation (no group):
    :func:`unit_pattern` of a subset of :data:`UNITS`, or :data:`UNIT_WORD`; ``number``: :data:`NUMBER` or
    :data:`NUMBER_OR_COMMA`. Nothing is said about what follows the unit: callers add their end."""
    return r"(?<![\w.])(" + number + r")\s*(" + units + r")"


_CHECKED = {u: UNITS[u] for u in CHECKED_UNITS}
_UNIT_RE = unit_pattern(sorted(CHECKED_UNITS, key=len, reverse=True))

_QUALIFIERS = [  # (pattern before the number, class): the bound words (:data:`BOUND_WORDS`) by side, then the rest
    (bound_pattern("<", "≤", extra=("not exceeding", "not to exceed", "within", "maximum of", "maximum", r"max\.?")),
     "upper"),
    (bound_pattern(">", "≥", extra=("exceeding", "minimum of", "minimum", r"min\.?")), "lower"),
    (r"persists? for|persisting for|lasts? for|lasting|for", "duration"),
    (r"approximately|about|around|roughly|nearly|almost|~|≈", "approx"),
    (r"after", "after"),
    (r"before|prior to", "before"),
    (r"every|each|per", "every"),
]
_NUM = NUMBER_OR_COMMA
_SPELLED = "|".join(sorted(SPELLED_NUMBERS, key=len, reverse=True))
_VALUE = rf"(?:{_NUM}|{_SPELLED})"
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<low>{_VALUE})(?:{RANGE_JOIN}(?P<high>{_VALUE}))?"
    rf"(?:\s*(?P<unit>{_UNIT_RE})(?![\w]))?",
    re.IGNORECASE,
)
#: a bound written after the number: "300 mg/dL or higher" is "at least 300 mg/dL"
_QUALIFIER_AFTER = [(re.compile(r"^\s*(?:or|and)\s+(?:more|higher|greater|above|over|longer|later)\b", re.I), "lower"),
                    (re.compile(r"^\s*(?:or|and)\s+(?:less|lower|fewer|below|under|shorter|sooner|earlier)\b", re.I),
                     "upper")]
_QUALIFIER_BEFORE = [(re.compile(rf"(?:^|[\s(,;])(?:{p})\s*$", re.IGNORECASE), cls) for p, cls in _QUALIFIERS]
#: a bound sign read from the other side: "30% ≤ FEV1" is FEV1 "≥" 30% (:func:`_bounds_a_thing`)
_FLIP = str.maketrans("<>≤≥", "><≥≤")


def _bounds_a_thing(after: str) -> str:
    """The bound a number sets on the thing written after it ("30% ≤ FEV1 < 50%": ``after`` is " ≤ FEV1 < 50%", the
    bound "≥"; "50 > x": "<"; "5 <= x": ">="): the sign right after the number, flipped (:data:`_FLIP`), when a letter
    follows it; else "". A sign followed by a number ("5 mg < 2 times") bounds no thing."""
    rest = after.lstrip()
    sign = rest[:2] if rest[:2] in ("<=", ">=") else rest[:1]
    thing = rest[len(sign):].lstrip()[:1].isalpha()
    return sign.translate(_FLIP) if sign in ("<=", ">=", "≤", "≥", "<", ">") and thing else ""


@dataclass(frozen=True)
class Quantity:
    """A number with its unit and qualifier class. ``low == high`` unless a range ("2-4 weeks").
    ``unit`` is canonical or ``""`` (``"date"`` for an ISO date, valued ``YYYYMMDD``); ``text``
    is the matched span; ``cue`` the qualifier's own words ("within", "up to"), if any."""

    qualifier: str
    low: float
    high: float
    unit: str
    text: str
    cue: str = ""

    @property
    def phrase(self) -> str:
        """The quantity as written, with its qualifier: "within 4 weeks"."""
        return f"{self.cue} {self.text}" if self.cue else self.text


def _value(raw: str) -> float:
    raw = raw.lower()
    if raw in SPELLED_NUMBERS:
        return float(SPELLED_NUMBERS[raw])
    if "," in raw:  # 1,000 is a thousand; 1,5 (decimal comma) is read as 1.5
        head, tail = raw.split(",", 1)
        raw = head + tail if len(tail) == 3 else head + "." + tail
    return float(raw)


def _qualifier(before: str) -> tuple[str, str]:
    """``(class, cue)`` of the qualifier that ends ``before`` (the text up to a number), else ``("", "")``. The
    longest cue wins, so "no less than" is ``lower`` although it ends in the ``upper`` cue "less than"; between
    cues of one length the first class of :data:`_QUALIFIERS` wins."""
    tail = before[-30:]
    found = [(m.start(), i, cls, m.group(0)) for i, (pattern, cls) in enumerate(_QUALIFIER_BEFORE)
             if (m := pattern.search(tail)) is not None]
    if not found:
        return "", ""
    _, _, cls, cue = min(found)
    return cls, cue.strip(" (,;")


_DATE = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])")


def extract_quantities(text: str) -> list[Quantity]:
    """Every quantity in ``text``, in order.

    Numbers inside words or codes ("CHA2DS2-VASc", "HbA1c", "T2") are skipped, as are citation
    markers ("[2]"). Spelled-out numbers count only with a unit ("four weeks", not "one of").
    """
    out: list[Quantity] = []
    text = _MARKER.sub(lambda m: " " * len(m.group(0)), text)  # citation markers are not numbers
    for m in _DATE.finditer(text):  # ISO dates are one value, not "2019-10" and "30"
        value = float(m.group(1) + m.group(2) + m.group(3))
        out.append(Quantity("", value, value, "date", m.group(0)))
    text = _DATE.sub(lambda m: " " * len(m.group(0)), text)
    for m in _QUANTITY.finditer(text):
        low_raw, high_raw, unit_raw = m.group("low"), m.group("high"), m.group("unit")
        spelled = low_raw.lower() in SPELLED_NUMBERS
        if spelled and not unit_raw:
            continue
        if unit_raw and unit_raw.lower() in ("s", "d", "h", "m", "l", "u", "g") and text[m.end():m.end() + 1] == "-":
            continue  # "2-d echo" style compounds
        unit = _CHECKED.get(unit_raw.lower(), unit_raw) if unit_raw else ""
        low = _value(low_raw)
        high = _value(high_raw) if high_raw else low
        cls, cue = _qualifier(text[: m.start()])
        if not cls:
            after = next((c for rx, c in _QUALIFIER_AFTER if rx.match(text[m.end():m.end() + 20])), "")
            if after:
                cls, cue = after, "or more" if after == "lower" else "or less"
            elif cue := _bounds_a_thing(text[m.end():m.end() + 20]):
                cls = "lower" if cue[0] in "≥>" else "upper"
        out.append(Quantity(cls, low, high, unit, m.group(0).strip(), cue))
    return out


def agrees(claim: Quantity, source: Quantity) -> bool:
    """Whether ``source`` (from the cited passage) supports ``claim`` (from the answer).

    Value(s) and unit must be equal. Qualifiers must be equal, except that an ``approx`` on
    either side matches any, and a claim with no qualifier matches any but a bound (``upper`` /
    ``lower``): "for 4 weeks" backs "4 weeks", "up to 30 mg" does not back "30 mg". A claim's
    qualifier with none in the source fails: "up to 40 mg" is not supported by "40 mg daily".
    Dates agree on their value alone.
    """
    if (claim.low, claim.high, claim.unit) != (source.low, source.high, source.unit):
        return False
    if claim.unit == "date" or claim.qualifier == source.qualifier:
        return True
    if "approx" in (claim.qualifier, source.qualifier):
        return True
    # a bare number is less specific than most qualifiers, but not than a bound: "30 mg" is not
    # backed by "up to 30 mg", nor "4 weeks" by "at least 4 weeks"
    return not claim.qualifier and source.qualifier not in ("upper", "lower")


def unsupported_quantities(sentence: str, sources: list[str]) -> list[Quantity]:
    """The quantities of ``sentence`` that no quantity of any text in ``sources`` agrees with
    (:func:`agrees`). Empty when every number in the sentence is backed."""
    available = [q for s in sources for q in extract_quantities(s)]
    return [q for q in extract_quantities(sentence) if not any(agrees(q, s) for s in available)]


#: an amount with a dose unit ("0.9 mg/kg", "500 mg", "10 mL"; units :data:`DOSE_UNITS`): what makes a quote a dose
DOSE_AMOUNT = re.compile(r"\d(?:[\d.,/-]*\d)?\s*(?:" + unit_pattern(DOSE_UNITS) + r")\b", re.IGNORECASE)
