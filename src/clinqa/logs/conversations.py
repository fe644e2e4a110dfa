"""Conversations on disk: ``<data_dir>/conversations.sqlite`` (issue 40).

A conversation belongs to one owner (the API key's name; ``local`` for the CLI) and one patient scope, fixed
when it starts: another owner never reads or continues it (:meth:`ConversationStore.get` answers None, which
the service turns into a 404), and a follow-up asked with another patient scope is refused
(:class:`ScopeChanged`). Each turn keeps the question as typed, the standalone question that was answered
(:mod:`clinqa.question.followup`), how it was read, the query id of its log row and whether it was refused.
Conversations untouched for ``conversation.expire_days`` are deleted when the store is opened.

Schema::

    conversations(conversation_id TEXT PK, name TEXT NULL, owner TEXT, patient_id TEXT NULL,
                  created TEXT, updated TEXT)           -- UTC ISO 8601
    turns(conversation_id TEXT, n INTEGER, question TEXT, standalone TEXT, kind TEXT, drew_on TEXT  -- JSON,
          query_id TEXT NULL, refused INTEGER, ts TEXT, PRIMARY KEY (conversation_id, n))

Thread-safe (one connection per call, WAL journal, busy timeout), as the query log.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from clinqa.errors import ClinqaError

#: the owner of conversations started from the command line (the service uses the API key's name)
LOCAL_OWNER = "local"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    conversation_id TEXT PRIMARY KEY,
    name TEXT,
    owner TEXT NOT NULL,
    patient_id TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS conversations_name ON conversations (owner, name);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    question TEXT NOT NULL,
    standalone TEXT NOT NULL,
    kind TEXT NOT NULL,
    drew_on TEXT NOT NULL,
    query_id TEXT,
    refused INTEGER NOT NULL,
    ts TEXT NOT NULL,
    PRIMARY KEY (conversation_id, n)
);
"""


class ScopeChanged(ClinqaError):
    """A follow-up asked with another patient scope than its conversation's (a conversation never widens,
    narrows or moves its patient scope)."""


@dataclass
class Turn:
    """One turn: ``n`` (from 1), ``question`` as typed, ``standalone`` (what was answered), ``kind`` (how it
    was read: first, switch, slot, frame), ``drew_on`` (turn numbers it used), ``query_id``, ``refused``."""

    n: int
    question: str
    standalone: str
    kind: str
    drew_on: list[int]
    query_id: str | None
    refused: bool
    ts: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class Conversation:
    """A conversation with its turns (oldest first)."""

    conversation_id: str
    name: str | None
    owner: str
    patient_id: str | None
    created: str
    updated: str
    turns: list[Turn] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict (turns included)."""
        d = dict(self.__dict__)
        d["turns"] = [t.to_dict() for t in self.turns]
        return d


def _now() -> datetime:
    return datetime.now(UTC)


class ConversationStore:
    """The conversations of one data directory (see the module docstring). ``expire_days``: conversations
    not updated for longer are deleted on open; ``max_turns``: turns kept per conversation (oldest dropped)."""

    def __init__(self, path: Path, expire_days: float = 30.0, max_turns: int = 50) -> None:
        self.path = Path(path)
        self.max_turns = max_turns
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._conn()) as conn, conn:
            conn.executescript(_SCHEMA)
        self.expire(expire_days)

    def _conn(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.row_factory = sqlite3.Row
        return conn

    def expire(self, days: float, now: datetime | None = None) -> int:
        """Delete the conversations not updated for ``days`` days (before ``now``); returns how many."""
        cut = ((now or _now()) - timedelta(days=days)).isoformat()
        with closing(self._conn()) as conn, conn:
            return conn.execute("DELETE FROM conversations WHERE updated < ?", (cut,)).rowcount

    def get(self, ref: str, owner: str) -> Conversation | None:
        """The conversation with id or name ``ref`` of ``owner``, with its turns; None when there is none (or it
        is another owner's: never told apart)."""
        with closing(self._conn()) as conn:
            row = conn.execute("SELECT * FROM conversations WHERE owner = ? AND (conversation_id = ? OR name = ?)",
                               (owner, ref, ref)).fetchone()
            if row is None:
                return None
            turns = [Turn(r["n"], r["question"], r["standalone"], r["kind"], json.loads(r["drew_on"]),
                          r["query_id"], bool(r["refused"]), r["ts"])
                     for r in conn.execute("SELECT * FROM turns WHERE conversation_id = ? ORDER BY n",
                                           (row["conversation_id"],))]
        return Conversation(row["conversation_id"], row["name"], row["owner"], row["patient_id"], row["created"],
                            row["updated"], turns)

    def start(self, owner: str, patient_id: str | None, name: str | None = None) -> Conversation:
        """A new conversation of ``owner`` in ``patient_id``'s scope (None: the reference documents), named
        ``name`` when given (a name already used by this owner starts that conversation over)."""
        now = _now().isoformat()
        cid = uuid.uuid4().hex
        with closing(self._conn()) as conn, conn:
            if name is not None:
                conn.execute("DELETE FROM conversations WHERE owner = ? AND name = ?", (owner, name))
            conn.execute("INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?)", (cid, name, owner, patient_id, now,
                                                                                 now))
        return Conversation(cid, name, owner, patient_id, now, now)

    def patient_of(self, ref: str | None, owner: str) -> str | None:
        """The patient scope of ``owner``'s existing conversation ``ref`` (id or name); None when it has none or
        there is no such conversation. A command-line follow-up that names no patient continues in it
        (``clinqa ask -c NAME``, ``clinqa chat -c NAME``): only another patient is refused (:meth:`open`)."""
        conv = self.get(ref, owner) if ref else None
        return conv.patient_id if conv is not None else None

    def open(self, ref: str | None, owner: str, patient_id: str | None, create: bool = True) -> Conversation | None:
        """The conversation ``ref`` (id or name) of ``owner``, checked against ``patient_id``; when there is none,
        a new one named ``ref`` if ``create`` (else None). Raises :class:`ScopeChanged` when it exists with
        another patient scope."""
        conv = self.get(ref, owner) if ref else None
        if conv is None:
            return self.start(owner, patient_id, ref) if create else None
        if conv.patient_id != patient_id:
            where = f"patient {conv.patient_id}" if conv.patient_id else "the reference documents"
            raise ScopeChanged(f"conversation {ref!r} is scoped to {where}; a follow-up cannot change its patient "
                               "scope (start a new conversation)")
        return conv

    def add(self, conv: Conversation, question: str, standalone: str, kind: str, drew_on: list[int],
            query_id: str | None, refused: bool) -> Turn:
        """Append a turn to ``conv`` (on disk and in ``conv.turns``); the oldest turns beyond ``max_turns`` go."""
        now = _now().isoformat()
        n = (conv.turns[-1].n if conv.turns else 0) + 1
        turn = Turn(n, question, standalone, kind, drew_on, query_id, refused, now)
        with closing(self._conn()) as conn, conn:
            conn.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (conv.conversation_id, n, question, standalone, kind, json.dumps(drew_on), query_id,
                          int(refused), now))
            conn.execute("DELETE FROM turns WHERE conversation_id = ? AND n <= ?", (conv.conversation_id,
                                                                                     n - self.max_turns))
            conn.execute("UPDATE conversations SET updated = ? WHERE conversation_id = ?", (now,
                                                                                           conv.conversation_id))
        conv.turns = [*conv.turns, turn][-self.max_turns:]
        conv.updated = now
        return turn
