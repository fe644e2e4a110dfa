"""Bands: the ranges and bounds that table rows are keyed by, read with their column's unit.

A dosing table keys its rows by bands of a patient's value::

    | CrCl (mL/min) | Maintenance dose | Interval       |
    | 50-90         | 15 mg/kg         | every 24 hours |
    | 15-29         | 10 mg/kg         | every 48 hours |

"vancomycin dose at creatinine clearance 70 mL/min?" is answered by the row whose band holds 70, although
"70" appears nowhere in the passage. Two readers use this module, so one band mechanism decides both:

* the key-term test (:func:`clinqa.evidence.mentions.within_stated_bound`): a question's quantity
  ("70 mL/min") is mentioned by a row whose band holds it, in the column whose header gives the unit;
* the extractive answer (:func:`clinqa.answer.extractive.extract_answer`): such a row is the one quoted,
  whole, and the other rows of its table are not.

A band is a cell that *starts* with a range or a bound: ``"50-90"``, ``"4.0-6.0"``, ``"50 to 90"``,
``"> 6.0"``, ``"≥ 7"``, ``"< 15 or dialysis"``, ``"under 50 kg"``. Dashes of every kind are read as ``-``.
A range's ends are inclusive (clinical tables write "30-49" then "50-90": the integer bands meet at the
ends); a bound's strictness is as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from clinqa.chunking.units import Unit, unit_records
from clinqa.question.terms import ION_CHARGE, VALUE_NAME, VALUE_STOP
from clinqa.text.quantities import (
    BOUND,
    NUMBER,
    RANGE_JOIN,
    UNITS,
    bound_cutoff,
    bound_op,
    canonical_unit,
    unit_pattern,
)
from clinqa.text.unicode import fold_dashes
from clinqa.text.words import words_of

_NUM = "(" + NUMBER + ")"
#: a unit written after a band in its cell, of at most two words ("mL/min/1.73 m2"), never "or"/"and"
_UNIT_WORDS = r"(?!or\b|and\b)[a-zµμ%/][\w/.%µμ]*(?:\s+(?!or\b|and\b)[\w/.%µμ]+)?"
#: what may follow the band in its cell: a unit, then nothing, " or dialysis", a parenthetical or a footnote
#: mark (a value cell such as "10-15 mg/L for most infections" is no band)
_REST = r"(?=\s*(?:" + _UNIT_WORDS + r")?\s*(?:$|\(|\bor\b|\band\b|[*†‡]))"
_RANGE = re.compile(r"^\s*" + _NUM + RANGE_JOIN + _NUM + _REST, re.IGNORECASE)
#: a bound, on one cut-off or on a range of them ("< 30-35 mL/min": sources differ on where the line is)
_BOUND = re.compile(r"^\s*(" + BOUND + r")\s*" + _NUM + "(?:" + RANGE_JOIN + _NUM + ")?" + _REST, re.IGNORECASE)
#: a unit in a column header: "CrCl (mL/min)", "Weight (kg)", "eGFR, mL/min/1.73 m2"
_HEADER_UNIT = re.compile(r"(?:\(([^()]{1,24})\)|,\s*([^,()]{1,24}))\s*$")
_UNIT_SHAPE = re.compile(r"^[a-zµμ%][a-zµμ%0-9./ ]*$", re.IGNORECASE)


@dataclass(frozen=True)
class Band:
    """An interval of values: ``low``/``high`` (``-inf``/``inf`` when open), with whether each end is
    included. ``text`` is the cell's band as written ("50-90", "> 6.0"); ``unit`` the unit written after
    it in the cell ("50-90 mL/min" -> ``"ml/min"``, lower case without spaces), else ``""``."""

    low: float
    high: float
    low_closed: bool = True
    high_closed: bool = True
    text: str = ""
    unit: str = ""

    def holds(self, value: float) -> bool:
        """Is ``value`` inside the band (ends as :attr:`low_closed` / :attr:`high_closed` say)?"""
        above = value >= self.low if self.low_closed else value > self.low
        below = value <= self.high if self.high_closed else value < self.high
        return above and below


def read_band(cell: str) -> Band | None:
    """The band a table cell starts with, else ``None``: ``"50-90"`` -> 50..90 (ends included),
    ``"> 6.0"`` -> (6, inf), ``"≥ 7"`` -> [7, inf), ``"< 15 or dialysis"`` -> (-inf, 15), ``"under 50 kg"``
    -> (-inf, 50), ``"< 30-35 mL/min"`` (a bound on a range of cut-offs) -> (-inf, 35). A range written high to
    low ("90-50") is read low to high. Markdown emphasis is ignored."""
    text = fold_dashes(cell.replace("**", "").replace("__", "")).strip()
    if (m := _RANGE.match(text)) is not None:
        a, b = float(m.group(1)), float(m.group(2))
        return Band(min(a, b), max(a, b), text=m.group(0).strip(), unit=_unit_after(text[m.end():]))
    if (m := _BOUND.match(text)) is not None:
        op = bound_op(m.group(1))
        # on a range of cut-offs, the farther end: "< 30-35" holds 32, "≥ 30-35" holds 32 too
        x = bound_cutoff(op, float(m.group(2)), float(m.group(3)) if m.group(3) else None)
        unit = _unit_after(text[m.end():])
        if op in ("<", "≤"):
            return Band(-math.inf, x, high_closed=op == "≤", text=m.group(0).strip(), unit=unit)
        return Band(x, math.inf, low_closed=op == "≥", text=m.group(0).strip(), unit=unit)
    return None


def _unit_after(rest: str) -> str:
    """The unit written right after a band ("mL/min" of "50-90 mL/min", "kg" of "< 50 kg or frail")."""
    m = re.match(r"\s*(" + _UNIT_WORDS + r")\s*(?:$|\(|\bor\b|\band\b|[*†‡])", rest, re.IGNORECASE)
    return re.sub(r"\s+", "", m.group(1).lower()) if m else ""


def header_unit(header: str) -> str:
    """The unit a column header gives its values, lower case without spaces, else ``""``:
    ``"CrCl (mL/min)"`` -> ``"ml/min"``, ``"Weight, kg"`` -> ``"kg"``, ``"Dose"`` -> ``""``. Only a
    unit-shaped ending counts (letters, ``/``, ``%``, digits after a letter): ``"Drug (generic name)"``
    gives ``"genericname"`` and matches no question unit, which is harmless."""
    m = _HEADER_UNIT.search(header.strip())
    if m is None:
        return ""
    raw = (m.group(1) or m.group(2) or "").strip()
    return re.sub(r"\s+", "", raw.lower()) if _UNIT_SHAPE.match(raw) else ""


def same_unit(question_unit: str, column_unit: str) -> bool:
    """Does a question's unit ("ml", as the key-term reader cuts "70 mL/min") name a column's unit
    ("ml/min")? Both read in their canonical spelling (:func:`clinqa.text.quantities.canonical_unit`: "h", "hrs",
    "hours" are "hour"), then equal, or the column's unit starts with it and a ``/`` (as the passage-text rule of
    :func:`clinqa.evidence.mentions.within_stated_bound` reads "ml" before "/min"), or it starts with the column's
    unit of a ratio and a ``/`` (the quantity reader cuts "0.5 mL/kg/h" to "mL/kg": "ml/kg/h" is that unit)."""
    q, c = (canonical_unit(u.replace(" ", "")).lower() for u in (question_unit, column_unit))
    return bool(q) and (q == c or c.startswith(q + "/") or ("/" in c and q.startswith(c + "/")))


def row_bands(unit: Unit) -> Iterator[tuple[int, str, Band]]:
    """``(column index, header, band)`` of every cell of a table row that is a band."""
    for j, (header, cell) in enumerate(unit.cells):
        if (band := read_band(cell)) is not None:
            yield j, header, band


def table_rows(text: str) -> tuple[Unit, ...]:
    """The table rows (:func:`clinqa.chunking.units.unit_records`, ``kind == "row"``) of a passage
    text with its line breaks; only the Markdown table lines are read (``()`` at once without a ``|``)."""
    if "|" not in text:
        return ()
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    tables = "\n\n".join("\n".join(b) for b in blocks if b)
    return tuple(u for u in unit_records(tables) if u.kind == "row") if tables else ()


def row_holds_quantity(rows: tuple[Unit, ...] | list[Unit], value: float, unit: str) -> bool:
    """Does a row of ``rows`` have a band cell holding ``value`` in ``unit`` (:func:`same_unit`), the unit
    written in the cell or else the one its column's header gives? "70 mL/min" is held by the "50-90"
    cell of a "CrCl (mL/min)" column, and by a "50-90 mL/min" cell of a "Renal function" column."""
    return any(band.holds(value) and same_unit(unit, band.unit or header_unit(header))
               for row in rows for _, header, band in row_bands(row))


#: a band a heading gives a named thing, with the word before that one: "NEWS2 Score 5–6 — Urgent Response",
#: "Score ≥ 7", "Step 2", "Age 65-74" (names and stop words as the question's values read them)
_HEADING_BAND = re.compile(r"(?:\b(" + VALUE_NAME + r")\s+)?\b(" + VALUE_NAME + r")" + ION_CHARGE + r"(?:\s+of)?\s+"
                           r"((?:<=|>=|<|>|≤|≥)\s*" + NUMBER + "|" + NUMBER + "(?:" + RANGE_JOIN + NUMBER + r")?)"
                           r"(?!\w|\.\d)", re.IGNORECASE)


#: words after a single number that make it a bound: "8 years and older", "65 or over", "2 or more", "18 and under"
#: (group 1: upward, group 2: downward)
_OPEN_END = re.compile(r"\s*(?:[a-z]+\s+)?(?:and|or)\s+"
                       r"(?:(older|over|above|more|greater)|(younger|under|below|less|fewer))\b", re.IGNORECASE)


def heading_bands(context: str) -> list[tuple[str, Band]]:
    """``(word, band)`` for each band a heading or label gives a named thing, the word lower case:
    "NEWS2 Score 5–6 — Urgent Response" -> ``[("score", 5..6), ("news2", 5..6)]`` (the word before the name
    names it too: "NEWS2 of 7" asks about it), "Score of 3 in Any Single Parameter" -> ``[("score", 3..3)]``
    (a single number is a band of one value), "Step 2" -> ``[("step", 2..2)]``."""
    text = fold_dashes(context)
    out = []
    for m in _HEADING_BAND.finditer(text):
        before, word = (m.group(1) or "").lower(), m.group(2).lower()
        if word in VALUE_STOP:  # "Score of 3": the name is the word before "of"
            before, word = "", before
        if not word or word in VALUE_STOP:
            continue
        value = m.group(3)
        band = read_band(value)
        if band is None:
            x = float(value)
            # "age 8 years and older" bounds it: [8, inf); "65 or younger": (-inf, 65]; else a band of one value
            after = _OPEN_END.match(text, m.end())
            band = (Band(x, x, text=value) if after is None
                    else Band(x, math.inf, text=value) if after.group(1)
                    else Band(-math.inf, x, text=value))
        out.append((word, band))
        if before and before not in VALUE_STOP:
            out.append((before, band))
    return out


def heading_fit(context: str, values: Sequence[tuple[str, float]]) -> bool | None:
    """Does a heading or label (``context``) give a band of something the question gives a value of (``values``:
    ``(word, value)`` pairs, :attr:`clinqa.question.asks.AsksRead.values`, :func:`clinqa.question.asks.named_values`;
    :func:`heading_bands`, matched by the word before the number)?
    ``True`` when a band holds the question's value, ``False`` when bands of it are given and none holds it
    ("NEWS2 Score 0" and "NEWS2 Score ≥ 7" for "NEWS2 score of 5"; "Step 5" for "asthma step 1"), ``None`` when
    the heading names no such band; of several things given a value (:func:`band_fit`), each must be held. The
    same band mechanism as the table rows above, read from section headings."""
    return band_fit(heading_bands(context), values) if values else None


def band_fit(bands: Sequence[tuple[str, Band]], values: Sequence[tuple[str, float]]) -> bool | None:
    """:func:`heading_fit` of a heading already read (``bands``: its :func:`heading_bands`, as a passage's reading
    holds them, :attr:`clinqa.evidence.reading.PassageReading.heading_bands`): ``False`` when, for some word of
    ``values``, bands of it are given and none holds its value; else ``True`` when a band of a word of ``values``
    holds it; ``None`` when no band of any is given. The bands of one thing are alternatives ("Score 0-4 / 5-6"),
    those of several things are all said of the line: "Group B (Age < 80): NIHSS ≥ 10 ..." is no line for an
    84-year-old with NIHSS 14, though its NIHSS band holds 14 (it was, when one holding band sufficed)."""
    verdict: bool | None = None
    for word, value in values:
        of_word = [band for hword, band in bands if hword == word]
        if not of_word:
            continue
        if not any(band.holds(value) for band in of_word):
            return False  # a band of this thing is given and excludes the value: "Group B (Age < 80)" for age 84
        verdict = True
    return verdict


def _norm_dash(text: str) -> str:
    return fold_dashes(text.lower())


#: a band written in a unit's text with no unit of measure after it (:data:`clinqa.text.quantities.UNITS`;
#: "High risk 5-7", "(0-2)", "≥ 7 points", "ABCD2 ≥ 3 should be"): a score band
_TEXT_BAND = re.compile(r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s*(?:-|–|—|to)\s*(\d+(?:\.\d+)?)"
                        r"|(<=|>=|≤|≥|<|>)\s*(\d+(?:\.\d+)?))(?!\.?\d)"
                        r"(?!\s*(?:%|(?:" + unit_pattern(tuple(UNITS)) + r")(?![\w/])))", re.IGNORECASE)


def text_bands(text: str) -> list[tuple[float, float, bool, bool]]:
    """``(low, high, low included, high included)`` of each score band written in ``text`` (:data:`_TEXT_BAND`):
    "High risk 5-7" -> ``[(5, 7, True, True)]``, "score ≥ 7" -> ``[(7, inf, True, True)]``, "> 2" ->
    ``[(2, inf, False, True)]``; "5-10 mg" and "90%" give none."""
    out = []
    for m in _TEXT_BAND.finditer(text):
        if m.group(1) is not None:
            out.append((float(m.group(1)), float(m.group(2)), True, True))
        else:
            op, x = m.group(3), float(m.group(4))
            if op in ("<", "<=", "≤"):
                out.append((-math.inf, x, True, op != "<"))
            else:
                out.append((x, math.inf, op != ">", True))
    return out


def _value_bands(u: Unit, values: Sequence[tuple[str, float]]) -> list[bool]:
    """For each band the unit gives of a value the question gives, whether it holds that value: a table row's
    cells that are bands in a column whose header names the value ("Score" | "5-7" for "score 5"; any column,
    not only the first: a row keyed by its risk group; a single number only as the first cell, "RCRI Score" |
    "2 risk factors"), or that name the value's thing before its band, a range or a bound, past the first column
    ("Low risk" | "FIB-4 < 1.3" for "FIB-4 3.1": :func:`heading_bands`), a list item's score bands written in its text
    (:func:`text_bands`: "High risk 5-7"). Sentences give none."""
    if u.kind == "row":
        out = []
        for j, (header, cell) in enumerate(u.cells):
            band = read_band(cell)
            words = set(words_of(_norm_dash(header)))
            single = _SINGLE.match(_norm_dash(cell)) if band is None and j == 0 else None
            if single is not None:  # "2 risk factors" keying the row in the "RCRI Score" column: a band of one value
                x = float(single.group(1))
                band = Band(x, x, text=single.group(1))
            if band is not None:
                out += [band.holds(v) for w, v in values if w in words]
            elif j > 0:  # a cell that names its band's thing first: "FIB-4 < 1.3" in a "Result" column; a range
                # or a bound, not a lone number ("resolves within 48 hours" is no band of "within")
                out += [b.holds(v) for h, b in heading_bands(cell) if b.low < b.high for w, v in values if h == w]
        return out
    if u.kind == "sentence":
        return []
    return [(lo < v or (lc and lo == v)) and (v < hi or (hc and v == hi))
            for lo, hi, lc, hc in text_bands(u.text) for _, v in values]


_SINGLE = re.compile(r"^\s*(\d+(?:\.\d+)?)(?![\d.,/%-])(?!\s*(?:-|to)\s*\d)")


def _excludes(u: Unit, values: Sequence[tuple[str, float]]) -> bool:
    """Does the row give bands of a value the question gives (``values``, :attr:`AsksRead.values`;
    :func:`_value_bands`), none holding it (the "Low Risk | 0-2" row for "TIMI score 5")?"""
    bands = _value_bands(u, values)
    return bool(bands) and not any(bands)


def value_holders(units: Sequence[Unit], values: Sequence[tuple[str, float]]) -> list[bool]:
    """For each of ``units``: is it the row or item of its table or list that gives the band holding a value the
    question gives (``values``: :attr:`AsksRead.values`, :func:`clinqa.question.asks.named_values`), among siblings
    that give other bands? "High Risk | 5-7" among the "0-2" and "3-4" rows for "TIMI score 5"; not "Total
    Possible Score: 0 to 7 points", which has no sibling band."""
    if not values:
        return [False] * len(units)
    bands = [_value_bands(u, values) for u in units]
    groups: dict[int, list[int]] = {}
    for i, u in enumerate(units):
        if bands[i]:
            groups.setdefault(u.group, []).append(i)
    out = [False] * len(units)
    for members in groups.values():
        if any(not all(bands[i]) for i in members):  # another band of the same thing is given beside it
            for i in members:
                out[i] = any(bands[i])
    return out
