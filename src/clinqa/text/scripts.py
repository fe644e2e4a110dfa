"""Superscripts and subscripts as plain text, so that "40 x 10<sup>9</sup>/L" is never stored or quoted
as "40 x 109/L" (issue 42).

One form everywhere (loaders of HTML, JATS, Word and PDF, and Unicode super/subscript characters):

==========================  ===============================  ==========================================
what                        written                          examples
==========================  ===============================  ==========================================
exponent after a number     ``^`` + exponent                 10<sup>9</sup> -> ``10^9``, 10⁻³ -> ``10^-3``
signed exponent (anywhere)  ``^`` + exponent                 min<sup>−1</sup> -> ``min^-1``
2 or 3 after a unit, a      ``^`` + exponent                 m² -> ``m^2``, mm<sup>3</sup> -> ``mm^3``,
one-letter symbol or "chi"                                   I<sup>2</sup> -> ``I^2``, R² -> ``R^2``, Chi²
                                                             -> ``Chi^2``
ordinal after a number      joined                           1<sup>st</sup> -> ``1st``
raised o after a number     the degree sign                  38<sup>o</sup>C -> ``38°C``
charge (sign last)          joined, ``^`` after a digit      Ca<sup>2+</sup> -> ``Ca2+``, CD4⁺ -> ``CD4+``,
                                                             SO4<sup>2−</sup> -> ``SO4^2-``
® ™ © ℠ (and "TM")          joined                           Drug<sup>®</sup> -> ``Drug®``
citation/footnote marker    in brackets, glued               trial<sup>12</sup> -> ``trial[12]``,
                                                             5 mg<sup>a</sup> -> ``5 mg[a]``,
                                                             2019<sup>3,4</sup> -> ``2019[3,4]``
subscript                   joined                           CO<sub>2</sub> -> ``CO2``, HbA<sub>1c</sub>
                                                             -> ``HbA1c``, t<sub>1/2</sub> -> ``t1/2``
subscript digits after a    ``_`` + subscript                10<sub>2</sub> -> ``10_2``
digit
==========================  ===============================  ==========================================

Why ``^``: it is ASCII, it reads as "to the power" to a clinician and to a language model, and the
BM25 tokenizer (:data:`clinqa.text.words.TERM`, runs of letters and digits) splits at it, so the
stored "10^9/L" and a question's "10^9/L" both give the terms ``10``, ``9``, ``l``
(:func:`clinqa.store.sparse.index_terms`). A superscript is never merged into the number before it:
"109" would be a different, wrong number. Unicode superscript digits are letters-or-digits to the
tokenizer, so "10⁹" would be the single term ``10⁹``, which neither "10^9" nor "10 9" matches;
:func:`unicode_scripts` writes them in the same ``^`` form.

Citation and footnote markers are kept, in brackets (the plain-text convention of reference markers),
rather than dropped: a footnote letter on a dose in a table ("5 mg[a]") points to a caveat the reader
may need, and brackets make plain that the number is a reference, not a quantity. Glued (no space
before the bracket) so that sentence splitting and quoting see the marker as part of the word it marks.
A marker after a number is told from an exponent by its shape: a list or range ("3,4", "3-5"), a letter,
a symbol (* † ‡ § ¶ #), or a number after a year (1900-2099) or after "%". A lone number after any
other number is read as an exponent (``^``): "40<sup>12</sup>" as a citation would be unusual, and even
then "40^12" creates no false number.

Subscripts are joined without a marker because chemistry and clinical shorthand write them so in
plain text (CO2, PaO2, HbA1c, FEV1, Cmax); only subscript digits right after a digit get ``_``, which
the tokenizer also splits at, so no false number appears there either.
"""

from __future__ import annotations

import re
import unicodedata

from clinqa.text.unicode import fold_dashes
from clinqa.text.words import SPACES

__all__ = ["SUBSCRIPT_CHARS", "SUPERSCRIPT_CHARS", "subscript", "superscript", "unicode_scripts"]



def _script_chars(tag: str) -> dict[str, str]:
    """The superscript (``tag`` ``"<super>"``) or subscript (``"<sub>"``) characters of Latin-1 (U+00A0-U+00FF)
    and of the Superscripts and Subscripts block (U+2070-U+209F) -> the ASCII character they raise or lower,
    from :mod:`unicodedata`: a character named SUPERSCRIPT / SUBSCRIPT whose compatibility decomposition is
    ``tag`` of one character, folded by :func:`clinqa.text.unicode.fold_dashes` ("\u207b", a raised minus sign,
    is "-"), kept when that is ASCII ("\u00b2" -> "2", "\u2099" -> "n"; the subscript schwa U+2094 is left out;
    so are the ordinal indicators "\u00aa" / "\u00ba", which decompose to a raised a / o but are no
    superscripts)."""
    word = "SUPERSCRIPT" if tag == "<super>" else "SUBSCRIPT"
    out: dict[str, str] = {}
    for cp in [*range(0xA0, 0x100), *range(0x2070, 0x20A0)]:
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) != 2 or parts[0] != tag or word not in unicodedata.name(chr(cp), ""):
            continue
        plain = fold_dashes(chr(int(parts[1], 16)))
        if plain.isascii():
            out[chr(cp)] = plain
    return out


#: Unicode superscript characters -> ASCII (digits, signs, parentheses, n, i)
SUPERSCRIPT_CHARS: dict[str, str] = _script_chars("<super>")
#: Unicode subscript characters -> ASCII (digits, signs, parentheses, the subscript letters)
SUBSCRIPT_CHARS: dict[str, str] = _script_chars("<sub>")
_UNICODE_RUN = re.compile(f"([{''.join(SUPERSCRIPT_CHARS)}]+)|([{''.join(SUBSCRIPT_CHARS)}]+)")
_WS = SPACES
#: an exponent: a number, maybe signed ("9", "-3", "0.5", "+2")
_EXPONENT = re.compile(r"[+-]?\d+(?:\.\d+)?")
#: an electric charge: digits then a sign ("2+", "3-") or a sign alone ("+", "-", "++")
_CHARGE = re.compile(r"\d*[+-]|[+-]{2,3}")
_ORDINAL = re.compile(r"st|nd|rd|th", re.I)
#: a raised trade, service or copyright mark, written as the sign or as its letters ("TM", "SM": the NFKC forms of
#: the two letter signs) -> the sign
_TRADEMARK = {**{sign: sign for sign in "\u00ae\u2122\u00a9\u2120"},
              **{unicodedata.normalize("NFKC", sign): sign for sign in "\u2122\u2120"}}
#: a citation or footnote marker: numbers in lists/ranges, 1-2 letters, symbols
_MARKER = re.compile(r"\d+(?:\s*[,;\-]\s*\d+)*|[^\W_]{1,4}|[*\u2020\u2021\u00a7\u00b6#]{1,3}")
_TRAILING_NUMBER = re.compile(r"(\d+(?:[.,]\d+)*)$")
_TRAILING_WORD = re.compile(r"([^\W\d_]+)$")
_YEAR = re.compile(r"(?:19|20)\d\d")
#: units (and their prefixed forms) that take a square or cube: "m²", "mm^3", "cm^2"
_UNITS = frozenset({
    "m", "cm", "mm", "km", "dm", "nm", "µm", "μm", "um", "l", "dl", "ml", "µl", "μl", "ul", "s", "sec", "min",
    "h", "hr", "g", "kg", "mg", "µg", "μg", "ug", "ng", "mol", "mmol", "µmol", "μmol", "umol", "ft", "yd",
})


def _clean(content: str) -> str:
    return fold_dashes(_WS.sub(" ", content).strip())


def _marker(content: str) -> str:
    return f"[{_WS.sub('', content) if content[:1].isdigit() else content}]"


def superscript(before: str, content: str) -> str:
    """The text that stands for superscript ``content`` written right after ``before`` (the text up to
    it; only its last characters are read). Appended to ``before`` as it is (it carries its own
    separator when one is needed): ``before + superscript(before, content)``.

    >>> superscript("40 x 10", "9"), superscript("1.73 m", "2"), superscript("the trial", "12")
    ('^9', '^2', '[12]')

    Forms and reasons: module docstring. Never raises; "" for blank ``content``.
    """
    c = _clean(content)
    if not c:
        return ""
    last = before.rstrip()[-1:]
    if c in _TRADEMARK:
        return _TRADEMARK[c]
    digit_before = last.isdigit()
    if digit_before and c.lower() in ("o", "º", "°"):  # "38<sup>o</sup>C": a degree sign typed as a raised o
        return "°"
    if digit_before and _ORDINAL.fullmatch(c):
        return c
    if _EXPONENT.fullmatch(c):
        if c[0] in "+-":
            return f"^{c}"
        if digit_before:
            number = _TRAILING_NUMBER.search(before)
            if number and _YEAR.fullmatch(number.group(1)):
                return _marker(c)
            return f"^{c}"
        word = _TRAILING_WORD.search(before)
        if word and c in ("2", "3") and ((len(word.group(1)) == 1 and word.group(1) != "a")
                                         or word.group(1).lower() in _UNITS or word.group(1).lower() == "chi"):
            return f"^{c}"
        return _marker(c)
    if _CHARGE.fullmatch(c):
        return f"^{c}" if digit_before and c[0].isdigit() else c
    if _MARKER.fullmatch(c):
        return _marker(c)
    if digit_before and " " not in c:
        return f"^({c})"
    return f" {c} " if before[-1:].strip() else f"{c} "


def subscript(before: str, content: str) -> str:
    """The text that stands for subscript ``content`` written right after ``before``: the subscript
    joined (CO2, HbA1c, t1/2), or ``_`` + subscript when it starts with a digit and ``before`` ends with
    one (so that no false number appears). Appended to ``before`` as is. Never raises; "" for blank
    ``content``.

    >>> subscript("CO", "2"), subscript("HbA", "1c"), subscript("10", "2")
    ('2', '1c', '_2')
    """
    c = _clean(content)
    if not c:
        return ""
    if before[-1:].isdigit() and c[0].isdigit():
        return f"_{c}"
    return c


def unicode_scripts(text: str) -> str:
    """``text`` with every run of Unicode superscript characters (⁰-⁹ ¹ ² ³ ⁺ ⁻ ⁼ ⁽ ⁾ ⁿ ⁱ) and subscript
    characters (₀-₉ ₊ ₋ ₌ ₍ ₎ ₐ ₑ ₒ ₓ ...) written in the forms of :func:`superscript` and
    :func:`subscript`: "10⁹/L" -> "10^9/L", "1.73 m²" -> "1.73 m^2", "H₂O" -> "H2O", "Ca²⁺" -> "Ca2+".
    A lone superscript sign right before a baseline digit is a mis-encoded dash, written as the plain
    sign: "exons 45⁻55" -> "exons 45-55" (BioASQ has it), not "45^-55". Text without them is returned
    unchanged (the same object). Never raises.
    """
    if not _UNICODE_RUN.search(text):
        return text
    out: list[str] = []
    pos = 0
    tail = ""  # the last characters written: all the rules read
    for m in _UNICODE_RUN.finditer(text):
        out.append(text[pos:m.start()])
        tail = (tail + text[pos:m.start()])[-40:]
        if m.group(1) and m.group(1) in ("\u207a", "\u207b") and text[m.end():m.end() + 1].isdigit():
            written = SUPERSCRIPT_CHARS[m.group(1)]  # "45⁻55": a dash mis-encoded, not an exponent's sign
        elif m.group(1):
            written = superscript(tail, "".join(SUPERSCRIPT_CHARS[ch] for ch in m.group(1)))
        else:
            written = subscript(tail, "".join(SUBSCRIPT_CHARS[ch] for ch in m.group(2)))
        out.append(written)
        tail = (tail + written)[-40:]
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)
