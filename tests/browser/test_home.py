"""Browser tests of the home page and the page list (app.py's st.navigation) against a real streamlit server."""

from __future__ import annotations

import pytest

from posviz import ui
from tests.browser.conftest import error_elements, open_page, wait_idle

pytestmark = pytest.mark.browser


def test_the_page_list_is_home_then_every_lesson_in_course_order_at_its_old_address(page, app_url):
    open_page(page, app_url, "", charts=False)
    assert error_elements(page) == []
    nav = page.locator("[data-testid=stSidebarNav] a")
    labels = [t.strip() for t in nav.all_inner_texts()]
    # the entry point is "Home", not the script's file name
    assert labels[0].endswith("Home") and not any(t.endswith("app") for t in labels)
    lessons = ui.lessons()
    assert [t.split("\n")[-1].strip() for t in labels[1:]] == [ls.title for ls in lessons]
    hrefs = [h.rsplit("/", 1)[-1] for h in nav.evaluate_all("els => els.map(e => e.getAttribute('href'))")]
    assert hrefs[1:] == [ls.script.stem.split("_", 1)[1] for ls in lessons]  # /Sinusoidal, /2D_encodings, ...
    page.locator("[data-testid=stMain] a", has_text="Context extension").first.click()  # the lesson map
    wait_idle(page)
    assert page.url.endswith("/Context_extension") and page.title() == "Context extension · posviz"
