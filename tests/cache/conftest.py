"""Fixtures for the cache tests: a real ``redis-server`` on a free port (skipped only when the
binary is not installed) and a factory for private servers that a test may kill."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis_helpers import NO_REDIS, REDIS_SERVER, RedisServer, start_redis


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the session, killed at teardown."""
    if REDIS_SERVER is None:
        pytest.skip(NO_REDIS)
    server = start_redis(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_factory(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """Start private redis-servers (for tests that kill them); all are killed at teardown."""
    if REDIS_SERVER is None:
        pytest.skip(NO_REDIS)
    started: list[RedisServer] = []

    def make(port: int | None = None) -> RedisServer:
        s = start_redis(tmp_path / f"redis-{len(started)}", port)
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()
