"""One small thread pool for the independent store lookups of a query (dense and BM25 search,
the coverage check's term counts). LanceDB and NumPy release the GIL while they work, so on 2
cores the lookups overlap instead of queueing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="clinqa-lookup")


def run_all(calls: Sequence[Callable[[], T]]) -> list[T]:
    """Run ``calls`` concurrently; their results in order. An exception in any call is raised here."""
    if len(calls) <= 1:
        return [c() for c in calls]
    futures = [_POOL.submit(c) for c in calls]
    return [f.result() for f in futures]
