"""Browser tests of the Context extension page against a real streamlit server: what its charts draw (every
lesson's load, shared link and bad-link fallback: test_every_lesson.py)."""

from __future__ import annotations

import math

import pytest

from testkit.browser import (
    chart_count,
    chart_traces,
    click_and_wait,
    error_elements,
    move_slider,
    open_page,
)

pytestmark = pytest.mark.browser
NAME = "Context_extension"


def test_exact_wavelengths_and_a_slider_move_redraws_them(page, app_url):
    open_page(page, app_url, NAME)
    traces = chart_traces(page, 0)
    rope = next(t for t in traces if t["name"] == "RoPE (no scaling)")
    assert len(rope["y"]) == 64  # d = 128 -> 64 pairs
    assert rope["y"][0] == pytest.approx(2 * math.pi, rel=1e-6)
    assert rope["y"][-1] == pytest.approx(2 * math.pi * 10000 ** (126 / 128), rel=1e-5)
    pi = next(t for t in traces if t["name"] == "PI / linear")
    assert pi["y"][0] == pytest.approx(8 * 2 * math.pi, rel=1e-6)
    before = traces[0]["y"]
    move_slider(page, "rotary dim d", -1)  # one step of 2: 128 -> 126
    after = chart_traces(page, 0)[0]["y"]
    assert len(before) == 64 and len(after) == 63
    assert "d=126" in page.url


def test_old_yarn_link_opens_the_ramp_alone_and_the_sidebar_moves_it(page, app_url):
    open_page(page, app_url, NAME, part="yarn")  # a link shared before the part was split in three
    assert chart_count(page) == 1
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("YaRN ramp (code shown bold), d = 128")
    assert len(chart_traces(page, 0)[0]["y"]) == 64
    move_slider(page, "rotary dim d", -2)  # the sidebar applies to every part: 128 -> 124
    assert len(chart_traces(page, 0)[0]["y"]) == 62 and chart_count(page) == 1
    assert error_elements(page) == []


MARKER_AND_FRAME = "() => { const g = document.querySelectorAll('.js-plotly-plot')[0], s = g.layout.sliders[0];" \
                   " return [g._fullData[2].x[0], s.steps[s.active].value]; }"


def test_dynamic_scrubber_plays_in_the_browser(page, app_url):
    open_page(page, app_url, NAME, part="dynamic", d=128, L=4096, s=8)
    # the still is the frame nearest L' = s·L (at l = L the base has not moved yet), and the slider starts on it
    marker, frame = page.evaluate(MARKER_AND_FRAME)
    names = page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[0].layout.sliders[0].steps"
                          ".map(s => s.value)")
    lengths = [int(n) for n in names]
    assert lengths == sorted(lengths) and lengths[0] == 4096
    assert marker == int(frame) == min(lengths, key=lambda n: abs(math.log(n / (8 * 4096))))
    started = page.posviz_started  # script runs the server has begun (testkit.browser.count_runs)
    page.locator(".updatemenu-button").first.click()  # Play
    # Play runs the frames from the first, l = L (plotly's fromcurrent has no current frame before a first
    # Play), and the marker and the slider move on together, frame by frame, without a server round trip
    page.wait_for_function(f"() => ({MARKER_AND_FRAME})()[0] !== {marker}", timeout=15_000)
    first = page.evaluate(MARKER_AND_FRAME)
    page.wait_for_timeout(450)
    later = page.evaluate(MARKER_AND_FRAME)
    for x, name in (first, later):
        assert x == int(name) and x in lengths
    assert later[0] > first[0]
    assert page.posviz_started - started == 0
    assert page.locator("[data-testid=stApp][data-test-script-state=notRunning]").count() == 1
    assert error_elements(page) == []


def test_shared_link_restores_a_preset_view(page, app_url):
    open_page(page, app_url, NAME, part="models", preset="DeepSeek-V3")
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("DeepSeek-V3: yarn, d = 64")
    assert len(chart_traces(page, 0)[1]["y"]) == 32  # qk_rope_head_dim 64 -> 32 pairs
    assert error_elements(page) == []


def test_config_part_shows_no_lesson_sliders_takes_garbage_plainly_and_next_goes_on(page, app_url):
    open_page(page, app_url, NAME, part="models")
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.get_by_role("slider").count() == 0  # the config part reads none of the 12 controls
    page.get_by_text("Paste your own config.json").click()  # the box folds away until it is needed
    box = page.get_by_role("textbox", name="config.json (optional; it overrides the preset)")
    box.fill('{"head_dim": 64, "rope_scaling": {"type": "<img src=x onerror=alert(1)>"}}')
    # an unreadable paste draws no chart (and no other model)
    click_and_wait(page, box, press="Control+Enter", charts=False)
    assert error_elements(page) == []
    assert page.locator("img[src=x]").count() == 0
    shown = page.locator("[data-testid=stText]").all_inner_texts()
    assert any("rope_type must be one of" in t and "<img" in t for t in shown), shown
    open_page(page, app_url, NAME, part="dynamic", d=64)
    assert sidebar.get_by_role("slider", name="rotary dim d").count() == 1  # dynamic NTK reads d, b, s, L only
    assert sidebar.get_by_role("slider", name="YaRN beta_fast (β)").count() == 0
    click_and_wait(page, page.get_by_role("button", name="8. Scores past L →"))
    assert "part=scores" in page.url and "d=64" in page.url  # the step keeps the view's settings
    assert page.locator(".js-plotly-plot .gtitle").first.text_content().startswith("Attention score vs distance")
