"""Reading the question before it is searched: spelling repair against the corpus vocabulary and its
time intent applied to the filters. Pure functions over what the pipeline hands in (a vocabulary, the
filters, what the store knows about dates), so ``Pipeline.ask`` only wires them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from clinqa.retrieval.vocabulary import WORD, Vocabulary

#: a run of letters then a run of digits, one word ("curb65", "covid19")
LETTERS_DIGITS = re.compile(r"([a-z]{2,})(\d+)")
#: a number then a run of letters, one word ("70kg", "10y", "5mg")
DIGITS_LETTERS = re.compile(r"(\d+)([a-z]+)")
#: the warning of a question without a patient to a store that holds patient notes (never searched then)
PATIENT_HINT = "patient notes are searched only for one patient (--patient ID); this question searched none"


def _greek_names() -> dict[str, str]:
    """The small Greek letters α-ω -> their English names, from their Unicode names ("GREEK SMALL LETTER BETA"
    -> "beta"; Unicode spells lambda "LAMDA", read as "lambda"; final sigma "ς" is "sigma"); not mu, which stands
    for micro in units ("μg")."""
    out: dict[str, str] = {}
    for cp in range(ord("α"), ord("ω") + 1):
        name = unicodedata.name(chr(cp)).removeprefix("GREEK SMALL LETTER ").removeprefix("FINAL ").lower()
        if name != "mu":
            out[chr(cp)] = "lambda" if name == "lamda" else name
    return out


#: Greek letters that clinical names spell out ("β-blocker" / "beta-blocker", "TNF-α" / "TNF-alpha"): the small
#: letters α-ω but mu, final sigma included, 24 in all (:func:`_greek_names`)
GREEK_NAMES: dict[str, str] = _greek_names()


def _unglued(word: str, low: str, letters: re.Match[str] | None, vocab: Vocabulary,
             known: Callable[[str], bool] | None) -> str | None:
    """``word`` split where a number meets a word typed without the space between them, or None: a run of
    letters the corpus has and a number ("CKD4" -> "CKD 4", "NYHA3" -> "NYHA 3"), or a number and a unit of the
    unit table (:data:`clinqa.text.quantities.UNITS`: "70kg" -> "70 kg", "10y" -> "10 y"). Only a word the corpus
    lacks as typed (``low``, lower case, not in ``vocab``) and the lexicon does not know (``known``) is split; as
    typed, each part keeps its case. ``letters``: :data:`LETTERS_DIGITS` matched on ``low`` (the caller read it for
    the hyphen repair; None when ``low`` is no run of letters then digits)."""
    from clinqa.text.quantities import UNITS

    if low in vocab or (known is not None and known(low)):
        return None
    if letters and letters.group(1) in vocab:
        cut = len(letters.group(1))
    else:
        number = DIGITS_LETTERS.fullmatch(low)
        if not number or number.group(2) not in UNITS:
            return None
        cut = len(number.group(1))
    return f"{word[:cut]} {word[cut:]}"


def repair_question(question: str, vocab: Vocabulary, below: float | None = None,
                    known: Callable[[str], bool] | None = None,
                    rename: Callable[[str], str | None] | None = None,
                    typo: Callable[[str], str | None] | None = None) -> tuple[str, dict[str, str]]:
    """``question`` with its misspelt words replaced by the corpus words they most likely mean
    (:meth:`clinqa.retrieval.vocabulary.Vocabulary.repair`), and the replacements made.

    Only words of at least 5 letters that no passage has (American spelling tried too), that
    are rare in general English (Zipf < ``below``, ``answer.rarity.repair_below``, 2.5 by default: a
    misspelling, not another word) and that are not the
    name of a drug by a class suffix of the synonym table (:func:`clinqa.retrieval.synonyms.
    names_a_class_member`: "dapagliflozin" is never read as "empagliflozin") are repaired, and a
    name of letters and digits typed without the hyphen the corpus writes ("CURB65" -> "CURB-65"), and a
    Greek letter the corpus spells out ("β-blocker" -> "beta-blocker": :data:`GREEK_NAMES`, when the
    corpus lacks the word as typed and has the spelled form or each of its parts), and a number glued to a
    word the corpus has or to a unit (:func:`_unglued`: "CKD4" -> "CKD 4", "70kg" -> "70 kg"). ``vocab``: the
    corpus vocabulary (for a patient-scoped query, plus that patient's own notes). ``known(word)``: a word it
    knows is never repaired (the lexicon's :meth:`clinqa.lexicon.Lexicon.knows`: a drug or brand name, a WordNet
    word, ward shorthand such as "outpt", an abbreviation the corpus defines). ``rename(word)``: the corpus's own
    name of a word the corpus lacks (the lexicon's :meth:`clinqa.lexicon.Lexicon.corpus_name`: "Eliquis" ->
    "apixaban", "frusemide" -> "furosemide", "cirrhotic" -> "cirrhosis"), used in its place. ``typo(word)``: the common
    English word a misspelling is one edit from (:func:`clinqa.lexicon.typo_of`: "atack" -> "attack"), tried before
    the corpus's nearest word, which may be a rarer one ("ATACH", a trial)."""
    from clinqa.question.terms import default_rarity, fold
    from clinqa.retrieval.synonyms import names_a_class_member
    from clinqa.text.zipf import zipf

    below = default_rarity().repair_below if below is None else below

    fixes: dict[str, str] = {}
    out, last = [], 0
    for m in WORD.finditer(question):
        w = m.group(0)
        low = w.lower()
        if any(g in low for g in GREEK_NAMES) and low not in vocab:
            spelled = "".join(GREEK_NAMES.get(ch, ch) for ch in w)  # "β-blocker" -> "beta-blocker"
            if spelled.lower() in vocab or all(p in vocab for p in spelled.lower().split("-") if p):
                fixes[w] = spelled
                out.append(question[last:m.start()] + spelled)
                last = m.end()
            continue
        joined = LETTERS_DIGITS.fullmatch(low)
        if joined and low not in vocab and f"{joined.group(1)}-{joined.group(2)}" in vocab:
            fixed = f"{w[:len(joined.group(1))]}-{joined.group(2)}"  # "CURB65" -> "CURB-65", as typed
            fixes[w] = fixed
            out.append(question[last:m.start()] + fixed)
            last = m.end()
            continue
        glued = _unglued(w, low, joined, vocab, known)
        if glued:
            fixes[w] = glued
            out.append(question[last:m.start()] + glued)
            last = m.end()
            continue
        if (len(low) < 5 or not low.isalpha() or low in vocab or fold(low) in vocab
                or zipf(low) >= below or names_a_class_member(low) or (known is not None and known(low))):
            # a drug's own name ("dapagliflozin" for a patient never on it) is no typo; a name the lexicon knows
            # is read as the corpus's name for it ("Eliquis" -> "apixaban")
            named = rename(w) if rename is not None and low not in vocab else None
            if named:
                fixes[w] = named
                out.append(question[last:m.start()] + named)
                last = m.end()
            continue
        # the corpus's own name first (a clipping: "resus" -> resuscitation, "anticoag" -> anticoagulation), then a
        # common English word one edit away, then the corpus's nearest word
        fixed = ((rename(w) if rename is not None else None) or (typo(low) if typo is not None else None)
                 or vocab.repair(low))
        if fixed:
            fixes[w] = fixed
            out.append(question[last:m.start()] + fixed)
            last = m.end()
    return "".join(out) + question[last:], fixes
