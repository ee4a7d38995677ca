"""The source articles are named by their titles (docs/SOURCES.md) and the mistakes the pitfalls show by what
they do, never by an internal number: not in a page, a docstring, a name or a test, and not in the text of a
figure, whose titles and legends go out in every export."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from posviz.figures import FIGURES, build
from testkit.figures import strings

ROOT = Path(__file__).resolve().parents[1]
NUMBERED = re.compile(r"seeds?[\s_-]*0\d\d", re.IGNORECASE)  # an article by number, in any spelling
TEXT_ROOTS = ("pages", "posviz", "tests", "testkit", "benchmarks", "deploy", "docs")
SUFFIXES = {".py", ".js", ".md"}  # posviz's JSON files are data (model manifests), not prose
SKIP_DIRS = {"__pycache__", "node_modules"}


def _text_files() -> Iterator[Path]:
    yield ROOT / "README.md"
    for name in ("app.py", "Home.py"):
        if (ROOT / name).is_file():
            yield ROOT / name
    for top in TEXT_ROOTS:
        for path in sorted((ROOT / top).rglob("*")):
            parts = path.relative_to(ROOT).parts
            if path.suffix in SUFFIXES and path.is_file() and not any(
                    p in SKIP_DIRS or p.startswith(".") for p in parts):
                yield path


def test_no_file_names_an_article_by_number():
    hits = []
    for path in _text_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NUMBERED.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "name the article by its title (docs/SOURCES.md), the mistake by what it does:\n" + \
        "\n".join(hits)


CHOICES = re.compile(r"must be one of (.*?); got")


def _variants(name: str) -> list[dict[str, object]]:
    """The defaults, each bool flipped, and each option of each choice parameter (the options read from the
    builder's own error for an unknown value): the wrong versions the pitfalls draw are among them."""
    out: list[dict[str, object]] = [{}]
    for param, default in FIGURES[name].defaults().items():
        if isinstance(default, bool):
            out.append({param: not default})
        elif isinstance(default, str):
            try:
                build(name, **{param: "\x00not an option"})
            except ValueError as exc:
                found = CHOICES.search(str(exc))
                if found and str(exc).startswith(param):
                    out += [{param: o} for o in re.findall(r"'([^']*)'", found.group(1)) if o != default]
    return out


def test_variants_reach_the_wrong_versions():
    assert {"layout": "swapped"} in _variants("cope_gqa_shapes")
    assert {"claim": "reversed"} in _variants("sinusoidal_fast_slow")
    assert {"swap": True} in _variants("rope_score_grid")


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_text_names_no_article_by_number(name):
    for params in _variants(name):
        bad = [s for s in strings(build(name, **params).to_plotly_json()) if NUMBERED.search(s)]
        assert not bad, f"{name}({params}): {bad[:3]}"
