"""The Pipeline: one object, built from one Settings, that owns every stage and wires them.

The CLI, the service and the evaluation harness call ``Pipeline.ingest``, ``Pipeline.search`` and
``Pipeline.ask``, so what is measured is what users run. The stages live in their packages
(:mod:`clinqa.ingest`, :mod:`clinqa.retrieval`, :mod:`clinqa.answer.question`,
:mod:`clinqa.answer.evidence`, :mod:`clinqa.answer.decision`, :mod:`clinqa.answer.assemble`,
:mod:`clinqa.answer.generate`); this module only builds them lazily and calls them in order.

Data directory layout::

    <data_dir>/lancedb/          the chunk store (LanceDB)
    <data_dir>/embeddings.sqlite the embedding cache, keyed by (model id, content hash)
    <data_dir>/store.json        which encoder built the store (a different one is refused)
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.answer import Answer, RefusalGate, assemble
from clinqa.answer import decision as decide
from clinqa.answer import evidence as gather
from clinqa.answer.answer_model import SIGNAL, AnswerModel
from clinqa.answer.answerability import Answerability
from clinqa.answer.calibration import Resolved, resolve, resolve_threshold
from clinqa.answer.question import NO_NOTE, PATIENT_HINT, apply_time_intent, repair_question
from clinqa.documents.model import Document
from clinqa.embedding import CachedEncoder, EmbeddingCache, Encoder, build_encoder
from clinqa.embedding.late import late_key
from clinqa.errors import ConfigError, LoadError
from clinqa.ingest import IngestReport, StoreRecord, ingest_documents, store_stats
from clinqa.llm import LLMBackend, build_llm_backend
from clinqa.rerank import Reranker, build_reranker
from clinqa.retrieval import Filters, RetrievalResult
from clinqa.retrieval.search import search
from clinqa.retrieval.temporal import TimeIntent
from clinqa.retrieval.vocabulary import ScopedVocabularies, Vocabulary
from clinqa.settings import Settings, config_hash
from clinqa.store import Store, build_store, require_store
from clinqa.store.facts import StoreFacts
from clinqa.text.unicode import is_blank

if TYPE_CHECKING:
    from clinqa.documents.loaders import Skipped

__all__ = ["PATIENT_HINT", "IngestReport", "Pipeline"]


class Pipeline:
    """Ingest, search and answer over one data directory; stages are built lazily."""

    def __init__(self, settings: Settings | None = None, cache_path: Path | None = None,
                 encoder: Encoder | None = None) -> None:
        """``cache_path`` overrides where the embedding cache lives (default
        ``<data_dir>/embeddings.sqlite``): the evaluation harness points throwaway stores at the
        user's cache so nothing is embedded twice. ``encoder`` is an already loaded encoder of
        ``settings.embedding`` (another pipeline's :attr:`encoder`), so the model is loaded once."""
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

    # -- stages -------------------------------------------------------------------------
    @property
    def encoder(self) -> Encoder:
        """The dense encoder (loaded on first use; thread-safe, so :meth:`warm_up` may be loading it)."""
        with self._encoder_lock:
            if self._encoder is None:
                self._encoder = build_encoder(self.settings.embedding)
            return self._encoder

    def warm_up(self) -> threading.Thread:
        """Load the query encoder in a background (daemon) thread and embed one probe question, so
        that its imports and model session start while the caller opens the store (a cold ``clinqa
        ask``: about 0.2 s of its 1.7 s on 2 cores, ``bench/cold_start.py``). Returns the started
        thread; an error there is left for the first real query to raise."""
        def load() -> None:
            with contextlib.suppress(Exception):
                self.encoder.encode_queries(["warm-up"])

        thread = threading.Thread(target=load, name="clinqa-warm-up", daemon=True)
        thread.start()
        return thread

    @property
    def unit_encoder(self) -> Encoder:
        """The encoder the extractive answer embeds its units with: :attr:`encoder` behind the
        embedding cache (:class:`clinqa.embedding.CachedEncoder`) when ``embedding.cache`` is on, so
        units pre-computed at ingest (``answer.precompute_units``) or seen before are looked up; with
        ``embedding.unit_vectors`` ``late`` the late-pooled vectors ingest stored are read first."""
        if self._unit_encoder is None or self._unit_encoder.model_id != self.encoder.model_id:
            enc = self.encoder
            prefer = late_key(enc.model_id) if self.settings.embedding.unit_vectors == "late" else None
            self._unit_encoder = (CachedEncoder(enc, EmbeddingCache(self.cache_path), prefer=prefer)
                                  if self.settings.embedding.cache else enc)
        return self._unit_encoder

    @property
    def store(self) -> Store:
        """The chunk store ``settings.store`` configures (:func:`clinqa.store.build_store`; LanceDB in
        ``<data_dir>/lancedb`` by default), opened on first use."""
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

    # -- ingest -------------------------------------------------------------------------
    def ingest(self, paths: Sequence[Path], format: str | None = None, progress: bool = True,
               batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None) -> IngestReport:
        """Load, chunk, embed and store every document under ``paths`` (:func:`clinqa.ingest.ingest_documents`:
        unchanged documents skipped, one atomic store commit per batch, bad files reported in ``failed``
        and passed to ``on_error(path, reason)``, never stopping the run)."""
        from clinqa.documents.loaders import iter_documents  # the parsers load on first ingest
        from clinqa.ingest_progress import IngestProgress

        items = iter_documents([Path(p) for p in paths], format, limits=self.settings.ingest)
        with IngestProgress([Path(p) for p in paths], enabled=progress) as tracker:
            return self.ingest_documents(items, progress=progress, batch_chunks=batch_chunks, on_error=on_error,
                                         tracker=tracker if progress else None)

    def ingest_documents(self, items: Iterable[Document | LoadError | Skipped], progress: bool = True,
                         batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None,
                         total: int | None = None, tracker: Any = None) -> IngestReport:
        """Chunk, embed and store already-loaded documents (see :meth:`ingest`); load errors and skips in
        ``items`` are reported as they would be from files. Raises :class:`ConfigError` when the store was
        built with another encoder."""
        self._check_model()
        record = StoreRecord(self.data_dir)
        return ingest_documents(items, self.settings, self.store, self.encoder, self.cache_path,
                                lambda: record.write_once(self.encoder), progress=progress,
                                batch_chunks=batch_chunks, on_error=on_error, total=total, tracker=tracker)

    # -- query --------------------------------------------------------------------------
    def filters(self, patient_id: str | None = None, since: int | None = None, until: int | None = None,
                sources: Sequence[str] = (), include_overview: bool = False) -> Filters:
        """Filters for a question-answering query (overview chunks excluded unless asked). A patient id is
        read without surrounding spaces ("P-1 " is P-1, as shown); raises :class:`ConfigError` for a blank one."""
        if patient_id is not None:
            patient_id = patient_id.strip()
            if not patient_id:
                raise ConfigError("the patient id is empty")
        levels = () if include_overview else tuple(self.settings.retrieval.exclude_levels)
        return Filters(patient_id=patient_id, year_min=since, year_max=until, sources=tuple(sources),
                       exclude_levels=levels)

    def search(self, query: str, filters: Filters | None = None, k: int | None = None,
               rerank: bool = True, recency: bool = False, query_vector: np.ndarray | None = None,
               depth: int | None = None) -> RetrievalResult:
        """The search of :func:`clinqa.retrieval.search.search` (hybrid, folded, reranked when ``rerank`` and
        ``rerank.model``, newest first with ``recency``), ``k`` hits (default ``retrieval.top_k``).
        ``query_vector`` skips encoding the query again; ``depth`` deepens both ranked lists for this call
        (``dense_k``, ``bm25_k``, ``document_k`` at least ``depth``), as the evaluation harness needs."""
        self._check_model()
        rs = self.settings.retrieval
        if depth is not None:
            rs = rs.model_copy(update={"dense_k": max(depth, rs.dense_k), "bm25_k": max(depth, rs.bm25_k),
                                       "document_k": max(depth, rs.document_k)})
        return search(self.store, self.encoder, query, filters or self.filters(), rs, k or rs.top_k,
                      self.reranker if rerank else None, recency, query_vector)

    def _gate_model_id(self) -> str:
        s = self.settings.answer
        if s.gate_signal == "rerank":
            if self.reranker is None:
                raise ConfigError("answer.gate_signal 'rerank' needs a reranker: set rerank.model")
            return self.reranker.model_id
        return self.encoder.model_id

    def calibration(self, scope: str = "reference") -> Resolved:
        """The calibration in force for ``scope`` (``reference``, or ``patient`` for a question over one
        patient's notes), every value resolved from one lookup (:func:`clinqa.answer.calibration.resolve`:
        the settings, then ``<data_dir>/calibration.json``, then the shipped table, then the fallbacks)."""
        s = self.settings.answer
        return resolve(s.gate_signal, self._gate_model_id(), s, self.data_dir, scope)

    def calibration_key(self) -> str:
        """Every calibrated value of both scopes as one string (:meth:`Resolved.key`), and the answer model's
        id and threshold when it is on, for the answer cache: a re-calibration of either scope (``eval refusal
        --save``) or of the answer model changes it."""
        model = self.answer_model()
        tail = [f"answer_model:{model[0].model_id}:t={model[1]:.6f}"] if model is not None else []
        return "|".join([*(self.calibration(scope).key() for scope in ("reference", "patient")), *tail])

    def answer_model(self) -> tuple[AnswerModel, float] | None:
        """The answer model of ``answer.answer_model`` (:class:`clinqa.answer.answer_model.AnswerModel`, loaded
        on first use) with its reference-scope threshold (signal ``answer_model``, resolved as the gate's:
        :func:`clinqa.answer.calibration.resolve_threshold`), or None when the setting is unset."""
        name = self.settings.answer.answer_model
        if not name:
            return None
        if self._answer_model is None or self._answer_model.name != name:
            self._answer_model = AnswerModel(name)
        threshold, _, _ = resolve_threshold(SIGNAL, self._answer_model.model_id,
                                            self.settings.answer.answer_model_threshold, self.data_dir)
        return self._answer_model, threshold

    def gate(self, scope: str = "reference") -> RefusalGate:
        """The refusal gate of :meth:`calibration` for ``scope``."""
        return self.calibration(scope).gate()

    @property
    def vocabulary(self) -> Vocabulary:
        """The corpus vocabulary at the store's current version, for spelling repair
        (:class:`clinqa.retrieval.vocabulary.ScopedVocabularies`)."""
        return self._vocabs().corpus

    def scoped_vocabulary(self, filters: Filters | None = None) -> Vocabulary:
        """:attr:`vocabulary`, plus the patient's own notes for a patient-scoped query (never another's)."""
        return self._vocabs().scoped(filters.patient_id if filters is not None else None)

    def _vocabs(self) -> ScopedVocabularies:
        if self._vocabularies is None or self._vocabularies.store is not self.store:
            self._vocabularies = ScopedVocabularies(self.store, self.data_dir)
        return self._vocabularies

    def answerability(self, question: str, hits: Sequence[Any], max_zipf: float | None = None,
                      filters: Filters | None = None, depth: int | None = None) -> Answerability:
        """The key-term test (:class:`clinqa.answer.evidence.KeyTermTest`) of ``question`` against the first
        ``depth`` (default ``answer.context_chunks``) of ``hits``, with the vocabulary of ``filters``' scope
        (:meth:`scoped_vocabulary`) and ``max_zipf`` (default the reference calibration's)."""
        zipf = self.calibration().key_term_max_zipf if max_zipf is None else max_zipf
        test = gather.KeyTermTest(question, self.scoped_vocabulary(filters), zipf)
        return test.on(list(hits)[: depth or self.settings.answer.context_chunks])

    def repair_question(self, question: str, filters: Filters | None = None) -> tuple[str, dict[str, str]]:
        """:func:`clinqa.answer.question.repair_question` against the vocabulary of ``filters``' scope."""
        return repair_question(question, self.scoped_vocabulary(filters))

    def time_intent(self, question: str, filters: Filters) -> tuple[Filters, TimeIntent]:
        """:func:`clinqa.answer.question.apply_time_intent` (today's date) when ``retrieval.parse_time`` is on;
        returns the filters and the intent actually used."""
        if not self.settings.retrieval.parse_time:
            return filters, TimeIntent()
        return apply_time_intent(question, filters, self.reference_has_years, self.patient_notes)

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

    def ask(self, question: str, filters: Filters | None = None, closed: bool = False,
            generate: bool = True, query_vector: np.ndarray | None = None) -> Answer:
        """Answer ``question`` with citations, or refuse helpfully.

        Stages, each in its module: validate; time intent (:meth:`time_intent`); spelling repair; the
        evidence (:func:`clinqa.answer.evidence.gather`: search, coverage, calibration, key terms); the
        decision (:data:`clinqa.answer.decision.STEPS`, phase by phase); the refusal or the quoted answer
        (:mod:`clinqa.answer.assemble`); then, when ``llm.backend`` is set and ``generate``, the model's
        answer from the same evidence with every sentence checked (``closed`` asks for a leading
        Yes/No/Maybe). A refused question never reaches the model. ``query_vector`` reuses a stored
        embedding of the question (replay). Raises :class:`ConfigError` for an empty question or store."""
        t0, s = time.perf_counter(), self.settings.answer
        filters, intent = self.time_intent(question, self._checked(question, filters))
        ev = decide.Evidence(question, filters, intent, s.unknown_terms, s.key_terms,
                             no_note=filters.doc_ids == (NO_NOTE,))
        if ev.no_note and filters.patient_id is not None:
            ev.patient_notes = self.patient_notes(filters.patient_id)
        decision = decide.run(ev, "time")
        if decision.verdict.final:
            reason, near = assemble.no_note_reason(str(filters.patient_id), ev.patient_notes, intent)
            return assemble.no_note_refusal(question, filters, intent, reason, near,
                                            {"total": (time.perf_counter() - t0) * 1e3})
        found = gather.gather(self, ev, query_vector)
        verdict = decide.run(ev, "retrieval", decision).verdict
        draft = gather.draft(self, ev, found, decision)
        if not verdict.answer:
            answer = gather.refusal(self, draft, verdict.reason, ev, found)
        else:
            t1 = time.perf_counter()
            ev.extract = gather.quote(self, ev, found)
            draft.timings_ms["extract"] = (time.perf_counter() - t1) * 1e3
            verdict = decide.run(ev, "quote", decision).verdict
            answer = (assemble.extractive(draft, ev.extract, found.rare) if verdict.answer else
                      assemble.refusal(draft, verdict.reason, assemble.related(draft.hits, s.related_topics)))
        if (filters.patient_id is None and ev.missing and PATIENT_HINT not in answer.warnings
                and self.has_patient_notes()):  # "the corpus never mentions X" when only a patient's note does
            answer.warnings.append(PATIENT_HINT)
        answer.timings_ms["total"] = (time.perf_counter() - t0) * 1e3
        if generate and not answer.refused and self.settings.llm.backend != "none":
            from clinqa.answer.generate import generated_answer

            answer = generated_answer(answer, found.result.hits, lambda: self.llm, self.settings, closed, t0, ev,
                                      decision)
        return answer

    def ask_no_context(self, question: str, closed: bool = False) -> Answer:
        """The language model alone, with no evidence (:func:`clinqa.answer.generate.no_context_answer`)."""
        from clinqa.answer.generate import no_context_answer

        return no_context_answer(question, self.llm, self.settings, closed)

    def _checked(self, question: str, filters: Filters | None) -> Filters:
        """``filters`` (default :meth:`filters`) for asking ``question``; raises :class:`ConfigError` for an
        empty question or an empty store."""
        if is_blank(question):
            raise ConfigError("the question is empty")
        self.require_store()
        return filters or self.filters()

    def require_store(self, empty_ok: bool = False) -> None:
        """Raise :class:`ConfigError` when there is nothing to search (:func:`clinqa.store.require_store`)."""
        require_store(self.settings, self.data_dir, self._store, lambda: self.store, empty_ok)

    # -- maintenance --------------------------------------------------------------------
    def remove(self, doc_id: str) -> int:
        """Delete a document's chunks; returns how many were removed."""
        return self.store.delete_document(doc_id)

    def config_hash(self) -> str:
        """12 hex digits for every setting that can change an answer (:func:`clinqa.settings.config_hash`)."""
        return config_hash(self.settings, self.store_meta().get("model_id", self.settings.embedding.model))

    def corpus_version(self) -> int:
        """The store's version (:meth:`clinqa.store.lancedb.LanceStore.version`): changes with every
        ingest or removal, so cached answers keyed by it go stale when the corpus changes."""
        return self.store.version()

    def stats(self) -> dict[str, Any]:
        """Counts for ``clinqa stats`` (:func:`clinqa.ingest.store_stats`)."""
        return store_stats(self.store, self.data_dir, self.store_meta().get("model_id"))
