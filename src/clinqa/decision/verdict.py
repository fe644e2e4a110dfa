"""The decision table's vocabulary: the :class:`Case` the steps read, the :class:`Verdict` they return and
the :class:`Step` rows of :data:`clinqa.decision.table.STEPS` (a separate module, so each step module can
import it without the table)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from clinqa.decision.answerability import Answerability
    from clinqa.decision.calibration import Resolved
    from clinqa.decision.threshold import GateDecision, RefusalGate
    from clinqa.evidence.gather import Gathered
    from clinqa.question.profile import QuestionProfile
    from clinqa.question.time import TimeIntent
    from clinqa.retrieval.filters import Filters
    from clinqa.retrieval.hybrid import RetrievalResult


Phase = Literal["time", "retrieval", "quote", "generate"]


class Quoted(Protocol):
    """What the quote-phase steps read of the extractive answer: its ``text`` ("" when nothing was quoted) and its
    ``citations`` (each with the ``chunk_id`` it quotes)."""

    text: str
    citations: Sequence[Any]


@dataclass
class Case:
    """Everything the steps read about one question, filled in as ``ask`` gathers it: the case the decision weighs.
    (Issue 48 item 5: it was ``Evidence``; "evidence" is now the layer :mod:`clinqa.evidence` alone.) ``question``: as
    typed; ``filters``: as applied (time intent included); ``intent``: the time intent read; ``unknown_terms`` /
    ``key_terms``: the ``answer`` settings of the same names (``ignore`` / ``warn`` / ``refuse``). ``time_filter``:
    the time intent in words, as the answer shows it (read once, when the case starts:
    :meth:`clinqa.question.time.TimeIntent.describe`). ``patient_notes``: ``{doc_id: (note date ISO, note type)}`` of
    the patient, read only for a question about a day with no note, and ``near_notes`` the nearest of them to that day
    (up to three ``(day, note type, doc id)``, nearest first: :func:`clinqa.question.time.nearest_notes`), which the
    refusal names. ``answer_score`` / ``answer_threshold``: the answer model's best probability over the first
    quotable passages and its calibrated threshold (None: the model is off or did not run). Retrieval phase:
    ``result`` (the hits), ``missing`` (question words no visible chunk has), ``rare`` (question words few chunks
    have, less those no warning names: :attr:`clinqa.evidence.gather.Gathered.rare`), ``check`` (the key-term test of
    the quotable passages, None when it did not run), ``timed`` (a question about a time whose topic, if any, the
    key-term test found none of: see ``dated_note``), ``scope`` (what a patient, year, source or document filter let
    the search see, in words: "patient P1's notes", "the reference documents" of a store with notes; "" for none)
    and ``calibration`` (:class:`clinqa.decision.calibration.Resolved`; :attr:`gate` is its
    :class:`RefusalGate`) and ``profile`` (what the question asks for, read once from the question after spelling
    repair: :class:`clinqa.question.profile.QuestionProfile`; None before retrieval). Quote phase: ``extract`` (the
    extractive answer, :class:`clinqa.answer.extractive.Extract`: the steps read its ``text`` and ``citations``).
    ``model_writes``: a language model writes the answer (``--llm``, generation on; set before the retrieval phase):
    steps ``key_terms`` and ``apart`` then pass and the model decides with the missing-term notes. Generate phase:
    ``model_refused`` (the model's reply is the refusal phrase), ``model_failed`` (the model gave no usable answer:
    unreachable, or none of its sentences supported)."""

    question: str
    filters: Filters
    intent: TimeIntent
    unknown_terms: str = "warn"
    key_terms: str = "refuse"
    no_note: bool = False
    time_filter: str = ""
    patient_notes: dict[str, tuple[str, str]] = field(default_factory=dict)
    near_notes: list[tuple[str, str, str]] = field(default_factory=list)
    result: RetrievalResult | None = None
    missing: list[str] = field(default_factory=list)
    rare: list[str] = field(default_factory=list)
    check: Answerability | None = None
    timed: bool = False
    scope: str = ""
    measured: frozenset[str] = frozenset()
    calibration: Resolved | None = None
    extract: Quoted | None = None
    model_refused: bool = False
    model_writes: bool = False
    model_failed: bool = False
    answer_score: float | None = None
    answer_threshold: float | None = None
    profile: QuestionProfile | None = None

    def take(self, found: Gathered) -> None:
        """Take the retrieval phase's evidence gathered for this question (:func:`clinqa.evidence.gather.gather`):
        ``profile``, ``result``, ``missing``, ``rare``, ``check``, ``timed``, ``answer_score`` /
        ``answer_threshold`` (left as they are when the answer model did not run), ``scope`` and ``measured``."""
        self.profile, self.result, self.missing, self.rare = found.profile, found.result, found.missing, found.rare
        self.check, self.timed, self.scope = found.check, found.timed, found.scope
        self.measured = found.measured
        if found.answer_score is not None:
            self.answer_score, self.answer_threshold = found.answer_score, found.answer_threshold

    @property
    def gate(self) -> RefusalGate | None:
        """The refusal gate of :attr:`calibration` (None before retrieval)."""
        return self.calibration.gate() if self.calibration is not None else None

    @property
    def hits(self) -> list[Any]:
        """The retrieved hits (best first; empty before retrieval)."""
        return self.result.hits if self.result is not None else []


@dataclass(frozen=True)
class Verdict:
    """The decision so far: ``answer`` or refuse with ``reason`` (the sentence the reader is told; ""
    when answering), the ``gate`` record an answer carries in ``Answer.gate`` (None before retrieval),
    the ``step`` that set it, ``final`` (no later step runs) and the ``warnings`` the steps added."""

    answer: bool
    reason: str = ""
    gate: GateDecision | None = None
    step: str = ""
    final: bool = False
    warnings: tuple[str, ...] = ()

    def overturned(self, step: str, kind: str, why: str) -> Verdict:
        """This refusal answered by ``step`` after all (``dated_note``, ``noted_in_time``, ``support``): the gate
        record (present after retrieval) becomes an answer whose ``kind`` gains ``"+" + kind`` and whose reason is
        ``why``."""
        assert self.gate is not None
        g = replace(self.gate, answer=True, kind=f"{self.gate.kind}+{kind}", reason=why)
        return replace(self, answer=True, reason="", gate=g, step=step)


StepFn = Callable[[Case, Verdict], Verdict | None]


@dataclass(frozen=True)
class Step:
    """One named row of the decision table: ``run(evidence, verdict) -> Verdict | None`` in ``phase``."""

    name: str
    phase: Phase
    run: StepFn
    doc: str = ""
