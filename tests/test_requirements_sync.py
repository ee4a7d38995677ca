"""pyproject.toml's dependencies and the pinned requirements*.txt cannot drift apart.

requirements.txt pins the runtime set the README's ``pip install -r requirements.txt`` installs (core +
[app] + [export]), requirements-dev.txt adds the [dev] tools. Checked here: every declared name is pinned
exactly once with ``==``, every pin satisfies its declared range, every pinned name is declared or a
dependency of a declared package, and every third-party module posviz imports belongs to a group the
importing layer may use (math and figures: core; posviz.ui, app.py, Home.py, pages: + [app]; export and CLI:
+ [export]).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def declared(group: str) -> dict[str, Requirement]:
    """Requirements of ``group`` ("core" or an extra), by canonical name; posviz's own extras left out."""
    reqs = PYPROJECT["dependencies"] if group == "core" else PYPROJECT["optional-dependencies"][group]
    parsed = (Requirement(r) for r in reqs)
    return {canonicalize_name(r.name): r for r in parsed if canonicalize_name(r.name) != "posviz"}


def pins(path: Path) -> dict[str, str]:
    """``name==version`` lines of a requirements file (comments and ``-r`` includes skipped)."""
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(("-r ", "--")):
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{path.name}: {line!r} is not an exact pin"
        name = canonicalize_name(req.name)
        assert name not in found, f"{path.name} pins {name} twice"
        found[name] = specs[0].version
    return found


RUNTIME = pins(ROOT / "requirements.txt")
DEV = pins(ROOT / "requirements-dev.txt")
RUNTIME_GROUPS = ("core", "app", "export")


def dependency_closure(names: set[str]) -> set[str]:
    """``names`` plus everything they require, transitively, read from the installed packages' metadata."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in md.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(req.name))
    return seen


@pytest.mark.parametrize(("group", "pinned"), [(g, RUNTIME) for g in RUNTIME_GROUPS] + [("dev", DEV)])
def test_every_declared_dependency_is_pinned_inside_its_range(group, pinned):
    for name, req in declared(group).items():
        assert name in pinned, f"[{group}] declares {name} but its requirements file does not pin it"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"{name}=={pinned[name]} is outside [{group}]'s range {req.specifier}"


def test_every_pin_is_declared_or_required_by_a_declared_package():
    runtime = set().union(*(declared(g) for g in RUNTIME_GROUPS))
    undeclared = sorted(set(RUNTIME) - dependency_closure(runtime))
    assert undeclared == [], f"requirements.txt pins {undeclared}, which no pyproject group needs"
    assert sorted(set(DEV) - set(declared("dev"))) == [], "requirements-dev.txt pins a tool [dev] lacks"


def test_dev_extra_includes_the_runtime_extras_and_the_dev_file_includes_requirements():
    assert "posviz[app,export]" in PYPROJECT["optional-dependencies"]["dev"]
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text().splitlines()


def test_torch_is_pinned_to_the_cpu_release_the_readme_names():
    assert RUNTIME["torch"] == "2.13.0"
    assert "torch" in declared("core")


def test_pins_are_what_this_environment_runs():
    """The suite passing here says something about the pins only if the pins are what is installed."""
    for name, version in {**RUNTIME, **DEV}.items():
        installed = md.version(name).split("+", 1)[0]   # torch reports 2.13.0+cpu
        assert installed == version, f"{name}: requirements pin {version}, this environment has {installed}"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"posviz", "__future__"}


def _allowed_groups(rel: str) -> tuple[str, ...]:
    if rel.startswith(("posviz/ui/", "pages/")) or rel in ("app.py", "Home.py", "posviz/cli/app.py"):
        return ("core", "app")
    if rel.startswith(("posviz/export/", "posviz/cli/")):
        return ("core", "export")
    return ("core",)


def test_every_third_party_import_is_declared_for_its_layer():
    to_dist = md.packages_distributions()
    files = [*ROOT.glob("posviz/**/*.py"), ROOT / "app.py", ROOT / "Home.py", *ROOT.glob("pages/*.py")]
    problems = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        allowed = set().union(*(declared(g) for g in _allowed_groups(rel)))
        for module in sorted(_imports(path)):
            dists = {canonicalize_name(d) for d in to_dist.get(module, [module])}
            if not dists & allowed:
                problems.append(f"{rel} imports {module} ({', '.join(sorted(dists))}), not declared in "
                                f"{' or '.join(_allowed_groups(rel))}")
    assert problems == []
