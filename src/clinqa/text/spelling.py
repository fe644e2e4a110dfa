"""British to American spelling for matching (one fold, used by the key-term test, repair and the lexicon)."""

from __future__ import annotations

import re

__all__ = ["fold", "one_edit"]

_ISE = re.compile(r"(?<=[a-z]{3})(is|ys)(e|es|ed|ing|ation|ations|er|ers)$")


def fold(word: str) -> str:
    """British to American spelling for matching: "haemorrhage" -> "hemorrhage", "oedema" -> "edema",
    "ischaemic" -> "ischemic", "paediatric" -> "pediatric" (the digraphs ae/oe become e), and the -ise/-yse
    verbs with their derivatives to -ize/-yze ("visualise" -> "visualize", "randomisation" ->
    "randomization", "analysed" -> "analyzed"; Oxford Dictionaries' -ise/-ize variants)."""
    return _ISE.sub(lambda m: m.group(1)[0] + "z" + m.group(2), word.replace("ae", "e").replace("oe", "e"))


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit(word: str) -> set[str]:
    """Every string one edit from ``word`` (lower-case letters): a deletion, an insertion, a substitution or a
    transposition of adjacent letters (Damerau 1964), ``word`` itself left out. A word of n letters has about
    54n + 25 of them."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = ({a + b[1:] for a, b in splits if b}
             | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
             | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
             | {a + c + b for a, b in splits for c in _LETTERS})
    edits.discard(word)
    return edits
