"""Asking in a conversation (issue 40): a follow-up is read with the turn before it into a standalone question
(:func:`clinqa.question.followup.resolve`), that question is answered as any other (``Pipeline.ask``), and the
turn is kept (:class:`clinqa.logs.conversations.ConversationStore`). The CLI (``clinqa ask --conversation``,
``clinqa chat``) and the service (``POST /ask`` with ``conversation_id``) both go through :func:`ask_turn`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from clinqa.llm.base import LLMError, Message
from clinqa.logs.conversations import Conversation, ConversationStore
from clinqa.question.followup import Resolution, resolve, rewrite_problems
from clinqa.retrieval.synonyms import same_class

#: the instruction of the language model's rewrite (the "condense question" step of chat RAG)
CONDENSE = ("You rewrite a clinician's follow-up question as one standalone question for a search of clinical "
            "guidelines. Keep the earlier question's topic (drug, condition, score, procedure) and every value the "
            "follow-up gives; a value the follow-up gives replaces the earlier one of the same kind. If the "
            "follow-up starts a new topic, return it unchanged. Reply with the question only.")

if TYPE_CHECKING:
    import numpy as np

    from clinqa.answer.types import Answer
    from clinqa.embedding.base import Encoder
    from clinqa.pipeline import Pipeline
    from clinqa.retrieval.filters import Filters


def conversation_store(pipe: Pipeline) -> ConversationStore:
    """The conversations of ``pipe``'s data directory (``conversation.expire_days`` applied on open)."""
    s = pipe.settings.conversation
    return ConversationStore(pipe.data_dir / "conversations.sqlite", s.expire_days, s.max_turns)


@lru_cache(maxsize=4096)
def _term_vector(encoder: Encoder, term: str) -> np.ndarray:
    """``(dim,)`` float32 unit query vector of ``term``, kept per encoder for the life of the process (a term of one
    follow-up is compared again in the next ones)."""
    return encoder.encode_queries([term])[0]


def similarity(pipe: Pipeline) -> Callable[[str, str], float]:
    """How alike two terms are, for :func:`clinqa.question.followup.resolve`: 1 for two members of one drug class
    of the synonym table (:func:`clinqa.retrieval.synonyms.same_class`: "carvedilol", "bisoprolol"), else the
    cosine of the encoder's query vectors ("tenecteplase" and "alteplase": 0.67 with all-MiniLM-L6-v2; the
    vectors are cached per encoder across turns, :func:`_term_vector`). With ``answer.lexicon`` a brand or older
    drug name is read as its international name first (:mod:`clinqa.lexicon.drugs`: "Xarelto" is rivaroxaban, so
    "what about Xarelto?" replaces apixaban as a drug of its class)."""
    enc = pipe.encoder
    named = pipe.settings.answer.lexicon

    def inn(term: str) -> str:
        if not named:
            return term
        from clinqa.lexicon.drugs import drug_names

        names = drug_names().canonical(term)
        return names[0] if len(names) == 1 else term

    def similar(a: str, b: str) -> float:
        a, b = inn(a), inn(b)
        return 1.0 if same_class(a, b) else float(_term_vector(enc, a.lower()) @ _term_vector(enc, b.lower()))

    return similar


def resolve_turn(pipe: Pipeline, conv: Conversation, question: str) -> Resolution:
    """``question`` read with ``conv``'s earlier turns; ``drew_on`` as turn numbers (from 1). With a language
    model configured (``llm.backend``) and ``conversation.llm_rewrite``, a follow-up that leans on the turn
    before it is rewritten by the model (:data:`CONDENSE`) and the rewrite is checked the way the rules read the
    follow-up (:func:`clinqa.question.followup.rewrite_problems`): it stands (kind ``llm``) only when it keeps the
    earlier topic and the follow-up's numbers and drops the values the follow-up replaced; otherwise, or when the
    model fails, the rules' reading stands and :attr:`Resolution.notes` says why."""
    earlier = [t.standalone for t in conv.turns]
    res = resolve(question, earlier, similarity(pipe), min_similarity=pipe.settings.conversation.min_similarity,
                  kinds=[t.kind for t in conv.turns], typed=[t.question for t in conv.turns])
    base = earlier[res.drew_on[0]] if res.drew_on else ""  # the turn it was read against (another case: not the last)
    res.drew_on = [conv.turns[i].n for i in res.drew_on]
    if base and res.kind in ("slot", "frame") and pipe.settings.conversation.llm_rewrite and pipe.llm is not None:
        res = _condensed(pipe, question, base, res)
    return res


def _condensed(pipe: Pipeline, question: str, earlier: str, rules: Resolution) -> Resolution:
    """The model's rewrite of ``question`` after ``earlier`` when it passes the check, else ``rules`` with a note."""
    llm = pipe.llm
    assert llm is not None
    try:
        reply = llm.complete([Message("system", CONDENSE),
                              Message("user", f"Earlier question: {earlier}\nFollow-up: {question}\n"
                                              "Standalone question:")], max_tokens=96, temperature=0.0)
    except LLMError as exc:
        rules.notes.append(f"the language model could not rewrite the follow-up ({exc}); read by rules")
        return rules
    text = " ".join(reply.text.strip().strip('"').split())
    problems = rewrite_problems(text, question, earlier, rules)
    if problems:
        rules.notes.append(f"the language model's rewrite {text!r} was not used: it {'; '.join(problems)}")
        return rules
    return Resolution(text, "llm", list(rules.drew_on), list(rules.replaced))


def ask_turn(pipe: Pipeline, store: ConversationStore, conv: Conversation, question: str, filters: Filters,
             ask: Callable[[str], Answer] | None = None,
             log: Callable[[Answer], str | None] | None = None) -> tuple[Answer, str | None]:
    """Answer ``question`` as the next turn of ``conv``: resolved (:func:`resolve_turn`), answered by ``ask``
    (default ``pipe.ask(standalone, filters)``; the service passes its cached ask), annotated (``question`` as
    typed, ``standalone_question``, ``conversation_id``, ``conversation_turns``), logged by ``log`` (returns the
    query id) and kept in ``store``. Returns the answer and its query id. ``filters`` must carry ``conv``'s
    patient scope (the caller opened ``conv`` with it: :meth:`ConversationStore.open`)."""
    res = resolve_turn(pipe, conv, question)
    answer = (ask or (lambda q: pipe.ask(q, filters)))(res.standalone)
    answer.warnings = [*answer.warnings, *res.notes]
    answer.question = question
    answer.standalone_question = res.standalone
    answer.conversation_id = conv.conversation_id
    answer.conversation_turns = list(res.drew_on)
    query_id = log(answer) if log is not None else None
    store.add(conv, question, res.standalone, res.kind, list(res.drew_on), query_id, answer.refused)
    return answer, query_id
