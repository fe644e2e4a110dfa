"""The question's wording read once (:class:`clinqa.question.asks.AsksRead`): what the passage choice, the
extractive answer and the coverage check match against, each field against its value worked out by hand."""

from __future__ import annotations

from clinqa.evidence.passages import fitting_hits
from clinqa.question.asks import asks_of, content_stems, named_values, qualifiers_of, read_asks
from clinqa.question.profile import QuestionProfile
from tiny_data import chunk_hit


def test_the_wording_is_read_once_into_the_read() -> None:
    q = "Vanc dose for a 72-year-old man, CrCl 20–29 mL/min, NEWS2 score of 5 (CURB-65)?"
    a = read_asks(q)
    # named values: "CrCl 20", "score of 5" and the patient's age as a value of "age" (the "29" after the dash is
    # no named value)
    assert a.values == (("crcl", 20.0), ("score", 5.0), ("age", 72.0))
    # dash-folded and lower case: the same values, the en dash read as "-", its digit runs joined by "-"
    assert a.folded_values == (("crcl", 20.0), ("score", 5.0), ("age", 72.0))
    assert a.folded_numbers == "72-20-29-2-5-65"
    assert a.folded_quantities == (("29", "ml/min"),)
    assert {"vanc", "crcl", "news2", "curb-65", "score"} <= a.words and "CrCl" not in a.words
    # the en dash folded, "20-29" is one word as a table's band cell reads; unfolded it is two
    assert "20-29" in a.folded_words and "20-29" not in a.words and {"20", "29"} <= a.words
    # content stems: no stop words ("for", "a"), "curb-65" also joined as typed elsewhere ("curb65")
    assert a.stems == content_stems(q) and {"vanc", "dose", "crcl", "news2", "curb65"} <= a.stems
    assert "for" not in a.stems and "a" not in a.stems
    assert {"score", "dose"} <= a.word_stems
    # coverage's words: the patient's age left out ("72-year-old"), no numbers, no stop words, none under 3 letters
    # ("ml"), in order
    assert a.content_terms == ("vanc", "dose", "man", "crcl", "min", "news2", "score", "curb-65")
    assert a.tokens[:4] == ("Vanc", "dose", "for", "a") and "CrCl" in a.tokens and "(" in a.tokens


def test_asks_of_reads_again_only_for_another_text() -> None:
    p = QuestionProfile.read("What is the dose of ceftriaxone?")
    assert asks_of("What is the dose of ceftriaxone?", p) is p
    other = asks_of("How long is the course?", p)
    assert other is not p and other.question == "How long is the course?" and other.asks_duration
    assert asks_of("x", None).question == "x"
    # the profile carries the same reading as the read alone
    assert (p.values, p.stems, p.content_terms, p.tokens) == (
        (), read_asks(p.question).stems, ("dose", "ceftriaxone"),
        ("What", "is", "the", "dose", "of", "ceftriaxone", "?"))


def test_alternatives_are_read_with_the_key_terms() -> None:
    q = "Is Huntington disease caused by a dominate or recessive gene?"
    p = QuestionProfile.read(q, max_zipf=4.0)
    # key terms huntington, dominate, recessive: the two joined by "or" are each other's alternative
    assert p.alternatives == (("dominate", ("recessive",)), ("recessive", ("dominate",)))
    assert QuestionProfile.read(q).alternatives == ()  # no key terms read, no alternatives
    assert QuestionProfile.read("Is Huntington disease caused by a recessive gene?", max_zipf=4.0).alternatives == ()


def test_the_question_words_are_split_once_for_stems_and_conditions() -> None:
    """``read_asks`` splits the question into words once and reads its stems and condition words from them: the same
    as reading each from the text (:func:`content_stems`, :func:`condition_words`)."""
    from clinqa.question.asks import condition_words, content_stems, rare_condition_words, stems_of
    from clinqa.retrieval.vocabulary import words_of

    q = "CURB-65 of 3 in a 72-year-old with Legionella pneumonia: which antibiotics?"
    words = frozenset(words_of(q.lower()))
    assert stems_of(words) == content_stems(q) and "curb65" in stems_of(words) and "legionella" in stems_of(words)
    assert rare_condition_words(words, 3.5) == condition_words(q, 3.5) and "legionella" in condition_words(q, 3.5)
    a = read_asks(q, condition_below=3.5)
    assert a.stems == content_stems(q) and a.conditions == frozenset(condition_words(q, 3.5))


def test_profile_hands_on_its_texts():
    """Issue 48 (walk): the profile reads the question's normalised and dash-folded text once and hands them on
    (terms_of, asks_from, values_in), and its words (asks_from); each reads what read_terms / read_asks /
    named_values read themselves."""
    from clinqa.question.asks import asks_from
    from clinqa.question.terms import phrases_of, read_terms, terms_of, values_in
    from clinqa.retrieval.synonyms import expand
    from clinqa.text.unicode import fold_dashes, normalize
    from clinqa.text.words import words_of

    q = "NEWS2 score of 5 \u2013 CrCl 15\u201329: apixaban dose?"
    assert fold_dashes(q) == "NEWS2 score of 5 - CrCl 15-29: apixaban dose?"
    assert values_in(fold_dashes(q)) == named_values(q) == (("score", 5.0), ("crcl", 15.0))
    assert asks_from(q, fold_dashes(q), frozenset(words_of(q)), expand(q)) == read_asks(q)
    assert terms_of(q, normalize(q), phrases_of(expand(q)), max_zipf=4.0) == read_terms(q, max_zipf=4.0)


def test_a_negated_qualifier_states_its_opposites_and_is_contradicted_by_itself() -> None:
    """"non-severe CAP" was read as the qualifier "severe" (its word split at the hyphen), and the severe (ICU)
    regimen was quoted for a ward patient. Negated ("non-severe", "non severe", "not severe") and never stated
    alone, a qualifier states its opposites, and a heading that states the qualifier contradicts it."""
    assert qualifiers_of("non-severe CAP on the ward - antibiotics?") == [
        ("non-severe", ("non-severe", "non severe", "not severe", "mild"), ("severe",))]
    assert qualifiers_of("CAP, not severe") == qualifiers_of("non-severe CAP")
    assert qualifiers_of("severe CAP in ICU") == [("severe", ("severe",), ("mild", "non-severe"))]
    assert qualifiers_of("non-severe vs severe CAP") == [("severe", ("severe",), ("mild", "non-severe"))]
    hits = [chunk_hit("cap#icu#0", "Ceftriaxone plus azithromycin.", 1, ["Inpatient", "Severe CAP (ICU)"]),
            chunk_hit("cap#ward#0", "Amoxicillin plus clarithromycin.", 2, ["Inpatient", "Non-Severe CAP (Ward)"])]
    assert [h.rank for h in fitting_hits(hits, read_asks("non-severe CAP on the ward - antibiotics?"), 2)] == [2]
    assert [h.rank for h in fitting_hits(hits, read_asks("severe CAP - antibiotics?"), 2)] == [1]
