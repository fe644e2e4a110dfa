"""SQLiteCache: round trip, TTL, threads, two processes on one file."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from clinqa.cache import CacheUnavailable, SQLiteCache, build_cache
from clinqa.settings import CacheSettings, Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_round_trip(tmp_path: Path) -> None:
    c = SQLiteCache(tmp_path / "c.sqlite", 60)
    assert c.get_answer("k") is None and c.get_vector("k") is None
    ans = {"question": "q", "answer": "A [1].", "citations": [{"n": 1, "score": np.float32(0.5)}], "x": None}
    c.put_answer("k", ans)
    vec = np.arange(384, dtype=np.float64) / 7  # stored as float32
    c.put_vector("k", vec)  # same key, other kind: no clash
    got = c.get_answer("k")
    assert got == {"question": "q", "answer": "A [1].", "citations": [{"n": 1, "score": 0.5}], "x": None}
    v = c.get_vector("k")
    assert v is not None and v.dtype == np.float32 and v.shape == (384,)
    assert np.array_equal(v, vec.astype(np.float32))
    v[0] = 99  # a writable copy
    c.put_answer("k", {"answer": "B"})  # overwrite
    assert c.get_answer("k") == {"answer": "B"}
    s = c.stats()
    assert s["entries"] == 2 and s["backend"] == "sqlite"
    assert (s["answer_hits"], s["answer_misses"], s["vector_hits"], s["vector_misses"]) == (2, 1, 1, 1)
    assert (s["hits"], s["misses"]) == (3, 2)
    with pytest.raises(ValueError, match="shape"):
        c.put_vector("k2", np.zeros((2, 3)))
    c.clear()
    assert c.get_answer("k") is None and c.get_vector("k") is None and c.stats()["entries"] == 0


def test_ttl_expiry_and_purge(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "c.sqlite"
    c = SQLiteCache(path, 10, clock=clock)
    c.put_answer("a", {"answer": "x"})
    c.put_vector("a", np.ones(3))
    clock.now += 9.5
    assert c.get_answer("a") == {"answer": "x"} and c.get_vector("a") is not None
    c.put_answer("b", {"answer": "y"})  # written later: lives longer
    clock.now += 1.0
    assert c.get_answer("a") is None and c.get_vector("a") is None  # expired: ignored on read
    assert c.get_answer("b") == {"answer": "y"}
    assert c.stats()["entries"] == 1
    c.close()
    SQLiteCache(path, 10, clock=clock).close()  # opening purges expired rows
    import sqlite3

    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM answers").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


def test_ttl_real_clock(tmp_path: Path) -> None:
    import time

    c = SQLiteCache(tmp_path / "c.sqlite", 1)
    c.put_answer("a", {"answer": "x"})
    assert c.get_answer("a") is not None
    time.sleep(1.1)
    assert c.get_answer("a") is None


def test_threads_share_one_cache(tmp_path: Path) -> None:
    c = SQLiteCache(tmp_path / "c.sqlite", 60)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(50):
                c.put_answer(f"{t}-{i}", {"n": i})
                assert c.get_answer(f"{t}-{i}") == {"n": i}
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert c.stats()["entries"] == 200


CHILD = """
import sys, numpy as np
from pathlib import Path
from clinqa.cache import SQLiteCache
c = SQLiteCache(Path(sys.argv[1]), 60)
name = sys.argv[2]
for i in range(100):
    c.put_answer(f"{name}-{i}", {"by": name, "i": i})
c.put_vector(f"{name}-v", np.full(8, 2.5))
seen = c.get_answer("parent")
print("seen", seen["by"] if seen else None)
"""


def test_two_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    parent = SQLiteCache(path, 60)
    parent.put_answer("parent", {"by": "parent"})
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(path), name], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for name in ("w1", "w2")]
    for p in procs:  # both write at once: WAL + busy_timeout, no "database is locked"
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "seen parent" in out
    for name in ("w1", "w2"):
        assert parent.get_answer(f"{name}-99") == {"by": name, "i": 99}
        v = parent.get_vector(f"{name}-v")
        assert v is not None and np.array_equal(v, np.full(8, 2.5, dtype=np.float32))
    assert parent.stats()["entries"] == 1 + 2 * 101


def test_unopenable_file_is_cache_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(CacheUnavailable, match=r"file/c\.sqlite"):
        SQLiteCache(blocker / "c.sqlite", 60)


def test_make_cache(tmp_path: Path) -> None:
    assert build_cache(Settings(data_dir=tmp_path, cache=CacheSettings(backend="none"))) is None
    c = build_cache(Settings(data_dir=tmp_path / "d", cache=CacheSettings(ttl_s=5)))  # sqlite is the default
    assert isinstance(c, SQLiteCache)
    assert c.path == tmp_path / "d" / "cache.sqlite" and c.ttl_s == 5 and c.path.exists()
