"""Named stop lists: the words each word rule (:mod:`clinqa.text.words`) drops before counting or
matching. Three lists for three purposes; they differ on purpose and are kept apart (merging them
would move BM25 scores, key terms or citation verdicts).

* :data:`LUCENE_STOP_WORDS` (33 words + "s", "t"): Lucene's ``EnglishAnalyzer`` list, the stop words of every
  BM25 clinqa computes itself (:func:`clinqa.store.sparse.index_terms` for Qdrant,
  :func:`~clinqa.store.sparse.stemmed_terms` for LanceDB's per-scope BM25); "s" and "t" are what "'s" and "n't"
  leave behind once apostrophes split words. LanceDB's own full-text index drops more (116 Snowball stems:
  "what", "should", "my", "have" ...); taking its list was measured and not shipped (docs/benchmarks.md,
  "LanceDB's stop words in the per-scope BM25").
* :data:`QUESTION_STOP_WORDS`: function words and question scaffolding ("tell", "want", "patient"),
  then the time words that :mod:`clinqa.question.time` reads ("latest", "years", "ago"):
  what is left of a question are its content words (coverage, key terms, unit overlap).
* :data:`CLAIM_STOP_WORDS`: function words plus the words a generated sentence uses to talk about
  its evidence ("according", "passage", "states"): what is left must be found in the cited text.
"""

from __future__ import annotations

#: Lucene's EnglishAnalyzer stop words plus the fragments "s" and "t" (LanceDB's own index drops more: see above)
LUCENE_STOP_WORDS = frozenset("""
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with s t
""".split())

#: function words and question scaffolding; content words are what is left
QUESTION_STOP_WORDS = frozenset("""
a about above after again against all also am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don down
during each else ever few for from further get gets getting give given go had hadn has hasn have
haven having he her here hers herself him himself his how however i if in into is isn it its
itself just let lets like made make many may me might more most much must mustn my myself need
needs no nor not now of off often on once one only or other ought our ours ourselves out over
own per please same shall shan she should shouldn so some such take than that the their theirs
them themselves then there these they this those through thus to too under until up upon us use
used using very via was wasn we well were weren what whats when where whether which while who
whom whose why will with within without won would wouldn yes yet you your yours yourself
yourselves tell know want say said says anyone someone something thing things way ways long
since latest last past recent recently current currently newest today year years month months
week weeks day days decade decades ago two three four five six seven eight nine ten patient
patients patient's happen happens happened occur occurs occurred january february march april june
july august september october november december
""".split())  # the second block: time words (read by clinqa.question.time), "patient" and what a question
# about a time asks of it ("What happened on 2022-04-18?")

#: function words and evidence-talk words of a generated sentence (claim content words are what is left)
CLAIM_STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has
have having he her here hers herself him himself his how however i if in into is it its itself just may
me might more most must my myself no nor not now of off on once only or other our ours ourselves out
over own same shall she should so some such than that the their theirs them themselves then there these
they this those through to too under until up upon us very was we were what when where which while who
whom why will with would you your yours yourself yourselves according evidence passage passages source
sources states stated says said reported report reports
""".split())
