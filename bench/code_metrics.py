"""Size and rule counts of a clinqa checkout, for before/after figures of a refactor (issue 28).

Counted with Python's own parser (``ast``), so comments and strings never count as code:

* ``regex sites``: calls of the ``re`` module's matching functions (``re.compile``, ``re.search``,
  ``re.match``, ``re.fullmatch``, ``re.sub``, ``re.subn``, ``re.findall``, ``re.finditer``, ``re.split``),
  one per call written in the source (a pattern compiled once and used in ten places counts once).
* ``word lists``: module- or class-level names bound to a literal collection of at least 3 strings
  (``frozenset({...})``, ``frozenset("a b c".split())``, a set, list, tuple, or a dict whose keys are strings).
  Class bodies count; a dict counts by its string keys only, whatever its values; other items need not be strings.
* ``module word tables`` (issue 48's definition): names bound at module level only (statements directly in the
  module body, not in class bodies nor inside ``if``/``try``) to a set, tuple, list or dict literal, or to
  ``frozenset(x)`` / ``set(x)`` / ``tuple(x)`` of one, or to ``"a b c".split()``, with at least 3 items (a dict's
  entries) of whose atoms (the elements; a dict's keys and values together) more than half are string constants.
  ``__all__`` lists count (``module_word_tables_all`` says how many of them). It differs from ``word lists`` in
  leaving out class-level tables and tables with mostly non-string items (``{"a": 1, "b": 2, "c": 3}``, a tuple of
  compiled patterns with three strings beside them), and in counting a dict by keys and values together.
* ``largest files`` (lines) and ``longest functions`` (lines from ``def`` to its last line, nested ones
  counted on their own).

Usage::

    python bench/code_metrics.py [--src src/clinqa] [--package-dir answer] [--top 5] [--json | --tables]
    git worktree add /tmp/old c2ed813 && python bench/code_metrics.py --src /tmp/old/src/clinqa

Exit 0; prints a Markdown table (or JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path
from typing import Any

RE_CALLS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"})


def _strings_in(node: ast.AST) -> int:
    """Number of string literals that ``node`` (a collection literal or a call building one) holds."""
    if isinstance(node, ast.Call):
        # frozenset({...}) / set(...) / frozenset("a b c".split())
        if isinstance(node.func, ast.Name) and node.func.id in {"frozenset", "set", "tuple", "list"} and node.args:
            return _strings_in(node.args[0])
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "split" and isinstance(f.value, ast.Constant) \
                and isinstance(f.value.value, str):
            return len(f.value.value.split())
        return 0
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        return sum(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    if isinstance(node, ast.Dict):
        return sum(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)
    return 0


def _table_atoms(node: ast.AST) -> tuple[int, int, int] | None:
    """``(items, atoms, string_atoms)`` of a word-table candidate, or ``None`` when ``node`` is no collection.

    ``items``: elements (a dict's entries); ``atoms``: elements, or a dict's keys plus values (a ``**spread`` has
    no key); ``string_atoms``: how many atoms are ``str`` constants. A ``"a b c".split()`` call counts its words as
    items, atoms and string atoms alike; ``frozenset(x)`` / ``set(x)`` / ``tuple(x)`` count as ``x``."""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id in {"frozenset", "set", "tuple"} and len(node.args) == 1:
            return _table_atoms(node.args[0])
        if (isinstance(f, ast.Attribute) and f.attr == "split" and not node.args
                and isinstance(f.value, ast.Constant) and isinstance(f.value.value, str)):
            n = len(f.value.value.split())
            return n, n, n
        return None
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        atoms: list[ast.expr] = list(node.elts)
        items = len(atoms)
    elif isinstance(node, ast.Dict):
        atoms = [k for k in node.keys if k is not None] + list(node.values)
        items = len(node.keys)
    else:
        return None
    return items, len(atoms), sum(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in atoms)


def module_word_tables(tree: ast.Module) -> list[str]:
    """Names bound in the module body (not class bodies, not inside ``if``/``try``) to a word table: 3+ items,
    more than half of the atoms string constants (see ``_table_atoms``). One entry per table, the targets of a
    chained assignment joined by ``,``."""
    out: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        counted = _table_atoms(value)
        if counted is not None and counted[0] >= 3 and 2 * counted[2] > counted[1]:
            out.append(",".join(ast.unparse(t) for t in targets))
    return out


def file_metrics(path: Path) -> dict[str, Any]:
    """``{"lines", "regex_sites", "word_lists": [names], "word_tables": [names], "functions": [(name, lines)]}``
    of one Python file (``word_tables``: ``module_word_tables``).

    Raises ``SyntaxError`` when the file does not parse."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    regex = 0
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RE_CALLS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            regex += 1
    lists: list[str] = []
    scopes: list[ast.AST] = [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for scope in scopes:
        for stmt in getattr(scope, "body", []):
            targets: list[ast.expr] = []
            value = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            if value is not None and _strings_in(value) >= 3:
                lists += [t.id for t in targets if isinstance(t, ast.Name)]
    functions = [(n.name, (n.end_lineno or n.lineno) - n.lineno + 1) for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return {"lines": len(text.splitlines()), "regex_sites": regex, "word_lists": lists,
            "word_tables": module_word_tables(tree), "functions": functions}


def tree_metrics(src: Path, package_dir: str, top: int) -> dict[str, Any]:
    """Metrics of every ``*.py`` under ``src`` and, for the rule counts, of ``src/package_dir`` only."""
    files = {p.relative_to(src).as_posix(): file_metrics(p) for p in sorted(src.rglob("*.py"))}
    inside = {k: v for k, v in files.items() if k.startswith(package_dir.rstrip("/") + "/")}
    functions = [(f"{k}:{name}", n) for k, v in files.items() for name, n in v["functions"]]
    return {
        "src": str(src),
        "python_lines": sum(v["lines"] for v in files.values()),
        "all_regex_sites": sum(v["regex_sites"] for v in files.values()),
        "all_word_lists": sum(len(v["word_lists"]) for v in files.values()),
        "module_word_tables": sum(len(v["word_tables"]) for v in files.values()),
        "module_word_tables_all": sum(v["word_tables"].count("__all__") for v in files.values()),
        f"{package_dir}_regex_sites": sum(v["regex_sites"] for v in inside.values()),
        f"{package_dir}_word_lists": sum(len(v["word_lists"]) for v in inside.values()),
        "largest_files": sorted(((k, v["lines"]) for k, v in files.items()), key=lambda kv: -kv[1])[:top],
        "longest_functions": sorted(functions, key=lambda kv: -kv[1])[:top],
    }


def main() -> None:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src" / "clinqa")
    ap.add_argument("--package-dir", default="answer")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tables", action="store_true", help="list each module word table as FILE NAME and stop")
    a = ap.parse_args()
    if a.tables:
        for p in sorted(a.src.rglob("*.py")):
            for name in file_metrics(p)["word_tables"]:
                print(p.relative_to(a.src).as_posix(), name)
        return
    m = tree_metrics(a.src, a.package_dir, a.top)
    if a.json:
        print(json.dumps(m, indent=2))
        return
    print(f"| {m['src']} | |\n|---|---|")
    for key in ("python_lines", "all_regex_sites", "all_word_lists", "module_word_tables", "module_word_tables_all",
                f"{a.package_dir}_regex_sites",
                f"{a.package_dir}_word_lists"):
        print(f"| {key} | {m[key]:,} |")
    print("| largest files | " + ", ".join(f"{k} {n}" for k, n in m["largest_files"]) + " |")
    print("| longest functions | " + ", ".join(f"{k} {n}" for k, n in m["longest_functions"]) + " |")


if __name__ == "__main__":
    main()
