"""Negation: its cue words, the phrases that carry one and negate nothing, and the words a cue negates.

One grammar for every reader of negation: the claim check of a generated answer (:func:`negated`, read by
:mod:`clinqa.answer.citations`: a claim and the sentence it cites must agree on negation) and the question's
and a table row's negated words (:func:`negated_words`: "no surgery, immobility or trauma" negates three
things, so a row keyed by them is the row for another patient; :func:`clinqa.answer.extractive._unnamed_members`).

The scope of a cue is a simplification of NegEx (Chapman et al. 2001, "A simple algorithm for identifying
negated findings and diseases in discharge summaries", J Biomed Inform 34:301-310): the words after a
pre-negation cue, up to a scope break (a sentence or clause mark, a bracket, a dash, "but" and its kin) or
:data:`SCOPE_WORDS` words, whichever comes first. A comma ends it too, unless a list of negated things goes on
after it, its items coordinated by "or", "and" or "nor" as in NegEx's lists of findings ("no fever, chills or
rigors"); a vignette's next finding is not negated ("no diabetes, LDL 150").
"""

from __future__ import annotations

import re

from clinqa.text.words import ASCII_WORD

#: negation cues (NegEx's commonest pre-negation triggers, and "non" of "non-severe" written apart)
NEGATORS = frozenset("not no never nor neither cannot without none".split())
#: a contraction with a negation ("doesn't", "can't")
NEG_CONTRACTION = re.compile(r"\b\w+n't\b")
#: phrases with a negation word that negate nothing: bounds, "with or without", idioms (NegEx's pseudo-triggers)
NOT_NEGATION = re.compile(
    r"\b(?:no|not)\s+(?:more|less|fewer|greater|later|sooner|earlier|longer|higher|lower)\s+than\b|"
    r"\bnot\s+(?:exceeding|to\s+exceed)\b|\bfor\s+no\s+(?:apparent\s+|known\s+|obvious\s+|clear\s+|particular\s+)?"
    r"reason\b|\bwith\s+or\s+without\b|\bwhether\s+or\s+not\b|\bif\s+not\s+all\b|\bnot\s+only\b|\bno\s+matter\b",
    re.IGNORECASE)
#: the most words a cue negates
SCOPE_WORDS = 6
#: what ends a cue's scope between two words: a sentence or clause mark, a bracket, a bar, an arrow, or a dash with a
#: space before it ("not septic - abx?"); and the words that turn the clause ("no rash but wheeze")
_SCOPE_MARKS = frozenset(".;:?!()[]|→")
_SCOPE_TURNS = frozenset("but however although though whereas except then".split())


def negated(text: str) -> bool:
    """Whether ``text`` carries a negation cue (not, no, never, nor, cannot, without, n't ...);
    "no more than", "not exceeding", "with or without", "for no apparent reason" and similar
    phrases are not negations."""
    low = NOT_NEGATION.sub(" ", text.lower())
    return bool(NEG_CONTRACTION.search(low)) or any(w in NEGATORS for w in ASCII_WORD.findall(low))


def negated_words(text: str) -> frozenset[str]:
    """The words of ``text`` (lower case) that a negation cue negates: those after a cue of :data:`NEGATORS`
    (or "w/o", or "non-" of a hyphenated word, whose rest is negated), up to a scope break or
    :data:`SCOPE_WORDS` words (see the module docstring). "First DVT, no identifiable trigger (no surgery,
    immobility or trauma), finished 3 months" -> identifiable, trigger, surgery, immobility, or, trauma; "no
    more than 2 g" negates nothing. The cue words themselves are not returned. Never raises."""
    low = NOT_NEGATION.sub(" ", text.lower().replace("w/o", "without"))
    out: set[str] = set()
    left, end = 0, 0
    for m in ASCII_WORD.finditer(low):
        w, between = m.group(0), low[end:m.start()]
        end = m.end()
        dash = " -" in between or " –" in between or " —" in between
        if w in _SCOPE_TURNS or dash or any(c in _SCOPE_MARKS for c in between):
            left = 0
        elif left and "," in between and not _list_goes_on(low, m.start()):
            left = 0  # "no diabetes, LDL 150": a comma ends it unless a list of negated things goes on
        if w in NEGATORS or NEG_CONTRACTION.fullmatch(w):
            left = SCOPE_WORDS
            continue
        if w.startswith("non-") and len(w) > 4:
            out.add(w[4:])
        if left and w not in _SCOPE_TURNS:
            out.add(w)
            left -= 1
    return frozenset(out)


def _list_goes_on(low: str, start: int) -> bool:
    """After a comma in a cue's scope: does the clause from ``start`` to its next break coordinate the items with
    "or", "and" or "nor" ("no surgery, immobility or trauma"), so the negation goes on over it?"""
    end = len(low)
    for i in range(start, len(low)):
        if low[i] in _SCOPE_MARKS or low[i] == "," or low.startswith((" -", " –", " —"), i):
            end = i
            break
    return any(w in ("or", "and", "nor") for w in low[start:end].split())
