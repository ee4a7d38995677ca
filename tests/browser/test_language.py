"""Switching the language in a real browser: the sidebar's English / 中文 switch redraws the lesson in the other
language at the same part with every slider where the student left it, and ``?lang`` follows the switch."""

from __future__ import annotations

import re

import pytest

from testkit.browser import click_and_wait, error_elements, move_slider, open_page, share_box_link

pytestmark = pytest.mark.browser

CJK = re.compile(r"[\u4e00-\u9fff]")
SWITCH = ".st-key-_global-lang"


def slider_value(page: object, key: str) -> str:
    """The value the slider with widget key ``key`` ("sinusoidal.d") shows, whatever its label's language."""
    return page.locator(".st-key-" + key.replace(".", "-") + " input[type=range]").first.input_value()


def headings(page: object) -> list[str]:
    """The page's title and the part's heading."""
    return [t.strip() for t in page.locator("[data-testid=stMain] h1, [data-testid=stMain] h2").all_inner_texts()]


def switch_to(page: object, language: str) -> None:
    click_and_wait(page, page.locator(SWITCH).get_by_text(language, exact=True))


def test_switching_language_keeps_the_part_and_every_slider(page, app_url):
    open_page(page, app_url, "Sinusoidal", part="similarity")
    move_slider(page, "model dimension d_model", -2)  # 128 -> 124 (steps of 2)
    assert slider_value(page, "sinusoidal.d") == "124"
    english = headings(page)
    assert english and not any(CJK.search(h) for h in english), english

    switch_to(page, "中文")
    assert "part=similarity" in page.url and "d=124" in page.url and "lang=zh" in page.url, page.url
    assert slider_value(page, "sinusoidal.d") == "124"
    chinese = headings(page)
    assert len(chinese) == len(english) and all(CJK.search(h) for h in chinese), chinese
    assert page.get_by_role("button", name="恢复默认值").count() == 1  # the kit's own words
    assert "lang=zh" in share_box_link(page)
    assert error_elements(page) == []

    switch_to(page, "English")
    assert "part=similarity" in page.url and "d=124" in page.url and "lang=" not in page.url, page.url
    assert slider_value(page, "sinusoidal.d") == "124"
    assert headings(page) == english
    assert "lang=" not in share_box_link(page)


def test_a_lang_link_opens_in_chinese_and_a_bad_one_warns_in_english(page, app_url):
    open_page(page, app_url, "Sinusoidal", lang="zh", d=64)
    assert slider_value(page, "sinusoidal.d") == "64"
    assert page.locator(SWITCH + " button[aria-checked=true]").inner_text().strip() == "中文"
    open_page(page, app_url, "Sinusoidal", lang="fr")
    warnings = page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
    assert any("URL parameter lang had an invalid value" in w for w in warnings), warnings
    assert "lang=" not in page.url
