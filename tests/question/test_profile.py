"""The question profile (:class:`clinqa.question.profile.QuestionProfile`): golden values checked by hand, and the
profile read once gives what each reader read from the question before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinqa.decision.quote import NO_DOSE, NO_DURATION, missing_amount_reason
from clinqa.key_term_test import check
from clinqa.question import asks, terms
from clinqa.question.asks import asks_of, read_asks
from clinqa.question.profile import QuestionProfile
from clinqa.question.time import TimeIntent
from clinqa.retrieval import synonyms
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.unicode import normalize

BENCH = Path(__file__).resolve().parents[2] / "bench" / "answers"


def _bench_questions() -> list[str]:
    """The questions of the answer benchmarks (clinician, held-out, vignettes) and a few of other shapes."""
    out = []
    for name in ("guidelines.jsonl", "heldout.jsonl", "vignettes.jsonl"):
        for line in (BENCH / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return [*out, "", "How long in bp is PAR2?", "When was Afrezza approved by the FDA?", "ﬁrst-line drugs for AF?",
            "What dose of amoxicillin for a 6 month old infant weighing 7,5 kg?"]


QUESTIONS = _bench_questions()


def test_a_dose_question_about_treatment() -> None:
    p = QuestionProfile.read("Enoxaparin treatment dose for DVT")
    assert p.asks_dose and p.asks_number and p.treatment
    assert not (p.wants_list or p.asks_count or p.asks_duration or p.asks_date or p.prevention)
    assert {"dose", "dosing"} <= p.heading_kinds
    assert p.populations == () and p.quantities == () and p.key_terms is None


def test_a_list_question() -> None:
    p = QuestionProfile.read("List the criteria of qSOFA")
    assert p.wants_list and not p.asks_dose and not p.asks_number
    assert p.answer_types == {"criteria"}
    assert p.heading_kinds == {"criteria", "components"}


def test_a_count_is_not_a_list_nor_an_amount() -> None:
    p = QuestionProfile.read("How many doses of Vaxchora are required?")
    assert p.asks_count and p.asks_dose and not p.wants_list
    assert missing_amount_reason(asks_of(p.question, p), "A single oral dose is given.") == ""


def test_quantities_populations_and_the_age_left_out() -> None:
    q = "What apixaban dose for a 72-year-old pregnant woman weighing 55 kg with creatinine 1.6?"
    p = QuestionProfile.read(q, max_zipf=4.0)
    assert p.quantities == (("55", "kg"),)  # the age is context, not a quantity
    assert p.populations == ("pregnancy",)
    assert p.dosed == {"apixaban"} and p.answer_types == {"dose"}
    assert p.qualifiers == (("with creatinine", ("with creatinine",), ("without creatinine", "no creatinine")),)
    assert p.key_terms is not None
    assert [(t.text, t.kind) for t in p.key_terms] == [
        ("55 kg", "quantity"), ("apixaban", "specific"), ("pregnant", "population"), ("weighing", "specific"),
        ("creatinine", "specific")]
    # a question's units stop at a slash ("mL/kg" reads as mL); a bare number is no quantity
    assert QuestionProfile.read("Dose for 2 children of 30 mL/kg?").quantities == (("30", "mL"),)
    assert QuestionProfile.read("Is 7,5 mg enough?").quantities == (("7.5", "mg"),)
    assert QuestionProfile.read("BP 160 mm Hg?").quantities == (("160", "mmHg"),)


def test_children_qualify_and_the_kind_asked_is_no_population() -> None:
    p = QuestionProfile.read("Which antibiotics are first-line for outpatient CAP in children?")
    assert [name for name, _, _ in p.qualifiers] == ["first-line", "outpatient", "children"]
    assert p.populations == ("children",) and p.treatment
    assert QuestionProfile.read("Which cancer is most common in women?").populations == ()


def test_a_story_of_several_sentences_and_its_time_intent() -> None:
    intent = TimeIntent(year_min=2020, phrase="since 2020")
    q = "My mum is 82 and has AF. What dose of apixaban should she be on since 2020?"
    p = QuestionProfile.read(q, intent)
    assert p.asked_sentence == "What dose of apixaban should she be on since 2020?"
    assert p.time_intent is intent and p.reads(q) and not p.reads(q.lower())


def test_duration_and_length() -> None:
    assert QuestionProfile.read("How long should DAPT continue after PCI?").asks_duration
    assert not QuestionProfile.read("How long in bp is PAR2?").asks_duration
    p = QuestionProfile.read("How long should DAPT continue after PCI?")
    assert missing_amount_reason(asks_of(p.question, p), "Prasugrel is used before PCI. [1]") == NO_DURATION
    assert missing_amount_reason(read_asks("What is the dose of ceftriaxone?"), "Ceftriaxone is given IV.") == NO_DOSE


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_profile_reads_what_each_reader_read(question: str) -> None:
    """Each field equals what the function that reads it from the question gives (the readers before the
    profile), so reading once changes nothing."""
    p = QuestionProfile.read(question)
    text = normalize(question)
    aged = terms._AGE.sub(" ", text)
    assert p.wants_list == asks.wants_list(question)
    assert p.asks_number == bool(question and asks.NUMBER_QUESTION.search(question))
    assert p.asks_dose == bool(asks.DOSE_QUESTION.search(question))
    assert p.asks_count == bool(asks.COUNT_QUESTION.search(question))
    assert p.asks_date == bool(question and asks.DATE_QUESTION.search(question))
    assert p.asks_duration == bool(asks.DURATION_QUESTION.search(question)
                                   and not asks.LENGTH_QUESTION.search(question))
    assert p.heading_kinds == (asks.heading_kinds(question) if question else frozenset())
    assert list(p.qualifiers) == (asks.qualifiers_of(question) if question else [])
    assert asks.has_qualifiers(question) == bool(p.qualifiers)
    assert set(p.conditions) == (asks.condition_words(question) if question else set())
    assert p.treatment == bool(terms.TREATMENT_QUESTION.search(text))
    assert p.prevention == bool(terms.PREVENTION_QUESTION.search(text))
    assert p.asked_sentence == terms.asked_sentence(text)
    assert set(p.answer_types) == terms.answer_type_words(aged)
    assert set(p.dosed) == terms.dosed_words(aged)
    assert p.aliases == tuple(t for ts in synonyms.expand(question).added.values() for t in ts)
    quantity_terms = [t.match for t in terms.key_terms(text) if t.kind == "quantity"]
    assert {n for n, _ in p.quantities} == set(quantity_terms)


@pytest.mark.parametrize("question", QUESTIONS)
def test_key_terms_read_once_are_those_read_per_check(question: str) -> None:
    """The profile's key terms (read with the vocabulary, the cut and the synonym table) are the ones
    :func:`clinqa.decision.answerability.key_terms` reads, and a check given the profile answers as one without."""
    vocab = Vocabulary.from_texts(["Metformin and insulin in type 2 diabetes.", "Apixaban 5 mg twice daily for AF.",
                                   "qSOFA criteria: respiratory rate 22/min or more, altered mentation."])
    p = QuestionProfile.read(question, vocabulary=vocab, max_zipf=4.0, equivalents=synonyms.equivalents)
    phrases = list(p.phrases)
    text = normalize(question)
    defined = dict(p.definitions)
    eq = terms.with_definitions(synonyms.equivalents, defined) if defined else synonyms.equivalents
    assert list(p.key_terms or ()) == terms.key_terms(text, vocab, 4.0, phrases, eq)
    passages = ["Apixaban 5 mg twice daily; 2.5 mg if weight 60 kg or less.", "Children: amoxicillin 90 mg/kg/day."]
    args = (question, passages, vocab, 4.0, phrases, synonyms.equivalents, synonyms.term_matches)
    assert check(*args, profile=p) == check(*args)


def test_a_profile_of_another_text_is_not_used() -> None:
    """A reader given the profile of another text (the question before spelling repair) reads its own."""
    other = QuestionProfile.read("How many doses are given?")
    asked = asks_of("What is the dose of ceftriaxone?", other)
    assert missing_amount_reason(asked, "Ceftriaxone is given IV.") == NO_DOSE
    a = check("Is metformin safe?", ["Metformin is safe."], profile=QuestionProfile.read("x", max_zipf=4.0))
    assert [t.text for t in a.key_terms] == ["metformin"]


def test_the_profile_reads_the_lexicon_names_of_the_question_once() -> None:
    """The question's abbreviations are read once per ask, by the profile: the synonym expansion and the BM25
    query's names (``search_names``, which gathering hands the search) come from that one reading, and equal what
    the lexicon says of the question on its own."""
    from clinqa.lexicon import Lexicon

    class Counted(Lexicon):
        reads = 0

        def abbreviation_terms(self, question: str) -> dict[str, tuple[str, ...]]:
            Counted.reads += 1
            return super().abbreviation_terms(question)

    texts = ["Apixaban 5 mg twice daily.", "Diabetic ketoacidosis: give insulin.", "Diabetic ketoacidosis again."]
    q = "Eliquis dose in DKA?"
    lex = Counted(Vocabulary.from_texts(texts))
    p = QuestionProfile.read(q, lexicon=lex, search_names=True)
    assert Counted.reads == 1
    assert p.search_names == (("Eliquis", ("apixaban",)), ("DKA", ("diabetic ketoacidosis",)))
    assert dict(p.search_names) == Lexicon(Vocabulary.from_texts(texts)).search_terms(q)
    assert "diabetic ketoacidosis" in p.aliases  # the expansion took the same reading
    assert QuestionProfile.read(q, lexicon=lex).search_names is None  # retrieval.expand_synonyms off


def test_the_profile_enters_each_reader_once_in_order() -> None:
    """Issue 48 (walk round 6): :meth:`QuestionProfile.read` calls each module it reads the question with once, in
    one order: the lexicon, the synonym table, the text helpers (normalised text, dashes folded, words, the words it
    negates: each read once and handed on), the asks, the key terms; nothing of its own after them. The key terms'
    lexicon marks, the populations and the quantities are read by :func:`clinqa.question.terms.terms_of` from its
    one text without the patient's age, and equal what the profile read before (golden values by hand)."""
    import sys
    from types import FrameType

    from clinqa.lexicon import Lexicon
    from clinqa.settings import WordRarity
    from clinqa.text.words import words_of

    q = "72-year-old pregnant woman, 55 kg, BP 210/118: what apixaban dose?"
    vocab = Vocabulary.from_texts(["Apixaban 5 mg twice daily.", "Blood pressure (BP) in pregnancy."])
    lex, rarity = Lexicon(vocab), WordRarity()
    read_code = QuestionProfile.read.__func__.__code__  # type: ignore[attr-defined]
    called: list[tuple[str, str]] = []

    def direct(frame: FrameType, event: str, arg: object) -> None:  # sys.setprofile's hook
        if event == "call" and frame.f_back is not None and frame.f_back.f_code is read_code:
            called.append((frame.f_globals["__name__"], frame.f_code.co_name))

    sys.setprofile(direct)
    try:
        p = QuestionProfile.read(q, vocabulary=vocab, max_zipf=4.0, rarity=rarity, lexicon=lex, search_names=True)
    finally:
        sys.setprofile(None)
    readers = [(m, f) for m, f in called if m.startswith("clinqa.") and f not in ("<dictcomp>", "__init__")]
    assert readers == [
        ("clinqa.lexicon", "abbreviation_terms"), ("clinqa.lexicon", "search_terms"),
        ("clinqa.retrieval.synonyms", "expand"), ("clinqa.retrieval.synonyms", "with_terms"),
        ("clinqa.text.unicode", "normalize"),
        ("clinqa.text.unicode", "fold_dashes"), ("clinqa.text.words", "words_of"),
        ("clinqa.text.negation", "negated_words"), ("clinqa.question.asks", "asks_from"),
        ("clinqa.question.terms", "phrases_of"), ("clinqa.question.terms", "terms_of")]
    assert p.quantities == (("55", "kg"),) and p.populations == ("pregnancy",)
    assert [(t.text, t.kind, t.lexical) for t in p.key_terms or ()] == [
        ("55 kg", "quantity", "context"), ("pregnant", "population", "ordinary"),  # a body weight is the story's
        ("bp", "specific", "context"), ("apixaban", "specific", "clinical")]  # "BP 210/118" gives BP a value
    # the asks take the profile's words; the key terms read populations, quantities and marks as the profile holds
    assert asks.asks_from(q, q, frozenset(words_of(q)), synonyms.expand(q)) == read_asks(q)
    termed = terms.terms_of(q, normalize(q), p.phrases, vocab, 4.0, rarity=rarity, lexicon=lex)
    assert (termed.key_terms, termed.populations, termed.quantities) == (p.key_terms, p.populations, p.quantities)
