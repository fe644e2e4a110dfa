"""Import LanceDB without building its REST client first (a start-up cost, not a feature).

``import lancedb`` imports ``lance_namespace``, which imports the model classes of the generated
REST client package ``lance_namespace_urllib3_client``; that package's ``__init__`` also imports
its nine API modules, whose ~370 ``@validate_call`` methods make pydantic build a validator each
at import time: about 60% of the CPU time of a cold ``clinqa ask`` (cProfile, lancedb 0.40,
lance-namespace-urllib3-client 0.13; ``bench/cold_start.py``). An embedded store never calls that
REST client. :func:`defer_rest_client` registers the package with its ``__init__`` not yet run,
so its ``models`` subpackage loads alone; the first access to any other attribute of the package
(``ApiClient``, ``TableApi``, ...: a remote namespace) runs the real ``__init__`` then, so nothing
is lost, only deferred. ``clinqa.store`` imports this module first, so it is done before any
``import lancedb`` of clinqa (:data:`DEFERRED` says whether it was).
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

PACKAGE = "lance_namespace_urllib3_client"


def defer_rest_client() -> bool:
    """Register :data:`PACKAGE` so its ``__init__`` runs on first attribute access; returns True when
    done, False when it is already imported or not installed (then nothing changes). Call before
    ``import lancedb``."""
    if PACKAGE in sys.modules:
        return False
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)
    state = {"loaded": False}

    def __getattr__(name: str) -> Any:  # PEP 562: only called for names not (yet) in the module
        if name.startswith("__") or state["loaded"]:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
        state["loaded"] = True
        spec.loader.exec_module(module)  # the real __init__, in this same module object
        return getattr(module, name)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[PACKAGE] = module
    return True


#: True when this import registered the package deferred (see :func:`defer_rest_client`)
DEFERRED = defer_rest_client()
