"""Browser-test fixtures: one chromium for the browser tests and a fresh page per test (the app server they
open is the whole run's, from tests/conftest.py)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

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


# what each chart on the page holds, for the report of a failed test: a browser test that fails only in a full CI
# run (never alone) must say what the page showed
CHARTS_STATE = """() => [...document.querySelectorAll('.js-plotly-plot')].map((p) => {
    const chart = p.closest('.posviz-live-chart'), payload = (chart && chart.posvizPayload) || {};
    return {live: !!chart, font: p._fullLayout && p._fullLayout.font.size, title: p._fullLayout &&
            p._fullLayout.title && String(p._fullLayout.title.text).slice(0, 80), exactId: payload.exactId,
            exactFile: payload.exactFile, drawnId: chart && chart.posvizExactId,
            drawnIsPayload: chart ? chart.posvizExact === payload.exact : null,
            data: chart ? {...chart.dataset} : null};
}).concat([{scale: document.documentElement.dataset.posvizScale, url: location.href}])"""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A failed browser test's report holds its page's charts (``CHARTS_STATE``) and, where CI keeps reports
    (``POSVIZ_TEST_REPORTS``), a screenshot of the page."""
    outcome = yield
    report = outcome.get_result()
    page = item.funcargs.get("page") if hasattr(item, "funcargs") else None
    if report.when != "call" or not report.failed or page is None:
        return
    try:
        report.sections.append(("charts on the page", json.dumps(page.evaluate(CHARTS_STATE), indent=1)))
        folder = os.environ.get("POSVIZ_TEST_REPORTS")
        if folder:
            name = re.sub(r"[^\w.-]+", "_", item.nodeid)[-120:]
            page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
    except Exception as err:  # a closed or crashed page: the failure itself still reports
        report.sections.append(("charts on the page", f"could not be read: {err}"))
