"""Word tables that are derived from the standard library or from another form the code already has (issue 48):
each derived table equals, on every entry, the literal it replaced (written out here as it was)."""

from __future__ import annotations

import pytest

from clinqa.answer.identifiers import DEFAULT_ENTITIES, screen_identifiers
from clinqa.embedding.sentence_transformers import PRECISIONS
from clinqa.embedding.shipped import MODELS
from clinqa.question.repair import GREEK_NAMES
from clinqa.text.scripts import SUBSCRIPT_CHARS, SUPERSCRIPT_CHARS, superscript, unicode_scripts

OLD_SUPERSCRIPT = {
    "\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4", "\u2075": "5", "\u2076": "6",
    "\u2077": "7", "\u2078": "8", "\u2079": "9", "\u207a": "+", "\u207b": "-", "\u207c": "=", "\u207d": "(",
    "\u207e": ")", "\u207f": "n", "\u2071": "i",
}
OLD_SUBSCRIPT = {
    **{chr(0x2080 + d): str(d) for d in range(10)},
    "\u208a": "+", "\u208b": "-", "\u208c": "=", "\u208d": "(", "\u208e": ")",
    "\u2090": "a", "\u2091": "e", "\u2092": "o", "\u2093": "x", "\u2095": "h", "\u2096": "k", "\u2097": "l",
    "\u2098": "m", "\u2099": "n", "\u209a": "p", "\u209b": "s", "\u209c": "t",
}
OLD_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "θ": "theta",
             "κ": "kappa", "λ": "lambda", "τ": "tau", "ω": "omega"}


def test_script_tables_from_unicodedata_equal_the_old_literals() -> None:
    # nothing added: the ordinal indicators ª º (raised a / o) and the subscript schwa U+2094 stay out
    assert SUPERSCRIPT_CHARS == OLD_SUPERSCRIPT
    assert SUBSCRIPT_CHARS == OLD_SUBSCRIPT
    assert "\u00ba" not in SUPERSCRIPT_CHARS and "\u2094" not in SUBSCRIPT_CHARS
    assert unicode_scripts("x\u207b\u00b9 and H\u2082O") == "x^-1 and H2O"


def test_trademark_signs_and_their_letters() -> None:
    assert [superscript("Lipitor", c) for c in ("TM", "\u2122", "SM", "\u00ae", "\u00a9")] == [
        "\u2122", "\u2122", "\u2120", "\u00ae", "\u00a9"]


def test_greek_names_from_unicodedata_keep_every_old_letter() -> None:
    assert {k: GREEK_NAMES[k] for k in OLD_GREEK} == OLD_GREEK
    # what the derivation adds: the other small letters but mu (micro in "μg"), final sigma read as sigma
    assert {k: v for k, v in GREEK_NAMES.items() if k not in OLD_GREEK} == {
        "ζ": "zeta", "η": "eta", "ι": "iota", "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi", "ρ": "rho",
        "ς": "sigma", "σ": "sigma", "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi"}
    assert "μ" not in GREEK_NAMES


def test_enumerations_derived_from_their_other_form() -> None:
    assert PRECISIONS == ("auto", "full", "fp32", "bf16", "int8")  # the Literal of embedding.precision
    assert MODELS == ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-int8", "paraphrase-MiniLM-L3-v2",
                      "multilingual-e5-small-4bit", "all-mpnet-base-v2")  # the first alias per shipped package
    # the keys of the overlap ranks, in rank order (was ("PERSON", "PHONE_NUMBER", ...), the same seven)
    assert DEFAULT_ENTITIES == ("EMAIL_ADDRESS", "US_SSN", "MRN", "DOB", "PHONE_NUMBER", "ADDRESS", "PERSON")
    with pytest.raises(ValueError, match=r"unknown identifier types \['NAME'\]"):
        screen_identifiers("x", [], entities=("NAME",))


OLD_POPULATION_WORDS = {
    "child": "children", "children": "children", "kids": "children", "kid": "children", "paediatric": "children",
    "pediatric": "children", "toddler": "children", "toddlers": "children",
    "infant": "infants", "infants": "infants", "neonate": "infants", "neonates": "infants", "newborn": "infants",
    "newborns": "infants", "baby": "infants", "babies": "infants",
    "adolescent": "adolescents", "adolescents": "adolescents", "teenager": "adolescents",
    "teenagers": "adolescents", "teens": "adolescents",
    "pregnancy": "pregnancy", "pregnant": "pregnancy", "pregnancies": "pregnancy",
    "breastfeeding": "breastfeeding", "breast-feeding": "breastfeeding", "lactation": "breastfeeding",
    "lactating": "breastfeeding",
    "elderly": "older adults", "geriatric": "older adults",
    "renal": "renal impairment", "kidney": "renal impairment", "kidneys": "renal impairment",
    "hepatic": "hepatic impairment", "liver": "hepatic impairment",
    "dialysis": "dialysis", "haemodialysis": "dialysis", "hemodialysis": "dialysis", "esrd": "dialysis",
    "cancer": "cancer", "cancers": "cancer", "malignancy": "cancer", "oncology": "cancer",
}
#: question/followup.py's ADULTS and _NOT_POPULATION, and answer/citations.py's _POPULATION, as they were
OLD_ADULTS = {"adult", "adults", "men", "women", "man", "woman", "elderly", "older"}
OLD_NOT_POPULATION = {"dialysis", "haemodialysis", "hemodialysis", "esrd", "kidney", "kidneys", "renal", "liver",
                      "hepatic", "cancer", "cancers", "malignancy", "oncology"}
OLD_CLAIM_POPULATION = set("""child children pediatric paediatric infant infants neonate neonates newborn newborns
adolescent adolescents adult adults elderly pregnant pregnancy breastfeeding lactation lactating women men""".split())


def test_one_population_vocabulary() -> None:
    from clinqa.question.terms import PEOPLE_WORDS, POPULATION_WORDS, STATE_WORDS

    # the key terms' table: the same entries in the same order
    assert list(POPULATION_WORDS.items()) == list(OLD_POPULATION_WORDS.items())
    assert set(STATE_WORDS) == OLD_NOT_POPULATION
    # a follow-up's population words: the same set
    assert set(PEOPLE_WORDS) == (set(OLD_POPULATION_WORDS) | OLD_ADULTS) - OLD_NOT_POPULATION
    # the claim check of a model's answer: every old word, and these besides
    from clinqa.answer.citations import _POPULATION

    assert _POPULATION >= OLD_CLAIM_POPULATION and "older" not in _POPULATION  # "older than 2" is no population
    assert {
        "kids", "kid", "toddler", "toddlers", "baby", "babies", "teenager", "teenagers", "teens", "pregnancies",
        "breast-feeding", "geriatric", "man", "woman"} == _POPULATION - OLD_CLAIM_POPULATION


def test_age_units_are_the_duration_units_of_a_day_or_more() -> None:
    from clinqa.question.terms import patient_age_years, without_ages
    from clinqa.text.quantities import AGE_UNITS

    old = ("years", "year", "yrs", "yr", "y", "months", "month", "mo", "weeks", "week", "wk", "days", "day")
    assert set(AGE_UNITS) == set(old) | {"wks"}
    # within a unit, the longer spellings are still tried first ("years" before "year", "yrs", "yr" and "y")
    assert [u for u in AGE_UNITS if u.startswith("y")] == [u for u in old if u.startswith("y")]
    assert [u for u in AGE_UNITS if u.startswith("w")] == ["weeks", "week", "wks", "wk"]
    assert "6 wks old" not in without_ages("asthma in a 6 wks old infant")
    assert patient_age_years("a 6 wks old with fever") == 6 / 52
