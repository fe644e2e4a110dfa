"""Deciding whether to answer: the decision table and its steps, each in its own module with its patterns and
the sentence a refusal reads.

- :mod:`clinqa.decision.table`: the ordered table of named steps (:data:`~clinqa.decision.table.STEPS`), the
  :class:`~clinqa.decision.verdict.Case` they read and the :class:`~clinqa.decision.verdict.Verdict` they return,
  and :func:`~clinqa.decision.table.run`;
- the steps: :mod:`~clinqa.decision.no_note` (a patient question about a day with no note),
  :mod:`~clinqa.decision.gate` (the calibrated similarity threshold: :mod:`~clinqa.decision.threshold`;
  :mod:`~clinqa.decision.calibration` holds the thresholds), :mod:`~clinqa.decision.dated_note`,
  :mod:`~clinqa.decision.support`,
  :mod:`~clinqa.decision.key_terms` (a decisive key term no passage mentions: the key-term test is
  :mod:`~clinqa.decision.answerability`, the learned decisive-word classifier
  :mod:`~clinqa.decision.decisive_words`),
  :mod:`~clinqa.decision.answer_model`, :mod:`~clinqa.decision.quote` (nothing quotable, no amount quoted),
  :mod:`~clinqa.decision.model_refused`.

Nothing else in clinqa sets a refusal; :mod:`clinqa.answer.assemble` renders the final verdict. The question
the steps read was read once by :mod:`clinqa.question`; what the passages say of it (passage readings, bands,
unknown words) is read by :mod:`clinqa.evidence`, below this package.
"""
