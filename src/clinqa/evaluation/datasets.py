"""BEIR-layout evaluation sets (Thakur et al., NeurIPS 2021 Datasets & Benchmarks).

A dataset folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``, ``metadata``),
``queries.jsonl`` (``_id``, ``text``, ``metadata``) and ``qrels/test.tsv``
(``query-id  corpus-id  score``, graded, >= 1 relevant). The refusal set has queries only and
names its corpus in its README; :func:`load_dataset` accepts ``corpus_dir`` for that.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinqa.documents.loaders import beir
from clinqa.documents.model import Document
from clinqa.errors import ConfigError


@dataclass
class Query:
    """One evaluation question with its metadata (``bucket`` for refusal labels)."""

    qid: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Dataset:
    """Queries, graded qrels (``qid -> {doc_id: grade}``) and the corpus file."""

    name: str
    path: Path
    corpus: Path | None
    queries: list[Query]
    qrels: dict[str, dict[str, int]]

    def corpus_ids(self) -> list[str]:
        """All corpus ``_id`` values, in file order (cheap: ids only)."""
        if self.corpus is None:
            return []
        ids = []
        with self.corpus.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    ids.append(json.loads(line)["_id"])
        return ids

    def subset_ids(self, distractors: int | None, seed: int = 0) -> set[str] | None:
        """Every judged document plus ``distractors`` other corpus documents drawn with
        ``random.Random(seed)``; ``None`` (the full corpus) when ``distractors`` is None."""
        if distractors is None:
            return None
        judged = {d for rels in self.qrels.values() for d in rels}
        others = sorted(set(self.corpus_ids()) - judged)
        rng = random.Random(seed)
        return judged | set(rng.sample(others, min(distractors, len(others))))

    def documents(self, ids: set[str] | None = None) -> Iterator[Document]:
        """Corpus documents (streamed), optionally only those in ``ids``."""
        if self.corpus is None:
            raise ConfigError(f"{self.path}: dataset has no corpus.jsonl (pass --corpus)")
        for doc in beir.iter_load(self.corpus):
            if ids is None or doc.doc_id in ids:
                yield doc

    def cluster_of(self, qid: str) -> str:
        """Cluster id for the bootstrap: the MedQuAD document (XML file) or, failing that,
        the id of the query's most relevant gold passage; the qid itself when unjudged."""
        rels = self.qrels.get(qid)
        if not rels:
            return qid
        best = sorted(rels.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        return self._doc_group.get(best, best)

    _doc_group: dict[str, str] = field(default_factory=dict)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    if not path.exists():
        return qrels
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            parts = line.rstrip("\n").split("\t")
            if i == 0 and parts[0] == "query-id":
                continue
            if len(parts) < 3:
                continue
            grade = int(float(parts[2]))
            if grade >= 1:
                qrels.setdefault(parts[0], {})[parts[1]] = grade
    return qrels


def load_dataset(path: Path, corpus_dir: Path | None = None, split: str = "test") -> Dataset:
    """Load a BEIR folder. ``corpus_dir`` supplies ``corpus.jsonl`` (and, if the folder has
    none, qrels) from another folder. Raises :class:`ConfigError` naming missing files."""
    path = Path(path)
    qfile = path / "queries.jsonl"
    if not qfile.exists():
        raise ConfigError(f"{path}: no queries.jsonl (is this a BEIR-format folder?)")
    queries = [Query(str(q["_id"]), q["text"], q.get("metadata") or {}) for q in _read_jsonl(qfile)]
    corpus = (corpus_dir or path) / "corpus.jsonl"
    qrels = _read_qrels(path / "qrels" / f"{split}.tsv")
    ds = Dataset(path.name, path, corpus if corpus.exists() else None, queries, qrels)
    if ds.corpus is not None and qrels:
        judged = {d for rels in qrels.values() for d in rels}
        with ds.corpus.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if row["_id"] in judged:
                    group = (row.get("metadata") or {}).get("document_id")
                    if group:
                        ds._doc_group[row["_id"]] = str(group)
    return ds
