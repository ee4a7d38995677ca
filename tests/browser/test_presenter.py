"""Presenter mode as a teacher drives it: figure text at the scale the window fits, Next / Previous and the keyboard
stepping through the parts, the address following, and the share link as a QR code. (A link to every step opening
that step with its figure above the fold, on a 1280×800 projector and a 1920×1080 screen: test_readable_pages.py.)"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from testkit.browser import CHART, click_and_wait, move_slider, open_page, wait_idle

pytestmark = pytest.mark.browser


def _first_chart_top(page) -> float:
    return page.locator(CHART).first.bounding_box()["y"]


FONT = "() => document.querySelector('.js-plotly-plot')._fullLayout.font.size"


@pytest.mark.parametrize(("size", "scale"), [((1280, 800), "1"), ((1600, 900), "1.25"), ((1920, 1080), "1.5")])
def test_figure_text_is_as_large_as_the_window_fits(page, app_url, size, scale):
    """Presenter mode's ×1.5 figure text needs a chart 1.5 times as wide as the 820 px a 1280 px window gives
    (where text would be cut off and legends cover plots): the scale steps down with the window, to ×1 at
    1280 px (a 1280×800 projector's pixels are already 1.5 times larger on the wall). The figures' base font is
    14 px."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_page(page, app_url, "Sinusoidal", present=1)  # waits for the scale the window fits
    assert page.evaluate("() => document.documentElement.dataset.posvizScale") == f"{scale}/{scale}"
    # the scale is reported as its rerun draws the page; on a loaded machine the chart's own draw may come a
    # moment later: it must reach the size within seconds (a wrong scale never does)
    size = round(14 * float(scale))
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({FONT})() === {size}", timeout=10_000)
    assert page.evaluate(FONT) == size


def test_a_narrower_window_redraws_the_figures_at_the_smaller_scale(page, app_url):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, app_url, "RoPE", present=1, part="clock")
    assert page.evaluate(FONT) == 21
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function("() => document.documentElement.dataset.posvizScale === '1/1'")
    wait_idle(page)
    assert page.evaluate(FONT) == 14


def test_next_previous_and_keyboard_step_through_parts_and_update_the_address(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, app_url, "Sinusoidal", present=1)
    assert page.get_by_text("step 1 / 5").count() == 1
    click_and_wait(page, page.get_by_role("button", name="2. One dimension →"))
    assert "part=waves" in page.url
    assert page.get_by_text("step 2 / 5").count() == 1
    page.locator("body").press("Shift+ArrowRight")
    wait_idle(page)
    assert "part=similarity" in page.url
    assert page.get_by_role("heading", name="3. How similar are two positions?").count() == 1
    page.locator("body").press("Shift+ArrowLeft")
    wait_idle(page)
    assert "part=waves" in page.url
    click_and_wait(page, page.get_by_role("button", name="← 1. The table"))
    assert "part=" not in page.url  # the first part is the default: a clean address
    assert page.get_by_text("step 1 / 5").count() == 1


def test_the_one_line_part_chooser_opens_the_part_picked(page, app_url):
    """In presenter mode the part chooser is a one-line select (RoPE's twelve parts as radio buttons took three
    rows of a 1280×800 screen, pushing the figure below the fold); picking a part opens it and the address follows."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, app_url, "RoPE", present=1)
    assert page.get_by_role("radio", name="9. Which pairs matter").count() == 0
    page.get_by_role("combobox", name="lesson part").click()
    click_and_wait(page, page.get_by_role("option", name="9. Which pairs matter"))
    assert "part=pairs" in page.url
    assert page.get_by_text("step 12 / 14").count() == 1
    assert page.get_by_role("heading", name="9. Which pairs matter: partial RoPE").count() == 1
    assert _first_chart_top(page) < 800 * 0.6


def test_the_share_link_shows_as_a_qr_code_of_the_current_view(page, app_url):
    open_page(page, app_url, "Sinusoidal", part="waves", d=64)
    page.get_by_role("button", name="Show as QR code").click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    link = dialog.locator("[data-testid=stCode] code").inner_text()
    assert "/Sinusoidal?" in link and "d=64" in link and "part=waves" in link and "present" not in link
    image = dialog.locator("img").first
    image.wait_for()
    box, frame = image.bounding_box(), dialog.bounding_box()
    assert box["width"] >= 300  # large enough to scan from a seat
    assert abs((box["x"] + box["width"] / 2) - (frame["x"] + frame["width"] / 2)) < 0.05 * frame["width"]  # centred
    # the test server listens on 127.0.0.1: the dialog says phones cannot open that, and how to give the room one
    warning = dialog.locator("[data-testid=stAlertContentWarning]").inner_text()
    assert "localhost" in warning and "--public-url" in warning


def test_step_keys_change_the_part_even_right_after_a_slider_move_and_never_move_the_slider(page, app_url):
    """A dragged slider keeps the focus, and a focused slider moves on arrow keys (Shift + → would take d from 64 to
    90): the step keys, PageDown / PageUp (a clicker) and Shift + arrows, step the parts whatever has the focus."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, app_url, "RoPE", present=1, part="tables")
    move_slider(page, "head dim d", 2)  # the slider has the focus now, and the address holds its value
    slider = page.get_by_role("slider", name="head dim d").first
    value, query = slider.input_value(), _controls_in(page.url)
    assert "d" in query
    for key, part in (("Shift+ArrowRight", "cossin"), ("PageDown", "relative"), ("PageUp", "cossin"),
                      ("Shift+ArrowLeft", "tables")):
        page.keyboard.press(key)
        page.wait_for_function(f"() => location.search.includes('part={part}')")
        wait_idle(page)
        assert page.get_by_role("slider", name="head dim d").first.input_value() == value, key
        assert _controls_in(page.url) == query, key


def _controls_in(url: str) -> dict[str, str]:
    """The address's parameters other than the part."""
    import urllib.parse

    return {k: v for k, v in urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query) if k != "part"}
