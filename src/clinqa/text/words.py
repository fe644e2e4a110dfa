"""Word patterns: one compiled regex per tokenisation rule clinqa uses, and the word lists built
from them.

The rules differ on purpose (each feeds a score or a verdict that must not move), so each has its
own name instead of one "word" that would change one of them:

=====================  ==========================================  =========================================
pattern                rule                                         used by
=====================  ==========================================  =========================================
:data:`TERM`           runs of letters/digits (``[^\\W_]+``):        BM25 index and query terms
                       every other character splits                 (:func:`clinqa.store.sparse.index_terms`)
:data:`WORD`           :data:`TERM` runs joined by inner ``-`` or   corpus vocabulary, question content words,
                       ``'`` ("beta-blocker", "crohn's")            key terms (:func:`words_of`)
:data:`JOINED_WORD`    :data:`TERM` runs joined by inner ``- . /``  near-copy shingles
                       ``'`` or ``\u2019`` ("2.5", "mg/dl")          (:func:`clinqa.retrieval.dedup.shingles`)
:data:`ASCII_WORD`     an ASCII letter, then ASCII letters, digits,  claim/citation content words, negation
                       ``'`` and ``-`` (text lower-cased first)     (:mod:`clinqa.answer.citations`)
:data:`ASCII_TOKEN`    an ASCII letter or digit, then letters,      clinical-term tokens of a query
                       digits and ``-``; case kept                  (:mod:`clinqa.retrieval.weights`)
=====================  ==========================================  =========================================

``[^\\W_]`` is Python's Unicode "letter or digit" (``\\w`` without the underscore), so "µmol" and
"naïve" are one word for the first three patterns and split for the ASCII ones.
"""

from __future__ import annotations

import re

#: BM25 term: a run of Unicode letters and digits (LanceDB's simple tokenizer splits the same way)
TERM = re.compile(r"[^\W_]+", re.UNICODE)
#: a word: letters and digits, inner hyphens and apostrophes kept ("beta-blocker", "crohn's")
WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
#: a word keeping - . / ' and the typographic apostrophe between letters/digits ("2.5", "2-3", "mg/dl", "o'clock")
JOINED_WORD = re.compile(r"[^\W_]+(?:[-./'\u2019][^\W_]+)*")
#: an ASCII word of lower-cased text: a letter, then letters, digits, ' and - ("don't", "covid-19", "n'")
ASCII_WORD = re.compile(r"[a-z][a-z0-9'-]*")
#: an ASCII token of text as typed: a letter or digit, then letters, digits and - ("SGLT2", "NT-proBNP")
ASCII_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_WORD_PARTS = re.compile(r"[-']")
#: a run of lower-case ASCII letters (text lower-cased first): the Zipf table's words, the injection screen's
#: trigger words, a follow-up's route words
LETTER_RUN = re.compile(r"[a-z]+")
#: a run of lower-case ASCII letters and digits (text lower-cased first): the words of a sense or phrase the
#: lexicon checks against the corpus
ALNUM_RUN = re.compile(r"[a-z0-9]+")
#: a run of word characters (``\w+``: Unicode letters, digits and the underscore), case kept
WORD_CHARS = re.compile(r"\w+")
#: a run of anything but whitespace: a whitespace-separated word with its punctuation
NON_SPACE = re.compile(r"\S+")
#: a run of whitespace, to squeeze to one space or split on
SPACES = re.compile(r"\s+")
#: a run of whitespace and hyphens: the split between the words of a phrase ("beta-blocker" -> "beta", "blocker")
SPACE_OR_HYPHEN = re.compile(r"[\s-]+")
#: a word as typed (an ASCII letter, then word characters, apostrophes, hyphens), else one other non-space character
TYPED_TOKEN = re.compile(r"[A-Za-z][\w'-]*|[^\sA-Za-z]")
#: Greek and Latin suffixes of conditions and procedures (-itis, -osis, -aemia, -pathy, -ectomy ...): a word
#: with one names a condition or procedure even when general English knows it well ("meningitis" Zipf 3.1)
CLINICAL_SUFFIX = re.compile(r"(?:itis|osis|a?emia|pathy|ectomy|otomy|plasty|algia|uria|penia|cytosis|iasis)$")


def whole_word(phrase: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``phrase`` (escaped, taken literally) as a whole word: not inside a longer word nor a hyphenated compound
    (``(?<![\\w-])`` before, ``(?![\\w-])`` after), so "iron" is not found in "irons" or "iron-deficiency".
    ``flags``: ``re`` flags (``re.IGNORECASE``). Compiled through ``re``'s own cache."""
    return re.compile(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", flags)


def bounded_word(phrase: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``phrase`` (escaped, taken literally) between word boundaries (``\\b``): unlike :func:`whole_word`, a
    hyphen bounds it ("before" is found in "before-surgery"). ``flags``: ``re`` flags."""
    return re.compile(r"\b" + re.escape(phrase) + r"\b", flags)


def terms(text: str) -> list[str]:
    """:data:`TERM` matches of lower-cased ``text``, in order, repeats kept:
    ``terms("eGFR<30")`` is ``["egfr", "30"]``. No normalisation, stop words or stemming (see
    :func:`clinqa.store.sparse.index_terms` for the BM25 terms)."""
    return TERM.findall(text.lower())


def words_of(text: str) -> list[str]:
    """Lower-cased words of ``text`` (:data:`WORD`), in order, duplicates kept; a word with a hyphen or
    apostrophe is followed by its parts: ``words_of("Amoxicillin-clavulanate")`` is
    ``["amoxicillin-clavulanate", "amoxicillin", "clavulanate"]``."""
    out: list[str] = []
    for m in WORD.finditer(text.lower()):
        w = m.group(0)
        out.append(w)
        if "-" in w or "'" in w:
            out.extend(p for p in _WORD_PARTS.split(w) if p)
    return out


def word_parts(word: str) -> list[str]:
    """The non-empty pieces of ``word`` between hyphens and apostrophes:
    ``word_parts("beta-blocker")`` is ``["beta", "blocker"]``; a word without either is ``[word]``."""
    return [p for p in _WORD_PARTS.split(word) if p]


def joined_words(text: str) -> list[str]:
    """:data:`JOINED_WORD` matches of lower-cased ``text`` in order: ``joined_words("0.9 mg/kg")`` is
    ``["0.9", "mg/kg"]``."""
    return JOINED_WORD.findall(text.lower())


def ascii_words(text: str) -> list[str]:
    """:data:`ASCII_WORD` matches of lower-cased ``text`` in order (apostrophes and hyphens kept, also at
    the end: ``ascii_words("patients' eGFR<30")`` is ``["patients'", "egfr"]``)."""
    return ASCII_WORD.findall(text.lower())
