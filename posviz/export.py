"""Figure export: PNG, SVG, PDF (kaleido), self-contained HTML, CSV and JSON of the plotted numbers,
and GIF/MP4 of animated figures. No streamlit here: the app's export buttons and the command line
(``python -m posviz export``) both call ``export_figure``.

Safe for a whole class at once. One Chromium serves every image of a process (starting it costs ~2 s,
a warm image ~0.25 s), driven from its own event-loop thread: each request gets its own future, so two
exports can never swap results (kaleido's sync server answers through one shared queue, to whichever
thread reads first). A budget is checked before any work (``check_budget``: pixels per image and per
animation), at most ``EXPORT_SLOTS`` exports render at once and the others queue in order
(``export_status``), and GIF/MP4 frames stream into the encoder as they are rendered, so an
animation holds a few frames in memory, never all of them. ``find_browser`` finds the Chromium or Chrome
kaleido drives (``BROWSER_PATH``, then PATH, then where macOS and Windows install them); nothing here downloads
a browser. kaleido, Pillow and imageio-ffmpeg (the ``[export]`` extra) are imported only when a format needs
them: ``missing_for`` says what a format lacks and ``how_to_enable`` how to get it. ``export_file`` writes
beside its target and moves the file over it, so a failed export never destroys an existing file.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures
import contextlib
import csv
import ctypes
import heapq
import importlib
import io
import itertools
import json
import math
import os
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import plotly.graph_objects as go

if TYPE_CHECKING:  # Pillow is part of the [export] extra: imported where frames are decoded, never at import
    from PIL import Image

from posviz._validate import check_choice, check_int
from posviz.figures import FIGURES, build
from posviz.theme import THEMES, style, typeset_figure

IMAGE_FORMATS = ("png", "svg", "pdf")
DATA_FORMATS = ("csv", "json")
ANIMATION_FORMATS = ("gif", "mp4")
FORMATS = IMAGE_FORMATS + ("html",) + DATA_FORMATS + ANIMATION_FORMATS
RENDERED = IMAGE_FORMATS + ANIMATION_FORMATS  # the formats that go through the browser
SIZE_PRESETS: dict[str, tuple[int, int]] = {
    "blog": (1200, 675),
    "square": (1080, 1080),
    "slide": (1920, 1080),
}
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html",
        "csv": "text/csv", "json": "application/json", "gif": "image/gif", "mp4": "video/mp4"}

# The budget (benchmarks/export_budget.py measures the largest allowed export of each kind).
MAX_IMAGE_PIXELS = 36_000_000  # one PNG/SVG/PDF page or animation frame: (width·scale)·(height·scale)
MAX_ANIMATION_PIXELS = 260_000_000  # frames × pixels of a frame: the 72-frame clock at blog ×2 is 233 M
EXPORT_SLOTS = 3  # exports rendering at once per process; the others wait (see export_priority)
BROWSER_TABS = 2  # renders at once in the browser: one per core of a 2-core server
FRAME_S = 0.5  # a rough cost of one frame, for ordering exports (a 72-frame GIF at blog ×2: ~0.3-0.5 s a frame)
DOWNLOAD_TIME_LIMIT_S = 170.0  # the app's exports, queue included: Streamlit drops a download after 180 s
AHEAD = 2  # animation frames in flight in the browser while the previous one is encoded
PALETTE_SAMPLES = 6  # frames (spread over the animation) whose colours make a GIF's one palette


SIZE_RANGE = (100, 4000)  # width and height in pixels, before the scale factor
SCALE_RANGE = (0.25, 4.0)
FPS_RANGE = (1, 60)


@dataclass(frozen=True)
class ExportOptions:
    """How to render: pixel size, scale factor, theme and background."""

    width: int = 1200
    height: int = 675
    scale: float = 1.0
    theme: str = "light"
    transparent: bool = False
    presenter: bool = False
    fps: int = 12

    def __post_init__(self) -> None:
        lo, hi = SIZE_RANGE
        for name, value in (("width", self.width), ("height", self.height)):
            if not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
        if not SCALE_RANGE[0] <= float(self.scale) <= SCALE_RANGE[1]:
            raise ValueError(f"scale must be a number in [{SCALE_RANGE[0]:g}, {SCALE_RANGE[1]:g}]; got {self.scale!r}")
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {self.theme!r}")
        if not FPS_RANGE[0] <= self.fps <= FPS_RANGE[1]:
            raise ValueError(f"fps must be an integer in [{FPS_RANGE[0]}, {FPS_RANGE[1]}]; got {self.fps!r}")


# ------------------------------------------------------------------------------ what this install can make

BROWSER = "chromium"  # the need that is a program, not a Python module
# the Python modules each rendered format imports, and the distribution of the [export] extra that ships each
FORMAT_NEEDS: dict[str, tuple[str, ...]] = {
    "png": ("kaleido", BROWSER), "svg": ("kaleido", BROWSER), "pdf": ("kaleido", BROWSER),
    "gif": ("kaleido", BROWSER, "PIL"), "mp4": ("kaleido", BROWSER, "PIL", "imageio_ffmpeg"),
}
DISTRIBUTIONS = {"kaleido": "kaleido", "PIL": "pillow", "imageio_ffmpeg": "imageio-ffmpeg"}
BROWSER_ENV = "BROWSER_PATH"  # the variable kaleido (through choreographer) itself reads for the browser
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
MAC_APPS = ("Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium")
WINDOWS_APPS = (r"Google\Chrome\Application\chrome.exe", r"Chromium\Application\chrome.exe")
WINDOWS_ROOTS = ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")


class ExportUnavailableError(RuntimeError):
    """A format this installation cannot make (a module of the [export] extra, or the browser, is missing)."""


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def browser_candidates(platform: str | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The places a Chrome or Chromium is installed on ``platform`` (``sys.platform``: "darwin", "win32",
    "linux"), outside PATH: /Applications (and ~/Applications) on macOS, Program Files and LOCALAPPDATA on
    Windows; nothing on Linux, whose packages put the browser on PATH."""
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if platform == "darwin":
        roots = ["/Applications"] + ([environ["HOME"] + "/Applications"] if environ.get("HOME") else [])
        return [f"{root}/{app}" for root in roots for app in MAC_APPS]
    if platform == "win32":
        roots = [environ[name].rstrip("\\") for name in WINDOWS_ROOTS if environ.get(name)]
        return [f"{root}\\{app}" for root in roots for app in WINDOWS_APPS]
    return []


def find_browser(platform: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The browser kaleido will drive, or None: ``BROWSER_PATH`` if set (only that one, as kaleido does; None if
    it is not an executable file), else the first of PATH_NAMES on PATH, else the platform's usual places
    (``browser_candidates``)."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(BROWSER_ENV)
    if chosen:
        return chosen if _is_executable(chosen) else None
    for name in PATH_NAMES:
        found = shutil.which(name, path=environ.get("PATH"))
        if found:
            return found
    return next((path for path in browser_candidates(platform, environ) if _is_executable(path)), None)


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:  # absent, or blocked (sys.modules[module] is None)
        return False
    return True


def _lacks(fmt: str, has_browser: bool) -> tuple[str, ...]:
    return tuple(need for need in FORMAT_NEEDS.get(fmt, ())
                 if not (has_browser if need == BROWSER else _importable(need)))


def missing_for(fmt: str, *, browser: bool = True) -> tuple[str, ...]:
    """What format ``fmt`` needs that this installation lacks: module names of the [export] extra ("kaleido",
    "PIL", "imageio_ffmpeg") and, unless ``browser`` is False, BROWSER for the browser; empty when the format
    can be made (HTML, CSV and JSON need nothing)."""
    fmt = check_choice("fmt", fmt, FORMATS)
    return _lacks(fmt, not browser or find_browser() is not None)


def unavailable(fmts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each format of ``fmts`` that cannot be made here, with what it lacks (``missing_for``); the browser is
    looked for once."""
    fmts = [check_choice("fmt", fmt, FORMATS) for fmt in fmts]
    has_browser = find_browser() is not None
    lacking = {fmt: _lacks(fmt, has_browser) for fmt in fmts}
    return {fmt: needs for fmt, needs in lacking.items() if needs}


def _joined(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def how_to_enable(lacking: Mapping[str, Iterable[str]]) -> str:
    """One line saying which formats cannot be made and how to enable them, from ``unavailable(...)``: e.g.
    'PNG, SVG and PDF need kaleido: pip install "posviz[export]".' A missing browser adds where to get one."""
    named = {need for why in lacking.values() for need in why}
    needs = [need for need in FORMAT_NEEDS["mp4"] if need in named]  # mp4 needs all of them, in a fixed order
    packages = [DISTRIBUTIONS[n] for n in needs if n != BROWSER]
    names = _joined([fmt.upper() for fmt in lacking])
    what = packages + (["a Chromium or Chrome browser"] if BROWSER in needs else [])
    fixes = ['pip install "posviz[export]"'] if packages else []
    if BROWSER in needs:
        chosen = os.environ.get(BROWSER_ENV)
        fixes.append(f"{BROWSER_ENV}={chosen!r} is not an executable file: point it at the browser" if chosen else
                     f"apt-get install chromium, or install Google Chrome, or set {BROWSER_ENV} to the browser")
    return f"{names} {'needs' if len(lacking) == 1 else 'need'} {_joined(what)}: {'; '.join(fixes)}."


def require(fmt: str, *, browser: bool = True) -> None:
    """ExportUnavailableError (saying how to enable it) unless format ``fmt`` can be made here (its modules, and
    unless ``browser`` is False, the browser: see ``missing_for``)."""
    lacking = missing_for(fmt, browser=browser)
    if lacking:
        raise ExportUnavailableError(how_to_enable({fmt: lacking}))


# ---------------------------------------------------------------------------------------------- budget

def render_options(fmt: str, opts: ExportOptions) -> ExportOptions:
    """The options a format really renders with: MP4 (H.264) takes sizes divisible by 16 at scale 1."""
    if fmt != "mp4":
        return opts
    return replace(opts, width=max(112, opts.width // 16 * 16), height=max(112, opts.height // 16 * 16), scale=1.0)


def raster_size(opts: ExportOptions) -> tuple[int, int]:
    """Pixel width and height of one rendered image: (round(width·scale), round(height·scale))."""
    return round(opts.width * opts.scale), round(opts.height * opts.scale)


def check_budget(fmt: str, opts: ExportOptions, n_frames: int = 1) -> None:
    """Raise ValueError, naming the cap, if exporting ``n_frames`` frames as ``fmt`` costs too much.

    One image (PNG; SVG and PDF are laid out on a page of the same size) may have at most
    MAX_IMAGE_PIXELS = (width·scale)·(height·scale); an animation at most MAX_ANIMATION_PIXELS over all
    its frames. Checked before any rendering; data formats (HTML, CSV, JSON) cost no pixels.
    """
    fmt = check_choice("fmt", fmt, FORMATS)
    n_frames = check_int("n_frames", n_frames, 0)
    if fmt not in RENDERED:
        return
    w, h = raster_size(render_options(fmt, opts))
    if w * h > MAX_IMAGE_PIXELS:
        raise ValueError(f"image size {w}×{h} px ({w * h / 1e6:.1f} megapixels: width × height × scale²) is "
                         f"above the cap of {MAX_IMAGE_PIXELS / 1e6:g} megapixels per image; lower the size "
                         "or the scale")
    frames = max(1, n_frames) if fmt in ANIMATION_FORMATS else 1
    if frames * w * h > MAX_ANIMATION_PIXELS:
        most = MAX_ANIMATION_PIXELS // (w * h)
        raise ValueError(f"{fmt.upper()} of {frames} frames at {w}×{h} px is {frames * w * h / 1e6:.0f} "
                         f"megapixels, above the cap of {MAX_ANIMATION_PIXELS / 1e6:g} megapixels per "
                         f"animation (frames × width × height × scale²); at this size at most {most} frames, "
                         "or lower the size or the scale")


# ----------------------------------------------------------------------------------------------- slots

class ExportBusyError(RuntimeError):
    """The export could not finish within its time limit (waiting for a slot, or rendering): try later."""


def export_priority(n_frames: int) -> float:
    """The order in which exports get slots and browser tabs, lowest first: arrival time plus a rough
    cost (n_frames × FRAME_S). Earliest estimated finish first: a PNG pressed while a GIF renders goes
    next, and of two GIFs the earlier one gets the browser first, so they finish one after the other
    instead of both late (what matters when each download has a deadline)."""
    return time.monotonic() + max(1, n_frames) * FRAME_S


class _Slots:
    """At most ``n`` holders at once; the others wait, lowest priority value first (ties: first come)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._cond = threading.Condition()
        self._queue: list[tuple[float, int]] = []  # a heap of (priority, ticket)
        self._tickets = itertools.count()
        self._running = 0

    @contextlib.contextmanager
    def hold(self, wait: float | None, priority: float) -> Iterator[None]:
        ticket = (priority, next(self._tickets))
        with self._cond:
            heapq.heappush(self._queue, ticket)
            if not self._cond.wait_for(lambda: self._queue[0] == ticket and self._running < self.n, wait):
                self._queue.remove(ticket)
                heapq.heapify(self._queue)
                self._cond.notify_all()
                raise ExportBusyError(f"the server stayed busy with other exports for {wait:.0f} s "
                                      f"({self._running} rendering, {len(self._queue)} waiting); try again "
                                      "in a minute")
            heapq.heappop(self._queue)
            self._running += 1
            self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def status(self) -> tuple[int, int]:
        with self._cond:
            return self._running, len(self._queue)


_SLOTS = _Slots(EXPORT_SLOTS)


def export_status() -> tuple[int, int]:
    """(exports rendering now, exports waiting for a slot) in this process."""
    return _SLOTS.status()


# -------------------------------------------------------------------------------------------- renderer

class _Gate:
    """At most ``n`` holders (browser tabs); waiters enter lowest priority value first. Used from the
    renderer's event loop only, so it needs no lock."""

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiters: list[tuple[float, int, asyncio.Future]] = []
        self._order = itertools.count()

    async def acquire(self, priority: float) -> None:
        if self.free and not self._waiters:
            self.free -= 1
            return
        entry = (priority, next(self._order), asyncio.get_running_loop().create_future())
        heapq.heappush(self._waiters, entry)
        try:
            await entry[2]
        except asyncio.CancelledError:
            if entry[2].done() and not entry[2].cancelled():  # handed the tab just as it was cancelled
                self.release()
            raise

    def release(self) -> None:
        while self._waiters:
            waiter = heapq.heappop(self._waiters)[2]
            if not waiter.done():
                waiter.set_result(None)
                return
        self.free += 1


class _Renderer:
    """One Chromium with ``tabs`` kaleido tabs, run by an asyncio loop on its own daemon thread.

    ``submit`` hands a figure to the loop and returns that request's own future: results cannot cross
    between callers, however many threads submit at once. Requests get a tab lowest priority first.
    Started on first use; a broken browser (a crash, a timeout) is replaced by a fresh one on the next
    request.
    """

    def __init__(self, tabs: int) -> None:
        self.tabs = tabs
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        self._gate = _Gate(tabs)

    def _start(self) -> None:
        import kaleido

        path = find_browser()
        if path is None:
            raise ExportUnavailableError(how_to_enable(dict.fromkeys(RENDERED, (BROWSER,))))

        async def open_browser() -> Any:
            # the browser find_browser chose (kaleido searches fewer places); no figure uses LaTeX, and MathJax
            # would be a CDN fetch
            k = kaleido.Kaleido(n=self.tabs, mathjax=False, path=path)
            await k.open()
            return k

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="posviz-kaleido", daemon=True).start()
        try:
            self._kaleido = asyncio.run_coroutine_threadsafe(open_browser(), loop).result(timeout=60)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            raise
        self._loop, self._gate = loop, _Gate(self.tabs)

    def submit(self, fig: dict, fmt: str, opts: ExportOptions, priority: float = 0.0) -> concurrent.futures.Future:
        """Start rendering ``fig`` (plotly JSON) as ``fmt``; the future's result is the image bytes."""
        with self._lock:
            if self._loop is None:
                self._start()
            loop, k, gate = self._loop, self._kaleido, self._gate
        layout = dict(format=fmt, width=opts.width, height=opts.height, scale=opts.scale)

        async def render() -> bytes:
            await gate.acquire(priority)
            try:
                return await k.calc_fig(fig, opts=layout)
            finally:
                gate.release()

        future = asyncio.run_coroutine_threadsafe(render(), loop)
        future.add_done_callback(lambda f: self._check(f, k))
        return future

    def _check(self, future: concurrent.futures.Future, k: Any) -> None:
        from kaleido.errors import KaleidoError  # a figure plotly.js refused: the browser is fine

        err = None if future.cancelled() else future.exception()
        if err is not None and not isinstance(err, (KaleidoError, ValueError)):
            self.close(k)

    def close(self, only: Any = None) -> bool:
        """Close the browser (if ``only`` is given, only if it is still the current one); whether a browser was
        shut down and the shutdown completed (rather than ran out its time)."""
        with self._lock:
            if self._loop is None or (only is not None and only is not self._kaleido):
                return False
            loop, k = self._loop, self._kaleido
            self._loop = self._kaleido = None

        async def shutdown() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(k.close(), 10)

        done = asyncio.run_coroutine_threadsafe(shutdown(), loop)
        # the loop stops only once the shutdown's result is handed over: stopping it from inside the coroutine
        # left the future unresolved, and every exit waited out the timeout below
        done.add_done_callback(lambda _: loop.call_soon_threadsafe(loop.stop))
        if threading.current_thread().name == "posviz-kaleido":  # from the loop itself: never wait on it
            return False
        with contextlib.suppress(Exception):
            done.result(timeout=15)
        return done.done() and not done.cancelled()


_RENDERER = _Renderer(tabs=BROWSER_TABS)
atexit.register(_RENDERER.close)


def _plotly_json(fig: go.Figure | dict) -> dict:
    return fig if isinstance(fig, dict) else fig.to_dict()


def _left(deadline: float | None) -> float | None:
    """Seconds left until ``deadline`` (a time.monotonic() value; None: no limit); ExportBusyError if none."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise ExportBusyError("the export ran out of time (the server is busy); try again in a minute")
    return left


def _wait(future: concurrent.futures.Future, deadline: float | None) -> bytes:
    try:
        return future.result(timeout=_left(deadline))
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise ExportBusyError("the export ran out of time (the server is busy); try again in a minute") from None


def image_bytes(fig: go.Figure | dict, fmt: str, opts: ExportOptions, *, deadline: float | None = None,
                priority: float | None = None) -> bytes:
    """Render a styled figure to PNG, SVG or PDF bytes in the shared browser (budget checked first);
    ExportBusyError if it is not done by ``deadline`` (a time.monotonic() value)."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(IMAGE_FORMATS)}; got {fmt!r}")
    check_budget(fmt, opts)
    _left(deadline)
    priority = export_priority(1) if priority is None else priority
    return _wait(_RENDERER.submit(_plotly_json(fig), fmt, opts, priority), deadline)


def html_bytes(fig: go.Figure) -> bytes:
    """A self-contained interactive HTML page (plotly.js inline: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False).encode()


def traces_table(fig: go.Figure) -> list[dict[str, object]]:
    """The plotted numbers of every trace as rows: trace, x, y (and z for heatmaps)."""
    rows: list[dict[str, object]] = []
    for i, trace in enumerate(fig.data):
        name = trace.name or f"trace {i}"
        z = getattr(trace, "z", None)
        if z is not None and trace.type in ("heatmap", "contour", "surface"):
            z = np.asarray(z)
            xs = np.asarray(trace.x) if trace.x is not None else np.arange(z.shape[1])
            ys = np.asarray(trace.y) if trace.y is not None else np.arange(z.shape[0])
            for r in range(z.shape[0]):
                for c in range(z.shape[1]):
                    rows.append({"trace": name, "x": _py(xs[c]), "y": _py(ys[r]), "z": _py(z[r, c])})
            continue
        if trace.type == "table":  # one row per table row: x = row number, y = column header, z = cell
            headers = list(trace.header.values or [])
            for c, column in enumerate(trace.cells.values or []):
                for r, cell in enumerate(column):
                    head = headers[c] if c < len(headers) else c
                    rows.append({"trace": name, "x": r, "y": _py(head), "z": _py(cell)})
            continue
        xs, ys = _coords(trace)
        for x, y in zip(xs, ys, strict=False):
            rows.append({"trace": name, "x": _py(x), "y": _py(y), "z": ""})
    return rows


def _coords(trace: object) -> tuple[Iterable, Iterable]:
    for a, b in (("x", "y"), ("theta", "r"), ("labels", "values")):
        x, y = getattr(trace, a, None), getattr(trace, b, None)
        if x is not None or y is not None:
            n = len(y if y is not None else x)
            return (x if x is not None else range(n)), (y if y is not None else [""] * n)
    return (), ()


def _py(v: object) -> object:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return round(v, 9)
    return v


def csv_bytes(fig: go.Figure) -> bytes:
    """CSV of the plotted numbers (long format: trace, x, y, z)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["trace", "x", "y", "z"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(traces_table(fig))
    return buf.getvalue().encode()


def json_bytes(fig: go.Figure, name: str = "", params: Mapping[str, object] | None = None) -> bytes:
    """JSON of the figure's name, parameters and plotted numbers (plain lists, no plotly encoding)."""
    payload = {"figure": name, "params": dict(params or {}), "traces": []}
    for i, trace in enumerate(fig.data):
        entry: dict[str, object] = {"name": trace.name or f"trace {i}", "type": trace.type}
        for attr in ("x", "y", "z", "r", "theta"):
            val = getattr(trace, attr, None)
            if val is not None:
                entry[attr] = np.asarray(val).tolist()
        payload["traces"].append(entry)
    return json.dumps(payload, default=_json_default).encode()


def _json_default(v: object) -> object:
    if isinstance(v, (np.generic,)):
        return v.item()
    if isinstance(v, (tuple, set)):
        return list(v)
    return str(v)


def frame_dicts(fig: go.Figure) -> Iterator[dict]:
    """One static figure per animation frame, as plotly JSON with the play controls removed.

    Plain dicts: rebuilding a validated ``go.Figure`` per frame cost ~40 ms a frame, 2 s of a 60-frame
    GIF. A frame's traces and layout update the figure's the way plotly.js applies them: nested merge.
    """
    base = fig.to_plotly_json()
    frames = base.pop("frames", None) or [{"data": []}]
    layout = {k: v for k, v in base.get("layout", {}).items() if k not in ("updatemenus", "sliders")}
    for frame in frames:
        data = list(base["data"])
        updates = frame.get("data") or []
        targets = frame.get("traces") or range(len(updates))
        for idx, trace in zip(targets, updates, strict=False):
            data[idx] = _merged(data[idx], trace)
        yield {"data": data, "layout": _merged(layout, frame.get("layout") or {})}


def _merged(base: dict, update: dict) -> dict:
    out = dict(base)
    for key, value in update.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


Progress = Callable[[int, int], None]  # (frames rendered so far, frames in all), called as each frame arrives


def _counter(total: int, progress: Progress | None) -> Callable[[], None]:
    """A tick to call once per rendered frame: reports (frames so far, ``total``) to ``progress``, if any."""
    done = itertools.count(1)

    def tick() -> None:
        if progress is not None:
            progress(next(done), total)

    return tick


def _png_stream(stills: Iterable[dict], opts: ExportOptions, done: Mapping[int, bytes],
                deadline: float | None, priority: float, tick: Callable[[], None]) -> Iterator[bytes]:
    """PNG bytes of each still in order, AHEAD frames rendering in the browser while the caller encodes
    the previous one; frames already in ``done`` are not rendered again (nor ticked). Past ``deadline`` the
    stream stops (ExportBusyError), and unfinished renders are cancelled whenever the caller stops early."""
    pending: collections.deque[concurrent.futures.Future | bytes] = collections.deque()
    try:
        for i, still in enumerate(stills):
            _left(deadline)
            pending.append(done[i] if i in done else _RENDERER.submit(still, "png", opts, priority))
            if len(pending) > AHEAD:
                yield _result(pending.popleft(), deadline, tick)
        while pending:
            yield _result(pending.popleft(), deadline, tick)
    finally:
        for item in pending:
            if isinstance(item, concurrent.futures.Future):
                item.cancel()


def _result(item: concurrent.futures.Future | bytes, deadline: float | None, tick: Callable[[], None]) -> bytes:
    if isinstance(item, bytes):
        return item
    png = _wait(item, deadline)
    tick()
    return png


def _rgb(png: bytes) -> Image.Image:
    """Decode a PNG to a standalone RGB image: the decoded RGBA buffer is freed on return (a numpy
    ``[..., :3]`` view would keep all of it alive)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        return im.convert("RGB")


def _palette(pngs: Iterable[bytes]) -> Image.Image:
    """One 255-colour palette (median cut) for the whole GIF from a few frames spread over it: quantising
    every frame on its own cost ~3 s for 50 frames at 800×800, and one palette keeps colours from
    flickering. Each sample is shrunk to about 0.25 megapixels first, so the sample stays small."""
    from PIL import Image

    parts = []
    for png in pngs:
        im = _rgb(png)
        step = max(1, math.ceil(math.sqrt(im.width * im.height / 250_000)))
        parts.append(np.asarray(im)[::step, ::step])  # (H/step, W/step, 3)
    width = min(p.shape[1] for p in parts)
    sample = np.concatenate([p[:, :width] for p in parts], axis=0)  # (Σ rows, width, 3)
    return Image.fromarray(sample).quantize(colors=255, method=Image.Quantize.MEDIANCUT)


def _changed_box(prev: np.ndarray | None, cur: np.ndarray) -> tuple[int, int, int, int]:
    """The smallest box (left, top, right, bottom) holding every pixel that differs from ``prev``
    (the whole frame for the first one, a single pixel if nothing changed)."""
    if prev is None:
        return 0, 0, cur.shape[1], cur.shape[0]
    diff = prev != cur  # (H, W)
    rows, cols = np.flatnonzero(diff.any(axis=1)), np.flatnonzero(diff.any(axis=0))
    if rows.size == 0:
        return 0, 0, 1, 1
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _write_gif(out: BinaryIO, frames: Iterable[Image.Image], palette: Image.Image, fps: int) -> None:
    """Stream RGB frames into a looping GIF with one global palette: each frame is quantised, cropped to
    what changed since the previous one (kept, disposal 1 = "leave in place") and written at once, so
    only the previous frame's palette indices stay in memory (GIF89a: graphic control extension, image
    descriptor, LZW data; Pillow encodes each frame)."""
    from PIL import GifImagePlugin, Image

    delay = 10 * int(100 / fps + 0.5)  # GIF delays are in 1/100 s: the nearest one, in ms
    prev = None
    for rgb in frames:
        frame = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
        cur = np.asarray(frame)  # (H, W) palette indices
        if prev is None:
            header, _ = GifImagePlugin.getheader(frame, info={"loop": 0, "duration": delay, "optimize": False})
            out.write(b"".join(header))
        box = _changed_box(prev, cur)
        for chunk in GifImagePlugin.getdata(frame.crop(box), offset=box[:2], duration=delay, disposal=1):
            out.write(chunk)
        prev = cur
    out.write(b";")  # trailer


def _write_mp4(out: BinaryIO, frames: Iterable[Image.Image], size: tuple[int, int], fps: int) -> None:
    """Stream RGB frames into ffmpeg's H.264 encoder (imageio-ffmpeg), one frame at a time, then copy the
    file ffmpeg wrote (it seeks back to finish the file, so it writes a path of its own) into ``out``."""
    import imageio_ffmpeg

    with tempfile.TemporaryDirectory(prefix="posviz-") as tmp:
        path = os.path.join(tmp, "out.mp4")
        writer = imageio_ffmpeg.write_frames(path, size, fps=fps, codec="libx264", macro_block_size=16,
                                             ffmpeg_log_level="error")
        writer.send(None)
        try:
            for rgb in frames:
                if rgb.size != size:
                    raise ValueError(f"frame size {rgb.size} differs from the video size {size}")
                writer.send(rgb.tobytes())
        finally:
            writer.close()
        with open(path, "rb") as f:
            shutil.copyfileobj(f, out)


def _release_memory() -> None:
    """Give freed heap pages back to the OS (glibc's malloc_trim): without it the encoder's freed
    frames stay in the process's RSS for minutes. No-op elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def write_animation(out: BinaryIO, fig: go.Figure, fmt: str, opts: ExportOptions, *,
                    deadline: float | None = None, priority: float | None = None,
                    progress: Progress | None = None) -> None:
    """Write a GIF or MP4 of an animated figure to ``out``: each frame rendered by the browser and streamed to
    the encoder, ``progress(i, n)`` called as frame i of n arrives.

    Memory holds a few frames: AHEAD in flight, the one being encoded and (GIF) the previous frame's
    palette indices. A GIF's palette comes from PALETTE_SAMPLES frames spread over the animation,
    rendered first (their PNGs are reused, not rendered twice). Past ``deadline`` (a time.monotonic()
    value) it stops with ExportBusyError, so a download nobody waits for any more stops using the server.
    """
    if fmt not in ANIMATION_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(ANIMATION_FORMATS)}; got {fmt!r}")
    opts = render_options(fmt, opts)
    n = max(1, len(fig.frames))
    check_budget(fmt, opts, n)
    priority = export_priority(n) if priority is None else priority
    tick = _counter(n, progress)
    try:
        if fmt == "mp4":
            frames = (_rgb(png) for png in _png_stream(frame_dicts(fig), opts, {}, deadline, priority, tick))
            _write_mp4(out, frames, raster_size(opts), opts.fps)
            return
        stills = list(frame_dicts(fig))  # plotly JSON, no pixels: ~0.1 MB a frame for the clock at d = 256
        picks = sorted(set(np.linspace(0, n - 1, min(PALETTE_SAMPLES, n)).round().astype(int).tolist()))
        done = dict(zip(picks, _png_stream([stills[i] for i in picks], opts, {}, deadline, priority, tick),
                        strict=True))
        palette = _palette(done.values())
        frames = (_rgb(png) for png in _png_stream(stills, opts, done, deadline, priority, tick))
        _write_gif(out, frames, palette, opts.fps)
    finally:
        _release_memory()


def render(fig: go.Figure, fmt: str, opts: ExportOptions | None = None, *, name: str = "",
           params: Mapping[str, object] | None = None, time_limit: float | None = None,
           progress: Progress | None = None) -> bytes:
    """Bytes of ``fig`` (already styled) in format ``fmt`` (one of FORMATS); see ``render_into``."""
    buf = io.BytesIO()
    render_into(buf, fig, fmt, opts, name=name, params=params, time_limit=time_limit, progress=progress)
    return buf.getvalue()


def render_into(out: BinaryIO, fig: go.Figure, fmt: str, opts: ExportOptions | None = None, *, name: str = "",
                params: Mapping[str, object] | None = None, time_limit: float | None = None,
                progress: Progress | None = None) -> None:
    """Write ``fig`` (already styled) in format ``fmt`` (one of FORMATS) to ``out``; images, animations and HTML
    pages are typeset first (``posviz.theme.typeset_figure``: θ_i as θ with a subscript, 1.49e+03 as 1.49×10³).

    Images and animations need the [export] extra (ExportUnavailableError says how to get it), check the
    budget, then wait for one of the EXPORT_SLOTS render slots (in the order of export_priority, which also
    orders their frames in the browser); an animation reports ``progress(i, n)`` per frame. With a
    ``time_limit`` (seconds, queue included) an export that cannot finish in time stops with ExportBusyError,
    waiting or rendering; the app passes DOWNLOAD_TIME_LIMIT_S.
    """
    opts = opts or ExportOptions()
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if fmt in RENDERED or fmt == "html":  # a copy: the app keeps its cached figure
        fig = typeset_figure(go.Figure(fig))
    if fmt not in RENDERED:
        out.write(html_bytes(fig) if fmt == "html" else csv_bytes(fig) if fmt == "csv" else
                  json_bytes(fig, name, params))
        return
    if fmt in ANIMATION_FORMATS and not fig.frames:
        raise ValueError(f"format {fmt} is only for animated figures; {name or 'this figure'} has no frames")
    require(fmt, browser=False)  # the browser is looked for when it starts (the renderer may be another)
    check_budget(fmt, opts, len(fig.frames))  # before waiting in line: a refused export never queues
    deadline = None if time_limit is None else time.monotonic() + time_limit
    priority = export_priority(len(fig.frames) if fmt in ANIMATION_FORMATS else 1)
    with _SLOTS.hold(time_limit, priority):
        if fmt in IMAGE_FORMATS:
            out.write(image_bytes(fig, fmt, opts, deadline=deadline, priority=priority))
        else:
            write_animation(out, fig, fmt, opts, deadline=deadline, priority=priority, progress=progress)


def _styled(name: str, params: Mapping[str, object], fmt: str, opts: ExportOptions) -> go.Figure:
    fig = build(name, **dict(params))
    style(fig, opts.theme, opts.presenter, opts.transparent)
    if fmt in RENDERED:
        fig.update_layout(width=opts.width, height=opts.height)
    return fig


def export_figure(name: str, params: Mapping[str, object], fmt: str, opts: ExportOptions | None = None, *,
                  time_limit: float | None = None, progress: Progress | None = None) -> bytes:
    """Build the registered figure ``name`` with ``params``, style it, and return it as ``fmt`` bytes
    (see ``render_into`` for the extra, the budget, the render slots, the time limit and ``progress``)."""
    opts = opts or ExportOptions()
    return render(_styled(name, params, fmt, opts), fmt, opts, name=name, params=params, time_limit=time_limit,
                  progress=progress)


def export_file(path: str | os.PathLike[str], name: str, params: Mapping[str, object], fmt: str,
                opts: ExportOptions | None = None, *, time_limit: float | None = None,
                progress: Progress | None = None) -> None:
    """Export the registered figure ``name`` (as ``export_figure``) to the file ``path``, streamed into a
    temporary file beside it that replaces it only once complete (``atomic_write``): a failed export leaves
    an existing ``path`` exactly as it was, and no temporary file behind."""
    opts = opts or ExportOptions()
    fig = _styled(name, params, fmt, opts)  # a bad parameter fails before any file is created
    with atomic_write(path) as out:
        render_into(out, fig, fmt, opts, name=name, params=params, time_limit=time_limit, progress=progress)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A new file in ``path``'s folder to write into, moved over ``path`` (``os.replace``, atomic) when the block
    ends; on any failure it is removed and ``path`` is untouched. A symbolic link's target is the file replaced.
    The new file gets an existing file's permissions, else the usual ones for a new file (0o666 less umask)."""
    target = os.path.realpath(path)
    folder, base = os.path.split(target)
    while True:
        temp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.part")
        try:  # O_EXCL: a name nobody else holds; the mode passes through the umask as a plain open would
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def formats_for(name: str) -> tuple[str, ...]:
    """The formats the figure ``name`` can be exported to (GIF/MP4 only for animated figures)."""
    animated = FIGURES[name].animated
    return FORMATS if animated else tuple(f for f in FORMATS if f not in ANIMATION_FORMATS)
