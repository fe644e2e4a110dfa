"""Steps ``no_quote``, ``no_amount`` and ``rare_word_warning`` (phase ``quote``): nothing quotable refuses, and so
does a dose or duration question whose quote states none; a quote whose passages miss a rare question word warns."""

from __future__ import annotations

import re
from dataclasses import replace

from clinqa.decision.verdict import Case, Verdict
from clinqa.evidence.coverage import unmentioned_in
from clinqa.question.asks import AsksRead
from clinqa.question.terms import is_scaffold
from clinqa.retrieval.synonyms import term_matches
from clinqa.text.quantities import DURATION_UNITS, NUMBER, RANGE_JOIN, SPELLED_NUMBERS, unit_pattern


def no_quote(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) when the extractive answer quoted nothing (:data:`NO_QUOTE`); ``Answer.gate`` keeps
    the gate's answering record."""
    if ev.extract is None or ev.extract.text:
        return None
    return replace(v, answer=False, reason=NO_QUOTE, step="no_quote", final=True)


def no_amount(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) a dose or duration question whose quoted answer states none
    (:func:`clinqa.decision.quote.missing_amount_reason`, on what the question asks, ``ev.profile``: read once,
    after spelling repair)."""
    if ev.extract is None or ev.profile is None:
        return None
    reason = missing_amount_reason(ev.profile, ev.extract.text)
    if not reason:
        return None
    return replace(v, answer=False, reason=reason, step="no_amount", final=True)


def rare_word_warning(ev: Case, v: Verdict) -> Verdict | None:
    """An answer whose quoted passages (the hits ``ev.extract`` cites) mention none of some rare question words
    (``ev.rare``: words few chunks have, read when the evidence was gathered) is given a warning naming them
    (:func:`clinqa.evidence.coverage.unmentioned_in`, a word also mentioned under an equivalent:
    :func:`clinqa.retrieval.synonyms.term_matches`); the verdict stands. The kind of answer asked for
    ("components", "criteria": :func:`clinqa.question.terms.is_scaffold`) is no topic to warn about. Before
    issue 48 the rendering of the extractive answer read this itself (``assemble.extractive``)."""
    if ev.extract is None or not v.answer:
        return None
    cited = {c.chunk_id for c in ev.extract.citations}
    asked = [w for w in ev.rare if not is_scaffold(w)]
    unmentioned = unmentioned_in([h.chunk.text for h in ev.hits if h.chunk.chunk_id in cited], asked, term_matches)
    if not unmentioned:
        return None
    names = ", ".join(f"'{w}'" for w in unmentioned)
    return replace(v, warnings=(*v.warnings, f"the quoted passages do not mention {names}: check that they answer "
                                             "the question"))


NO_QUOTE = "The passages found contain no sentence that answers this question."


NO_DOSE = "The passages found give no dose (no amount with its unit) for this question."


NO_DURATION = "The passages found give no duration for this question."


def missing_amount_reason(asked: AsksRead, text: str) -> str:
    """The refusal sentence when a question asks for a dose ("What is the dose of ...", "how much") and the
    quoted answer ``text`` states no amount with a dose unit (:data:`clinqa.text.quantities.DOSE_AMOUNT`:
    "2 g", "0.9 mg/kg", "30 mL/kg"; "Ceftriaxone or cefotaxime is recommended." for a ceftriaxone dose):
    :data:`NO_DOSE`; when a question of how long (:data:`clinqa.question.asks.DURATION_QUESTION`) is
    answered without a duration
    (:data:`DURATION`): :data:`NO_DURATION`; ``""`` when the question asks for neither or the answer has it.
    ``asked``: what was read of the question (:class:`clinqa.question.asks.AsksRead`, e.g. its
    :class:`clinqa.question.profile.QuestionProfile`)."""
    from clinqa.text.quantities import DOSE_AMOUNT

    if not text:
        return ""
    profile = asked
    if profile.asks_duration and not DURATION.search(text):
        return NO_DURATION  # "How long should DAPT continue after PCI for stable angina?": no duration quoted
    if not profile.asks_dose or profile.asks_count or DOSE_AMOUNT.search(text):
        return ""  # "How many doses of Vaxchora are required?" asks a count, not an amount
    return NO_DOSE


_NUMBER_WORDS = "|".join([*SPELLED_NUMBERS, "several", "a few"])


#: a stated duration: "3-6 months", "7 days", "six weeks", "indefinitely", "lifelong", "until ..."
DURATION = re.compile(r"(?:" + NUMBER + "|" + _NUMBER_WORDS + r")(?:" + RANGE_JOIN + r")?\s*(?:" + NUMBER + r"\s*)?"
                      r"(?:" + unit_pattern(DURATION_UNITS) + r")\b"
                      r"|\bindefinite(?:ly)?\b|\blife-?long\b|\blong-term\b|\buntil\b|\bextended\b",
                      re.IGNORECASE)
