"""The passages an extractive answer quotes are chosen by the evidence layer, once, when the decision answers
(issue 48: the quote asks for them and no longer re-chooses them):
:func:`clinqa.evidence.passages.passages_to_quote`."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from clinqa.chunking.base import Chunk
from clinqa.decision.answerability import Answerability
from clinqa.evidence.passages import passages_to_quote
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
STAGES = SimpleNamespace(settings=Settings(), store=SimpleNamespace(get_chunks=lambda ids: []))


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


def test_a_documents_chunks_are_read_through_the_store_once_and_handed_down(tmp_path: Path) -> None:
    """The chunks of a whole document (a value's band section, a sibling section) are read from the store under the
    ask's filters by :class:`DocumentChunks`, handed down to the choice of passages (no callback up into gathering),
    once per document: a second ask for the document reads nothing more (the store changed in between, the reading
    did not)."""
    from clinqa.evidence.passages import DocumentChunks
    from clinqa.store import LanceStore

    store = LanceStore(tmp_path / "db")
    chunks = [Chunk(chunk_id=f"d#s#{i}", doc_id="d", text=t, body=t, year=y) for i, (t, y) in
              enumerate([("Apixaban 5 mg.", 2024), ("Apixaban 2.5 mg.", 2024), ("Warfarin.", 2019)])]
    chunks.append(Chunk(chunk_id="e#s#0", doc_id="e", text="Other.", body="Other.", year=2024))
    store.replace_documents(["d", "e"], chunks, np.ones((len(chunks), 4), dtype=np.float32))
    store.refresh_indexes()
    documents = DocumentChunks(store, Filters(year_min=2020))
    assert sorted(c.chunk_id for c in documents.chunks_of("d")) == ["d#s#0", "d#s#1"]  # not 2019's, not e's
    store.replace_documents(["d"], chunks[:1], np.ones((1, 4), dtype=np.float32))
    assert sorted(c.chunk_id for c in documents.chunks_of("d")) == ["d#s#0", "d#s#1"]  # read once
    assert [c.chunk_id for c in DocumentChunks(store, Filters(year_min=2020)).chunks_of("d")] == ["d#s#0"]
