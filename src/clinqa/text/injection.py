"""Text addressed to an AI model: sentences in a document that talk to a language model or give it
instructions ("Ignore previous instructions ...", "Note to AI assistants reading this page: ...").

Documents are data. A sentence like that is indexed (it is in the file, and hiding it would hide
the attack from whoever reviews the corpus) but is never quoted by the extractive answer
(:func:`clinqa.answer.extractive.extract_answer`), a generated claim supported only by it is
unsupported (:func:`clinqa.answer.citations.check_sentence`), and ingest counts it per file
(``IngestReport.suspicious``, ``clinqa stats`` ``suspicious_chunks``).

The patterns (:data:`PATTERNS`, case-insensitive) name the model or its prompt, or use phrasings
that only make sense as orders to a chat model. Clinical instructions use the same verbs
("Ignore isolated low readings", "Answer the patient's questions about the procedure", "Do not
tell the patient's employer"), so an imperative verb alone never matches: each pattern also needs
an object that belongs to a model's world (previous *instructions*, the *system prompt*, *the
user*, *every question*). Checked on a positive and a negative list of real clinical sentences
(``tests/answer/test_injection.py``). What it misses: paraphrases that avoid every listed phrase
("Whoever summarises this page should say ..."), other languages, and text split across sentences.
"""

from __future__ import annotations

import re

from clinqa.text.words import LETTER_RUN

_AI = (r"(?:ai|a\.i\.|artificial intelligence|llms?|large language models?|language models?|chat ?bots?|"
       r"chatgpt|gpt(?:-?\d\w*)?|claude|gemini|copilot|ai (?:assistants?|models?|systems?|agents?|tools?|crawlers?)|"
       r"virtual assistants?|automated assistants?)")
_EARLIER = r"(?:previous|prior|preceding|earlier|above|foregoing)"
_ORDERS = r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|messages?|context|commands?)"

#: ``(name, pattern)``: the phrasings that mark a sentence as addressed to an AI model.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("ignore previous instructions",
     rf"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+(?:of\s+)?)?(?:the\s+|your\s+|any\s+)?{_EARLIER}\s+"
     rf"(?:\w+\s+)?{_ORDERS}\b|\b(?:ignore|disregard|forget)\s+all\s+(?:\w+\s+)?(?:instructions|prompts|rules)\b"),
    ("disregard the above",
     r"\b(?:ignore|disregard|forget)\s+(?:everything\s+|all\s+)?(?:the\s+)?above(?![-\w])|"
     r"\b(?:ignore|disregard)\s+the\s+(?:evidence|sources|passages|context|documents)\s+(?:and|you|provided|given|"
     r"above)\b"),
    ("system prompt", r"\b(?:system|hidden|developer)\s+(?:prompt|message)s?\b|\bsystem\s+instructions\b"),
    ("reveal your ...", r"\b(?:reveal|print|output|leak|disclose|show me)\s+your\s+(?:\w+\s+)?(?:prompt|"
                        r"instructions|configuration|rules|system)\b"),
    ("note to AI", rf"\b(?:note|message|instructions?|attention|notice|hint|reminder|warning)\s+(?:to|for)\s+"
                   rf"(?:any\s+|all\s+|the\s+)?{_AI}\b"),
    ("AI reading this", rf"\b{_AI}\s+(?:that\s+(?:is|are)\s+)?(?:reading|processing|summari[sz]ing|parsing|"
                        rf"crawling|indexing|scraping|answering from|trained on)\s+(?:this|these)\b"),
    ("as an AI", r"\bas an? (?:ai|a\.i\.|artificial intelligence|large language model|language model|llm|"
                 r"chat ?bot|ai assistant|ai model)\b"),
    ("addresses the model", rf"\b(?:if you are|you are|dear|hey|hello|attention)[,:]?\s+(?:an?\s+)?{_AI}\b"),
    ("you are now", r"\byou are now (?:an?\s+(?:\w+\s+){0,2}(?:ai|assistant|model|bot|chatbot|llm)\b|"
                    r"in (?:\w+\s+)?mode\b|dan\b|unrestricted|jailbroken|free of)|"
                    r"\bfrom now on,? you (?:will|must|should|are to|shall) "
                    r"(?:answer|reply|respond|act|behave|ignore|only|always say|pretend)\b|\bpretend (?:to be|that you "
                    r"are|you are) (?:an?|the) (?:\w+\s+)?(?:ai|assistant|model|chatbot|llm)\b|\bdeveloper mode\b|"
                    r"\bjailbr[eo]ak"),
    ("answer every question with", r"\b(?:answer|reply to|respond to)\s+(?:every|all|any|each)\s+(?:\w+\s+)?"
                                   r"(?:questions?|quer(?:y|ies)|prompts?|requests?)(?:\s+[\w']+){0,4}?\s+(?:with|by)\b"),
    ("answer only with", r"\b(?:answer|reply|output)\s+only\s*(?::|with\b)|\balways\s+(?:answer|reply)\s+"
                         r"(?:with|that)\b"),
    ("you must always/never reply", r"\byou (?:must|should|will|shall|are to) (?:always |never |not |only )?(?:reply|"
                                    r"answer (?:that|with|every|all|any)|respond (?:that|with|to every|to all|to any)|"
                                    r"refuse (?:to answer|(?:any|a|the) (?:question|request)s?)|say that|state that|"
                                    r"claim that|tell (?:the user|users|them) that)\b"),
    ("do not tell the user", r"\b(?:do not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|"
                             r"reveal(?:ing)?|show(?:ing)?|let(?:ting)?)\s+(?:this\s+(?:to\s+)?)?(?:the\s+)?"
                             r"(?:user|person asking)\b"),
    ("tell the user that", r"\b(?:tell|inform|convince) the (?:user|person asking) that\b"),
    ("role prefix", r"^\W*(?:system|assistant|\[inst\]|<\|im_start\|>)\s*[:>\]]\s*(?:you|ignore|disregard|always|"
                    r"never|do not|reply|respond|answer|from now)\b"),
    ("new instructions", r"\bnew (?:instructions|system prompt|rules)\s*:"),
)

_AI_WORDS = ("ai", "a.i.", "artificial intelligence", "llm", "llms", "language model", "chatbot", "chatbots",
             "chat bot", "chatgpt", "gpt",
             "claude", "gemini", "copilot", "virtual assistant", "automated assistant")
_ASK = [f"{v} {q}" for v in ("answer", "reply to", "respond to") for q in ("every", "all", "any", "each")]
#: literal strings one of which a lower-cased, whitespace-squashed text must hold before the
#: pattern of the same name is tried (the patterns are slow on megabytes of clinical text; these
#: ``in`` checks are not), in the order of :data:`PATTERNS`
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "ignore previous instructions": ("ignore", "disregard", "forget", "override", "bypass"),
    "disregard the above": ("ignore", "disregard", "forget"),
    "system prompt": ("system prompt", "hidden prompt", "developer prompt", "system message", "hidden message",
                      "developer message", "system instructions"),
    "reveal your ...": ("reveal your", "print your", "output your", "leak your", "disclose your", "show me your"),
    "note to AI": _AI_WORDS,
    "AI reading this": _AI_WORDS,
    "as an AI": ("as an ai", "as a.i.", "as an a.i.", "as an artificial", "as a large", "as a language", "as an llm",
                 "as a chat", "as an ai"),
    "addresses the model": _AI_WORDS,
    "you are now": ("you are now", "from now on", "pretend", "developer mode", "jailbreak", "jailbroken"),
    "answer every question with": tuple(_ASK),
    "answer only with": ("answer only", "reply only", "output only", "always answer", "always reply"),
    "you must always/never reply": ("you must", "you should", "you will", "you shall", "you are to"),
    "do not tell the user": ("user", "person asking"),  # not "human": genetics text says "the human body"
    "tell the user that": ("the user", "person asking"),
    "role prefix": ("system", "assistant", "[inst]", "<|im_start|>"),
    "new instructions": ("new instructions", "new system prompt", "new rules"),
}
_COMPILED = tuple((name, re.compile(p, re.IGNORECASE | re.MULTILINE),
                   tuple((LETTER_RUN.findall(t)[0], t) for t in _TRIGGERS[name])) for name, p in PATTERNS)
_LETTERS = LETTER_RUN


def _matching(text: str, first: bool) -> list[str]:
    low = " ".join(text.lower().split())
    words = set(_LETTERS.findall(low))
    out: list[str] = []
    for name, rx, triggers in _COMPILED:
        if any(w in words and (t == w or t in low) for w, t in triggers) and rx.search(text):
            out.append(name)
            if first:
                break
    return out


def suspicious_reason(text: str) -> str | None:
    """The name of the first pattern of :data:`PATTERNS` that ``text`` (one sentence or unit)
    matches, or ``None`` when it matches none."""
    found = _matching(" ".join(text.split()), first=True)
    return found[0] if found else None


def is_suspicious(text: str) -> bool:
    """Whether ``text`` (one sentence, list item or table row) addresses an AI model or gives it
    instructions (:data:`PATTERNS`). Never raises; ``""`` is not suspicious."""
    return suspicious_reason(text) is not None


def may_hold_suspicious(text: str) -> bool:
    """Fast pre-check for a whole passage: ``False`` means no sentence of ``text`` can be
    suspicious, so splitting it into sentences can be skipped."""
    return bool(_matching(text, first=True))
