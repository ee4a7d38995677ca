"""Every citation in the repository resolves: formulas are cited from docs/FORMULAS.md, the project's own formula
reference, by a section it has; the paths the docs name exist; the tests and lesson parts FORMULAS.md names exist.

No file may point at a reference outside the repository (a private notes folder, a design file that is not
shipped): a student reading a docstring in a code panel must be able to open what it cites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORMULAS = ROOT / "docs" / "FORMULAS.md"
SUFFIXES = {".py", ".md", ".js"}
SKIP_DIRS = {"__pycache__", "node_modules", "build", "dist", "fixtures"}  # tests/**/fixtures: quoted material

# Citations that cannot resolve: a notes folder or a design file outside the repository.
FOREIGN = (
    (re.compile(r"(?<![\w/.-])reference/"), "a path into a reference folder the repository does not have"),
    (re.compile(r"\bDESIGN\.md", re.IGNORECASE), "a design file the repository does not have"),
    (re.compile(r"\b(?:peers|streamlit-notes)\.md"), "a notes file the repository does not have"),
)
# The formula file: spelled FORMULAS.md, under docs/ when a path is given, and cited by section as
# docs/FORMULAS.md §N (a bare FORMULAS.md §N resolves only from a sibling in docs/).
ANY_FORMULAS = re.compile(r"((?:[\w.-]+/)*)(formulas\.md)(\s*§)?", re.IGNORECASE)
# "docs/FORMULAS.md §6 and §6.3", "docs/FORMULAS.md §1.2, §6.3": every section number in the run is cited
CITATION = re.compile(r"FORMULAS\.md((?:\s*(?:,|and|or)?\s*§\d+(?:\.\d+)*)+)")
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{2,4}\s+§(\d+(?:\.\d+)*)\s", re.MULTILINE)
REPO_PATH = re.compile(r"(?<![\w./<>-])((?:docs|posviz|tests|pages|benchmarks|testkit|deploy)/[\w./-]*\w"
                       r"\.(?:md|py|js|sh|png|json|toml|txt))\b")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
NAMED_TEST = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
LESSON_PART = re.compile(r"`/(\w+)\?part=(\w+)`")


def _text_files() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        if any(p.startswith(".") or p in SKIP_DIRS or p.endswith(".egg-info") for p in parts[:-1]):
            continue
        if path != Path(__file__).resolve():  # this file spells out the wrong forms as examples
            yield path


def _docs() -> list[Path]:
    return sorted((ROOT / "docs").glob("*.md"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _sections() -> set[str]:
    return set(HEADING.findall(FORMULAS.read_text(encoding="utf-8")))


def test_formulas_reference_exists_with_numbered_sections():
    text = FORMULAS.read_text(encoding="utf-8")
    numbers = HEADING.findall(text)
    assert len(numbers) == len(set(numbers)), "a section number is used twice"
    top = [n for n in numbers if "." not in n]
    assert top == [str(k) for k in range(len(top))], f"top-level sections must run §0, §1, ...; got {top}"
    for n in numbers:  # every sub-section sits under its parent
        assert "." not in n or n.rsplit(".", 1)[0] in numbers, n


def _foreign_citations(line: str, in_docs: bool) -> list[str]:
    """What in one line cites something outside the repository, or the formula file by a name that fails."""
    out = [what for pattern, what in FOREIGN if pattern.search(line)]
    for hit in ANY_FORMULAS.finditer(line):
        folder, name, section = hit.groups()
        if name != "FORMULAS.md" or folder not in ("", "docs/") or (section and not folder and not in_docs):
            out.append(f"{hit.group().strip()!r} is not docs/FORMULAS.md")
    return out


def test_foreign_citation_rules():
    for line in ("see docs/FORMULAS.md §5.4 and §6", 'ROOT / "docs" / "FORMULAS.md"', "docs/CONTRIBUTING.md",
                 "https://docs.python.org/3/reference/datamodel.html"):
        assert _foreign_citations(line, in_docs=False) == [], line
    assert _foreign_citations("see [FORMULAS.md](FORMULAS.md) §2", in_docs=True) == []
    for line in ("(reference/formulas.md §2)", "(formulas.md §7)", '(DESIGN.md, "Public API")', "FORMULAS.md §2",
                 "(reference/peers.md 6-B)", "docs/formulas.md", "notes/FORMULAS.md"):
        assert _foreign_citations(line, in_docs=False), line


def test_no_file_cites_a_reference_outside_the_repository():
    bad = []
    for path in _text_files():
        in_docs = path.parent == ROOT / "docs"
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            bad += [f"{_rel(path)}:{lineno}: {what}: {line.strip()[:100]}"
                    for what in _foreign_citations(line, in_docs)]
    assert not bad, "cite docs/FORMULAS.md §N (or the paper) instead:\n" + "\n".join(bad)


def test_every_formulas_citation_names_a_section_that_exists():
    sections = _sections()
    cited, missing = 0, []
    for path in _text_files():
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for run in CITATION.finditer(line):
                for number in SECTION.findall(run.group(1)):
                    cited += 1
                    if number not in sections:
                        missing.append(f"{_rel(path)}:{lineno}: §{number}")
    assert not missing, "docs/FORMULAS.md has no such section:\n" + "\n".join(missing)
    assert cited > 40  # the docstrings of the math modules cite it: the scan found them


def test_citation_pattern_reads_every_section_of_a_run():
    line = "see docs/FORMULAS.md §6 and §6.3, and docs/FORMULAS.md §1.2, §7.1 (step 2)"
    assert [n for run in CITATION.finditer(line) for n in SECTION.findall(run.group(1))] == ["6", "6.3", "1.2", "7.1"]


@pytest.mark.parametrize("doc", _docs(), ids=lambda p: p.name)
def test_repository_paths_named_in_docs_exist(doc):
    text = doc.read_text(encoding="utf-8")
    missing = [p for p in sorted(set(REPO_PATH.findall(text))) if not (ROOT / p).exists()]
    for target in sorted(set(LINK.findall(text))):
        if "://" in target or target.startswith(("/", "mailto:")):
            continue
        if not (doc.parent / target).resolve().exists():
            missing.append(f"link {target}")
    assert not missing, f"{_rel(doc)} names files the repository does not have: {missing}"


def test_docs_cited_from_code_exist():
    missing = set()
    for path in _text_files():
        for name in re.findall(r"\bdocs/([\w-]+\.md)\b", path.read_text(encoding="utf-8", errors="replace")):
            if not (ROOT / "docs" / name).is_file():
                missing.add(f"{_rel(path)}: docs/{name}")
    assert not missing, sorted(missing)


def test_tests_named_in_the_formula_reference_exist():
    text = FORMULAS.read_text(encoding="utf-8")
    named = sorted(set(NAMED_TEST.findall(text)))
    assert len(named) > 50
    missing = []
    for file, name in named:
        path = ROOT / file
        if not path.is_file() or not re.search(rf"^\s*def {name}\(", path.read_text(encoding="utf-8"), re.MULTILINE):
            missing.append(f"{file}::{name}")
    assert not missing, "docs/FORMULAS.md names tests that do not exist:\n" + "\n".join(missing)


def test_lesson_parts_named_in_the_formula_reference_exist():
    pages = {re.sub(r"^\d+_", "", p.stem): p for p in (ROOT / "pages").glob("[0-9]*_*.py")}
    named = sorted(set(LESSON_PART.findall(FORMULAS.read_text(encoding="utf-8"))))
    assert len(named) > 20
    missing = []
    for slug, part in named:
        page = pages.get(slug)
        declared = page is not None and re.search(rf"\.part\(\s*[\"']{part}[\"']", page.read_text(encoding="utf-8"))
        if not declared:
            missing.append(f"/{slug}?part={part}")
    assert not missing, "docs/FORMULAS.md names lesson parts that do not exist: " + ", ".join(missing)
