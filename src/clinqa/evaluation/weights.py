"""Query-dependent fusion weights ("dynamic alpha"), an experiment of ``clinqa eval fusion``
(:mod:`clinqa.evaluation.fusion`); the product fuses with fixed weights (``retrieval.*_weight``).

A rule, not a model: keyword-heavy clinical queries lean on BM25, definitional queries on the
dense encoder. Following the heuristic described for hybrid clinical search (several clinical
terms or the word "guideline" -> more keyword weight; "what is ..." -> more semantic weight):

- definitional ("what is", "what are", "define", "definition of", "meaning of") ->
  dense 0.7 / BM25 0.3;
- otherwise, 2 or more clinical-looking terms (acronyms such as "CKD" or "qSOFA" with 2+
  capitals, tokens with digits such as "CHA2DS2-VASc" or "HbA1c", words of 10+ letters such as
  "thrombectomy") or the word "guideline(s)" -> dense 0.3 / BM25 0.7;
- otherwise equal weights 0.5 / 0.5.
Only the ratio matters to RRF's ranking.
"""

from __future__ import annotations

import re

from clinqa.text.words import ASCII_TOKEN

_DEFINITIONAL = re.compile(r"^\s*(what\s+(is|are)\b|define\b|definition\s+of\b|meaning\s+of\b)", re.I)


def clinical_terms(query: str) -> list[str]:
    """Tokens that look like clinical terms (see module docstring)."""
    out = []
    for t in ASCII_TOKEN.findall(query):
        caps = sum(c.isupper() for c in t)
        if caps >= 2 or (any(c.isdigit() for c in t) and any(c.isalpha() for c in t)) or len(t) >= 10:
            out.append(t)
    return out


def dynamic_weights(query: str) -> tuple[float, float]:
    """``(dense_weight, bm25_weight)`` for ``query`` by the rule in the module docstring."""
    if _DEFINITIONAL.search(query):
        return 0.7, 0.3
    if len(clinical_terms(query)) >= 2 or re.search(r"\bguidelines?\b", query, re.I):
        return 0.3, 0.7
    return 0.5, 0.5
