"""Which missing word of a question decides? A small learned classifier (issue 39).

The key-term test (:mod:`clinqa.decision.answerability`) finds the words of a question that no quotable passage
mentions. Which of them make the question unanswerable was a table of hand-written rules
(:data:`clinqa.decision.answerability.DECISIVE_RULES`: rare in English, not in the corpus, a capital
abbreviation ...). On clinician shorthand those rules refuse a third of the answerable questions ("67F",
"LFTs", "frusemide", "needs"). This module replaces that judgement with a logistic regression over word
features, trained on what the answer-model pairs (:mod:`clinqa.training.pairs`) say about words:

- a word swapped into a question in place of its decisive drug, condition, population, severity or step
  (an ``swap`` row) is decisive: its gold passage no longer answers;
- a word of a question that its gold passage (a ``positive``, ``positive_unit`` or ``rewrite`` row) does not
  mention is not decisive: the passage answers without it (shorthand, fillers, other names).

Features (:data:`FEATURES`, one row per missing term, :func:`features`): general-English frequency (wordfreq
Zipf, Speer et al. 2018) and its bins, the corpus count, the term's kind (population, quantity, phrase),
its shape (capitals, digits, an age/sex tag such as "67F", a dose, its length, verb, adverb and clinical
suffixes), whether it was repaired as a typo, whether it is the thing dosed or qualifies a condition, and how
close the passages come to it in spelling (best character-trigram Jaccard to a passage word, a shared
5-letter prefix, the start or end of a longer passage word: :func:`clipped`, the initials of consecutive
passage words: "RVR"), whether it ends like a drug's international name (:data:`INN_STEM`), and what the lexicon
says the word is (issue 49: :meth:`clinqa.lexicon.Lexicon.kind`, one-hot: a clinical entity by any resource, a
concrete thing, an ordinary English word, a typo of one, ward shorthand). Weights are a
JSON file (:data:`SHIPPED`), read without scikit-learn; ``clinqa train decisive-words`` fits them
(scikit-learn's LogisticRegression, L2).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from clinqa.errors import ConfigError
from clinqa.text.words import CLINICAL_SUFFIX
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.retrieval.vocabulary import Vocabulary
    from clinqa.settings import AnswerSettings


class Term(Protocol):
    """What a feature reads of a key term (:class:`clinqa.question.terms.KeyTerm`; not imported: the
    key-term test imports this module)."""

    text: str
    kind: str
    match: str
    repaired: str | None
    typed: str
    modifies: str
    answer_type: bool
    verb: bool
    dosed: bool
    lexical: str

#: the shipped weights (trained by ``clinqa train decisive-words``; data and figures in its ``card``)
SHIPPED = Path(__file__).with_name("decisive_words.json")

FEATURES = (
    "bias", "zipf", "zipf_lt2", "zipf_lt3", "zipf_lt4", "zipf_zero", "corpus_log_count", "in_corpus",
    "population", "quantity", "phrase", "upper", "mixed_case", "has_digit", "age_sex", "length", "ends_ed_ing",
    "ends_ly", "ends_s", "clinical_suffix", "repaired", "dosed", "modifies", "answer_type", "verb",
    "best_trigram", "prefix5", "share_missing", "one_term", "inn_stem", "clipped", "acronym",
    "lex_clinical", "lex_concrete", "lex_ordinary", "lex_typo", "lex_shorthand",
)
#: endings of WHO International Nonproprietary Names (the INN stem book): a word ending so names a drug
#: ("cangrelor", "tofacitinib"), where a brand or shorthand ("Eliquis", "MTX") does not
INN_STEM = re.compile(
    r"(?:mab|tinib|ciclib|rafenib|pril|sartan|olol|alol|statin|prazole|gliflozin|gliptin|glutide|xaban|gatran|dipine"
    r"|cillin|mycin|micin|floxacin|cycline|conazole|azole|vir|parin|teplase|plase|semide|thiazide|caine|azepam|zolam"
    r"|triptan|setron|lukast|terol|sone|olone|dronate|profen|coxib|zosin|grel|grelor|tidine|quine|parib|lisib"
    r"|cept|kinra|ximab|zumab|umab|tide|relin|pressin|oxetine|aline|triptyline|pramine|peridol|apine|idone)$")
_AGE_SEX = re.compile(r"\d{1,3}\s*(?:y/?o|yo|yrs?|years?|[mf]|m/f)", re.IGNORECASE)


def trigrams(word: str) -> set[str]:
    """Character trigrams of ``#word#`` (lower case)."""
    w = f"#{word.lower()}#"
    return {w[i:i + 3] for i in range(len(w) - 2)}


@dataclass(frozen=True)
class PassageWords:
    """The words of the quotable passages (lower case), their 5-letter prefixes and the initials of every run of
    2 to 5 consecutive words ("rapid ventricular response" -> "rvr"), read once per check."""

    words: frozenset[str]
    prefixes: frozenset[str]
    initials: frozenset[str] = frozenset()

    @classmethod
    def of(cls, passages: Iterable[str]) -> PassageWords:
        seqs = [re.findall(r"[a-z][a-z0-9\-]*", p.lower()) for p in passages]
        ws = frozenset(w for seq in seqs for w in seq if len(w) >= 3)
        inits = frozenset("".join(w[0] for w in seq[i:i + n]) for seq in seqs for n in range(2, 6)
                          for i in range(len(seq) - n + 1))
        return cls(ws, frozenset(w[:5] for w in ws if len(w) >= 5), inits)


def clipped(word: str, passage: PassageWords) -> bool:
    """Is ``word`` (3+ letters) the start or the end of a longer passage word, clipped as clinicians clip
    ("hypo" for "hypoglycaemia", "pyelo", "lysis" for "thrombolysis", "dilt" for "diltiazem")?"""
    if len(word) < 3 or not word.isalpha():
        return False
    return any(len(w) >= len(word) + 3 and (w.startswith(word) or w.endswith(word)) for w in passage.words)


def best_trigram(word: str, passage: PassageWords) -> float:
    """The highest character-trigram Jaccard similarity of ``word`` to a passage word of similar length
    (within 40% of its length), in [0, 1]."""
    t = trigrams(word)
    n = len(word)
    best = 0.0
    for w in passage.words:
        if abs(len(w) - n) > max(2, 0.4 * n):
            continue
        u = trigrams(w)
        j = len(t & u) / len(t | u)
        best = max(best, j)
    return best


def features(term: Term, in_corpus: bool, vocabulary: Vocabulary | None, passage: PassageWords,
             n_terms: int, n_missing: int) -> list[float]:
    """The :data:`FEATURES` of missing ``term`` (a :class:`clinqa.question.terms.KeyTerm`):
    ``in_corpus`` as the key-term test found it, ``vocabulary`` the scope's (corpus counts; None: 0),
    ``passage`` the quotable passages' words, ``n_terms`` / ``n_missing`` the question's key terms and
    those missing. Returns ``len(FEATURES)`` floats."""
    m = term.match.lower()
    typed = term.typed or term.text
    z = zipf(m) if term.kind == "specific" else 0.0
    count = vocabulary.count(m) if vocabulary is not None and term.kind == "specific" else 0
    return [
        1.0, z / 8.0, float(z < 2), float(z < 3), float(z < 4), float(z == 0.0),
        math.log1p(count) / 10.0, float(in_corpus),
        float(term.kind == "population"), float(term.kind == "quantity"), float(term.kind == "phrase"),
        float(typed.isupper() and len(typed) >= 2), float(typed[:1].islower() and any(c.isupper() for c in typed[1:])),
        float(any(c.isdigit() for c in m)), float(_AGE_SEX.fullmatch(m) is not None),
        min(len(m), 20) / 20.0, float(m.endswith(("ed", "ing"))), float(m.endswith("ly")),
        float(m.endswith("s") and not m.endswith("ss")), float(CLINICAL_SUFFIX.search(m) is not None),
        float(term.repaired is not None), float(term.dosed), float(bool(term.modifies)), float(term.answer_type),
        float(term.verb), best_trigram(m, passage) if term.kind == "specific" else 0.0,
        float(len(m) >= 5 and m[:5] in passage.prefixes), n_missing / max(n_terms, 1), float(n_terms == 1),
        float(term.kind == "specific" and len(m) >= 6 and INN_STEM.search(m) is not None),
        float(term.kind == "specific" and clipped(m, passage)),
        float(term.kind == "specific" and 2 <= len(m) <= 5 and m.isalpha() and m in passage.initials),
        *(float(term.lexical == k) for k in ("clinical", "concrete", "ordinary", "typo", "shorthand")),
    ]


class DecisiveModel:
    """Logistic regression weights over :data:`FEATURES` (a JSON file: ``features``, ``coef``, ``threshold``,
    ``card``). :meth:`prob` gives P(decisive); a term is decisive when it reaches ``threshold`` (chosen on the
    blind dev half, docs/benchmarks.md). Raises :class:`ConfigError` for a file that is missing, unreadable or
    written for other features."""

    def __init__(self, path: Path, threshold: float | None = None) -> None:
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"{path}: cannot read the decisive-word model ({e})") from e
        if tuple(raw.get("features", ())) != FEATURES:
            raise ConfigError(f"{path}: written for other features than this clinqa computes (retrain it)")
        self.path = Path(path)
        self.coef = np.asarray(raw["coef"], dtype=np.float64)
        self.threshold = float(raw.get("threshold", 0.5) if threshold is None else threshold)

    def prob(self, rows: Sequence[Sequence[float]]) -> np.ndarray:
        """P(decisive) per row of :func:`features`, shape ``(len(rows),)``."""
        if not rows:
            return np.zeros(0)
        x = np.asarray(rows, dtype=np.float64) @ self.coef
        return 1.0 / (1.0 + np.exp(-x))


@lru_cache(maxsize=4)
def load(path: str | None = None, threshold: float | None = None) -> DecisiveModel:
    """The decisive-word model at ``path`` (None: the shipped one), loaded once."""
    return DecisiveModel(Path(path) if path else SHIPPED, threshold)



def decider(s: AnswerSettings) -> DecisiveModel | None:
    """The decisive-word model the settings choose (``answer.decisive_words: model``), else None (the rules)."""
    if s.decisive_words != "model":
        return None
    return load(s.decisive_model, s.decisive_threshold)

def save(path: Path, coef: Sequence[float], threshold: float, card: dict) -> None:
    """Write weights for :class:`DecisiveModel` (``coef``: one per :data:`FEATURES`, the bias first)."""
    if len(coef) != len(FEATURES):
        raise ValueError(f"{len(coef)} weights for {len(FEATURES)} features")
    Path(path).write_text(json.dumps({"features": list(FEATURES), "coef": [round(float(c), 6) for c in coef],
                                      "threshold": threshold, "card": card}, indent=1), encoding="utf-8")
