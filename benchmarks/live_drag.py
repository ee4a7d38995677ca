"""Live figures while dragging, and from release to the exact figure, beside the trivial one-slider page.

For every live figure (the cases of tests/browser/test_live.py) this drags the live slider in headless
chromium with Playwright mouse moves (30 moves, one every ~16 ms, back and forth) while the page records, at
every animation frame, the slider's value and the state on screen. It reports the moves made, the slider
steps they caused (frames in which the value changed), the states shown (frames with a new state), the
rate of new states while the chart was moving (fps: bounded by how fast the drag steps the slider), and
Plotly.js's mean time per state with the frame rate it allows (max fps = 1000 / ms per state). Then, on
release, the time until the script has rerun and the exact figure is drawn, beside a key press on the trivial page
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

from tests.browser.conftest import COUNT_RUNS
from tests.browser.test_live import CASES

LARGEST = {"Sinusoidal": {"n": "4096", "d": "1024"}, "Gaussian_kernel_RoPE": {"sigma1": "50", "sigma2": "500"},
           "2D_encodings": {"H": "64", "W": "64", "D": "1024"},
           "RoPE": {"d": "256", "pairs": "all", "frames": "72", "m_max": "8192"},
           "Context_extension": {"d": "256", "L": "131072"},
           "CoPE": {"text": " ".join(["word."] * 40)}}  # 80 tokens typed: the lesson keeps its cap of 64
EXACT = "() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'"


RECORD = """(key) => { const box = document.querySelector('.st-key-' + key.replace(/[^a-zA-Z0-9_-]/g, '-'));
    const input = box.querySelector('input[type=range]'); const chart = document.querySelector('.posviz-live-chart');
    window.__rec = []; window.__recOn = true;
    const tick = () => { window.__rec.push([performance.now(), input.value, chart.dataset.shown]);
                         if (window.__recOn) requestAnimationFrame(tick); };
    requestAnimationFrame(tick); }"""


def drag_and_release(page, key: str, dx: float, moves: int = 30) -> dict:
    """One drag of ``moves`` mouse moves (~60 per second), recorded in the page at every animation frame: the
    slider's value and the state shown. Then the seconds from release to the exact figure."""
    box = page.locator(".st-key-" + key.replace(".", "-"))
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    before = page.evaluate("() => Number(document.querySelector('.posviz-live-chart').dataset.drawMs || 0)")
    page.evaluate(COUNT_RUNS)
    page.evaluate(RECORD, key)
    page.mouse.move(x, y)
    page.mouse.down()
    for _ in range(moves):
        x += dx
        page.mouse.move(x, y)
        page.wait_for_timeout(16)
    page.wait_for_timeout(100)
    page.evaluate("() => { window.__recOn = false; }")
    runs = page.evaluate("() => window.__posvizRuns")
    t0 = time.perf_counter()
    page.mouse.up()
    page.wait_for_function(EXACT)
    page.wait_for_selector(IDLE, state="attached")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    release = time.perf_counter() - t0
    rec = page.evaluate("() => window.__rec")
    draw_ms = page.evaluate("() => Number(document.querySelector('.posviz-live-chart').dataset.drawMs || 0)") - before
    steps = [i for i in range(1, len(rec)) if rec[i][1] != rec[i - 1][1]]  # frames where the slider moved
    shown = [i for i in range(1, len(rec)) if rec[i][2] != rec[i - 1][2]]  # frames with a new state on screen
    span = (rec[shown[-1]][0] - rec[shown[0]][0]) / 1000 if len(shown) > 1 else float("nan")
    return {"runs": runs, "steps": len(steps), "states": len(shown), "fps": (len(shown) - 1) / span,
            "ms_per_state": draw_ms / max(len(shown), 1), "release": release}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drags", type=int, default=5)
    ap.add_argument("--largest", action="store_true", help="open each page at its largest settings")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    app, app_url = start_server("app.py")
    ref_server, ref_url = start_server("benchmarks/trivial_app.py", options={"runner.postScriptGC": "true"})
    print(f"{'live figure':28} {'moves':>5} {'steps':>5} {'states':>6} {'fps':>5} {'ms/state':>8} {'max fps':>7} "
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
                rows, trivial = [], []
                for i in range(args.drags):
                    rows.append(drag_and_release(page, key, dx if i % 2 == 0 else -dx))
                    trivial.append(timed_move(ref, 0, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
                    assert rows[-1]["runs"] == 0, f"{case}: a script run started during the drag"
                releases = [r["release"] for r in rows]
                ratio = statistics.median(releases) / statistics.median(trivial)
                print(f"{case:28} {30 * args.drags:5d} {sum(r['steps'] for r in rows):5d} "
                      f"{sum(r['states'] for r in rows):6d} {statistics.median(r['fps'] for r in rows):5.0f} "
                      f"{statistics.median(r['ms_per_state'] for r in rows):8.1f} "
                      f"{1000 / statistics.median(r['ms_per_state'] for r in rows):7.0f} {median_ms(releases):10.0f} "
                      f"{median_ms(trivial):10.0f} {ratio:5.2f}", flush=True)
                page.close()
            browser.close()
    finally:
        for proc in (app, ref_server):
            proc.terminate()


if __name__ == "__main__":
    main()
