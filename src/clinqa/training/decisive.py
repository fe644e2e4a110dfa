"""Fit the decisive-word classifier (:mod:`clinqa.decision.decisive_words`) from the answer-model pairs.

Each row of ``pairs.jsonl.gz`` (:mod:`clinqa.training.pairs`) is read by the key-term test exactly as ``ask``
reads a question against its quotable passages (:class:`clinqa.evidence.gather.KeyTermTest`, the synonym
table included), with a vocabulary built from that source's passages. Labels, per missing key term:

- ``swap`` rows: the term that the swap put in is decisive (1); the row is also added as if the corpus lacked
  the word (``in_corpus`` false, no corpus count): a drug the corpus never names is decisive too;
- ``positive``, ``positive_unit``, ``rewrite`` rows: every missing term is not decisive (0): the passage
  answers without it.

Fit: scikit-learn's LogisticRegression (L2, ``C``, classes balanced). The threshold is not chosen here: it is
chosen on the blind dev half of the clinician questions (``bench/answers/blind_dev.jsonl``) end to end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from clinqa.training.pairs import Pair

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline

LABELLED_KINDS = ("positive", "positive_unit", "rewrite", "swap")


def swapped_term(terms: Sequence, swapped: str):
    """The missing key term that stands for the ``swapped`` word (its text, match or typed form), or None."""
    s = swapped.lower()
    for t in terms:
        if s in (t.text, t.match, (t.typed or "").lower()) or (t.kind == "population" and s.startswith(t.text[:5])):
            return t
        if t.kind == "population" and t.match in _population_groups(s):
            return t
    return None


def _population_groups(word: str) -> set[str]:
    from clinqa.question.terms import POPULATION_WORDS

    return {g for w, g in POPULATION_WORDS.items() if word.startswith(w[:5])}


def word_rows(pairs: Sequence[Pair], per_kind: int = 4000, seed: int = 0,
              max_zipf: float = 4.0) -> tuple[np.ndarray, np.ndarray, Counter[str]]:
    """``(X, y, counts)``: one feature row (:func:`clinqa.decision.decisive_words.features`) per labelled missing
    term of at most ``per_kind`` rows of each labelled kind per source (seeded sample); ``counts`` says how many
    rows of each label and source were made."""
    from clinqa.decision.answerability import judge
    from clinqa.decision.decisive_words import PassageWords, features
    from clinqa.evidence.gather import KeyTermTest
    from clinqa.retrieval.vocabulary import Vocabulary

    rng = random.Random(seed)
    by: dict[tuple[str, str], list[Pair]] = {}
    for p in pairs:
        if p.kind in LABELLED_KINDS:
            by.setdefault((p.source, p.kind), []).append(p)
    vocab: dict[str, Vocabulary] = {}
    for src in {s for s, _ in by}:
        texts = list({p.passage for p in pairs if p.source == src})
        vocab[src] = Vocabulary.from_texts(texts)
    xs: list[list[float]] = []
    ys: list[int] = []
    counts: Counter[str] = Counter()
    for (src, kind), ps in sorted(by.items()):
        for p in rng.sample(ps, min(per_kind, len(ps))):
            check = KeyTermTest(p.query, vocab[src], max_zipf, judge).on_texts([p.passage])
            if not check.missing:
                continue
            words_in = PassageWords.of([p.passage])
            n, k = len(check.key_terms), len(check.missing)
            if kind == "swap":
                t = swapped_term(check.missing, p.swapped)
                if t is None:
                    continue
                xs.append(features(t, check.in_corpus.get(t.text, True), vocab[src], words_in, n, k))
                ys.append(1)
                xs.append(features(t, False, None, words_in, n, k))
                ys.append(1)
                counts[f"{src}/decisive"] += 2
            else:
                for t in check.missing:
                    xs.append(features(t, check.in_corpus.get(t.text, True), vocab[src], words_in, n, k))
                    ys.append(0)
                    counts[f"{src}/not_decisive"] += 1
    return np.asarray(xs, dtype=np.float64), np.asarray(ys), counts


def fit(x: np.ndarray, y: np.ndarray, c: float = 1.0, seed: int = 0,
        weight: np.ndarray | None = None) -> np.ndarray:
    """Logistic-regression weights over the feature columns (the first column is the constant 1, so no
    separate intercept is fitted), classes balanced, rows weighted by ``weight`` (None: 1 each)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, class_weight="balanced", fit_intercept=False, max_iter=2000, random_state=seed)
    model.fit(x, y, sample_weight=weight)
    return model.coef_[0]


def train(pairs_path: Path, out: Path, threshold: float = 0.5, per_kind: int = 4000, c: float = 1.0,
          seed: int = 0, extra: tuple[np.ndarray, np.ndarray, Counter[str]] | None = None,
          extra_weight: float = 5.0) -> dict:
    """Read the pairs, fit, write ``out`` (:func:`clinqa.decision.decisive_words.save`); returns its card
    (rows per label and source, training accuracy and the weights by feature name). ``extra``: more labelled
    terms (:func:`question_rows`), each weighted ``extra_weight``."""
    from clinqa.decision.decisive_words import FEATURES, save
    from clinqa.training.pairs import read_pairs

    x, y, counts = word_rows(read_pairs(pairs_path), per_kind, seed)
    weight = np.ones(len(y))
    if extra is not None and len(extra[1]):
        x, y = np.vstack([x, extra[0]]), np.concatenate([y, extra[1]])
        weight = np.concatenate([weight, np.full(len(extra[1]), extra_weight)])
        counts = counts + extra[2]
    coef = fit(x, y, c, seed, weight)
    p = 1 / (1 + np.exp(-(x @ coef)))
    card = {"trained_on": str(pairs_path), "rows": dict(sorted(counts.items())), "C": c,
            "train_accuracy": round(float(((p >= 0.5) == (y == 1)).mean()), 4),
            "weights": {f: round(float(w), 3) for f, w in zip(FEATURES, coef, strict=True)}}
    save(out, coef, threshold, card)
    return card


def question_rows(pipe: Pipeline, question_files: Sequence[Path]) -> tuple[np.ndarray, np.ndarray, Counter[str]]:
    """Labelled terms from clinician question sets over ``pipe``'s store (``bench/answers`` format), read as
    ``ask`` reads them: each question is asked with the key-term refusals off, and the key-term test is run on
    its first ``answer.context_chunks`` retrieved passages. An answerable question answered with every key
    fact: its missing terms are not decisive (0). An uncovered question: its missing terms named in the set's
    ``missing`` field are decisive (1), the others unlabelled. Refuses the held-out and vignette sets
    (:func:`clinqa.training.pairs.guideline_items`'s rule)."""
    from clinqa.decision.answerability import judge
    from clinqa.decision.decisive_words import PassageWords, features
    from clinqa.evaluation.facts import contains, load_questions
    from clinqa.evidence.gather import KeyTermTest
    from clinqa.retrieval.filters import Filters
    from clinqa.training.pairs import refuse_evaluation_set

    table = pipe.store.export(["chunk_id", "text"], Filters())
    text_of = dict(zip(table.column("chunk_id").to_pylist(), table.column("text").to_pylist(), strict=True))
    vocab = pipe.vocabulary
    k = pipe.settings.answer.context_chunks
    xs: list[list[float]] = []
    ys: list[int] = []
    counts: Counter[str] = Counter()
    for path in question_files:
        refuse_evaluation_set(path)
        for q in load_questions(Path(path)):
            ans = pipe.ask(q.question, generate=False)
            texts = [text_of[r["chunk_id"]] for r in ans.retrieved[:k] if r["chunk_id"] in text_of]
            if not texts:
                continue
            check = KeyTermTest(q.question, vocab, 4.0, judge).on_texts(texts)
            words_in = PassageWords.of(texts)
            n, m = len(check.key_terms), len(check.missing)
            if q.answerable:
                if ans.refused or not all(contains(ans.answer, f) for f in q.facts):
                    continue
                for t in check.missing:
                    xs.append(features(t, check.in_corpus.get(t.text, True), vocab, words_in, n, m))
                    ys.append(0)
                    counts["clinician/not_decisive"] += 1
            else:
                gone = (q.missing or "").lower()
                for t in check.missing:
                    if t.text in gone or t.match in gone or (t.typed or "").lower() in gone:
                        xs.append(features(t, check.in_corpus.get(t.text, True), vocab, words_in, n, m))
                        ys.append(1)
                        counts["clinician/decisive"] += 1
    from clinqa.decision.decisive_words import FEATURES

    return np.asarray(xs, dtype=np.float64).reshape(-1, len(FEATURES)), np.asarray(ys), counts
