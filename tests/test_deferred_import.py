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
