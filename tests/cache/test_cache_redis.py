"""RedisCache against a real redis-server (started by tests/cache/conftest.py on a free port)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np
import pytest
import redis
from redis_helpers import RedisServer, free_port  # tests/cache/redis_helpers.py

import clinqa.cache.redis as rc
from clinqa.cache import CacheUnavailable, build_cache
from clinqa.cache.redis import RedisCache
from clinqa.settings import CacheSettings, Settings


@pytest.fixture
def url(redis_server: RedisServer) -> str:
    """The session server, emptied for this test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.close()
    return redis_server.url


def raw(url: str) -> redis.Redis:
    return redis.Redis.from_url(url)


def test_round_trip(url: str) -> None:
    c = RedisCache(url, 60)
    assert c.get_answer("k") is None and c.get_vector("k") is None
    c.put_answer("k", {"answer": "A [1].", "citations": [{"n": 1, "score": np.float32(0.25)}]})
    vec = np.linspace(-1, 1, 384)
    c.put_vector("k", vec)
    assert c.get_answer("k") == {"answer": "A [1].", "citations": [{"n": 1, "score": 0.25}]}
    v = c.get_vector("k")
    assert v is not None and v.dtype == np.float32 and v.shape == (384,)
    assert np.array_equal(v, vec.astype(np.float32))
    # keys carry the prefix; vectors are raw float32 bytes
    r = raw(url)
    assert sorted(r.keys("*")) == [b"clinqa:answer:k", b"clinqa:vector:k"]
    assert r.get("clinqa:vector:k") == vec.astype(np.float32).tobytes()
    s = c.stats()
    assert s["backend"] == "redis" and s["reachable"] is True
    assert (s["hits"], s["misses"]) == (2, 2)
    r.set("other:key", "kept")
    c.clear()
    assert c.get_answer("k") is None and r.keys("*") == [b"other:key"]  # only clinqa: keys are cleared


def test_ttl_is_set_and_expires(url: str) -> None:
    c = RedisCache(url, 100)
    c.put_answer("a", {"answer": "x"})
    c.put_vector("a", np.ones(4))
    r = raw(url)
    assert 0 < r.ttl("clinqa:answer:a") <= 100
    assert 0 < r.ttl("clinqa:vector:a") <= 100
    short = RedisCache(url, 1)
    short.put_answer("b", {"answer": "y"})
    assert short.get_answer("b") == {"answer": "y"}
    time.sleep(1.2)
    assert short.get_answer("b") is None


def test_two_workers_share_entries(url: str) -> None:
    w1, w2 = RedisCache(url, 60), RedisCache(url, 60)
    w1.put_answer("q", {"answer": "from worker 1"})
    w2.put_vector("v", np.full(3, 0.5))
    assert w2.get_answer("q") == {"answer": "from worker 1"}
    v = w1.get_vector("v")
    assert v is not None and np.array_equal(v, np.full(3, 0.5, dtype=np.float32))


def test_server_down_at_construction_names_the_url() -> None:
    down = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(CacheUnavailable, match=down.replace(".", r"\.")):
        RedisCache(down, 60)
    with pytest.raises(CacheUnavailable, match="not reachable"):
        build_cache(Settings(cache=CacheSettings(backend="redis", redis_url=down)))


def test_password_is_not_shown() -> None:
    with pytest.raises(CacheUnavailable) as err:
        RedisCache(f"redis://:s3cret@127.0.0.1:{free_port()}/0", 60)
    assert "s3cret" not in str(err.value) and ":***@127.0.0.1" in str(err.value)


def test_make_cache_redis(url: str, tmp_path) -> None:
    c = build_cache(Settings(data_dir=tmp_path, cache=CacheSettings(backend="redis", redis_url=url, ttl_s=30)))
    assert isinstance(c, RedisCache) and c.ttl_s == 30


def test_server_killed_midway_is_a_miss(redis_factory: Callable[..., RedisServer], caplog,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rc, "COOLDOWN_S", 0.0)  # retry the server on every call
    server = redis_factory()
    c = RedisCache(server.url, 60)
    c.put_answer("k", {"answer": "x"})
    assert c.get_answer("k") == {"answer": "x"}
    server.stop()
    caplog.set_level(logging.WARNING, logger="clinqa.cache.redis")
    t0 = time.perf_counter()
    assert c.get_answer("k") is None  # a miss, not an exception
    assert c.get_vector("k") is None
    c.put_answer("k2", {"answer": "y"})  # dropped
    c.put_vector("k2", np.ones(2))
    c.clear()
    assert time.perf_counter() - t0 < 5
    warnings = [r for r in caplog.records if r.name == "clinqa.cache.redis"]
    assert len(warnings) == 1 and server.url in warnings[0].getMessage()
    assert c.stats()["reachable"] is False
    # the server comes back on the same port: the cache is used again
    redis_factory(server.port)
    c.put_answer("k3", {"answer": "z"})
    assert c.get_answer("k3") == {"answer": "z"}
    assert c.stats()["reachable"] is True
