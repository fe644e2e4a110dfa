"""BM25 as sparse vectors: the tokenizer, the term ids and the per-document term weights.

A store without a native full-text index (Qdrant) ranks by BM25 as a sparse dot product:
each chunk carries the BM25 term-frequency part of every term it contains, the query carries
weight 1 per distinct term, and the store multiplies each matching term by its inverse document
frequency at query time (Qdrant's ``Modifier.IDF``). The sum is the BM25 score of Robertson &
Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and Beyond", eq. 3.15 with the
Lucene IDF::

    score(q, d) = sum_{t in q} idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * dl(d) / avgdl))
    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))      (computed by the store)

with ``k1 = 1.2`` and ``b = 0.75`` (the usual defaults, also LanceDB's/tantivy's). This is bm25s's
"lucene" method times ``k1 + 1`` (Lucene 8 dropped that factor from the term-frequency part; it scales
every score alike): tests/store/test_bm25_reference.py checks it against bm25s on a 20-document corpus.

Tokenizer (:func:`index_terms`), ours, applied to documents and queries alike: lower-case;
word tokens are runs of letters and digits (``[^\\W_]+``: hyphens, apostrophes and all other
punctuation split words, as in LanceDB's simple tokenizer; :data:`clinqa.text.words.TERM`); the English
stop words of Lucene's ``EnglishAnalyzer`` (the list tantivy and LanceDB FTS use) plus ``s`` and ``t``
(left over from ``'s`` and ``n't``; :data:`clinqa.text.stopwords.LUCENE_STOP_WORDS`) are dropped; then
Harman's S-stemmer (:func:`clinqa.text.stems.s_stem`) (D. Harman, "How effective is
suffixing?", JASIS 42(1), 1991) folds English plurals: ``-ies`` -> ``-y`` (not ``-eies``/
``-aies``), ``-es`` -> ``-e`` (not ``-aes``/``-ees``/``-oes``), ``-s`` -> ``""`` (not ``-us``/
``-ss``), for words longer than 3 characters. No full stemmer (Snowball/Porter) is applied here, so
"treated"/"treating" stay distinct while LanceDB's FTS joins them; plurals, the commonest case, are
joined.

Term ids (:func:`term_id`) are the first 4 bytes of the term's BLAKE2b digest modulo 2^31: stable
across processes and machines (Python's ``hash`` is salted per process) and needing no
vocabulary file. Two terms may share an id: with a vocabulary of V terms about V^2 / 2^32 pairs
collide (about 230 pairs among a million terms), each making those two terms count as one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import lru_cache
from typing import Any

from clinqa.text.stems import s_stem
from clinqa.text.stopwords import LUCENE_STOP_WORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import TERM

__all__ = ["K1", "B", "bm25_weights", "index_terms", "query_weights", "s_stem", "snowball", "stemmed_terms", "term_id"]

K1 = 1.2
B = 0.75


def index_terms(text: str) -> list[str]:
    """The terms of ``text`` in order, repeats kept (see the module docstring for the rules), after
    :func:`clinqa.text.normalize` (ligatures, micro sign and Greek mu, dashes).

    >>> index_terms("The patients' INR targets: 2-3 (warfarin).")
    ['patient', 'inr', 'target', '2', '3', 'warfarin']
    """
    return [s_stem(w) for w in TERM.findall(normalize(text).lower()) if w not in LUCENE_STOP_WORDS]


@lru_cache(maxsize=1)
def _english() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def snowball(word: str) -> str:
    """The Snowball English (Porter2) stem of ``word`` (lower case), the stemmer of LanceDB's/tantivy's
    ``en_stem`` full-text tokenizer (M. Porter, "Snowball: A language for stemming algorithms", 2001; the
    ``snowballstemmer`` package): "dosing", "doses" -> "dose"; "treated", "treatment" -> "treat". Cached per word."""
    return _english().stemWord(word)


def stemmed_terms(text: str) -> list[str]:
    """:func:`index_terms`' words with Snowball English stems instead of the S-stemmer's plurals: the terms of
    LanceDB's per-scope BM25 (:mod:`clinqa.store.bm25_index`), which so joins the word forms LanceDB's own
    full-text index joined ("dosing" ~ "dose", "standing" ~ "stand"). The Qdrant backends keep
    :func:`index_terms` (their stored sparse vectors were built with it).

    >>> stemmed_terms("Dosing of the treated patients' INR targets")
    ['dose', 'treat', 'patient', 'inr', 'target']
    """
    return [snowball(w) for w in TERM.findall(normalize(text).lower()) if w not in LUCENE_STOP_WORDS]


def term_id(term: str) -> int:
    """Stable id of ``term`` in ``[0, 2^31)``: BLAKE2b of its UTF-8 bytes, first 4 bytes, mod 2^31."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "little") % (1 << 31)


def bm25_weights(terms: list[str], avgdl: float, k1: float = K1, b: float = B) -> dict[int, float]:
    """``{term_id: tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))}`` for a document whose
    terms (from :func:`index_terms`) are ``terms``; ``dl = len(terms)``. Terms whose ids collide
    have their frequencies added. Empty for a document without terms. Raises ``ValueError`` for
    ``avgdl <= 0``."""
    if avgdl <= 0:
        raise ValueError(f"avgdl must be positive, got {avgdl}")
    dl = len(terms)
    norm = k1 * (1.0 - b + b * dl / avgdl)
    tf = Counter(term_id(t) for t in terms)
    return {i: n * (k1 + 1.0) / (n + norm) for i, n in tf.items()}


def query_weights(text: str) -> dict[int, float]:
    """``{term_id: 1.0}`` for each distinct term of a query (a repeated word counts once, as in
    LanceDB FTS); empty for a query with no terms (punctuation or stop words only)."""
    return dict.fromkeys((term_id(t) for t in index_terms(text)), 1.0)
