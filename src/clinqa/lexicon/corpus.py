"""Abbreviations the corpus itself explains, mined when its vocabulary is built (and stored with it,
``<data_dir>/vocabulary.json``).

Three kinds:

- **defined**: "long form (SHORT)" in the text (Schwartz & Hearst 2003: :func:`clinqa.text.abbreviations.definitions`);
- **initialisms**: a short form the user types whose letters begin, in order, the words of a phrase the corpus uses
  ("SVT" -> "supraventricular tachycardia", "PPH" -> "postpartum haemorrhage", "DKA" -> "diabetic ketoacidosis"):
  :func:`spells`. The corpus phrases are its 2-4 word runs of letters seen in at least :data:`MIN_PHRASE` chunks
  whose first and last words are not stop words (:func:`phrases_of`);
- **clipped words**: a lower-case short form that begins a longer corpus word ("amox" -> "amoxicillin",
  "pred" -> "prednisolone"): :func:`clipped`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from clinqa.text.abbreviations import definitions
from clinqa.text.stopwords import QUESTION_STOP_WORDS as STOP
from clinqa.text.words import SPACE_OR_HYPHEN

#: a phrase is kept when this many chunks have it
MIN_PHRASE = 2
#: at most this many chunks are read for phrases (evenly spaced), so a 300k-chunk store builds in seconds
MAX_PHRASE_CHUNKS = 40_000
#: words that may stand inside an initialism's phrase without a letter of it ("heart failure with reduced
#: ejection fraction" is HFrEF)
GLUE = frozenset({"of", "and", "with", "in", "the", "to", "for"})
#: a word gives letters from inside it only when it has at least this many letters
INNER_LETTERS_FROM = 9
_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:\s+[A-Za-z][A-Za-z'-]*)+")


def phrases_of(texts: Iterable[str], limit: int = MAX_PHRASE_CHUNKS) -> dict[str, int]:
    """Chunks per lower-case phrase of 2-4 words (runs of letters, no punctuation between) whose first and last
    words are not stop words, kept when at least :data:`MIN_PHRASE` chunks have it. ``texts``: a list or any
    iterable; when a list is longer than ``limit`` every n-th text is read."""
    texts = list(texts)
    step = max(1, -(-len(texts) // limit))
    counts: Counter[str] = Counter()
    for text in texts[::step]:
        seen: set[str] = set()
        for run in _RUN.finditer(text):
            ws = run.group(0).lower().split()
            for n in (2, 3, 4):
                for i in range(len(ws) - n + 1):
                    if ws[i] in STOP or ws[i + n - 1] in STOP:
                        continue
                    seen.add(" ".join(ws[i:i + n]))
        counts.update(seen)
    return {p: n for p, n in counts.items() if n >= MIN_PHRASE}


def defined_in(texts: Iterable[str]) -> dict[str, dict[str, int]]:
    """short form (lower case) -> {long form (lower case): chunks defining it so}."""
    out: dict[str, dict[str, int]] = {}
    for text in texts:
        for d in definitions(text):
            long = " ".join(d.long.lower().split())
            forms = out.setdefault(d.short.lower(), {})
            forms[long] = forms.get(long, 0) + 1
    return out


def _align(letters: str, words: list[str], is_word: Callable[[str], bool] | None = None) -> int | None:
    """The number of word-initial letters when ``letters`` spell ``words`` (module docstring), else None: each
    word not in :data:`GLUE` gives a non-empty run of the letters, the first at its start, the rest in order
    inside it, where an inner letter must begin the rest of a compound, a word of its own that ``is_word`` knows
    ("supra|ventricular", "keto|acidosis"; without ``is_word`` any inner letter counts); glue words may give none;
    every letter is used."""

    def go(li: int, wi: int) -> int | None:
        if wi == len(words):
            return 0 if li == len(letters) else None
        w = words[wi]
        best = go(li, wi + 1) if w in GLUE else None
        if li < len(letters) and w[0] == letters[li]:
            # the word gives letters[li] (initial) and then letters[li+1 .. li+k] found in order inside it (only a
            # long, compound-like word gives inner letters: "supraventricular", "ketoacidosis", "postpartum")
            pos, k = 1, 0
            while True:
                rest = go(li + 1 + k, wi + 1)
                if rest is not None:
                    best = max(best or 0, rest + 1)
                if li + 1 + k >= len(letters) or len(w) < INNER_LETTERS_FROM:
                    break
                nxt = w.find(letters[li + 1 + k], pos)
                while nxt >= 0 and is_word is not None and not (len(w) - nxt >= 4 and is_word(w[nxt:])):
                    nxt = w.find(letters[li + 1 + k], nxt + 1)
                if nxt < 0:
                    break
                pos, k = nxt + 1, k + 1
        return best

    return go(0, 0)


def spells(short: str, phrase: str, is_word: Callable[[str], bool] | None = None) -> int | None:
    """How many letters of ``short`` (an initialism, letters only) begin words of ``phrase``, when its letters spell
    the phrase (:func:`_align`: "SVT" and "supraventricular tachycardia" -> 2; "PPH" and "post-partum
    haemorrhage" -> 3, a hyphen parts words), else None."""
    letters = "".join(ch for ch in short.lower() if ch.isalpha())
    words = [w for w in SPACE_OR_HYPHEN.split(phrase.lower()) if w]
    if len(letters) < 2 or len(words) < 2 or len(words) > len(letters) + 2:
        return None
    if len(letters) == 2:  # two letters spell too much by chance: two words, each giving its initial only
        return 2 if len(words) == 2 and words[0][0] == letters[0] and words[1][0] == letters[1] else None
    return _align(letters, words, is_word)


def phrase_index(phrases: Mapping[str, int]) -> dict[str, list[tuple[str, int, str, int]]]:
    """``phrases`` by first character, each as ``(phrase, chunks, initials, words)``: ``initials`` the first letters
    of its words outside :data:`GLUE`, ``words`` how many words it has (split as :func:`spells` splits; phrases
    of one word are left out). An initialism can spell a phrase only when those initials come in its letters in
    order (every word outside GLUE begins a run of them) and the phrase has at most two words more than it has
    letters: :func:`initialism_phrases` checks that first, so it aligns a few phrases, not every phrase of a
    large corpus (300k chunks: about 8,000 per initialism). Build it once per vocabulary."""
    out: dict[str, list[tuple[str, int, str, int]]] = {}
    for p, n in phrases.items():
        words = [w for w in SPACE_OR_HYPHEN.split(p.lower()) if w]
        if len(words) < 2 or not p:
            continue
        out.setdefault(p[0], []).append((p, n, "".join(w[0] for w in words if w not in GLUE), len(words)))
    return out


def _in_order(initials: str, letters: str) -> bool:
    """Is ``initials`` a subsequence of ``letters``?"""
    it = iter(letters)
    return all(c in it for c in initials)


def initialism_phrases(short: str, phrases: Mapping[str, int], most: int = 3,
                       is_term: Callable[[str], bool] | None = None,
                       is_word: Callable[[str], bool] | None = None,
                       index: Mapping[str, list[tuple[str, int, str, int]]] | None = None) -> tuple[str, ...]:
    """The corpus phrases ``short`` may stand for (:func:`spells`), best first: most word-initial letters, then
    most chunks; at most ``most``. Phrases with fewer than half the letters word-initial are left out (chance
    spellings); a phrase that takes letters from inside a word must also end in a word ``is_term`` accepts (the
    lexicon passes "names a clinical entity": "diabetic ketoacidosis", not "severe traumatic"); a two-letter
    initialism needs a phrase in at least three chunks ("respiratory rate", not a chance pair). ``index``: the
    :func:`phrase_index` of ``phrases`` when the caller keeps one (built here otherwise)."""
    letters = "".join(ch for ch in short.lower() if ch.isalpha())
    if not 2 <= len(letters) <= 6:
        return ()
    found = []
    for p, n, initials, words in (index if index is not None else phrase_index(phrases)).get(letters[0], ()):
        if words > len(letters) + 2 or not _in_order(initials, letters):
            continue  # cannot spell (:func:`phrase_index`): skip the alignment
        s = spells(letters, p, is_word)
        if s is None or 2 * s < len(letters) or (len(letters) == 2 and n < 3):
            continue
        if s == len(letters) or is_term is None or is_term(p.split()[-1]):
            found.append((s, n, p))
    found.sort(key=lambda t: (-t[0], -t[1], t[2]))
    return tuple(p for _, _, p in found[:most])


def clipped(word: str, counts: Mapping[str, int], most: int = 3) -> tuple[str, ...]:
    """Corpus words that ``word`` (3-10 lower-case letters, absent from the corpus) is a clipping of: words of at
    least ``len(word) + 3`` letters that begin with it, most chunks first, at most ``most`` ("anticoag" ->
    anticoagulation, anticoagulant)."""
    w = word.lower()
    if not (3 <= len(w) <= 10 and w.isalpha()) or w in counts:
        return ()
    return _most_chunks(counts, lambda t: t.startswith(w) and len(t) >= len(w) + 3 and t.isalpha(), most)


def clipped_head(word: str, counts: Mapping[str, int], most: int = 3) -> tuple[str, ...]:
    """Corpus words that ``word`` (5-10 lower-case letters, absent from the corpus; a plural "-s" dropped) is the
    end of, its head clipped ("lytics" -> fibrinolytic, thrombolytic): words of at least ``len(word) + 3`` letters
    that end with it, most chunks first, at most ``most``. Clinicians clip a word's end far more often
    (:func:`clipped`), so this is read only when that finds nothing."""
    w = word.lower()
    if not (5 <= len(w) <= 10 and w.isalpha()) or w in counts:
        return ()
    stem = w[:-1] if w.endswith("s") and not w.endswith("ss") else w
    return _most_chunks(counts, lambda t: t.isalpha() and len(t) >= len(w) + 3 and (t.endswith(w) or t.endswith(stem)),
                        most)


def _most_chunks(counts: Mapping[str, int], keep: Callable[[str], bool], most: int) -> tuple[str, ...]:
    """The corpus words ``keep`` accepts, most chunks first (then alphabetical), at most ``most``: the one ordering of
    :func:`clipped` and :func:`clipped_head`."""
    found = sorted(((n, t) for t, n in counts.items() if keep(t)), key=lambda x: (-x[0], x[1]))
    return tuple(t for _, t in found[:most])
