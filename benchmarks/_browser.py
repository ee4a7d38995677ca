"""Shared helpers of the browser benchmarks: servers, a chromium page, and a timed slider move."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import (  # noqa: E402
    CHROMIUM_ARGS,
    IDLE,
    _chromium,
    start_server,
    wait_idle,
)

FINGERPRINT = """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => (p._fullData || []).map(t => {
    const z = t.z, y = t.y;
    return [t.type, z ? z.length : 0, z && z[0] ? z[0].length : 0, y ? y.length : 0,
            y && y.length ? String(y[y.length - 1]) : '',
            z && z[0] ? String(z[z.length - 1][0]) : ''].join(':');
}).join('|')).join('||')"""


def launch(pw):
    return pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)


def timed_move(page, slider_index: int, key: str, timeout_s: float = 60) -> float:
    """Press ``key`` on the page's slider ``slider_index``; seconds until the charts have redrawn."""
    slider = page.get_by_role("slider").nth(slider_index)
    slider.focus()
    before = page.evaluate(FINGERPRINT)
    t0 = time.perf_counter()
    slider.press(key)
    page.wait_for_function(f"(b) => ({FINGERPRINT})() !== b", arg=before, timeout=timeout_s * 1000)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", state="attached")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return time.perf_counter() - t0


def median_ms(xs: list[float]) -> float:
    return 1000 * statistics.median(xs)


__all__ = ["CHROMIUM_ARGS", "IDLE", "ROOT", "_chromium", "launch", "median_ms", "start_server", "timed_move",
           "wait_idle"]
