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

from clinqa.deferred_import import defer_init

PACKAGE = "lance_namespace_urllib3_client"


def defer_rest_client() -> bool:
    """Register :data:`PACKAGE` so its ``__init__`` runs on first attribute access
    (:func:`clinqa.deferred_import.defer_init`); returns True when done, False when it is already imported or
    not installed (then nothing changes). Call before ``import lancedb``."""
    return defer_init(PACKAGE)


#: True when this import registered the package deferred (see :func:`defer_rest_client`)
DEFERRED = defer_rest_client()
