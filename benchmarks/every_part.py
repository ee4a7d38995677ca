"""Every part of every lesson under a lecturer's hand: a drag, a release and a key press, beside the trivial page.

For each part (the course as declared, not a chosen list) this opens the part in headless chromium, at the
defaults or with every control at its largest (``--largest``), and takes the first slider a live chart follows
(the part's own sliders before the sidebar's; a folded sidebar group is opened first, as a lecturer would). It
moves the pointer over the slider, which makes the chart fetch that slider's states, and waits until the chart
has drawn a still of each and fetched the exact figures it fetches ahead (where they are small) ("ready s";
"states": how many states the drag moves through, of the values the slider takes).
Then, ``--rounds`` times (three by default), A B A B with the trivial one-slider page
(benchmarks/trivial_app.py, Streamlit's default settings):

- **drag**: one second of a pointer dragging at display rate (60 animation frames; the page moves the pointer at
  every frame, one state's width per frame, turning back at the ends of the track) and records the state on
  screen at every frame. fps: frames with a new state on screen per second. The trivial page is dragged the same
  way; its chart cannot follow (it redraws on release), so its column is the display rate its page kept.
- **release → exact**: from letting go to the exact figure on screen.
- **key → quiet**: an arrow key on the focused slider to the exact figure at the new value on screen, the chart
  drawn for the last time for that step; "run over" is the end of the script's run. The trivial page's time is
  a key press to its chart redrawn.

Both pages are timed by the page's own clock: from the event (the pointer let go, the key down) to the first
animation frame whose drawing holds the figure (a watcher the page runs every frame, started before the event).
Timed from the benchmark's side, each time would also hold the trips to the browser and back, and the transfer of
every websocket message the page got meanwhile: tens of ms for a lesson's rerun of a megabyte, next to nothing
for the trivial page's. Ratios divide by the trivial page's median key press. The benchmark fails if a script
run starts during a drag.
A part without a slider, or whose sliders change no figure, is listed with the reason.

    python -m benchmarks.every_part                       # every part, defaults
    python -m benchmarks.every_part --largest             # every control at its largest
    python -m benchmarks.every_part --only rope --rounds 5
    python -m benchmarks.every_part --largest --part rope/clock
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import time
import urllib.parse

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks._browser import FINGERPRINT, IDLE, launch, start_server, wait_idle
from testkit.apptest import extreme_query, part_cases, part_query
from testkit.browser import count_runs

FRAMES = 60  # one second at the display rate

# the live charts following slider `key`, as [chart index, states, stills drawn/total]
FOLLOWERS = """(key) => [...document.querySelectorAll('.posviz-live-chart')].map((c, i) => [i, c])
    .filter(([i, c]) => c.posvizPayload && c.posvizPayload.live.some((l) => l.key === key))
    .map(([i, c]) => i)"""
STILLS_READY = """([i, key]) => { const c = document.querySelectorAll('.posviz-live-chart')[i];
    const set = (window.__posvizStates || {})[c.posvizPayload.chart + '|' + key];
    const live = c.posvizPayload.live.find((l) => l.key === key);
    const s = (c.dataset.stills || '').split('/');
    const e = (c.dataset.exactSet || '0/0').split('/');  // the exact figures fetched ahead, where it does
    return !!set && set.version === live.version && s.length === 2 && s[0] === s[1] && Number(s[1]) > 0 &&
        e[0] === e[1]; }"""
# the states of slider `key` came, but the figure accepts fewer than two of its values at these settings
TOO_FEW = """([i, key]) => { const c = document.querySelectorAll('.posviz-live-chart')[i];
    const set = (window.__posvizStates || {})[c.posvizPayload.chart + '|' + key];
    return !!set && set.values.length < 2; }"""
# how many states slider `key` has (the drag shows one a frame) and how many values its slider takes
STATE_COUNT = """([i, key]) => { const c = document.querySelectorAll('.posviz-live-chart')[i];
    const set = window.__posvizStates[c.posvizPayload.chart + '|' + key];
    return set.values.length + '/' + c.posvizPayload.live.find((l) => l.key === key).options.length; }"""
# where the pointer puts the thumb at each state of slider `key` (client x, in slider order), and at its value now
TARGETS = """([key, i]) => { const c = document.querySelectorAll('.posviz-live-chart')[i];
    const live = c.posvizPayload.live.find((l) => l.key === key);
    const set = window.__posvizStates[c.posvizPayload.chart + '|' + key];
    const box = document.querySelector('.st-key-' + key.replace(/[^a-zA-Z0-9_-]/g, '-'));
    const input = box.querySelector('input[type=range]');
    const track = input.closest('[style*=relative][style*=touch-action]');  // the thumb's own box is absolute
    const r = track.getBoundingClientRect(), lo = Number(input.min), hi = Number(input.max);
    const at = (v) => (live.index ? live.options.indexOf(v) : v);
    const x = (i) => r.left + r.width * (i - lo) / (hi - lo);
    return [set.values.map((v) => x(at(v))), x(Number(input.value)), [r.left, r.width, lo, hi]]; }"""
# a pointer dragging at display rate for `frames` frames, recorded at every frame: [time, value, state on
# screen]. At every frame the page moves the pointer to the next of `xs` (turning back at either end).
DRAG = """async ([selector, chartIndex, xs, start, y, frames]) => {
    const box = document.querySelector(selector);
    const input = box.querySelector('input[type=range]');
    const chart = chartIndex >= 0 ? document.querySelectorAll('.posviz-live-chart')[chartIndex] : null;
    const rec = [];
    let k = start, dir = 1, x = xs[k];
    const send = (type, Kind) => document.dispatchEvent(new Kind(type, {clientX: x, clientY: y, bubbles: true,
        buttons: 1, pointerId: 1, isPrimary: true, pointerType: 'mouse'}));
    await new Promise((done) => {
        let n = 0;
        const tick = (t) => {
            rec.push([t, input.value, chart ? chart.dataset.shown : '']);
            if (n++ >= frames) return done();
            if (k + dir < 0 || k + dir >= xs.length) dir = -dir;
            k += dir;
            x = xs[k];
            send('pointermove', PointerEvent);
            send('mousemove', MouseEvent);
            requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    });
    window.__posvizLetGo = performance.now();
    if (chart) window.__posvizWatch(['__posvizExactAt', (c) => c.dataset.shown === 'exact', chart]);
    send('pointerup', PointerEvent);
    send('mouseup', MouseEvent);
    return rec;
}"""
# the page's own clock at the first animation frame where `test(arg)` holds, kept as window[name]: started before
# the event it times, so the frame is not missed while the benchmark asks
# (installed on each page with CLOCK; `test` is a function or its source)
CLOCK = """() => { if (window.__posvizWatch) return;
    window.__posvizWatch = ([name, test, arg]) => {
        window[name] = 0;
        const holds = typeof test === 'string' ? eval('(' + test + ')') : test;
        const tick = () => { if (holds(arg)) window[name] = performance.now(); else requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
    };
    document.addEventListener('keydown', () => { window.__posvizKeyDown = performance.now(); }, true); }"""
SHOWN = "(i) => document.querySelectorAll('.posviz-live-chart')[i].dataset.shown"
EXACTS = "(i) => Number(document.querySelectorAll('.posviz-live-chart')[i].dataset.exacts || 0)"
# the exact figure drawn again since `before` draws (a key press's new value), and shown
EXACT_AGAIN = """([i, before]) => { const c = document.querySelectorAll('.posviz-live-chart')[i];
    return c.dataset.shown === 'exact' && Number(c.dataset.exacts || 0) > before; }"""


def page_name(lesson: object) -> str:
    """The page's address (its script's name without the order prefix)."""
    return re.sub(r"^\d+_", "", lesson.script.stem)


def live_keys(page) -> list[str]:
    """The slider keys the page's live charts follow, the part's own (drawn in the main area) first."""
    keys = page.evaluate("""() => [...new Set([...document.querySelectorAll('.posviz-live-chart')]
        .flatMap((c) => (c.posvizPayload ? c.posvizPayload.live : []).map((l) => l.key)))]""")
    main = page.evaluate("(ks) => ks.filter((k) => !document.querySelector('.st-key-' + "
                         "k.replace(/[^a-zA-Z0-9_-]/g, '-')).closest('[data-testid=stSidebar]'))", keys)
    return [k for k in keys if k in main] + [k for k in keys if k not in main]


def key_selector(key: str) -> str:
    """The CSS selector of the box of the control whose key is ``key``."""
    return ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key)


def open_pitfalls(page) -> list[str]:
    """A part whose figures are all behind its pitfalls' toggles: the first toggle switched on (its wrong version
    beside the right one), and then the sliders its live charts follow."""
    toggles = page.locator("[class*=st-key-][class*=-pitfall-] [data-testid=stCheckbox] input")
    if toggles.count() == 0:
        return []
    toggles.first.check(force=True)
    wait_idle(page)
    return live_keys(page)


def slider_box(page, key: str):
    """The slider's box, opened if it sits in a folded sidebar group, and scrolled into view."""
    box = page.locator(key_selector(key)).first  # (a Streamlit element may carry its key's class twice)
    if not box.is_visible():
        box.locator("xpath=ancestor::details[1]/summary").click()
        page.wait_for_timeout(300)
    box.scroll_into_view_if_needed()
    return box


def drag(page, key: str, chart: int) -> dict:
    """One second of dragging ``key``'s slider through its states, one a frame; then the seconds from release to
    the exact figure."""
    box = slider_box(page, key)
    page.evaluate(CLOCK)
    xs, now, (left, width, lo, hi) = page.evaluate(TARGETS, [key, chart])
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x0, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    started = page.posviz_started
    page.mouse.move(x0, y)
    page.mouse.down()
    # the slider takes the value under the pointer a few px from where its track's box puts it (the control's
    # own origin): the press shows by how much, and every target moves by as much, so each lands on its state
    page.wait_for_timeout(50)
    pressed = float(box.locator("input[type=range]").input_value())
    xs = [x + x0 - (left + width * (pressed - lo) / (hi - lo)) for x in xs]
    start = min(range(len(xs)), key=lambda i: abs(xs[i] - x0))  # the state nearest the thumb
    rec = page.evaluate(DRAG, [key_selector(key), chart, xs, start, y, FRAMES])
    runs = page.posviz_started - started
    page.mouse.up()  # the page let go already (DRAG's pointerup); the benchmark's own pointer too
    page.wait_for_function("() => window.__posvizExactAt > 0", timeout=60_000)
    exact = page.evaluate("() => window.__posvizExactAt - window.__posvizLetGo") / 1000
    page.wait_for_selector(IDLE, state="attached", timeout=120_000)
    shown = sum(1 for i in range(1, len(rec)) if rec[i][2] != rec[i - 1][2])
    seconds = (rec[-1][0] - rec[0][0]) / 1000
    return {"runs": runs, "fps": shown / seconds, "hz": (len(rec) - 1) / seconds, "exact": exact}


def key_step(page, key: str, chart: int, direction: str) -> dict:
    """An arrow key on the focused slider: seconds to the exact figure at the new value on screen (the chart quiet:
    drawn again, or, where the new value draws the same figure, its run over), and to the end of the run."""
    slider = slider_box(page, key).locator("input[type=range]")
    page.evaluate(CLOCK)
    for k in (direction, "ArrowLeft" if direction == "ArrowRight" else "ArrowRight"):
        slider.focus()
        before, value, runs = page.evaluate(EXACTS, chart), slider.input_value(), page.posviz_runs
        page.evaluate("(a) => window.__posvizWatch(['__posvizQuietAt', ...a])", [EXACT_AGAIN, [chart, before]])
        t0 = time.perf_counter()
        slider.press(k)
        if slider.input_value() == value:
            continue  # at the end of the track: the other way
        while not page.evaluate("() => window.__posvizQuietAt"):
            if page.posviz_runs > runs and page.evaluate(SHOWN, chart) == "exact":
                page.evaluate("() => { window.__posvizQuietAt = performance.now(); }")
                break  # the same figure at the new value: nothing to draw; quiet once its run is over
            if time.perf_counter() - t0 > 60:
                raise PlaywrightTimeout(f"{key}: no exact figure 60 s after a key press")
            page.wait_for_timeout(2)
        quiet = page.evaluate("() => window.__posvizQuietAt - window.__posvizKeyDown") / 1000
        page.wait_for_selector(IDLE, state="attached", timeout=120_000)
        return {"quiet": quiet, "run": time.perf_counter() - t0}
    raise AssertionError(f"{key} moves neither way")


def trivial_key(page, direction: str) -> float:
    """The trivial page's key press: seconds from the key going down to its chart drawn again."""
    slider = page.get_by_role("slider").first
    page.evaluate(CLOCK)
    for k in (direction, "ArrowLeft" if direction == "ArrowRight" else "ArrowRight"):
        slider.focus()
        value = slider.input_value()
        page.evaluate("(a) => window.__posvizWatch(['__posvizDrawnAt', ...a])",
                      [f"(x) => ({FINGERPRINT})() !== x", page.evaluate(FINGERPRINT)])
        slider.press(k)
        if slider.input_value() == value:
            continue  # at the end of the track: the other way
        page.wait_for_function("() => window.__posvizDrawnAt > 0", timeout=60_000)
        wait_idle(page, settle_ms=50)
        return page.evaluate("() => window.__posvizDrawnAt - window.__posvizKeyDown") / 1000
    raise AssertionError("the trivial page's slider moves neither way")


def trivial_drag(page) -> float:
    """The display rate (Hz) the trivial page keeps during the same one-second drag of its slider."""
    track = page.locator("[data-testid=stSlider] [style*=touch-action]").first.bounding_box()
    thumb = page.locator("[data-testid=stSliderThumbValue]").bounding_box()
    xs = [track["x"] + track["width"] * i / 99 for i in range(100)]  # its 100 values
    x0, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    start = min(range(len(xs)), key=lambda i: abs(xs[i] - x0))
    page.mouse.move(xs[start], y)
    page.mouse.down()
    rec = page.evaluate(DRAG, ["[data-testid=stSlider]", -1, xs, start, y, FRAMES])
    page.mouse.up()
    wait_idle(page)
    return (len(rec) - 1) / ((rec[-1][0] - rec[0][0]) / 1000)


def measure_part(page, ref, rounds: int) -> dict:
    """The drag, release and key press of the part's first live slider, A B A B with the trivial page."""
    keys = live_keys(page) or open_pitfalls(page)
    if not keys:
        return {}
    key = keys[0]
    box = slider_box(page, key)
    box.hover()
    chart = page.evaluate(FOLLOWERS, key)[0]
    t0 = time.perf_counter()
    page.wait_for_function(f"(a) => ({STILLS_READY})(a) || ({TOO_FEW})(a)", arg=[chart, key], timeout=180_000)
    ready = time.perf_counter() - t0
    if page.evaluate(TOO_FEW, [chart, key]):
        return {"cannot follow": f"{key}: fewer than two values its figure accepts at these settings"}
    states = page.evaluate(STATE_COUNT, [chart, key])
    rows, steps, trivial, trivial_hz = [], [], [], []
    for i in range(rounds):
        rows.append(drag(page, key, chart))
        assert rows[-1]["runs"] == 0, f"{key}: a script run started during the drag"
        trivial_hz.append(trivial_drag(ref))
        trivial.append(trivial_key(ref, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
        page.wait_for_function(STILLS_READY, arg=[chart, key], timeout=180_000)  # the new settings' stills
        steps.append(key_step(page, key, chart, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
        trivial.append(trivial_key(ref, "ArrowLeft" if i % 2 == 0 else "ArrowRight"))
    med = statistics.median
    base = med(trivial)
    exact, quiet = med(r["exact"] for r in rows), med(s["quiet"] for s in steps)
    return {"slider": key, "ready": ready, "states": states, "fps": med(r["fps"] for r in rows),
            "hz": med(r["hz"] for r in rows), "trivial_hz": med(trivial_hz), "exact": exact, "quiet": quiet,
            "run": med(s["run"] for s in steps), "trivial": base, "exact_ratio": exact / base,
            "quiet_ratio": quiet / base}


def why_not(page, slug: str) -> str:
    """Why a part has no live slider: it has no slider, or its sliders change no figure."""
    sliders = page.evaluate("(slug) => [...document.querySelectorAll('[data-testid=stSlider]')].filter((s) => "
                            "[...s.closest('[data-testid=stElementContainer]').classList].some((c) => "
                            "c.startsWith('st-key-' + slug + '-'))).length", slug)
    return "no slider" if sliders == 0 else "its sliders change no figure (numbers, text or a table only)"


def warm_up(browser, app_url: str, pages: set[str]) -> None:
    """Open every page once, unmeasured: a lesson's first run in a process imports its modules."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    for name in sorted(pages):
        page.goto(f"{app_url}/{name}")
        with contextlib.suppress(PlaywrightTimeout):
            wait_idle(page)
    page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--largest", action="store_true", help="every control of each part at its largest")
    ap.add_argument("--rounds", type=int, default=3,
                    help="drags and key presses per part (a median of three: one slow round does not decide it)")
    ap.add_argument("--only", default="", help="only lessons whose slug contains this text")
    ap.add_argument("--part", default="", help="only parts whose name (lesson/part) contains this text")
    ap.add_argument("--json", default="", help="also write the rows to this file")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    app, app_url = start_server("app.py")
    ref_server, ref_url = start_server("benchmarks/trivial_app.py", options={"runner.postScriptGC": "true"})
    print(f"{'part':34} {'slider':22} {'ready s':>7} {'states':>7} {'fps':>4} {'Hz':>4} {'trivial Hz':>10} "
          f"{'exact ms':>8} {'key ms':>6} {'run ms':>6} {'trivial ms':>10} {'exact ×':>7} {'key ×':>5}", flush=True)
    out = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            ref = browser.new_page(viewport={"width": 1280, "height": 900})
            ref.goto(ref_url)
            wait_idle(ref)
            chosen = [(lesson, part) for lesson, part in part_cases()
                      if args.only in lesson.slug and args.part in f"{lesson.slug}/{part.key}"]
            warm_up(browser, app_url, {page_name(lesson) for lesson, _ in chosen})
            for lesson, part in chosen:
                query = extreme_query(lesson, part, high=True) if args.largest else part_query(lesson, part)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                count_runs(page)
                page.goto(f"{app_url}/{page_name(lesson)}?" + urllib.parse.urlencode(query))
                with contextlib.suppress(PlaywrightTimeout):  # a part without a chart
                    wait_idle(page)  # every chart drawn
                name = f"{lesson.slug}/{part.key}"
                try:
                    row = {"part": name, **measure_part(page, ref, args.rounds)}
                except PlaywrightError as err:  # reported, and the next part measured
                    row = {"part": name, "failed": str(err).splitlines()[0]}
                    print(f"{name:34} FAILED: {row['failed']}", flush=True)
                    out.append(row)
                    page.close()
                    continue
                if "slider" not in row:
                    row.setdefault("cannot follow", why_not(page, lesson.slug))
                    print(f"{name:34} {row['cannot follow']}", flush=True)
                else:
                    print(f"{name:34} {row['slider']:22} {row['ready']:7.1f} {row['states']:>7} {row['fps']:4.0f} "
                          f"{row['hz']:4.0f} {row['trivial_hz']:10.0f} {1000 * row['exact']:8.0f} "
                          f"{1000 * row['quiet']:6.0f} {1000 * row['run']:6.0f} {1000 * row['trivial']:10.0f} "
                          f"{row['exact_ratio']:7.2f} {row['quiet_ratio']:5.2f}", flush=True)
                out.append(row)
                page.close()
                if args.json:  # after every part: a run cut short keeps what it measured
                    with open(args.json, "w", encoding="utf-8") as f:
                        json.dump(out, f, indent=1)
            browser.close()
    finally:
        for proc in (app, ref_server):
            proc.terminate()


if __name__ == "__main__":
    main()
