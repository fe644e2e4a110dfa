"""LanceDB store: the embedded default (one folder, no server).

One table ``chunks`` holds text, metadata columns, the vector and a native BM25 full-text
index on ``text`` (LanceDB FTS: simple tokenizer, lower-casing, English stemming and stop
words; it ranks BM25 only with ``store.bm25_statistics: table``). Dense search is exact (no ANN
index) so filtered recall is 1.0: it runs on an in-memory copy of the vectors and filter columns
(:class:`clinqa.store.dense.DenseIndex`, reloaded when the table version changes), about 20x faster
than LanceDB's brute-force scan at 300k chunks; the hits' rows are then read by row id. BM25 runs, by
default, in memory too, beside the dense index and over the same rows
(:class:`clinqa.store.bm25_index.Bm25Index`, rebuilt with it), with the statistics of the search's scope
(the reference chunks, plus the patient's for a patient-scoped search: issue 51), so another patient's
notes move no score a scope sees; each chunk text's term ids are kept by content hash in
:data:`~clinqa.store.bm25_index.TERMS_FILE` beside the table. With ``scoped_bm25=False`` it runs in
LanceDB's full-text index (whole-table statistics). Both apply the filters before the top-k cut;
scalar indexes on the filter columns (``patient_id``, ``hierarchy_level``, ``year``, ``doc_id``,
``chunk_id``) keep the full-text pre-filter and id lookups from scanning the table.

Replacing a document is one ``merge_insert`` commit (upsert by ``chunk_id`` and, in the same
transaction, delete the document's chunks that are no longer produced), so a reader or a
crash sees the old or the new version of each document, never half of one.

Freshness: a LanceDB table handle keeps reading the version it opened until told otherwise, so a
long-running reader (``clinqa serve``) would not see an ingest made by another process. Every read
therefore starts with :meth:`LanceStore.sync`: ``checkout_latest()`` on the open table (it reads the
latest manifest: about 0.2 ms on a local disk, so it is done on every read, not throttled), or, while
no table is open, a listing of the folder so a table created by another process is opened. Index
changes (an FTS index built or rebuilt elsewhere) are part of the manifest and are seen the same way.
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa

from clinqa.chunking.base import Chunk
from clinqa.store.base import DOCUMENT_EXTRAS, Hit, Store, check_vectors, document_row
from clinqa.store.bm25_index import TERMS_FILE, Bm25Index, TermRows, rows_for
from clinqa.store.dense import COLUMNS as DENSE_COLUMNS
from clinqa.store.dense import DenseIndex
from clinqa.store.filters import Filters, sql_literal, to_sql
from clinqa.store.schema import FIELD_TYPES, NOT_NULL_COLUMNS, ROW_COLUMNS, chunk_schema
from clinqa.text import normalize

TABLE = "chunks"

#: columns added after the first release: a table made before them gets them (all null) on its next
#: write (:meth:`LanceStore._upgrade`), and reads of an older table skip them (Chunk defaults apply)
ADDED_COLUMNS = {n: FIELD_TYPES[n] for n in ("page_start", "page_end", "ocr", "source_from", "ingested_at")}
#: chunks kept in memory by :meth:`LanceStore._materialize` (cleared when the table changes)
ROW_CACHE = 4096
#: threads for the full-text ranking of :meth:`LanceStore.hybrid_lists`, beside the dense one (two: a
#: service may search for two requests at once)
_FTS_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="clinqa-fts")
#: scalar indexes made with the full-text index: (column, LanceDB index type)
SCALAR_INDEXES = [("chunk_id", "BTREE"), ("doc_id", "BTREE"), ("patient_id", "BTREE"),
                  ("hierarchy_level", "BITMAP"), ("year", "BTREE")]


def _row(chunk: Chunk, vector: np.ndarray) -> dict[str, Any]:
    d = chunk.model_dump(mode="json")
    d["vector"] = np.asarray(vector, dtype=np.float32).tolist()
    return d


def _chunk(row: dict[str, Any]) -> Chunk:
    # a column added to an older table (ADDED_COLUMNS) is null in its old rows: the Chunk default applies
    return Chunk.model_validate({k: v for k, v in row.items()
                                 if k in Chunk.model_fields and not (v is None and k in NOT_NULL_COLUMNS)})


_fts_clean = re.compile(r"[^\w\s]+", re.UNICODE)


def fts_query(text: str) -> str:
    """Question text reduced to words (punctuation removed) for the full-text index, after the
    normalisation chunk text gets (:func:`clinqa.text.normalize`: "ﬁbrillation" is "fibrillation")."""
    return " ".join(_fts_clean.sub(" ", normalize(text)).split())


class LanceStore(Store):
    """:class:`clinqa.store.base.Store` on LanceDB in ``path`` (created if missing)."""

    def __init__(self, path: Path, scoped_bm25: bool = True) -> None:
        """``scoped_bm25``: rank BM25 with the statistics of the search's scope in memory
        (:mod:`clinqa.store.bm25_index`; the default, ``store.bm25_statistics: scope``), else in
        LanceDB's full-text index with the whole table's (``table``, the ranking before issue 51)."""
        self.path = Path(path)
        self.scoped_bm25 = scoped_bm25
        self.path.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(self.path))
        self._table: Any = None
        self._fts_ready = False
        self._dense: DenseIndex | None = None
        self._dense_version = -1
        self._dense_lock = threading.Lock()
        self._bm25: Bm25Index | None = None  # the scoped BM25 index of self._dense's rows (scoped_bm25)
        self._terms: TermRows | None = None  # term ids by content hash, kept between versions
        self.bm25_build: dict[str, float] = {}  # how the last scoped index was built (seconds, counts)
        self._rows: dict[str, Chunk] = {}
        self._rows_version = -1
        self._rows_lock = threading.Lock()
        self._counts: dict[tuple[int, str, int, Filters], int] = {}  # count_matches, keyed with the version
        self.sync()

    def _list_tables(self) -> list[str]:
        res = self._db.list_tables()
        return list(getattr(res, "tables", res))

    def sync(self) -> bool:
        """Move to the latest committed version of the table, also one written (or the table
        created, or its FTS index built) by another process since this store was opened; called
        by every read. Returns whether a table exists."""
        if self._table is None:
            if TABLE not in self._list_tables():
                return False
            try:
                self._table = self._db.open_table(TABLE)
            except ValueError:  # the folder exists but its first commit has not landed yet
                return False
        else:
            self._table.checkout_latest()
        if not self._fts_ready:
            self._fts_ready = self._has_fts()
        return True

    def _has_fts(self) -> bool:
        assert self._table is not None
        return any("text" in (ix.columns or []) for ix in self._table.list_indices())

    @property
    def dim(self) -> int | None:
        """Vector dimension of the stored chunks, ``None`` while empty."""
        if not self.sync():
            return None
        return int(self._table.schema.field("vector").type.list_size)

    def replace_documents(self, doc_ids: list[str], chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Atomically replace the chunks of ``doc_ids`` (one commit); see module docstring."""
        if not doc_ids:
            return
        vectors = check_vectors(chunks, vectors, self.dim if self.sync() else None)  # a bad batch writes nothing
        rows = [_row(c, v) for c, v in zip(chunks, vectors, strict=True)]
        if not self.sync():
            if not rows:
                return
            self._table = self._create(len(rows[0]["vector"]))
        self._upgrade()
        data = pa.Table.from_pylist(rows, schema=self._table.schema)
        ids = ", ".join(sql_literal(d) for d in doc_ids)
        (
            self._table.merge_insert("chunk_id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(f"doc_id IN ({ids})")
            .execute(data)
        )

    def _upgrade(self) -> None:
        """Add the :data:`ADDED_COLUMNS` a table made by an older clinqa lacks (null in its old rows:
        pages unknown, not OCR) so that new chunks keep their pages; readers of the old schema go on
        working (see :meth:`_row_columns`). One schema commit, made before the first write."""
        missing = [pa.field(n, t) for n, t in ADDED_COLUMNS.items() if n not in self._table.schema.names]
        if missing:
            try:
                self._table.add_columns(missing)
            except (RuntimeError, ValueError, OSError) as exc:  # another writer added them first
                self._table.checkout_latest()
                if any(f.name not in self._table.schema.names for f in missing):
                    raise RuntimeError(f"cannot add the page columns to the store's chunks table ({exc}); "
                                       "re-ingest into a new --data-dir") from exc

    def _row_columns(self, cols: list[str] | None = None) -> list[str]:
        """``cols`` (default :data:`ROW_COLUMNS`) without those an older table does not have."""
        names = set(self._table.schema.names)
        return [c for c in (ROW_COLUMNS if cols is None else cols) if c in names]

    def _create(self, dim: int) -> Any:
        """Create the chunks table, or open it when another process created it first."""
        try:
            return self._db.create_table(TABLE, schema=chunk_schema(dim))
        except (ValueError, OSError) as exc:
            if "already exists" not in str(exc):
                raise
            return self._db.open_table(TABLE)

    def delete_document(self, doc_id: str) -> int:
        """Delete ``doc_id``'s chunks; returns the number deleted."""
        if not self.sync():
            return 0
        where = f"doc_id = {sql_literal(doc_id)}"
        n = self._table.count_rows(where)
        if n:
            self._table.delete(where)
        return n

    def _indexed(self) -> set[str]:
        return {c for ix in self._table.list_indices() for c in (ix.columns or [])}

    def _commit_index(self, build: Callable[[], object], present: Callable[[], bool]) -> None:
        """Run an index commit. When another process committed first (LanceDB's retryable commit
        conflict: two service workers, or a worker and an ingest, building the same index), move to
        the latest version and stop if ``present()`` now holds, else retry (3 attempts)."""
        for attempt in range(3):
            try:
                build()
                return
            except RuntimeError as exc:
                if "commit conflict" not in str(exc).lower() or attempt == 2:
                    raise
                self._table.checkout_latest()
                if present():
                    return

    def refresh_indexes(self) -> None:
        """Create the FTS index on first use (unless another process made it), then compact the table's data
        files and fold new rows into its indexes (LanceDB ``optimize``). Also creates the scalar indexes on
        the filter columns (:data:`SCALAR_INDEXES`)."""
        if not self.sync():
            return
        if not self._fts_ready:
            from lancedb.index import FTS

            self._commit_index(
                lambda: self._table.create_index("text", config=FTS(with_position=False), replace=True),
                self._has_fts)
            self._fts_ready = True
        # compact the data files each batch commit left behind and fold new rows into the indexes: reading
        # the rows of a question's hits touches every file holding one (bench/scale, 300k chunks in 49
        # files: 45 rows took 21 ms, 14 ms after compaction)
        self._commit_index(self._table.optimize, lambda: False)
        from lancedb.index import Bitmap, BTree

        for col, kind in SCALAR_INDEXES:
            if col not in self._indexed():
                self._commit_index(
                    lambda col=col, kind=kind: self._table.create_index(
                        col, config=BTree() if kind == "BTREE" else Bitmap(), replace=True),
                    lambda col=col: col in self._indexed())
        if self.scoped_bm25:  # tokenize what this ingest added now (and save it), not at the first search
            self._indexes()

    def stale_indexes(self) -> bool:
        """True when rows were written after the full-text index was last updated (e.g. by an ingest
        killed before its final :meth:`refresh_indexes`), or when the index is missing."""
        if not self.sync():
            return False
        if not self._fts_ready:
            return True
        names = [ix.name for ix in self._table.list_indices() if "text" in (ix.columns or [])]
        return any(self._table.index_stats(n).num_unindexed_rows > 0 for n in names)

    def dense_index(self) -> DenseIndex | None:
        """The in-memory exact index of the current table version (built or rebuilt on first use
        after a write; ``None`` while the store is empty). Thread-safe."""
        return self._indexes()[0]

    def _indexes(self) -> tuple[DenseIndex | None, Bm25Index | None]:
        """The in-memory dense index and (``scoped_bm25``) the BM25 index of the same rows, built together
        at each table version (``(None, None)`` while the store is empty). Thread-safe."""
        if not self.sync():
            return None, None
        with self._dense_lock:
            version = int(self._table.version)
            if self._dense is None or version != self._dense_version or (self.scoped_bm25 and self._bm25 is None):
                cols = DENSE_COLUMNS + (["content_hash"] if self.scoped_bm25 else [])
                t = self._table.search().with_row_id(True).select(cols).limit(None).to_arrow()
                index = DenseIndex(t, t.column("_rowid").to_numpy())
                bm25 = self._build_bm25(t, index) if self.scoped_bm25 else None
                if int(self._table.version) != version:  # another thread moved the table meanwhile
                    return index, bm25  # use them for this query, rebuild on the next
                self._dense, self._bm25, self._dense_version = index, bm25, version
            return self._dense, self._bm25

    def _build_bm25(self, t: pa.Table, index: DenseIndex) -> Bm25Index:
        """The scoped BM25 index of the rows of ``t`` (the scan the dense ``index`` was built from, with
        ``content_hash``): term ids of texts seen before come from :data:`TERMS_FILE` (or this process's
        copy of it), the others are read and tokenized, and the file is rewritten when that changed it
        (not where the folder is read-only). Timings in :attr:`bm25_build`."""
        t0 = time.perf_counter()
        if self._terms is None:
            self._terms = TermRows.load(self.path / TERMS_FILE)
        before = self._terms
        row_ids = t.column("_rowid").to_numpy()
        rows, kept, tokenized = rows_for(t.column("content_hash").combine_chunks(), before,
                                         lambda pos: self._texts(t.column("chunk_id"), row_ids, pos))
        t1 = time.perf_counter()
        bm25 = Bm25Index(rows, index.patient_codes())
        t2 = time.perf_counter()
        self._terms = kept
        if tokenized or before is None or len(kept) != len(before):
            try:
                kept.save(self.path / TERMS_FILE)
            except OSError as exc:  # a read-only store: tokenize again in the next process
                warnings.warn(f"cannot save the BM25 term file in {self.path} ({exc})", stacklevel=2)
        self.bm25_build = {"terms_s": t1 - t0, "index_s": t2 - t1, "save_s": time.perf_counter() - t2,
                           "tokenized": tokenized, "rows": len(rows), "index_mib": bm25.nbytes / 2**20}
        return bm25

    def _texts(self, chunk_ids: pa.ChunkedArray, row_ids: np.ndarray, pos: np.ndarray) -> list[str]:
        """The texts of the scanned rows at ``pos``: read by row id, or in one scan of the table when
        they are many or the rows moved (matched by chunk id; ``""`` for a chunk deleted meanwhile)."""
        want = chunk_ids.take(pa.array(pos)).to_pylist()
        got: dict[str, str] = {}
        if len(pos) * 4 < len(row_ids):
            try:
                r = self._table.take_row_ids(row_ids[pos].tolist()).select(["chunk_id", "text"]).to_arrow()
                got = dict(zip(r.column("chunk_id").to_pylist(), r.column("text").to_pylist(), strict=True))
            except (RuntimeError, ValueError, OSError):  # the rows moved (compaction elsewhere)
                got = {}
        if any(c not in got for c in want):
            r = self._columns(["chunk_id", "text"])
            got = dict(zip(r.column("chunk_id").to_pylist(), r.column("text").to_pylist(), strict=True))
        return [got.get(c, "") for c in want]

    def dense_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[Hit]:
        """Exact cosine top-``k`` under ``filters`` (pre-filtered; see :class:`DenseIndex`)."""
        index = self.dense_index()
        if index is None:
            return []
        pos, sims = index.search(vector, k, filters)
        if not len(pos):
            return []
        wanted = [index.chunk_ids[p] for p in pos]
        chunks = self._materialize(wanted, [int(index.row_ids[p]) for p in pos])
        return [Hit(chunks[c], float(sc), i + 1, "cosine")
                for i, (c, sc) in enumerate((c, sc) for c, sc in zip(wanted, sims, strict=True) if c in chunks)]

    def dense_scores(self, vector: np.ndarray, chunk_ids: list[str], filters: Filters) -> dict[str, float]:
        """Exact cosines of the listed chunks under ``filters``, from the in-memory index (no row is read)."""
        index = self.dense_index()
        return {} if index is None else index.scores(vector, chunk_ids, filters)

    def hybrid_lists(self, vector: np.ndarray, query: str, dense_k: int, bm25_k: int,
                     filters: Filters) -> tuple[list[Hit], list[Hit], dict[str, float]]:
        """Both lists ranked from ids and scores alone (the in-memory product and, at the same time in a
        second thread, the full-text index), then the rows of every hit read in one take (see
        :meth:`clinqa.store.base.Store.hybrid_lists`). ``timings_ms["bm25"]`` is the wait for the full-text
        ranking after the dense one finished."""
        t0 = time.perf_counter()
        index = self.dense_index()
        # the full-text search runs in Rust (or NumPy), the matrix product in BLAS: both release the GIL, so
        # the BM25 ranking overlaps the dense one (bench/scale: about 15 ms less at 300k chunks on 2 cores)
        fts = _FTS_POOL.submit(self._bm25_ranked, query, bm25_k, filters)
        dense_ids: list[str] = []
        dense_rows: list[int] = []
        sims: Any = []
        if index is not None:
            pos, sims = index.search(vector, dense_k, filters)
            dense_ids = [index.chunk_ids[p] for p in pos]
            dense_rows = [int(index.row_ids[p]) for p in pos]
        t1 = time.perf_counter()
        bm25_ids, bm25_rows, bm25_scores = fts.result()
        t2 = time.perf_counter()
        both = dict(zip(dense_ids + bm25_ids, dense_rows + bm25_rows, strict=True))  # a hit of both lists once
        chunks = self._materialize(list(both), list(both.values()))
        t3 = time.perf_counter()
        dense = [Hit(chunks[c], float(sc), i + 1, "cosine")
                 for i, (c, sc) in enumerate((c, sc) for c, sc in zip(dense_ids, sims, strict=True) if c in chunks)]
        scored = ((c, sc) for c, sc in zip(bm25_ids, bm25_scores, strict=True) if c in chunks)
        bm25 = [Hit(chunks[c], float(sc), i + 1, "bm25") for i, (c, sc) in enumerate(scored)]
        return dense, bm25, {"dense": (t1 - t0) * 1e3, "bm25": (t2 - t1) * 1e3, "rows": (t3 - t2) * 1e3}

    def dense_search_docs(self, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        """``[(doc_id, cosine), ...]`` of the exact top-``k`` under ``filters``, read from the in-memory
        index alone (no row is read)."""
        index = self.dense_index()
        if index is None:
            return []
        pos, sims = index.search(vector, k, filters)
        return [(index.doc_id(int(p)), float(s)) for p, s in zip(pos, sims, strict=True)]

    def drop_caches(self) -> None:
        """Forget the rows and full-text counts kept in memory (benchmarks call it so that repeated
        questions do not time the cache)."""
        with self._rows_lock:
            self._rows.clear()
            self._counts.clear()

    def _materialize(self, ids: list[str], row_ids: list[int]) -> dict[str, Chunk]:
        """``{chunk_id: Chunk}`` for hits found by id and row id. Rows already read at the current
        table version come from a small cache (the dense and BM25 lists of one question overlap, and
        popular passages recur); the rest are read in one take by row id, or by chunk id if the rows
        moved (compaction by another process) since the ids were read."""
        if not ids or self._table is None:  # nothing found, or no table yet (an empty store)
            return {}
        version = int(self._table.version)
        with self._rows_lock:
            if version != self._rows_version:
                self._rows.clear()
                self._rows_version = version
            out = {c: self._rows[c] for c in ids if c in self._rows}
        missing = [(c, r) for c, r in zip(ids, row_ids, strict=True) if c not in out]
        if missing:
            rows = (self._table.take_row_ids([r for _, r in missing]).select(self._row_columns())
                    .to_arrow().to_pylist())
            by_id = {r["chunk_id"]: r for r in rows}
            if any(c not in by_id for c, _ in missing):
                fresh = {c.chunk_id: c for c in self.get_chunks([c for c, _ in missing])}
            else:
                fresh = {c: _chunk(by_id[c]) for c, _ in missing}
            out.update(fresh)
            with self._rows_lock:
                if version == self._rows_version:
                    if len(self._rows) > ROW_CACHE:
                        self._rows.clear()
                    self._rows.update(fresh)
        return out

    def _fts(self, query: str, k: int, filters: Filters) -> pa.Table | None:
        """Row ids, chunk ids and BM25 scores of the full-text top-``k`` (None: no words, no table)."""
        if not self.sync():
            return None
        text = fts_query(query)
        if not text:
            return None
        if not self._fts_ready:
            self.refresh_indexes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return (
                self._table.search(text, query_type="fts", fts_columns="text")
                .where(to_sql(filters), prefilter=True)
                .with_row_id(True)
                .select(["chunk_id", "_score"])
                .limit(k)
                .to_arrow()
            )

    def _bm25_ranked(self, query: str, k: int, filters: Filters) -> tuple[list[str], list[int], list[float]]:
        """``(chunk ids, row ids, BM25 scores)`` of the top-``k`` under ``filters``, best first: from the
        scoped index (statistics of the filters' scope: the reference chunks, plus the patient's), or, without
        ``scoped_bm25``, from LanceDB's full-text index. Empty for a query with no words."""
        if not self.scoped_bm25:
            t = self._fts(query, k, filters)
            if t is None or not t.num_rows:
                return [], [], []
            return (t.column("chunk_id").to_pylist(), t.column("_rowid").to_pylist(),
                    t.column("_score").to_pylist())
        dense, bm25 = self._indexes()
        if dense is None or bm25 is None:
            return [], [], []
        pos, scores = bm25.top_k(query, k, dense.mask(filters), dense.patient_code(filters.patient_id))
        return ([dense.chunk_ids[p] for p in pos], [int(dense.row_ids[p]) for p in pos],
                [float(s) for s in scores])

    def bm25_search(self, query: str, k: int, filters: Filters) -> list[Hit]:
        """BM25 top-``k`` under ``filters`` (pre-filtered; :meth:`_bm25_ranked`); empty for a query with no
        words. The ranking reads only ids and scores; the rows of the hits are then read by row id."""
        ids, row_ids, scores = self._bm25_ranked(query, k, filters)
        if not ids:
            return []
        chunks = self._materialize(ids, row_ids)
        return [Hit(chunks[c], float(sc), i + 1, "bm25")
                for i, (c, sc) in enumerate((c, sc) for c, sc in zip(ids, scores, strict=True) if c in chunks)]

    def count_matches(self, query: str, cap: int, filters: Filters) -> int:
        """How many chunks under ``filters`` share a term with ``query``, counted up to ``cap`` (a cheap document
        frequency for :func:`clinqa.evidence.coverage.term_counts`): the BM25 search's own ranking of the top
        ``cap`` (:meth:`_bm25_ranked`: the scoped index, or LanceDB's full-text index without ``scoped_bm25``; ids
        and scores only, no rows read), counted in one place with the search. Counts are kept per table version:
        questions share most of their words ("treatment", "symptoms")."""
        if not self.sync():
            return 0
        key = (int(self._table.version), query, cap, filters)
        with self._rows_lock:
            if key in self._counts:
                return self._counts[key]
        n = len(self._bm25_ranked(query, cap, filters)[0])  # the matches the BM25 search ranks, up to cap
        with self._rows_lock:
            if len(self._counts) > ROW_CACHE:
                self._counts.clear()
            self._counts[key] = n
        return n

    def get_chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """Chunks by id in the order asked; unknown ids are skipped."""
        if not chunk_ids or not self.sync():
            return []
        ids = ", ".join(sql_literal(c) for c in chunk_ids)
        rows = (self._table.search().where(f"chunk_id IN ({ids})").select(self._row_columns())
                .limit(len(chunk_ids)).to_arrow().to_pylist())
        by_id = {r["chunk_id"]: _chunk(r) for r in rows}
        return [by_id[c] for c in chunk_ids if c in by_id]

    def _columns(self, cols: list[str]) -> pa.Table:
        assert self._table is not None
        # one unbounded read: a count first could be cut short by a version change in between
        return self._table.search().select(cols).limit(None).to_arrow()

    def doc_hashes(self) -> dict[str, str]:
        """``{doc_id: doc_hash}``."""
        if not self.sync():
            return {}
        t = self._columns(["doc_id", "doc_hash"])
        return dict(zip(t.column("doc_id").to_pylist(), t.column("doc_hash").to_pylist(), strict=True))

    def documents(self) -> list[dict[str, Any]]:
        """One dict per document (doc_id, title, year, source, patient_id, chunks, and
        :data:`~clinqa.store.base.DOCUMENT_EXTRAS`: path, format, source_from, ingested_at; ``""``
        where an older store has no column), sorted by id."""
        if not self.sync():
            return []
        names = set(self._table.schema.names)
        extras = [c for c in DOCUMENT_EXTRAS if c in names]
        t = self._columns(["doc_id", "title", "year", "source", "patient_id", *extras]).to_pylist()
        docs: dict[str, dict[str, Any]] = {}
        for r in t:
            d = docs.setdefault(r["doc_id"], {**r, "chunks": 0})
            d["chunks"] += 1
        return [document_row(docs[k]) for k in sorted(docs)]

    def sample_texts(self, n: int, exclude_levels: tuple[str, ...] = ("document",)) -> list[str]:
        """The embedded texts of the first ``n`` chunks by chunk id (deterministic), for
        throughput measurements."""
        if not self.sync():
            return []
        t = self._columns(["chunk_id", "text", "hierarchy_level"]).to_pylist()
        rows = sorted((r for r in t if r["hierarchy_level"] not in exclude_levels), key=lambda r: r["chunk_id"])
        return [r["text"] for r in rows[:n]]

    def export(self, columns: list[str], filters: Filters) -> pa.Table:
        """The ``columns`` of every chunk that ``filters`` admit, as an Arrow table (for bulk
        jobs such as hard-negative mining; ``vector`` is a fixed-size list column)."""
        if not self.sync():
            return pa.table({c: [] for c in columns})
        names = set(self._table.schema.names)
        absent = [c for c in columns if c in ADDED_COLUMNS and c not in names]  # an older table
        t = (self._table.search().where(to_sql(filters)).select([c for c in columns if c not in absent])
             .limit(None).to_arrow())
        for name in absent:  # all null: the Chunk defaults (pages unknown, not OCR)
            t = t.append_column(pa.field(name, ADDED_COLUMNS[name]), pa.nulls(t.num_rows, ADDED_COLUMNS[name]))
        return t.select(columns)

    def version(self) -> int:
        """The table's version: it grows with every write (ingest, removal), also one made by another
        process since this store was opened; 0 when no table exists. Used to invalidate cached answers."""
        if not self.sync():
            return 0
        return int(self._table.version)

    def count(self) -> int:
        """Number of chunks."""
        return int(self._table.count_rows()) if self.sync() else 0

    def level_counts(self) -> dict[str, int]:
        """Chunks per hierarchy level."""
        if not self.sync():
            return {}
        out: dict[str, int] = {}
        for lv in self._columns(["hierarchy_level"]).column("hierarchy_level").to_pylist():
            out[lv] = out.get(lv, 0) + 1
        return out
