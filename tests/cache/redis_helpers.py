"""Start and stop real ``redis-server`` processes for the cache tests (no persistence, free port)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server")
NO_REDIS = "the redis-server binary is not installed (Debian: apt-get install redis-server)"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RedisServer:
    """A redis-server child process on ``port`` (no persistence)."""

    port: int
    proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        """Kill the server (SIGKILL: a crash, not a shutdown) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def start_redis(workdir: Path, port: int | None = None, timeout_s: float = 15.0) -> RedisServer:
    """Start ``redis-server`` on ``port`` (default: a free one) and wait until PING answers."""
    import redis

    assert REDIS_SERVER is not None
    port = port or free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(workdir), "--logfile", str(workdir / "redis.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )
    server = RedisServer(port, proc)
    deadline = time.monotonic() + timeout_s
    client = redis.Redis(port=port, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        while True:
            if proc.poll() is not None:
                log = (workdir / "redis.log").read_text() if (workdir / "redis.log").exists() else ""
                raise RuntimeError(f"redis-server exited with {proc.returncode}: {log[-2000:]}")
            try:
                if client.ping():
                    return server
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"redis-server on port {port} did not answer PING within {timeout_s} s")
            time.sleep(0.05)
    finally:
        client.close()
