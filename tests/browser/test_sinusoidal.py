"""Browser tests of the Sinusoidal page against a real streamlit server: what its heatmap draws (every lesson's
load, shared link and bad-link fallback: test_every_lesson.py)."""

from __future__ import annotations

import pytest

from testkit.browser import (
    chart_traces,
    error_elements,
    move_slider,
    open_export,
    open_page,
    share_box_link,
    wait_idle,
)

pytestmark = pytest.mark.browser


def test_slider_moves_redraw_the_heatmap_and_the_share_box_link_restores_them(page, browser, app_url):
    open_page(page, app_url, "Sinusoidal")
    heatmap = chart_traces(page, 0)[0]
    assert heatmap["type"] == "heatmap"
    before = heatmap["z"]
    assert len(before) == 100 and len(before[0]) == 128  # P × d_model at defaults
    move_slider(page, "model dimension d_model", -2)  # 128 -> 124
    after = chart_traces(page, 0)[0]["z"]
    assert len(after[0]) == 124 != len(before[0])
    assert "d=124" in page.url
    move_slider(page, "model dimension d_model", -2)  # 124 -> 120
    link = share_box_link(page)
    assert "d=120" in link
    other = browser.new_page()
    try:
        other.goto(link)
        wait_idle(other)
        assert len(chart_traces(other, 0)[0]["z"][0]) == 120
        slider_text = other.locator("[data-testid=stSlider]").nth(1).inner_text()
        assert "120" in slider_text, slider_text
    finally:
        other.close()


def test_a_concat_link_draws_the_exact_table_at_base_100(page, app_url):
    open_page(page, app_url, "Sinusoidal", d=64, n=40, layout="concat", base=100)
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (40, 64)
    # concat layout at base 100: column 32 is cos(0 * w) = 1 at position 0
    assert z[0][32] == pytest.approx(1.0)
    # the live heatmap shows the exact figure at the shared settings, not a scrub state
    assert page.evaluate("() => document.querySelector('.posviz-live-chart').dataset.shown") == "exact"
    wait_idle(page)
    assert error_elements(page) == []


def test_download_png_and_svg_from_the_app(page, app_url, tmp_path):
    import imageio.v3 as iio

    open_page(page, app_url, "Sinusoidal", d=32)
    open_export(page, 0)
    with page.expect_download(timeout=90_000) as info:
        page.get_by_role("button", name="PNG").first.click()
    png = tmp_path / "fig.png"
    info.value.save_as(png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = iio.imread(data, extension=".png")[..., :3].astype(float)
    assert img.shape[:2] == (1350, 2400)  # blog preset 1200×675 at the default scale 2
    assert img.std() > 5 and img.mean() > 60
    with page.expect_download(timeout=90_000) as info:
        page.get_by_role("button", name="SVG").first.click()
    svg = tmp_path / "fig.svg"
    info.value.save_as(svg)
    text = svg.read_text()
    assert text.lstrip().startswith("<svg") and "#000001" not in text
    assert info.value.suggested_filename == "sinusoidal_heatmap.svg"

