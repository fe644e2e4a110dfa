"""The corpus vocabulary and spelling repair of question words against it.

A question word that no ingested passage contains is either a topic the corpus does not cover
("amoxicillin" over an asthma guideline) or a misspelling of one it does ("diabetis"). The
vocabulary tells the two apart: :meth:`Vocabulary.repair` maps a word the corpus lacks to the
most frequent corpus word within a small edit distance (optimal string alignment distance, i.e.
Damerau-Levenshtein with adjacent transpositions, computed by the ``rapidfuzz`` package over the
vocabulary: about 20 ms per word for 100k words, with no index to build), so the answerability test
(:mod:`clinqa.answer.answerability`) does not refuse a question for a typo.

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

VOCAB_VERSION = 1


@dataclass
class Vocabulary:
    """Word -> number of chunks containing it (document frequency), for one store version."""

    counts: dict[str, int] = field(default_factory=dict)
    store_version: int = -1
    _speller: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_texts(cls, texts: list[str], store_version: int = -1) -> Vocabulary:
        """Count, for every word of :func:`words_of`, the texts it occurs in."""
        df: Counter[str] = Counter()
        for t in texts:
            df.update(set(words_of(t)))
        return cls(dict(df), store_version)

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
                    return cls(raw["counts"], version)
            except (ValueError, KeyError, TypeError):
                pass  # a damaged cache file is rebuilt
        texts = store.export(["text"], Filters()).column("text").to_pylist() if store.count() else []
        vocab = cls.from_texts(texts, version)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"format": VOCAB_VERSION, "store_version": version, "counts": vocab.counts}))
            tmp.replace(path)
        return vocab

    def merged(self, other: Vocabulary) -> Vocabulary:
        """A new vocabulary with the counts of both (``store_version`` of ``self``)."""
        counts = dict(self.counts)
        for w, n in other.counts.items():
            counts[w] = counts.get(w, 0) + n
        return Vocabulary(counts, self.store_version)

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
