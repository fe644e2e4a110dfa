"""Clinical notes loader: JSON Lines or CSV, one note per line/row.

Fields: ``patient_id``, ``note_id``, ``date`` (ISO 8601 date, a datetime is accepted and
cut to its date), ``note_type``, ``text`` (required); ``author_role``, ``title``
(optional). CSV files need a header row with these column names (RFC 4180 quoting, read
with the :mod:`csv` module). Inside ``text``, a line starting with an all-caps label and a
colon (``"ASSESSMENT:"``, ``"HPI:"``, ``"PLAN: continue..."``) opens a section; paragraphs
are separated by blank lines; lines starting with ``-``, ``*``, ``•`` or ``1.``/``1)`` are list
items.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from clinqa.documents.loaders._common import norm_ws
from clinqa.documents.loaders._io import iter_jsonl, read_text
from clinqa.documents.model import Block, Document, Section
from clinqa.errors import LoadError

REQUIRED = ("patient_id", "note_id", "date", "note_type", "text")
OPTIONAL = ("author_role", "title")
_LABEL = re.compile(r"^[ \t]*([A-Z][A-Z0-9 /&()'+-]{0,48}[A-Z0-9)])[ \t]*:[ \t]*(.*)$")
_ITEM = re.compile(r"^[ \t]*(?:[-*\u2022]|\d{1,3}[.)])[ \t]+\S")


def parse_note_text(text: str) -> list[Section]:
    """Split note text into sections at all-caps ``LABEL:`` lines (text before -> untitled).

    Within a section, blank lines separate paragraphs and bullet/numbered lines become
    list blocks (continuation lines that are not items are appended to the open item).
    """
    sections: list[Section] = []
    current = Section()
    buf: list[str] = []
    buf_kind = "paragraph"

    def flush() -> None:
        nonlocal buf_kind
        if buf:
            current.blocks.append(Block(text="\n".join(buf), kind="list" if buf_kind == "list" else "paragraph"))
        buf.clear()
        buf_kind = "paragraph"

    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        m = _LABEL.match(line)
        if m:
            flush()
            if current.title or current.blocks:
                sections.append(current)
            current = Section(title=m.group(1).strip())
            line = m.group(2).strip()
            if not line:
                continue
        if not line.strip():
            flush()
            continue
        if _ITEM.match(line):
            flush()
            buf_kind = "list"
            buf.append(line.strip())
        else:
            buf.append(line.strip() if buf_kind == "paragraph" else "  " + line.strip())
    flush()
    if current.title or current.blocks:
        sections.append(current)
    return sections


def _parse_date(value: str) -> date:
    value = value.strip()
    if len(value) == 10:
        return date.fromisoformat(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).date()


def _note(path: Path, where: str, rec: Mapping[str, Any], seen: set[tuple[str, str]]) -> Document:
    values: dict[str, str] = {}
    for field in REQUIRED:
        value = rec.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise LoadError(path, f"{where}: missing required field {field!r}")
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise LoadError(path, f"{where}: field {field!r} must be a string")
        values[field] = str(value) if field == "text" else norm_ws(str(value))
    try:
        note_date = _parse_date(values["date"])
    except ValueError:
        raise LoadError(path, f"{where}: invalid date {values['date'][:40]!r} (expected ISO date YYYY-MM-DD)") from None
    note_id, patient_id = values["note_id"], values["patient_id"]
    if (patient_id, note_id) in seen:
        raise LoadError(path, f"{where}: duplicate note_id {note_id!r} for patient {patient_id!r}")
    seen.add((patient_id, note_id))
    note_type = values["note_type"]
    title = rec.get("title")
    if not isinstance(title, str) or not title.strip():
        kind = note_type if note_type.lower().endswith("note") else f"{note_type} note"
        title = f"{kind} {note_date.isoformat()}"
    author_role = rec.get("author_role")
    sections = parse_note_text(values["text"])
    if not sections:
        raise LoadError(path, f"{where}: field 'text' is empty")
    return Document(
        doc_id=f"note:{patient_id}:{note_id}",
        title=norm_ws(title),
        year=note_date.year,
        source="notes",
        patient_id=values["patient_id"],
        note_date=note_date,
        note_type=note_type,
        author_role=norm_ws(author_role) if isinstance(author_role, str) else "",
        path=str(path),
        format="notes",
        sections=sections,
    )


def _csv_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise LoadError(path, f"line 1: invalid CSV header ({exc})") from None
    if not header:
        raise LoadError(path, "empty file (no CSV header)")
    names = [h.strip().lower() for h in header]
    for field in REQUIRED:
        if field not in names:
            raise LoadError(path, f"line 1: missing required column {field!r} in CSV header")
    reader.fieldnames = names
    count = 0
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise LoadError(path, f"line {start}: invalid CSV ({exc})") from None
        if not any((v or "").strip() for k, v in row.items() if isinstance(v, str)):
            continue
        count += 1
        yield f"line {start}", row
    if count == 0:
        raise LoadError(path, "no notes (CSV has a header but no rows)")


def load(path: Path) -> list[Document]:
    """Load a notes file (``.jsonl``/``.ndjson`` as JSON Lines, anything else as CSV).

    One Document per note: doc_id = ``"note:<patient_id>:<note_id>"`` (note ids are often
    numbered per patient), patient_id, note_date, year =
    the note date's year, note_type, author_role, source ``"notes"``, title = ``title`` or
    ``"<note_type> note <date>"``. Raises LoadError naming the line for a missing required
    field/column ("line 3: missing required field 'patient_id'"), a bad date, a duplicate
    note_id, invalid JSON or CSV; in JSON Lines every bad line is named (up to :data:`MAX_REPORTED`:
    "2 bad lines: line 1: ...; line 2: ..."), and none of the file is loaded.
    """
    seen: set[tuple[str, str]] = set()
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        problems: list[str] = []
        notes = []
        for n, rec in iter_jsonl(path, problems):
            try:
                notes.append(_note(path, f"line {n}", rec, seen))
            except LoadError as exc:
                problems.append(exc.reason)
        if len(problems) == 1:
            raise LoadError(path, problems[0])
        if problems:  # every bad line at once, so one fix-and-retry is enough; nothing of the file is kept
            more = f" (and {len(problems) - MAX_REPORTED} more)" if len(problems) > MAX_REPORTED else ""
            raise LoadError(path, f"{len(problems)} bad lines: " + "; ".join(problems[:MAX_REPORTED]) + more)
        return notes
    return [_note(path, where, row, seen) for where, row in _csv_rows(path)]


#: how many bad lines a failed notes file names
MAX_REPORTED = 10
