"""``bench/code_metrics.py`` on hand-written sources: the module word tables of issue 48, counted by hand."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "code_metrics.py"

SOURCE = '''
__all__ = ["a", "b", "c"]                       # 1: three strings
PAIR = ("x", "y")                               # two items: no
WORDS = frozenset({"mg", "ml", "kg"})           # 2: frozenset of a set
SPLIT = frozenset("one two three four".split()) # 3: split words
LISTED = "a b c".split()                        # 4
NUMS = {"a": 1, "b": 2, "c": 3}                 # 3 string atoms of 6: no
NAMES: dict[str, str] = {"a": "x", "b": "y", "c": 2}  # 5: 5 string atoms of 6
MIXED = ("a", "b", 1, 2)                        # 2 of 4, not more than half: no
MOSTLY = ["a", "b", 1]                          # 6: 2 of 3
PATTERNS = (re.compile("a"), "b", "c")          # 7: 2 of 3 (a call is an atom, not a string)
NESTED = (("a", "b"), ("c", "d"), ("e", "f"))   # three tuples, no string atom: no
A = B = {"p", "q", "r"}                         # 8: one table, two names
LISTCALL = list(("a", "b", "c"))                # list(...) is not one of the three calls: no


class Holder:
    INSIDE = ("a", "b", "c")                    # class body: no


if True:
    GUARDED = ("a", "b", "c")                   # inside an if: no


def f():
    LOCAL = ("a", "b", "c")                     # function body: no
    return LOCAL
'''


def _load():
    spec = importlib.util.spec_from_file_location("code_metrics", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_word_tables_hand_counted() -> None:
    metrics = _load()
    tables = metrics.module_word_tables(ast.parse(SOURCE))
    assert tables == ["__all__", "WORDS", "SPLIT", "LISTED", "NAMES", "MOSTLY", "PATTERNS", "A,B"]


def test_tree_metrics_counts_tables_and_all(tmp_path: Path) -> None:
    metrics = _load()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "one.py").write_text(SOURCE, encoding="utf-8")
    (pkg / "two.py").write_text('__all__ = ["f", "g"]\nUNITS = ("mg", "g", "kg")\n', encoding="utf-8")
    m = metrics.tree_metrics(tmp_path, "pkg", 3)
    assert m["module_word_tables"] == 8 + 1
    assert m["module_word_tables_all"] == 1
    # the older count: module and class level, 3+ string literals (a dict by its keys)
    # one.py: __all__, WORDS, SPLIT, LISTED, NUMS, NAMES, A and B (two names), LISTCALL, Holder.INSIDE (10);
    # not PATTERNS, MIXED, MOSTLY (2 strings each) nor NESTED (0); two.py: UNITS
    assert m["all_word_lists"] == 10 + 1
