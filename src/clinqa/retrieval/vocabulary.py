"""The corpus vocabulary and spelling repair of question words against it.

A question word that no ingested passage contains is either a topic the corpus does not cover
("amoxicillin" over an asthma guideline) or a misspelling of one it does ("diabetis"). The
vocabulary tells the two apart: :meth:`Vocabulary.repair` maps a word the corpus lacks to the
most frequent corpus word within a small edit distance (optimal string alignment distance, i.e.
Damerau-Levenshtein with adjacent transpositions, computed by the ``rapidfuzz`` package over the
vocabulary: about 20 ms per word for 100k words, with no index to build), so the answerability test
(:mod:`clinqa.decision.answerability`) does not refuse a question for a typo.

The vocabulary is built from the ``text`` of every chunk the store holds outside patient notes
(overview chunks included: they carry titles and topics), counting in how many chunks each lower-cased word
occurs, and is saved as ``<data_dir>/vocabulary.json`` with the store version it was built at,
so it is rebuilt only after an ingest or a removal changed the store. Patient notes never enter
it: a question scoped to one patient is repaired against this vocabulary plus that patient's own
notes (:meth:`Vocabulary.merged`), so no word of another patient's record can surface.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinqa.retrieval.filters import Filters
from clinqa.store.base import Store
from clinqa.text.words import WORD, words_of

__all__ = ["VOCAB_VERSION", "WORD", "Vocabulary", "words_of"]

VOCAB_VERSION = 2


@dataclass
class Vocabulary:
    """Word -> number of chunks containing it (document frequency), for one store version."""

    counts: dict[str, int] = field(default_factory=dict)
    store_version: int = -1
    _speller: Any = field(default=None, repr=False, compare=False)
    #: the corpus's phrases and the abbreviations it defines (:mod:`clinqa.lexicon.corpus`), mined with the counts
    phrases: dict[str, int] = field(default_factory=dict)
    defined: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the phrases by first letter with their initials (:func:`clinqa.lexicon.corpus.phrase_index`), built on first
    #: use; and, for a vocabulary made by :meth:`merged`, the two it was made of (its index is the first's, built
    #: once, with the second's phrases put in: a patient's scope does not build the corpus's index again)
    _index: Any = field(default=None, repr=False, compare=False)
    _parts: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_texts(cls, texts: list[str], store_version: int = -1) -> Vocabulary:
        """Count, for every word of :func:`words_of`, the texts it occurs in; mine the phrases and the
        abbreviations the texts define (:func:`clinqa.lexicon.corpus.phrases_of`,
        :func:`~clinqa.lexicon.corpus.defined_in`)."""
        from clinqa.lexicon.corpus import defined_in, phrases_of

        df: Counter[str] = Counter()
        for t in texts:
            df.update(set(words_of(t)))
        return cls(dict(df), store_version, phrases=phrases_of(texts), defined=defined_in(texts))

    @classmethod
    def for_store(cls, store: Store, data_dir: Path | None = None) -> Vocabulary:
        """The vocabulary of ``store`` at its current version: read from
        ``<data_dir>/vocabulary.json`` when that was built at this version, else rebuilt from every
        chunk's text (a few seconds per 50k chunks) and saved there atomically."""
        version = store.version()
        path = Path(data_dir) / "vocabulary.json" if data_dir else None
        if path is not None and path.exists():
            try:
                raw = json.loads(path.read_text())
                if raw.get("store_version") == version and raw.get("format") == VOCAB_VERSION:
                    return cls(raw["counts"], version, phrases=raw["phrases"], defined=raw["defined"])
            except (ValueError, KeyError, TypeError):
                pass  # a damaged cache file is rebuilt
        texts = store.export(["text"], Filters()).column("text").to_pylist() if store.count() else []
        vocab = cls.from_texts(texts, version)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"format": VOCAB_VERSION, "store_version": version, "counts": vocab.counts,
                                      "phrases": vocab.phrases, "defined": vocab.defined}))
            tmp.replace(path)
        return vocab

    def merged(self, other: Vocabulary) -> Vocabulary:
        """A new vocabulary with the counts of both (``store_version`` of ``self``)."""
        counts = dict(self.counts)
        for w, n in other.counts.items():
            counts[w] = counts.get(w, 0) + n
        phrases = dict(self.phrases)
        for w, n in other.phrases.items():
            phrases[w] = phrases.get(w, 0) + n
        defined = {k: dict(v) for k, v in self.defined.items()}
        for k, v in other.defined.items():
            for long, n in v.items():
                defined.setdefault(k, {})[long] = defined.get(k, {}).get(long, 0) + n
        out = Vocabulary(counts, self.store_version, phrases=phrases, defined=defined)
        out._parts = (self, other)
        return out

    def phrase_index(self) -> dict[str, list[tuple[str, int, str, int]]]:
        """:func:`clinqa.lexicon.corpus.phrase_index` of :attr:`phrases`, built once per vocabulary; for a merged
        one, the first part's index (built once) with the entries of the second part's phrases replaced by theirs
        at the merged counts: the same entries as a build from scratch, in another order within a letter (which
        :func:`~clinqa.lexicon.corpus.initialism_phrases` sorts anyway)."""
        if self._index is None:
            from clinqa.lexicon.corpus import phrase_index

            if self._parts is None:
                self._index = phrase_index(self.phrases)
            else:
                base, other = self._parts
                changed = phrase_index({p: self.phrases[p] for p in other.phrases})
                idx = {k: list(v) for k, v in base.phrase_index().items()}
                for k, entries in changed.items():
                    mine = {e[0] for e in entries}
                    idx[k] = [e for e in idx.get(k, []) if e[0] not in mine] + entries
                self._index = idx
        return self._index

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.counts

    def count(self, word: str) -> int:
        """Chunks containing ``word`` (0 when unknown)."""
        return self.counts.get(word.lower(), 0)

    def repair(self, word: str, max_candidate_zipf: float = 4.5) -> str | None:
        """The corpus word ``word`` is most likely a misspelling of, or ``None``.

        Only for words of at least 5 letters that the corpus lacks and that contain no digit (a 4-letter
        word is as likely a clinical short form, "vanc", as a typo: "vanc" -> "vasc" was a wrong repair); edit
        distance 1 for words of 5-7 letters, 2 for longer ones (optimal string alignment distance);
        among the closest candidates the one in most chunks wins (ties: alphabetical order, last).
        A candidate common in general English (wordfreq Zipf >= ``max_candidate_zipf``) is never the
        repair: "croup" is not a misspelling of "group", whatever the corpus says."""
        w = word.lower()
        if len(w) < 5 or w in self.counts or any(ch.isdigit() for ch in w):
            return None
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        if self._speller is None:
            self._speller = [t for t, n in self.counts.items()
                             if len(t) >= 3 and not any(ch.isdigit() for ch in t)]
        dist = 1 if len(w) <= 7 else 2
        from clinqa.text.zipf import zipf

        found = [f for f in process.extract(w, self._speller, scorer=OSA.distance, score_cutoff=dist, limit=None)
                 if zipf(f[0]) < max_candidate_zipf]
        if not found:
            return None
        best = min(d for _, d, _ in found)
        return max((t for t, d, _ in found if d == best), key=lambda t: (self.counts[t], t))


class ScopedVocabularies:
    """The corpus vocabulary of one store at its current version (cached in ``<data_dir>/vocabulary.json``),
    and for a patient-scoped query that vocabulary plus the patient's own notes, never another patient's
    (the merged one kept for the store version and patient, so the spelling repair and the key-term test of
    one question read the patient's notes once)."""

    def __init__(self, store: Store, data_dir: Path | None) -> None:
        """``store``: the chunk store; ``data_dir``: where ``vocabulary.json`` is cached (None: not cached)."""
        self.store, self.data_dir = store, data_dir
        self._corpus: Vocabulary | None = None
        self._patient: tuple[tuple[str, int], Vocabulary] | None = None

    @property
    def corpus(self) -> Vocabulary:
        """The corpus vocabulary at the store's current version."""
        if self._corpus is None or self._corpus.store_version != self.store.version():
            self._corpus = Vocabulary.for_store(self.store, self.data_dir)
        return self._corpus

    def scoped(self, patient_id: str | None) -> Vocabulary:
        """:attr:`corpus`, plus ``patient_id``'s own notes when given."""
        if patient_id is None:
            return self.corpus
        key = (patient_id, self.store.version())
        if self._patient is None or self._patient[0] != key:
            own = self.store.export(["text"], Filters(patient_id=patient_id)).column("text").to_pylist()
            self._patient = (key, self.corpus.merged(Vocabulary.from_texts(own)))
        return self._patient[1]
