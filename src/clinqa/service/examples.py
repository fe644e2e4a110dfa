"""Example questions for the web page's empty state (``GET /examples``): one per document of no patient, from
its section headings (:func:`example_candidates`); :meth:`clinqa.service.state.Service.examples` asks them."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from clinqa.text.words import SPACE_OR_HYPHEN, WORD_CHARS

#: how many example questions the page offers, how many candidates are asked at most to find answered ones,
#: and for how long (seconds) before the rest are offered untried
EXAMPLES = 3
EXAMPLE_TRIES = 8
EXAMPLE_BUDGET_S = 8.0
#: section headings that name a part of a document, not a topic: no example question asks about them
_NOT_TOPIC = re.compile(
    r"(?i)^(?:abstract|background|introduction|overview|summary|key (?:points|messages)|methods?|methodology|"
    r"materials and methods|results|findings|discussion|conclusions?|references|bibliography|further reading|"
    r"acknowledge?ments?|funding|disclosures?|conflicts? of interest|competing interests|"
    r"authors?(?:'s?)?(?: contributions| information)?|contributors|appendix|appendices|abbreviations|glossary|"
    r"definitions|keywords|(?:table of )?contents|scope|purpose|aims?|objectives?|limitations|supplementary\b.*|"
    r"data availability\b.*|ethic.*|copyright|licen[cs]e|notes?|sources?|citation|preface|foreword|"
    r"(?:table|figure|fig\.?|box|appendix)\b.*)$")
#: headings clinicians ask about first (treatment, dosing, diagnosis, ...)
_CLINICAL_TOPIC = re.compile(r"(?i)\b(?:treat|manag|therap|dos(?:e|es|ing|age)\b|diagnos|recommend|indicat|"
                             r"contraindicat|prevent|prophyla|screen|follow-up|monitor|prognos|symptom|caus|risk|"
                             r"complicat|first-line|initial)")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s+")


def _example_for(title: str, heading: str) -> str | None:
    """The example question asked about ``heading`` of the document ``title``: the heading itself when it
    is a question that names a word of the title ("What are the symptoms of Glaucoma?" in "Glaucoma"), else
    "What does <title> say about <heading>?" (parentheses dropped);
    None for a heading that is no topic (:data:`_NOT_TOPIC`, the title again, a number) or too long."""
    h = _NUMBERING.sub("", " ".join(heading.split()))
    h = re.sub(r"\s*\([^()]*\)", "", h).strip(" :.;")  # "Primary Goal (Recommendation 6.5a, Grade A)"
    h = re.sub(r"\s+\?$", "?", h)
    if not re.search(r"[^\W\d_]", h) or h.casefold() == title.casefold() or _NOT_TOPIC.match(h.rstrip("?")):
        return None
    if h.endswith("?"):  # as it stands when it names the document's subject ("Which drug to taper first?" does not)
        named = {w.casefold() for w in re.findall(r"[^\W\d_]{4,}", title)}
        return h if 3 <= len(h.split()) <= 20 and named & {w.casefold() for w in WORD_CHARS.findall(h)} else None
    if not title or len(title.split()) > 12 or len(h.split()) > 8:
        return None
    title_case = any(re.match(r"[^\W\d_][^\W\d_]*$", w) and w[0].isupper() and w[1:2].islower()
                     for w in SPACE_OR_HYPHEN.split(h)[1:])
    topic = h if title_case or not h[1:2].islower() else h[0].lower() + h[1:]  # "Beta-blockers" -> "beta-blockers";
    # "DAPT duration", "Severity-Based Management Algorithm" kept as written
    return f"What does {title} say about {topic}?"


def example_candidates(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One example question per document, from the chunk ``rows`` (``doc_id``, ``title``, ``source``,
    ``section_path``, in reading order) of documents of no patient: the first question heading of the
    document, else its first clinical heading (:data:`_CLINICAL_TOPIC`), else its first topic heading
    (:func:`_example_for`). Deterministic and spread over the corpus: sources in turn, each source's
    documents in turn, both in the order of a hash of their names (ids), questions of at most 100 characters
    first. Dicts of ``question, doc_id, title, section``.

    >>> rows = [{"doc_id": "a", "title": "Acute otitis media", "source": "AAFP", "section_path": [
    ...     "Acute otitis media", "Background"]}, {"doc_id": "a", "title": "Acute otitis media", "source": "AAFP",
    ...     "section_path": ["Acute otitis media", "Treatment"]}]
    >>> [c["question"] for c in example_candidates(rows)]
    ['What does Acute otitis media say about treatment?']
    """
    docs: dict[str, dict[str, Any]] = {}
    for r in rows:
        title = " ".join((r.get("title") or "").split()).rstrip(" .")
        d = docs.setdefault(r["doc_id"], {"title": title, "source": r.get("source") or "", "best": None})
        path = list(r.get("section_path") or [])
        if not path:
            continue
        question = _example_for(title, path[-1])
        if question is None:
            continue
        rank = 0 if path[-1].strip().endswith("?") else 1 if _CLINICAL_TOPIC.search(path[-1]) else 2
        if d["best"] is None or rank < d["best"][0]:
            d["best"] = (rank, question, path[-1].strip())
    by_source: dict[str, list[str]] = {}
    for doc_id in sorted(docs, key=lambda i: hashlib.sha256(i.encode()).hexdigest()):
        if docs[doc_id]["best"] is not None:
            by_source.setdefault(docs[doc_id]["source"], []).append(doc_id)
    queues = [by_source[s] for s in sorted(by_source, key=lambda s: hashlib.sha256(s.encode()).hexdigest())]
    out: list[dict[str, Any]] = []
    for k in range(max((len(q) for q in queues), default=0)):
        for q in queues:
            if k < len(q):
                d = docs[q[k]]
                out.append({"question": d["best"][1], "doc_id": q[k], "title": d["title"], "section": d["best"][2]})
    return sorted(out, key=lambda c: len(c["question"]) > 100)
