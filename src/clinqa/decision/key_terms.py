"""Steps ``key_terms``, ``apart`` and ``key_term_warning`` (phase ``retrieval``): a decisive key term that no
quotable passage mentions refuses, and so do decisive terms only in separate passages; a missing non-decisive
term warns. When a language model writes the answer (``Case.model_writes``: ``--llm``), ``key_terms`` and
``apart`` pass instead: the model reads the passages with :func:`missing_notes` ("the passages do not mention
'Eliquis'; equivalents searched: none") and decides itself, because a missing spelling is often the same thing
under another name (a brand for its INN, an abbreviation spelled out) that a model knows and the word rules do
not; step ``unjudged_key_terms`` (phase ``generate``) restores their refusal when the model gives no usable
answer. The key-term test itself is :mod:`clinqa.decision.answerability`; the sentences are here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from clinqa.decision.verdict import Case, Verdict

if TYPE_CHECKING:
    from clinqa.decision.answerability import Answerability
    from clinqa.evidence.gather import Gathered


def _key_refusal(v: Verdict, reason: str, step: str) -> Verdict:
    """A final refusal for ``reason``; the gate record's ``kind`` gains ``+key_terms`` when it had answered."""
    assert v.gate is not None
    g = replace(v.gate, answer=False, reason=reason, kind=v.gate.kind + ("+key_terms" if v.gate.answer else ""))
    return Verdict(False, reason, g, step, final=True, warnings=v.warnings)


def key_terms(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) when a decisive key term of the question is in no quotable passage
    (``answer.key_terms: refuse``), with :func:`clinqa.decision.key_terms.missing_reason`'s sentence, or,
    when every missing one is named only as something to prevent, that sentence. Passes when a language model
    writes the answer (``ev.model_writes``) and the verdict so far answers: the model is told what is missing
    (:func:`missing_notes`) and decides; its refusal is step ``model_refused``. (When the gate already refused,
    no model is asked and nothing later answers, so the sentence naming the term is the reason given.)"""
    check = ev.check
    if check is None or not check.decisive or ev.key_terms != "refuse" or (ev.model_writes and v.answer):
        return None
    names = check.decisive_names()
    reason = missing_reason(names, check.in_corpus, ev.scope)
    if all(t.text in check.prevented for t in check.decisive):
        reason = f"The passages found name {join_words(names, 'and')} only as something to prevent, not to treat."
    return _key_refusal(v, reason, "key_terms")


def apart(ev: Case, v: Verdict) -> Verdict | None:
    """Refuse (final) a treatment question whose decisive terms the passages name only apart
    (``check.apart``; ``answer.key_terms: refuse``). Passes when a language model writes the answer
    (``ev.model_writes``) and the verdict so far answers, as :func:`key_terms` does."""
    check = ev.check
    if check is None or not check.apart or ev.key_terms != "refuse" or (ev.model_writes and v.answer):
        return None
    return _key_refusal(v, f"The passages found do not mention {join_words(check.apart, 'and')} together.",
                        "apart")


def unjudged_key_terms(ev: Case, v: Verdict) -> Verdict | None:
    """Phase ``generate``: when the language model that was to decide on a missing decisive term gave no usable
    answer (``ev.model_failed``: unreachable, or none of its sentences supported), the extractive answer would
    stand in for it unjudged, so :func:`key_terms` and :func:`apart` decide as without a model (refuse,
    final, with their sentences)."""
    if not ev.model_failed or not ev.model_writes:
        return None
    rules = replace(ev, model_writes=False)
    return key_terms(rules, v) or apart(rules, v)


#: at most this many equivalents are listed in one missing-term note (then "and N more")
NOTE_EQUIVALENTS = 12


def missing_notes(check: Answerability | None) -> list[str]:
    """What a language model is told besides the passages when :func:`key_terms` or :func:`apart` would have
    refused (``check``: the key-term test of the passages it is shown; None or nothing decisive: ``[]``). One
    note per decisive missing term, "the passages do not mention 'Eliquis'; equivalents searched: none" (the
    term as typed; the forms of :attr:`Answerability.searched`, at most :data:`NOTE_EQUIVALENTS`), and for
    terms named only apart, "the passages mention 'a' and 'b' only in separate passages". Plain sentences of
    one line: the prompt shows them as data (:func:`clinqa.answer.prompt.build_messages`)."""
    from clinqa.question.terms import shown_name

    if check is None:
        return []
    notes = []
    for t in check.decisive:
        forms = check.searched.get(t.text, [])
        listed = ", ".join(forms[:NOTE_EQUIVALENTS]) or "none"
        if len(forms) > NOTE_EQUIVALENTS:
            listed += f" and {len(forms) - NOTE_EQUIVALENTS} more"
        notes.append(f"the passages do not mention '{shown_name(t)}'; equivalents searched: {listed}")
    if check.apart:
        named = join_words([f"'{a}'" for a in check.apart], "and")
        notes.append(f"the passages mention {named} only in separate passages")
    return [" ".join(n.split()) for n in notes]


def model_notes(ev: Case, found: Gathered, shown: int) -> list[str]:
    """The missing-term notes the language model is given with its passages (:func:`missing_notes`), when
    :func:`key_terms` or :func:`apart` would have refused (``ev.check`` has a decisive missing term, or decisive
    terms only apart, with ``answer.key_terms: refuse``) and passed because the model decides instead: the
    key-term test (``found.test``) is run again on the passages the model is shown (the first ``shown`` hits,
    ``generation.evidence_chunks``, which are not the quotable context the rules read), so each note is true of
    what the model reads. ``[]`` otherwise."""
    check = ev.check
    if check is None or not (check.decisive or check.apart) or ev.key_terms != "refuse":
        return []
    return missing_notes(found.test.on(found.result.hits[:shown]))


def key_term_warning(ev: Case, v: Verdict) -> Verdict | None:
    """An answer whose quotable passages miss key terms (``answer.key_terms`` not ``ignore``) is given a
    warning naming them; the verdict stands. A word the corpus never mentions at all is left out: the coverage
    warning already names it ("the corpus never mentions 'jab'"), and one warning per word is enough; so is a
    quantity of the question ("82 kg"), the patient's value, which a passage states only as a band."""
    check = ev.check
    if check is None or not check.missing or ev.key_terms == "ignore" or not v.answer:
        return None
    told = {w.lower() for w in ev.missing} if ev.unknown_terms == "warn" else set()
    # a value the patient has ("82 kg", "INR 4.8") is no term a passage states: it chose the band, if any
    shown = [w for t, w in zip(check.missing, check.missing_names(), strict=True)
             if t.kind != "quantity" and w.lower() not in told]
    if not shown:
        return None
    names = ", ".join(f"'{w}'" for w in shown)
    return replace(v, warnings=(*v.warnings, f"the passages found do not mention {names}: check that they answer "
                                             "the question"))


def join_words(words: Sequence[str], conjunction: str = "or") -> str:
    """``words`` as an English list: "a", "a or b", "a, b or c" (``conjunction`` instead of "or")."""
    ws = list(words)
    if len(ws) <= 1:
        return "".join(ws)
    return ", ".join(ws[:-1]) + f" {conjunction} " + ws[-1]


def missing_reason(missing: Sequence[str], in_corpus: dict[str, bool], scope: str) -> str:
    """The refusal sentence for key terms no quotable passage mentions (see module docstring).
    ``scope``: what a patient, year, source or document filter lets the question see
    (:meth:`clinqa.store.filters.Filters.scope`: "patient P1's notes", "the documents of 2021"), which the sentence
    names; ``""`` when none applied."""
    absent = [t for t in missing if not in_corpus.get(t.lower(), False)]  # keys are lower case, names as typed
    if absent and not scope:
        return f"The documents do not mention {join_words(absent)}."
    if scope:
        return f"{scope[0].upper()}{scope[1:]} do not mention {join_words(missing)}."
    return f"The passages found do not mention {join_words(missing)}."
