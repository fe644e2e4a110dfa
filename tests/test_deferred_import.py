"""A package registered by clinqa.deferred_import.defer_init runs its __init__ on first attribute access only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clinqa.deferred_import import defer_init


def test_init_runs_on_first_attribute_access(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "clinqa_deferred_probe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import clinqa_deferred_probe.heavy as _h\nRAN = True\n")
    (pkg / "heavy.py").write_text("LOADED = True\n")
    (pkg / "light.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("clinqa_deferred_probe", "clinqa_deferred_probe.heavy", "clinqa_deferred_probe.light"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert defer_init("clinqa_deferred_probe")
    assert not defer_init("clinqa_deferred_probe")  # already registered: nothing changes
    from clinqa_deferred_probe.light import VALUE

    assert VALUE == 7 and "clinqa_deferred_probe.heavy" not in sys.modules  # the submodule alone
    assert sys.modules["clinqa_deferred_probe"].RAN is True  # the real __init__, run now
    assert "clinqa_deferred_probe.heavy" in sys.modules
    with pytest.raises(AttributeError):
        _ = sys.modules["clinqa_deferred_probe"].missing
    for name in ("clinqa_deferred_probe", "clinqa_deferred_probe.heavy", "clinqa_deferred_probe.light"):
        sys.modules.pop(name, None)


def test_missing_package_is_left_alone() -> None:
    assert not defer_init("clinqa_no_such_package_here")
    assert "clinqa_no_such_package_here" not in sys.modules


def test_threads_asking_while_the_init_runs_wait_for_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's lookups run in a thread pool: two of them asking the deferred package for a name at once must
    both get it. The probe's __init__ sleeps, so the second thread asks while the first is running it (before the
    fix it found the module half made: "module 'clinqa_deferred_slow' has no attribute 'VALUE'")."""
    import threading

    pkg = tmp_path / "clinqa_deferred_slow"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import time\ntime.sleep(0.3)\nVALUE = 11\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "clinqa_deferred_slow", raising=False)
    assert defer_init("clinqa_deferred_slow")
    module = sys.modules["clinqa_deferred_slow"]
    got: list[object] = []

    def ask() -> None:
        try:
            got.append(module.VALUE)
        except AttributeError as e:
            got.append(e)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [11, 11, 11, 11]
    sys.modules.pop("clinqa_deferred_slow", None)
