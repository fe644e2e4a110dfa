"""The evidence layer: what the retrieved passages say about the question, read once, before anything is decided.

Between :mod:`clinqa.question` (the question, read once) and :mod:`clinqa.decision` (the step table that weighs
this evidence); :mod:`clinqa.answer` selects and renders the quote. Nothing here decides whether to answer and
nothing here renders an answer: it imports neither package (``tests/text/test_import_graph.py``).

- :mod:`~clinqa.evidence.reading`: one reading per retrieved passage (its quotable units, its key-term index);
- :mod:`~clinqa.evidence.bands`: the value bands of table rows and headings ("eGFR 30-59") and whether a row
  holds a quantity, and which row or item of a table or list gives the band holding a value asked;
- :mod:`~clinqa.evidence.passages`: the choice of passages an answer may quote (those that fit the question's
  qualifiers, bands and conditions; a later heading, band section, sibling section or neighbouring chunk);
- :mod:`~clinqa.evidence.coverage`: how often the corpus has a question's words (unknown words);
- :mod:`~clinqa.evidence.rules`: rules as data (a named, ordered table of small rules, first decider wins), the
  form of the mention rules and of the decision's decisiveness rules.
"""
