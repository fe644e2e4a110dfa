"""Check a generated answer's citations against the evidence it was given.

The most common complaint about generated answers with citations is citations that are wrong,
out of range or lost. After generation every sentence is checked on its own:

1. **Parse** its markers: ``[2]``, ``[1, 3]``, ``[1-3]``, ``[1][2]``. A marker standing at the
   start of the next sentence ("... 4 weeks. [2] Then ...") belongs to the sentence before.
2. **Range**: ids that are not evidence numbers are reported (``invalid``) and ignored; a
   sentence left with no valid id is unsupported.
3. **Lexical support**: the share of the sentence's content words (lower-cased, stop words and
   numbers removed, light suffix stripping) that occur in the cited chunks; below
   ``min_support`` the sentence is unsupported.
4. **Numbers**: every quantity in the sentence (number, unit and qualifier, see
   :mod:`clinqa.answer.quantities`) must agree with a quantity in the cited chunks: "within 4
   weeks" is not supported by "persist for 4 weeks".

Sentences without any citation are unsupported, except the fixed refusal phrase and a bare
leading "Yes." / "No." / "Maybe." (closed questions), which is kept when a later sentence is
supported. Unsupported
sentences are then dropped or flagged (:func:`verify_answer`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from clinqa.answer.quantities import unsupported_quantities

_MARKER = re.compile(r"\[\s*(\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*)\s*\]")
_SENTENCE_END = re.compile(r"[.!?][\"')]*(?:\s*\[\s*\d[\d\s,;–-]*\])*(?=\s+(?:\[\d|[A-Z0-9\"'(])|\s*$)")
_ABBREV = re.compile(r"(?:^|\s)(?:dr|mr|mrs|ms|prof|st|vs|approx|fig|al|e\.g|i\.e|etc|ca)\.$", re.IGNORECASE)
_DECISION = re.compile(r"^\W*(?:yes|no|maybe)\W*$", re.IGNORECASE)
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\s*\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*\s*\])+[.,;]?")
_WORD = re.compile(r"[a-z][a-z0-9'-]*")
_STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has
have having he her here hers herself him himself his how however i if in into is it its itself just may
me might more most must my myself no nor not now of off on once only or other our ours ourselves out
over own same shall she should so some such than that the their theirs them themselves then there these
they this those through to too under until up upon us very was we were what when where which while who
whom why will with would you your yours yourself yourselves according evidence passage passages source
sources states stated says said reported report reports
""".split())
#: negation cues; a claim and the cited sentence it matches best must agree on negation
_NEGATORS = frozenset("not no never nor neither cannot without none".split())
_NEG_CONTRACTION = re.compile(r"\b\w+n't\b")
#: population words: a claim naming one must find it in the cited text ("in children" is not "in adults")
_POPULATION = frozenset("""child children pediatric paediatric infant infants neonate neonates newborn newborns
adolescent adolescents adult adults elderly pregnant pregnancy breastfeeding lactation lactating women men
""".split())
_REDACTED = re.compile(r"\[REDACTED [A-Z_]+\]")
_SOURCE_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")


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
    return re.sub(r"\s*" + _MARKER.pattern, "", text).strip()


def split_answer(text: str) -> list[str]:
    """Split generated text into sentences, keeping each sentence's citation markers with it.

    Splits at line breaks and after ``.!?`` followed by a capital, digit or a marker; markers
    that open a sentence are moved to the end of the one before. Bullet marks are removed.
    """
    pieces: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", line).strip()
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


def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """Stemmed content words of ``text`` (see module docstring), in order, with repeats.
    Redaction placeholders ("[REDACTED PERSON]") are not words."""
    text = _REDACTED.sub(" ", text)
    return [_stem(w.strip("'-")) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]


def negated(text: str) -> bool:
    """Whether ``text`` carries a negation cue (not, no, never, nor, cannot, without, n't ...)."""
    low = text.lower()
    return bool(_NEG_CONTRACTION.search(low)) or any(w in _NEGATORS for w in _WORD.findall(low))


def _support(words: list[str], text: str) -> float:
    have = set(content_words(text))
    return sum(w in have for w in words) / len(words) if words else 0.0


def best_source_sentence(claim: str, texts: list[str]) -> str:
    """The sentence (split at . ! ? ; : and line breaks) of ``texts`` sharing the largest share of
    ``claim``'s content words; "" when none shares any."""
    words = content_words(claim)
    best, score = "", 0.0
    for t in texts:
        for sent in _SOURCE_SENTENCE.split(t):
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
    cited = [evidence[i] for i in valid]
    words = content_words(bare)
    if not words:  # "Evidence: [1]" says nothing a citation could support
        reasons.append("no content to check")
        return CheckedSentence(sentence, valid, invalid, False, 0.0, reasons)
    # support from the best single cited passage: citing [1-5] must not pool five passages' words
    per_passage = [_support(words, t) for t in cited]
    support = max(per_passage)
    if support < min_support:
        have = set(content_words(cited[per_passage.index(support)]))
        missing = [w for w in dict.fromkeys(words) if w not in have][:6]
        reasons.append(f"only {support:.0%} of its words are in the cited text (missing: {', '.join(missing)})")
    source = best_source_sentence(bare, cited)
    if source and negated(bare) != negated(source):
        reasons.append(f"{'negates' if negated(bare) else 'drops the negation of'} the cited text: "
                       f"\"{' '.join(source.split())[:120]}\"")
    have_all = set(content_words(" ".join(cited)))
    populations = [w for w in dict.fromkeys(_WORD.findall(bare.lower())) if w in _POPULATION
                   and _stem(w) not in have_all]
    if populations:
        reasons.append("names " + ", ".join(f"'{w}'" for w in populations) + ", which the cited text does not")
    numbers = unsupported_quantities(bare, cited)
    if numbers:
        reasons.append("numbers not in the cited text as stated: " + ", ".join(f"'{q.phrase}'" for q in numbers))
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

    return re.sub(r"\s*" + _MARKER.pattern, keep, text).strip()


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
