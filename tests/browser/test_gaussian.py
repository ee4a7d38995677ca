"""Browser tests of the Gaussian-kernel RoPE page against a real streamlit server (that its share box holds this
page's own address, which st.context.url trims: test_every_lesson.py, like every lesson's load and links)."""

from __future__ import annotations

import pytest

from testkit.browser import chart_traces, click_and_wait, error_elements, move_slider, open_page

pytestmark = pytest.mark.browser
PAGE = "Gaussian_kernel_RoPE"


def test_page_loads_and_slider_redraws(page, app_url):
    open_page(page, app_url, PAGE)
    assert error_elements(page) == []
    assert page.locator(".js-plotly-plot").count() == 1  # part 1, the kernel, only
    kernel = chart_traces(page, 0)
    assert [t["type"] for t in kernel] == ["scatter"] * 3
    assert kernel[2]["y"][0] == pytest.approx(1.0)  # K(0) = α1 + α2

    move_slider(page, "local weight α1", -2)  # 0.7 -> 0.6
    assert error_elements(page) == []
    assert chart_traces(page, 0)[2]["y"][0] == pytest.approx(0.9)
    assert "alpha1=0.6" in page.url

    click_and_wait(page, page.get_by_text("2. Three ways to apply it", exact=True))
    assert "part=modes" in page.url and page.locator(".js-plotly-plot").count() == 1
    attention = chart_traces(page, 0)
    assert len(attention[1]["z"]) == 128 and len(attention[1]["z"][0]) == 128

    move_slider(page, "sequence length T", -1)  # 128 -> 120
    attention = chart_traces(page, 0)
    assert len(attention[1]["z"]) == 120 and "T=120" in page.url
    assert error_elements(page) == []


def test_shared_link_and_both_zero_alphas(page, app_url):
    open_page(page, app_url, PAGE, part="modes", alpha1=0, alpha2=0, T=64, mode="relative_log")
    assert error_elements(page) == []
    warnings = page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
    assert any("both 0" in w for w in warnings), warnings
    attention = chart_traces(page, 0)
    assert len(attention[1]["z"]) == 64
    assert attention[1]["name"] == "(c) +log K(|m−n|)"
    click_and_wait(page, page.get_by_text("1. The kernel", exact=True))
    assert chart_traces(page, 0)[2]["y"][0] == pytest.approx(1.0)  # fell back to 0.7 + 0.3

