"""Extractive grounded answers: quote the units of the top chunks that answer the question, each
group followed by its citation ``[n]``. No language model; nothing is generated, so every word
of the answer is in a cited passage.

Units (:func:`unit_records`) are sentences of paragraphs, items of lists (with their nested
items) and rows of tables (a row is quoted with its column headers:
``"Medication: Statins; Already Taking: Continue (Class I, LOE: B)"``). A short lead-in ending in
":" ("Women:") labels the items and rows that follow it; a longer one ("A patient meets the
qSOFA criteria if they exhibit at least two of the following three clinical parameters:") is
kept as the *intro* of its list and quoted with it.

Selection (:func:`extract_answer`), in order:

1. Units that cannot answer anything are dropped: boilerplate and tool advertisements
   (:data:`~clinqa.evidence.passages.BOILERPLATE`), text addressed to an AI model, and units that share no content word
   (by Snowball stem) with the question, even through their label or section heading (unless no
   unit of any passage does).
2. The passages come chosen (:func:`clinqa.evidence.passages.passages_to_quote`, by the evidence layer): those whose
   section path states the opposite of a qualifier of the question were passed over for the next retrieved
   ones. A unit whose section heading or label states it
   ("with comorbidities" for "without comorbidities", "second-line" for "first-line", "inpatient"
   for "outpatient", adults for children; :data:`OPPOSITES`) is dropped. Then passages about a
   subtype of a condition the question names alone ("Resistant Hypertension" for "... in
   hypertension?", :func:`~clinqa.evidence.passages.names_subtype`) were passed over the same way
   (:func:`~clinqa.evidence.passages.fitting_hits`; the
   pipeline searches ``answer.qualifier_depth`` hits deep when the question has a qualifier).
3. Each remaining unit scores ``unit_weight * cos(question, unit) + (1 - unit_weight) *
   cos(question, chunk) + lexical_weight * overlap``, where ``overlap`` is the share of the
   question's content stems found in the unit, its label and its section heading; retrieval order
   breaks ties. The best ``max_sentences`` scoring at least ``min_score`` are kept (the best one
   always).
4. When the question asks for criteria, components, steps or a list (:data:`LIST_QUESTION`), list
   items and table rows gain ``list_bonus`` times the share of the question's content stems found in
   their intro, label and section path, and when a kept unit is a list item or table row, the whole list
   (or table) is quoted, with its intro, up to ``max_list_items``. When it asks for a number (a
   dose, threshold, target or duration: :data:`NUMBER_QUESTION`), units holding a digit gain
   ``number_bonus`` (a row's "#" index column does not count; for a dose question only an amount
   with its unit, :data:`DOSE_QUESTION`). "How many ..." asks for the count,
   not the list (:data:`COUNT_QUESTION`). A unit whose section heading or label states a qualifier of
   the question ("Possible Sepsis Without Shock" for "w/o shock") gains ``qualifier_bonus``.
5. Table rows: when the question names a row, by the head of its first cell (before any parenthesis
   or dash: "IV" of "IV (umbilical vein) -- Preferred") together with one column (by its header's words
   and numbers), or by a number inside one of its bands in a column it names (:func:`band_cell`: "INR 5"
   for the "4.0-6.0" row of "Baseline INR", "CrCl 70 mL/min" for the "50-90" row of "CrCl (mL/min)";
   :mod:`clinqa.evidence.bands`), that row gains ``cell_bonus`` and the other rows of its table are not
   quoted. It is quoted whole, what named it and the column asked for first, every other column with its
   header after ("CrCl (mL/min) 15-29, Maintenance dose: 10 mg/kg; Interval: every 48 hours"): a dose
   without its interval or route misleads.

6. (Issue 50.) Every score above is a row of :data:`SCORE_TERMS` (name, :class:`clinqa.settings.UnitScoring`
   setting, reason, one value per unit), looped over by :func:`unit_scores`; three more rows: ``kind`` (a
   "what to give" question favours treatment lines over definitions, criteria and risk factors), ``value``
   (the row or item that gives the band holding the question's value, :func:`~clinqa.evidence.bands.value_holders`)
   and ``item``
   (the asked drug's item of a list, not its neighbours'). A unit of another passage far below the best
   (``drop_below_best``) and without the number asked for is cut, as is another drug's item; a passage
   quoted from under a qualifier heading the question did not name is followed by it (:func:`under_note`).
   Before scoring, :func:`~clinqa.evidence.passages.sibling_sections` swaps a passage under a qualifier heading for a
   sibling section
   that fits the question's qualifiers better.

Units are embedded by :func:`embedding_text`: list items and table rows with the chunk's last
section heading before them, since "Regimen: 1.2 mg orally immediately" says nothing of colchicine
on its own. Two-column tables whose first header is generic ("Parameter", "#") read as
``key: value`` (:data:`KEY_VALUE_HEADERS`).

The text shows each cited chunk's units in passage order, an intro once before its items, list
items joined by "; " (or by a space after a trailing "OR"/"AND"), then ``[n]``; section headings
are in the citation, not in the text, except before a sentence that has no subject of its own
("Recommended to reduce morbidity ..." under "Pillar 3: Mineralocorticoid Receptor Antagonists";
:data:`SUBJECTLESS`), where the chunk's last heading is what the sentence is about and is shown
before it (when it opens that chunk's quote). Past ``max_words`` words the answer stops with "(more in [n])".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from clinqa.answer.types import Citation, citation_for
from clinqa.chunking.units import KEY_VALUE_HEADERS, Unit, embedding_text, unit_heading
from clinqa.embedding.base import Encoder
from clinqa.evidence.bands import (
    _excludes,
    _norm_dash,
    header_unit,
    heading_bands,
    heading_fit,
    read_band,
    same_unit,
    value_holders,
)
from clinqa.evidence.coverage import STOPWORDS
from clinqa.evidence.passages import (
    BOILERPLATE,
    _contradicts,
    _states,
    filed_under,
    qualifier_words,
)
from clinqa.evidence.reading import PassageReadings
from clinqa.question.asks import (
    AsksRead,
    content_stems,
    read_asks,
)
from clinqa.question.terms import is_scaffold
from clinqa.retrieval.hybrid import Retrieved
from clinqa.retrieval.vocabulary import words_of
from clinqa.text.injection import is_suspicious
from clinqa.text.negation import negated_words
from clinqa.text.quantities import (
    DOSE_AMOUNT,
    Quantity,
    bound_cutoff,
    bound_op,
    extract_quantities,
    within_bound,
)
from clinqa.text.stems import snowball_stem as stem

if TYPE_CHECKING:
    from clinqa.settings import UnitScoring

#: a sentence or item that starts with its predicate: its subject is the section heading it stands under
#: ("Recommended to reduce hospitalization ..." under "SGLT2 Inhibitors"; "Can be initiated regardless of
#: diabetes status."; "For patients with symptomatic HFrEF who ..." under "Ivabradine")
SUBJECTLESS = re.compile(
    r"^(?:not\s+|also\s+|strongly\s+|conditionally\s+|generally\s+)?"
    r"(?:(?:recommended|suggested|indicated|contraindicated|preferred|reasonable|considered|approved|"
    r"useful|beneficial|effective|safe|appropriate|associated|required|reserved)\b"
    r"|(?:may|can|should|must|could|might)\s+(?:not\s+|also\s+)?be\b"
    r"|(?:for|in)\s+(?:adult\s+|selected\s+|all\s+)?patients\b(?!.*,))",  # an indication with no main clause
    re.IGNORECASE,
)


_NUMBER = re.compile(r"\d")
#: a lead-in that makes a list one condition ("... meet ALL of the following criteria:", "at least two of the
#: following"): an item alone misstates it, so the list is quoted whole
ALL_OF = re.compile(r"\b(?:all|each|both|every one|at least (?:one|two|three|four|\d+)|any (?:one|two|\d+)) of the "
                    r"following\b|\bthe following (?:\w+ )?criteria\b|\bthese (?:two|three|four|five|\d+) criteria\b",
                    re.IGNORECASE)
#: a sentence that refers back to the one before it: alone it says nothing
#: (a pronoun and a copula: "These findings suggest ..." states its claim, "This is the highest-rated ..." does not)
ANAPHOR = re.compile(r"^(?:This|These|That|Those|It|They)\s+(?:is|are|was|were|remains?)\b")
_DATE = re.compile(r"(?<![\d.])(?:19|20)\d\d(?![\d.,]*\d)"
                   r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d", re.IGNORECASE)

#: a connective that ends a list item ("Amoxicillin 1 g orally three times daily; OR")
_TRAILING = re.compile(r"(?:[;,]\s*)?\b(?:or|and|plus)\s*:?\s*$", re.IGNORECASE)


#: Snowball stems of the content words of a text (:func:`clinqa.question.asks.content_stems`)
_stems = content_stems






def _overlap(q_stems: set[str], unit_stems: list[set[str]]) -> np.ndarray:
    """``(n_units,)`` IDF-weighted share of the question's stems in each unit (with its label, intro and
    section path): ``sum(idf(t) for t in q & u) / sum(idf(t) for t in q)``, ``idf(t) = ln(1 + N / (1 + df))``
    over these ``N`` candidate units. A stem every candidate shares (the topic: "sacubitril") weighs
    little; the one that tells them apart (the aspect asked about: "contraindications") weighs most.
    (Sparck Jones 1972, inverse document frequency, here over the candidate units only.)"""
    n = len(unit_stems)
    idf = {t: float(np.log1p(n / (1 + sum(t in u for u in unit_stems)))) for t in q_stems}
    total = sum(idf.values()) or 1.0
    return np.array([sum(idf[t] for t in q_stems & u) / total for u in unit_stems], dtype=np.float32)




def _headers(u: Unit) -> tuple[str, ...]:
    """The column headers of a row (its table's identity, across the chunks the table is split over)."""
    return tuple(h for h, _ in u.cells)


def _has_number(u: Unit, dose: bool = False) -> bool:
    """Does the unit state a number (a row's index column "#" does not count)? With ``dose``, an amount
    with its unit ("0.9 mg/kg", "500 mg", "10 mL"): a score band "NIHSS 5-15" is not a dose."""
    pattern = DOSE_AMOUNT if dose else _NUMBER
    if u.kind == "row" and u.cells and u.cells[0][0].lower() in ("#", "no", "no."):
        return any(pattern.search(c) for _, c in u.cells[1:])
    return bool(pattern.search(u.text))


#: a line keyed by a band with its unit: "**8–12 kPa:** Indeterminate; ...", "≥ 190 mg/dL: high-intensity statin"
_BAND_KEY = re.compile(r"^[*_\s]*([^:*_]{1,30}?)[*_\s]*:")


def _keyed_out(text: str, asked: AsksRead) -> bool:
    """Is the line keyed by a band with a unit (:data:`_BAND_KEY`, :func:`clinqa.evidence.bands.read_band`: "< 8 kPa:",
    "8-12 kPa:") that holds none of the question's quantities in that unit (``asked.folded_quantities``: "FibroScan
    10 kPa")? The band mechanism of table rows, for a list whose items are keyed by bands; False when the key is no
    band, has no unit, or the question gives no quantity in its unit."""
    m = _BAND_KEY.match(text) if asked.folded_quantities else None
    band = read_band(m.group(1)) if m is not None else None
    if band is None or not band.unit:
        return False
    values = [float(n) for n, unit in asked.folded_quantities if same_unit(unit, band.unit)]
    return bool(values) and not any(band.holds(x) for x in values)


def _quantity_holds(q: Quantity, value: float) -> bool:
    """Does the band a stated quantity writes ("70-99%", "< 50%", ">= 2 g") hold ``value``? A bound is read by the
    one bound grammar (:func:`clinqa.text.quantities.bound_op`, :func:`~clinqa.text.quantities.within_bound`); a
    qualifier that is no bound word ("within", "maximum") includes its bound."""
    if q.qualifier not in ("upper", "lower"):
        return q.low <= value <= q.high
    try:
        op = bound_op(q.cue)
    except ValueError:
        op = "≤" if q.qualifier == "upper" else "≥"
    return within_bound(value, op, bound_cutoff(op, q.low, q.high))


def _bands_hold(bands: Sequence[Quantity], value: float) -> bool:
    """Do the bands of one measure that a unit writes (:func:`_quantity_holds` each) hold ``value``: both bounds of a
    band written as one lower and one upper bound ("30% ≤ FEV1 < 50%"), else any of them ("70-99%", "< 50% or
    > 80%")?"""
    lows = [q for q in bands if q.qualifier == "lower"]
    highs = [q for q in bands if q.qualifier == "upper"]
    if len(lows) == 1 and len(highs) == 1 and len(bands) == 2:
        return _quantity_holds(lows[0], value) and _quantity_holds(highs[0], value)
    return any(_quantity_holds(q, value) for q in bands)


def unit_banded_out(units: Sequence[tuple[int, Unit]], asked: AsksRead) -> set[int]:
    """The ``id`` of each list item or table row whose bands in the units of the quantities the question gives
    ("stenosis 70-99%" for "80% stenosis"; "30% ≤ FEV1 < 50%" for "FEV1 42%":
    :func:`clinqa.text.quantities.extract_quantities`, a range or a bound) do not fit them, among sibling items or
    rows (same passage and group) of which another fits: the item or row for another band of the same measure,
    wherever in it the band is written. A row fits when its bands hold every such quantity ("Urine output < 0.5
    mL/kg/h for 6-12 hours" does not fit "0.4 mL/kg/h for 14 h", the row of "< 0.5 mL/kg/h for >= 12 hours" does); an
    item, when they hold one of them (its alternatives: "if body weight < 60 kg OR age >= 75 years")."""
    if not asked.folded_quantities:
        return set()
    fits: dict[int, bool] = {}
    groups: dict[tuple[int, int], list[int]] = {}
    for hi, u in units:
        if u.kind not in ("item", "row") or u.flow:  # a flowchart's steps are judged by their branch
            continue
        # a band after "until" or "unless" says when an act ends, not whom the item is for
        bands = [q for q in extract_quantities(_UNTIL.split(u.text, maxsplit=1)[0])
                 if q.unit and (q.qualifier in ("upper", "lower") or q.low < q.high)]
        held = [_bands_hold(same, float(n)) for n, unit in asked.folded_quantities
                if (same := [q for q in bands if same_unit(unit, q.unit)])]
        if held:  # a row's bands of several measures are its columns, all for the one case it states; an item
            # states its alternatives in one line ("< 60 kg OR >= 75 years"), and one held suffices
            fits[id(u)] = all(held) if u.kind == "row" else any(held)
            groups.setdefault((hi, u.group), []).append(id(u))
    return {i for members in groups.values() if len(members) >= 2 and any(fits[j] for j in members)
            for i in members if not fits[i]}


def _computes(text: str) -> bool:
    """Does ``text`` hold a worked computation: two numbers multiplied ("x", "×" or "*" between them), then "=" and a
    number ("4 x 70 x 30 = 8,400 mL"; not the formula "4 mL x body weight (kg) x % TBSA")? A scan of its words."""
    ws = text.replace("×", " x ").replace("*", " x ").replace("=", " = ").split()
    for i in range(1, len(ws) - 1):
        if ws[i] == "x" and ws[i - 1][-1:].isdigit() and ws[i + 1][:1].isdigit():
            rest = ws[i + 1:]
            return any(w == "=" and j + 1 < len(rest) and rest[j + 1][:1].isdigit() for j, w in enumerate(rest))
    return False


def another_case(units: Sequence[tuple[int, Unit]], asked: AsksRead,
                 every: Sequence[tuple[int, Unit]] = ()) -> set[int]:
    """The ``id`` of each unit of a worked example computed for another patient: a list (one passage's group, read
    with its intro, its items' lead-in labels and the sentence before it that leads into it, one ending with ":",
    from ``every`` unit of the passages) or a sentence holding a computation (:func:`_computes`) that states a
    quantity in a unit in which the question gives one (``asked.folded_quantities``), none of them equal to the
    question's ("A 70 kg patient with 30% TBSA burn:" / "Total 24h volume = 4 x 70 x 30 = 8,400 mL" for "40% TBSA,
    70 kg": its 8,400 mL is another patient's). An example computed from the question's own numbers is kept ("70 kg,
    30% burns"). Of ``units`` (``(hit index, unit)``)."""
    if not asked.folded_quantities:
        return set()
    groups: dict[tuple[int, int], list[Unit]] = {}
    for hi, u in units:
        groups.setdefault((hi, u.group) if u.kind != "sentence" else (hi, -1 - u.order), []).append(u)
    out: set[int] = set()
    at: dict[tuple[int, int], Unit] | None = None  # each unit by its place, read for the first computation only
    for (hi, _), members in groups.items():
        if not any(_computes(u.text) for u in members):
            continue
        if at is None:
            at = {(h, u.order): u for h, u in every}
        lead = at.get((hi, members[0].order - 1))
        led = lead.text if lead is not None and lead.kind == "sentence" and lead.text.rstrip().endswith(":") else ""
        text = " ".join([led, members[0].intro, *(f"{u.label} {u.text}" for u in members)])
        stated = [q for q in extract_quantities(text) if q.unit and q.low == q.high and not q.qualifier]
        for n, unit in asked.folded_quantities:
            same = [q.low for q in stated if same_unit(unit, q.unit)]
            if same and float(n) not in same:
                out |= {id(u) for u in members}
                break
    return out


def _banded_out(line: str, asked: AsksRead) -> bool:
    """Does a line's lead state a band that excludes a value the question gives (:func:`heading_fit` of its first
    words, up to an "until"/"unless"), or is it keyed by a band with a unit that holds none of the question's
    quantities in that unit (:func:`_keyed_out`)?"""
    return heading_fit(_lead(_UNTIL.split(line, maxsplit=1)[0]), asked.values) is False or _keyed_out(line, asked)


def _nested_fit(u: Unit, asked: AsksRead) -> str | None:
    """A list item whose nested items are keyed by bands ("Dosing Strategy:" / "eGFR ≥ 60: Start Finerenone 20 mg
    daily." / "eGFR 25-59: Start Finerenone 10 mg daily."), as quoted for the question's values: its own line and
    the nested lines whose band does not exclude them (:func:`_banded_out`; "eGFR 40" keeps the 25-59 line). None
    (the item as written) when no nested line is left out, or every one would be, or it has fewer than two."""
    if len(u.lines) < 3 or not (asked.values or asked.folded_quantities):
        return None
    nested = u.lines[1:]
    kept = [ln for ln in nested if not _banded_out(ln, asked)]
    if not kept or len(kept) == len(nested):
        return None
    return " ".join([u.lines[0], *kept])


#: a band after "until" or "unless" says when an act ends or is set aside, not whom the line is for ("DELAY insulin
#: until K+ > 3.5" is the line for a K+ below 3.5)
_UNTIL = re.compile(r"\b(?:until|unless|till)\b", re.IGNORECASE)


def _lead(text: str, n: int = 8) -> str:
    """The first ``n`` words of ``text``: what a line is keyed by."""
    return " ".join(text.split()[:n])




def band_cell(unit: Unit, asked: AsksRead) -> bool | None:
    """Is a table row, keyed by a band in its first cell, the row of a value the question gives? ``True``
    when the band holds it, ``False`` when the row's band is of that thing and does not hold it, ``None`` when
    the row is keyed by no band of anything the question gives a value of. The question gives the value of
    the first column by a word of its header followed by the number (:func:`clinqa.question.asks.named_values`:
    "INR 5" for "Baseline INR", whose row "4.0-6.0" holds 5; also "> 6.0", "≥ 7"), or by the unit typed after
    the number ("70 mL/min" for "CrCl (mL/min)"; a "50-90 mL/min" cell gives its unit itself). A first cell
    that names its band in words is read as a heading ("CKD stage ≥ 3" holds "ckd stage 4":
    :func:`clinqa.evidence.bands.heading_fit`). The question is read dash-normalised (``asked.folded_values``,
    ``asked.folded_quantities``); a range holds its ends ("30-49", "50-90"). Only the first column keys a row: a
    dose cell "≤ 100 mg/day" is not a band of the question's "stage 4"."""
    if unit.kind != "row" or len(unit.cells) < 2:
        return None
    header, cell = unit.cells[0]
    band = read_band(cell)
    if band is None:
        return heading_fit(cell, asked.folded_values)
    header_words = set(words_of(_norm_dash(header)))
    values = [v for w, v in asked.folded_values if w in header_words]
    col_unit = band.unit or header_unit(header)
    if col_unit:
        values += [float(n) for n, u in asked.folded_quantities if same_unit(u.lower(), col_unit)]
    if not values:
        return None
    return any(band.holds(v) for v in values)


def _cell_answer(unit: Unit, asked: AsksRead, aliases: str = "") -> str | None:
    """The row as quoted when the question (read as ``asked``) names it, else ``None``: named by its label
    ("Tenecteplase") together with exactly one of its other columns (header words and numbers, dashes normalised),
    or by a number inside one of its bands (:func:`band_cell`: "CrCl 20" names the "15-29" row). The quote leads
    with what named the row and the column asked for, then keeps every other column with its header (a dose is never
    quoted without its interval): ``"Baseline INR 4.0-6.0, 4F-PCC Dose: 35 IU/kg; Maximum Dose: 3,500 IU"``; but not
    the columns that are other bands of what the chosen column is a band of ("eGFR ≥60" beside "eGFR 15-29").
    ``aliases``: other names of what the question names (the synonym table's equivalents: "TNK" names the row
    "Tenecteplase"), which may name the row but not the column."""
    if unit.kind != "row" or len(unit.cells) < 2:
        return None
    q_words = asked.folded_words
    row_label = unit.cells[0][1]
    # the label's head names the row: "IV" of "IV (umbilical vein) -- Preferred"
    head = re.split(r"\s*(?:\(|--|—|–|,|;)", _norm_dash(row_label), maxsplit=1)[0] if row_label else ""
    head_words = [w for w in words_of(head) if w not in STOPWORDS]
    name_words = q_words | set(words_of(_norm_dash(aliases)))
    named = len(unit.cells) >= 3 and bool(head_words) and all(w in name_words for w in head_words)
    band = None if named else band_cell(unit, asked)
    if not named and not band:
        return None
    best, best_score, tie = None, 0.0, False
    for j, (header, _) in enumerate(unit.cells[1:], start=1):
        hw = [w for w in words_of(_norm_dash(header)) if w not in STOPWORDS]
        if not hw:
            continue
        score = sum(1 for w in hw if w in q_words) / len(hw)
        nums = re.findall(r"\d+", _norm_dash(header))
        if nums and "-".join(nums) in asked.folded_numbers:
            score += 1.0
        if score > best_score:
            best, best_score, tie = j, score, False
        elif score == best_score and score > 0:
            tie = True
    if not band and (best is None or tie or best_score < 1.0):
        return None  # a row named by its label alone answers only with the one column asked for
    first = [] if best is None or tie else [best]
    # columns that are other bands of what the chosen column is a band of ("eGFR ≥60", "eGFR 30-59" beside
    # "eGFR 15-29") are the other answers, not the row's companions
    banded = {w for w, _ in heading_bands(unit.cells[best][0])} if first else set()
    rest = [j for j in range(1, len(unit.cells)) if j not in first and unit.cells[j][1]
            and not banded & {w for w, _ in heading_bands(unit.cells[j][0])}]
    shown = [f"{unit.cells[j][0]}: {unit.cells[j][1]}" if unit.cells[j][0] else unit.cells[j][1]
             for j in first + rest]
    header, cell = unit.cells[0]
    label = cell if named or not header or not read_band(cell) else f"{header} {cell}"  # "Baseline INR 4.0-6.0"
    return f"{label}, " + "; ".join(shown) if shown else label


@dataclass
class Extract:
    """The extractive answer text and the citations it uses (numbered from 1). ``quotes`` maps
    each cited chunk id to its quoted units as they stand in the chunk (labels not prefixed)."""

    text: str
    citations: list[Citation]
    quotes: dict[str, list[str]] = field(default_factory=dict)


class Candidates:
    """The units an extractive answer may quote (:attr:`keep`, ``(hit index, unit)`` in passage order) and what
    the score terms (:data:`SCORE_TERMS`) read of them, each read once: a unit's content stems with its intro and
    section path, the band its headings are filed under, the table cell the question names.

    ``units``: every unit of ``hits`` (at most ``answer.scoring.max_units``), in retrieval order. :attr:`keep`
    is those that can answer: not boilerplate nor text addressed to an AI model, sharing a content stem with
    the question (through their label or section path too; all usable units when none does), not filed under
    or keyed by a band that excludes a value the question gives, not headed by the opposite of a qualifier of
    the question; and every step of a flowchart one of whose steps is kept."""

    def __init__(self, hits: list[Retrieved], profile: AsksRead, units: list[tuple[int, Unit]]) -> None:
        self.hits, self.profile, self.units = hits, profile, units
        self.q_stems = profile.stems
        self.quals = list(profile.qualifiers)
        self.valued = bool(profile.values)
        self._stem_cache: dict[tuple[int, int], set[str]] = {}
        self._fit_cache: dict[tuple[int, str], bool | None] = {}
        #: ``id`` of each unit :meth:`usable` found led by a band that excludes the question's value
        self.led_out: set[int] = set()
        keep = [(hi, u) for hi, u in units if self.usable(hi, u)]
        flows = {(hi, u.group) for hi, u in keep if u.flow}
        if flows:  # every step of a flowchart one of whose steps is kept, for quoting it whole
            kept = {id(u) for _, u in keep}
            keep = [(hi, u) for hi, u in units if id(u) in kept
                    or (u.flow and (hi, u.group) in flows and self.usable(hi, u, need_overlap=False))]
        if not keep:  # nothing shares a word with the question: still never boilerplate or the opposite qualifier
            keep = [(hi, u) for hi, u in units if self.usable(hi, u, need_overlap=False)]
        elif profile.asks_dose and not profile.asks_count and not any(_has_number(u, dose=True) for _, u in keep):
            # a dose asked of a patient's note whose sentences sharing a word with the question state none
            # ("Continue anticoagulation." for "what dose (anticoagulant)?"): that note's sentences (any section)
            # stating an amount may answer too ("Apixaban 5 mg twice daily continued."). Not a guideline's: there a
            # dose question whose words no dosed line shares is refused (``decision/quote.py``: NO_DOSE)
            kept = {id(u) for _, u in keep}
            notes = {hits[hi].chunk.doc_id for hi, _ in keep if hits[hi].chunk.note_date is not None}
            keep = [(hi, u) for hi, u in units if id(u) in kept or (
                hits[hi].chunk.doc_id in notes and _has_number(u, dose=True) and self.usable(hi, u, False))]
        if flows and self.valued:
            off = self.excluded_branches()
            keep = [(hi, u) for hi, u in keep if id(u) not in off]
        if (out := unit_banded_out(keep, profile)) and len(out) < len(keep):
            keep = [(hi, u) for hi, u in keep if id(u) not in out]
        if (out := another_case(keep, profile, units)) and len(out) < len(keep):  # a worked example of others' numbers
            keep = [(hi, u) for hi, u in keep if id(u) not in out]
        self.keep = keep
        asked = bool(profile.question)
        aliases = " ".join(profile.aliases) if asked else ""
        #: index into :attr:`keep` -> the row as quoted when the question names it (:func:`_cell_answer`)
        self.cell_text: dict[int, str | None] = (
            {i: _cell_answer(u, profile, aliases) for i, (_, u) in enumerate(keep)} if asked else {})
        #: index into :attr:`keep` -> a list item quoted without its nested lines of other bands (:func:`_nested_fit`)
        self.nested_text: dict[int, str] = {i: t for i, (_, u) in enumerate(keep)
                                            if asked and (t := _nested_fit(u, profile)) is not None}
        self.base = np.zeros(len(keep), dtype=np.float32)

    def excluded_branches(self) -> set[int]:
        """The ``id`` of each flowchart step (:attr:`Unit.flow`) on the branch of a step whose band excludes a
        value the question gives: the steps after it, in its flowchart, that are indented deeper
        (:attr:`Unit.depth`), up to the next step as shallow as it. The step itself is never usable
        (:meth:`usable` records it in :attr:`led_out`; every step of a flowchart with a kept step is judged there);
        the steps under it name no band, so without this they would be quoted without the
        condition that says when they apply ("NEWS2 score of 7": the "Score 5-6?" branch's "URGENT response
        within 60 minutes" read as the answer for 7). A step beside it ("Moderate (CrCl 30-50) -> Reduce dose",
        then "Consider naltrexone instead" at the same indentation) is not on its branch."""
        out: set[int] = set()
        off: dict[tuple[int, int], int] = {}  # (hit, flowchart group) -> depth of the excluded step it is under
        for hi, u in self.units:
            if not u.flow:
                continue
            key = (hi, u.group)
            if key in off and u.depth > off[key]:
                out.add(id(u))
                continue
            off.pop(key, None)
            if id(u) in self.led_out:
                off[key] = u.depth
        return out

    def headings(self, hi: int) -> str:
        """The section path of hit ``hi`` below the document title, joined by spaces."""
        return " ".join(self.hits[hi].chunk.section_path)

    def unit_stems(self, hi: int, u: Unit) -> set[str]:
        """The unit's content stems with its intro and section path (read once per unit)."""
        key = (hi, u.order)
        if key not in self._stem_cache:
            self._stem_cache[key] = _stems(f"{u.full} {u.intro} {self.headings(hi)}")
        return self._stem_cache[key]

    def filed_in_band(self, hi: int, u: Unit) -> bool | None:
        """:func:`clinqa.evidence.bands.heading_fit` of the unit's headings and label (read once per label)."""
        key = (hi, u.label)
        if key not in self._fit_cache:
            self._fit_cache[key] = heading_fit(f"{self.headings(hi)} {u.label}", self.profile.values)
        return self._fit_cache[key]

    def usable(self, hi: int, u: Unit, need_overlap: bool = True) -> bool:
        """May the unit answer (see the class docstring)?"""
        if BOILERPLATE.search(u.full) or is_suspicious(u.full):
            return False
        if need_overlap and self.q_stems and not (self.q_stems & self.unit_stems(hi, u)):
            return False
        if self.valued and (self.filed_in_band(hi, u) is False
                            or band_cell(u, self.profile) is False
                            or (u.kind == "row" and _excludes(u, self.profile.values))
                            or (u.kind != "row" and self._led_out(u))):
            # filed under, keyed by or led by a band that excludes the question's value: "NEWS2 Score 0" for a
            # score of 5, the "15-29" row for CrCl 70, "with INR 1.3-1.9, ..." for INR 5 (not "Dabigatran: 150 mg
            # BID. Reduce to 75 mg BID if CrCl 15-30" for CrCl 40: a band late in a line is its exception)
            return False
        return not (self.quals and _contradicts(f"{self.headings(hi)} {u.label}", self.quals))

    def _led_out(self, u: Unit) -> bool:
        """Does the unit's lead (:func:`_lead`) state a band that excludes a value of the question? Recorded in
        :attr:`led_out` (a flowchart step so led takes its branch with it: :meth:`excluded_branches`)."""
        out = _banded_out(u.lines[0] if u.lines else u.text, self.profile)  # nested lines: _nested_fit
        if out:
            self.led_out.add(id(u))
        return out

    def embed(self, question_vector: np.ndarray, encoder: Encoder, unit_weight: float) -> None:
        """Set :attr:`base`, ``(len(keep),)``: ``unit_weight * cos(question, unit) + (1 - unit_weight) *
        cos(question, chunk)``, the chunk's cosine being the dense search's score when the hit has one
        (``scores["dense"]``), else computed; units are embedded by :func:`embedding_text`."""
        hits, keep = self.hits, self.keep
        known = [h.scores.get("dense") for h in hits]
        need = [i for i, s in enumerate(known) if s is None]
        last = [unit_heading(h.chunk.section_path) for h in hits]
        vecs = encoder.encode_passages([embedding_text(u, last[hi]) for hi, u in keep]
                                       + [hits[i].chunk.text for i in need])
        unit_sims = vecs[: len(keep)] @ question_vector
        chunk_sims = np.array([0.0 if s is None else s for s in known], dtype=np.float32)
        for j, i in enumerate(need):
            chunk_sims[i] = vecs[len(keep) + j] @ question_vector
        self.base = unit_weight * unit_sims + (1 - unit_weight) * chunk_sims[[hi for hi, _ in keep]]

    def flags(self, test: Callable[[int, Unit], object]) -> np.ndarray:
        """``(len(keep),)`` float32: 1.0 where ``test(hit index, unit)`` is true, else 0.0."""
        return np.array([1.0 if test(hi, u) else 0.0 for hi, u in self.keep], dtype=np.float32)


@dataclass(frozen=True)
class ScoreTerm:
    """One term of a unit's score (:data:`SCORE_TERMS`): ``score(candidates)`` gives one value per candidate
    unit (``(len(keep),)``, float32; None when the term does not apply to the question), which
    :func:`extract_answer` multiplies by the :class:`clinqa.settings.UnitScoring` field named ``setting`` and
    adds to the base score; ``reason`` says in one line why it counts."""

    name: str
    setting: str
    reason: str
    score: Callable[[Candidates], np.ndarray | None]


def _lexical_term(c: Candidates) -> np.ndarray | None:
    """:func:`_overlap` of the question's stems with each unit's (intro and section path included)."""
    if not c.q_stems:
        return None
    return _overlap(c.q_stems, [c.unit_stems(hi, u) for hi, u in c.keep])


def _qualifier_term(c: Candidates) -> np.ndarray | None:
    """1 when the unit's section path or label states a qualifier of the question (:func:`_states`)."""
    return c.flags(lambda hi, u: _states(f"{c.headings(hi)} {u.label}", c.quals)) if c.quals else None


def _band_term(c: Candidates) -> np.ndarray | None:
    """1 when the unit is filed under the band that holds a value the question gives."""
    return c.flags(c.filed_in_band) if c.valued else None


def _heading_term(c: Candidates) -> np.ndarray | None:
    """1 when the unit's passage's last heading names the kind of answer asked for
    (:func:`~clinqa.evidence.passages.filed_under`)."""
    kinds = c.profile.heading_kinds
    return c.flags(lambda hi, u: filed_under(c.hits[hi].chunk, kinds)) if kinds else None


def _list_term(c: Candidates) -> np.ndarray | None:
    """For a list question, a list item's or row's share of the question's stems in its intro, label and section
    path (0 for a sentence)."""
    if not (c.profile.wants_list and c.q_stems):
        return None
    n = len(c.q_stems)
    return np.array([len(c.q_stems & _stems(f"{u.intro} {u.label} {c.headings(hi)}")) / n
                     if u.kind != "sentence" else 0.0 for hi, u in c.keep], dtype=np.float64)


def _date_term(c: Candidates) -> np.ndarray | None:
    """For a "when was ..." question, 1 when the unit gives a date (:data:`_DATE`)."""
    return c.flags(lambda hi, u: _DATE.search(u.text)) if c.profile.asks_date else None


def _number_term(c: Candidates) -> np.ndarray | None:
    """For a number question, 1 when the unit states a number (a dose question: an amount with its unit)."""
    dose = c.profile.asks_dose
    return c.flags(lambda hi, u: _has_number(u, dose)) if c.profile.asks_number else None


def _cell_term(c: Candidates) -> np.ndarray | None:
    """1 for a table row the question names (:func:`_cell_answer`)."""
    if not any(c.cell_text.values()):
        return None
    return np.array([1.0 if c.cell_text.get(i) else 0.0 for i in range(len(c.keep))], dtype=np.float32)


#: a unit that gives treatment: an amount with its unit, a route, or a verb of giving ("Give prednisolone 40 mg
#: orally", "Start salbutamol by nebuliser", "Recommended: amoxicillin ...")
TREATMENT_UNIT = re.compile(
    r"\b(?:give|given|giving|administer(?:ed)?|start(?:ed)?|initiate[ds]?|begin|prescribe[ds]?|add(?:ed)?|switch|"
    r"escalate|nebuli[sz](?:ed|er)|inhaled|orally|oral|iv|intravenous(?:ly)?|intramuscular(?:ly)?|im|"
    r"subcutaneous(?:ly)?|po|bid|tid|qid|daily|dose[ds]?|dosing|regimens?|therapy|treat(?:ed|ment)?|"
    r"first-line|second-line|preferred|recommended)\b", re.IGNORECASE)
#: a heading, label or sentence that is not a treatment line: a definition, criteria, risk factors, a diagnosis,
#: discharge or follow-up, background ("Definition", "Risk Factors for Fatal Asthma", "Discharge Criteria")
NOT_TREATMENT = re.compile(
    r"\b(?:definitions?|defined|criteria|criterion|diagnos\w*|risk factors?|discharge|epidemiology|"
    r"pathophysiology|etiology|aetiology|causes|classification|prognosis|symptoms|background|"
    r"overview|introduction|work-?up|follow-?up|screening|scoring|components?|history|key points?)\b",
    re.IGNORECASE)


def _kind_term(c: Candidates) -> np.ndarray | None:
    """For a question asking what to give (:attr:`AsksRead.asks_treatment`): 1 for a unit that gives treatment
    (:data:`TREATMENT_UNIT`) and is not headed, labelled or worded as a definition, criterion, risk factor,
    discharge or follow-up line (:data:`NOT_TREATMENT`); -1 for such a line that states no dose amount; else 0."""
    if not c.profile.asks_treatment:
        return None

    def kind(hi: int, u: Unit) -> float:
        last = unit_heading(c.hits[hi].chunk.section_path)
        other = bool(NOT_TREATMENT.search(f"{last} {u.label} {u.intro}") or NOT_TREATMENT.search(u.text))
        if other:
            return 0.0 if DOSE_AMOUNT.search(u.text) else -1.0
        return 1.0 if TREATMENT_UNIT.search(u.text) or DOSE_AMOUNT.search(u.text) else 0.0

    return np.array([kind(hi, u) for hi, u in c.keep], dtype=np.float32)




def _value_term(c: Candidates) -> np.ndarray | None:
    """For a question that gives a value ("TIMI score 5"), 1 for a unit that gives the band holding it
    (:func:`~clinqa.evidence.bands.value_holders`, among the units of its passage, candidates or not), else 0."""
    if not c.valued:
        return None

    held: set[int] = set()  # read over every unit of the passage: the other bands' rows are no candidates
    for hi in {h for h, _ in c.keep}:
        units = [u for h, u in c.units if h == hi]
        held |= {id(u) for u, v in zip(units, value_holders(units, c.profile.values), strict=True) if v}
    return c.flags(lambda hi, u: id(u) in held)




def _subject(u: Unit) -> str:
    """What a list item or table row is about: a row's first cell; an item's label before a colon in its first
    four words ("Dabigatran" of "Dabigatran: Standard dose is ...", "Eligibility" of "Eligibility: Severe
    eosinophilic asthma ..."), else its first four words."""
    if u.kind == "row" and u.cells:
        return u.cells[0][1]
    lead = _lead(u.text, 4)
    return lead.split(":", 1)[0] if ":" in lead else lead


def _item_term(c: Candidates) -> np.ndarray | None:
    """For a dose or treatment question, the items of the lists (or rows of the tables) of one section that tell
    apart by a rare word of the
    question (a drug, a condition: :attr:`AsksRead.conditions`, by stem) that some of them name as their subject
    (:func:`_subject`) and others do not: 1 for an item that names it, -1 for one that does not ("dabigatran
    dose": the dabigatran item of the dosing list, not the apixaban and edoxaban ones); 0 for every other unit.
    A word every item names tells nothing apart, nor does one that half the items or more name."""
    rare = {stem(w) for w in c.profile.conditions if not is_scaffold(w)}  # "dose" names no item
    if not rare or not (c.profile.asks_dose or c.profile.asks_treatment):
        return None
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}  # a list split over chunks of its section is one
    for i, (hi, u) in enumerate(c.keep):
        if u.kind != "sentence":
            chunk = c.hits[hi].chunk
            groups.setdefault((chunk.doc_id, tuple(chunk.section_path)), []).append(i)
    out = np.zeros(len(c.keep), dtype=np.float32)
    for members in groups.values():
        if len(members) < 2:
            continue
        # an item names what its section heading names ("Regimen: 1.2 mg ..." under "Colchicine for Acute Flare")
        named = [rare & _stems(f"{_subject(c.keep[i][1])} {c.headings(c.keep[i][0])}") for i in members]
        # a word half the items name or more tells none apart ("CrCl" in three dose-reduction lines of four)
        telling = {w for w in set().union(*named) if 2 * sum(w in n for n in named) <= len(members)}
        if not telling:
            continue
        for i, words in zip(members, named, strict=True):
            out[i] = 1.0 if words & telling else -1.0
    return out


#: the terms of a unit's score, added to the base score in this order (bm25s-style: each term chosen from
#: one place, with its weight's setting, :class:`clinqa.settings.UnitScoring`, and why it counts)
SCORE_TERMS: tuple[ScoreTerm, ...] = (
    ScoreTerm("lexical", "lexical_weight", "the question's rarer words in the unit tell units of one topic apart",
              _lexical_term),
    ScoreTerm("qualifier", "qualifier_bonus", "a unit under 'Without Shock' answers 'w/o shock'", _qualifier_term),
    ScoreTerm("band", "qualifier_bonus", "a unit under 'NEWS2 Score 5-6' answers 'NEWS2 of 5'", _band_term),
    ScoreTerm("heading", "heading_bonus", "a dose is filed under 'Dosing'", _heading_term),
    ScoreTerm("list", "list_bonus", "criteria are a list introduced by the question's words", _list_term),
    ScoreTerm("date", "number_bonus", "'when was X approved' is answered by a date", _date_term),
    ScoreTerm("number", "number_bonus", "a dose, threshold or duration is a number", _number_term),
    ScoreTerm("cell", "cell_bonus", "the row the question names by its label or band is the answer", _cell_term),
    ScoreTerm("kind", "kind_bonus", "'what to give' is answered by a treatment line, not a definition or a "
              "criterion", _kind_term),
    ScoreTerm("value", "value_bonus", "'TIMI score 5' is answered by the 'High risk 5-7' line", _value_term),
    ScoreTerm("item", "item_bonus", "'dabigatran dose' is the dabigatran item of the dosing list, not its "
              "neighbours", _item_term),
)

#: the score terms of issue 50's quote-part mechanisms, each applied only when ``answer.scoring.parts`` names it
PART_TERMS = frozenset({"kind", "value", "item"})


def unit_scores(cands: Candidates, scoring: UnitScoring) -> np.ndarray:
    """``(len(cands.keep),)`` float32: the base score (:meth:`Candidates.embed`) plus, for each term of
    :data:`SCORE_TERMS` that applies, its setting's value in ``scoring`` times its values, in table order."""
    scores = cands.base
    for term in SCORE_TERMS:
        if term.name in PART_TERMS and term.name not in scoring.parts:
            continue
        values = term.score(cands)
        if values is not None:
            scores = scores + (getattr(scoring, term.setting) * values).astype(np.float32, copy=False)
    return scores


@lru_cache(maxsize=1)
def default_scoring() -> UnitScoring:
    """:class:`clinqa.settings.UnitScoring` at its defaults (``answer.scoring``): what :func:`extract_answer` uses
    when its caller passes none."""
    from clinqa.settings import UnitScoring

    return UnitScoring()


def extract_answer(
    question_vector: np.ndarray,
    hits: list[Retrieved],
    encoder: Encoder,
    max_sentences: int = 4,
    min_score: float = 0.3,
    max_hits: int = 5,
    asked: AsksRead | None = None,
    scoring: UnitScoring | None = None,
    readings: PassageReadings | None = None,
) -> Extract:
    """Build the extractive answer from ``hits`` (best first); see the module docstring.

    ``scoring``: the weights and limits named in the module docstring (``unit_weight``, ``lexical_weight``,
    ``list_bonus``, ``number_bonus``, ``qualifier_bonus``, ``cell_bonus``, ``heading_bonus``, ``max_units``,
    ``max_list_items``, ``max_words``), :class:`clinqa.settings.UnitScoring` (``answer.scoring``; None: its
    defaults, the one source of the values). ``readings``: the ask's passage readings, whose units are scored
    (:attr:`clinqa.evidence.reading.PassageReading.units`: each passage's units read once per ask); None: readings
    of its own.

    ``question_vector``: ``(dim,)`` unit vector of the question; ``asked``: what was read of its text
    (:class:`AsksRead`, e.g. its :class:`clinqa.question.profile.QuestionProfile`), for the lexical and qualifier
    rules (None: selection is by cosine alone, as for an empty question). Units come
    from the first ``max_hits`` hits, in the order given: the passages are chosen before
    (:func:`clinqa.evidence.passages.passages_to_quote`; :func:`~clinqa.evidence.passages.fitting_hits` passes over
    those whose section path states the opposite of a qualifier of the question).
    ``cos(question, chunk)`` is the dense search's score when the hit has one (``scores["dense"]``),
    else computed. A unit whose passage's last heading names the kind of answer asked for
    (:func:`heading_kinds`: "Dosing" for a dose) gains ``heading_bonus``. Returns an empty text when the
    hits hold no quotable unit.
    """
    sc = scoring or default_scoring()
    max_list_items, max_words = sc.max_list_items, sc.max_words
    profile = read_asks("") if asked is None else asked
    hits = list(hits)[:max_hits]
    read = readings if readings is not None else PassageReadings()
    units = [(hi, u) for hi, hit in enumerate(hits) for u in read.units(hit.chunk)]
    cands = Candidates(hits, profile, units[:sc.max_units])
    if not cands.keep:
        return Extract("", [])
    keep = cands.keep
    cands.embed(np.asarray(question_vector, dtype=np.float32), encoder, sc.unit_weight)
    scores = unit_scores(cands, sc)
    listing, valued, cell_text = profile.wants_list, cands.valued, cands.cell_text
    named_rows = {i for i, t in cell_text.items() if t}
    named_tables = {_headers(keep[i][1]) for i in named_rows}  # a table split over chunks keeps its headers
    numbered = _number_term(cands)  # a unit with the number asked for (a dose with its unit for a dose)
    others = _item_term(cands)  # -1: an item of a list whose asked drug is another item

    order = sorted(range(len(keep)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    seen: set[str] = set()
    for i in order:
        hi, u = keep[i]
        if u.kind == "row" and i not in named_rows and _headers(u) in named_tables:
            continue  # a row named in the question beats the other rows of its table
        key = " ".join(u.full.lower().split())
        if key in seen:
            continue
        if chosen and (scores[i] < min_score or len(chosen) >= max_sentences):
            break  # the best ``max_sentences`` units scoring at least ``min_score`` ...
        cut = sc.drop_below_best if "cut" in sc.parts else None
        if (chosen and cut is not None and scores[i] < scores[chosen[0]] - cut
                and ((hi != keep[chosen[0]][0] and not (numbered is not None and numbered[i]))
                     or (others is not None and others[i] < 0))):
            continue  # ... far below the best, another passage's (unless it has the number asked for) or another
            # drug's item than the one asked for: the rest pads the answer
        seen.add(key)
        chosen.append(i)
    # criteria / components / steps: the whole list or table; a flowchart always whole (a branch without
    # the step before it or its condition says something else: "Normovolemic? -> No bolus" alone)
    # ... and the list of a section filed under the band that holds the question's value ("NEWS2 Score ≥ 7":
    # its risk, monitoring and response items are the answer for that band, together)
    in_band = {hi for hi in {h for h, _ in keep} if valued and heading_fit(cands.headings(hi), profile.values)}
    lists = {(keep[i][0], keep[i][1].group) for i in chosen
             if keep[i][1].kind != "sentence" and (listing or keep[i][1].flow or keep[i][0] in in_band
                                                   or ALL_OF.search(f"{keep[i][1].intro} {keep[i][1].label}"))}
    picked = set(chosen)  # a flowchart too long for the answer falls back to its steps picked here
    for hi, grp in lists:
        members = [j for j, (h, u) in enumerate(keep) if h == hi and u.group == grp][:max_list_items]
        chosen = [i for i in chosen if not (keep[i][0] == hi and keep[i][1].group == grp)] + members
    if "named" in sc.parts:  # of a table's rows quoted together, the one the question names
        chosen = [i for i in chosen if i not in _unnamed_members(cands, chosen, 2 if listing else 1)]
    # a sentence that points back ("This is the highest-rated pharmacotherapy recommendation.") comes with the
    # sentence before it, or not at all
    at = {(h, u.order): j for j, (h, u) in enumerate(keep)}
    before = {i: at.get((keep[i][0], keep[i][1].order - 1)) for i in chosen
              if keep[i][1].kind == "sentence" and ANAPHOR.match(keep[i][1].text)}
    chosen = list(dict.fromkeys([*(j for j in before.values() if j is not None), *chosen]))
    chosen = _within_budget(chosen, keep, scores, cell_text, max_words,
                            {i for i in picked if keep[i][1].flow and not listing})
    final = set(chosen)
    chosen = [i for i in chosen if i not in before or (before[i] is not None and before[i] in final)] or chosen
    chosen = sorted(set(chosen), key=lambda i: (keep[i][0], keep[i][1].order))
    picked = [(keep[i][0], keep[i][1], cell_text.get(i) or cands.nested_text.get(i)) for i in chosen]
    if profile.asks_reason:  # a note says why beside what was done: "K 5.9. Spironolactone held." -> both
        picked = _with_reasons(picked, units, hits)
    return _render(hits, picked, max_words,
                   cands.q_stems if "under" in sc.parts else None)


def _with_reasons(picked: list[tuple[int, Unit, str | None]], units: list[tuple[int, Unit]],
                  hits: list[Retrieved]) -> list[tuple[int, Unit, str | None]]:
    """``picked`` (``(hit index, unit, row text)`` in passage order) with, beside each sentence picked from a patient's
    note (a hit with a note date), the sentences just before and after it in that note (from ``units``, every unit
    of the hits, quotable or not for the question): a note gives the reason for an act in the sentence beside it
    ("K 5.9. Spironolactone held.", "Ramipril stopped. Dry cough."), which shares no word with "why was spiro
    held?". Each unit once, in passage order; a guideline's units are left as picked."""
    by_place = {(hi, u.order): u for hi, u in units}
    out: dict[tuple[int, int], tuple[int, Unit, str | None]] = {}
    for hi, u, cell in picked:
        if u.kind == "sentence" and hits[hi].chunk.note_date is not None:
            for near in (by_place.get((hi, u.order - 1)), by_place.get((hi, u.order + 1))):
                if near is not None and near.kind == "sentence":
                    out.setdefault((hi, near.order), (hi, near, None))
        out.setdefault((hi, u.order), (hi, u, cell))
    return [out[k] for k in sorted(out)]


def _key_value(u: Unit) -> bool:
    """Is ``u`` a row of a two-column key-value table ("| Parameter | Recommendation |": each row another
    attribute of one thing, not one of several alternatives)?"""
    return len(u.cells) == 2 and u.cells[0][0].lower() in KEY_VALUE_HEADERS


def _own_words(u: Unit) -> frozenset[str]:
    """The content stems of a unit's text, label and cells, less hyphenated compounds (their parts are counted:
    "insulin-naive" is "insulin" and "naive", not three words)."""
    return frozenset(s for s in _stems(u.full) if "-" not in s)


def _negated_stems(u: Unit) -> frozenset[str]:
    """The stems of the words a unit's text negates (:func:`clinqa.text.negation.negated_words`)."""
    return frozenset(stem(w) for w in negated_words(u.full))


def _contradicts_negation(own: frozenset[str], off: frozenset[str], q: frozenset[str], no: frozenset[str]) -> bool:
    """Does a unit (its own stems ``own``, :func:`_own_words`, and those it negates ``off``, :func:`_negated_stems`)
    state a stem the question negates (``no``), or negate one the question states (``q`` less ``no``)?"""
    return bool((own - off) & no or (own & off) & (q - no))


def _unnamed_members(cands: Candidates, chosen: list[int], least: int = 1) -> set[int]:
    """The chosen rows of a table that the question does not name, when it names one of them: of two or more rows
    of one table chosen together (not a flowchart's steps, nor a key-value table's rows, :func:`_key_value`; not
    a list's items, which are as often parts of one statement as alternatives), the row whose own words
    (:func:`_own_words`, less those every row of the table has: the column headers, the shared topic) share the
    most stems with the question is named when no other row shares as many; the others are returned (indices into
    ``cands.keep``). "Severe TBI with acute herniation - PaCO2 target?" quotes
    the "Acute herniation (bridge to definitive therapy) | 25-30 mmHg" row, not the normocapnia and ICP-crisis
    rows beside it; "septic shock" picks the septic-shock row of an antibiogram table, not the "sepsis without
    shock" one. Nothing is returned when the named member shares fewer than ``least`` stems (2 for a question
    that asks for a list, which may name a row's words in passing: "the CURB-65 criteria" and the "Age >= 65"
    row), or two members tie. The same idea as :func:`_cell_answer`'s row named by a number, for words."""
    keep, q, no = cands.keep, cands.q_stems, cands.profile.negated
    groups: dict[tuple[int, int], list[int]] = {}
    for i in chosen:
        hi, u = keep[i]
        if u.kind == "row" and not u.flow and not _key_value(u):
            groups.setdefault((hi, u.group), []).append(i)
    out: set[int] = set()
    for (hi, grp), members in groups.items():
        if len(members) < 2:
            continue
        every = [_own_words(u) for h, u in cands.units if h == hi and u.group == grp]
        common = frozenset.intersection(*every) if every else frozenset()
        read = {i: (_own_words(keep[i][1]), _negated_stems(keep[i][1])) for i in members}  # the row's own negated
        # words too ("no identifiable risk factor")
        named: dict[int, int] = {}
        for i, (own_all, off) in read.items():
            own = own_all - common
            # a word the question negates names the row that negates it too, and no row that states it
            named[i] = len(((own - off) & (q - no)) | (own & off & no))
        best = max(named.values())
        winner = [i for i, v in named.items() if v == best]
        # a row that states what the question negates ("surgery, immobilization, trauma" for "no surgery ...") or
        # negates what it states ("No organ failure" for "organ failure that resolved") is no row it names
        if best >= max(least, 1) and len(winner) == 1 and not _contradicts_negation(*read[winner[0]], q, no):
            out |= {i for i, v in named.items() if v < best}
    return out


def _within_budget(chosen: list[int], keep: list[tuple[int, Unit]], scores: np.ndarray,
                   cell_text: dict[int, str | None], max_words: int, fallback: set[int] | None = None) -> list[int]:
    """The chosen units (indices into ``keep``) that fit ``max_words``, taken best score first: a list or
    table (its items and rows, one hit's group) as a whole at its best member's score, a sentence alone.
    The best one is always kept (the text then stops with "more in [n]"); a group that does not fit is
    replaced by its members in ``fallback`` when those fit (a long flowchart by the steps the scores
    picked). The answer is shown in
    passage order afterwards, so without this the first-ranked passage's long list would crowd out a
    better-scoring table from the third passage."""
    groups: dict[tuple[int, int], list[int]] = {}
    for i in chosen:
        hi, u = keep[i]
        groups.setdefault((hi, u.group) if u.kind != "sentence" else (hi, -1 - i), []).append(i)
    out: list[int] = []
    words = 0

    def size(g: list[int]) -> int:  # as rendered: the intro and each lead-in label once, then the items
        labels = {keep[i][1].label for i in g if not cell_text.get(i)}
        return (len(keep[g[0]][1].intro.split()) + sum(len(lab.split()) for lab in labels)
                + sum(len((cell_text.get(i) or keep[i][1].text).split()) for i in g))

    for g in sorted(groups.values(), key=lambda g: -max(float(scores[i]) for i in g)):
        n = size(g)
        if out and words + n > max_words:
            part = [i for i in g if i in (fallback or set())]  # a flowchart's own picked steps, when it is long
            if not part or part == g or words + (n := size(part)) > max_words:
                continue
            g = part
        out.extend(g)
        words += n
    return out


def under_note(section_path: Sequence[str], q_stems: set[str] | frozenset[str]) -> str:
    """``" (under: Adults With Comorbidities)"``: the deepest heading of ``section_path`` (below its first, which
    names the document) that qualifies a
    population, severity, setting, step or line (:func:`~clinqa.evidence.passages.qualifier_words`) with a qualifier
    word the question
    (its content stems ``q_stems``) does not name, else ``""``. Shown after the quote of a passage so that a line
    for another population says whom it is for."""
    if not q_stems:
        return ""
    for heading in reversed(list(section_path)[1:]):  # the first names the document
        # "Without Comorbidities" narrows to the population a question that names none is about
        low = heading.lower()
        cut = re.search(r"\b(?:without|no)\b", low)
        negated = set(words_of(low[cut.start():])) if cut else set()  # "Without Comorbidities or Risk Factors"
        if any(not (_stems(w) & q_stems) for w in qualifier_words(heading) if w not in negated):
            return f" (under: {heading.strip()})"
    return ""


def _render(hits: list[Retrieved], picked: list[tuple[int, Unit, str | None]], max_words: int,
            q_stems: set[str] | frozenset[str] | None = frozenset()) -> Extract:
    """The answer text and citations for the picked units (hit index, unit, cell answer), in order; each passage's
    quote followed by :func:`under_note` of its section path (with the question's content stems ``q_stems``; None:
    no note, ``answer.scoring.parts`` without ``under``)."""
    numbers: dict[int, int] = {}
    citations: list[Citation] = []
    quotes: dict[int, list[str]] = {}
    pieces: dict[int, list[str]] = {}
    verbatim: dict[str, list[str]] = {}
    last: dict[int, Unit] = {}
    words = 0
    cut: int | None = None
    for hi, u, cell in picked:
        shown = cell or u.text
        if words and words + len(shown.split()) > max_words:
            if hi in numbers:  # the rest of this source is left for the reader to open
                cut = numbers[hi]
                break
            continue
        if hi not in numbers:
            numbers[hi] = len(numbers) + 1
            c = hits[hi].chunk
            citations.append(citation_for(numbers[hi], c, hits[hi].score))
            quotes[hi], pieces[hi] = [], []
        quotes[hi].append(u.full.rstrip())
        verbatim.setdefault(hits[hi].chunk.chunk_id, []).append(u.text.strip())
        prev = last.get(hi)
        same_list = prev is not None and prev.kind != "sentence" and prev.group == u.group
        if (same_list and cell is None and u.kind == "row" and prev is not None and prev.kind == "row"
                and len(u.cells) > 2 and u.cells[0] == prev.cells[0]):  # the row above's first cell, once
            shown = "; ".join(f"{h}: {c}" if h else c for h, c in u.cells[1:])
        lead = ""
        if not same_list:
            if u.intro:
                lead = u.intro + " "
            if u.label:
                lead += u.label + " "
        elif u.label and u.label != prev.label:
            lead = u.label + " "
        heading = unit_heading(hits[hi].chunk.section_path)
        if not lead and not pieces[hi] and heading and SUBJECTLESS.match(shown) and u.kind != "row":
            lead = heading.rstrip(" :") + ": "  # "SGLT2 Inhibitors (Class I, LOE A): Recommended to ..."
        if same_list and pieces[hi]:
            joiner = " " if _TRAILING.search(pieces[hi][-1]) or pieces[hi][-1].rstrip().endswith(":") else "; "
            # an item's own closing mark gives way to the joiner ("...48 hours;" + "; " is not "48 hours;;")
            pieces[hi][-1] = pieces[hi][-1].rstrip().rstrip(".;,") if joiner == "; " else pieces[hi][-1]
            pieces[hi].append(joiner + lead + shown.rstrip())
        else:
            if pieces[hi] and not re.search(r"[.;:!?)\]]\s*$", pieces[hi][-1]):
                pieces[hi][-1] = pieces[hi][-1].rstrip() + "."  # a list item ends before the next sentence
            pieces[hi].append((" " if pieces[hi] else "") + lead + shown.rstrip())
        words += len((lead + shown).split())
        last[hi] = u
    parts: list[str] = []
    for hi, n in numbers.items():
        citations[n - 1].quote = " ".join(quotes[hi])
        text = _end("".join(pieces[hi]).strip())
        more = f" (more in [{n}])" if cut == n else ""
        note = under_note(hits[hi].chunk.section_path, q_stems) if q_stems is not None else ""
        parts.append(f"{text}{more}{note} [{n}]")
    return Extract("\n".join(parts), citations, verbatim)


def _end(text: str) -> str:
    """``text`` with closing punctuation, so quoted list items and rows read as sentences; a
    trailing connective of a list ("...; OR") is dropped at the end of the quote."""
    text = _TRAILING.sub("", text).rstrip(" ;,")
    return text if text.endswith((".", "!", "?", ")", "]")) else text + "."
