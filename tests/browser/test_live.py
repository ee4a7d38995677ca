"""Live figures: dragging a live slider moves the chart with no script rerun; release reruns once and the
address and the captions hold the released value (posviz.ui.live)."""

from __future__ import annotations

import urllib.parse

import numpy as np
import pytest

from tests.browser.conftest import IDLE, live_drag, open_page

pytestmark = pytest.mark.browser

# page, query, widget key, URL name, px per move, the caption text the released value must produce
CASES = {
    "sinusoidal heatmap, base": ("Sinusoidal", {}, "sinusoidal.base", "base", -5, None),
    "sinusoidal waves, base": ("Sinusoidal", {"part": "waves"}, "sinusoidal.base", "base", -5,
                               lambda b: f"2π·b = {2 * np.pi * b:,.0f}"),
    "gaussian kernel, σ1": ("Gaussian_kernel_RoPE", {}, "gaussian_kernel_rope.sigma1", "sigma1", 6, None),
    "gaussian kernel, σ2": ("Gaussian_kernel_RoPE", {}, "gaussian_kernel_rope.sigma2", "sigma2", 6,
                            lambda s: f"at σ2 = {s:g} tokens"),
    "2D channel map, base": ("2D_encodings", {}, "2d.base", "base", -6, None),
    "RoPE clock, base": ("RoPE", {"part": "clock"}, "rope.base", "base", -5, None),
    "context wavelengths, s": ("Context_extension", {}, "context_extension.s", "s", 5, None),
    "context per-pair scale, s": ("Context_extension", {"part": "ratio"}, "context_extension.s", "s", 5,
                                  lambda s: f"s = {s:g} means fully interpolated"),
    "YaRN ramp, beta_fast": ("Context_extension", {"part": "yarn"}, "context_extension.beta_fast", "beta_fast", 5,
                             None),
    "YaRN ramp, beta_slow": ("Context_extension", {"part": "yarn"}, "context_extension.beta_slow", "beta_slow", 5,
                             None),
    "CoPE gates, a": ("CoPE", {}, "cope.scale", "scale", 5, None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_live_drag_moves_the_chart_without_a_rerun(page, app_url, case):
    name, query, key, url_name, dx, caption = CASES[case]
    open_page(page, app_url, name, **query)
    before = page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.shown")
    assert before == "exact"
    drag = live_drag(page, key, dx)
    states = {shown for shown, _ in drag["shown"]} - {"exact"}
    assert len(states) >= 3, drag["shown"]  # the chart went through several states while the thumb moved
    assert drag["runs_during_drag"] == 0  # ... and not one script run started before the release
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_function("() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'")
    released = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)[url_name][0]
    value = float(released)
    seen = sorted(float(s.split("=")[1]) for s in states)
    last = float(drag["shown"][-1][0].split("=")[1])
    assert abs(last - value) <= max(np.diff(seen))  # the last state shown is the one next to the released value
    if caption:
        assert caption(value) in " ".join(page.locator("[data-testid=stCaptionContainer]").all_inner_texts())
