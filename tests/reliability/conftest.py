"""Reliability tests: a wall-clock limit, so a hang fails instead of stalling CI.

``@pytest.mark.time_limit(seconds)`` on a test (or ``pytestmark`` on a module) sets its limit;
unmarked tests have none. The limit is a ``SIGALRM`` timer that raises :class:`Hang`, a
``BaseException``: the loaders turn every ``Exception`` into a LoadError, and a hang must not
pass for a clean error.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest


class Hang(BaseException):
    """A test ran past its time limit."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "time_limit(seconds): fail the test with Hang after this many seconds")


@pytest.fixture(autouse=True)
def time_limit(request: pytest.FixtureRequest) -> Iterator[float | None]:
    """Fail a ``time_limit``-marked test with :class:`Hang` once it has run for its limit (main thread only)."""
    marker = request.node.get_closest_marker("time_limit")
    if marker is None:
        yield None
        return
    seconds = float(marker.args[0])

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"{request.node.nodeid} ran longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield seconds
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
