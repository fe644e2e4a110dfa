"""Rules as data: the hand-written rules of mention matching and of the answerability test as named objects in
ordered tables.

Whether a passage mentions a key term (:mod:`clinqa.evidence.mentions`) and whether a term no passage mentions
is decisive (:mod:`clinqa.decision.answerability`) are decided through many small rules ("a quantity inside a
stated bound is mentioned", "a word the corpus lacks is decisive", ...). This module is their form only, below
both layers, and imports nothing of clinqa. Each is a
:class:`Rule`: a name, what it says and why (:attr:`Rule.doc`), the callable that holds its logic
(:attr:`Rule.test`) and one :class:`Golden` case that shows it deciding. A table is a tuple of rules in
the order they are tried: :func:`decide` asks each in turn and the **first rule that decides wins** (a
test returns True or False to decide, None to pass to the next); :func:`which` names the rule that
decided. The tables themselves live beside the helpers they use
(:data:`clinqa.evidence.mentions.MENTION_RULES`, :data:`clinqa.decision.answerability.DECISIVE_RULES`);
``tests/decision/test_rules.py`` runs every rule's golden case through the real functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Case = TypeVar("Case")


@dataclass(frozen=True)
class Golden:
    """One worked example of a rule. ``term``: the key term it is about (a
    :class:`clinqa.question.terms.KeyTerm`); ``passage``: the passage text (mention rules; ``""`` for
    a decisiveness rule); ``expected``: the outcome of the real function (:func:`mentions` /
    :func:`is_decisive`); ``in_corpus``: whether the corpus has the term (decisiveness rules);
    ``synonyms``: run with the synonym table (:func:`clinqa.retrieval.synonyms.equivalents` as
    ``equivalents``, :func:`clinqa.retrieval.synonyms.term_matches` as ``matcher``), as the pipeline does;
    ``note``: where the case comes from (a question of a benchmark set, an issue)."""

    term: Any
    passage: str = ""
    expected: bool = True
    in_corpus: bool = True
    synonyms: bool = False
    note: str = ""


@dataclass(frozen=True)
class Rule(Generic[Case]):
    """A named rule. ``test(case)`` returns True or False when the rule decides, None when it passes the
    case on to the next rule of its table; ``doc`` says what it decides and why (its source where
    known); ``golden`` is the case that shows it deciding (:class:`Golden`)."""

    name: str
    doc: str
    test: Callable[[Case], bool | None]
    golden: Golden | None = None


def decide(rules: Iterable[Rule[Case]], case: Case, default: bool = False) -> bool:
    """The outcome of the first rule of ``rules`` (in order) that decides ``case``; ``default`` when none
    does."""
    for rule in rules:
        out = rule.test(case)
        if out is not None:
            return out
    return default


def which(rules: Iterable[Rule[Case]], case: Case) -> str | None:
    """The name of the rule of ``rules`` that decides ``case`` (the first whose test does not return
    None), or None when none does and the table's default stands."""
    for rule in rules:
        if rule.test(case) is not None:
            return rule.name
    return None


def names(rules: Iterable[Rule[Any]]) -> list[str]:
    """The names of ``rules``, in order."""
    return [r.name for r in rules]


@dataclass(frozen=True)
class Example:
    """A worked example of a passage-level rule of :func:`clinqa.key_term_test.check`: ``question``
    and ``passages`` go through ``check`` (with the synonym table), and its ``field`` (an attribute of
    :class:`clinqa.decision.answerability.Answerability` holding terms or their texts: ``missing``,
    ``prevented``, ``background``, ``apart``) must hold exactly the term texts ``expected``. ``masked``:
    those terms are mentioned by the passages as written (:func:`clinqa.evidence.mentions.mentions`),
    so it is the rule, not their absence, that makes them missing; ``absent``: key terms that no passage
    mentions as written, which the rule lets pass; ``corpus``: texts whose vocabulary ``check`` is given (a rule that
    reads the corpus's counts; none: no vocabulary)."""

    question: str
    passages: tuple[str, ...]
    field: str
    expected: tuple[str, ...]
    masked: bool = False
    absent: tuple[str, ...] = ()
    corpus: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """A named rule that :func:`clinqa.key_term_test.check` applies to the question and its passages as
    a whole (not one term in one passage, as a :class:`Rule`): ``name``, ``doc`` (what and why), ``applies``
    (the function that holds its logic, where it has one of its own) and one worked :class:`Example`."""

    name: str
    doc: str
    applies: Callable[..., Any] | None
    example: Example
