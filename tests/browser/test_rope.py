"""Browser tests of the RoPE page: the clock plays client-side, sliders redraw, links restore a view."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posviz.figures.rope_hands import clock_still
from testkit.browser import chart_count, chart_traces, error_elements, move_slider, open_page

pytestmark = pytest.mark.browser

MARK = "() => { document.querySelectorAll('.js-plotly-plot')[0].__posvizMark = 'same-node'; }"
MARKED = "() => document.querySelectorAll('.js-plotly-plot')[0].__posvizMark"
SLIDER_VALUE = "() => { const s = document.querySelectorAll('.js-plotly-plot')[0].layout.sliders[0];" \
               " return s.steps[s.active].value; }"


def tips(page) -> list[float]:
    return chart_traces(page, 0)[3]["x"]


ANGLE_LABELS = "() => [...document.querySelectorAll('.js-plotly-plot')[0].querySelectorAll('.textpoint text')]" \
               ".map(t => t.textContent).filter(t => t.startsWith('m·θ='))"


def angle_labels(page) -> list[str]:
    """The clock's rendered second label lines ("m·θ=... rad"), read from the SVG."""
    return page.evaluate(ANGLE_LABELS)


def test_page_loads_and_play_animates_without_rerun(page, app_url):
    # every pair, its angle under its clock; M = 30 over 31 frames, so frame f is position m = f
    open_page(page, app_url, "RoPE", part="clock", angles=1, pairs="all", d=64, base=10000, m_max=30, frames=31)
    assert error_elements(page) == []
    start = tips(page)
    assert len(start) == 32  # d = 64 -> 32 clock hands
    # the still is the builder's informative frame, m = M/3 (the figure declares it as its slider's `active`)
    still = clock_still(31)
    assert page.evaluate(SLIDER_VALUE) == str(still)  # the position slider starts on the still
    m = 30 * still / 30
    labels = angle_labels(page)  # the label template is filled in the browser
    assert labels[0] == f"m·θ={m:.3g} rad"  # pair 0 turns one radian per token
    shown = [float(t.split("=")[1].split()[0]) for t in labels]
    np.testing.assert_allclose(shown, m * 10000.0 ** (-2 * np.arange(32) / 64), rtol=5e-3)
    angle_labels_at_start = labels
    page.evaluate(MARK)
    started = page.posviz_started  # script runs the server has begun (testkit.browser.count_runs)
    clock = page.locator(".js-plotly-plot").first
    clock.locator("g.updatemenu-button", has_text="Play").first.click(force=True)
    page.wait_for_function(
        "(x0) => { const t = document.querySelectorAll('.js-plotly-plot')[0]._fullData[3].x;"
        " return Math.abs(t[0] - x0) > 1e-3; }", arg=start[0], timeout=15_000)
    # wait until the animation is off the still and off the first frame (where Play starts depends on whether
    # plotly has a current frame yet), then read the hands, labels and slider at once
    page.wait_for_function(f"() => !['0', '{still}'].includes(({SLIDER_VALUE})())", timeout=15_000)
    mid, labels, frame = page.evaluate(
        f"() => [document.querySelectorAll('.js-plotly-plot')[0]._fullData[3].x, ({ANGLE_LABELS})(),"
        f" ({SLIDER_VALUE})()]")
    assert mid != start
    assert len(labels) == 32 and labels != angle_labels_at_start
    assert labels[0] == f"m·θ={30 * int(frame) / 30:.3g} rad"  # the labels follow the animation's frame
    assert float(labels[0].split("=")[1].split()[0]) > float(labels[8].split("=")[1].split()[0]) > 0  # pair 0 fastest
    # no script rerun, and the chart was not remounted
    assert [page.posviz_started - started, page.evaluate(MARKED)] == [0, "same-node"]
    clock.locator("g.updatemenu-button", has_text="Pause").first.click(force=True)
    page.wait_for_timeout(300)
    paused = tips(page)
    page.wait_for_timeout(600)
    assert tips(page) == paused


def test_slider_move_redraws(page, app_url):
    open_page(page, app_url, "RoPE", part="clock")
    assert angle_labels(page) == []  # by default one label line per clock: i and λ
    before = chart_traces(page, 0)[2]["x"]
    labels_js = "() => document.querySelectorAll('.js-plotly-plot')[0]._fullData[1].text"
    labels = page.evaluate(labels_js)
    move_slider(page, "head dim d", 2)  # 64 -> 68
    assert "d=68" in page.url
    after = chart_traces(page, 0)[2]["x"]
    assert len(tips(page)) == len(before) // 3 == 16  # by default 16 pairs, fastest to slowest
    assert len(after) == len(before) and page.evaluate(labels_js) != labels  # other pairs, same places
    title = page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[0]._fullLayout.title.text")
    assert "^(-2i/68)" in title and "(16 of 34 pairs shown)" in title
    assert error_elements(page) == []


def test_shared_link_restores_view(page, app_url):
    open_page(page, app_url, "RoPE", d=16, n=64, layout="half", base=100, part="tables")
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (8, 64)
    assert z[1][1] == pytest.approx(100 ** (-2 / 16), abs=1e-5)  # angle of pair 1 at m = 1
    assert chart_count(page) == 1  # one chart per part
    assert error_elements(page) == []
    open_page(page, app_url, "RoPE", d=16, n=64, base=100, part="cossin")
    tables = chart_traces(page, 0)
    assert len(tables) == 4  # cos/sin tables in both layouts
    assert tables[0]["z"][1][2] == pytest.approx(math.cos(100 ** (-2 / 16)), abs=1e-5)  # interleaved cos, pair 1
    assert error_elements(page) == []


def test_q_and_k_animation_plays_in_the_browser_and_keeps_the_score(page, app_url):
    """Play moves both hands of the chosen pair; the status line keeps the angle and the score; no rerun."""
    open_page(page, app_url, "RoPE", part="together", d=8, base=100, pair=1)
    assert error_elements(page) == []
    js = "() => { const f = document.querySelectorAll('.js-plotly-plot')[0]._fullData;" \
         " return [f[1].x[1], f[1].y[1], f[2].x[1], f[2].y[1], f[7].text[0]]; }"
    qx, qy, kx, ky, status = page.evaluate(js)
    page.evaluate(MARK)
    started = page.posviz_started  # script runs the server has begun (testkit.browser.count_runs)
    chart = page.locator(".js-plotly-plot").first
    chart.locator("g.updatemenu-button", has_text="Play").first.click(force=True)
    page.wait_for_function(
        "(x0) => Math.abs(document.querySelectorAll('.js-plotly-plot')[0]._fullData[1].x[1] - x0) > 1e-3",
        arg=qx, timeout=15_000)
    chart.locator("g.updatemenu-button", has_text="Pause").first.click(force=True)
    page.wait_for_timeout(300)
    qx2, qy2, kx2, ky2, status2 = page.evaluate(js)
    assert (qx2, qy2) != (qx, qy) and (kx2, ky2) != (kx, ky)  # both hands turned
    before = math.atan2(qy, qx) - math.atan2(ky, kx)
    after = math.atan2(qy2, qx2) - math.atan2(ky2, kx2)
    assert abs(math.remainder(after - before, 2 * math.pi)) < 1e-4  # by the same angle
    assert status2 != status and status2.startswith("c = ")
    assert status2.split("whole score")[1] == status.split("whole score")[1]  # the score printed stays put
    # no script rerun, and the chart was not remounted
    assert [page.posviz_started - started, page.evaluate(MARKED)] == [0, "same-node"]
