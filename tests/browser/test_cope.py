"""Browser tests of the CoPE page against a real streamlit server: what its charts draw (every lesson's load,
shared link and bad-link fallback: test_every_lesson.py)."""

from __future__ import annotations

import re

import pytest

from posviz import cope
from testkit.browser import (
    chart_count,
    chart_traces,
    click_and_wait,
    error_elements,
    move_slider,
    open_page,
)

pytestmark = pytest.mark.browser
SCALE = 4.0  # the page's default gate scale


def chip_labels(page) -> list[str]:
    """The token labels of the chips chart, as plotly.js holds them."""
    return page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[0]._fullData[0].text")


def chip_positions(page) -> list[str]:
    """The position labels under the chips (one per key the query can see)."""
    return page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[0]._fullData[1].text")


def test_the_chips_and_the_first_sidebar_slider_redraws_them(page, app_url):
    open_page(page, app_url, "CoPE")
    assert chart_count(page) == 1  # one part, one chart
    assert chip_labels(page)[:3] == ["CoPE", "count", "##s"]
    first = page.get_by_role("slider").first  # what the slider-to-chart benchmark presses
    assert first.evaluate("e => e.closest('[data-testid=stSlider]').innerText").startswith("query i")
    T = cope.cope_run(scale=SCALE).T
    assert len(chip_positions(page)) == T
    move_slider(page, "query i (−1 = last token)", 1)  # -1 -> 0: the first token sees only itself
    assert len(chip_positions(page)) == 1 and "i=0" in page.url
    assert error_elements(page) == []


def test_positions_and_a_slider_move_redraws_them(page, app_url):
    open_page(page, app_url, "CoPE", part="positions")
    assert chart_count(page) == 1
    heat = chart_traces(page, 0)
    assert [t["type"] for t in heat[:3]] == ["heatmap"] * 3
    before = heat[1]["z"]
    L = cope.cope_run(scale=SCALE)
    assert len(before) == L.T and before[-1][0] == pytest.approx(L.positions[-1, 0], abs=1e-4)
    move_slider(page, "npos_max P (0 = T + 1)", 3)  # 0 -> 3: positions clamp at 2
    after = chart_traces(page, 0)[1]["z"]
    top = lambda z: max(v for row in z for v in row if v is not None)  # noqa: E731
    assert top(before) == pytest.approx(L.positions.max(), abs=1e-3)
    table_size = int(re.search(r"npos_max=(\d+)", page.url).group(1))  # the slider's new P, in the address
    assert table_size >= 2 and top(after) == pytest.approx(table_size - 1)  # positions clamp at P − 1
    assert error_elements(page) == []


def test_shared_link_restores_view(page, app_url):
    view = dict(rule="all", scale=40, i=5, example="list")
    open_page(page, app_url, "CoPE", **view)
    labels = chip_labels(page)
    assert labels == list(cope.tokenize(cope.EXAMPLES["list"]).labels)
    open_page(page, app_url, "CoPE", part="query", **view)
    bars = chart_traces(page, 0)
    assert bars[0]["y"][:6] == [6, 5, 4, 3, 2, 1]  # count everything: p_5j = 5 - j + 1
    assert error_elements(page) == []


def test_hostile_text_is_shown_literally(page, app_url):
    open_page(page, app_url, "CoPE", text="<b>x</b> **y** 🙂")
    assert error_elements(page) == []
    shown = page.get_by_test_id("stText").all_inner_texts()
    assert "<b>x</b> **y** 🙂" in shown
    assert page.locator("b:text-is('x'), strong:text-is('y')").count() == 0
    assert chip_labels(page)[:4] == ["&lt;", "b", "&gt;", "x"]
    # plotly drew the escaped label as the characters "<", never as markup
    svg_text = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')[0]"
                             ".querySelectorAll('text')].map(t => t.textContent)")
    assert "<" in svg_text and ">" in svg_text
    bold = page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[0]"
                         ".querySelectorAll('tspan[style*=bold]').length")
    assert bold == 0
    # typed into the box: still text
    box = page.get_by_role("textbox", name="your text")
    box.fill("<i>z</i> # not a heading")
    click_and_wait(page, box, press="Control+Enter")
    assert "<i>z</i> # not a heading" in page.get_by_test_id("stText").all_inner_texts()
    assert page.locator("i:text-is('z'), h1:text-is('not a heading')").count() == 0
    assert error_elements(page) == []


def test_pitfall_toggle_shows_the_leak(page, app_url):
    open_page(page, app_url, "CoPE", charts=False, part="pitfalls", rule="constant", scale=0)
    assert error_elements(page) == []
    click_and_wait(page, page.get_by_text("Show the wrong version beside the right one").first)
    wrong, right = chart_traces(page, 0)[0]["z"], chart_traces(page, 1)[0]["z"]
    T = len(wrong)
    future = lambda z: max(z[i][j] for i in range(T) for j in range(i + 1, T))  # noqa: E731
    assert future(wrong) > 1 and future(right) == 0
    assert wrong[0][0] == pytest.approx(T / 2)  # all gates 0.5: query 0 counts every token


def test_key_slider_shows_the_query_as_its_bound(page, app_url):
    open_page(page, app_url, "CoPE", part="interp", i=5)
    text = page.locator("[data-testid=stSlider]").filter(has_text="key j").inner_text()
    assert text.strip().endswith("5")  # the slider's right end is the query: later keys have no position
    move_slider(page, "key j for the interpolation", 10)  # pressed past the end: stops at 5
    assert "j=5" in page.url and error_elements(page) == []
