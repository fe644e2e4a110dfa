"""The key-term test of a question given as text (issue 48: nothing in ``decision/`` reads the question's text).

:func:`check` reads the question (:func:`clinqa.question.terms.read_terms`, in ``question/``), matches which passage
mentions which key term (:func:`clinqa.evidence.mentions.passage_mentions`, the evidence layer) and judges that
table (:func:`clinqa.decision.answerability.judge`, the decision). It stands above the three layers, for tests,
training and tools that hold a question's text; an ask does the same steps with the question read once
(:class:`clinqa.evidence.gather.KeyTermTest`, the judgement bound by the pipeline)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from clinqa.decision.answerability import Answerability, judge
from clinqa.evidence.mentions import CheckedPassage, passage_mentions
from clinqa.question.terms import TermsRead, read_terms

if TYPE_CHECKING:
    from clinqa.decision.decisive_words import DecisiveModel
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import WordRarity


def check(question: str, passages: Sequence[str | CheckedPassage], vocabulary: Vocabulary | None = None,
          max_zipf: float = 4.0, phrases: Iterable[str] = (), equivalents: Callable[[str], Iterable[str]] | None = None,
          matcher: Callable[[str, str], bool] | None = None, profile: TermsRead | None = None,
          rarity: WordRarity | None = None, decider: DecisiveModel | None = None) -> Answerability:
    """Key terms of ``question`` and those that none of ``passages`` (the texts that may be
    quoted, header included) mentions. Both are read through :func:`clinqa.text.unicode.normalize`
    first (ligatures, full-width letters, Greek mu: "ﬁbrillation" is "fibrillation"), as BM25 reads
    them; a passage given as a :class:`CheckedPassage` was read so already (and its index is reused), as each
    retrieved chunk is once per ask (:class:`clinqa.evidence.reading.PassageReading`).
    ``profile``: what was read of the question (:class:`TermsRead`, e.g. its
    :class:`clinqa.question.profile.QuestionProfile`), read with the same
    ``vocabulary``, ``max_zipf``, ``phrases`` and ``equivalents`` (its key terms, definitions and question
    kind are used instead of reading the question again); read here when None, not read from ``question``
    or read without key terms. ``rarity``: the word-frequency cut-offs (``answer.rarity``; None: the defaults).
    ``decider``: the decisive-word model (:mod:`clinqa.decision.decisive_words`); when given, each missing term's
    probability of deciding is in :attr:`Answerability.learned`, and it, not :func:`is_decisive`, says which
    missing term refuses. Which passage mentions which key term is the evidence layer's
    (:func:`clinqa.evidence.mentions.passage_mentions`); this function judges that table: which missing term is
    decisive, which passages to focus on, which terms are the story's background or apart. Pure function of its
    inputs; no store access."""
    if profile is None or profile.key_terms is None or not profile.reads(question):
        profile = read_terms(question, vocabulary, max_zipf, phrases, equivalents, rarity)
    found = passage_mentions(profile, passages, equivalents, matcher)  # which passage mentions which term
    return judge(found, profile, vocabulary, rarity, decider)
