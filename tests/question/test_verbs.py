"""A word the question uses as a verb: read with the question (spaCy's tagger, :attr:`KeyTerm.used_as_verb`), and,
when the lexicon knows no clinical sense of it, not decisive when the passages lack it (decision rule
``question_verb``).

The expected tags were read off spaCy's ``en_core_web_sm`` 3.8 by hand for each sentence."""

from __future__ import annotations

import pytest

from clinqa.key_term_test import check
from clinqa.lexicon import Lexicon
from clinqa.question.profile import QuestionProfile
from clinqa.question.terms import used_as_verbs
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.settings import WordRarity


@pytest.mark.parametrize(("question", "verbs"), [
    ("UA/NSTEMI, TIMI score 4, stable - when to cath?", {"cath"}),
    ("CKD G3b A1 - how often recheck eGFR and ACR?", {"recheck"}),
    ("grade IV hepatic encephalopathy, cant swallow - how to give lactulose?", {"swallow", "give"}),
    ("Can I crush apixaban?", {"crush"}),
])
def test_used_as_verbs_by_the_tagger(question: str, verbs: set[str]) -> None:
    assert used_as_verbs(question) == verbs


def test_a_word_used_both_ways_is_no_verb() -> None:
    # "dose" is a verb in "how do I dose" and a noun in "the dose": a word used otherwise anywhere is left out
    assert "dose" not in used_as_verbs("How do I dose it and what is the dose?")


def _read(question: str, vocab: Vocabulary) -> QuestionProfile:
    return QuestionProfile.read(question, vocabulary=vocab, max_zipf=4.0, rarity=WordRarity(),
                                lexicon=Lexicon(vocab))


def test_a_verb_the_corpus_lacks_warns_and_a_drug_still_refuses() -> None:
    passages = ["Acute cholangitis with gallstone pancreatitis: urgent ERCP within 24 hours."]
    vocab = Vocabulary.from_texts(passages)
    q = "Gallstone pancreatitis with cholangitis - how soon should we be scoping?"
    p = _read(q, vocab)
    assert {t.text: (t.lexical, t.used_as_verb) for t in p.key_terms or ()}["scoping"] == ("", True)
    ruled = check(q, passages, vocab, profile=p)
    assert ruled.missing_names() == ["scoping"] and ruled.decisive_names() == []
    # a drug the tagger takes for a verb ("dofetilide dose CrCl 45": VERB) keeps its clinical kind and decides
    d = "dofetilide dose CrCl 45"
    assert "dofetilide" in used_as_verbs(d)
    p = _read(d, vocab)
    assert {t.text: t.lexical for t in p.key_terms or ()}["dofetilide"] == "clinical"
    assert check(d, passages, vocab, profile=p).decisive_names() == ["dofetilide"]


def test_a_word_the_corpus_has_is_not_judged_by_the_tagger() -> None:
    # the tagger reads "crystalloid" in "How much IV crystalloid initially?" as a verb (VBD): a corpus word keeps
    # the corpus's judgement (the question is not tagged: no word of it is one the corpus lacks and the lexicon does
    # not know), so the missing noun still refuses
    q = "Sepsis, how much IV crystalloid initially?"
    assert "crystalloid" in used_as_verbs(q)
    passages = ["Sepsis: give 30 mL/kg of IV fluid within 3 hours.", "Balanced crystalloid is preferred to saline."]
    vocab = Vocabulary.from_texts(passages)
    p = _read(q, vocab)
    assert {t.text: t.used_as_verb for t in p.key_terms or ()}["crystalloid"] is False
    assert check(q, passages[:1], vocab, profile=p).decisive_names() == ["crystalloid"]
