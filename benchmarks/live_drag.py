"""Live figures while dragging, and from release to the exact figure, beside the trivial one-slider page.

For every live figure (the cases of tests/browser/test_live.py) this opens the page, rests the pointer on the
slider (the chart fetches its states), waits until the chart has drawn every state's still (chart.js draws them
in idle time once the states are there; "ready s" is how long that took after the exact figure was on screen),
then drags the live slider in headless chromium as a
pointer does at display rate: the page itself moves the pointer at every animation frame (pointer and mouse
events), fast enough to cross about one precomputed state per frame, and records at every frame the slider's
value and the state on screen. It reports the frames of the drags, the slider steps (frames in which the
value changed), the states shown (frames with a new state), the display rate the page kept during the drag
(Hz), the rate of new states on screen (fps), the mean time live.js spent putting a new state on screen (ms
per state; a still is laid over the chart, a state without one is drawn by Plotly.react, counted in
"reacts"), with the rate it allows (max fps). Then, on release, the time until the script has rerun and the
exact figure is drawn, beside a key press on the trivial page (benchmarks/trivial_app.py, Streamlit's default
settings) measured in the same run, interleaved. (On release at a state's value the page fetches the exact
figure from the file the app serves for it and the rerun names that file: posviz.ui.live.store.) Both
servers run with Streamlit's message cache off, so every message is sent: with the cache on
(``--message-cache``, Streamlit's default), a message the browser has already been sent is served from its
cache. The drags alternate direction, so in these two modes most releases revisit a value, whose exact figure
the page still holds (it keeps the last three it fetched).
``--as-in-class`` keeps the cache on, as Streamlit ships it, and makes every drag one frame longer than the last
(in alternate directions), so that every release lands on a value not released before ("new values"): its figure
is sent (the states are fetched over HTTP once per settings, not sent with the run). "KB/release" is what the
server sent the page from the release to the run's end (a cached message: its hash).

    python -m benchmarks.live_drag               # every live figure, 5 drags each
    python -m benchmarks.live_drag --drags 9 --largest
"""

from __future__ import annotations

import argparse
import statistics
import time
import urllib.parse

from benchmarks._browser import IDLE, launch, median_ms, start_server, timed_move, wait_idle
from testkit.browser import count_runs
from testkit.live_cases import CASES

LARGEST = {"Sinusoidal": {"n": "4096", "d": "1024"}, "Gaussian_kernel_RoPE": {"sigma1": "50", "sigma2": "500"},
           "2D_encodings": {"H": "64", "W": "64", "D": "1024"},
           "RoPE": {"d": "256", "pairs": "all", "frames": "72", "m_max": "8192"},
           "Context_extension": {"d": "256", "L": "131072"},
           "CoPE": {"text": " ".join(["word."] * 40)}}  # 80 tokens typed: the lesson keeps its cap of 64
EXACT = "() => document.querySelector('.posviz-live-chart').dataset.shown === 'exact'"


# A pointer dragging at display rate: at every animation frame the page moves the pointer by dx px (pointer and
# mouse events, as a real drag sends them) and records the slider's value and the state on screen.
DRAG = """async ([key, x, y, dx, frames]) => {
    const box = document.querySelector('.st-key-' + key.replace(/[^a-zA-Z0-9_-]/g, '-'));
    const input = box.querySelector('input[type=range]'), chart = document.querySelector('.posviz-live-chart');
    const rec = [];
    const send = (type, Kind) => document.dispatchEvent(new Kind(type, {clientX: x, clientY: y, bubbles: true,
        buttons: 1, pointerId: 1, isPrimary: true, pointerType: 'mouse'}));
    await new Promise((done) => {
        let n = 0;
        const tick = (t) => {
            rec.push([t, input.value, chart.dataset.shown]);
            if (n++ >= frames) return done();
            x += dx;
            send('pointermove', PointerEvent);
            send('mousemove', MouseEvent);
            requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    });
    send('pointerup', PointerEvent);
    send('mouseup', MouseEvent);
    return rec;
}"""
DRAW_MS = "() => Number(document.querySelector('.posviz-live-chart').dataset.drawMs || 0)"
REACTS = "() => Number(document.querySelector('.posviz-live-chart').dataset.reacts || 0)"
# every state of every live slider has its still (live.js draws them in idle time once the states are there)
STILLS_READY = """() => { const s = (document.querySelector('.posviz-live-chart').dataset.stills || '').split('/');
    return s.length === 2 && Number(s[1]) > 0 && s[0] === s[1]; }"""


def drag_and_release(page, key: str, direction: int, frames: int | None = 40, grow: int = 0) -> dict:
    """One drag at display rate, fast enough to cross about one state per frame (``frames`` frames, or fewer
    if the slider has fewer states), recorded in the page at every frame. Then the seconds from release to the
    exact figure drawn. ``frames=None``: ``states // 4 + grow`` frames (drags that grow by one frame each, in
    alternate directions, end at a new value every time)."""
    box = page.locator(".st-key-" + key.replace(".", "-"))
    states = int(box.get_attribute("data-posviz-states"))
    frames = max(2, states // 4) + grow if frames is None else frames
    track = box.locator("[data-testid=stSlider]").bounding_box()["width"]
    dx = direction * max(1.0, 0.9 * track / max(states - 1, 1))
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    before, reacts = page.evaluate(DRAW_MS), page.evaluate(REACTS)
    started = page.posviz_started
    page.mouse.move(x, y)
    page.mouse.down()
    rec = page.evaluate(DRAG, [key, x, y, dx, min(frames, states)])
    runs = page.posviz_started - started  # runs the server started during the drag (its new_session messages)
    received = page.posviz_bytes
    t0 = time.perf_counter()
    page.mouse.up()
    page.wait_for_function(EXACT, polling="raf")
    on_screen = time.perf_counter() - t0  # the exact figure drawn (its captions were sent before it)
    page.wait_for_selector(IDLE, state="attached")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    release = time.perf_counter() - t0  # ... and the run over: the states for the new settings have arrived
    after = page.posviz_started - started - runs  # the release's run (the counter works: it sees that one)
    received = page.posviz_bytes - received  # bytes the release's run sent the page (a cached message: its hash)
    value = box.locator("input[type=range]").input_value()
    draw_ms = page.evaluate(DRAW_MS) - before
    reacts = page.evaluate(REACTS) - reacts  # states drawn by Plotly.react: no still yet
    steps = [i for i in range(1, len(rec)) if rec[i][1] != rec[i - 1][1]]  # frames where the slider moved
    shown = [i for i in range(1, len(rec)) if rec[i][2] != rec[i - 1][2]]  # frames with a new state on screen
    span = (rec[shown[-1]][0] - rec[shown[0]][0]) / 1000 if len(shown) > 1 else float("nan")
    hz = (len(rec) - 1) / ((rec[-1][0] - rec[0][0]) / 1000)
    return {"runs": runs, "frames": len(rec) - 1, "steps": len(steps), "states": len(shown), "hz": hz,
            "fps": (len(shown) - 1) / span, "ms_per_state": draw_ms / max(len(shown), 1),
            "release": release, "on_screen": on_screen, "release_runs": after, "kb": received / 1000, "value": value,
            "reacts": reacts}


def count_bytes(page) -> None:
    """Count the bytes the server sends ``page`` over its websocket (``page.posviz_bytes``)."""
    page.posviz_bytes = 0

    def add(data: bytes | str) -> None:
        page.posviz_bytes += len(data)

    page.on("websocket", lambda ws: ws.on("framereceived", add))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drags", type=int, default=5)
    ap.add_argument("--largest", action="store_true", help="open each page at its largest settings")
    ap.add_argument("--only", default="", help="only the live figures whose name contains this text")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--message-cache", action="store_true",
                      help="keep Streamlit's message cache on (a release at a value seen before is then cached)")
    mode.add_argument("--as-in-class", action="store_true",
                      help="Streamlit's message cache on, as it ships, and every release at a value not released "
                           "before: its figure is sent, the live states (the same message every release) are not")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    fresh = {} if args.message_cache or args.as_in_class else {"global.minCachedMessageSize": str(10**12)}
    app, app_url = start_server("app.py", options=fresh)
    ref_server, ref_url = start_server("benchmarks/trivial_app.py", options={"runner.postScriptGC": "true", **fresh})
    print(f"{'live figure':28} {'frames':>6} {'steps':>5} {'states':>6} {'Hz':>4} {'fps':>4} {'ms/state':>8} "
          f"{'max fps':>7} {'exact ms':>8} {'idle ms':>7} {'trivial ms':>10} {'ratio':>5} "
          f"{'idle ratio':>10} {'reacts':>6} {'ready s':>7} {'KB/release':>10} {'new values':>10}")
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            ref = browser.new_page(viewport={"width": 1280, "height": 900})
            ref.goto(ref_url)
            wait_idle(ref)
            for case, (name, query, key, _, dx, _) in CASES.items():
                if args.only not in case:
                    continue
                query = {**query, **(LARGEST[name] if args.largest else {})}
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                count_runs(page)
                count_bytes(page)
                page.goto(f"{app_url}/{name}" + ("?" + urllib.parse.urlencode(query) if query else ""))
                wait_idle(page)
                page.wait_for_function(EXACT)
                t0 = time.perf_counter()
                page.locator(".st-key-" + key.replace(".", "-")).hover()  # reaching for it: its states are fetched
                page.wait_for_function(f"() => !!document.querySelector('.st-key-{key.replace('.', '-')}')"
                                       ".dataset.posvizStates", timeout=120_000)
                page.wait_for_function(STILLS_READY, timeout=120_000)
                ready = time.perf_counter() - t0  # from the exact figure on screen to every state's still drawn
                rows, trivial = [], []
                for i in range(args.drags):
                    direction = (1 if dx > 0 else -1) * (1 if i % 2 == 0 else -1)
                    rows.append(drag_and_release(page, key, direction, None if args.as_in_class else 40, grow=i))
                    trivial.append(timed_move(ref, 0, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
                    assert rows[-1]["runs"] == 0, f"{case}: a script run started during the drag"
                assert sum(r["release_runs"] for r in rows) >= 1, f"{case}: no run seen after any release"
                releases = [r["release"] for r in rows]
                exact = [r["on_screen"] for r in rows]
                ratio = statistics.median(exact) / statistics.median(trivial)
                idle_ratio = statistics.median(releases) / statistics.median(trivial)
                print(f"{case:28} {sum(r['frames'] for r in rows):6d} {sum(r['steps'] for r in rows):5d} "
                      f"{sum(r['states'] for r in rows):6d} {statistics.median(r['hz'] for r in rows):4.0f} "
                      f"{statistics.median(r['fps'] for r in rows):4.0f} "
                      f"{statistics.median(r['ms_per_state'] for r in rows):8.1f} "
                      f"{1000 / statistics.median(r['ms_per_state'] for r in rows):7.0f} "
                      f"{median_ms(exact):8.0f} "
                      f"{median_ms(releases):7.0f} {median_ms(trivial):10.0f} {ratio:5.2f} {idle_ratio:10.2f} "
                      f"{sum(r['reacts'] for r in rows):6d} "
                      f"{ready:7.1f} {statistics.median(r['kb'] for r in rows):10.0f} "
                      f"{len({r['value'] for r in rows}):>6d} of {len(rows)}",
                      flush=True)
                page.close()
            browser.close()
    finally:
        for proc in (app, ref_server):
            proc.terminate()


if __name__ == "__main__":
    main()
