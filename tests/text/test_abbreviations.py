"""Abbreviations a text defines (clinqa.text.abbreviations, Schwartz & Hearst 2003)."""

from clinqa.text.abbreviations import Definition, best_long_form, definitions


def test_long_forms_found_by_hand():
    text = "List types of cancer where Long intergenic nonprotein coding RNA p53-induced transcript (LINC-PINT) is"
    assert definitions(text) == [Definition("LINC-PINT", "Long intergenic nonprotein coding RNA p53-induced "
                                            "transcript", 27)]
    assert definitions("patients with atrial fibrillation (AF) and")[0].long == "atrial fibrillation"
    assert definitions("community-acquired pneumonia (CAP)")[0].long == "community-acquired pneumonia"
    # the first letter must start a word: "the" is not part of "heat shock factor"
    assert best_long_form("HSF", "binding of the heat shock factor") == "heat shock factor"
    # the shortest long form: "supranuclear palsy" alone lacks the P of "progressive"
    assert definitions("in progressive supranuclear palsy (PSP)")[0].long == "progressive supranuclear palsy"


def test_what_is_not_a_definition():
    assert definitions("Give amoxicillin (500 mg) three times daily") == []  # no long form ends in m, g
    assert definitions("the dose (mg) of") == []
    assert definitions("treated (yes) or not") == []
    assert definitions("a word (a) here") == []  # one character
    assert definitions("see the long list of reasons (as shown in table two of the appendix)") == []  # > 10 chars
    assert best_long_form("XYZ", "nothing matches here") is None


def test_the_reverse_pattern_short_form_then_long_form():
    d = definitions("CAP (Controlled Attenuation Parameter via FibroScan): ≥ 288 dB/m suggests steatosis.")
    assert [(x.short, x.long) for x in d] == [("CAP", "Controlled Attenuation Parameter via FibroScan")]
    assert definitions("Give IV (umbilical vein) epinephrine") == []  # two words: not a definition
