"""The one question-length limit of the CLI (``clinqa ask``, ``clinqa search``, ``clinqa chat``) and the API
(``POST /ask``, ``POST /search``): ``service.max_question_chars`` characters (default 2,000), with one message.

A question over the limit is refused before anything is searched: a 60,000-character question pasted into the
CLI used to take 25 s and print 62 KB back, while the API refused it at once.
"""

from __future__ import annotations

from clinqa.errors import ClinqaError

#: the setting that holds the limit, as named in the message
SETTING = "service.max_question_chars"


class QuestionTooLong(ClinqaError):
    """A question (or query) longer than ``service.max_question_chars``; ``str(err)`` is :func:`too_long_message`."""


def too_long_message(length: int, limit: int, what: str = "question") -> str:
    """``"the question is 60,000 characters long; the limit is 2,000 (service.max_question_chars)"``."""
    return f"the {what} is {length:,} characters long; the limit is {limit:,} ({SETTING})"


def check_question_length(text: str, limit: int, what: str = "question") -> None:
    """Raise :class:`QuestionTooLong` when ``text`` has more than ``limit`` characters (``len``, code points)."""
    if len(text) > limit:
        raise QuestionTooLong(too_long_message(len(text), limit, what))
