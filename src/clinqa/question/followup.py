"""A follow-up question read with the conversation before it, into a standalone question (issue 40).

Clinicians ask in threads: "apixaban dose for AF, CrCl 50?" then "and if CrCl is 20?", "what about dialysis?",
"max dose?". Each follow-up is rewritten here into a question that can be searched and answered alone, with no
language model (the "condense question" step of chat RAG, done by rules over what the question package
already reads). :func:`resolve` takes the follow-up and the standalone form of the turn before it and returns a
:class:`Resolution`:

``switch``
    The follow-up announces a new topic ("unrelated - ...", "diff q: ...", "quick one - ...") or stands on
    its own: no connective ("and", "what about", "what if"), no pronoun that points back ("it", "he", "them"),
    and at least four content words. It is searched as typed (less the announcement): a new topic never
    inherits the old one.
``slot``
    Everything it says is a slot of the earlier question, which it changes there: a named value ("CrCl 45"
    for "CrCl 28", "Wells 6", "K 4.2"; a bare value of the same unit, "22%" for "12%", or "6" when the earlier
    question gives one value), a population or age ("in pregnancy", "a 12 yo", "kids" replace "67F",
    "children", ...), a time relative to a procedure ("after" for "before"), a route ("via ETT" for "IV"), a
    severity or a setting ("severe", "inpatient"), dialysis, or another drug or condition (:attr:`Resolution
    .replaced`: the earlier term it is most like, by the caller's ``similar``, "tenecteplase" for
    "alteplase"). The earlier question is rewritten with the new values: "67F, AF, CrCl 45 - dabigatran
    dose?"; the value replaced is gone from it.
``frame``
    It asks something new about the same topic ("max dose?", "when can I stop it?", "does it apply to
    pregnant women?"): its own words, then the earlier question's topic (its content words less the words that
    frame what was asked: "dose", "target", "which" ...), "when can I stop it (CAP, MRSA risk, vanc)?"; with
    the slot changes above made to the topic.

A follow-up that offers another case ("what about with CKD?", "what if she's 20 wks pregnant?") right after one
that supposed a case ("and if she's pregnant?") is read against the turn before that one, so that the new case
replaces the supposed one (:func:`asks_alternative`; the caller gives the earlier turns' kinds and typed text).

A first question (no earlier turn) is ``first`` and unchanged. The rules read words and numbers only; the
caller supplies ``similar(a, b) -> float`` (e.g. the encoder's cosine) for choosing which earlier drug or
condition a new one replaces, and ``topic_terms(text)`` (e.g. the key terms read with the corpus vocabulary)
for which words of a follow-up name a topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from clinqa.question.terms import PEOPLE_WORDS, POPULATION_WORDS
from clinqa.text.quantities import NUMBER, unit_pattern
from clinqa.text.stopwords import QUESTION_STOP_WORDS
from clinqa.text.words import LETTER_RUN, bounded_word

#: an announced change of topic at the start of a follow-up, up to its separator
TOPIC_SWITCH = re.compile(
    r"^\s*(?:ok(?:ay)?[,\s]+|so[,\s]+)?(?:(?:totally|completely|a)\s+)?"
    r"(?:unrelated|different|diff|separate|new|another|other|switching|change of|quick)\s*"
    r"(?:q|qs|question|topic|thing|subject|one|case|patient|pt)?\s*(?:[-:–—,]\s*|\s+-\s+)", re.IGNORECASE)
#: a leading connective that makes a follow-up lean on what came before ("and if", "what about", "so")
CONNECTIVE = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|and|but|also|then|plus|what about|how about|and what about|what if|and if|if|"
    r"same for|same but|same q for)\b[\s,]*)+", re.IGNORECASE)
#: a leading preposition: the follow-up is a slot of the earlier question ("in pregnancy?", "via ETT?")
LEADING_PREPOSITION = re.compile(r"^\s*(?:in|for|on|with|without|after|before|during|via|at|by|under|over)\b",
                                 re.IGNORECASE)
#: words that point back to something of the earlier turn
ANAPHORA = re.compile(r"\b(?:it|its|it's|they|them|their|theirs|this|that|these|those|he|she|him|her|his|hers|"
                      r"he's|she's|they're|the same|the drug|the dose|the patient|the pt)\b", re.IGNORECASE)
#: words that frame what was asked rather than name the topic ("dose", "target", "which", "should")
FRAME_WORDS = frozenset("""
what which who whom whose when where why how much many long often is are was were be been do does did can could
should would will may might must need needs needed use used using give given start starting started stop stopping
dose doses dosing dosage regimen target targets goal threshold cutoff cut-off level next step steps plan management
manage treat treatment first-line line choice option options preferred recommended recommendation ok okay safe
max maximum min minimum initial starting maintenance loading duration interval frequency route best pt patient
patients yes no please tell me know q quick question
""".split())
#: times relative to a procedure or dose, each replacing the others ("after" for "before")
TIMING = ("before", "after", "during", "pre", "post", "prior to")
#: routes, each replacing the others
ROUTES = {"iv": "IV", "intravenous": "IV", "intravenously": "IV", "po": "oral", "oral": "oral", "orally": "oral",
          "im": "IM", "intramuscular": "IM", "sc": "SC", "subcut": "SC", "subcutaneous": "SC", "ett": "endotracheal",
          "et": "endotracheal", "endotracheal": "endotracheal", "intranasal": "intranasal"}
SEVERITY = ("mild", "moderate", "severe", "non-severe", "critical")
SETTING = ("inpatient", "outpatient", "icu", "ward", "ed", "community", "hospital", "home")
DIALYSIS = re.compile(r"\b(?:haemo|hemo|peritoneal )?dialysis\b|\bhd\b|\bcapd\b|\besrd\b|\besrf\b", re.IGNORECASE)
#: the units a follow-up's value may carry, named ("CrCl 45 ml/min", "insulin 10 units") or alone ("22%", "95kg",
#: "2 wks"): spellings of the one unit table (:data:`clinqa.text.quantities.UNITS`), a longer one before its prefix
_VALUE_UNITS = ("%", "mg/dl", "mmol/l", "mmhg", "ml/min", "kg", "mg", "units", "unit", "iu", "wks", "wk", "weeks",
                "week")
#: an age, with sex or not: "67F", "a 12 yo", "9 year old", "70yo man", "35F"; or told of the patient: "she's 85",
#: "he is 72", "pt is 90" (group 1; a number with a unit after it is no age: "she's 12 kg")
AGE = re.compile(r"\b(?:a\s+)?\d{1,3}\s?(?:-?\s?(?:year|yr|y)s?[- ]?old|yo|y/o|yrs?|[mf])\b(?:\s+(?:man|woman|male|"
                 r"female|boy|girl|child|kid|pt|patient))?|\b(?:she|he|pt|patient)(?:['’]s|\s+is)\s+(\d{1,3})\b"
                 r"(?![.,]\d)(?!\s*(?:" + unit_pattern(_VALUE_UNITS) + r")(?![a-z]))", re.IGNORECASE)
#: a named value: "CrCl 45", "K+ 3.1", "Wells 3.5", "eGFR 25", "NEWS2 of 7", "score of 3", "INR = 5"
NAMED_VALUE = re.compile(r"(?<!['’])\b([a-z][a-z0-9-]*\+?)(?:\s+(?:of|is|was|=)|\s*[=:])?\s*(" + NUMBER + r")(?!\d)"
                         r"(\s*(?:" + unit_pattern(_VALUE_UNITS) + r")(?![a-z]))?", re.IGNORECASE)
#: a value with its unit alone: "22%", "95kg", "< 250"
UNIT_VALUE = re.compile(r"(?<![\w.])([<>≤≥]\s*)?(" + NUMBER + r")\s*(" + unit_pattern(_VALUE_UNITS) + r")(?![a-z])",
                        re.IGNORECASE)
BARE_NUMBER = re.compile(r"(?<![\w.])(" + NUMBER + r")(?![\w.]|\.\d)")
_WORD = re.compile(r"[A-Za-z0-9][\w+/-]*")


def rewrite_problems(rewrite: str, follow_up: str, earlier: str, rules: Resolution) -> list[str]:
    """Why a rewrite of ``follow_up`` (e.g. a language model's) may not stand for it after ``earlier``, read
    the way the rules read it (``rules``, :func:`resolve`): empty or over 300 characters; a number the
    follow-up types missing; none of the earlier question's topic words kept although the follow-up leans
    back; or a value the rules found replaced still there ("CrCl 50" after "and if CrCl is 20?"). Empty
    when it may stand."""
    text = " ".join(rewrite.split())
    if not text or len(text) > 300:
        return ["empty or longer than 300 characters"]
    low = text.lower()
    out = [f"drops {n!r}" for n in dict.fromkeys(BARE_NUMBER.findall(follow_up)) if n not in low]
    topic = {w.lower() for w in _content(earlier) if w.lower() not in FRAME_WORDS and not BARE_NUMBER.fullmatch(w)}
    if rules.kind != "switch" and topic and not any(w in low for w in topic):
        out.append("keeps nothing of the earlier topic")
    out += [f"keeps the replaced {old!r}" for old, new in rules.replaced
            if old and new and old.lower() in low and new.lower() not in old.lower()]
    return out


@dataclass
class Resolution:
    """How a follow-up was read: ``standalone`` (the question searched and answered), ``kind`` (``first``,
    ``switch``, ``slot`` or ``frame``; module docstring; ``llm`` for a language model's checked rewrite,
    :func:`clinqa.conversation.resolve_turn`), ``drew_on`` (indices of the earlier turns it used; empty for
    ``first`` and ``switch``), ``replaced`` (``(earlier text, new text)`` per slot changed) and ``notes`` (why a
    model's rewrite was not used; shown as warnings)."""

    standalone: str
    kind: str
    drew_on: list[int] = field(default_factory=list)
    replaced: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _content(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower() not in QUESTION_STOP_WORDS]


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([?,.;:])", r"\1", " ".join(text.split()))
    text = re.sub(r"([,;:-])\s*([,;:-])+", r"\1", text)
    return text.strip(" ,;:-")


def _question(text: str) -> str:
    text = _tidy(text).rstrip("?. ")
    return text + "?" if text else text


def is_switch(follow_up: str) -> bool:
    """Does ``follow_up`` announce a new topic ("unrelated - ...", "diff q: ...", "quick one - ...")?"""
    return TOPIC_SWITCH.match(follow_up) is not None


def leans_back(follow_up: str) -> bool:
    """Does ``follow_up`` lean on an earlier turn: a leading connective or preposition, a pronoun that points
    back, or fewer than four content words?"""
    return bool(CONNECTIVE.match(follow_up) or LEADING_PREPOSITION.match(follow_up)
                or ANAPHORA.search(follow_up) or len(_content(follow_up)) < 4)


def _population_words(text: str) -> list[str]:
    """The population words of ``text`` in order, lower case ("pregnancy", "kids", "adults"): words that name a
    group of people (:data:`clinqa.question.terms.PEOPLE_WORDS`; organs and renal states are read as their own
    slots, dialysis, or as topic)."""
    return [w for w in re.findall(r"[a-z][a-z-]*", text.lower()) if w in PEOPLE_WORDS]


def _replace_once(text: str, old: str, new: str) -> str:
    i = text.lower().find(old.lower())
    return text if i < 0 else text[:i] + new + text[i + len(old):]


@dataclass
class _Rewrite:
    """The earlier question as it is being rewritten by :func:`resolve`'s slot steps: ``text`` (the standalone
    form so far), ``replaced`` (``(earlier text, new text)`` per change, :attr:`Resolution.replaced`) and ``used``
    (the spans of the follow-up read as slots, so that what is left of it frames a new question)."""

    text: str
    replaced: list[tuple[str, str]] = field(default_factory=list)
    used: list[str] = field(default_factory=list)

    def swap(self, old: str, new: str) -> None:
        """Replace the first ``old`` (any case) of the text with ``new``, and record it."""
        self.text = _replace_once(self.text, old, new)
        self.replaced.append((old, new))

    def add(self, phrase: str, joiner: str = " ") -> None:
        """Append ``phrase`` to the text, after its closing punctuation and ``joiner`` (" with ", " in ", " ")."""
        self.text = f"{self.text.rstrip('?. ')}{joiner}{phrase}"

    def insert(self, phrase: str, joiner: str) -> None:
        """:meth:`add` ``phrase`` and record it as a change from nothing (a slot value the earlier question lacked)."""
        self.add(phrase, joiner)
        self.replaced.append(("", phrase))


def _value_follows(text: str, end: int) -> bool:
    """Does a value (:data:`NAMED_VALUE`, :data:`BARE_NUMBER`) follow ``text[:end]`` after a space? Then a name
    typed with its digits that ends there ("NEWS2" of "NEWS2 score of 7", "CURB65" of "CURB65 3") names it."""
    pos = end + len(text[end:]) - len(text[end:].lstrip())
    return pos > end and (NAMED_VALUE.match(text, pos) is not None or BARE_NUMBER.match(text, pos) is not None)


def _named_values(rw: _Rewrite, rest: str) -> None:
    """Step 1, named values: "CrCl 45" replaces "CrCl 28" (a name the earlier question lacks is added with
    " with "); a value with its unit replaces the one earlier value of that unit ("22%" for "12%"), or is added with
    " with " when the earlier question has none ("58 kg?"); a lone bare number replaces the one named value of the
    earlier question ("6" for "Wells 3"), unless it is an age's (:data:`AGE`: "and if he's 85?")."""
    found = [m for m in NAMED_VALUE.finditer(rw.text)
             if m.group(1).lower() not in QUESTION_STOP_WORDS and not AGE.fullmatch(m.group(0).strip())]
    # a name with its digits ("NEWS2", "CURB65") followed by a number is the name of that number, not a value
    found = [m for m in found if not (m.start(2) == m.end(1) and _value_follows(rw.text, m.end()))]
    base_named = [(m.group(1).lower().rstrip("+"), m.group(0).strip(), m.group(2)) for m in found]
    for m in NAMED_VALUE.finditer(rest):
        name = m.group(1).lower().rstrip("+")
        if name in QUESTION_STOP_WORDS or AGE.fullmatch(m.group(0).strip()):
            continue
        value = f"{m.group(1)} {m.group(2)}{(m.group(3) or '').strip()}"  # "CrCl 45", not "CrCl was 45"
        hit = next((b for b in base_named if b[0] == name), None)
        if hit is not None:
            rw.swap(hit[1], value)
        else:  # a value the earlier question did not give: added to it ("... with CrCl 25")
            rw.insert(value, " with ")
        rw.used.append(m.group(0))
    for m in UNIT_VALUE.finditer(rest):
        if any(m.group(0) in u for u in rw.used):
            continue
        unit = m.group(3).lower()
        olds = [b for b in UNIT_VALUE.finditer(rw.text) if b.group(3).lower() == unit]
        if len(olds) == 1:
            rw.swap(olds[0].group(0), m.group(0).strip())
            rw.used.append(m.group(0))
        elif not olds:  # a value of a unit the earlier question did not give: added, as a named value is
            rw.insert(m.group(0).strip(), " with ")
            rw.used.append(m.group(0))
    ages = list(AGE.finditer(rest))  # "he's 85", "a 12 yo": an age's number is no value of the earlier question's
    bare = [m for m in BARE_NUMBER.finditer(rest) if not any(m.group(0) in u for u in rw.used)
            and not any(a.start() <= m.start() < a.end() for a in ages)]
    if len(bare) == 1 and len(base_named) == 1 and not rw.used:
        old = base_named[0][1]
        rw.swap(old, old[: old.rfind(base_named[0][2])] + bare[0].group(0))
        rw.used.append(bare[0].group(0))


def _age_and_population(rw: _Rewrite, rest: str) -> None:
    """Step 2, age and population: the follow-up's ("a 12 yo", "in pregnancy"; an age told of the patient, "she's
    85", as "85 years old") replace the earlier ones, which are taken out, and are added with " in "."""
    found = list(AGE.finditer(rest))
    ages = [f"{m.group(1)} years old" if m.group(1) else m.group(0) for m in found]  # "she's 85": 85 years old
    pops = _population_words(rest)
    if not (ages or pops):
        return
    for m in list(AGE.finditer(rw.text)):
        rw.swap(m.group(0), "")
    for w in _population_words(rw.text):
        if w not in pops:
            rw.text = re.sub(r"\b(?:in\s+|for\s+)?" + re.escape(w) + r"\b", "", rw.text, count=1, flags=re.IGNORECASE)
            rw.replaced.append((w, ""))
    phrase = " ".join(ages + [w for w in pops if not any(w in a.lower() for a in ages)])
    rw.insert(phrase, " in ")
    rw.used += [m.group(0) for m in found] + pops


def _longest(words: list[str]) -> list[str]:
    """``words`` less those that are part of a longer one of them ("severe" of "non-severe"), wherever each was
    found: the longer one names what was typed."""
    return [w for w in words if not any(w != o and w in o for o in words)]


def _qualifiers(rw: _Rewrite, rest: str) -> None:
    """Step 3, a time, severity, setting or route of the same kind replaces the earlier one ("after" for
    "before", "via ETT" for "IV"; added when the earlier question had none); dialysis is added when the earlier
    question lacks it."""
    low_rest = rest.lower()
    for group in (TIMING, SEVERITY, SETTING):
        mine = _longest([w for w in group if bounded_word(w).search(low_rest)])
        if mine:
            theirs = [w for w in _longest([w for w in group if bounded_word(w).search(rw.text.lower())])
                      if w not in mine]
            for w in theirs:
                rw.swap(bounded_word(w, re.IGNORECASE).search(rw.text).group(0), mine[0])  # type: ignore[union-attr]
            if not theirs:
                rw.add(mine[0])
            rw.used += mine
    routes = [ROUTES[w] for w in LETTER_RUN.findall(low_rest) if ROUTES.get(w)]
    if routes:
        theirs = [w for w in re.findall(r"[A-Za-z]+", rw.text)
                  if ROUTES.get(w.lower()) and ROUTES[w.lower()] != routes[0]]
        for w in theirs[:1]:
            rw.swap(w, routes[0])
        if not theirs:
            rw.add(routes[0])
        rw.used += [w for w in LETTER_RUN.findall(low_rest) if ROUTES.get(w)]
    if DIALYSIS.search(rest) and not DIALYSIS.search(rw.text):
        rw.add(DIALYSIS.search(rest).group(0), " on ")  # type: ignore[union-attr]
        rw.used.append(DIALYSIS.search(rest).group(0))  # type: ignore[union-attr]


def _topics(rw: _Rewrite, rest: str, terms: Callable[[str], list[str]],
            similar: Callable[[str, str], float] | None, min_similarity: float) -> None:
    """Step 4, another drug or condition replaces the earlier topic term most like it (``similar`` at least
    ``min_similarity``; with no ``similar`` nothing is swapped)."""
    spent = " ".join(rw.used).lower()
    fresh = [t for t in terms(rest) if t.lower() not in rw.text.lower() and t.lower() not in spent
             and not BARE_NUMBER.fullmatch(t) and t.lower() not in POPULATION_WORDS]
    olds = [t for t in terms(rw.text) if t.lower() not in spent]
    for t in fresh:
        scored = [(similar(t, o) if similar else 0.0, o) for o in olds if o.lower() != t.lower()]
        best = max(scored, default=(0.0, ""))
        if best[1] and best[0] >= min_similarity:
            rw.swap(best[1], t)
            olds.remove(best[1])
            rw.used.append(t)


def _slot_or_frame(rw: _Rewrite, rest: str, at: int) -> Resolution:
    """The resolution once the slots are read: ``slot`` (the rewritten earlier question) when nothing of the
    follow-up is left but connectives and pronouns; else ``frame``: what is left frames a new question about
    the earlier topic, "when can I stop it (CAP, MRSA risk, vanc)?"."""
    left = rest
    for u in sorted(rw.used, key=len, reverse=True):
        left = re.sub(re.escape(u), " ", left, flags=re.IGNORECASE)
    left_words = [w for w in _content(left) if not ANAPHORA.fullmatch(w) and not LEADING_PREPOSITION.fullmatch(w)
                  and w.lower() not in ("if", "what", "about", "and", "so", "ok", "s", "was", "is", "it's")]
    if not left_words:
        return Resolution(_question(rw.text), "slot", [at], rw.replaced)
    added = {x.lower() for _, new in rw.replaced for x in _content(new)}  # a slot's words as rendered ("years old")
    topic = [w for w in _content(rw.text) if w.lower() not in FRAME_WORDS and not ANAPHORA.fullmatch(w)
             and w.lower() not in {x.lower() for x in _content(rest)} and w.lower() not in added
             and not re.fullmatch(r"[\d.,/%<>=+-]+|\d+[a-z]{1,2}", w, re.IGNORECASE)]  # "150", "5y": slots
    frame = _tidy(rest).rstrip("?. ")
    return Resolution(_question(f"{frame} ({', '.join(dict.fromkeys(topic))})" if topic else frame), "frame", [at],
                      rw.replaced)


def _opening(text: str) -> list[str]:
    """The words of ``text`` (lower case, commas and question marks stripped) after a leading "and", "so", "ok",
    "okay" or "but"."""
    words = [w.strip(",?") for w in text.lower().split()]
    while words and words[0] in ("and", "so", "ok", "okay", "but"):
        words = words[1:]
    return words


def asks_alternative(follow_up: str) -> bool:
    """Does ``follow_up`` open with "what about", "what if" or "how about" (after "and", "so", "ok" or "but")? Such
    a follow-up after a slot change ("and if she's pregnant?") offers another case in its place ("what about with
    CKD?"), not one more change on top of it (the conversation set's writers read them so: "healthy 35F with CAP -
    abx?", "and if she had COPD and diabetes?", "what if she's 20 wks pregnant?" asks of pregnancy, without the
    COPD)."""
    return " ".join(_opening(follow_up)[:2]) in ("what about", "what if", "how about")


def _supposes(question: str) -> bool:
    """Does ``question`` (as typed) suppose a case: "and if ...", "if ...", "what if ...", "what about ..."?"""
    words = _opening(question)
    return bool(words) and (words[0] == "if" or asks_alternative(question))


def _another_state(rest: str, before: str, last: str) -> bool:
    """Does a follow-up (``rest``, less its opening) name a patient's state, no drug and no number but a
    population's ("20 wks pregnant"), after a turn that added a state and no number (``last``, the standalone form
    of the turn after ``before``)? Then it offers another case ("what about with CKD?" after "and if she's
    pregnant?"). A drug ("what about dabigatran?") or a value ("what about CrCl 20?") changes the case in force,
    and a state after a changed value ("and if CrCl 12?", then "what about on dialysis?") keeps the value."""
    from clinqa.question.terms import drug_words

    added = set(_content(last.lower())) - set(_content(before.lower()))
    words = frozenset(w.lower() for w in _content(rest))
    return (bool(words) and (not BARE_NUMBER.search(rest) or bool(_population_words(rest)))
            and not drug_words(words) and not any(BARE_NUMBER.search(w) for w in added))


def resolve(follow_up: str, earlier: list[str], similar: Callable[[str, str], float] | None = None,
            topic_terms: Callable[[str], list[str]] | None = None, min_similarity: float = 0.5,
            kinds: list[str] | None = None, typed: list[str] | None = None) -> Resolution:
    """The standalone form of ``follow_up`` after the turns whose standalone forms are ``earlier`` (oldest
    first); see the module docstring. ``similar(a, b)``: how alike two terms are (0-1; None: only an exact
    class match counts, so a new drug is added, not swapped); ``topic_terms(text)``: the words of ``text``
    that name a topic (None: its content words less :data:`FRAME_WORDS`); ``min_similarity``: the least
    similarity at which a new term replaces an earlier one. The slot steps run in order on the earlier
    question: :func:`_named_values`, :func:`_age_and_population`, :func:`_qualifiers`, :func:`_topics`; then
    :func:`_slot_or_frame`. ``kinds`` and ``typed``: how each earlier turn was read (``first``, ``switch``, ``slot``,
    ``frame``) and what was typed (None: unknown): a follow-up that offers another case (:func:`asks_alternative`,
    :func:`_another_state`) after a follow-up that supposed one ("and if she's pregnant?", "and if she had COPD?") is
    read against the turn before that one. Pure; never raises for any strings."""
    if not earlier:
        return Resolution(follow_up, "first")
    if (m := TOPIC_SWITCH.match(follow_up)) is not None:
        return Resolution(follow_up[m.end():].strip() or follow_up, "switch")
    if not leans_back(follow_up):
        return Resolution(follow_up, "switch")
    rest = CONNECTIVE.sub("", follow_up).strip()
    at = len(earlier) - 1
    if (kinds is not None and typed is not None and len(kinds) == len(typed) == len(earlier) >= 2
            and kinds[-1] in ("slot", "frame") and _supposes(typed[-1]) and asks_alternative(follow_up)
            and _another_state(rest, earlier[-2], earlier[-1])):
        at -= 1  # another case in place of the last one's, not on top of it
    rw = _Rewrite(earlier[at])
    _named_values(rw, rest)
    _age_and_population(rw, rest)
    _qualifiers(rw, rest)
    terms = topic_terms or (lambda t: [w for w in _content(t) if w.lower() not in FRAME_WORDS])
    _topics(rw, rest, terms, similar, min_similarity)
    return _slot_or_frame(rw, rest, at)
