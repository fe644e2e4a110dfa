"""Check a generated answer's citations against the evidence it was given.

The most common complaint about generated answers with citations is citations that are wrong,
out of range or lost. After generation every sentence is checked on its own:

1. **Parse** its markers: ``[2]``, ``[1, 3]``, ``[1-3]``, ``[1][2]``. A marker standing at the
   start of the next sentence ("... 4 weeks. [2] Then ...") belongs to the sentence before.
2. **Range**: ids that are not evidence numbers are reported (``invalid``) and ignored; a
   sentence left with no valid id is unsupported.
3. **Lexical support**: the share of the sentence's content words (lower-cased, stop words and
   numbers removed, light suffix stripping; :mod:`clinqa.text`) that occur in the cited chunks; below
   ``min_support`` the sentence is unsupported.
4. **Numbers**: every quantity in the sentence (number, unit and qualifier, see
   :mod:`clinqa.text.quantities`) must agree with a quantity in the cited chunks: "within 4
   weeks" is not supported by "persist for 4 weeks".
5. **Negation, per clause**: the sentence is cut into clauses (at ", and", ", but", ", while",
   "; ", " whereas ", ", which" ..., and after a leading "While/Although ... ,"; not at ", or":
   in "do not A, B, or C" the negation covers all three); each clause
   is matched to the span of consecutive clauses of one cited sentence that shares most of its
   words (F1 of content words weighted by their rarity among the cited sentences, numbers
   breaking ties), and the two must agree on negation. "Stop metformin if the eGFR falls below
   30" is backed by "..., and stop it if the eGFR falls below 30" even though the sentence's
   other clause says "Do not start". "no more than", "with or without", "for no apparent reason"
   and the like are not negations.
6. **Population**: a population word of a clause ("children", "pregnant") must be in the
   cited sentence matched to it, or, when that sentence names no population, in the cited text.
7. **Text addressed to an AI model** (:func:`clinqa.text.injection.is_suspicious`) supports
   nothing: a sentence that passes only with such sentences in its cited text is unsupported
   ("supported only by text addressed to an AI model").

Cited text is normalised before any check (:func:`normalize_source`): Unicode (:func:`clinqa.text.normalize`),
Markdown emphasis removed, and line breaks inside a paragraph read as spaces (a hard-wrapped
"with\nno more than 4 g" is "with no more than 4 g"); list items, table rows and headings stay lines.

Sentences without any citation are unsupported, except the fixed refusal phrase and a bare
leading "Yes." / "No." / "Maybe." (closed questions), which is kept when a later sentence is
supported. Unsupported
sentences are then dropped or flagged (:func:`verify_answer`).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from clinqa.question.terms import PEOPLE_WORDS
from clinqa.text.blocks import PARAGRAPH_BREAK
from clinqa.text.injection import is_suspicious, may_hold_suspicious
from clinqa.text.negation import negated
from clinqa.text.quantities import NUMBER_RE, unsupported_quantities
from clinqa.text.sentences import MARKER as _MARKER
from clinqa.text.sentences import SOURCE_SENTENCE as _SOURCE_SENTENCE
from clinqa.text.sentences import split_answer, split_sentences, split_source_sentences
from clinqa.text.stems import light_stem as _stem
from clinqa.text.stopwords import CLAIM_STOP_WORDS as _STOP
from clinqa.text.unicode import normalize
from clinqa.text.words import ASCII_WORD as _WORD

#: a citation marker with the spaces before it, removed with it
_SPACED_MARKER = re.compile(r"\s*" + _MARKER.pattern)

_DECISION = re.compile(r"^\W*(?:yes|no|maybe)\W*$", re.IGNORECASE)
#: population words: a claim naming one must find it in the cited text ("in children" is not "in adults"); the one
#: population vocabulary less "older", which is as often a comparison ("children older than 2") as a population
_POPULATION = frozenset(PEOPLE_WORDS) - {"older"}
_REDACTED = re.compile(r"\[REDACTED [A-Z_]+\]")
#: where a sentence is cut into clauses (the cut keeps the conjunction with the clause after it)
_CLAUSE_CUT = re.compile(
    r",\s+(?=(?:and|but|while|whereas|although|though|yet|which|who|so|unless|except)\b)|"
    r"\s+(?=(?:but|whereas)\s)|;\s+", re.IGNORECASE)
_LEADING_SUBORDINATE = re.compile(r"^\W*(?:while|although|though|whereas|even though)\b[^,]{3,},\s+", re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])")
_BLOCK_START = re.compile(r"^\s*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|\||#|>)")


def parse_markers(text: str) -> list[int]:
    """Citation ids in ``text`` in order of first appearance: "[1, 3]" -> [1, 3], "[2-4]" ->
    [2, 3, 4] (ranges of at most 20 ids; longer ones keep their ends only)."""
    ids: list[int] = []
    for m in _MARKER.finditer(text):
        parts = re.split(r"\s*(?:,|;|and)\s*", m.group(1))
        for part in parts:
            if re.search(r"[-–]", part):
                a, b = (int(x) for x in re.split(r"\s*[-–]\s*", part)[:2])
                span = list(range(a, b + 1)) if 0 <= b - a <= 20 else [a, b]
            else:
                span = [int(part)]
            ids.extend(i for i in span if i not in ids)
    return ids


def strip_markers(text: str) -> str:
    """``text`` without citation markers and the space before them."""
    return _SPACED_MARKER.sub("", text).strip()


def content_words(text: str) -> list[str]:
    """Stemmed content words of ``text`` (see module docstring), in order, with repeats.
    Redaction placeholders ("[REDACTED PERSON]") are not words."""
    text = _REDACTED.sub(" ", text)
    return [_stem(w.strip("'-")) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]


def normalize_source(text: str) -> str:
    """Cited text as the checks read it: :func:`clinqa.text.normalize`, Markdown emphasis
    (``**``, ``__``, ``*``) removed, and the lines of a paragraph joined with spaces, except lines
    that start a list item, table row, heading or quote, and lines after a table row or a
    ``A > B`` header line. Paragraphs stay separated by a blank line."""
    out: list[str] = []
    for para in PARAGRAPH_BREAK.split(normalize(text)):
        lines: list[str] = []
        for ln in para.splitlines():
            if not ln.strip():
                continue
            prev = lines[-1] if lines else ""
            joinable = prev and not _BLOCK_START.match(ln) and not prev.lstrip().startswith("|") \
                and not (" > " in prev and not prev.rstrip().endswith((".", ":", ";")))
            if joinable:
                lines[-1] = prev.rstrip() + " " + ln.strip()
            else:
                lines.append(ln.strip())
        if lines:
            out.append("\n".join(lines))
    return _EMPHASIS.sub("", "\n\n".join(out))


def clauses(sentence: str, merge: bool = True) -> list[str]:
    """``sentence`` cut into clauses (see module docstring, step 5), in order. With ``merge`` (for
    the checked sentence) a piece with fewer than two content words stays with the clause before
    it; without (for cited sentences) "..., some do not" stays a clause of its own."""
    head = _LEADING_SUBORDINATE.match(sentence)
    pieces = [sentence[: head.end()].rstrip(", ")] if head else []
    pieces += [p for p in _CLAUSE_CUT.split(sentence[head.end():] if head else sentence) if p and p.strip()]
    out: list[str] = []
    for p in pieces:
        if merge and out and len(content_words(p)) < 2:
            out[-1] = f"{out[-1]}, {p.strip()}"
        else:
            out.append(p.strip())
    if merge and len(out) > 1 and len(content_words(out[0])) < 2:
        out[1] = f"{out[0]}, {out[1]}"
        out = out[1:]
    return out or [sentence]


def _source_sentences(texts: list[str]) -> list[str]:
    return [x for t in texts for x in split_source_sentences(t)]


@dataclass
class _Span:
    text: str  # consecutive clauses of one source sentence
    sentence: str  # the whole sentence
    score: float


def _best_span(claim: str, sentences: list[str], weight: dict[str, float], default: float) -> _Span | None:
    """The span of consecutive clauses of one of ``sentences`` that best matches ``claim``: F1 of
    rarity-weighted content words, plus 0.01 per number of the claim the span contains."""
    words = set(content_words(claim))
    if not words:
        return None
    numbers = set(NUMBER_RE.findall(claim))
    total = sum(weight.get(w, default) for w in words)
    best: _Span | None = None
    for sent in sentences:
        parts = clauses(sent, merge=False)
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                span = " ".join(parts[i:j])
                have = set(content_words(span))
                hit = sum(weight.get(w, default) for w in words & have)
                if not hit:
                    continue
                recall = hit / total
                precision = hit / sum(weight.get(w, default) for w in have)
                score = 2 * recall * precision / (recall + precision)
                score += 0.01 * len(numbers & set(NUMBER_RE.findall(span)))
                if best is None or score > best.score + 1e-9:
                    best = _Span(span, sent, score)
    return best


def _rarity(sentences: list[str]) -> tuple[dict[str, float], float]:
    """Weight of each content word: log(1 + sentences / sentences holding it); the default weight
    (a word in none of them) is log(1 + sentences)."""
    df: dict[str, int] = {}
    for sent in sentences:
        for w in set(content_words(sent)):
            df[w] = df.get(w, 0) + 1
    n = max(len(sentences), 1)
    return {w: math.log(1 + n / d) for w, d in df.items()}, math.log(1 + n)


def _support(words: list[str], text: str) -> float:
    have = set(content_words(text))
    return sum(w in have for w in words) / len(words) if words else 0.0


def best_source_sentence(claim: str, texts: list[str]) -> str:
    """The sentence (split at . ! ? ; : and line breaks, after :func:`normalize_source`) of ``texts``
    sharing the largest share of ``claim``'s content words; "" when none shares any."""
    words = content_words(claim)
    best, score = "", 0.0
    for t in texts:
        for sent in _SOURCE_SENTENCE.split(normalize_source(t)):
            sc = _support(words, sent)
            if sc > score:
                best, score = sent, sc
    return best


@dataclass
class CheckedSentence:
    """One sentence of a generated answer and the verdict on it.

    ``citations``: valid evidence numbers it cites; ``invalid``: cited numbers that are not
    evidence; ``support``: share of content words found in the cited chunks (0..1);
    ``reasons``: why it is unsupported (empty when supported).
    """

    text: str
    citations: list[int]
    invalid: list[int]
    supported: bool
    support: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _without_suspicious(text: str) -> str:
    """``text`` without its sentences addressed to an AI model (each line split with pysbd)."""
    if not may_hold_suspicious(text):
        return text
    lines = []
    for line in text.splitlines():
        kept = [x for x in split_sentences(line) if not is_suspicious(x)] if may_hold_suspicious(line) else [line]
        lines.append(" ".join(kept))
    return "\n".join(lines)


def _content_checks(bare: str, words: list[str], cited: list[str], min_support: float) -> tuple[float, list[str]]:
    """Steps 3-6 of the module docstring for one sentence ``bare`` (markers removed, normalised)
    with content ``words`` against normalised ``cited`` texts: (support, reasons it fails)."""
    reasons: list[str] = []
    # support from the best single cited passage: citing [1-5] must not pool five passages' words
    per_passage = [_support(words, t) for t in cited]
    support = max(per_passage)
    if support < min_support:
        have = set(content_words(cited[per_passage.index(support)]))
        missing = [w for w in dict.fromkeys(words) if w not in have][:6]
        reasons.append(f"only {support:.0%} of its words are in the cited text (missing: {', '.join(missing)})")
    sentences = _source_sentences(cited)
    weight, default = _rarity(sentences)
    have_all = set(content_words(" ".join(cited)))
    populations: list[str] = []
    for part in clauses(bare):
        span = _best_span(part, sentences, weight, default)
        if span is None:
            continue
        if negated(part) != negated(span.text):
            reasons.append(f"{'negates' if negated(part) else 'drops the negation of'} the cited text: "
                           f"\"{' '.join(span.text.split())[:120]}\"")
        in_sentence = {w for w in _WORD.findall(span.sentence.lower()) if w in _POPULATION}
        pool = set(content_words(span.sentence)) if in_sentence else have_all
        populations += [w for w in dict.fromkeys(_WORD.findall(part.lower())) if w in _POPULATION
                        and _stem(w) not in pool and w not in populations]
    if populations:
        reasons.append("names " + ", ".join(f"'{w}'" for w in populations) + ", which the cited text does not")
    numbers = unsupported_quantities(bare, cited)
    if numbers:
        reasons.append("numbers not in the cited text as stated: " + ", ".join(f"'{q.phrase}'" for q in numbers))
    return support, reasons


def check_sentence(sentence: str, evidence: dict[int, str], min_support: float = 0.5,
                   refusal_phrase: str | None = None) -> CheckedSentence:
    """Check one sentence against ``evidence`` (evidence number -> chunk text).

    Returns a :class:`CheckedSentence`; never raises on odd input.
    """
    ids = parse_markers(sentence)
    valid = [i for i in ids if i in evidence]
    invalid = [i for i in ids if i not in evidence]
    bare = strip_markers(sentence)
    reasons: list[str] = []
    if invalid:
        known = f"1-{max(evidence)}" if evidence else "none"
        reasons.append(f"cites {', '.join(f'[{i}]' for i in invalid)}, not in the evidence ({known})")
    if refusal_phrase and _norm(refusal_phrase) == _norm(bare):
        return CheckedSentence(sentence, valid, invalid, True, 1.0, [])
    if not valid:
        if not ids:
            reasons.append("no citation")
        return CheckedSentence(sentence, valid, invalid, False, 0.0, reasons)
    raw = [normalize_source(evidence[i]) for i in valid]
    words = content_words(bare)
    if not words:  # "Evidence: [1]" says nothing a citation could support
        reasons.append("no content to check")
        return CheckedSentence(sentence, valid, invalid, False, 0.0, reasons)
    cited = [_without_suspicious(t) for t in raw]
    support, problems = _content_checks(normalize(bare), words, cited, min_support)
    if problems and cited != raw and not _content_checks(normalize(bare), words, raw, min_support)[1]:
        problems = ["supported only by text addressed to an AI model"]
    reasons.extend(problems)
    supported = not reasons or reasons == [r for r in reasons if r.startswith("cites [")]
    return CheckedSentence(sentence, valid, invalid, supported, round(support, 4),
                           [] if supported and not invalid else reasons)


def without_ids(text: str, ids: list[int]) -> str:
    """``text`` with the citation ids ``ids`` removed from its markers ("[1][7]" -> "[1]",
    "[1, 7]" -> "[1]"; a marker left empty disappears with the space before it)."""
    if not ids:
        return text

    def keep(m: re.Match[str]) -> str:
        left = [i for i in parse_markers(m.group(0)) if i not in ids]
        return f" [{', '.join(map(str, left))}]" if left else ""

    return _SPACED_MARKER.sub(keep, text).strip()


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@dataclass
class Verification:
    """The checked answer.

    ``text``: the answer to show (unsupported sentences removed under ``drop``, or suffixed
    " [unsupported]" under ``flag``; citation ids that are not evidence removed from the kept
    sentences, :func:`without_ids`); ``sentences``: every sentence with its verdict, in order;
    ``dropped``: how many were removed; ``refusal``: the model answered with the refusal phrase
    and nothing else that is supported.
    """

    text: str
    sentences: list[CheckedSentence]
    dropped: int
    refusal: bool
    mode: str = "drop"

    @property
    def supported_count(self) -> int:
        """Sentences that passed every check."""
        return sum(s.supported for s in self.sentences)

    @property
    def cited_ids(self) -> list[int]:
        """Evidence numbers cited by the kept sentences, in order of first use."""
        ids: list[int] = []
        for s in self.sentences:
            if s.supported or self.mode == "flag":
                ids.extend(i for i in s.citations if i not in ids)
        return ids


def verify_answer(text: str, evidence: dict[int, str], min_support: float = 0.5, mode: str = "drop",
                  refusal_phrase: str | None = None) -> Verification:
    """Check every sentence of generated ``text`` against ``evidence`` (number -> chunk text).

    ``mode``: ``drop`` removes unsupported sentences, ``flag`` keeps them marked
    "[unsupported]". Raises ``ValueError`` for another mode.
    """
    if mode not in ("drop", "flag"):
        raise ValueError(f"mode must be 'drop' or 'flag', not {mode!r}")
    checked = [check_sentence(s, evidence, min_support, refusal_phrase) for s in split_answer(text)]
    seen: set[str] = set()
    for c in checked:  # a reply that repeats itself (small models loop) keeps one copy
        key = _norm(strip_markers(c.text))
        if key in seen:
            c.supported, c.reasons = False, ["repeats an earlier sentence"]
        seen.add(key)
    is_refusal = [bool(refusal_phrase) and _norm(refusal_phrase or "") == _norm(strip_markers(c.text))
                  for c in checked]
    answer_sentences = [c for c, r in zip(checked, is_refusal, strict=True) if not r]
    refusal = any(is_refusal) and not any(c.supported for c in answer_sentences)
    # a bare leading "Yes." / "No." / "Maybe." (closed questions) stands or falls with the rest
    if answer_sentences and _DECISION.match(answer_sentences[0].text) and not answer_sentences[0].citations:
        rest_ok = any(c.supported for c in answer_sentences[1:])
        head = answer_sentences[0]
        head.supported, head.support = rest_ok, 1.0 if rest_ok else 0.0
        head.reasons = [] if rest_ok else ["a decision with no supported sentence after it"]
    if mode == "drop":
        kept = [without_ids(c.text, c.invalid) for c in answer_sentences if c.supported]
        dropped = sum(not c.supported for c in answer_sentences)
    else:
        kept = [without_ids(c.text, c.invalid) if c.supported else f"{c.text} [unsupported]"
                for c in answer_sentences]
        dropped = 0
    return Verification(" ".join(kept), checked, dropped, refusal, mode)
