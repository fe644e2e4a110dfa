"""Abbreviations defined in the text itself: "long intergenic non-protein coding RNA p53-induced
transcript (LINC-PINT)".

Method: Schwartz & Hearst 2003, "A simple algorithm for identifying abbreviation definitions in
biomedical text" (Pacific Symposium on Biocomputing 8:451-462): a short form in parentheses, 2-10
characters with a letter, at most two words; the long form is searched for in the
``min(len(short) + 5, 2 * len(short))`` words before the parenthesis by matching the short form's
letters and digits right to left, the first one at the start of a word; the shortest such long form
is kept. Their reverse pattern, "SHORT (long form)" (a parenthesis of three or more words after a
single word), is read the same way ("CAP (Controlled Attenuation Parameter via FibroScan)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PAREN = re.compile(r"\(([^()]{2,10})\)")
#: "SHORT (three or more words)": the short form before a long parenthesis
_REVERSE = re.compile(r"(?<![\w-])([A-Za-z][\w-]{1,9})\s+\(([^()]{5,120})\)")


@dataclass(frozen=True)
class Definition:
    """One abbreviation defined in a text: ``short`` as written in the parentheses, ``long`` its
    long form as written, ``start`` the character offset of the long form in the text."""

    short: str
    long: str
    start: int


def best_long_form(short: str, candidate: str) -> str | None:
    """The shortest end of ``candidate`` whose letters and digits contain those of ``short`` in order,
    the first at the start of a word (Schwartz & Hearst 2003, their ``findBestLongForm``), or None.
    ``best_long_form("HSF", "the heat shock factor")`` is ``"heat shock factor"``."""
    s, i = len(short) - 1, len(candidate) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (candidate[i].lower() != c or (s == 0 and i > 0 and candidate[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    start = candidate.rfind(" ", 0, i + 1) + 1
    long = candidate[start:].strip()
    return long if long and long.lower() != short.lower() else None


def definitions(text: str) -> list[Definition]:
    """The abbreviations ``text`` defines as "long form (SHORT)", in order of appearance. A short form
    has 2-10 characters, a letter, starts with a letter or digit and has at most two words; a long
    form must be longer than its short form and may not contain the short form."""
    out: list[Definition] = []
    for m in _PAREN.finditer(text):
        short = m.group(1).strip()
        if (len(short) < 2 or not any(ch.isalpha() for ch in short) or not short[0].isalnum()
                or len(short.split()) > 2):
            continue
        before = text[:m.start()].rstrip()
        words = before.split()
        n = min(len(short) + 5, 2 * len(short))
        window = " ".join(words[-n:])
        long = best_long_form(short, window)
        if long is None or len(long) <= len(short) or short.lower() in long.lower().split():
            continue
        out.append(Definition(short, long, len(before) - len(long)))
    for m in _REVERSE.finditer(text):
        short, inside = m.group(1), m.group(2).strip()
        if len(inside.split()) < 3 or not short.isupper():
            continue
        long = best_long_form(short, inside.split(",")[0].split(";")[0])
        if long is not None and long.split()[0].lower().startswith(short[0].lower()):
            head = inside.split(",")[0].split(";")[0].strip()
            out.append(Definition(short, head, m.start(2)))
    return sorted(out, key=lambda d: d.start)
