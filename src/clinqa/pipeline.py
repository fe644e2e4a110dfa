"""The Pipeline: one object, built from one Settings, that owns every stage and wires them.

The CLI, the service and the evaluation harness call ``Pipeline.ingest``, ``Pipeline.search`` and
``Pipeline.ask``, so what is measured is what users run. The stages live in their packages
(:mod:`clinqa.ingest`, :mod:`clinqa.retrieval`, :mod:`clinqa.question.repair`, :mod:`clinqa.answer.scope`,
:mod:`clinqa.evidence.gather`, :mod:`clinqa.decision.table`, :mod:`clinqa.answer.assemble`,
:mod:`clinqa.answer.generate`); this module only builds them lazily and calls them in order. Data directory::

    <data_dir>/lancedb/          the chunk store (LanceDB)
    <data_dir>/embeddings.sqlite the embedding cache, keyed by (model id, content hash)
    <data_dir>/store.json        which encoder built the store (a different one is refused)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinqa.answer import Answer, RefusalGate, assemble, scope
from clinqa.answer.extractive import extract_answer
from clinqa.decision import answerability
from clinqa.decision import calibration as calibrations
from clinqa.decision import table as decide
from clinqa.decision.answer_model import SIGNAL, AnswerModel
from clinqa.decision.answerability import Answerability
from clinqa.decision.calibration import Resolved
from clinqa.decision.key_terms import model_notes
from clinqa.decision.threshold import outside_years
from clinqa.embedding import Encoder, build_encoder, for_store, unit_encoder, warm_up
from clinqa.errors import LoadError
from clinqa.evidence import gather
from clinqa.evidence.passages import passages_to_quote
from clinqa.ingest import IngestReport, StoreRecord, ingest_documents, store_stats
from clinqa.ingest_progress import ingest_files
from clinqa.llm import LLMBackend, build_llm_backend
from clinqa.question.repair import PATIENT_HINT, repair_question
from clinqa.question.time import TimeIntent
from clinqa.rerank import Reranker, build_reranker
from clinqa.retrieval import Filters, RetrievalResult
from clinqa.retrieval.search import deepened, query_filters, search
from clinqa.retrieval.vocabulary import ScopedVocabularies, Vocabulary
from clinqa.settings import EmbeddingSettings, Settings, config_hash
from clinqa.store import Store, build_store, require_store
from clinqa.store.facts import StoreFacts

if TYPE_CHECKING:
    import numpy as np

    from clinqa.answer.generate import Reply
    from clinqa.decision.verdict import Case
    from clinqa.documents.loaders import Skipped
    from clinqa.documents.model import Document

__all__ = ["PATIENT_HINT", "IngestReport", "Pipeline"]


class Pipeline:
    """Ingest, search and answer over one data directory; stages are built lazily."""

    def __init__(self, settings: Settings | None = None, cache_path: Path | None = None,
                 encoder: Encoder | None = None) -> None:
        """``cache_path``: the embedding cache (default ``<data_dir>/embeddings.sqlite``; the evaluation harness
        shares the user's); ``encoder``: an already loaded encoder of ``settings.embedding``, loaded once."""
        self.settings = settings or Settings()
        self.data_dir = Path(self.settings.data_dir)
        self.cache_path = cache_path or self.data_dir / "embeddings.sqlite"
        self._encoder: Encoder | None = encoder
        self._encoder_lock = threading.Lock()
        self._unit_encoder: Encoder | None = None
        self._store: Store | None = None
        self._reranker: Reranker | None = None
        self._answer_model: AnswerModel | None = None
        self._llm: LLMBackend | None = None
        self._vocabularies: ScopedVocabularies | None = None
        self._facts: StoreFacts | None = None

    @property
    def encoder(self) -> Encoder:
        """The dense encoder (loaded on first use; thread-safe, so :meth:`warm_up` may be loading it)."""
        with self._encoder_lock:
            if self._encoder is None:
                self._encoder = build_encoder(self.embedding_settings)
            return self._encoder

    @property
    def embedding_settings(self) -> EmbeddingSettings:
        """``settings.embedding`` for this store: ``precision: auto`` resolved to the precision the store was
        built with (:func:`clinqa.embedding.for_store`; ``store.json``), so a store built before int8 became
        the default opens, answers and re-ingests as before."""
        return for_store(self.settings.embedding, self.store_meta().get("model_id"))

    def warm_up(self) -> threading.Thread:
        """Load :attr:`encoder` in a background thread while the store opens (:func:`clinqa.embedding.warm_up`)."""
        return warm_up(lambda: self.encoder)

    @property
    def unit_encoder(self) -> Encoder:
        """The encoder of the extractive answer's units (:func:`clinqa.embedding.unit_encoder`)."""
        if self._unit_encoder is None or self._unit_encoder.model_id != self.encoder.model_id:
            self._unit_encoder = unit_encoder(self.encoder, self.settings.embedding, self.cache_path)
        return self._unit_encoder

    @property
    def store(self) -> Store:
        """The chunk store of ``settings.store`` (:func:`clinqa.store.build_store`), opened on first use."""
        if self._store is None:
            self._store = build_store(self.settings, self.data_dir)
        return self._store

    @property
    def reranker(self) -> Reranker | None:
        """The cross-encoder reranker (``rerank.model``), or ``None`` when reranking is off."""
        if self._reranker is None and self.settings.rerank.model:
            self._reranker = build_reranker(self.settings.rerank)
        return self._reranker

    def store_meta(self) -> dict[str, Any]:
        """Contents of ``store.json`` (:class:`clinqa.ingest.StoreRecord`; empty before the first ingest)."""
        return StoreRecord(self.data_dir).read()

    def _check_model(self) -> None:
        StoreRecord(self.data_dir).check(self.encoder)

    def ingest(self, paths: Sequence[Path], format: str | None = None, progress: bool = True,
               batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None) -> IngestReport:
        """Load, chunk, embed and store every document under ``paths`` (:func:`clinqa.ingest_progress.ingest_files`,
        :meth:`ingest_documents`); bad files are reported in ``failed`` and to ``on_error(path, reason)``."""
        return ingest_files(paths, format, self.settings.ingest, self.ingest_documents, progress=progress,
                            batch_chunks=batch_chunks, on_error=on_error)

    def ingest_documents(self, items: Iterable[Document | LoadError | Skipped], progress: bool = True,
                         batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None,
                         total: int | None = None, tracker: Any = None) -> IngestReport:
        """Chunk, embed and store already-loaded documents (:func:`clinqa.ingest.ingest_documents`); raises
        :class:`ConfigError` when the store was built with another encoder."""
        self._check_model()
        record = StoreRecord(self.data_dir)
        return ingest_documents(items, self.settings, self.store, self.encoder, self.cache_path,
                                lambda: record.write_once(self.encoder), progress=progress,
                                batch_chunks=batch_chunks, on_error=on_error, total=total, tracker=tracker)

    def filters(self, patient_id: str | None = None, since: int | None = None, until: int | None = None,
                sources: Sequence[str] = (), include_overview: bool = False) -> Filters:
        """Filters for a question-answering query (:func:`clinqa.retrieval.search.query_filters`)."""
        return query_filters(self.settings.retrieval, patient_id, since, until, sources, include_overview)

    def search(self, query: str, filters: Filters | None = None, k: int | None = None,
               rerank: bool = True, recency: bool = False, query_vector: np.ndarray | None = None,
               depth: int | None = None, more: dict[str, tuple[str, ...]] | None = None) -> RetrievalResult:
        """The search of :func:`clinqa.retrieval.search.search` (reranked when ``rerank`` and ``rerank.model``),
        ``k`` hits (default ``retrieval.top_k``); ``query_vector`` skips encoding the query again; ``depth``
        deepens both ranked lists for this call (:func:`clinqa.retrieval.search.deepened`); ``more``: other names
        of question words (the lexicon's) added to the BM25 query."""
        self._check_model()
        rs = deepened(self.settings.retrieval, depth)
        return search(self.store, self.encoder, query, filters or self.filters(), rs, k or rs.top_k,
                      self.reranker if rerank else None, recency, query_vector, more)

    def calibration(self, scope: str = "reference") -> Resolved:
        """The calibration in force for ``scope`` (``reference`` or ``patient``) for the gate's model
        (:func:`clinqa.decision.calibration.resolve`, :func:`~clinqa.decision.calibration.gate_model_id`)."""
        s = self.settings.answer
        model_id = calibrations.gate_model_id(s.gate_signal, lambda: self.reranker, lambda: self.encoder)
        return calibrations.resolve(s.gate_signal, model_id, s, self.data_dir, scope)

    def calibration_key(self) -> str:
        """The answer cache's key of both scopes' calibrations (:func:`clinqa.decision.calibration.cache_key`)."""
        model = self.answer_model()
        return calibrations.cache_key([self.calibration(s) for s in calibrations.SCOPES], model)

    def answer_model(self) -> tuple[AnswerModel, float] | None:
        """The answer model of ``answer.answer_model`` (:class:`~clinqa.decision.answer_model.AnswerModel`, loaded on
        first use) and its threshold (:func:`clinqa.decision.calibration.resolve_threshold`); None when unset."""
        s = self.settings.answer
        if not s.answer_model:
            return None
        if self._answer_model is None or self._answer_model.name != s.answer_model:
            self._answer_model = AnswerModel(s.answer_model, max_tokens=s.answer_model_tokens)
        model_id = self._answer_model.model_id
        return self._answer_model, calibrations.resolve_threshold(SIGNAL, model_id, s.answer_model_threshold,
                                                                  self.data_dir)[0]

    def gate(self, scope: str = "reference") -> RefusalGate:
        """The refusal gate of :meth:`calibration` for ``scope``."""
        return self.calibration(scope).gate()

    @property
    def vocabulary(self) -> Vocabulary:
        """The corpus vocabulary at the store's current version (:class:`~clinqa.retrieval.vocabulary.Vocabulary`)."""
        return self._vocabs().corpus

    def scoped_vocabulary(self, filters: Filters | None = None) -> Vocabulary:
        """:attr:`vocabulary`, plus the patient's own notes for a patient-scoped query (never another's)."""
        return self._vocabs().scoped(filters.patient_id if filters is not None else None)

    def _vocabs(self) -> ScopedVocabularies:  # rebuilt for another store, as facts()
        if self._vocabularies is None or self._vocabularies.store is not self.store:
            self._vocabularies = ScopedVocabularies(self.store, self.data_dir)
        return self._vocabularies

    def answerability(self, question: str, hits: Sequence[Any], max_zipf: float | None = None,
                      filters: Filters | None = None, depth: int | None = None) -> Answerability:
        """The key-term test (:class:`clinqa.evidence.gather.KeyTermTest`) of ``question`` against the first ``depth``
        (default ``answer.context_chunks``) ``hits``, ``max_zipf`` defaulting to the reference calibration's; which
        missing term decides as ``ask`` decides it (``answer.decisive_words``)."""
        zipf = self.calibration().key_term_max_zipf if max_zipf is None else max_zipf
        test = gather.KeyTermTest(question, self.scoped_vocabulary(filters), zipf, self.judge(),
                                  rarity=self.settings.answer.rarity)
        return test.on(list(hits)[: depth or self.settings.answer.context_chunks])

    def repair_question(self, question: str, filters: Filters | None = None) -> tuple[str, dict[str, str]]:
        """:func:`clinqa.question.repair.repair_question` against the vocabulary of ``filters``' scope."""
        return repair_question(question, self.scoped_vocabulary(filters), self.settings.answer.rarity.repair_below)

    def time_intent(self, question: str, filters: Filters) -> tuple[Filters, TimeIntent]:
        """The filters and time intent of :func:`clinqa.question.time.apply_time_intent` (``parse_time``), read by
        the one place :meth:`ask` reads them: the question's initial case (:func:`clinqa.answer.scope.initial_case`)."""
        ev = self._initial_case(question, filters)
        return ev.filters, ev.intent

    def _initial_case(self, question: str, filters: Filters) -> Case:
        """:func:`clinqa.answer.scope.initial_case` of ``question`` under ``filters``, with this pipeline's settings
        and store readers."""
        return scope.initial_case(question, filters, self.settings.answer, self.settings.retrieval.parse_time,
                                  self.reference_has_years, self.patient_notes)

    def facts(self) -> StoreFacts:
        """What the store's documents say besides search (:class:`clinqa.store.facts.StoreFacts`)."""
        if self._facts is None or self._facts.store is not self.store:
            self._facts = StoreFacts(self.store)
        return self._facts

    def patient_notes(self, patient_id: str) -> dict[str, tuple[str, str]]:
        """``{doc_id: (note date ISO or "", note type or "")}`` of one patient (:meth:`StoreFacts.patient_notes`)."""
        return self.facts().patient_notes(patient_id)

    def has_patient_notes(self) -> bool:
        """Does the store hold any patient's notes? Read once per store version."""
        return self.facts().has_patient_notes()

    def reference_has_years(self) -> bool:
        """Does any reference document (one of no patient) carry a year? Read once per store version."""
        return self.facts().reference_has_years()

    @property
    def llm(self) -> LLMBackend | None:
        """The language model of ``settings.llm`` (built on first use), or None for ``backend: none``."""
        if self._llm is None and self.settings.llm.backend != "none":
            self._llm = build_llm_backend(self.settings.llm)
        return self._llm

    def judge(self) -> gather.Judge:
        """The key-term test's judgement (:func:`clinqa.decision.answerability.judge`) with the decisive-word model
        of ``answer.decisive_words`` bound (:func:`clinqa.decision.decisive_words.decider`)."""
        from clinqa.decision.decisive_words import decider

        return partial(answerability.judge, decider=decider(self.settings.answer))

    def stages(self, patient_id: str | None) -> gather.Stages:
        """What gathering the evidence of a question needs (:class:`clinqa.evidence.gather.Stages`), for the scope of
        ``patient_id`` (a patient-scoped question; None: the reference documents): the scope's vocabulary
        (:meth:`scoped_vocabulary`) and calibration, the answer model for a reference question, read here once, and
        the key-term test's judgement (:meth:`judge`). Only the scope matters here, never the question."""
        patient = patient_id is not None
        return gather.Stages(
            settings=self.settings, store=self.store, search=self.search,
            vocabulary=self._vocabs().scoped(patient_id),
            calibration=self.calibration("patient" if patient else "reference"),
            answer_model=None if patient else self.answer_model(), has_patient_notes=self.has_patient_notes(),
            unit_encoder=lambda: self.unit_encoder, reference_has_years=self.reference_has_years, judge=self.judge())

    def ask(self, question: str, filters: Filters | None = None, closed: bool = False,
            generate: bool = True, query_vector: np.ndarray | None = None) -> Answer:
        """Answer ``question`` with citations, or refuse helpfully. Stages, each in its module: validate; the scope's
        initial case, the question's time intent applied (:func:`clinqa.answer.scope.initial_case`); the search and
        the rest of the evidence (:func:`clinqa.evidence.gather.gather`); the decision
        (:data:`clinqa.decision.table.STEPS`, phase by phase, each phase once its evidence exists: a refusal under a
        year range with the wider search, :func:`clinqa.decision.threshold.outside_years`; the quote,
        :func:`clinqa.answer.extractive.extract_answer`; with ``llm.backend`` and ``generate``, the model's checked
        reply, :func:`clinqa.answer.generate.model_reply`, ``closed``: a leading Yes/No/Maybe, told what is missing,
        :func:`clinqa.decision.key_terms.model_notes`, when it decides on a missing key term itself); then the answer,
        rendered once from the decision (:func:`clinqa.answer.assemble.answer_of`). ``query_vector`` reuses a stored
        embedding of the question (replay). Raises :class:`ConfigError` for an empty store, then for an empty
        question (the initial case, the question's first reader, refuses a blank one)."""
        t0 = time.perf_counter()
        self.require_store()
        filters = filters or self.filters()
        ev = self._initial_case(question, filters)  # the question's first reading: ConfigError when it is blank
        decision = decide.run(ev, "time")
        stages: gather.Stages | None = None
        found: gather.Gathered | None = None
        outside: list[Any] = []  # a refusal under a year range: the hits outside it, when the question answers there
        reply: Reply | None = None
        timings: dict[str, float] = {}
        if not decision.verdict.final:  # else a patient question about a day with no note: refused before a search
            # the scope's stages are the caller's scope's: the question's time intent limits years and notes, never
            # the patient (ev.filters.patient_id is filters.patient_id)
            stages = self.stages(filters.patient_id)
            # with a language model writing the answer, it decides on a missing key term (decision step key_terms)
            ev.model_writes = generate and self.settings.llm.backend != "none"
            ev.calibration = stages.calibration
            found = gather.gather(stages, ev.question, ev.filters, ev.intent, query_vector)
            ev.take(found)
            decide.run(ev, "retrieval", decision)
            if not decision.verdict.answer and ev.filters.has_years:
                outside = outside_years(stages.calibration.gate(), stages, found, ev.filters, ev.missing)
            if decision.verdict.answer:  # the quote, from the passages the evidence layer chooses once it answers
                t1, a = time.perf_counter(), self.settings.answer
                quoted, by_time = passages_to_quote(stages, found, ev.filters, ev.intent)
                # a question about a time and nothing else ("What happened in 2023?"): every sentence of those notes
                sentences, floor = (12, -1.0) if by_time else (a.max_sentences, a.min_sentence_score)
                ev.extract = extract_answer(found.result.query_vector, quoted, stages.unit_encoder(), sentences,
                                            floor, max_hits=len(quoted), asked=found.profile, scoring=a.scoring,
                                            readings=found.test.readings)
                timings["extract"] = (time.perf_counter() - t1) * 1e3
                decide.run(ev, "quote", decision)
            if decision.verdict.answer and ev.model_writes:
                from clinqa.answer.generate import model_reply

                # what the model is told is missing, read first
                notes = model_notes(ev, found, self.settings.generation.evidence_chunks)
                reply = model_reply(ev.question, found.result.hits, lambda: self.llm, self.settings, closed, notes)
                ev.model_refused, ev.model_failed = reply.refused, reply.failed
                decide.run(ev, "generate", decision)
        answer = assemble.answer_of(stages, ev, found, decision, outside, reply, timings)
        answer.timings_ms["total"] = (time.perf_counter() - t0) * 1e3
        answer.decided_by = decision.verdict.step
        return answer

    def ask_no_context(self, question: str, closed: bool = False) -> Answer:
        """The language model alone, with no evidence (:func:`clinqa.answer.generate.no_context_answer`)."""
        from clinqa.answer.generate import no_context_answer

        return no_context_answer(question, self.llm, self.settings, closed)

    def require_store(self, empty_ok: bool = False) -> None:
        """Raise :class:`ConfigError` when there is nothing to search (:func:`clinqa.store.require_store`)."""
        require_store(self.settings, self.data_dir, self._store, lambda: self.store, empty_ok)

    def remove(self, doc_id: str) -> int:
        """Delete a document's chunks; returns how many were removed."""
        return self.store.delete_document(doc_id)

    def config_hash(self) -> str:
        """12 hex digits for every setting that can change an answer (:func:`clinqa.settings.config_hash`)."""
        return config_hash(self.settings, self.store_meta().get("model_id", self.settings.embedding.model))

    def corpus_version(self) -> int:
        """The store's version, changed by every ingest or removal (so answers cached under it go stale)."""
        return self.store.version()

    def stats(self) -> dict[str, Any]:
        """Counts for ``clinqa stats`` (:func:`clinqa.ingest.store_stats`)."""
        return store_stats(self.store, self.data_dir, self.store_meta().get("model_id"))
