"""Every page and every part of every lesson under AppTest: defaults, every control at its extremes, hostile URLs.

The matrix is built from the course's declarations alone (``posviz lessons --json``: each lesson's controls and
each part's own), so a lesson, part or control added anywhere is covered here without editing this file, and
nothing runs a page to find out what is on it. Hostile values are checked class by class at the parse level
(tests/test_ui_params.py, hypothesis over arbitrary text for every control kind); here one run per part gives
every control a different hostile class, so each control's warn-and-fall-back path runs on a real page.
"""

from __future__ import annotations

import re
import tracemalloc

import pytest

from posviz.ui.params import parse_or_default
from testkit.apptest import (
    HOSTILE,
    assert_clean,
    chart_specs,
    course,
    extreme_query,
    hostile_query,
    page_at,
    page_paths,
    part_cases,
    part_controls,
    part_query,
    run_page,
    warnings_text,
)

pytestmark = pytest.mark.app

PAGES = page_paths()
CASES = part_cases()
IDS = [f"{lesson.slug}-{part.key}" for lesson, part in CASES]


@pytest.mark.parametrize("path", PAGES)
def test_page_runs_clean_at_defaults(path):
    at = run_page(path)
    assert_clean(at)
    assert at.title, "every page has a title"
    assert not warnings_text(at), "a page at its defaults warns about nothing"
    if path != "Home.py":
        assert chart_specs(at), "a lesson page draws at least one chart"


@pytest.mark.parametrize("high", [False, True], ids=["all-min", "all-max"])
@pytest.mark.parametrize(("lesson", "part"), CASES, ids=IDS)
def test_part_runs_clean_with_every_control_at_an_extreme(lesson, part, high):
    tracemalloc.start()
    at = run_page(f"pages/{lesson.script.name}", extreme_query(lesson, part, high))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert_clean(at)
    assert peak < 256 * 2**20, f"peak Python/numpy allocation {peak / 2**20:.0f} MB"
    assert at.header[0].value == (part.title or part.label), "the part asked for is the part drawn"
    text = warnings_text(at)
    refused = [n for n in part_controls(lesson, part) if f"`{n}`" in text]
    assert not refused, f"valid extreme values refused for {refused}"
    # nor does a figure fall back to its defaults (the panel's warning for a builder that failed names no control);
    # a lesson's own note on a combination it cannot draw (both Gaussian weights 0) is part of the lesson
    assert "Showing the figure at its default settings" not in text, text
    if high:
        stale = stale_defaults(lesson, part, page_at(f"pages/{lesson.script.name}", **part_query(lesson, part)), at)
        assert not stale, f"captions that quote a control's default whatever its value: {stale}"


NUMBER = re.compile(r"(?<![\w.^/])\d[\d,]*(?:\.\d+)?(?![\w.]*[\w^/])")  # a number standing alone


def stale_defaults(lesson, part, at_defaults, at_max) -> list[tuple[str, list[str], str]]:
    """Captions shown word for word both at the defaults and with every control at its maximum that quote a
    control's default value (a number of 3 or more: 0, 1 and 2 are mostly structure, "pair 0", "2π"): a number
    typed into the caption where the figure's own value should be formatted."""
    defaults: dict[str, list[str]] = {}
    for name, control in part_controls(lesson, part).items():
        value = getattr(control, "default", None)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 3:
            for form in {f"{value:g}", f"{value:,}", f"{value:,g}", str(value)}:
                defaults.setdefault(form, []).append(name)
    unchanged = {c.value for c in at_max.caption}
    return [(number, defaults[number], caption[:80]) for caption in (c.value for c in at_defaults.caption)
            if caption in unchanged for number in NUMBER.findall(caption) if number in defaults]


@pytest.mark.parametrize(("lesson", "part"), CASES, ids=IDS)
def test_hostile_query_values_warn_and_fall_back(lesson, part):
    turn = CASES.index((lesson, part))
    query = hostile_query(lesson, part, turn)
    at = run_page(f"pages/{lesson.script.name}", query)
    assert_clean(at)
    assert at.header[0].value == (part.title or part.label), "a hostile value elsewhere keeps the part asked for"
    text = warnings_text(at)
    silent = [f"{name}={raw!r}" for name, raw in query.items() if name != "part" and f"`{name}`" not in text]
    assert not silent, f"no warning naming {silent}"
    assert "<script>" not in str([m.value for m in at.markdown])


@pytest.mark.parametrize("lesson", course(), ids=lambda ls: ls.slug)
def test_an_unknown_part_warns_and_opens_the_first(lesson):
    raw = HOSTILE[[ls.slug for ls in course()].index(lesson.slug) % len(HOSTILE)]
    at = run_page(f"pages/{lesson.script.name}", {"part": raw})
    assert_clean(at)
    assert "`part`" in warnings_text(at)
    first = next(iter(lesson.parts.values()))
    assert at.header[0].value == (first.title or first.label)


def test_the_matrix_covers_every_declared_control_and_refuses_each_hostile_value():
    """The round robin gives every declared control a value its own parser refuses, in some part's run."""
    covered: dict[str, set[str]] = {}
    for turn, (lesson, part) in enumerate(CASES):
        for name, raw in hostile_query(lesson, part, turn).items():
            if name != "part":
                param = part_controls(lesson, part)[name]
                assert parse_or_default(param, raw)[1] is not None, (lesson.slug, name, raw)
                covered.setdefault(f"{lesson.slug}.{name}", set()).add(raw)
    declared = {f"{ls.slug}.{c.name}" for ls in course() for p in (ls, *ls.parts.values()) for c in p.controls}
    assert declared == set(covered)
