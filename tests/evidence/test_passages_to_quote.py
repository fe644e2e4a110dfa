"""The passages an extractive answer quotes are chosen by the evidence layer, once, when the decision answers
(issue 48: the quote asks for them and no longer re-chooses them): :func:`clinqa.evidence.gather.passages_to_quote`."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from clinqa.chunking.base import Chunk
from clinqa.decision.answerability import Answerability
from clinqa.evidence.gather import passages_to_quote
from clinqa.evidence.reading import PassageReadings
from clinqa.question.asks import read_asks
from clinqa.question.terms import KeyTerm
from clinqa.question.time import TimeIntent
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.hybrid import Retrieved
from clinqa.settings import Settings

# three notes of one patient, retrieved best first: 2024, 2022, 2023 (each one sentence, nothing to read on)
NOTES = [("p1-2024#plan#0", date(2024, 3, 1)), ("p1-2022#plan#0", date(2022, 5, 9)),
         ("p1-2023#plan#0", date(2023, 1, 2))]
HITS = [Retrieved(Chunk(chunk_id=cid, doc_id=cid.split("#")[0], text="Apixaban 5 mg twice daily.",
                        body="Apixaban 5 mg twice daily.", section_path=["Plan"], patient_id="p1", note_date=d),
                  1.0 / i, i) for i, (cid, d) in enumerate(NOTES, 1)]
STAGES = SimpleNamespace(settings=Settings(), store=SimpleNamespace(get_chunks=lambda ids: []),
                         doc_chunks=lambda doc, filters: [])


def _found(check: Answerability | None = None, timed: bool = False) -> SimpleNamespace:
    return SimpleNamespace(context=HITS, check=check, profile=read_asks("What anticoagulant is she on?"),
                           test=SimpleNamespace(readings=PassageReadings()), timed=timed)


def _ids(quoted: list[Retrieved]) -> list[str]:
    return [h.chunk.chunk_id for h in quoted]


def test_a_patients_notes_are_quoted_as_the_record_runs() -> None:
    """Oldest first (2022, 2023, 2024); newest first for "current" (recency); the reference order without a
    patient filter."""
    quoted, by_time = passages_to_quote(STAGES, _found(), Filters(patient_id="p1"), TimeIntent())
    assert _ids(quoted) == ["p1-2022#plan#0", "p1-2023#plan#0", "p1-2024#plan#0"] and not by_time
    quoted, _ = passages_to_quote(STAGES, _found(), Filters(patient_id="p1"), TimeIntent(recency=True))
    assert _ids(quoted) == ["p1-2024#plan#0", "p1-2023#plan#0", "p1-2022#plan#0"]
    quoted, _ = passages_to_quote(STAGES, _found(), Filters(), TimeIntent())
    assert _ids(quoted) == [cid for cid, _ in NOTES]


def test_a_question_about_a_time_alone_quotes_its_notes_oldest_first() -> None:
    """``timed`` and no key term read: by time, oldest first, even without a patient filter."""
    quoted, by_time = passages_to_quote(STAGES, _found(timed=True), Filters(), TimeIntent())
    assert by_time and _ids(quoted) == ["p1-2022#plan#0", "p1-2023#plan#0", "p1-2024#plan#0"]
    # a key term was read: not a question about a time alone
    check = Answerability(key_terms=[KeyTerm("apixaban", "specific", "apixaban")])
    quoted, by_time = passages_to_quote(STAGES, _found(check, timed=True), Filters(), TimeIntent())
    assert not by_time and _ids(quoted) == [cid for cid, _ in NOTES]


def test_only_the_passages_that_mention_every_decisive_term_are_quoted() -> None:
    """``check.focused`` = [2, 0]: the third and the first hit, in rank order (:func:`quotable`)."""
    check = Answerability(key_terms=[KeyTerm("apixaban", "specific", "apixaban")], focused=[0, 2])
    quoted, _ = passages_to_quote(STAGES, _found(check), Filters(), TimeIntent())
    assert _ids(quoted) == ["p1-2024#plan#0", "p1-2023#plan#0"]
