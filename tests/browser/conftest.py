"""Browser-test fixtures: one chromium for the browser tests and a fresh page per test (the app server they
open is the whole run's, from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testkit.browser import CHROMIUM_ARGS, chromium_path, count_runs, need_browser


@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    """One chromium for the browser tests, closed when the last of them has run.

    Package scope, not session: a live sync Playwright keeps an asyncio loop marked running on the main
    thread, and the tests after this package that call ``asyncio.run`` (deploy, package, export queue) or
    start their own Playwright (the text-layout check) would fail while it is open.
    """
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh Playwright page (1280×900, downloads accepted)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    count_runs(pg)
    yield pg
    context.close()
