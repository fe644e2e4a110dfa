"""The answer model: does this passage answer this question? A learned signal for the decision.

A cross-encoder (Nogueira & Cho 2019, "Passage Re-ranking with BERT") reads the question and a
passage together and gives the probability that the passage answers the question. clinqa ships one,
``answerability-v1``, trained here from the shipped all-MiniLM-L6-v2 weights by ``clinqa train
reranker`` on MedQuAD question-answer pairs (Ben Abacha & Demner-Fushman 2019, CC BY 4.0) with three
kinds of negative: passages clinqa's hybrid retriever ranks high that are not gold, passages of the
same MedQuAD page answering another question about the same topic, and random passages. It runs on
ONNX Runtime (int8, :class:`clinqa.rerank.onnx_cross_encoder.OnnxCrossEncoder`), without torch. Its
training record and data manifest are beside it (``src/clinqa/models/answerability-v1/``).

The decision step ``answer_model`` (:mod:`clinqa.answer.decision`) refuses a reference question when the
best of the first ``answer.answer_model_passages`` quotable passages scores below the threshold. The
threshold is calibrated per (model, scope) like the gate's (signal ``answer_model`` in
``calibrations.json`` / ``<data_dir>/calibration.json``, :func:`clinqa.answer.calibration.resolve_threshold`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clinqa.errors import ConfigError

#: the answer models shipped inside the package, by name
SHIPPED_MODELS: dict[str, Path] = {
    "answerability-v1": Path(__file__).resolve().parent.parent / "models" / "answerability-v1",
}
#: the calibration signal name of the answer model's threshold
SIGNAL = "answer_model"


def model_folder(name: str) -> Path:
    """The folder of answer model ``name``: a shipped name (:data:`SHIPPED_MODELS`) or a local folder
    path. Raises :class:`ConfigError` naming the shipped models when it is neither."""
    if name in SHIPPED_MODELS:
        folder = SHIPPED_MODELS[name]
        if not folder.is_dir():
            raise ConfigError(f"answer model {name!r}: its files are missing from the install ({folder})")
        return folder
    folder = Path(name).expanduser()
    if folder.is_dir():
        return folder
    raise ConfigError(f"answer model {name!r}: not a shipped model ({', '.join(SHIPPED_MODELS)}) "
                      "and not a local folder")


class AnswerModel:
    """The answer model ``name`` (see :func:`model_folder`), loaded once.

    ``max_tokens``: per (question, passage) pair (only the passage is cut; the shipped model was trained at
    128 and is run at 256). ``threads``: ONNX Runtime intra-op threads. Raises :class:`ConfigError` for a
    missing or unloadable model."""

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
