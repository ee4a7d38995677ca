"""Live figures while dragging, and from release to the exact figure, beside the trivial one-slider page.

For every live figure (the cases of tests/browser/test_live.py) this drags the live slider in headless
chromium with Playwright mouse moves (30 moves, one every ~16 ms, back and forth), and reports the states
the chart drew during the drag against the moves made, the drag's
frames per second (states drawn / drag time) and Plotly.js's mean time per state. Then, on release, the
time until the script has rerun and the exact figure is drawn, beside a key press on the trivial page
(benchmarks/trivial_app.py, Streamlit's default settings) measured in the same run, interleaved.

    python benchmarks/live_drag.py               # every live figure, 5 drags each
    python benchmarks/live_drag.py --drags 9 --largest
"""

from __future__ import annotations

import argparse
import statistics
import time
import urllib.parse

from _browser import IDLE, launch, median_ms, start_server, timed_move, wait_idle

from tests.browser.conftest import live_drag
from tests.browser.test_live import CASES

LARGEST = {"Sinusoidal": {"n": "4096", "d": "1024"}, "Gaussian_kernel_RoPE": {"sigma1": "50", "sigma2": "500"},
           "2D_encodings": {"H": "64", "W": "64", "D": "1024"}}
EXACT = "() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'"


def drag_and_release(page, key: str, dx: float) -> tuple[dict, float, float]:
    """One drag: its record, the mean Plotly.js ms per state drawn, and seconds from release to the exact figure."""
    before = page.evaluate("() => Number(document.querySelector('.posviz-live-chart').dataset.drawMs || 0)")
    drag = live_drag(page, key, dx)
    t0 = time.perf_counter()
    page.wait_for_function(EXACT)
    page.wait_for_selector(IDLE, state="attached")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    release = time.perf_counter() - t0
    draw_ms = page.evaluate("() => Number(document.querySelector('.posviz-live-chart').dataset.drawMs || 0)") - before
    drawn = len({d for _, d in drag["shown"]})
    return drag, draw_ms / max(drawn, 1), release


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drags", type=int, default=5)
    ap.add_argument("--largest", action="store_true", help="open each page at its largest settings")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    app, app_url = start_server("app.py")
    ref_server, ref_url = start_server("benchmarks/trivial_app.py", options={"runner.postScriptGC": "true"})
    print(f"{'live figure':28} {'moves':>5} {'states':>6} {'fps':>5} {'ms/state':>8} "
          f"{'release ms':>10} {'trivial ms':>10} {'ratio':>5}")
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            ref = browser.new_page(viewport={"width": 1280, "height": 900})
            ref.goto(ref_url)
            wait_idle(ref)
            for case, (name, query, key, _, dx, _) in CASES.items():
                query = {**query, **(LARGEST[name] if args.largest else {})}
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"{app_url}/{name}" + ("?" + urllib.parse.urlencode(query) if query else ""))
                wait_idle(page)
                page.wait_for_function(EXACT)
                moves = states = 0
                fps, per_state, releases, trivial = [], [], [], []
                for i in range(args.drags):
                    drag, ms, release = drag_and_release(page, key, dx if i % 2 == 0 else -dx)
                    shown = [s for s, _ in drag["shown"]]
                    drawn = len({d for _, d in drag["shown"]})
                    moves += len(shown)
                    states += drawn
                    fps.append(drawn / drag["seconds"])
                    per_state.append(ms)
                    releases.append(release)
                    trivial.append(timed_move(ref, 0, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
                    assert drag["runs_during_drag"] == 0, f"{case}: a script run started during the drag"
                ratio = statistics.median(releases) / statistics.median(trivial)
                print(f"{case:28} {moves:5d} {states:6d} {statistics.median(fps):5.0f} "
                      f"{statistics.median(per_state):8.1f} {median_ms(releases):10.0f} {median_ms(trivial):10.0f} "
                      f"{ratio:5.2f}", flush=True)
                page.close()
            browser.close()
    finally:
        for proc in (app, ref_server):
            proc.terminate()


if __name__ == "__main__":
    main()
