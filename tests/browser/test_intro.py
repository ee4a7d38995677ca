"""Browser tests of the "From integers to sinusoids" page against a real streamlit server: what its charts draw
(every lesson's load, shared link and bad-link fallback: test_every_lesson.py)."""

from __future__ import annotations

import pytest

from testkit.browser import chart_traces, click_and_wait, error_elements, move_slider, open_page

pytestmark = pytest.mark.browser

PAGE = "From_integers_to_sinusoids"
DRAWN = ("(n) => { const c = [...document.querySelectorAll('.js-plotly-plot')];"
         " return c.length === n && c.every(x => x._fullData && x.querySelector('.main-svg')); }")


def _open(page, app_url, charts: int = 1, **query) -> None:
    """Open the page and wait until its part's charts are drawn (one per part)."""
    open_page(page, app_url, PAGE, **query)
    page.wait_for_function(DRAWN, arg=charts)


def _choose_part(page, label: str, charts: int = 1) -> None:
    click_and_wait(page, page.get_by_text(label, exact=True), charts=charts > 0)
    page.wait_for_function(DRAWN, arg=charts)


def test_identical_dog_rows_and_slider_and_text_changes_redraw_the_charts(page, app_url):
    _open(page, app_url)
    assert page.locator(".js-plotly-plot").count() == 1  # part 1 only
    left, right, difference = chart_traces(page, 0)[:3]  # without PE, with PE, and their difference strip
    assert left["type"] == right["type"] == "heatmap"
    assert left["y"] == ["0: the", "1: dog", "2: chased", "3: another", "4: dog"]
    assert len(left["z"]) == 5 and len(left["z"][0]) == 16
    assert left["z"][1] == left["z"][4]  # the two dogs, drawn from the same numbers
    assert right["z"][1] != right["z"][4]
    assert difference["type"] == "heatmap" and max(abs(v) for row in difference["z"] for v in row) > 1e-3
    before = left
    move_slider(page, "embedding size d", 1)  # 16 -> 18
    page.wait_for_function(DRAWN, arg=1)
    after = chart_traces(page, 0)[0]
    assert len(before["z"][0]) == 16 and len(after["z"][0]) == 18
    assert "d=18" in page.url
    box = page.get_by_role("textbox", name="sentence (words only; punctuation is ignored)")
    box.fill("a cat saw a cat")
    click_and_wait(page, box, press="Enter")
    page.wait_for_function(DRAWN, arg=1)
    rows = chart_traces(page, 0)[0]
    assert rows["y"] == ["0: a", "1: cat", "2: saw", "3: a", "4: cat"]
    assert rows["z"][1] == rows["z"][4] and rows["z"][0] == rows["z"][3]
    assert "text=a+cat+saw+a+cat" in page.url
    # the sidebar's sentence and d apply to the next part too
    _choose_part(page, "1b. Shuffle the words")
    shuffled = chart_traces(page, 0)[0]
    assert len(shuffled["z"]) == 5 and len(shuffled["z"][0]) == 18
    assert {label.split(": ")[1] for label in shuffled["y"]} == {"a", "cat", "saw"}
    assert error_elements(page) == []
    _choose_part(page, "4. Binary")  # P and bits at their defaults
    assert "part=binary" in page.url
    bits = chart_traces(page, 0)[0]["z"]
    assert [int(b) for b in bits[0][:8]] == [0, 1, 0, 1, 0, 1, 0, 1]  # LSB flips every token
    assert error_elements(page) == []


def test_shared_link_restores_a_non_default_view(page, app_url):
    _open(page, app_url, part="binary", bits=4, P=40, shuffle=0, N1=20, pos=3)
    bits = chart_traces(page, 0)[0]["z"]
    assert len(bits) == 4 and len(bits[0]) == 40
    assert bits[3][16:24] == [0.0] * 8  # 4 bits wrap: position 16 looks like position 0
    # the link's values for other parts apply when those parts are opened
    _choose_part(page, "3. p / N")
    values = [t["y"][0] for t in chart_traces(page, 0) if t["y"] and len(t["y"]) == 1]
    assert values == pytest.approx([3 / 20, 3 / 100])
    assert "part=normalised" in page.url and "N1=20" in page.url
    _choose_part(page, "1b. Shuffle the words")
    assert page.get_by_text("This shuffle seed keeps the original order").count() == 1
    assert error_elements(page) == []


def test_hostile_text_in_the_url_stays_plain_text(page, app_url):
    hostile = "<img src=x onerror=window.__pwned=1> <b>bold</b> dog **dog**"
    _open(page, app_url, text=hostile)
    assert error_elements(page) == []
    assert page.evaluate("() => window.__pwned === undefined")
    assert page.locator("[data-testid=stMain] img[src=x], [data-testid=stMain] b:text('bold')").count() == 0
    assert page.locator("[data-testid=stSidebar] img[src=x], [data-testid=stSidebar] b:text('bold')").count() == 0
    rows = chart_traces(page, 0)[0]["y"]
    assert rows == ["0: img", "1: src", "2: x", "3: onerror", "4: window", "5: __pwned", "6: 1", "7: b",
                    "8: bold", "9: b", "10: dog", "11: dog"]
