"""Replay: re-run logged questions against another configuration and report what changed.

Each logged question is asked again through :meth:`clinqa.pipeline.Pipeline.ask` with the filters
it was asked with (as logged, i.e. after the question's time intent was applied). When the logged
embedding came from the same encoder (same ``model_id`` and dimension) it is passed as
``query_vector`` and nothing is re-encoded; otherwise the question is encoded again by the new
encoder. Questions answered by the model alone (``no-context``) have no retrieval to compare and
are skipped.

What is compared, per question and on average:

- the decision: answered -> refused and refused -> answered flips, with the questions;
- ``overlap@10``: with ``A`` and ``B`` the chunk ids of the old and new top-10 retrieved lists,
  ``|A ∩ B| / max(|A|, |B|)`` (``|A ∩ B| / 10`` when both lists are full; 1.0 when both are
  empty). The report gives its mean over the replayed questions;
- rank shifts of the previously cited chunks: old rank -> new rank in the new retrieved list, or
  ``None`` ("gone") when the chunk is no longer retrieved;
- the gate signal, old and new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from clinqa.logs.querylog import QueryLog, model_id_of

if TYPE_CHECKING:
    from clinqa.pipeline import Pipeline
    from clinqa.retrieval.filters import Filters

#: overlap is measured over this many top retrieved chunks
OVERLAP_AT = 10


def filters_from_dict(d: dict[str, Any]) -> Filters:
    """A :class:`clinqa.retrieval.filters.Filters` rebuilt from its logged ``to_dict()`` form
    (:meth:`Filters.from_dict <clinqa.store.filters.Filters.from_dict>`)."""
    from clinqa.retrieval.filters import Filters

    return Filters.from_dict(d)


def overlap_at(old: list[str], new: list[str], k: int = OVERLAP_AT) -> float:
    """``|A ∩ B| / max(|A|, |B|)`` for ``A = set(old[:k])``, ``B = set(new[:k])`` (1.0 when both
    are empty): the share of the top-``k`` retrieved chunks the two runs have in common."""
    a, b = set(old[:k]), set(new[:k])
    if not a and not b:
        return 1.0
    return len(a & b) / max(len(a), len(b))


@dataclass
class ReplayItem:
    """One replayed question: ``old_*`` from the log, ``new_*`` from the replay. ``cited_ranks`` maps
    each previously cited chunk id to ``(old rank, new rank or None when gone)``."""

    query_id: str
    question: str
    old_refused: bool
    new_refused: bool
    old_mode: str
    new_mode: str
    old_signal: float | None
    new_signal: float | None
    overlap: float
    cited_ranks: dict[str, tuple[int | None, int | None]]
    reused_embedding: bool
    new_query_id: str | None = None

    @property
    def flip(self) -> str:
        """``answered->refused``, ``refused->answered`` or ``""``."""
        if self.old_refused == self.new_refused:
            return ""
        return "answered->refused" if self.new_refused else "refused->answered"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``cited_ranks`` values as ``{"old": r, "new": r or null}``)."""
        d = dict(self.__dict__)
        d["cited_ranks"] = {c: {"old": o, "new": n} for c, (o, n) in self.cited_ranks.items()}
        d["flip"] = self.flip
        return d


@dataclass
class ReplayReport:
    """What a replay changed (see the module docstring for the definitions)."""

    items: list[ReplayItem] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    config_hash: str = ""
    old_config_hashes: list[str] = field(default_factory=list)
    model_id: str = ""
    recorded: bool = False

    @property
    def embeddings_reused(self) -> int:
        """Questions whose logged embedding was reused (no encoding)."""
        return sum(i.reused_embedding for i in self.items)

    @property
    def re_encoded(self) -> int:
        """Questions encoded again (other encoder, or no logged embedding)."""
        return len(self.items) - self.embeddings_reused

    def flips(self, kind: str) -> list[ReplayItem]:
        """Items whose decision flipped this way (``answered->refused`` or ``refused->answered``)."""
        return [i for i in self.items if i.flip == kind]

    @property
    def mean_overlap(self) -> float | None:
        """Mean overlap@10 over the replayed questions (None when none was replayed)."""
        return float(np.mean([i.overlap for i in self.items])) if self.items else None

    def cited_summary(self) -> dict[str, int]:
        """Previously cited chunks: ``total``, ``same`` rank, ``up`` (better rank), ``down``, ``gone``."""
        out = {"total": 0, "same": 0, "up": 0, "down": 0, "gone": 0}
        for i in self.items:
            for old, new in i.cited_ranks.values():
                out["total"] += 1
                if new is None:
                    out["gone"] += 1
                elif old is None or new == old:
                    out["same"] += 1
                else:
                    out["up" if new < old else "down"] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: summary figures, flips with their questions, and every item."""
        return {
            "replayed": len(self.items), "skipped": self.skipped, "config_hash": self.config_hash,
            "old_config_hashes": self.old_config_hashes, "model_id": self.model_id,
            "embeddings_reused": self.embeddings_reused, "re_encoded": self.re_encoded,
            "answered_to_refused": [{"query_id": i.query_id, "question": i.question}
                                    for i in self.flips("answered->refused")],
            "refused_to_answered": [{"query_id": i.query_id, "question": i.question}
                                    for i in self.flips("refused->answered")],
            "mean_overlap_at_10": self.mean_overlap, "cited_ranks": self.cited_summary(),
            "recorded": self.recorded, "items": [i.to_dict() for i in self.items],
        }


def replay(pipe: Pipeline, log: QueryLog, since: datetime | None = None, limit: int | None = None,
           record: bool = False, progress: bool = False, until: datetime | None = None) -> ReplayReport:
    """Re-run the logged questions (all sources but ``replay``, asked at or after ``since`` and
    before ``until``; the latest ``limit`` of them when given) through ``pipe`` and compare with
    what was logged.

    The logged embedding is reused when its ``model_id`` and dimension match ``pipe``'s encoder;
    otherwise the question is encoded again. With ``record`` every replayed answer is logged
    with source ``replay`` (``ReplayItem.new_query_id``). Errors of :meth:`Pipeline.ask`
    (:class:`clinqa.errors.ConfigError`, e.g. an empty store) propagate."""
    rows = [r for r in log.rows(since=since, until=until) if r["source"] != "replay"]
    if limit is not None:
        rows = rows[-limit:] if limit > 0 else []
    report = ReplayReport(config_hash=pipe.config_hash(), recorded=record)
    report.old_config_hashes = sorted({r["config_hash"] for r in rows})
    encoder = pipe.encoder
    report.model_id = encoder.model_id
    corpus_version = pipe.corpus_version() if record else 0
    it: Any = rows
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(rows, desc="replay", unit="question")
    for row in it:
        if row["mode"] == "no-context":
            report.skipped.append({"query_id": row["query_id"], "question": row["question"],
                                   "reason": "answered by the language model alone (no retrieval)"})
            continue
        vec = row["query_vector"]
        reuse = vec is not None and row["model_id"] == encoder.model_id and vec.shape[0] == encoder.dim
        # a conversation's follow-up is asked as the standalone question it was answered as (its vector is that's)
        ans = pipe.ask(row.get("standalone_question") or row["question"], filters_from_dict(row["filters"]),
                       query_vector=vec if reuse else None)
        old_ids = [r["chunk_id"] for r in row["retrieved"]]
        new_ids = [r["chunk_id"] for r in ans.retrieved]
        old_rank = {r["chunk_id"]: r["rank"] for r in row["retrieved"]}
        new_rank = {r["chunk_id"]: r["rank"] for r in ans.retrieved}
        item = ReplayItem(
            query_id=row["query_id"], question=row["question"], old_refused=row["refused"], new_refused=ans.refused,
            old_mode=row["mode"], new_mode=ans.mode, old_signal=row["gate"].get("signal"),
            new_signal=ans.gate.signal if ans.gate else None, overlap=overlap_at(old_ids, new_ids),
            cited_ranks={c: (old_rank.get(c), new_rank.get(c)) for c in row["cited"]}, reused_embedding=reuse,
        )
        if record:
            item.new_query_id = log.record(ans, config_hash=report.config_hash, model_id=model_id_of(pipe),
                                           corpus_version=corpus_version, source="replay")
        report.items.append(item)
    return report


def format_replay(report: ReplayReport) -> str:
    """Human-readable replay report (the text of ``clinqa replay``)."""
    d = report.to_dict()
    lines = [f"replayed {d['replayed']} logged questions with config {d['config_hash']} "
             f"(logged under {', '.join(d['old_config_hashes']) or '-'}), encoder {d['model_id']}"]
    lines.append(f"query embeddings: {d['embeddings_reused']} reused from the log, {d['re_encoded']} encoded again"
                 + (" (different encoder or no logged embedding)" if d["re_encoded"] else ""))
    if report.skipped:
        lines.append(f"skipped {len(report.skipped)}: " + "; ".join(
            f"{s['question'][:60]!r} ({s['reason']})" for s in report.skipped[:5]))
    for key, label in (("answered_to_refused", "answered -> refused"), ("refused_to_answered", "refused -> answered")):
        lines.append(f"{label}: {len(d[key])}")
        lines.extend(f"  - {x['question']}  ({x['query_id']})" for x in d[key])
    mo = d["mean_overlap_at_10"]
    lines.append("mean overlap@10 of retrieved chunks: " + ("-" if mo is None else f"{mo:.3f}"))
    c = d["cited_ranks"]
    lines.append(f"previously cited chunks: {c['total']}; same rank {c['same']}, moved up {c['up']}, "
                 f"moved down {c['down']}, gone (no longer retrieved) {c['gone']}")
    for i in report.items:
        shifts = [f"{cid}: {o} -> {'gone' if n is None else n}" for cid, (o, n) in i.cited_ranks.items() if o != n]
        if shifts:
            lines.append(f"  {i.question[:70]!r}: " + "; ".join(shifts))
    if report.recorded:
        lines.append(f"recorded {len(report.items)} replayed answers in the log (source 'replay')")
    return "\n".join(lines)
