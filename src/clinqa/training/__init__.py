"""Training clinqa's own reranker and domain-adapted encoder from question-answer pairs
(:mod:`clinqa.training.data` mines the examples, :mod:`clinqa.training.trainer` trains)."""
