"""WordNet 3.0 as clinqa reads it: senses, categories, synonyms and derived forms of a word.

The data is the compact extraction shipped in ``lexicon/data/wordnet.json.gz`` (built from the Princeton WordNet 3.0
database by :mod:`clinqa.lexicon.wordnet_build`; licence in ``lexicon/data/WORDNET_LICENSE``). Loaded once per
process on first use (about 1 s). Morphology: a word is looked up as typed, then through WordNet's own
detachment rules for plurals and verb endings (``morphy``, wndb(5WN) "Morphological processing": "-ies" -> "-y",
"-es"/"-s" dropped, "-ed"/"-ing" dropped), without the exception lists.

Derived forms (:meth:`WordNet.derived`) come from WordNet's derivation and pertainym pointers ("renal" ->
"kidney", "anemic" -> "anemia") and, for words WordNet lacks ("cirrhotic", "neutropenic"), from suffix
alternations mined from those same pointer pairs (:meth:`WordNet.alternations`: "-tic" ~ "-sis", "-ic" ~ "-ia",
each seen in at least :data:`MIN_ALTERNATION` pairs).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("data") / "wordnet.json.gz"
#: a suffix alternation is kept when WordNet's derivation pointers show it in at least this many pairs
MIN_ALTERNATION = 8
#: categories that make a word a clinical entity (what a passage must name to answer about it)
CLINICAL = frozenset({"drug", "condition", "procedure", "organism", "body"})
#: lexicographer files of concrete things: such a noun names an object, not a frame of the question
CONCRETE = frozenset({"noun.food", "noun.artifact", "noun.substance", "noun.plant", "noun.animal", "noun.object",
                      "noun.body"})
#: lexicographer files whose synonyms name the same thing ("adrenaline" = "epinephrine", a hormone filed under
#: noun.body; not artifacts: "metro" is no "tube")
NAMED_THINGS = frozenset({"noun.body", "noun.substance"})
_MORPHY = {"n": (("ies", "y"), ("ses", "s"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"), ("s", "")),
           "v": (("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
           "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e"))}


@dataclass(frozen=True)
class Sense:
    """One synset of a word: ``pos`` (n, v, a, r by its lexicographer file), ``lexname`` ("noun.state"),
    ``categories`` (:data:`clinqa.lexicon.wordnet_build.CATEGORIES` it falls under) and its ``lemmas``."""

    pos: str
    lexname: str
    categories: frozenset[str]
    lemmas: tuple[str, ...]


class WordNet:
    """The shipped WordNet extraction (module docstring). Raises FileNotFoundError when the data file is
    missing (a broken install)."""

    def __init__(self, path: Path = DATA) -> None:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            d = json.load(fh)
        self._lemmas: list[str] = d["lemmas"]
        self._id = {w: i for i, w in enumerate(self._lemmas)}
        self._synsets: list[list] = d["synsets"]
        self._senses: list[list[int]] = d["senses"]
        self._lexnames: list[str] = d["lexnames"]
        self._categories: list[str] = d["categories"]
        self._derived: dict[int, list[int]] = {}
        for a, b in d["derived"]:
            self._derived.setdefault(a, []).append(b)
            self._derived.setdefault(b, []).append(a)

    def lemma(self, word: str) -> str | None:
        """The WordNet lemma ``word`` (lower case) stands for, as typed or by :data:`_MORPHY` detachment, else None."""
        w = word.lower().strip()
        if w in self._id:
            return w
        for rules in _MORPHY.values():
            for suffix, add in rules:
                if w.endswith(suffix) and len(w) > len(suffix) + 2:
                    base = w[: len(w) - len(suffix)] + add
                    if base in self._id:
                        return base
        return None

    def senses(self, word: str) -> tuple[Sense, ...]:
        """The synsets of ``word`` in WordNet's sense order (most frequent first); () when unknown."""
        lemma = self.lemma(word)
        if lemma is None:
            return ()
        out = []
        for s in self._senses[self._id[lemma]]:
            lex, flags, ids = self._synsets[s]
            name = self._lexnames[lex]
            pos = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}[name.split(".")[0]]
            cats = frozenset(c for b, c in enumerate(self._categories) if flags >> b & 1)
            out.append(Sense(pos, name, cats, tuple(self._lemmas[i] for i in ids)))
        return tuple(out)

    def categories(self, word: str, senses: int = 3) -> frozenset[str]:
        """The categories of the first ``senses`` noun senses of ``word`` (a word is what it most often means)."""
        nouns = [s for s in self.senses(word) if s.pos == "n"][:senses]
        return frozenset().union(*(s.categories for s in nouns)) if nouns else frozenset()

    def synonyms(self, word: str, senses: int = 2) -> tuple[str, ...]:
        """Other lemmas of the first ``senses`` noun senses of ``word`` that name a clinical entity
        (:data:`CLINICAL`) or a thing (:data:`NAMED_THINGS`), in order: "edema" -> "oedema", "hydrops", "dropsy";
        "adrenaline" -> "epinephrine". Ordinary senses give none (an attribute: "cold" is not "coldness")."""
        lemma = self.lemma(word)
        out: list[str] = []
        for s in [s for s in self.senses(word) if s.pos == "n"][:senses]:
            if s.categories & CLINICAL or s.lexname in NAMED_THINGS:
                out.extend(x for x in s.lemmas if x != lemma and x not in out and x.replace(" ", "").replace(
                    "-", "").isalpha())
        return tuple(out)

    def derived(self, word: str) -> tuple[str, ...]:
        """Lemmas linked to ``word`` by a derivation or pertainym pointer ("renal" -> "kidney", "nephritic"),
        else the forms of :meth:`alternations` that WordNet has ("cirrhotic" -> "cirrhosis"). Nouns and
        adjectives only are followed (a verb frames a question)."""
        lemma = self.lemma(word)
        if lemma is not None:
            return tuple(self._lemmas[j] for j in self._derived.get(self._id[lemma], ())
                         if any(s.pos in "na" for s in self.senses(self._lemmas[j])))
        w = word.lower()
        out = []
        for a, b in self.alternations:
            if w.endswith(a) and len(w) - len(a) >= 4:
                cand = w[: len(w) - len(a)] + b
                if cand in self._id and cand not in out:
                    out.append(cand)
        return tuple(out)

    def is_lemma(self, word: str) -> bool:
        """Is ``word`` (or its :data:`_MORPHY` base) a WordNet lemma?"""
        return self.lemma(word) is not None

    @cached_property
    def alternations(self) -> tuple[tuple[str, str], ...]:
        """Suffix pairs ``(a, b)`` such that WordNet links a word ending in ``a`` to one ending in ``b`` with the
        same stem (at least 4 letters, suffixes of 1-5 letters) in at least :data:`MIN_ALTERNATION` derivation
        or pertainym pairs between a noun and an adjective; most frequent first."""
        counts: Counter[tuple[str, str]] = Counter()
        for a, bs in self._derived.items():
            wa = self._lemmas[a]
            for b in bs:
                wb = self._lemmas[b]
                p = 0
                while p < min(len(wa), len(wb)) and wa[p] == wb[p]:
                    p += 1
                sa, sb = wa[p:], wb[p:]
                if p >= 4 and 1 <= len(sa) <= 5 and 1 <= len(sb) <= 5 and sa.isalpha() and sb.isalpha():
                    counts[(sa, sb)] += 1
        return tuple(k for k, n in counts.most_common() if n >= MIN_ALTERNATION)


@lru_cache(maxsize=1)
def wordnet() -> WordNet:
    """The process's :class:`WordNet` (loaded on first use)."""
    return WordNet()
