"""One text normaliser for chunk text and queries, so that what a user types matches what a
document says however either was typed.

:func:`normalize` applies Unicode NFKC (compatibility forms: the ligature "ﬁ" is "fi", a
non-breaking space is a space, full-width letters are ASCII) with these clinical exceptions and
additions:

* superscripts and vulgar fractions are kept as they are: NFKC would turn "10⁹/L" into "109/L"
  and "m²" into "m2";
* subscript digits are digits ("SpO₂", "PaCO₂", "FiO₂" are "SpO2", "PaCO2", "FiO2", as clinicians
  type them): a subscript never stands for another number (NFKC's own reading of them);
* the micro sign (U+00B5) and the Greek small letter mu (U+03BC) become one letter, the Greek mu
  (NFKC's choice), so "µmol/L" and "μmol/L" are the same word;
* typographic dashes and the minus sign (‐ ‑ ‒ – — ― − ﹣ －) become "-";
* typographic quotes (‘ ’ ‚ ‛ “ ” „ ‟ ′ ″ ‹ › « ») become ``'`` and ``"``;
* "≥" and "≤" are kept, and the ASCII spellings ">=" and "<=" become them, so either spelling
  matches the other ("=>" is left alone: in notes it is an arrow).

Applied to every chunk's body and header at chunking (:func:`clinqa.chunking.base.make_chunk`)
and to every query before encoding and BM25 (:func:`clinqa.retrieval.hybrid.hybrid_search`, the
stores' full-text queries). Pure-ASCII text without ">=" or "<=" is returned unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: every dash and minus sign clinqa reads as "-" (‐ ‑ ‒ – — ― − ﹣ －): the normaliser's and :func:`fold_dashes`'
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
_DASH_TABLE = str.maketrans({c: "-" for c in DASHES})
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2039\u203a"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
_TABLE = {**{ord(c): "-" for c in DASHES}, **{ord(c): "'" for c in _SINGLE_QUOTES},
          **{ord(c): '"' for c in _DOUBLE_QUOTES}, ord("\u00b5"): "\u03bc"}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_BOUNDS = re.compile(r">=|<=")
_KEEP_TAGS = ("<super>", "<fraction>")


@lru_cache(maxsize=4096)
def _char(c: str) -> str:
    mapped = c.translate(_TABLE)
    if mapped != c:
        return mapped
    if unicodedata.decomposition(c).startswith(_KEEP_TAGS):
        return c
    return unicodedata.normalize("NFKC", c).translate(_TABLE)


def normalize(text: str) -> str:
    """``text`` normalised as the module docstring says (same length or shorter except where NFKC
    expands a character, e.g. "ﬃ" -> "ffi"). Never raises; idempotent: ``normalize(normalize(t))
    == normalize(t)``."""
    if not text.isascii():
        text = _NON_ASCII.sub(lambda m: _char(m.group(0)), unicodedata.normalize("NFC", text))
    return _ASCII_BOUNDS.sub(lambda m: "≥" if m.group(0) == ">=" else "≤", text) if "=" in text else text


def fold_dashes(text: str) -> str:
    """``text`` with every dash and minus sign of :data:`DASHES` written "-" (same length; nothing else
    changes): "5–6" -> "5-6", "−2" -> "-2". The one dash folding of clinqa: the number and band grammar
    (:mod:`clinqa.text.quantities`), bands, named values and the extractive answer's row naming use it;
    :func:`normalize` folds the same characters."""
    return text.translate(_DASH_TABLE)


def is_blank(text: str) -> bool:
    """True when ``text`` holds nothing but whitespace (no-break spaces included) and invisible format
    characters (Unicode category Cf: zero-width space U+200B, joiners, the byte-order mark): an empty
    question, however it was typed or pasted."""
    return not "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()
