"""The question's first reading (:func:`clinqa.answer.scope.initial_case`): issue 48, walk round 6."""

from __future__ import annotations

import datetime

import pytest

from clinqa.answer.scope import initial_case
from clinqa.errors import ConfigError
from clinqa.retrieval.filters import Filters
from clinqa.settings import AnswerSettings


@pytest.mark.parametrize("blank", ["", "   ", "\t\n", "\u200b\u00a0", "\ufeff"])
def test_the_first_reading_refuses_a_blank_question_before_reading_anything(blank: str) -> None:
    """A blank question (whitespace, no-break spaces, zero-width characters) is refused by the question's first
    reader, the initial case, before its time intent or any store reader runs: the blank check is part of the
    question's reading (``Pipeline.ask`` no longer checks it apart, then comes back to read it)."""
    read: list[str] = []
    with pytest.raises(ConfigError, match=r"^the question is empty$"):
        initial_case(blank, Filters(patient_id="P1"), AnswerSettings(), True, lambda: read.append("years") or True,
                     lambda pid: read.append(pid) or {}, today=datetime.date(2024, 1, 1))
    assert read == []


def test_a_question_with_text_is_read_into_its_case() -> None:
    """One visible character is a question: its case holds it, with no time intent (none typed), no store read."""
    read: list[str] = []
    ev = initial_case("\u200bCAP?", Filters(), AnswerSettings(), True, lambda: read.append("years") or True,
                      lambda pid: read.append(pid) or {}, today=datetime.date(2024, 1, 1))
    assert ev.question == "\u200bCAP?" and not ev.no_note and ev.time_filter == "" and read == []
