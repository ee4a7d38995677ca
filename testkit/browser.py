"""The browser harness: a real ``streamlit run app.py`` on loopback, Debian's chromium under Playwright, and the
helpers that open a page, wait for its run to finish, read its charts and drive its sliders.

Without a chromium on PATH the browser tests skip, unless ``POSVIZ_REQUIRE_BROWSER=1`` (set by .ci/run), in
which case they fail: CI must never pass by skipping them. The fixtures that hand these out to tests live in
tests/conftest.py (the app server, one for the whole run) and tests/browser/conftest.py (chromium, a page).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
CHART = "[data-testid=stPlotlyChart], .posviz-live-chart"  # st.plotly_chart, or a live figure (posviz.ui.live)


def chromium_path() -> str | None:
    return os.environ.get("BROWSER_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")


def need_browser() -> None:
    if chromium_path() is None:
        msg = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("POSVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(msg + " and POSVIZ_REQUIRE_BROWSER=1")
        pytest.skip(msg)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(script: str = "app.py", port: int | None = None,
                 options: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """Start ``streamlit run script`` on loopback and wait until it answers; return (process, url).

    ``options`` are Streamlit config options given on the command line (they override .streamlit/config.toml).
    """
    port = port or _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
           "--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none", "--global.developmentMode", "false"]
    cmd += [arg for name, value in (options or {}).items() for arg in (f"--{name}", value)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start within 60 s")


@contextlib.contextmanager
def served(options: dict[str, str] | None = None) -> Iterator[str]:
    """A real ``streamlit run app.py`` (with Streamlit ``options``) for the duration of the block; its URL."""
    need_browser()
    proc, url = start_server(options=options)
    try:
        yield url
    finally:
        stop(proc)


def stop(proc: subprocess.Popen, seconds: float = 10) -> None:
    """Stop a server process: SIGTERM, then SIGKILL if it has not exited within ``seconds``."""
    proc.terminate()
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()


def count_runs(page: object) -> None:
    """Count the script runs the server starts and finishes for ``page``, from the websocket: its ``new_session``
    message opens every run (``page.posviz_started``), ``script_finished`` closes it (``page.posviz_runs``).
    A run can start and end between two renders of the page, so the page's own running attribute may never
    show it; the server's messages always come."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    page.posviz_started = page.posviz_runs = 0

    def on_frame(payload: bytes | str) -> None:
        if isinstance(payload, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            kind = msg.WhichOneof("type")
            page.posviz_started += kind == "new_session"
            page.posviz_runs += kind == "script_finished"

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))


def page_url(app_url: str, name: str, **query: object) -> str:
    """The URL of page ``name`` (e.g. "Sinusoidal", "RoPE"; "" for home) with a query string."""
    q = urllib.parse.urlencode(query)
    return f"{app_url}/{name}" + (f"?{q}" if q else "")


def wait_idle(page: object, settle_ms: int = 300, charts: bool = True) -> None:
    """Wait until the script has finished running and (with ``charts``) at least one chart is drawn
    and every chart on the page has been drawn: a live chart with the figure of the latest rerun (which it
    fetches after the rerun has ended)."""
    page.wait_for_selector("[data-testid=stApp]", state="attached")
    page.wait_for_timeout(150)
    page.wait_for_selector(IDLE, state="attached")
    if charts:
        page.wait_for_function(
            f"() => {{ const c = [...document.querySelectorAll('{CHART}')];"
            " return c.length > 0 && c.every(x => x.querySelector('.main-svg')"
            " && (!x.posvizPayload || x.posvizExact === x.posvizPayload.exact)); }")
    page.wait_for_timeout(settle_ms)


# presenter mode: the figures are drawn at the font scale the window fits ("wanted/used", posviz/ui/screen.js)
SCALE_SETTLED = """() => { const s = (document.documentElement.dataset.posvizScale || '').split('/');
    return s.length === 2 && s[0] === s[1]; }"""


def open_page(page: object, app_url: str, name: str, charts: bool = True, **query: object) -> None:
    """Open page ``name`` with ``query`` and wait until it is idle (and its charts are drawn); in presenter mode,
    until the figures are drawn at the font scale the window fits (a rerun once the page has measured it)."""
    page.goto(page_url(app_url, name, **query))
    wait_idle(page, charts=charts)
    if query.get("present"):
        page.wait_for_function(SCALE_SETTLED)
        wait_idle(page, charts=charts)


def chart_traces(page: object, index: int = 0) -> list[dict]:
    """The data of chart ``index`` as drawn by plotly.js (typed arrays decoded): [{type, name, x, y, z}]."""
    return page.evaluate(
        """(i) => {
            const plot = document.querySelectorAll('.js-plotly-plot')[i];
            const arr = (a) => a == null ? null : Array.from(a, v => (v != null && typeof v === 'object'
                && v.length !== undefined) ? Array.from(v) : v);
            return plot._fullData.map(t => ({type: t.type, name: t.name ?? null, x: arr(t.x), y: arr(t.y),
                                             z: arr(t.z)}));
        }""", index)


def chart_title(page: object, index: int = 0) -> str:
    """The title text of chart ``index`` as plotly.js holds it."""
    return page.evaluate("(i) => { const t = document.querySelectorAll('.js-plotly-plot')[i].layout.title;"
                         " return typeof t === 'string' ? t : (t && t.text) || ''; }", index)


def chart_count(page: object) -> int:
    return page.locator(".js-plotly-plot").count()


def error_elements(page: object) -> list[str]:
    """Texts of exception and st.error elements on the page (should be empty)."""
    loc = page.locator("[data-testid=stException], [data-testid=stAlertContentError]")
    return [loc.nth(i).inner_text() for i in range(loc.count())]


def move_slider(page: object, label: str, steps: int = 1) -> None:
    """Focus the slider named ``label`` and press the arrow key ``steps`` times (negative = left), 50 ms apart
    as a hand would: presses sent back to back (Playwright's default) reach Streamlit's slider faster than
    it takes them, and some are dropped."""
    slider = page.get_by_role("slider", name=label).first
    slider.focus()
    key = "ArrowRight" if steps > 0 else "ArrowLeft"
    for _ in range(abs(steps)):
        slider.press(key)
        page.wait_for_timeout(50)
    wait_idle(page)


def click_and_wait(page: object, target: object, charts: bool = True, press: str | None = None) -> None:
    """Click ``target`` (a locator), or press the key ``press`` in it, and wait for the run it starts to finish.

    ``wait_idle`` alone can read the page before the click's run has begun (the app is still idle from the last
    one), and the next ``script_finished`` may close a run that began before the click; so this waits for a run
    to start after the click and for every started run to finish."""
    before = page.posviz_started
    target.press(press) if press else target.click()
    wait_run_after(page, before, charts=charts)


def wait_run_after(page: object, before: int, charts: bool = True) -> None:
    """Wait until a script run has started since the page had started ``before`` runs, every started run has
    finished, and the page is idle with its charts drawn: what a click or a slider's release set going."""
    for _ in range(3000):  # 60 s
        if page.posviz_started > before and page.posviz_runs >= page.posviz_started:
            break
        page.wait_for_timeout(20)
    else:
        raise TimeoutError("no script run finished within 60 s")
    wait_idle(page, charts=charts)


def open_export(page: object, chart: int = 0) -> None:
    """Open the "Export / copy as code" view of chart ``chart`` and wait for its download buttons."""
    page.get_by_role("radio", name="Export / copy as code").nth(chart).click()
    page.get_by_role("button", name="PNG").first.wait_for()


# --- live figures (posviz.ui.live): drag a slider and watch the chart without a rerun ---------------------------
SHOWN = "() => { const c = document.querySelector('.posviz-live-chart'); return [c.dataset.shown, c.dataset.draws]; }"
# the plot on screen: the still laid over the live chart while a drag shows one (the drawing its picture was
# painted from), else the chart itself
ON_SCREEN = """const still = document.querySelector('.posviz-live-still');
    const plot = still && still.style.display !== 'none'
        ? (still.firstElementChild && still.firstElementChild.posvizPlot) || still
        : document.querySelector('.posviz-live-chart');"""
# what a plot draws: its lines, points, texts and images, and the pixels of what it drew with WebGL (the chart's
# canvas, a still's copy of it), as one hash
DRAWING_OF = """const drawingOf = (plot) => {
    let h = 2166136261;
    const add = (s) => { for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619); };
    for (const e of plot.querySelectorAll('.main-svg path, .main-svg text, .main-svg image, .main-svg .point')) {
        add((e.getAttribute('d') || '') + (e.getAttribute('transform') || '') + e.textContent
            + (e.getAttribute('href') || ''));
    }
    for (const e of plot.querySelectorAll('canvas.gl-canvas-context, img.gl-canvas-context')) {
        add(e.tagName === 'IMG' ? e.src : e.toDataURL('image/png'));
    }
    return h >>> 0; };"""
DRAWING = "() => { " + ON_SCREEN + DRAWING_OF + " return drawingOf(plot); }"
# every state of every live slider of the chart has its still (live.js draws them in idle time)
STILLS_READY = """() => { const s = (document.querySelector('.posviz-live-chart').dataset.stills || '').split('/');
    return s.length === 2 && Number(s[1]) > 0 && s[0] === s[1]; }"""
REACTS = "() => Number(document.querySelector('.posviz-live-chart').dataset.reacts || 0)"


def reach_for(page: object, control_key: str) -> object:
    """Rest the pointer on the slider with widget key ``control_key`` ("rope.base"), scrolled into view as a student
    scrolls the sidebar to it (a press outside the viewport reaches nothing), and wait until the live charts have
    fetched its states. The slider's box."""
    box = page.locator(".st-key-" + control_key.replace(".", "-")).first
    box.scroll_into_view_if_needed()
    box.hover()
    page.wait_for_function("(k) => !!document.querySelector('.st-key-' + k).dataset.posvizStates",
                           arg=control_key.replace(".", "-"), timeout=60_000)
    return box


def live_drag(page: object, control_key: str, dx: float, moves: int = 30, pause_ms: int = 16,
              stills: bool = True) -> dict:
    """Press the thumb of the slider with widget key ``control_key`` ("sinusoidal.base"), move the mouse
    ``moves`` times by ``dx`` px, then release; with ``stills``, once every state's still is drawn. Returns
    what the live chart showed after each move (its state and a hash of the drawing on screen), the states
    Plotly.react drew (no still), the script runs that started during the drag (before release), the
    seconds the drag took and the page's count of started runs as it let go (``released_at``, for
    ``wait_run_after``). The pointer rests over the slider first, as a hand reaching for it does: the chart then
    fetches that slider's states."""
    box = reach_for(page, control_key)
    if stills:
        page.wait_for_function(STILLS_READY, timeout=60_000)
    thumb = box.locator("[data-testid=stSliderThumbValue]").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] + 8
    started, reacts = page.posviz_started, page.evaluate(REACTS)
    page.mouse.move(x, y)
    page.mouse.down()
    shown, drawings = [], []
    t0 = time.perf_counter()
    for _ in range(moves):
        x += dx
        page.mouse.move(x, y)
        page.wait_for_timeout(pause_ms)
        shown.append(page.evaluate(SHOWN))
        drawings.append(page.evaluate(DRAWING))
    seconds = time.perf_counter() - t0
    runs = page.posviz_started - started  # runs the server started before the release
    reacts = page.evaluate(REACTS) - reacts
    released_at = page.posviz_started
    page.mouse.up()
    return {"shown": shown, "drawings": drawings, "reacts": reacts, "runs_during_drag": runs, "seconds": seconds,
            "released_at": released_at}


# --- a lesson's controls as the page shows them (posviz.ui widgets, keyed "<slug>.<name>") ----------------------
WIDGET_STATE = """(key) => {
    const box = document.querySelector('.st-key-' + key);
    if (!box) return null;
    const widget = box.querySelector('[data-testid]');
    const input = (type) => box.querySelector(`input[type=${type}]`);
    const checked = box.querySelector('input[type=radio]:checked');
    const field = box.querySelector('textarea') || input('text') || input('number');
    return {kind: widget && widget.getAttribute('data-testid'),
            range: input('range') && input('range').value,
            checked: input('checkbox') ? input('checkbox').checked : null,
            radio: checked ? checked.closest('label').innerText.trim() : null,
            field: field && field.value,
            tags: [...box.querySelectorAll('[data-tag]')].map(t => t.getAttribute('aria-label'))};
}"""


def control_value(page: object, slug: str, param: object) -> object:
    """The value the widget of lesson ``slug``'s control ``param`` (a ``posviz.ui`` Param) shows, read from the DOM
    and turned back into the control's value (an option key, a number, a tuple of keys ...); ``None`` when the page
    draws no widget for it."""
    from posviz.ui.params import Bool, Choice, LogFloat, Multi, Text

    state = page.evaluate(WIDGET_STATE, f"{slug}-{param.name}".replace(".", "-"))
    if state is None:
        return None
    if isinstance(param, LogFloat):  # a select-slider: its range input holds the option's index
        return param.options[int(state["range"])]
    if isinstance(param, Choice):  # a radio row, or a select box showing the option's label
        label = state["radio"] if state["kind"] == "stRadio" else state["field"]
        return next((key for key, text in param.options.items() if text == label), label)
    if isinstance(param, Multi):
        return tuple(next((key for key, text in param.options.items() if text == tag), tag) for tag in state["tags"])
    if isinstance(param, Bool):
        return state["checked"]
    if isinstance(param, Text):
        return state["field"]
    raw = state["range"] if state["range"] is not None else state["field"]  # a slider or a number box
    return None if raw is None else float(raw)


def url_warnings(page: object) -> list[str]:
    """The texts of the page's warnings about bad URL values ("URL parameter `d` had an invalid value ...")."""
    texts = page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
    return [t for t in texts if "URL parameter" in t]


def share_box_link(page: object) -> str:
    """The link in the sidebar's "Share this view" box."""
    return page.locator("[data-testid=stSidebar] [data-testid=stCode]").first.inner_text().strip()
