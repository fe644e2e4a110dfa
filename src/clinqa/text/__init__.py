"""One home for text handling: Unicode normalisation, word patterns, stop lists, stemmers and
sentence splitters, shared by chunking, BM25, retrieval and the answer checks.

* :mod:`clinqa.text.unicode`: :func:`normalize` (NFKC with clinical exceptions);
* :mod:`clinqa.text.words`: the named word patterns (:data:`TERM`, :data:`WORD`, :data:`JOINED_WORD`,
  :data:`ASCII_WORD`, :data:`ASCII_TOKEN`) and :func:`words_of`; the runs and separators several modules
  used to compile themselves (``LETTER_RUN``, ``SPACES``, ``SPACE_OR_HYPHEN`` ...) and ``whole_word``;
* :mod:`clinqa.text.blocks`: blank lines, paragraph breaks, a reference list's title;
* :mod:`clinqa.text.stopwords`: :data:`LUCENE_STOP_WORDS`, :data:`QUESTION_STOP_WORDS`,
  :data:`CLAIM_STOP_WORDS`;
* :mod:`clinqa.text.stems`: :func:`s_stem`, :func:`light_stem`, :func:`snowball_stem`;
* :mod:`clinqa.text.sentences`: :func:`split_sentences` (pysbd, document text), :func:`split_answer`
  (generated text with citation markers), :func:`split_source_sentences` (cited text);
* :mod:`clinqa.text.zipf`: :func:`~clinqa.text.zipf.zipf`, general-English word frequency (wordfreq).

Where two modules tokenised differently, both rules are kept, each under its own name, so that no
BM25 score, chunk boundary, key term or citation verdict changed when the copies were merged.
Nothing here imports the rest of clinqa but the leaf :mod:`clinqa.paths` (where the Zipf table of
:mod:`clinqa.text.zipf` is cached).
"""

from __future__ import annotations

from clinqa.text.sentences import split_answer, split_sentences, split_source_sentences
from clinqa.text.stems import light_stem, s_stem, snowball_stem
from clinqa.text.stopwords import CLAIM_STOP_WORDS, LUCENE_STOP_WORDS, QUESTION_STOP_WORDS
from clinqa.text.unicode import normalize
from clinqa.text.words import (
    ASCII_TOKEN,
    ASCII_WORD,
    JOINED_WORD,
    TERM,
    WORD,
    ascii_words,
    joined_words,
    terms,
    word_parts,
    words_of,
)

__all__ = [
    "ASCII_TOKEN", "ASCII_WORD", "CLAIM_STOP_WORDS", "JOINED_WORD", "LUCENE_STOP_WORDS", "QUESTION_STOP_WORDS",
    "TERM", "WORD", "ascii_words", "joined_words", "light_stem", "normalize", "s_stem", "snowball_stem",
    "split_answer", "split_sentences", "split_source_sentences", "terms", "word_parts", "words_of",
]
