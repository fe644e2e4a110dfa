"""The evidence half of the key-term test (issue 48 item 4): which key terms each passage mentions
(:func:`clinqa.evidence.mentions.passage_mentions`), read before the decision judges which missing term is
decisive (:func:`clinqa.key_term_test.check`)."""

from __future__ import annotations

from clinqa.evidence.mentions import passage_mentions
from clinqa.key_term_test import check
from clinqa.question.terms import read_terms


def test_each_passage_mentions_its_terms_and_an_alternative_covers() -> None:
    profile = read_terms("Is colchicine or ibuprofen used for gout in pregnancy?", max_zipf=4.0)
    assert [t.text for t in profile.key_terms] == ["colchicine", "ibuprofen", "gout", "pregnancy"]
    found = passage_mentions(profile, ["Colchicine 500 micrograms is used for acute gout.",
                                       "Ibuprofen is avoided in pregnancy.", "Nothing here."])
    # rows: colchicine, ibuprofen, gout, pregnancy; columns: the three passages
    assert found.found == [[True, False, False], [False, True, False], [True, False, False], [False, True, False]]
    assert found.missing == [] and found.prevented == []
    assert found.alternatives == {"colchicine": {"ibuprofen"}, "ibuprofen": {"colchicine"}}
    # passage 1 names ibuprofen, the alternative of colchicine: it covers "colchicine" but not "gout"
    assert found.covers(1, ["colchicine"]) and not found.covers(1, ["colchicine", "gout"])
    assert found.covers(0, ["colchicine", "gout"]) and not found.covers(2, ["pregnancy"])


def test_a_condition_named_only_as_something_to_prevent_is_not_mentioned() -> None:
    profile = read_terms("What is the treatment for ventilator-associated pneumonia?", max_zipf=4.0)
    prevent = "Early enteral feeding is used to reduce the incidence of ventilator-associated pneumonia."
    treat = "Ventilator-associated pneumonia is treated with piperacillin."
    assert passage_mentions(profile, [prevent, treat]).found == [[False, True], [False, True]]
    alone = passage_mentions(profile, [prevent])
    assert alone.found == [[False], [False]]
    assert alone.prevented == ["ventilator-associated", "pneumonia"]
    assert [t.text for t in alone.missing] == ["ventilator-associated", "pneumonia"]
    # the decision reads the same table: the missing terms are its missing terms, and it names them prevented
    judged = check("What is the treatment for ventilator-associated pneumonia?", [prevent], max_zipf=4.0,
                   profile=profile)
    assert [t.text for t in judged.missing] == ["ventilator-associated", "pneumonia"]
    assert judged.prevented == ["ventilator-associated", "pneumonia"]


def test_a_thing_named_twice_in_the_question_is_mentioned_under_either_name() -> None:
    from clinqa.question.terms import named_twice

    # the second name in brackets right after the first; what a bracket says of a word is no second name
    assert named_twice("Kcentra (4F-PCC) dose?") == (("kcentra", "4F-PCC"), ("4f-pcc", "Kcentra"))
    assert named_twice("XR-NTX (injectable naltrexone) dose") == (
        ("xr-ntx", "injectable naltrexone"), ("injectable naltrexone", "XR-NTX"))
    assert named_twice("switched to TMP-SMX (not a FQ)") == ()
    assert named_twice("COPD grp B (mMRC 2, 0 exacerbations)") == ()
    assert named_twice("kidney function (eGFR) dropped") == ()  # "function" is a common word, no name
    profile = read_terms("Kcentra (4F-PCC) dose for warfarin-associated bleeding?", max_zipf=4.0)
    passage = "4F-PCC: 25-50 units/kg IV for warfarin-associated haemorrhage."
    found = passage_mentions(profile, [passage])
    assert "kcentra" in [t.text for t in profile.key_terms]
    assert "kcentra" not in [t.text for t in found.missing]
