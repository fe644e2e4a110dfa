"""The answer model: does this passage answer this question? A learned signal for the decision.

A cross-encoder (Nogueira & Cho 2019, "Passage Re-ranking with BERT") reads the question and a
passage together and gives the probability that the passage answers the question. ``clinqa train
reranker`` trains one from the shipped all-MiniLM-L6-v2 weights (MedQuAD question-answer pairs, Ben
Abacha & Demner-Fushman 2019, CC BY 4.0, with hard, same-page and random negatives: ``--sibling-negatives``,
``--random-negatives``), ``clinqa train export`` writes its int8 ONNX copy, and it runs on ONNX Runtime
without torch (:class:`clinqa.rerank.onnx_cross_encoder.OnnxCrossEncoder`).

**No answer model ships with clinqa, and the step is off by default**. Issue 29's best (MedQuAD and
PubMedQA, 17 minutes on 2 cores), in place of the key-term refusals, lowered fact recall on the clinician
set (0.962 -> 0.774). Issue 39's (``clinqa train pairs`` + ``clinqa train answer-model``: 24,576 pairs from
BioASQ, MedQuAD, PubMedQA, MEDIQA 2019, COVID-QA and the guideline corpus with leave-gold-out, entity-swap
and clinician-rewrite rows, 1,279 steps, 85 minutes on 2 cores) separated the blind dev half's answerable
from its uncovered questions with a ROC AUC of 0.652 (0.615 after its first 768 steps; 0.54 reading units),
below the decisive-word classifier's 0.778, and added nothing to it in a combiner (docs/benchmarks.md,
"Issue 39"). The setting takes a folder.

The decision step ``answer_model`` (:mod:`clinqa.decision.table`) refuses a reference question when the
best of the first ``answer.answer_model_passages`` quotable passages scores below the threshold. The
threshold is calibrated per (model, scope) like the gate's (signal ``answer_model`` in
``<data_dir>/calibration.json``, or ``answer.answer_model_threshold``:
:func:`clinqa.decision.calibration.resolve_threshold`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from clinqa.decision.verdict import Case, Verdict
from clinqa.errors import ConfigError

#: the answer models shipped inside the package, by name (``<package>/models/<name>/``): none yet, see above
SHIPPED_MODELS: dict[str, Path] = {}
#: the calibration signal name of the answer model's threshold
SIGNAL = "answer_model"


def model_folder(name: str) -> Path:
    """The folder of answer model ``name``: a shipped name (:data:`SHIPPED_MODELS`) or a local folder
    path. Raises :class:`ConfigError` when it is neither."""
    if name in SHIPPED_MODELS:
        folder = SHIPPED_MODELS[name]
        if not folder.is_dir():
            raise ConfigError(f"answer model {name!r}: its files are missing from the install ({folder})")
        return folder
    folder = Path(name).expanduser()
    if folder.is_dir():
        return folder
    shipped = f"a shipped model ({', '.join(SHIPPED_MODELS)}) or " if SHIPPED_MODELS else ""
    raise ConfigError(f"answer model {name!r}: not {shipped}a local folder (`clinqa train answer-model` then "
                      "`clinqa train export` write one)")


class AnswerModel:
    """The answer model ``name`` (see :func:`model_folder`), loaded once.

    ``max_tokens``: per (question, passage) pair (only the passage is cut). ``threads``: ONNX Runtime
    intra-op threads. Raises :class:`ConfigError` for a missing or unloadable model."""

    def __init__(self, name: str, max_tokens: int = 256, threads: int | None = None) -> None:
        from clinqa.rerank.onnx_cross_encoder import OnnxCrossEncoder

        self.name = name
        self._enc = OnnxCrossEncoder(model_folder(name), max_tokens=max_tokens, batch_size=8, threads=threads)
        self.model_id = self._enc.model_id

    def best(self, question: str, passages: Sequence[str]) -> float | None:
        """The highest probability, in [0, 1], that one of ``passages`` answers ``question``; None when there
        are no passages."""
        if not passages:
            return None
        return float(self._enc.score(question, list(passages)).max())


def answer_model(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) an answer when the answer model's best score over the first quotable passages
    (``ev.answer_score``) is below its calibrated threshold; the gate record's ``kind`` gains
    ``+answer_model``."""
    if not v.answer or ev.answer_score is None or ev.answer_threshold is None or ev.answer_score >= ev.answer_threshold:
        return None
    assert v.gate is not None
    g = replace(v.gate, answer=False, kind=v.gate.kind + "+answer_model",
                reason=f"answer model {ev.answer_score:.3f} is below its threshold {ev.answer_threshold:.3f}")
    return Verdict(False, NOT_ANSWERED, g, "answer_model", final=True, warnings=v.warnings)


NOT_ANSWERED = "The passages found are about this topic, but none of them answers this question."
