"""Lexical coverage: which content words of a question the corpus never mentions.

Dense similarity measures topic, not facts: "dose of dexamethasone for meningitis" sits close
to a meningitis guideline that never names dexamethasone, and the closest sentence may then be
another drug's dose. A content word that occurs in no chunk the query may see (checked with
the store's BM25 index, which stems and lower-cases) means the corpus cannot say anything
about it. The gate can warn about such words or refuse on them (``answer.unknown_terms``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from clinqa.question.terms import content_terms, misspelt_common_word
from clinqa.retrieval.filters import Filters
from clinqa.retrieval.pool import run_all
from clinqa.store.base import Store
from clinqa.text.stopwords import QUESTION_STOP_WORDS
from clinqa.text.words import word_parts

if TYPE_CHECKING:
    from clinqa.question.asks import AsksRead

#: function words and question scaffolding (:data:`clinqa.text.stopwords.QUESTION_STOP_WORDS`, re-exported)
STOPWORDS = QUESTION_STOP_WORDS

__all__ = ["STOPWORDS", "content_terms", "missing_and_rare", "missing_terms", "term_counts", "typo_of_stopword",
           "unmentioned_in", "variants"]


#: irregular plurals the index's stemmer does not join (woman/women, child/children ...)
IRREGULAR = {"woman": "women", "man": "men", "child": "children", "person": "people", "foot": "feet",
             "tooth": "teeth", "mouse": "mice", "goose": "geese", "ovum": "ova", "datum": "data",
             "criterion": "criteria", "phenomenon": "phenomena", "diagnosis": "diagnoses",
             "analysis": "analyses", "metastasis": "metastases", "bacterium": "bacteria"}
_VARIANTS = {**IRREGULAR, **{v: k for k, v in IRREGULAR.items()}}


def variants(term: str) -> list[str]:
    """``term`` and its irregular singular/plural form, if it has one."""
    return [term] + ([_VARIANTS[term]] if term in _VARIANTS else [])


#: a question word found in fewer chunks than this is "rare" (specific, e.g. a drug name)
RARE_BELOW = 30


def term_counts(store: Store, terms: Sequence[str], filters: Filters, cap: int = RARE_BELOW) -> dict[str, int]:
    """For each content word ``terms`` of a question (:attr:`clinqa.question.asks.AsksRead.content_terms`,
    :func:`clinqa.question.terms.content_terms`): in how many chunks visible under ``filters`` it
    occurs, counted up to ``cap`` (a cheap document frequency: 0 = never mentioned, below
    ``cap`` = a specific, rare word such as a drug name).

    A hyphenated word counts by its rarest part ("beta-blocker"; one-letter parts left out: "T-score"
    counts by "score"); a word also matches its
    irregular plural/singular ("woman" / "women"). One full-text lookup per distinct word and
    variant, run concurrently (:mod:`clinqa.retrieval.pool`).
    """
    def count(text: str) -> int:
        return store.count_matches(text, cap, filters)  # LanceDB: ids only, ~3x cheaper than full BM25 hits

    # a one-letter part is no word the index keeps ("T-score": counted by "score")
    plan = {term: [p for p in word_parts(term) if p not in STOPWORDS and len(p) >= 2] or [term]
            for term in terms}
    lookups = list(dict.fromkeys(v for parts in plan.values() for p in parts for v in variants(p)))
    found = dict(zip(lookups, run_all([lambda v=v: count(v) for v in lookups]), strict=True))
    return {term: min(max(found[v] for v in variants(p)) for p in parts) for term, parts in plan.items()}


def missing_and_rare(store: Store, asked: AsksRead, filters: Filters, unknown_terms: str,
                     timings_ms: dict[str, float], misspelt_from: float | None = None) -> tuple[list[str], list[str]]:
    """``(missing, rare)``: the content words of the question (read as ``asked``: its
    :attr:`~clinqa.question.asks.AsksRead.content_terms`) no chunk under ``filters`` has, and those
    fewer than ``RARE_BELOW`` chunks have (:func:`term_counts`; none when
    ``unknown_terms`` is ``ignore``); the time goes to ``timings_ms["coverage"]`` (milliseconds). A word no
    chunk has that is one edit from a word at least ``misspelt_from`` common (None:
    ``answer.rarity.misspelt_common_above``) is a typo, not missing. A patient's age and sex ("67F", "a 72-year-old
    man") are context, not words the corpus should have (:func:`clinqa.question.terms.without_ages`)."""
    t0 = time.perf_counter()
    counts = {} if unknown_terms == "ignore" else term_counts(store, asked.content_terms, filters)
    timings_ms["coverage"] = (time.perf_counter() - t0) * 1e3
    # a typo of a common word ("Waht is the treatement ...") is no word the corpus lacks
    return ([t for t, n in counts.items()
             if n == 0 and not misspelt_common_word(t, misspelt_from) and not typo_of_stopword(t)],
            [t for t, n in counts.items() if 0 < n < RARE_BELOW])


def missing_terms(store: Store, terms: Sequence[str], filters: Filters) -> list[str]:
    """Those content words ``terms`` of a question (:func:`term_counts`) that occur in no chunk visible under
    ``filters``."""
    return [t for t, n in term_counts(store, terms, filters, cap=1).items() if n == 0]


def typo_of_stopword(word: str) -> bool:
    """Is ``word`` (lower case) a question stop word with two adjacent letters swapped ("waht" for
    "what", "hwo" for "how")? Such a word is a typo, not a content word the corpus lacks."""
    return word not in STOPWORDS and any(
        word[:i] + word[i + 1] + word[i] + word[i + 2:] in STOPWORDS for i in range(len(word) - 1))


def unmentioned_in(texts: list[str], terms: list[str],
                   matcher: Callable[[str, str], bool] | None = None) -> list[str]:
    """Those ``terms`` (or their irregular variants) that appear in none of ``texts``, matched
    case-insensitively on word starts (so "anticoagulant" matches "anticoagulants"), British and
    American spellings alike ("ischaemic" matches "ischemic"). ``matcher(term, text)`` is a second test,
    e.g. :func:`clinqa.retrieval.synonyms.term_matches`: "hba1c" is mentioned by "A1C", "anticoagulant" by
    "warfarin"."""
    joined = " ".join(texts)
    blob = joined.lower()
    blob += " " + blob.replace("ae", "e").replace("oe", "e")  # British and American spelling
    out = []
    for t in terms:
        forms = variants(t) + [v.replace("ae", "e").replace("oe", "e") for v in variants(t)]
        if any(re.search(r"(?<![^\W_])" + re.escape(v), blob) for v in forms):
            continue
        if matcher is None or not matcher(t, joined):
            out.append(t)
    return out
