"""Every registered figure, exported as SVG at blog size (1200×675) and slide size (1920×1080) in the light
and blog themes, has no overlapping and no cut-off text (checked in chromium by tests/text_layout.py).

Run time: one kaleido export per case (~0.3-1.5 s on a busy machine), 4 × the number of figures; the
exports go through ``posviz.export.export_figure``, the path of the app's and the CLI's SVG buttons.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from posviz import export
from posviz.figures import FIGURES
from tests.browser.conftest import CHROMIUM_ARGS, _chromium, _need_browser
from tests.text_layout import Chart, Text, collect, cut_off, open_svg, overlaps, problems

pytestmark = pytest.mark.browser

SIZES = {"blog": (1200, 675), "slide": (1920, 1080)}
THEMES = ("light", "blog")


@pytest.fixture(scope="module")
def svg_page() -> Iterator[object]:
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        yield browser.new_page()
        browser.close()


def _svg_chart(page: object, svg: bytes | str) -> Chart:
    open_svg(page, svg)
    (chart,) = collect(page, "body > svg")
    return chart


# ------------------------------------------------------------------------------------------ the checker

def _box(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def test_checker_finds_overlaps_and_cut_offs_on_its_own_boxes():
    a = Text("a", "tick", _box(0, 0, 50, 20), 14)
    b = Text("b", "tick", _box(40, 0, 90, 20), 14)  # 10 px into a
    c = Text("c", "tick", _box(100, 0, 150, 20), 14)  # clear of both
    d = Text("d", "tick", _box(0, 17, 50, 37), 14)  # line boxes touch only in their leading
    e = Text("e", "title", _box(180, 0, 230, 20), 14)  # past the right edge of a 200 px chart
    chart = Chart(200, 100, (a, b, c, d, e))
    assert overlaps(chart) == [(a, b)]
    assert cut_off(chart) == [e]
    # a rotated box: a label at -90° is tall and thin, and only hits what lies across it
    tall = Text("t", "tick", ((60, 60), (60, 10), (75, 10), (75, 60)), 14)
    assert overlaps(Chart(200, 100, (c, tall))) == []
    assert overlaps(Chart(200, 100, (b, tall))) == [(b, tall)]


SVG_BAD = """<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120" viewBox="0 0 300 120">
<g class="g-gtitle"><text x="10" y="30" style="font-size: 20px">A title that runs on</text></g>
<g class="annotation"><text x="60" y="32" style="font-size: 20px">into this note</text></g>
<g class="xtick"><text x="250" y="100" style="font-size: 14px">12345678</text></g>
<g class="xtick"><text x="20" y="100" style="font-size: 14px">ok</text></g>
</svg>"""


def test_checker_reads_an_svg_in_chromium(svg_page):
    chart = _svg_chart(svg_page, SVG_BAD)
    assert (chart.width, chart.height) == (300, 120)
    assert {t.kind for t in chart.texts} == {"title", "annotation", "tick"}
    assert [(a.text, b.text) for a, b in overlaps(chart)] == [("A title that runs on", "into this note")]
    assert [t.text for t in cut_off(chart)] == ["12345678"]


# ------------------------------------------------------------------------------------------ every figure

@pytest.mark.parametrize("name", sorted(FIGURES))
def test_exported_figure_text_is_clean(svg_page, name):
    found = []
    for size, (width, height) in SIZES.items():
        for theme in THEMES:
            svg = export.export_figure(name, {}, "svg", export.ExportOptions(width=width, height=height, theme=theme))
            chart = _svg_chart(svg_page, svg)
            assert len(chart.texts) >= 2, (name, size, theme)  # at least a title and a label were read
            found += [f"{size} {theme}: {p}" for p in problems(chart)]
    assert not found, "\n".join(found)
