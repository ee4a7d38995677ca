"""Every registered figure, as a class sees it, has no overlapping and no cut-off text (measured in chromium by
testkit/text_layout.py on kaleido SVGs), and each of those SVGs is a valid file of its size in its theme's colours.

Per figure, seven cases (``CASES``), each rendered once per run in one theme:

- ``column``: the chart at ``CHART_WIDTH`` (820 px, the column a 1280 px window gives it) at the figure's own
  height, as the app draws it outside presenter mode;
- ``presenter1`` / ``presenter1.25`` / ``presenter1.5``: presenter mode at the narrowest column that gets that
  font scale (``posviz.ui.page._figure_scale``: ×k from k × 820 px on, so 820 px in a 1280×800 window, 1025 and
  1230 px at 1920×1080), the figure styled as the panel styles it (``style(fig, theme, k)``: the figure magnified
  ×k, and no text under PRESENTER_MIN_FONT px, which is checked here on the rendered text too);
- ``blog_export``: 1200×675 through ``posviz.export.export_figure``, the path of the app's and the CLI's export
  buttons (what writers put in an article);
- ``column_zh`` / ``blog_export_zh``: the column and the blog export with the figure's text in Chinese
  (``posviz.i18n``), whose glyphs are wider and taller than the English letters they replace.

The themes rotate over the cases and from one figure to the next, among those a case is seen in: the app draws
light or dark (Streamlit's theme), an export may be light, dark or blog. So every case meets each of its themes
and every figure is drawn in the light and the dark theme's colours (the dark theme's SVG replaces a second, dark
browser server). Kaleido renders the SVGs on two threads a few cases ahead of the test that measures them
(``Renders``); all other work stays in the test.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from posviz import export, i18n
from posviz.figures import FIGURES, build
from posviz.theme import PRESENTER_MIN_FONT, style
from posviz.ui.page import CHART_WIDTH, SCALE_STEPS
from testkit.browser import CHROMIUM_ARGS, chromium_path, need_browser
from testkit.text_layout import Chart, Text, collect, cut_off, open_svg, overlaps, problems

pytestmark = pytest.mark.render

NAMES = sorted(FIGURES)
THEMES = ("light", "dark", "blog")
APP_THEMES = ("light", "dark")  # the page follows Streamlit's theme; "blog" is an export setting only
PAPER = {"light": "rgb(255, 255, 255)", "dark": "rgb(15, 17, 23)", "blog": "rgb(255, 255, 255)"}  # posviz.theme
PLOTLY_DEFAULT_HEIGHT = 450  # st.plotly_chart(height="content") without a layout height: plotly.js's default


@dataclass(frozen=True)
class Case:
    """One way a figure is seen: ``width`` px wide, ``height`` px high (None: the figure's own height, as the app
    draws it), presenter mode's font ``scale`` (0: not presenting); ``exported``: through export_figure."""

    label: str
    width: int
    height: int | None = None
    scale: float = 0.0
    exported: bool = False
    lang: str = "en"


CASES = (
    Case("column", CHART_WIDTH),
    *(Case(f"presenter{k:g}", round(CHART_WIDTH * k), scale=k) for k in SCALE_STEPS),
    Case("blog_export", *export.SIZE_PRESETS["blog"], exported=True),
    Case("column_zh", CHART_WIDTH, lang="zh"),
    Case("blog_export_zh", *export.SIZE_PRESETS["blog"], exported=True, lang="zh"),
)


def themes_of(case: Case) -> tuple[str, ...]:
    return THEMES if case.exported else APP_THEMES


def theme_of(name: str, case: Case) -> str:
    themes = themes_of(case)
    return themes[(NAMES.index(name) + CASES.index(case)) % len(themes)]


def render_svg(name: str, case: Case, theme: str) -> tuple[bytes, int, int]:
    """The SVG of figure ``name`` seen as ``case`` in ``theme``, with its width and height in px. Rendered on a
    worker thread, which starts in English: the case's language is set here."""
    with i18n.using(case.lang):
        return _render_svg(name, case, theme)


def _render_svg(name: str, case: Case, theme: str) -> tuple[bytes, int, int]:
    if case.exported:
        opts = export.ExportOptions(width=case.width, height=case.height, theme=theme)
        return export.export_figure(name, {}, "svg", opts), case.width, case.height
    fig = style(build(name), theme, case.scale)  # as posviz.ui.live.figures.built_figure styles it
    height = case.height or fig.layout.height or PLOTLY_DEFAULT_HEIGHT
    fig.update_layout(width=case.width, height=height)
    return export.render(fig, "svg", export.ExportOptions(width=case.width, height=height, theme=theme)), \
        case.width, height


class Renders:
    """Each (figure, case, theme) rendered once per run, on two threads (kaleido's two browser tabs) a few cases
    ahead of the test that asks for it, in the order the selected tests run."""

    AHEAD = 4

    def __init__(self, order: list[tuple[str, Case]]) -> None:
        self.order = order
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=export.BROWSER_TABS,
                                                          thread_name_prefix="svg")
        self.futures: dict[tuple[str, Case, str], concurrent.futures.Future] = {}

    def _submit(self, name: str, case: Case) -> concurrent.futures.Future:
        key = (name, case, theme_of(name, case))
        if key not in self.futures:
            self.futures[key] = self.pool.submit(render_svg, *key)
        return self.futures[key]

    def get(self, name: str, case: Case) -> tuple[bytes, int, int]:
        future = self._submit(name, case)
        if (name, case) in self.order:
            i = self.order.index((name, case))
            for ahead in self.order[i + 1:i + 1 + self.AHEAD]:
                self._submit(*ahead)
        return future.result(timeout=300)

    def close(self) -> None:
        for future in self.futures.values():
            future.cancel()
        self.pool.shutdown(wait=True)


@pytest.fixture(scope="module")
def renders(request) -> Iterator[Renders]:
    need_browser()
    order = [(item.callspec.params["name"], item.callspec.params["case"]) for item in request.session.items
             if getattr(item, "originalname", None) == "test_figure_text_is_clean"
             and item.module is request.module]
    r = Renders(order)
    yield r
    r.close()


@pytest.fixture(scope="module")
def svg_page() -> Iterator[object]:
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
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


def test_the_cases_meet_each_of_their_themes_and_every_figure_is_drawn_light_and_dark():
    for case in CASES:
        assert {theme_of(name, case) for name in NAMES} == set(themes_of(case)), case.label
    for name in NAMES:
        assert {theme_of(name, case) for case in CASES} >= set(APP_THEMES), name


# ------------------------------------------------------------------------------------------ every figure

BACKGROUND = re.compile(rb'^<svg[^>]*>\s*<rect x="0" y="0" width="([\d.]+)" height="([\d.]+)" '
                        rb'style="fill: (rgb\([^)]*\))')


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
@pytest.mark.parametrize("name", NAMES)
def test_figure_text_is_clean(renders, svg_page, name, case):
    theme = theme_of(name, case)
    svg, width, height = renders.get(name, case)
    # a valid SVG of the asked size, on the theme's paper, never Streamlit's placeholder colour
    assert svg.lstrip().startswith(b"<svg") and b"#000001" not in svg
    background = BACKGROUND.match(svg.lstrip())
    assert background, svg[:300]
    assert background.groups() == (str(width).encode(), str(height).encode(), PAPER[theme].encode())
    assert re.search(rb'class="(trace |hm"|table")', svg), "no data drawn"
    chart = _svg_chart(svg_page, svg)
    assert (chart.width, chart.height) == (width, height)
    assert len(chart.texts) >= 2  # at least a title and a label were read
    found = problems(chart)
    if case.scale:  # what a class reads: nothing smaller than presenter mode's floor
        found += [f"{t} is {t.size:g} px, under {PRESENTER_MIN_FONT} px" for t in chart.texts
                  if t.size < PRESENTER_MIN_FONT - 0.05]
    assert not found, f"{case.label} {width}×{height} {theme}:\n" + "\n".join(found)
