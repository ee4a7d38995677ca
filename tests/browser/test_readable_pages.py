"""Presenter mode as a class sees it, every part of every lesson on the tightest screen a class uses, a 1280×800
projector (figures at the font scale the window fits): a link to a part opens that step (its heading, "step i /
n") and the part's figure, live or not, starts in the top 60 % of the screen unless the part leads with a pitfall
callout; the step bar (previous, QR code, next) is on the screen without scrolling, and so is an animation's
Play button. Each lesson's first part, where a link without ``part=`` lands, must show a figure there on a
1920×1080 screen too, with the lesson's intro folded away under "About this lesson". Lessons and parts come from
their declarations, so a new lesson is checked without an edit.

Whether figure text overlaps or is cut off (at the 820 px column, at the presenter scales, in the dark theme) is
checked on kaleido's SVG in tests/test_figure_text_layout.py; only the page's layout around the figure needs a
browser.
"""

from __future__ import annotations

import pytest

from posviz import ui
from testkit.browser import CHART, ROOT, open_page

pytestmark = pytest.mark.browser

LESSONS = ui.lessons(ROOT / "pages")
FOLD = 0.6  # the figure must start in the top 60 % of the screen
# every figure the run put on the page is drawn: each chart, and each figure panel's element (a live chart's
# component mounts its chart after the run is over)
EVERY_FIGURE_DRAWN = f"""() => [...document.querySelectorAll('{CHART}, [class*="st-key-"]')]
    .filter(e => !e.matches('[class*="st-key-"]') || [...e.classList].some(c => /^st-key-.*-chart$/.test(c)))
    .every(e => e.querySelector('.main-svg'))"""


@pytest.mark.parametrize("lesson", LESSONS, ids=[ls.slug for ls in LESSONS])
def test_every_part_opens_with_its_figure_above_the_fold(page, app_url, lesson):
    """One page per lesson, a fresh load (a new session, as a shared link) per part."""
    parts = list(lesson.parts.values())
    found = []
    page.set_viewport_size({"width": 1280, "height": 800})
    for step, part in enumerate(parts, 1):
        found += _problems(page, app_url, lesson, part, step, 800)
    page.set_viewport_size({"width": 1920, "height": 1080})
    found += _problems(page, app_url, lesson, parts[0], 1, 1080)
    assert not found, "\n".join(found)


def _problems(page, app_url, lesson, part, step: int, height: int) -> list[str]:
    """What is wrong with ``part`` (the ``step``-th) opened in presenter mode on a screen ``height`` px high."""
    first = step == 1
    query = {} if first else {"part": part.key}  # the first part: the lesson's own address
    open_page(page, app_url, lesson.url_path, charts=False, present=1, **query)
    page.wait_for_function(EVERY_FIGURE_DRAWN)  # a pitfalls part may draw none until a toggle
    where = f"{part.key} at {height} px high"
    found = []
    if page.get_by_text(f"step {step} / {len(lesson.parts)}").count() != 1:
        found.append(f"{where}: no 'step {step} / {len(lesson.parts)}'")
    if page.get_by_role("heading", name=part.title or part.label).count() != 1:
        found.append(f"{where}: no heading {part.title or part.label!r}")
    found += [f"{where}: {name} is not on the screen" for name in _steps_off_screen(page, lesson, step, height)]
    play = page.locator(", ".join(f"{chart} g.updatemenu-button" for chart in CHART.split(", "))).first
    if play.count() and (box := play.bounding_box())["y"] + box["height"] > _step_bar_top(page, lesson, height):
        found.append(f"{where}: an animation's Play button is below the fold ({box['y']:.0f} px)")
    charts = page.locator(CHART)
    if first:  # where a link to the lesson lands: a figure above the fold, always, and the intro folded away
        if page.get_by_text("About this lesson").count() != 1:
            found.append(f"{where}: the intro is not folded away under 'About this lesson'")
        if not charts.count():
            found.append(f"{where}: no figure")
        elif (top := charts.first.bounding_box()["y"]) >= height * FOLD:
            found.append(f"{where}: the figure starts {top:.0f} px down the {height} px screen")
    elif charts.count() and part.key != "all":  # "all" is a whole lesson on one page, not a step
        top = charts.first.bounding_box()["y"]
        if top > height * FOLD and not _leads_with_a_pitfall(page, top):
            found.append(f"{where}: the figure starts {top:.0f} px down the {height} px screen")
    return found


def _steps_off_screen(page, lesson, step: int, height: int) -> list[str]:
    """Which of the step bar's buttons (previous, QR code, next: those the step has) the lecturer would have to
    scroll to: presenter mode keeps them at the bottom of the screen whatever the part's length."""
    wanted = {"QR code": "qr"} | ({"previous": "previous"} if step > 1 else {}) | (
        {"next": "next"} if step < len(lesson.parts) else {})
    off = []
    for name, suffix in wanted.items():
        box = page.locator(f".st-key-{lesson.slug}-part-{suffix} button").first.bounding_box()
        if box is None or box["y"] < 0 or box["y"] + box["height"] > height:
            off.append(name)
    return off


def _step_bar_top(page, lesson, height: int) -> float:
    """Where the step bar starts on the screen (it covers what scrolls under it), or the screen's bottom."""
    bar = page.locator(f".st-key-{lesson.slug}-steps").first
    box = bar.bounding_box() if bar.count() else None
    return min(box["y"], height) if box else height


def _leads_with_a_pitfall(page, top: float) -> bool:
    """Whether a pitfall callout is shown above the figure starting ``top`` px down: such a part leads with it."""
    callout = page.locator("[data-testid=stMain] strong", has_text="Pitfall:")
    boxes = [callout.nth(i).bounding_box() for i in range(callout.count())]
    return any(box is not None and box["y"] < top for box in boxes)
