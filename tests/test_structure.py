"""posviz's module import graph, read from the source files (parsed, not imported).

An import at module level runs when its module is imported; one inside a function runs on the first call. Both are
edges of the graph, counted apart. Modules on a cycle need each other: none of them can be read, tested or loaded
without the others. With module-level imports all around a cycle, the order of imports decides which module sees
another half-initialized; an import inside a function that closes the cycle avoids that only as long as it stays
inside the function. So no cycle may pass through a module-level import, but those listed in KNOWN with the reason
they stay. A cycle of function-level imports alone is not checked: importing one of its modules loads none of the
others. Imports under ``if TYPE_CHECKING:`` never run and are not edges, nor is the package ``__init__`` that Python
runs before a submodule.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import posviz

ROOT = Path(posviz.__file__).parent

# (importer, imported): a module-level import that lies on a cycle, and why it stays
KNOWN: dict[tuple[str, str], str] = {}


def _module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package under ``root`` by dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in root.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def import_graph(root: Path = ROOT) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(module_level, function_level)``: for each module, the package's modules it imports at module level (class
    bodies included) and those it imports inside functions."""
    modules = _module_names(root)
    top = root.name

    def owner(name: str) -> str | None:
        """The module ``name`` is, or the module that holds it (``posviz.rope.inv_freq`` -> ``posviz.rope``)."""
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    def targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> set[str]:
        if isinstance(node, ast.Import):
            return {owner(a.name) for a in node.names if a.name.split(".")[0] == top} - {None}
        base = node.module or ""
        if node.level:  # relative: from the module's package, one level up per extra dot
            package = module.split(".") if is_package else module.split(".")[:-1]
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
        if base.split(".")[0] != top:
            return set()
        return {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else owner(base) for a in node.names} - {None}

    module_level: dict[str, set[str]] = {}
    function_level: dict[str, set[str]] = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        at_top: set[str] = set()
        in_functions: set[str] = set()

        def visit(nodes: list[ast.stmt], into: set[str]) -> None:
            for node in nodes:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    into |= targets(node, module, is_package)  # noqa: B023  (called within this iteration)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(node.body, in_functions)  # noqa: B023
                elif isinstance(node, ast.If) and _is_type_checking(node.test):
                    visit(node.orelse, into)
                else:
                    for block in ("body", "orelse", "finalbody"):
                        visit([n for n in getattr(node, block, []) if isinstance(n, ast.stmt)], into)
                    for handler in getattr(node, "handlers", []):
                        visit(handler.body, into)

        visit(ast.parse(path.read_text(encoding="utf-8")).body, at_top)
        module_level[module] = at_top - {module}
        function_level[module] = in_functions - {module} - at_top
    return module_level, function_level


def path_between(start: str, goal: str, edges: dict[str, set[str]]) -> list[str] | None:
    """A shortest import path from ``start`` to ``goal`` (both included), or None."""
    came_from: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while came_from[path[-1]] is not None:
                path.append(came_from[path[-1]])
            return path[::-1]
        for nxt in sorted(edges.get(node, ())):
            if nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return None


def cycles_through_module_level(module_level: dict[str, set[str]],
                                function_level: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """Every module-level import ``a -> b`` that lies on a cycle, with one such cycle (``a, b, ..., a``)."""
    both = {m: module_level.get(m, set()) | function_level.get(m, set()) for m in {*module_level, *function_level}}
    found = {}
    for a, imported in module_level.items():
        for b in imported:
            back = path_between(b, a, both)
            if back:
                found[(a, b)] = [a, *back]
    return found


GRAPH = import_graph()


def _describe(cycle: list[str], module_level: dict[str, set[str]]) -> str:
    return " ".join(f"{a} {'->' if b in module_level[a] else '~>'}" for a, b in zip(cycle, cycle[1:])) + f" {cycle[-1]}"


def test_no_cycle_passes_through_a_module_level_import():
    """-> a module-level import, ~> one inside a function."""
    found = cycles_through_module_level(*GRAPH)
    unexpected = {edge: _describe(cycle, GRAPH[0]) for edge, cycle in found.items() if edge not in KNOWN}
    assert not unexpected, "import cycles:\n" + "\n".join(sorted(unexpected.values()))
    gone = sorted(set(KNOWN) - set(found))
    assert not gone, f"no longer on a cycle, remove from KNOWN: {gone}"


def test_the_graph_is_read_from_the_source():
    """The reader sees module-level, function-level, relative and TYPE_CHECKING imports as they are, so the check
    above can fail: module-level edges the layers rely on, and the lazy imports that keep streamlit and torch out."""
    module_level, function_level = GRAPH
    assert "posviz.rope" in module_level["posviz.bias"] and "posviz._validate" in module_level["posviz.sinusoidal"]
    assert "posviz.ui.page" in module_level["posviz.ui.panel"]
    assert "posviz.ui.run" in function_level["posviz.ui.course"]  # declarations do not need streamlit
    assert "posviz.models.net" in function_level["posviz.models"]  # torch on first use
    assert "posviz.ui.course" not in module_level["posviz.ui.page"]  # under TYPE_CHECKING only


def test_a_cycle_closed_inside_a_function_is_found(tmp_path):
    """A package whose ``a`` imports ``b`` at module level and whose ``b`` imports ``a`` inside a function (relative
    import): the check reports a -> b ~> a; a cycle of lazy imports alone is not reported."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import g\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n\n"
                              "def g():\n    from . import a\n")
    (pkg / "c.py").write_text("def f():\n    from pkg import d\n")
    (pkg / "d.py").write_text("def f():\n    import pkg.c\n")
    module_level, function_level = import_graph(pkg)
    assert module_level["pkg.b"] == set() and function_level["pkg.b"] == {"pkg.a"}
    found = cycles_through_module_level(module_level, function_level)
    assert found == {("pkg.a", "pkg.b"): ["pkg.a", "pkg.b", "pkg.a"]}
