"""Reading the question: the one place that parses what a user typed.

Every later stage takes what is read here instead of parsing the question again:

- :mod:`clinqa.question.repair`: spelling repaired against the corpus vocabulary, the time intent applied to
  the filters;
- :mod:`clinqa.question.time`: the time intent (year ranges, recency, dates) read from the text;
- :mod:`clinqa.question.profile`: :class:`~clinqa.question.profile.QuestionProfile`, what the question asks for
  (its key terms, qualifiers, populations, quantities, the kind of answer), read once per question.
"""
