"""The shape of the code a newcomer reads: no function in ``posviz/`` or ``pages/`` is longer than 60 lines and no
module longer than 600 (docs/CONTRIBUTING.md, style), read from the source files (parsed, not imported).

A function's length runs from its ``def`` line to its last line, docstring and nested functions included (a nested
function is also measured on its own, by its qualified name ``outer.inner``). Two allow-lists name the exceptions:
``DATA_TABLES`` for a function that is a table of data rather than logic, which stays, with the reason; and
``TO_SPLIT`` for the offenders that remain to be split into named steps, which shrinks to nothing. A new offender
fails the first two tests; an allow-listed one that no longer offends fails the third, so the lists stay true.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600

# "path::qualified.name" of a function that is a data table (one literal, no logic): why it stays one function
DATA_TABLES: dict[str, str] = {}

# Offenders still to split (functions as "path::qualified.name", modules as "path"), with their length when listed
TO_SPLIT: dict[str, str] = {}


def _source_files() -> Iterator[Path]:
    for path in sorted([*ROOT.glob("posviz/**/*.py"), *ROOT.glob("pages/*.py")]):
        if "__pycache__" not in path.parts:
            yield path


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """``(qualified name, lines)`` of every function under ``tree``, methods and nested functions included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + node.name
            yield name, node.end_lineno - node.lineno + 1
            yield from _functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")
        else:
            yield from _functions(node, prefix)


@functools.cache
def offenders() -> tuple[dict[str, int], dict[str, int]]:
    """``(long functions, long modules)``: every function over 60 lines and module over 600, with its length."""
    functions, modules = {}, {}
    for path in _source_files():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            modules[rel] = len(text.splitlines())
        for name, lines in _functions(ast.parse(text, filename=rel)):
            if lines > MAX_FUNCTION_LINES:
                functions[f"{rel}::{name}"] = lines
    return functions, modules


def test_no_function_is_longer_than_60_lines():
    functions, _ = offenders()
    new = {k: v for k, v in functions.items() if k not in TO_SPLIT and k not in DATA_TABLES}
    assert new == {}, f"functions over {MAX_FUNCTION_LINES} lines: split them into named steps"


def test_no_module_is_longer_than_600_lines():
    _, modules = offenders()
    new = {k: v for k, v in modules.items() if k not in TO_SPLIT}
    assert new == {}, f"modules over {MAX_MODULE_LINES} lines: move a coherent job into its own module"


def test_the_allow_lists_name_only_current_offenders():
    functions, modules = offenders()
    stale = sorted(set(TO_SPLIT) - set(functions) - set(modules)) + sorted(set(DATA_TABLES) - set(functions))
    assert stale == [], "no longer too long (or gone): remove from the allow-list in tests/test_code_shape.py"


def test_the_measure_counts_nested_functions_and_methods():
    tree = ast.parse("def outer():\n    def inner():\n        pass\n    return 1\n\n"
                     "class Box:\n    def method(self):\n        return 2\n")
    assert dict(_functions(tree)) == {"outer": 4, "outer.inner": 2, "Box.method": 2}
