"""Stemmers: three, of increasing strength, each kept exactly as the scores that use it were built.

* :func:`s_stem`: Harman's S-stemmer (D. Harman, "How effective is suffixing?", JASIS 42(1), 1991),
  plurals only; BM25 terms (:func:`clinqa.store.sparse.index_terms`).
* :func:`light_stem`: a short suffix list (-ation(s), -ing(s), -ies, -ied, -es, -ed, -ly, -s, then a
  final -e); claim and cited-sentence content words (:func:`clinqa.answer.citations.content_words`).
* :func:`snowball_stem`: the Snowball English (Porter 2) stemmer (M. Porter, "Snowball: A language for
  stemming algorithms", 2001; package ``snowballstemmer``); key terms, unit overlap, scaffold words
  (:mod:`clinqa.decision.answerability`, :mod:`clinqa.answer.extractive`).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from typing import Any


def s_stem(word: str) -> str:
    """Harman's (1991) S-stemmer: fold an English plural to its singular (``"statins"`` ->
    ``"statin"``, ``"therapies"`` -> ``"therapy"``, ``"doses"`` -> ``"dose"``); words of 3
    characters or fewer are left alone. Rules, first match wins: ``-ies`` -> ``-y`` (not ``-eies``/
    ``-aies``), ``-es`` -> ``-e`` (not ``-aes``/``-ees``/``-oes``), ``-s`` -> ``""`` (not ``-us``/``-ss``).
    Case is kept (callers lower-case first)."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


_LIGHT_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")


def light_stem(word: str) -> str:
    """Light suffix stripping of a lower-cased ``word``: the first of -ations, -ation, -ings, -ing, -ies,
    -ied, -es, -ed, -ly, -s that leaves more than 3 characters goes ("es" only after s, x, z, ch, sh),
    then a final "e" of a stem over 4 characters, so "deteriorate", "deteriorates" and
    "deteriorated" share the stem "deteriorat"; "doses" -> "dose", "treatments" -> "treatment";
    "dosing" stays (a suffix must leave 4 characters or more)."""
    for suffix in _LIGHT_SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                continue
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


@lru_cache(maxsize=1)
def _snowball() -> Any:
    """The stemmer of ``snowballstemmer.stemmer("english")``: PyStemmer's C stemmer when it is installed,
    else the package's pure-Python ``EnglishStemmer``. That one is imported without the package's
    ``__init__``, which imports the stemmers of all its 30-odd languages (about 15 ms of a cold ``clinqa
    ask``): the package is registered with its ``__init__`` run on the first access to any other attribute
    (:func:`clinqa.deferred_import.defer_init`, as for LanceDB's REST client), so nothing is lost, only deferred."""
    from clinqa.deferred_import import defer_init

    if importlib.util.find_spec("Stemmer") is None and defer_init("snowballstemmer"):
        from snowballstemmer.english_stemmer import EnglishStemmer

        return EnglishStemmer()
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=1 << 16)
def snowball_stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of ``word``, lower-cased first: ``"Diabetes"`` ->
    ``"diabet"``, ``"treated"`` -> ``"treat"``. Cached (64k words): an answer stems the same
    passages' words several times."""
    return str(_snowball().stemWord(word.lower()))
