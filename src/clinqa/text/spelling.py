"""British to American spelling for matching (one fold, used by the key-term test, repair and the lexicon)."""

from __future__ import annotations

import re

__all__ = ["fold"]

_ISE = re.compile(r"(?<=[a-z]{3})(is|ys)(e|es|ed|ing|ation|ations|er|ers)$")


def fold(word: str) -> str:
    """British to American spelling for matching: "haemorrhage" -> "hemorrhage", "oedema" -> "edema",
    "ischaemic" -> "ischemic", "paediatric" -> "pediatric" (the digraphs ae/oe become e), and the -ise/-yse
    verbs with their derivatives to -ize/-yze ("visualise" -> "visualize", "randomisation" ->
    "randomization", "analysed" -> "analyzed"; Oxford Dictionaries' -ise/-ize variants)."""
    return _ISE.sub(lambda m: m.group(1)[0] + "z" + m.group(2), word.replace("ae", "e").replace("oe", "e"))
