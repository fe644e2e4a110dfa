"""The one curated table of clinqa's lexicon: what no kept resource and no corpus can give.

Latin dosing shorthand and ward slang are not in WordNet, not drug names, and a corpus of guidelines rarely
spells them out ("QDS" for "four times daily"). Each entry names its source; keep the table short, and add a
word here only when no resource of :mod:`clinqa.lexicon` finds it.

Sources:

- ``latin``: the Latin prescription abbreviations listed by the British National Formulary ("Latin abbreviations",
  BNF front matter) and the ISMP List of Error-Prone Abbreviations, Symbols, and Dose Designations (2021), which
  gives the American forms (BID, TID, QID, QHS).
- ``route``: routes of administration as abbreviated on drug charts (same two lists).
- ``ward``: clinical note shorthand as listed in the NHS Digital "Clinical abbreviations" guidance for
  professional record keeping (Academy of Medical Royal Colleges, "Please, write to me", 2018, appendix).
"""

from __future__ import annotations

#: short form (lower case) -> (its long forms, source)
SHORTHAND: dict[str, tuple[tuple[str, ...], str]] = {
    "od": (("once daily", "once a day", "daily"), "latin"),
    "qd": (("once daily", "once a day", "daily"), "latin"),
    "bd": (("twice daily", "twice a day", "bid", "every 12 hours", "q12h"), "latin"),
    "bid": (("twice daily", "twice a day", "bd", "every 12 hours", "q12h"), "latin"),
    "tds": (("three times daily", "three times a day", "tid", "every 8 hours", "q8h"), "latin"),
    "tid": (("three times daily", "three times a day", "tds", "every 8 hours", "q8h"), "latin"),
    "qds": (("four times daily", "four times a day", "qid", "every 6 hours", "q6h"), "latin"),
    "qid": (("four times daily", "four times a day", "qds", "every 6 hours", "q6h"), "latin"),
    "nocte": (("at night", "at bedtime", "qhs", "nightly"), "latin"),
    "qhs": (("at night", "at bedtime", "nocte", "nightly"), "latin"),
    "mane": (("in the morning", "every morning"), "latin"),
    "prn": (("as needed", "when required", "as required", "if needed"), "latin"),
    "stat": (("immediately", "at once", "single dose"), "latin"),
    "po": (("oral", "orally", "by mouth"), "route"),
    "iv": (("intravenous", "intravenously"), "route"),
    "im": (("intramuscular", "intramuscularly"), "route"),
    "sc": (("subcutaneous", "subcutaneously"), "route"),
    "sq": (("subcutaneous", "subcutaneously"), "route"),
    "subcut": (("subcutaneous", "subcutaneously"), "route"),
    "sl": (("sublingual", "sublingually"), "route"),
    "pr": (("rectal", "rectally", "per rectum"), "route"),
    "neb": (("nebulised", "nebulized", "nebuliser", "nebulizer"), "route"),
    "nebs": (("nebulised", "nebulized", "nebuliser", "nebulizer"), "route"),
    "nbm": (("nil by mouth", "npo"), "ward"),
    "npo": (("nil by mouth", "nothing by mouth"), "ward"),
    "pt": (("patient",), "ward"),
    "pts": (("patients",), "ward"),
    "hx": (("history",), "ward"),
    "tx": (("treatment", "therapy"), "ward"),
    "rx": (("treatment", "prescription", "therapy"), "ward"),
    "dx": (("diagnosis",), "ward"),
    "ddx": (("differential diagnosis",), "ward"),
    "sx": (("symptoms",), "ward"),
    "fx": (("fracture",), "ward"),
    "abx": (("antibiotics", "antibiotic"), "ward"),
    "obs": (("observations", "vital signs"), "ward"),
    "sats": (("oxygen saturation", "saturation", "spo2"), "ward"),
    "outpt": (("outpatient",), "ward"),
    "outpts": (("outpatients",), "ward"),
    "inpt": (("inpatient",), "ward"),
    "inpts": (("inpatients",), "ward"),
    "yo": (("year old", "years old"), "ward"),
    "yr": (("year",), "ward"),
    "yrs": (("years",), "ward"),
    "bx": (("biopsy",), "ward"),
    "wk": (("week",), "ward"),
    "wks": (("weeks",), "ward"),
    "wkly": (("weekly",), "ward"),
    "mth": (("month",), "ward"),
    "mths": (("months",), "ward"),
    "hypo": (("hypoglycaemia", "hypoglycemia"), "ward"),
    "hypos": (("hypoglycaemia", "hypoglycemia"), "ward"),
    "bloods": (("blood tests",), "ward"),
    "meds": (("medications", "medicines"), "ward"),
    "temp": (("temperature",), "ward"),
    "preg": (("pregnancy", "pregnant"), "ward"),
    "paeds": (("paediatric", "pediatric", "children"), "ward"),
    "peds": (("pediatric", "paediatric", "children"), "ward"),
}


def long_forms(short: str) -> tuple[str, ...]:
    """The long forms of ``short`` (any case), () when it is not in :data:`SHORTHAND`."""
    entry = SHORTHAND.get(short.lower().strip().rstrip("."))
    return entry[0] if entry else ()
