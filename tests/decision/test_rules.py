"""Rules as data (clinqa.evidence.rules): every rule of the answerability tables runs its golden case
through the real function (:func:`mentions`, :func:`is_decisive`), which must give the expected outcome
with that rule deciding."""

from __future__ import annotations

import pytest

from clinqa.decision.answerability import CHECK_RULES, DECISIVE_RULES, DecisiveCase, decisive_rule, is_decisive
from clinqa.evidence.mentions import MENTION_RULES, MentionCase, _passage_index, mention_rule, mentions
from clinqa.evidence.rules import Golden, Rule, Step, decide, names, which
from clinqa.key_term_test import check
from clinqa.question.terms import KeyTerm
from clinqa.retrieval.synonyms import equivalents, term_matches
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.unicode import normalize

TABLES = {"mention": MENTION_RULES, "decisive": DECISIVE_RULES}


def _golden(rule: Rule) -> Golden:
    assert rule.golden is not None, rule.name
    return rule.golden


def _mention_args(g: Golden) -> tuple:
    return (g.term, _passage_index(normalize(g.passage)), equivalents if g.synonyms else None,
            term_matches if g.synonyms else None)


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES.keys())
def test_tables_name_each_rule_once_and_give_each_a_golden_case(table: tuple[Rule, ...]) -> None:
    assert len(set(names(table))) == len(table)
    for rule in table:
        assert rule.name.isidentifier() and rule.doc and callable(rule.test), rule.name
        assert isinstance(_golden(rule).term, KeyTerm), rule.name


@pytest.mark.parametrize("rule", MENTION_RULES, ids=names(MENTION_RULES))
def test_mention_rule_golden_case(rule: Rule) -> None:
    g = _golden(rule)
    args = _mention_args(g)
    assert mentions(*args) is g.expected
    assert mention_rule(*args) == rule.name


@pytest.mark.parametrize("rule", DECISIVE_RULES, ids=names(DECISIVE_RULES))
def test_decisive_rule_golden_case(rule: Rule) -> None:
    g = _golden(rule)
    assert is_decisive(g.term, g.in_corpus) is g.expected
    assert decisive_rule(g.term, g.in_corpus) == rule.name


def test_last_rules_always_decide() -> None:
    # mentions() and is_decisive() never fall through to a default: the closing rule names the outcome
    for table in TABLES.values():
        for rule in table:
            g = _golden(rule)
            case = (MentionCase(*_mention_args(g)) if table is MENTION_RULES else DecisiveCase(g.term, g.in_corpus))
            assert table[-1].test(case) is not None


def test_population_is_matched_by_its_listed_forms_only() -> None:
    # "expectant" (a form of pregnancy) shares its stem with "expected"; a specific word would match so
    pregnancy = KeyTerm("pregnancy", "population", "pregnancy", typed="pregnant")
    expectant = KeyTerm("expectant", "specific", "expectant", typed="expectant")
    passage = _passage_index("Expected LDL reduction with high-intensity statins is 50% or more.")
    assert not mentions(pregnancy, passage)
    assert mentions(expectant, passage) and which(MENTION_RULES, MentionCase(expectant, passage, None, None)) == (
        "same_stem")


def test_decide_takes_the_first_rule_that_decides() -> None:
    rules = (Rule("pass", "", lambda c: None), Rule("no", "", lambda c: False), Rule("yes", "", lambda c: True))
    assert decide(rules, 0) is False and which(rules, 0) == "no"
    assert decide(rules[:1], 0, default=True) is True and which(rules[:1], 0) is None


def test_check_rules_are_named_once() -> None:
    assert len({s.name for s in CHECK_RULES}) == len(CHECK_RULES)
    assert all(s.doc and s.example.question for s in CHECK_RULES)


@pytest.mark.parametrize("step", CHECK_RULES, ids=[s.name for s in CHECK_RULES])
def test_check_rule_example(step: Step) -> None:
    ex = step.example
    vocabulary = Vocabulary.from_texts(list(ex.corpus)) if ex.corpus else None
    a = check(ex.question, list(ex.passages), vocabulary, equivalents=equivalents, matcher=term_matches)
    got = tuple(t.text if isinstance(t, KeyTerm) else t for t in getattr(a, ex.field))
    assert got == ex.expected
    if ex.masked:  # the passages as written mention the terms: the rule made them missing
        by_text = {t.text: t for t in a.key_terms}
        for text in ex.expected:
            assert any(mentions(by_text[text], _passage_index(normalize(p)), equivalents, term_matches)
                       for p in ex.passages), text
    for text in ex.absent:  # no passage mentions it, yet the rule lets it pass
        term = next(t for t in a.key_terms if t.text == text)
        assert not any(mentions(term, _passage_index(normalize(p)), equivalents, term_matches) for p in ex.passages)
        assert term not in a.missing
