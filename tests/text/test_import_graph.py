"""No module of clinqa imports itself in a circle, and :mod:`clinqa.text` is a leaf.

The graph is read from the source (every ``import`` / ``from ... import`` of a clinqa module, at
module level or inside a function), so a lazy import that hides a circle at run time still counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import clinqa

ROOT = Path(clinqa.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the clinqa modules it imports (``from pkg import submodule`` counts as the submodule)."""
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("clinqa"):
                deps.add(node.module or "")
                deps.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("clinqa"))
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan 1972), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def reachable(graph: dict[str, set[str]], roots: list[str]) -> set[str]:
    """``roots`` and every module they import, however indirectly."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return seen


def package(graph: dict[str, set[str]], name: str) -> list[str]:
    """The modules of package ``name`` (``clinqa.question``), the package itself included."""
    return [m for m in graph if m == name or m.startswith(name + ".")]


def test_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "clinqa.embedding.shipped" in graph  # the walk found the package
    assert cycles(graph) == []


def test_text_imports_nothing_else_of_clinqa() -> None:
    graph = import_graph()
    text = {m: deps for m, deps in graph.items() if m == "clinqa.text" or m.startswith("clinqa.text.")}
    assert {"clinqa.text", "clinqa.text.unicode", "clinqa.text.words", "clinqa.text.stopwords", "clinqa.text.stems",
            "clinqa.text.sentences"} <= set(text)
    # clinqa.paths (where the Zipf table is cached) and clinqa.deferred_import (the stemmer's deferred package
    # __init__) are leaves: they import nothing of clinqa
    assert graph["clinqa.paths"] == set() and graph["clinqa.deferred_import"] == set()
    assert all(d in ("clinqa.text", "clinqa.paths", "clinqa.deferred_import") or d.startswith("clinqa.text.")
               for deps in text.values() for d in deps)


def test_ingest_needs_nothing_of_the_answer_package() -> None:
    """Issue 39: quotable units are chunking's, the injection screen is text's; ingest, chunking, the document
    loaders and the store import no module of ``clinqa.answer``, however indirectly."""
    graph = import_graph()
    roots = ["clinqa.ingest", "clinqa.ingest_progress", "clinqa.chunking.units",
             *(m for m in graph if m.startswith(("clinqa.chunking.", "clinqa.documents.", "clinqa.store.")))]
    assert sorted(m for m in reachable(graph, roots) if m.startswith("clinqa.answer")) == []


def test_the_question_is_read_below_the_answer_package() -> None:
    """Issue 39: the question is read in :mod:`clinqa.question` (repair, time, asks, terms, profile, follow-ups),
    which needs nothing of :mod:`clinqa.answer` nor of :mod:`clinqa.decision`, however indirectly: both read what
    it reads."""
    graph = import_graph()
    roots = package(graph, "clinqa.question")
    assert {"clinqa.question.terms", "clinqa.question.asks", "clinqa.question.profile", "clinqa.question.repair",
            "clinqa.question.time", "clinqa.question.followup"} <= set(roots)
    assert sorted(m for m in reachable(graph, roots) if m.startswith(("clinqa.answer", "clinqa.decision"))) == []


def test_the_decision_is_made_below_the_answer_package() -> None:
    """Issue 39: the decision steps (:mod:`clinqa.decision`) read the question's package and the evidence the
    answer package hands them, and import nothing of :mod:`clinqa.answer` themselves."""
    graph = import_graph()
    roots = package(graph, "clinqa.decision")
    assert {"clinqa.decision.table", "clinqa.decision.gate", "clinqa.decision.key_terms", "clinqa.decision.quote",
            "clinqa.decision.answerability"} <= set(roots)
    assert sorted(m for m in reachable(graph, roots) if m.startswith("clinqa.answer")) == []


#: what the evidence layer may import directly: itself, the question's package, the word tools, the lexicon,
#: retrieval (filters, the query pool), the store's types, chunking's quotable units, and, for gathering
#: (evidence/gather.py), the settings and the encoder's type (the unit encoder a stage hands on to the quote)
EVIDENCE_MAY_IMPORT = ("clinqa.evidence", "clinqa.question", "clinqa.text", "clinqa.lexicon", "clinqa.retrieval",
                       "clinqa.store", "clinqa.chunking", "clinqa.settings", "clinqa.embedding")


def test_the_evidence_is_read_below_the_decision() -> None:
    """Issue 48 item 4: the layers run question -> evidence -> decision -> answer. :mod:`clinqa.evidence` (passage
    readings, mention matching, bands, coverage) imports only the packages below it (:data:`EVIDENCE_MAY_IMPORT`)
    and reaches nothing of :mod:`clinqa.decision` or :mod:`clinqa.answer`, however indirectly; the decision may
    import it; the question's package reaches nothing of it."""
    graph = import_graph()
    evidence = package(graph, "clinqa.evidence")
    assert {"clinqa.evidence.mentions", "clinqa.evidence.reading", "clinqa.evidence.bands",
            "clinqa.evidence.coverage", "clinqa.evidence.rules", "clinqa.evidence.passages",
            "clinqa.evidence.gather"} <= set(evidence)
    direct = sorted({d for m in evidence for d in graph[m]})
    assert [d for d in direct if not d.startswith(EVIDENCE_MAY_IMPORT)] == []
    assert sorted(m for m in reachable(graph, evidence) if m.startswith(("clinqa.answer", "clinqa.decision"))) == []
    question = package(graph, "clinqa.question")
    assert sorted(m for m in reachable(graph, question) if m.startswith("clinqa.evidence")) == []
    # the decision reads the evidence layer's mention matching (the key-term test)
    assert "clinqa.evidence.mentions" in graph["clinqa.decision.answerability"]
    # gathering is evidence (issue 48 item 4): the answer package holds no gathering, and the pipeline hands
    # gathering the key-term test's judgement instead of gathering importing the decision
    assert "clinqa.answer.gather" not in graph and "clinqa.evidence.gather" in graph["clinqa.pipeline"]


def evidence_names() -> list[str]:
    """What clinqa calls "evidence" in its names, as ``"kind module.name"``: modules and functions named
    ``evidence`` or holding it (``initial_evidence``), classes whose name holds ``Evidence`` and import aliases
    that hold it (``DecisionEvidence``); importing a name as itself is no new name. The package
    :mod:`clinqa.evidence` and its modules are the layer itself, not counted."""
    found: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        if path.stem == "evidence" or ("evidence" in path.stem and not module.startswith("clinqa.evidence")):
            found.append(f"module {module}")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and "evidence" in node.name.lower():
                found.append(f"class {module}.{node.name}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "evidence" in node.name.lower():
                found.append(f"def {module}.{node.name}")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                found += [f"alias {module}.{a.asname}" for a in node.names
                          if a.asname and a.asname != a.name and "evidence" in a.asname.lower()]
    return found


def test_evidence_names_one_thing() -> None:
    """Issue 48 item 5: "evidence" is one thing, the layer :mod:`clinqa.evidence` that reads what the passages
    say before the decision weighs it, and nothing else is named so: what the decision steps weigh is
    :class:`clinqa.decision.verdict.Case` (was ``Evidence``), starting it :func:`clinqa.answer.scope.initial_case`
    (was ``initial_evidence``, and before that ``scope.evidence``), gathering :mod:`clinqa.evidence.gather` (was
    ``answer/evidence.py``, imported as ``gather``), a numbered passage shown to a language model
    :class:`clinqa.answer.prompt.NumberedPassage` (was a second ``Evidence`` class, imported beside the first as
    ``DecisionEvidence``), and the cited texts the identifier screen checks
    :class:`clinqa.answer.identifiers._CitedTexts` (was ``_Evidence``)."""
    assert evidence_names() == []
