"""Every lesson as a link opens it, driven by its declaration (``posviz.ui.lessons``), so a new lesson is checked
without an edit:

- its default view loads with no error element and draws at least one chart, its widgets at their defaults;
- a link with a bad value for every control its first part shows (markup, text, NaN, infinities, overflow, a
  text too long ...) warns once naming each parameter, renders none of the markup, drops the values from the
  address, and shows the default view: the widgets at their defaults and the same charts as the default link;
- a shared link with every such control one step from its default (a slider one step, the next option, the other
  side of a toggle ...) restores each widget, keeps each value in the address, and the share box holds that view.

What a lesson's own figures draw for a given link is checked in its own file (tests/browser/test_<topic>.py).
"""

from __future__ import annotations

import json
import math
import re
import urllib.parse

import pytest

from posviz import ui
from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text, parse_or_default, values_for
from testkit.apptest import hostile_value
from testkit.browser import (
    ROOT,
    chart_count,
    chart_traces,
    control_value,
    error_elements,
    open_page,
    share_box_link,
    url_warnings,
)

pytestmark = pytest.mark.browser

LESSONS = ui.lessons(ROOT / "pages")
IDS = [lesson.slug for lesson in LESSONS]
# markup a page must never render from a URL value (a numeric, choice or toggle control refuses it)
MARKUP = "<img src=x onerror=window.__pwned=1><b id=posviz-hostile>x</b>"
RENDERED_MARKUP = "#posviz-hostile, img[src=x]"


def shown_controls(lesson: ui.Lesson) -> list[Param]:
    """The lesson controls its first part (the default view) draws in the sidebar, in declaration order."""
    first = next(iter(lesson.parts.values()))
    return [c for c in lesson.controls if c.name in first.uses]


def one_step(resolved: Param, value: object) -> object:
    """A valid value next to ``value`` for the (bounds-resolved) control: a number one step up (down at the top),
    a log slider's next value, the next option, the other side of a toggle, one option fewer (or more), a longer
    text."""
    if isinstance(resolved, (Int, Float)):
        up = value + resolved.step
        moved = up if up <= resolved.hi else value - resolved.step
        assert resolved.lo <= moved <= resolved.hi, f"{resolved.name}: no step from {value} in its range"
        return moved if isinstance(resolved, Int) else round(moved, 10)
    if isinstance(resolved, LogFloat):
        i = resolved.options.index(value)
        return resolved.options[i + 1 if i + 1 < len(resolved.options) else i - 1]
    if isinstance(resolved, Choice):
        options = list(resolved.options)
        return options[(options.index(value) + 1) % len(options)]
    if isinstance(resolved, Bool):
        return not value
    if isinstance(resolved, Multi):
        others = [o for o in resolved.options if o not in value]
        return tuple(value[:-1]) if len(value) > 1 else (*value, others[0])
    if isinstance(resolved, Text):
        return (value + " again")[: resolved.max_chars]
    raise TypeError(f"no step for control {resolved.name!r} of kind {resolved.kind}")


def moved_view(lesson: ui.Lesson) -> dict[str, object]:
    """Every control the first part shows, one step from its default (bounds that depend on other controls
    resolved from the moved values by the page's own ``values_for``), by name in declaration order."""
    shown = {c.name for c in shown_controls(lesson)}
    moved: dict[str, object] = {}

    def read(control: Param, resolved: Param) -> object:
        value = resolved.clamp(control.default)
        if control.name in shown:
            value = moved[control.name] = one_step(resolved, value)
            assert parse_or_default(control, control.to_url(value)) == (value, None), control.name
        return value

    values_for(lesson.controls, read)
    return moved


def bad_link(lesson: ui.Lesson) -> dict[str, str]:
    """A URL value every control of the first part must refuse: markup for the first (markup inside a text too long
    for a text box), then one hostile class after another (testkit.apptest.hostile_value)."""
    query = {}
    for turn, control in enumerate(shown_controls(lesson)):
        if isinstance(control, Text):
            raw = "<b id=posviz-hostile>" + "x" * control.max_chars + "</b>"
        elif not any(v == MARKUP for v in query.values()):
            raw = MARKUP
        else:
            raw = hostile_value(control, turn)
        assert parse_or_default(control, raw)[1] is not None, f"{control.name} accepts {raw!r}"
        query[control.name] = raw
    return query


def same(shown: object, value: object) -> bool:
    if isinstance(value, float) or (isinstance(shown, float) and isinstance(value, int)):
        return shown is not None and math.isclose(shown, value, rel_tol=1e-9, abs_tol=1e-9)
    return shown == value


def widgets_off(page, lesson: ui.Lesson, expected: dict[str, object]) -> list[str]:
    """The controls whose widget does not show the ``expected`` value: "name shows x, not y"."""
    off = []
    for control in shown_controls(lesson):
        if control.name in expected:
            shown = control_value(page, lesson.slug, control)
            if not same(shown, expected[control.name]):
                off.append(f"{control.name} shows {shown!r}, not {expected[control.name]!r}")
    return off


def address(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)


def drawn(page) -> list[str]:
    """What every chart of the page plots (plotly.js's data), one JSON text per chart (NaN kept comparable)."""
    return [json.dumps(chart_traces(page, i), sort_keys=True) for i in range(chart_count(page))]


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_the_default_view_loads_and_a_bad_link_falls_back_to_it(page, app_url, lesson):
    defaults = {c.name: c.default for c in shown_controls(lesson)}
    open_page(page, app_url, lesson.url_path)
    assert error_elements(page) == []
    assert url_warnings(page) == []
    assert chart_count(page) >= 1
    assert widgets_off(page, lesson, defaults) == []
    default_view = drawn(page)

    query = bad_link(lesson)
    open_page(page, app_url, lesson.url_path, **query)
    assert error_elements(page) == []
    warned = [m.group(1) for t in url_warnings(page) if (m := re.search(r"URL parameter (\S+) had an invalid", t))]
    assert sorted(warned) == sorted(query), url_warnings(page)  # one warning naming each parameter
    assert page.locator(RENDERED_MARKUP).count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert widgets_off(page, lesson, defaults) == []
    assert set(address(page.url)) & set(query) == set()  # the address dropped the bad values
    assert drawn(page) == default_view  # the default view, chart for chart


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_a_shared_link_restores_the_controls_and_keeps_the_address(page, app_url, lesson):
    view = moved_view(lesson)
    assert view, f"{lesson.slug}: its first part shows no control"
    urls = {name: c.to_url(view[name]) for c in lesson.controls if (name := c.name) in view}
    open_page(page, app_url, lesson.url_path, **urls)
    assert error_elements(page) == []
    assert url_warnings(page) == []
    assert chart_count(page) >= 1
    assert widgets_off(page, lesson, view) == []
    kept = address(page.url)
    assert {name: kept.get(name) for name in urls} == {name: [text] for name, text in urls.items()}
    link = urllib.parse.urlsplit(share_box_link(page))
    here = urllib.parse.urlsplit(app_url)
    assert (link.scheme, link.netloc, link.path) == (here.scheme, here.netloc, "/" + lesson.url_path)
    assert urllib.parse.parse_qsl(link.query, keep_blank_values=True) == list(urls.items())
