"""Every part of every lesson, as a class sees it: no chart text overlaps another or is cut off by its chart,
at 1280×800, in presenter mode on a 1920×1080 screen and on a 1280×800 projector (figures at the font scale the
window fits; there the part's figure, live or not, must also start in the top 60 % of the screen unless the part
leads with a pitfall callout), and in the dark theme. Lessons and parts come from their declarations, so a new
lesson is checked without an edit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from posviz import ui
from tests.browser.conftest import CHART, ROOT, open_page, served, wait_idle
from tests.text_layout import chart_problems

pytestmark = pytest.mark.browser

LESSONS = ui.lessons(ROOT / "pages")
VIEWS = {  # name: (viewport, query added to every part, server options, the figure must start above the fold)
    "1280x800": ((1280, 800), {}, {}, False),
    "presenter-1920x1080": ((1920, 1080), {"present": 1}, {}, True),
    "presenter-1280x800": ((1280, 800), {"present": 1}, {}, True),  # a common classroom projector
    "dark-1280x800": ((1280, 800), {}, {"theme.base": "dark"}, False),
}


@pytest.fixture(scope="module")
def dark_url() -> Iterator[str]:
    """A second server with Streamlit's dark theme (the figures follow it)."""
    with served({"theme.base": "dark"}) as url:
        yield url


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("lesson", LESSONS, ids=[ls.slug for ls in LESSONS])
def test_every_part_is_readable(page, app_url, dark_url, lesson, view):
    (width, height), query, options, fold = VIEWS[view]
    page.set_viewport_size({"width": width, "height": height})
    url = dark_url if options else app_url
    found = []
    for part in lesson.parts:
        open_page(page, url, lesson.url_path, charts=False, part=part, **query)
        page.wait_for_function(  # every chart drawn (a pitfalls part may have none until a toggle)
            "() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
            ".every(x => x.querySelector('.js-plotly-plot .main-svg'))")
        wait_idle(page, charts=False)
        for index, issues in chart_problems(page).items():
            found += [f"{part}, chart {index}: {issue}" for issue in issues]
        charts = page.locator(CHART)
        # "all" is a whole lesson on one page, not a step
        if fold and charts.count() and part != "all":
            top = charts.first.bounding_box()["y"]
            if top > height * 0.6 and not _leads_with_a_pitfall(page, top):
                found.append(f"{part}: the figure starts {top:.0f} px down the {height} px screen")
    assert not found, "\n".join(found)


def _leads_with_a_pitfall(page, top: float) -> bool:
    """Whether a pitfall callout is shown above the figure starting ``top`` px down: such a part leads with it."""
    callout = page.locator("[data-testid=stMain] strong", has_text="Pitfall:")
    boxes = [callout.nth(i).bounding_box() for i in range(callout.count())]
    return any(box is not None and box["y"] < top for box in boxes)
