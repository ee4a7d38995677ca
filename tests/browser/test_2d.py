"""Browser tests of the 2D encodings page against a real streamlit server: what its charts draw (every lesson's
load, shared link and bad-link fallback: test_every_lesson.py)."""

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
PAGE = "2D_encodings"


def test_page_loads_and_draws_the_patch_grid(page, app_url):
    open_page(page, app_url, PAGE, ch=0)
    assert error_elements(page) == []
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (14, 14)
    # MAE channel 0 is sin(column · 1): the same on every row, sin(c) along it
    assert z[5][3] == pytest.approx(math.sin(3.0), abs=1e-6)
    assert z[0][3] == pytest.approx(z[13][3], abs=1e-6)
    assert chart_count(page) == 1  # one chart per part: a slider move redraws one chart


def test_slider_moves_redraw_the_grid_charts_and_a_part_switch_shows_similarity(page, app_url):
    open_page(page, app_url, PAGE)
    move_slider(page, "grid width W (patches)", -2)  # 14 -> 12
    assert "W=12" in page.url
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (14, 12)
    click_and_wait(page, page.get_by_text("1b. Small multiples", exact=True))
    assert "part=multiples" in page.url and "W=12" in page.url  # the sidebar's grid applies to every part
    mosaic = chart_traces(page, 0)
    assert len(mosaic) == 1 and len(mosaic[0]["z"][0]) == 4 * 12 + 3 * 2  # 4 tiles of W = 12 + 3 gutters
    move_slider(page, "grid width W (patches)", 2)  # 12 -> 14: the small multiples follow
    assert len(chart_traces(page, 0)[0]["z"][0]) == 4 * 14 + 3 * 2
    assert error_elements(page) == []
    assert "W=" not in page.url  # back at the default grid
    click_and_wait(page, page.get_by_text("2. Similar patches", exact=True))  # the radio, not the Next button
    assert "part=similarity" in page.url
    sim = [t for t in chart_traces(page, 0) if t["type"] == "heatmap"]
    assert len(sim) == 3 and sim[1]["z"][9][2] == pytest.approx(1.0, abs=1e-6)  # add: (2, 9) ~ (9, 2)
    assert sim[2]["z"][9][2] < 0.99  # MAE keeps them apart
    assert error_elements(page) == []


def test_shared_link_restores_a_non_default_view(page, app_url):
    open_page(page, app_url, PAGE, H=6, W=9, D=32, combine="concat", ch=1)
    assert error_elements(page) == []
    z = chart_traces(page, 0)[0]["z"]
    assert (len(z), len(z[0])) == (6, 9)
    # concat (row first), channel 1 = cos(row · 1): constant along each row
    assert z[4][0] == pytest.approx(math.cos(4.0), abs=1e-6) and z[4][8] == pytest.approx(math.cos(4.0), abs=1e-6)
    open_page(page, app_url, PAGE, part="rope", kind="mixed", rbase=10, H=6, W=9)
    assert "RoPE-Mixed init" in " ".join(t["name"] or "" for t in chart_traces(page, 0)) or \
        page.locator(".gtitle", has_text="RoPE-Mixed init").count() == 1
    assert len(chart_traces(page, 0)[0]["z"]) == 6
