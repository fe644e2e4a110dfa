"""The quick exit of a command of ``clinqa.cli.QUICK_EXIT`` (:func:`clinqa.cli.common.exit_now`): the exit
code, the output, non-daemon threads and ``atexit`` handlers are those of ``sys.exit``; only the
interpreter's final clean-up is skipped."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _run(body: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(body)], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("code", [0, 3, None])
def test_exit_code_output_threads_and_atexit_as_sys_exit(code):
    r = _run(f"""
        import atexit, threading, time
        from clinqa.cli.common import exit_now

        def late():
            time.sleep(0.2)
            print("thread done", flush=False)

        atexit.register(lambda: print("atexit ran", end=""))
        threading.Thread(target=late).start()  # a non-daemon thread: joined before the exit
        print("answer", end=" ")
        exit_now({code!r})
        """)
    assert r.returncode == (code or 0)
    assert r.stdout == "answer thread done\natexit ran"


def test_a_message_exits_as_usual():
    r = _run("""
        from clinqa.cli.common import exit_now
        exit_now("error: no store")
        """)
    assert r.returncode == 1
    assert r.stderr.strip() == "error: no store"


def test_ask_is_a_quick_exit_command():
    from clinqa.cli import QUICK_EXIT

    assert set(QUICK_EXIT) == {"ask"}
