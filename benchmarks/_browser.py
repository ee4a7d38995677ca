"""Shared helpers of the browser benchmarks: servers, a chromium page, and a timed slider move."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from testkit.browser import (
    CHROMIUM_ARGS,
    IDLE,
    chromium_path,
    start_server,
    wait_idle,
)

ROOT = Path(__file__).resolve().parents[1]


# what a redraw changes: per chart, its title and per trace the type, data lengths, last values and labels
FINGERPRINT = """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => {
    const title = p._fullLayout && p._fullLayout.title ? String(p._fullLayout.title.text) : '';
    return title + '#' + (p._fullData || []).map(t => {
        const z = t.z, y = t.y, text = t.text;
        return [t.type, z ? z.length : 0, z && z[0] ? z[0].length : 0, y ? y.length : 0,
                y && y.length ? String(y[y.length - 1]) : '',
                z && z[0] ? String(z[z.length - 1][0]) : '',
                Array.isArray(text) && text.length ? String(text[text.length - 1]) : ''].join(':');
    }).join('|');
}).join('||')"""


def launch(pw):
    return pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)


def timed_move(page, slider_index: int, key: str, timeout_s: float = 60) -> float:
    """Press ``key`` on the page's slider ``slider_index``; seconds until the charts have redrawn.

    A slider at the end of its range does not move: if nothing changes within 5 s the opposite key is
    pressed and timed instead. Raises TimeoutError if the slider changes no chart either way.
    """
    slider = page.get_by_role("slider").nth(slider_index)
    other = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
    for attempt, k in enumerate((key, other)):
        slider.focus()
        before = page.evaluate(FINGERPRINT)
        t0 = time.perf_counter()
        slider.press(k)
        try:
            page.wait_for_function(f"(b) => ({FINGERPRINT})() !== b", arg=before,
                                   timeout=(5 if attempt == 0 else timeout_s) * 1000)
        except Exception:
            if attempt == 1:
                raise TimeoutError(f"slider {slider_index} changes no chart") from None
            page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", state="attached")
            continue
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", state="attached")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return time.perf_counter() - t0
    raise AssertionError("unreachable")


def median_ms(xs: list[float]) -> float:
    return 1000 * statistics.median(xs)


__all__ = ["CHROMIUM_ARGS", "IDLE", "ROOT", "chromium_path", "launch", "median_ms", "start_server", "timed_move",
           "wait_idle"]
