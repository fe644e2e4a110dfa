"""Register a package with its ``__init__`` not yet run (a start-up saving, not a feature).

Some packages' ``__init__`` imports far more than clinqa uses: LanceDB's REST client builds ~370 pydantic
validators (:mod:`clinqa.store._lance_import`), snowballstemmer imports the stemmers of 30-odd languages
for the one English stemmer (:mod:`clinqa.text.stems`). :func:`defer_init` puts the package into
``sys.modules`` as a module whose ``__init__`` has not run, so its submodules import alone; the first
access to any other attribute of the package (PEP 562 module ``__getattr__``) runs the real ``__init__`` in
that same module object, so nothing is lost, only deferred. A leaf: it imports nothing of clinqa.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any


def defer_init(package: str) -> bool:
    """Register ``package`` so its ``__init__`` runs on first attribute access; returns True when done,
    False when it is already imported, not installed or not a package (then nothing changes). Call before
    anything imports it."""
    if package in sys.modules:
        return False
    spec = importlib.util.find_spec(package)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)
    loader, state, lock = spec.loader, {"loaded": False}, threading.RLock()

    def __getattr__(name: str) -> Any:  # PEP 562: only called for names not (yet) in the module
        if name.startswith("__"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # one thread runs the real __init__ (in this same module object); another thread asking meanwhile waits
        # for it instead of finding the module half made (the store's lookups run in a thread pool: two of them
        # stemming a query first raised "module 'snowballstemmer' has no attribute 'stemmer'"); the thread
        # running it may ask again from inside (the RLock), and then finds only what is made so far
        with lock:
            if not state["loaded"]:
                state["loaded"] = True
                loader.exec_module(module)
        if name in module.__dict__:
            return module.__dict__[name]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[package] = module
    return True
