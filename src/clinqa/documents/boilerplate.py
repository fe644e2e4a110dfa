"""Corpus boilerplate: lines a collection repeats in many of its documents (a publisher's advert, a
navigation line, a disclaimer) are left out of the text the ingest chunks, so that they are never
embedded, never in the BM25 index and never quoted. The files themselves are not touched.

The rule (:func:`find_boilerplate`), over the reference documents seen together (documents of a patient,
``patient_id`` set, are never looked at: a note's copied-forward lines are content):

- a *line* is one line of a block's text, whitespace-normalised; lines of tables and code blocks are
  not candidates (a table's header and ``|---|`` rows repeat because tables do), nor lines of fewer than
  :data:`MIN_WORDS` words ("- Diabetes mellitus" repeats because it is a common fact);
- two lines are the same when their *openings* are: the first :data:`OPENING_WORDS` words (all of a
  shorter line), lower-cased, punctuation dropped, every word holding a digit or ``_`` masked as one
  name (``calculate_rcri``, ``10-year``; a list of names joined by ``,``/``and``/``or`` is one name) and a
  final ``s`` dropped. Verbatim comparison finds nothing in the demo corpus: its advert, "OpenMedicine
  Calculator: calculate_rcri -- available via MCP for automated RCRI scoring.", names another calculator
  and ends differently in each document (63 distinct lines in 36 of 43 documents; the commonest
  verbatim-up-to-the-name form is in 8); the opening "OpenMedicine Calculator <name> available via MCP
  for ..." is in 35;
- a line is boilerplate when its opening is in at least :data:`MIN_SHARE` (20%) and at least
  :data:`MIN_DOCUMENTS` (5) of the documents of a group, counting each document once. The groups are the
  documents of each source, and all the documents seen together (a collection whose source is its
  publisher, such as the demo's guideline societies, repeats its advert across sources);
- a boilerplate line is left out of every reference document of the group, except where it is all the
  text a section has (a question-and-answer document's only answer is kept whatever it repeats).

What was learned is kept (:meth:`Boilerplate.to_json`, the ingest's ``<data dir>/boilerplate.json``) and
applied to later ingests, so re-ingesting one changed file of a folder leaves its advert out too. A run of
fewer than :data:`MIN_DOCUMENTS` new reference documents learns nothing (nothing can be in 5 of them).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from clinqa.documents.model import Block, Document, Section
from clinqa.text.words import WORD_CHARS

#: lines shorter than this (in words) are never boilerplate
MIN_WORDS = 4
#: the words of a line's opening, compared between documents
OPENING_WORDS = 8
#: a line is boilerplate in a group when its opening is in at least this share of the group's documents ...
MIN_SHARE = 0.2
#: ... and in at least this many of them
MIN_DOCUMENTS = 5
#: block kinds whose lines are never boilerplate
SKIP_KINDS = frozenset({"table", "code"})
#: the group of all the documents seen together (beside one group per source)
ALL = "*"

#: documents read ahead and screened together by :func:`screened` (a larger ingest is screened in windows
#: of this many documents; what one window finds is left out of the next ones too)
WINDOW = 10_000

_WORD = WORD_CHARS
_NAME = "<name>"
_JOINERS = frozenset({"and", "or"})


def opening(line: str) -> str | None:
    """The comparison key of ``line`` (see the module docstring), ``None`` for a line of fewer than
    :data:`MIN_WORDS` words. ``"OpenMedicine Calculators: `calculate_wells_pe` and `calculate_wells_dvt` --
    available via MCP"`` gives ``"openmedicine calculator <name> available via mcp"``."""
    words = _WORD.findall(line.lower())
    if len(words) < MIN_WORDS:
        return None
    out: list[str] = []
    for i, w in enumerate(words):
        if any(c.isdigit() or c == "_" for c in w):
            w = _NAME
        if w == _NAME and out and out[-1] == _NAME:
            continue  # a list of names is one name
        if w in _JOINERS and out and out[-1] == _NAME and i + 1 < len(words) \
                and any(c.isdigit() or c == "_" for c in words[i + 1]):
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
        if len(out) == OPENING_WORDS:
            break
    return " ".join(out)


def threshold(n_documents: int) -> int:
    """Documents a line's opening must be in, in a group of ``n_documents``: the larger of
    :data:`MIN_DOCUMENTS` and 20% of them, rounded up (25 documents: 5; 26: 6; 43: 9)."""
    return max(MIN_DOCUMENTS, math.ceil(MIN_SHARE * n_documents - 1e-9))


def is_reference(doc: Document) -> bool:
    """True for a document of no patient (patient notes are never screened)."""
    return doc.patient_id is None and doc.format != "notes"


def _lines(doc: Document) -> Iterable[tuple[Block, str]]:
    for _, sec in doc.walk():
        for b in sec.blocks:
            if b.kind in SKIP_KINDS:
                continue
            for line in b.text.split("\n"):
                yield b, line


def openings(doc: Document) -> set[str]:
    """The distinct openings of ``doc``'s candidate lines."""
    return {k for _, line in _lines(doc) if (k := opening(line)) is not None}


@dataclass
class Kind:
    """One boilerplate opening: the group it was found in (a source, or :data:`ALL`), an example line,
    and, for the current run, the lines left out and the documents they were left out of."""

    key: str
    group: str
    example: str
    documents: int = 0  # documents of the group holding it when it was found
    lines: int = 0  # lines left out in this run
    affected: set[str] = field(default_factory=set)  # doc ids of this run with a line left out


@dataclass
class Boilerplate:
    """The boilerplate openings known (found in this run or loaded from earlier ones) and what was left out
    in this run. :meth:`learn` finds them in documents seen together, :meth:`strip` leaves them out of one
    document."""

    kinds: dict[tuple[str, str], Kind] = field(default_factory=dict)  # (group, key) -> Kind

    # -- persistence ------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Boilerplate:
        """The openings of a :meth:`to_json` dict (an empty one for ``None`` or a dict of another shape)."""
        out = cls()
        for row in (data or {}).get("kinds", []):
            if isinstance(row, dict) and isinstance(row.get("key"), str) and isinstance(row.get("group"), str):
                out.kinds[(row["group"], row["key"])] = Kind(row["key"], row["group"], str(row.get("example", "")),
                                                             int(row.get("documents", 0) or 0))
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: every known opening with its group, example line and the documents it was found in."""
        return {"kinds": [{"group": k.group, "key": k.key, "example": k.example, "documents": k.documents}
                          for k in sorted(self.kinds.values(), key=lambda k: (k.group, k.key))]}

    # -- detection --------------------------------------------------------------------------------
    def learn(self, docs: Sequence[Document]) -> list[Kind]:
        """Find the boilerplate openings of ``docs`` (reference documents only; see the module docstring),
        add those not known yet and return them."""
        refs = [d for d in docs if is_reference(d)]
        groups: dict[str, list[Document]] = {}
        for d in refs:
            groups.setdefault(d.source or "", []).append(d)
        if len(groups) > 1:  # else the one source's group is all of them
            groups[ALL] = refs
        per_doc = {id(d): openings(d) for d in refs}
        new: list[Kind] = []
        for group, members in groups.items():
            need = threshold(len(members))
            if len(members) < need:
                continue
            counts = Counter(k for d in members for k in per_doc[id(d)])
            for key, n in sorted(counts.items()):
                if n >= need and (group, key) not in self.kinds:
                    example = next(" ".join(line.split()) for d in members for _, line in _lines(d)
                                   if opening(line) == key)
                    self.kinds[(group, key)] = kind = Kind(key, group, example, n)
                    new.append(kind)
        return new

    def _kind_for(self, doc: Document, key: str) -> Kind | None:
        return self.kinds.get((doc.source or "", key)) or self.kinds.get((ALL, key))

    # -- removal ----------------------------------------------------------------------------------
    def strip(self, doc: Document) -> Document:
        """``doc`` without its boilerplate lines (a copy; ``doc`` itself when it is a patient's note or has
        none), counted in each :class:`Kind`. A block left empty is dropped; a section whose text would all
        go keeps it."""
        if not self.kinds or not is_reference(doc):
            return doc
        hits: list[tuple[Kind, str]] = []

        def section(sec: Section) -> Section:
            blocks: list[Block] = []
            found: list[tuple[Kind, str]] = []
            for b in sec.blocks:
                if b.kind in SKIP_KINDS:
                    blocks.append(b)
                    continue
                kept = []
                for line in b.text.split("\n"):
                    key = opening(line)
                    kind = self._kind_for(doc, key) if key is not None else None
                    if kind is None:
                        kept.append(line)
                    else:
                        found.append((kind, line))
                if len(kept) == len(b.text.split("\n")):
                    blocks.append(b)
                elif any(line.strip() for line in kept):
                    blocks.append(b.model_copy(update={"text": "\n".join(kept).strip("\n")}))
            children = [section(c) for c in sec.children]
            if found and not blocks and sec.blocks:  # all its text: kept
                return sec.model_copy(update={"children": children})
            hits.extend(found)
            return sec.model_copy(update={"blocks": blocks, "children": children})

        sections = [section(s) for s in doc.sections]
        if not hits:
            return doc
        for kind, _ in hits:
            kind.lines += 1
            kind.affected.add(doc.doc_id)
        return doc.model_copy(update={"sections": sections})

    def summary(self) -> list[dict[str, Any]]:
        """What this run left out, per group: ``{"group", "kinds", "lines", "documents", "examples"}``
        (``group``: a source, or ``*`` for all the documents seen together; ``documents``: how many had a
        line left out; ``examples``: one line per kind), groups with nothing left out omitted."""
        out: dict[str, dict[str, Any]] = {}
        for k in sorted(self.kinds.values(), key=lambda k: (k.group, -k.lines, k.key)):
            if not k.lines:
                continue
            g = out.setdefault(k.group, {"group": k.group, "kinds": 0, "lines": 0, "documents": set(),
                                         "examples": []})
            g["kinds"] += 1
            g["lines"] += k.lines
            g["documents"] |= k.affected
            g["examples"].append(k.example)
        return [{**g, "documents": len(g["documents"])} for g in out.values()]


def screened(items: Iterable[Any], boilerplate: Boilerplate, window: int = WINDOW) -> Iterator[Any]:
    """``items`` (documents, and load errors or skips, passed on as they are) in order, each document
    without its boilerplate lines (:meth:`Boilerplate.strip`) after :meth:`Boilerplate.learn` has seen the
    documents read with it: all of them, or for a larger ingest each window of ``window`` documents."""
    buf: list[Any] = []
    n_docs = 0

    def release() -> Iterator[Any]:
        boilerplate.learn([x for x in buf if isinstance(x, Document)])
        for x in buf:
            yield boilerplate.strip(x) if isinstance(x, Document) else x
        buf.clear()

    for item in items:
        buf.append(item)
        if isinstance(item, Document):
            n_docs += 1
            if n_docs % window == 0:
                yield from release()
    yield from release()
