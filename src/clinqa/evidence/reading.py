"""Each retrieved passage is read once per ask (issue 48): :class:`PassageReading` holds what the readers of a
passage compute from its text, each part built on first use and kept, and :class:`PassageReadings` holds one
reading per chunk for one ask (:func:`clinqa.evidence.gather.gather` builds it; the key-term test, the choice of
passages and the extractive scorer take their readings from it).

What a reading holds:

* :attr:`PassageReading.units`: the quotable units of the passage's body (:func:`clinqa.chunking.units.unit_records`:
  sentences, list items, table rows with their cells and headers), read by
  :func:`clinqa.evidence.passages.with_siblings` (does a list or table run past the chunk?),
  :func:`clinqa.evidence.passages.band_sections` (does a row or item give the band of a value asked?) and
  :func:`clinqa.answer.extractive.extract_answer` (the units it scores);
* :attr:`PassageReading.heading` and :attr:`PassageReading.unit_texts`: the heading the units stand under (the last
  of the section path, :func:`clinqa.chunking.units.unit_heading`: does it name a list, for
  :func:`clinqa.evidence.passages.with_siblings`?) and each unit under it as ingest embeds it
  (:func:`clinqa.chunking.units.embedding_text`), which the answer model reads
  (:func:`clinqa.evidence.gather.answer_model_texts`);
* :attr:`PassageReading.heading_bands`: the bands its section path gives a named thing
  (:func:`clinqa.evidence.bands.heading_bands`: "NEWS2 Score 5–6 — Urgent Response"), read by every chooser of
  passages that asks whether the heading fits a value the question gives (:meth:`PassageReading.section_fit`:
  :func:`clinqa.evidence.passages.fitting_hits`, :func:`~clinqa.evidence.passages.heading_context`,
  :func:`~clinqa.evidence.passages.band_sections`), and with the units, whether a row or item of the passage gives
  the band holding such a value (:meth:`PassageReading.holds_value`);
* :attr:`PassageReading.checked`: the passage as the key-term test reads it
  (:class:`clinqa.evidence.mentions.CheckedPassage`: the stored text, header included, less its units
  addressed to an AI model (:func:`clinqa.chunking.units.without_suspicious`), normalised, scope exclusions removed;
  its index of words, stems and table rows (:func:`clinqa.evidence.bands.table_rows`) built once), read by every
  run of :meth:`clinqa.evidence.gather.KeyTermTest.on` in the ask (the context, the candidates of a later heading,
  the deeper context, the model's passages).

A reading is a pure function of the chunk's text and body, so reading once changes no answer."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from clinqa.chunking.units import Unit, embedding_text, unit_heading, unit_records, without_suspicious
from clinqa.evidence.bands import Band, band_fit, heading_bands, value_holders
from clinqa.evidence.mentions import CheckedPassage

if TYPE_CHECKING:
    from clinqa.chunking import Chunk


#: a measured value as notes write it: a name, then its number, a unit glued to it or not ("Hb 12.1", "K: 4.8",
#: "INR = 5.2", "Cr 180umol", "EF 35%"); looser than a question's named value (clinqa.question.terms.values_in), which
#: reads a number standing alone
_MEASURE = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*)\s*[:=]?\s*[<>≤≥~]?\s*\d")


@dataclass(frozen=True, eq=False)
class PassageReading:
    """What is read of one retrieved ``chunk``, each part built on first use (see the module docstring)."""

    chunk: Chunk

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        """The quotable units of the chunk's body (:func:`clinqa.chunking.units.unit_records`), in reading order."""
        return tuple(unit_records(self.chunk.body, short=self.chunk.note_date is not None))

    @cached_property
    def checked(self) -> CheckedPassage:
        """The chunk's stored text (header included) less its suspicious units, as the key-term test reads it
        (:meth:`clinqa.evidence.mentions.CheckedPassage.of`)."""
        return CheckedPassage.of(without_suspicious(self.chunk.text))

    @cached_property
    def heading(self) -> str:
        """The heading the chunk's units stand under: the last of its section path
        (:func:`clinqa.chunking.units.unit_heading`; "" without one)."""
        return unit_heading(self.chunk.section_path)

    @cached_property
    def unit_texts(self) -> tuple[str, ...]:
        """Each of :attr:`units` under :attr:`heading`, as ingest embeds it
        (:func:`clinqa.chunking.units.embedding_text`; the same as :func:`clinqa.chunking.units.embedding_texts` of
        the body and section path)."""
        return tuple(embedding_text(u, self.heading) for u in self.units)

    @cached_property
    def heading_bands(self) -> tuple[tuple[str, Band], ...]:
        """``(word, band)`` of each band the chunk's section path (its headings joined by spaces) gives a named thing
        (:func:`clinqa.evidence.bands.heading_bands`)."""
        return tuple(heading_bands(" ".join(self.chunk.section_path)))

    @cached_property
    def stated(self) -> frozenset[str]:
        """The names (lower case) the chunk's units write a number after, as notes write a measured value
        (:data:`_MEASURE`: "Hb 12.1", "K: 4.8", "INR=5.2", "Cr 180umol", "EF 35%")."""
        return frozenset(m.group(1).lower() for u in self.units for m in _MEASURE.finditer(u.text))

    def section_fit(self, values: Sequence[tuple[str, float]]) -> bool | None:
        """Does the section path give a band holding a value the question gives (``values``: ``(word, value)``,
        :attr:`clinqa.question.asks.AsksRead.values`)? ``True``, ``False`` (bands of it, none holding it) or
        ``None`` (no band of it, or no value), as :func:`clinqa.evidence.bands.heading_fit` of the section path."""
        return band_fit(self.heading_bands, values) if values else None

    def holds_value(self, values: Sequence[tuple[str, float]]) -> bool:
        """Is a unit of the passage the row or item that gives the band holding a value of ``values``, among
        siblings giving other bands (:func:`clinqa.evidence.bands.value_holders` of :attr:`units`)?"""
        return any(value_holders(self.units, values))


class PassageReadings:
    """One :class:`PassageReading` per chunk, for one ask: :meth:`of` reads a chunk the first time it is asked for
    and hands back the same reading after, for the same chunk from any search of the ask (keyed by chunk id, text
    body and section path, so a chunk rewritten under its id is read anew)."""

    def __init__(self) -> None:
        self._readings: dict[tuple[str, str, str, tuple[str, ...]], PassageReading] = {}

    def of(self, chunk: Chunk) -> PassageReading:
        """The reading of ``chunk``, read now if this ask has not read it yet."""
        key = (chunk.chunk_id, chunk.text, chunk.body, tuple(chunk.section_path))
        reading = self._readings.get(key)
        if reading is None:
            reading = self._readings[key] = PassageReading(chunk)
        return reading

    def units(self, chunk: Chunk) -> tuple[Unit, ...]:
        """:attr:`PassageReading.units` of ``chunk``."""
        return self.of(chunk).units

    def stated(self, chunk: Chunk) -> frozenset[str]:
        """:attr:`PassageReading.stated` of ``chunk``."""
        return self.of(chunk).stated

    def section_fit(self, chunk: Chunk, values: Sequence[tuple[str, float]]) -> bool | None:
        """:meth:`PassageReading.section_fit` of ``chunk``."""
        return self.of(chunk).section_fit(values)

    def holds_value(self, chunk: Chunk, values: Sequence[tuple[str, float]]) -> bool:
        """:meth:`PassageReading.holds_value` of ``chunk``."""
        return self.of(chunk).holds_value(values)

    def __len__(self) -> int:
        """How many chunks this ask has read."""
        return len(self._readings)
