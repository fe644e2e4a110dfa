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
import datetime
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.answer import Answer, RefusalGate, assemble
from clinqa.answer import decision as decide
from clinqa.answer import evidence as gather
from clinqa.answer.answerability import Answerability
from clinqa.answer.calibration import Resolved, resolve
from clinqa.answer.question import NO_NOTE, PATIENT_HINT, apply_time_intent, repair_question
from clinqa.documents.model import Document
from clinqa.embedding import CachedEncoder, EmbeddingCache, Encoder, build_encoder
from clinqa.errors import ConfigError, LoadError
from clinqa.ingest import IngestReport, ingest_documents, store_stats
from clinqa.llm import LLMBackend, build_llm_backend
from clinqa.rerank import Reranker, build_reranker, rerank_hits
from clinqa.retrieval import Filters, RetrievalResult, hybrid_search
from clinqa.retrieval.dedup import collapse_near_duplicates
from clinqa.retrieval.recency import newest_first, recency_rerank
from clinqa.retrieval.temporal import TimeIntent
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.settings import Settings
from clinqa.store import Store, build_store
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
        self._llm: LLMBackend | None = None
        self._vocabulary: Vocabulary | None = None
        self._patient_vocabulary: tuple[tuple[str, int], Vocabulary] | None = None
        # (store version, a reference document has a year, the store holds patient notes)
        self._document_facts: tuple[int, bool, bool] | None = None

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
        units pre-computed at ingest (``answer.precompute_units``) or seen before are looked up."""
        if self._unit_encoder is None or self._unit_encoder.model_id != self.encoder.model_id:
            enc = self.encoder
            self._unit_encoder = (CachedEncoder(enc, EmbeddingCache(self.cache_path))
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

    def _meta_path(self) -> Path:
        return self.data_dir / "store.json"

    def store_meta(self) -> dict[str, Any]:
        """Contents of ``store.json`` (empty dict before the first ingest)."""
        p = self._meta_path()
        return json.loads(p.read_text()) if p.exists() else {}

    def _write_meta(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        enc = self.encoder
        tmp = self._meta_path().with_suffix(".tmp")
        tmp.write_text(json.dumps({"model_id": enc.model_id, "dim": enc.dim, "max_tokens": enc.max_tokens}, indent=2))
        tmp.replace(self._meta_path())

    def _check_model(self) -> None:
        meta = self.store_meta()
        model = meta.get("model_id")
        if model and model != self.encoder.model_id:
            raise ConfigError(
                f"the store in {self.data_dir} was built with encoder {model}, but the configured "
                f"encoder is {self.encoder.model_id}; use another --data-dir or the same model"
            )

    # -- ingest -------------------------------------------------------------------------
    def ingest(self, paths: Sequence[Path], format: str | None = None, progress: bool = True,
               batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None) -> IngestReport:
        """Load, chunk, embed and store every document under ``paths`` (:func:`clinqa.ingest.ingest_documents`:
        unchanged documents skipped, one atomic store commit per batch, bad files reported in ``failed``
        and passed to ``on_error(path, reason)``, never stopping the run)."""
        from clinqa.documents.loaders import iter_documents  # the parsers load on first ingest

        items = iter_documents([Path(p) for p in paths], format, limits=self.settings.ingest)
        return self.ingest_documents(items, progress=progress, batch_chunks=batch_chunks, on_error=on_error)

    def ingest_documents(self, items: Iterable[Document | LoadError | Skipped], progress: bool = True,
                         batch_chunks: int = 512, on_error: Callable[[str, str], None] | None = None,
                         total: int | None = None) -> IngestReport:
        """Chunk, embed and store already-loaded documents (see :meth:`ingest`); load errors and skips in
        ``items`` are reported as they would be from files. Raises :class:`ConfigError` when the store was
        built with another encoder."""
        self._check_model()

        def record_encoder() -> None:
            if not self._meta_path().exists():  # record the encoder before the first write
                self._write_meta()

        return ingest_documents(items, self.settings, self.store, self.encoder, self.cache_path, record_encoder,
                                progress=progress, batch_chunks=batch_chunks, on_error=on_error, total=total)

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
        """Hybrid retrieval over the candidate pool (union of dense top-``dense_k`` and BM25
        top-``bm25_k``), then, in order: near-copies folded together for patient-scoped
        queries (``retrieval.copy_threshold``), cross-encoder reranking (``rerank.model``, when
        ``rerank``), newest-first fusion (``recency``); returns ``k`` chunks (default
        ``retrieval.top_k``). Every step sees only chunks that passed ``filters`` in the store.
        ``query_vector`` skips encoding a query already encoded. ``depth`` deepens both ranked lists
        for this call (``dense_k``, ``bm25_k`` and ``document_k`` at least ``depth``;
        ``RetrievalResult.dense``/``bm25``/``documents``),
        as the evaluation harness needs, without changing :attr:`settings`."""
        self._check_model()
        rs = self.settings.retrieval
        if depth is not None:
            rs = rs.model_copy(update={"dense_k": max(depth, rs.dense_k), "bm25_k": max(depth, rs.bm25_k),
                                       "document_k": max(depth, rs.document_k)})
        filters = filters or self.filters()
        n = k or rs.top_k
        reranker = self.reranker if rerank else None
        fold = filters.patient_id is not None and rs.copy_threshold is not None
        whole_pool = reranker is not None or recency or fold
        result = hybrid_search(self.store, self.encoder, query, filters, rs,
                               top_k=rs.dense_k + rs.bm25_k if whole_pool else n, query_vector=query_vector)
        hits = result.hits
        if fold:
            groups = collapse_near_duplicates(hits, lambda h: h.chunk.body, threshold=rs.copy_threshold or 0.0)
            if recency:  # "current ...?": the newest copy speaks for the group
                groups = [newest_first(kept, dups) for kept, dups in groups]
            hits = [replace(h, rank=i, duplicates=[d.chunk for d in dups]) for i, (h, dups) in enumerate(groups, 1)]
        if reranker is not None:
            t0 = time.perf_counter()
            hits = rerank_hits(reranker, query, hits, len(hits))
            result.timings_ms["rerank"] = (time.perf_counter() - t0) * 1e3
        if recency:
            hits = recency_rerank(hits, rs.recency_weight)  # its own k = 60, as measured on the notes
        result.hits = hits[:n]
        return result

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
        """Every calibrated value of both scopes as one string (:meth:`Resolved.key`), for the answer cache:
        a re-calibration of either scope (``eval refusal --save``) changes it."""
        return "|".join(self.calibration(scope).key() for scope in ("reference", "patient"))

    def gate(self, scope: str = "reference") -> RefusalGate:
        """The refusal gate of :meth:`calibration` for ``scope``."""
        return self.calibration(scope).gate()

    def gate_params(self, scope: str = "reference") -> tuple[float, float]:
        """``(key_term_max_zipf, related_threshold)`` of :meth:`calibration` for ``scope``."""
        cal = self.calibration(scope)
        return cal.key_term_max_zipf, cal.related_threshold

    def support_threshold(self, scope: str = "reference") -> float | None:
        """The support threshold of :meth:`calibration` for ``scope`` (None: the rule is off)."""
        return self.calibration(scope).support_threshold

    @property
    def vocabulary(self) -> Vocabulary:
        """The corpus vocabulary (:class:`clinqa.retrieval.vocabulary.Vocabulary`) at the store's
        current version, for spelling repair; cached in ``<data_dir>/vocabulary.json``."""
        if self._vocabulary is None or self._vocabulary.store_version != self.store.version():
            self._vocabulary = Vocabulary.for_store(self.store, self.data_dir)
        return self._vocabulary

    def scoped_vocabulary(self, filters: Filters | None = None) -> Vocabulary:
        """:attr:`vocabulary`, plus the patient's own notes for a patient-scoped query (never another
        patient's); the merged one is kept for the store version and patient, so spelling repair and
        the key-term test of one question read the patient's notes once."""
        if filters is None or filters.patient_id is None:
            return self.vocabulary
        key = (filters.patient_id, self.store.version())
        if self._patient_vocabulary is None or self._patient_vocabulary[0] != key:
            own = self.store.export(["text"], Filters(patient_id=filters.patient_id)).column("text").to_pylist()
            self._patient_vocabulary = (key, self.vocabulary.merged(Vocabulary.from_texts(own)))
        return self._patient_vocabulary[1]

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

    def patient_notes(self, patient_id: str) -> dict[str, tuple[str, str]]:
        """``{doc_id: (note date ISO or "", note type or "")}`` of one patient's documents, read through the
        store's own patient filter (:meth:`Store.export`)."""
        t = self.store.export(["doc_id", "note_date", "note_type"], Filters(patient_id=patient_id, exclude_levels=()))
        return {d: (str(day or ""), kind or "") for d, day, kind in zip(
            t.column("doc_id").to_pylist(), t.column("note_date").to_pylist(), t.column("note_type").to_pylist(),
            strict=True)}

    def _facts(self) -> tuple[int, bool, bool]:
        """``(store version, a reference document has a year, the store holds patient notes)``, from one
        read of the store's documents per store version."""
        version = self.store.version()
        if self._document_facts is None or self._document_facts[0] != version:
            docs = self.store.documents()
            self._document_facts = (
                version, any(d.get("year") is not None for d in docs if d.get("patient_id") is None),
                any(d.get("patient_id") for d in docs))
        return self._document_facts

    def has_patient_notes(self) -> bool:
        """Does the store hold any patient's notes? Read once per store version."""
        return self._facts()[2]

    def reference_has_years(self) -> bool:
        """Does any reference document (one of no patient) carry a year? Read once per store version."""
        return self._facts()[1]

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
        asked, repairs, repair_ms = self._repaired(question, filters)
        found = gather.gather(self, ev, asked, query_vector, repair_ms)
        verdict = decide.run(ev, "retrieval", decision).verdict
        answering = decision.after("dated_note").answer and verdict.answer  # the quoted passages may not answer
        warnings = assemble.gate_warnings(ev.gate, ev.missing, s.unknown_terms, ev.scoped, answering)  # type: ignore[arg-type]
        if intent.undated and filters.patient_id is None and self.has_patient_notes():
            warnings.insert(0, PATIENT_HINT)  # the notes carry dates; the reference documents searched do not
        elif intent.undated:
            warnings.insert(0, assemble.undated_warning(intent.undated))
        if intent.invalid:
            warnings.insert(0, f"'{intent.invalid}' is not a date: no date filter was applied")
        result = found.result
        draft = assemble.Draft(question, filters, result.hits, verdict.gate, [*warnings, *verdict.warnings],  # type: ignore[arg-type]
                               ev.check, repairs, result.expansion, intent.describe(datetime.date.today()),
                               result.query_vector, dict(result.timings_ms))
        if not verdict.answer:
            answer = self._refusal(draft, verdict.reason, ev, found, asked)
        else:
            t1 = time.perf_counter()
            ev.extract = gather.quote(self, ev, found, asked)
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

            answer = generated_answer(answer, result.hits, lambda: self.llm, self.settings, closed, t0, ev, decision)
        return answer

    def _refusal(self, draft: assemble.Draft, reason: str, ev: decide.Evidence, found: gather.Gathered,
                 asked: str) -> Answer:
        """The refusal for ``reason``: the year-range refusal when a year range applied and the question
        answers without it (:func:`clinqa.answer.evidence.outside_years`), else :func:`assemble.refuse`."""
        n = self.settings.answer.related_topics
        outside = gather.outside_years(self, ev, found, asked) if draft.filters.has_years else []
        if outside:
            undated = draft.filters.patient_id is None and not self.reference_has_years()
            return assemble.year_range_refusal(draft, outside, ev.intent.phrase, n, undated=undated)
        assert ev.calibration is not None
        return assemble.refuse(draft, reason, ev.calibration.related_threshold, n)

    def ask_no_context(self, question: str, closed: bool = False) -> Answer:
        """The language model alone, with no evidence (:func:`clinqa.answer.generate.no_context_answer`).
        Raises :class:`ConfigError` for an empty question or without ``llm.backend``, and
        :class:`clinqa.llm.base.LLMError` when the model fails."""
        if is_blank(question):
            raise ConfigError("the question is empty")
        backend = self.llm
        if backend is None:
            raise ConfigError("--no-context needs a language model: set --llm (llm.backend)")
        from clinqa.answer.generate import no_context_answer

        return no_context_answer(question, backend, self.settings, closed)

    def _checked(self, question: str, filters: Filters | None) -> Filters:
        """``filters`` (default :meth:`filters`) for asking ``question``; raises :class:`ConfigError` for an
        empty question or an empty store."""
        if is_blank(question):
            raise ConfigError("the question is empty")
        self.require_store()
        return filters or self.filters()

    def require_store(self, empty_ok: bool = False) -> None:
        """Raise :class:`ConfigError` when there is nothing to search: no store folder at ``data_dir`` (a
        read never creates it: a typo in ``--data-dir``) or, unless ``empty_ok``, an empty store (an
        existing folder without a table is not given one)."""
        local = self.settings.store.resolved_url() is None
        if self._store is None and not self.data_dir.exists() and local:
            raise ConfigError(f"there is no store in {self.data_dir}: run `clinqa ingest PATH` first "
                              "(or check --data-dir)")
        if empty_ok:
            return
        if (self._store is None and local and self.settings.store.backend == "lancedb"
                and not (self.data_dir / "lancedb").exists()):
            raise ConfigError(f"the store in {self.data_dir} is empty: run `clinqa ingest PATH` first")
        if self.store.count() == 0:
            raise ConfigError(f"the store in {self.data_dir} is empty: run `clinqa ingest PATH` first")

    def _repaired(self, question: str, filters: Filters) -> tuple[str, dict[str, str], float]:
        """``(question searched, repairs, milliseconds)``: :meth:`repair_question` when
        ``retrieval.repair_spelling`` is on, else the question unchanged."""
        t0 = time.perf_counter()
        asked, repairs = self.repair_question(question, filters) if self.settings.retrieval.repair_spelling \
            else (question, {})
        return asked, repairs, (time.perf_counter() - t0) * 1e3

    # -- maintenance --------------------------------------------------------------------
    def remove(self, doc_id: str) -> int:
        """Delete a document's chunks; returns how many were removed."""
        return self.store.delete_document(doc_id)

    def config_hash(self) -> str:
        """12 hex digits identifying every setting that can change an answer (all of
        :class:`Settings` except ``data_dir``, ``ingest``, ``service``, ``log``, ``cache`` and the store's
        address and credentials) plus the
        encoder's model id: equal hashes give the same answers on the same corpus. For query
        logs, replay and the answer cache."""
        # where the store lives and its credentials do not change answers; its backend (BM25 flavour) does
        unrelated: dict[str, Any] = {k: True for k in ("data_dir", "ingest", "service", "log", "cache")}
        unrelated["store"] = {"qdrant_url", "qdrant_api_key", "collection", "shard_by_patient"}
        h = hashlib.sha256(self.settings.model_dump_json(exclude=unrelated).encode())
        h.update(self.store_meta().get("model_id", self.settings.embedding.model).encode())
        return h.hexdigest()[:12]

    def corpus_version(self) -> int:
        """The store's version (:meth:`clinqa.store.lancedb.LanceStore.version`): changes with every
        ingest or removal, so cached answers keyed by it go stale when the corpus changes."""
        return self.store.version()

    def stats(self) -> dict[str, Any]:
        """Counts for ``clinqa stats`` (:func:`clinqa.ingest.store_stats`)."""
        return store_stats(self.store, self.data_dir, self.store_meta().get("model_id"))
