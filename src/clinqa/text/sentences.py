"""Sentence splitters: one for document text, one for generated answers, one for cited text.

* :func:`split_sentences` (document text: chunking, quotable units, the extractive answer): pysbd
  (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence Boundary Disambiguation", rule-based,
  handles abbreviations such as "e.g.", "Dr." and "vs." and decimals such as "0.9 mg/kg"). pysbd's
  time grows with the square of its input (a 40,000-character paragraph takes seconds, 200,000
  minutes), so longer text is segmented in windows of :data:`SEGMENT_CHARS`. Its output decides
  chunk boundaries (:data:`clinqa.chunking.CHUNKING_VERSION`): do not change it.
* :func:`split_answer` (generated text with ``[n]`` citation markers): a regular expression, so a
  model's sentence keeps its markers: ends after ``.!?`` before a capital, a digit or a marker,
  except after a short list of abbreviations (Dr., e.g., i.e., vs., approx. ...); line breaks end
  sentences and bullets are dropped.
* :func:`split_source_sentences` (cited text, as the citation check reads it): cuts after
  ``. ! ? ; :`` (also before a closing bracket or quote), at line breaks, and before an inline list
  item (" - Item", MedQuAD's flattened lists); clause-sized pieces, not grammatical sentences.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pysbd

#: Text longer than this is given to pysbd in windows of this many characters.
SEGMENT_CHARS = 5000


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    import pysbd  # imported on first use: ~70 ms that a query which splits nothing need not pay

    return pysbd.Segmenter(language="en", clean=False)


def _segment(text: str) -> list[str]:
    return list(_segment_cached(text))


@lru_cache(maxsize=4096)
def _segment_cached(text: str) -> tuple[str, ...]:
    """pysbd's sentences of ``text``, remembered: ingest splits a paragraph when it chunks it and again when
    it lists the chunk's quotable units, and pysbd (about 1 ms a paragraph) is a large part of ingest's
    Python time (bench/ingest/run.py --profile)."""
    return tuple(s.strip() for s in _segmenter().segment(text) if s.strip())


def _spans(window: str, sents: list[str]) -> list[tuple[int, int]] | None:
    """(start, end) of each sentence in ``window``, in order; None if one is not found verbatim."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sent in sents:
        at = window.find(sent, cursor)
        if at < 0:
            return None
        cursor = at + len(sent)
        spans.append((at, cursor))
    return spans


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, stripped, empty ones dropped; joining them with single spaces
    gives back the text up to whitespace.

    Text over :data:`SEGMENT_CHARS` characters is segmented window by window, in linear time:
    a window keeps the sentences that end before its last fifth (each boundary is decided
    with that much text after it) and the next window starts where the first sentence it
    did not keep starts; a window with no sentence boundary at all is carried into the next
    one as the start of the same sentence. While no sentence is over half a window (2,500
    characters) the sentences are those of pysbd on the whole text (checked on every block
    over 5,000 characters of the shipped and MedQuAD corpora); after a longer one, the next
    window starts without its left context and pysbd may place the next boundary
    differently. No text is lost or repeated either way.
    """
    text = text.strip()
    if not text:
        return []
    if len(text) <= SEGMENT_CHARS:
        return _segment(text)
    out: list[str] = []
    pos, n = 0, len(text)
    pending: int | None = None  # start offset of a sentence no window has ended yet

    def close(sents: list[str], window_at: int) -> None:
        """Prefix the pending sentence start to ``sents[0]`` (which begins at ``window_at``)."""
        nonlocal pending
        if pending is not None and sents:
            at = text.find(sents[0], window_at)
            end = at + len(sents[0]) if at >= 0 else window_at
            sents[0] = text[pending:end].strip() if at >= 0 else f"{text[pending:window_at].strip()} {sents[0]}"
            pending = None

    while n - pos > SEGMENT_CHARS:
        window = text[pos : pos + SEGMENT_CHARS]
        sents = _segment(window)
        spans = _spans(window, sents) if len(sents) > 1 else None
        if spans is not None:
            settled = len(window) - SEGMENT_CHARS // 5
            keep = min(max(1, sum(end <= settled for _, end in spans)), len(sents) - 1)  # never the last
            start = spans[keep][0]
        elif len(sents) > 1 and window.rfind(sents[-1]) > 0:  # segments not verbatim: keep all but the last
            keep, start = len(sents) - 1, window.rfind(sents[-1])
        else:
            keep = 0
        if keep:
            kept = sents[:keep]
            close(kept, pos)
            out.extend(kept)
        else:  # no boundary in the whole window: the sentence goes on into the next one
            if pending is None:
                pending = pos
            space = window.rfind(" ", SEGMENT_CHARS // 2)
            start = space if space > 0 else SEGMENT_CHARS
        pos += start
        while pos < n and text[pos].isspace():
            pos += 1
    tail = _segment(text[pos:])
    if pending is not None and not tail:
        tail = [text[pending:].strip()]
    close(tail, pos)
    out.extend(tail)
    return [s for s in out if s]


#: a citation marker: "[2]", "[1, 3]", "[1-3]", "[1 and 2]"
MARKER = re.compile(r"\[\s*(\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*)\s*\]")
_SENTENCE_END = re.compile(r"[.!?][\"')]*(?:\s*\[\s*\d[\d\s,;–-]*\])*(?=\s+(?:\[\d|[A-Z0-9\"'(])|\s*$)")
_ABBREV = re.compile(r"(?:^|\s)(?:dr|mr|mrs|ms|prof|st|vs|approx|fig|al|e\.g|i\.e|etc|ca)\.$", re.IGNORECASE)
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\s*\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*\s*\])+[.,;]?")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def split_answer(text: str) -> list[str]:
    """Split generated text into sentences, keeping each sentence's citation markers with it.

    Splits at line breaks and after ``.!?`` followed by a capital, digit or a marker; markers
    that open a sentence are moved to the end of the one before. Bullet marks are removed.
    """
    pieces: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if line:
            start = 0
            for m in _SENTENCE_END.finditer(line):
                if _ABBREV.search(line[: m.start() + 1]):
                    continue
                pieces.append(line[start:m.end()].strip())
                start = m.end()
            pieces.append(line[start:].strip())
    out: list[str] = []
    for p in filter(None, pieces):
        lead = _LEADING_MARKERS.match(p)
        if lead and out:
            out[-1] = out[-1] + " " + lead.group(0).rstrip(".,;").strip()
            p = p[lead.end():].strip()
        if p:
            out.append(p)
    return out


#: sentence ends in cited text: after . ! ? ; : (also before a closing bracket or quote), at line
#: breaks, and before an inline list item (" - Item", MedQuAD's flattened lists)
SOURCE_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|(?<=[.!?][)\]\"'])\s+|\n+|\s+-\s+(?=[A-Z])")


def split_source_sentences(text: str) -> list[str]:
    """Pieces of cited ``text`` cut at :data:`SOURCE_SENTENCE`, in order, whitespace-only pieces dropped
    (pieces are not stripped): ``"Give 5 mg; stop it.\\nNext"`` -> ``["Give 5 mg;", "stop it.", "Next"]``."""
    return [x for x in SOURCE_SENTENCE.split(text) if x.strip()]
