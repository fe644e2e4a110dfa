"""Fixtures for the query-log tests: hand-made answers (no model) and a fresh log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from clinqa.answer.types import Answer, Citation
from clinqa.logs import QueryLog


def make_answer(question: str = "What dose of apixaban?", *, refused: bool = False, latency_ms: float = 100.0,
                vector: np.ndarray | None = None, llm: dict[str, Any] | None = None, mode: str | None = None,
                cited: tuple[str, ...] = ("d1#s#0",), retrieved: tuple[str, ...] = ("d1#s#0", "d2#s#0")) -> Answer:
    """A hand-made answer (or refusal) with every field the log stores."""
    citations = [] if refused else [Citation(n=i, chunk_id=c, doc_id=c.split("#")[0], title="T", section="S",
                                             year=2020, source="src", url="", score=0.03)
                                    for i, c in enumerate(cited, 1)]
    retrieved_rows = [{"rank": i, "chunk_id": c, "rrf": 1 / (60 + i), "ranks": {"dense": i, "bm25": i + 1},
                       "scores": {"dense": 0.8 - i / 10, "bm25": 5.0 - i}} for i, c in enumerate(retrieved, 1)]
    return Answer(
        question=question, refused=refused,
        answer="I cannot answer this." if refused else "Apixaban 5 mg twice daily. [1]",
        filters={"patient_id": None, "year_min": None, "year_max": None, "sources": [],
                 "exclude_levels": ["document"], "doc_ids": []},
        citations=citations, reason="the best passage scores below the answer threshold" if refused else "",
        mode=mode or ("refusal" if refused else "extractive"),
        gate={"answer": not refused, "signal": 0.2 if refused else 0.7, "threshold": 0.3764, "kind": "dense_cosine",
              "calibration": "shipped", "reason": ""},
        timings_ms={"embed_query": 10.0, "dense": 5.0, "total": float(latency_ms)},
        retrieved=retrieved_rows, warnings=[], llm=dict(llm or {}),
        query_vector=np.ones(8, dtype=np.float32) if vector is None else vector,
    )


@pytest.fixture
def answer_factory():
    """:func:`make_answer`."""
    return make_answer


@pytest.fixture
def qlog(tmp_path: Path):
    """A fresh query log in ``tmp_path``, closed after the test."""
    log = QueryLog(tmp_path / "querylog.sqlite")
    yield log
    log.close()


def record(log: QueryLog, answer: Answer, source: str = "cli", model_id: str = "m") -> str:
    """Record ``answer`` with fixed config hash / model / corpus version."""
    return log.record(answer, config_hash="cfg", model_id=model_id, corpus_version=1, source=source)


@pytest.fixture
def rec():
    """:func:`record`."""
    return record


def set_time(log: QueryLog, query_id: str, iso: str) -> None:
    """Overwrite a row's timestamp (tests of time windows)."""
    import sqlite3

    with sqlite3.connect(log.path) as conn:
        conn.execute("UPDATE queries SET ts = ? WHERE query_id = ?", (iso, query_id))


@pytest.fixture
def settime():
    """:func:`set_time`."""
    return set_time


#: three small guideline-like documents
TINY_DOCS = {
    "apixaban.md": "# Apixaban in atrial fibrillation\n\n## Dosing\n\nApixaban 5 mg twice daily is used for stroke "
                   "prevention in atrial fibrillation. Reduce the dose to 2.5 mg twice daily when two of age 80 "
                   "years or older, weight 60 kg or less, or serum creatinine 1.5 mg/dL or more are present.\n",
    "sepsis.md": "# Sepsis\n\n## Initial fluid resuscitation\n\nGive 30 mL/kg of intravenous crystalloid within the "
                 "first 3 hours of sepsis-induced hypoperfusion. Reassess the volume status frequently.\n",
    "gout.md": "# Gout\n\n## Urate-lowering therapy\n\nAllopurinol lowers serum urate: start at 100 mg daily and "
               "titrate to a serum urate below 6 mg/dL.\n",
}


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the 3 Markdown documents of :data:`TINY_DOCS`."""
    folder = tmp_path_factory.mktemp("tiny-corpus")
    for name, text in TINY_DOCS.items():
        (folder / name).write_text(text)
    return folder
