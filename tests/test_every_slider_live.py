"""Every slider that changes a figure is live on that figure, and the link is exact.

For every part of every lesson (pitfalls open), each slider the part draws is moved one step and to the far end
of its track; every figure whose settings change must follow that slider live (``figure_panel(..., live=)``),
and what changed must be exactly the settings the slider is linked to, at the slider's value (the parameter
itself, at most its cap for ``AtMost``, or what a ``Sets`` link gives, as the link was drawn before the move):
that is what the live states are built with (``posviz.ui.live.states``), so a state is the exact figure at its
value. A slider that changes a figure in another way would be listed in ``CANNOT_FOLLOW`` with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import pytest
from streamlit.testing.v1 import AppTest

from posviz import ui
from posviz.ui import panel
from posviz.ui.params import Bool, Int, LogFloat, Param
from testkit.apptest import ROOT, assert_clean, extreme_query, part_cases, part_controls, part_query

pytestmark = pytest.mark.app

# (lesson, part, slider): why the figures it changes cannot follow it while it is dragged (they redraw on release)
CANNOT_FOLLOW: dict[tuple[str, str, str], str] = {}


class Recorder:
    """The figure panels a run draws: key -> (figure parameters, {live control: its link, as ``live`` names it})."""

    def __init__(self) -> None:
        self.panels: dict[str, tuple[dict, dict]] = {}

    def __call__(self, figure, params=None, *, key, live=(), **kw):
        links = dict(live) if isinstance(live, Mapping) else panel.live_links(live)
        self.panels[key] = (dict(params or {}), links)
        return DRAW(figure, params, key=key, live=live, **kw)


def linked(link: str | ui.AtMost | ui.Sets, value: object) -> dict[str, object]:
    """The figure settings a live link sets with its slider at ``value``."""
    if isinstance(link, ui.Sets):
        return link.at(value)
    if isinstance(link, ui.AtMost):
        return {link.param: min(value, link.at_most)}
    return {link: value}


DRAW = panel.figure_panel


def drawn(lesson: object, part: object, query: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[AppTest, dict]:
    """The part opened from an address with ``query`` (as a shared link), every pitfall open: the app and the figure
    panels it drew."""
    recorder = Recorder()
    monkeypatch.setattr(ui, "figure_panel", recorder)
    at = AppTest.from_file(str(ROOT / lesson.script), default_timeout=120)
    for k, v in {**part_query(lesson, part), **query}.items():
        at.query_params[k] = v
    at.run()
    toggles = [t for t in at.toggle if ".pitfall." in (t.key or "")]
    for t in toggles:
        t.set_value(True)
    if toggles:
        at.run()
    assert_clean(at)
    return at, recorder.panels


def moves(control: Param, widget: object) -> Iterator[object]:
    """A step from the slider's value, and the far end of its track."""
    if isinstance(control, LogFloat):
        options = list(control.options)
        i = options.index(widget.value)
        yield options[i + 1] if i + 1 < len(options) else options[i - 1]
        yield options[0] if i > len(options) // 2 else options[-1]
        return
    lo, hi, step, value = widget.min, widget.max, widget.step, widget.value
    near = value + step if value + step <= hi else value - step
    far = lo if value - lo > hi - value else hi
    for v in (near, far):
        yield int(v) if isinstance(control, Int) else v


def same(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def changed(before: dict, after: dict) -> dict:
    return {k: after.get(k) for k in set(before) | set(after) if not same(before.get(k), after.get(k))}


CASES = [(lesson, part) for lesson, part in part_cases()]


def switched_on(lesson: object, part: object) -> list[dict[str, str]]:
    """The addresses the part is checked at: as it opens, and with every switch of the part on (a figure drawn only
    then, "show the rotation with and without K", is checked too)."""
    switches = {name: c.to_url(True) for name, c in part_controls(lesson, part).items() if isinstance(c, Bool)}
    return [{}, switches] if switches else [{}]


@pytest.mark.parametrize(("lesson", "part"), CASES, ids=[f"{lesson.slug}-{part.key}" for lesson, part in CASES])
def test_every_slider_that_changes_a_figure_is_live_on_it_and_exact(lesson, part, monkeypatch):
    followed, live = 0, []
    for switches in switched_on(lesson, part):
        at, before = drawn(lesson, part, switches, monkeypatch)
        followed += moved_sliders(lesson, part, at, before, switches, monkeypatch)
        live += [key for key, (_, links) in before.items() if links]
    assert followed or not live, f"{live} follow sliders, but no slider moved them"


# parts where a slider also moves a setting the page keeps within its range (a pair, a head, a position, a sought
# position): checked again from the largest settings, where moving it down clamps that setting
CLAMPING = [("rope", "derive"), ("bias", "family"), ("bias", "attention"), ("bias", "rotation"),
            ("intro", "normalised"), ("cope", "attention"), ("cope", "interp"), ("cope", "table")]


@pytest.mark.parametrize(("slug", "key"), CLAMPING, ids=[f"{slug}-{key}" for slug, key in CLAMPING])
def test_a_slider_that_clamps_another_setting_is_exact_from_the_largest_settings(slug, key, monkeypatch):
    lesson, part = next((lesson, part) for lesson, part in CASES if (lesson.slug, part.key) == (slug, key))
    query = {k: v for k, v in extreme_query(lesson, part, high=True).items() if k != "part"}
    at, before = drawn(lesson, part, query, monkeypatch)
    assert any(isinstance(link, ui.Sets) for _, links in before.values() for link in links.values())
    assert moved_sliders(lesson, part, at, before, query, monkeypatch) > 0


def moved_sliders(lesson: object, part: object, at: AppTest, before: dict, switches: dict[str, str],
                  monkeypatch: pytest.MonkeyPatch) -> int:
    """Move every slider the part draws a step and to the far end; check each figure that changed follows it
    exactly. The number of (figure, move) pairs checked."""
    controls = part_controls(lesson, part)
    sliders = [w for w in (*at.slider, *at.select_slider)
               if (w.key or "").startswith(lesson.slug + ".") and w.key.split(".", 1)[1] in controls]
    followed = 0
    for widget in sliders:
        name = widget.key.split(".", 1)[1]
        if (lesson.slug, part.key, name) in CANNOT_FOLLOW:
            continue
        for value in moves(controls[name], widget):
            _, after = drawn(lesson, part, {**switches, name: controls[name].to_url(value)}, monkeypatch)
            for key, (params, _) in after.items():
                diff = changed(before[key][0], params) if key in before else {}
                if not diff:
                    continue
                assert name in before[key][1], f"{key} changes with slider {name} ({diff}) but does not follow it live"
                sets = linked(before[key][1][name], value)
                assert not changed(before[key][0] | sets, params), \
                    f"{key}: moving {name} to {value} changed {diff}, not only {sets}"
                followed += 1
    return followed
