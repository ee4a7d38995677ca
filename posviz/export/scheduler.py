"""The render scheduler, safe for a whole class at once: at most EXPORT_SLOTS exports of a process render at once
and the others wait in line (``ExportQueue``, ``export_status``), earliest estimated finish first
(``export_priority``); one Chromium serves every image (starting it costs ~2 s, a warm image ~0.25 s), driven
from its own event-loop thread with BROWSER_TABS kaleido tabs handed out in the same order (``BrowserTabs``).
Each request gets its own future, so two exports can never swap results (kaleido's sync server answers through
one shared queue, to whichever thread reads first), and an export past its deadline stops with ExportBusyError."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import heapq
import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

from posviz.export import availability
from posviz.export.options import RENDERED, ExportOptions

EXPORT_SLOTS = 3  # exports rendering at once per process; the others wait (see export_priority)
BROWSER_TABS = 2  # renders at once in the browser: one per core of a 2-core server
FRAME_S = 0.5  # a rough cost of one frame, for ordering exports (a 72-frame GIF at blog ×2: ~0.3-0.5 s a frame)
DOWNLOAD_TIME_LIMIT_S = 170.0  # the app's exports, queue included: Streamlit drops a download after 180 s
LOOP_THREAD = "posviz-kaleido"  # the name of the thread that runs the browser's event loop


class ExportBusyError(RuntimeError):
    """The export could not finish within its time limit (waiting for a slot, or rendering): try later."""


def export_priority(n_frames: int) -> float:
    """The order in which exports get slots and browser tabs, lowest first: arrival time plus a rough
    cost (n_frames × FRAME_S). Earliest estimated finish first: a PNG pressed while a GIF renders goes
    next, and of two GIFs the earlier one gets the browser first, so they finish one after the other
    instead of both late (what matters when each download has a deadline)."""
    return time.monotonic() + max(1, n_frames) * FRAME_S


class ExportQueue:
    """The line of a process's exports: at most ``slots`` render at once, the others wait, lowest priority value
    first (ties: first come); one that waits past its time limit leaves the line with ExportBusyError."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._waiting: list[tuple[float, int]] = []  # a heap of (priority, ticket)
        self._tickets = itertools.count()
        self._rendering = 0

    @contextlib.contextmanager
    def hold(self, time_limit: float | None, priority: float) -> Iterator[None]:
        """Wait (at most ``time_limit`` seconds; None: no limit) for a slot, and hold it for the block."""
        ticket = (priority, next(self._tickets))
        with self._cond:
            heapq.heappush(self._waiting, ticket)
            if not self._cond.wait_for(lambda: self._waiting[0] == ticket and self._rendering < self.slots,
                                       time_limit):
                self._waiting.remove(ticket)
                heapq.heapify(self._waiting)
                self._cond.notify_all()
                raise ExportBusyError(f"the server stayed busy with other exports for {time_limit:.0f} s "
                                      f"({self._rendering} rendering, {len(self._waiting)} waiting); try again "
                                      "in a minute")
            heapq.heappop(self._waiting)
            self._rendering += 1
            self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                self._rendering -= 1
                self._cond.notify_all()

    def status(self) -> tuple[int, int]:
        """(exports rendering now, exports waiting for a slot)."""
        with self._cond:
            return self._rendering, len(self._waiting)


EXPORT_QUEUE = ExportQueue(EXPORT_SLOTS)


def export_status() -> tuple[int, int]:
    """(exports rendering now, exports waiting for a slot) in this process."""
    return EXPORT_QUEUE.status()


class BrowserTabs:
    """The browser's ``n`` kaleido tabs: at most ``n`` renders at once, and waiters get a tab lowest priority value
    first (ties: first come). Used from the renderer's event loop only, so it needs no lock."""

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiters: list[tuple[float, int, asyncio.Future]] = []
        self._arrivals = itertools.count()

    async def acquire(self, priority: float) -> None:
        """Take a tab, waiting in priority order if none is free."""
        if self.free and not self._waiters:
            self.free -= 1
            return
        entry = (priority, next(self._arrivals), asyncio.get_running_loop().create_future())
        heapq.heappush(self._waiters, entry)
        try:
            await entry[2]
        except asyncio.CancelledError:
            if entry[2].done() and not entry[2].cancelled():  # handed the tab just as it was cancelled
                self.release()
            raise

    def release(self) -> None:
        """Hand the tab to the first waiter still waiting, else mark it free."""
        while self._waiters:
            waiter = heapq.heappop(self._waiters)[2]
            if not waiter.done():
                waiter.set_result(None)
                return
        self.free += 1


class BrowserRenderer:
    """One Chromium with ``tabs`` kaleido tabs, run by an asyncio loop on its own daemon thread: ``submit`` hands a
    figure to the loop and returns that request's own future, so results cannot cross between callers however
    many threads submit at once, and requests get a tab lowest priority first. Started on first use; a broken
    browser (a crash, a timeout) is replaced by a fresh one on the next request."""

    def __init__(self, tabs: int) -> None:
        self.n_tabs = tabs
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        self._tabs = BrowserTabs(tabs)

    def _start(self) -> None:
        """Start the event-loop thread and open the browser ``find_browser`` chose (kaleido searches fewer places);
        ExportUnavailableError if there is none."""
        import kaleido

        path = availability.find_browser()
        if path is None:
            raise availability.ExportUnavailableError(
                availability.how_to_enable(dict.fromkeys(RENDERED, (availability.BROWSER,))))

        async def open_browser() -> Any:
            # no figure uses LaTeX, and MathJax would be a CDN fetch
            session = kaleido.Kaleido(n=self.n_tabs, mathjax=False, path=path)
            await session.open()
            return session

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name=LOOP_THREAD, daemon=True).start()
        try:
            self._kaleido = asyncio.run_coroutine_threadsafe(open_browser(), loop).result(timeout=60)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            raise
        self._loop, self._tabs = loop, BrowserTabs(self.n_tabs)

    def submit(self, fig: dict, fmt: str, opts: ExportOptions, priority: float = 0.0) -> concurrent.futures.Future:
        """Start rendering ``fig`` (plotly JSON) as ``fmt``; the future's result is the image bytes."""
        with self._lock:
            if self._loop is None:
                self._start()
            loop, session, tabs = self._loop, self._kaleido, self._tabs
        layout = dict(format=fmt, width=opts.width, height=opts.height, scale=opts.scale)

        async def render() -> bytes:
            await tabs.acquire(priority)
            try:
                return await session.calc_fig(fig, opts=layout)
            finally:
                tabs.release()

        future = asyncio.run_coroutine_threadsafe(render(), loop)
        future.add_done_callback(lambda f: self._close_if_broken(f, session))
        return future

    def _close_if_broken(self, future: concurrent.futures.Future, session: Any) -> None:
        """Close ``session``'s browser if the render failed for another reason than the figure itself."""
        from kaleido.errors import KaleidoError  # a figure plotly.js refused: the browser is fine

        err = None if future.cancelled() else future.exception()
        if err is not None and not isinstance(err, (KaleidoError, ValueError)):
            self.close(session)

    def close(self, only: Any = None) -> bool:
        """Close the browser (if ``only`` is given, only if it is still the current one); whether a browser was
        shut down and the shutdown completed (rather than ran out its time)."""
        with self._lock:
            if self._loop is None or (only is not None and only is not self._kaleido):
                return False
            loop, session = self._loop, self._kaleido
            self._loop = self._kaleido = None

        async def shutdown() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.close(), 10)

        done = asyncio.run_coroutine_threadsafe(shutdown(), loop)
        # stop the loop only once the shutdown's result is handed over: stopped from inside the coroutine, the
        # future would never resolve and every exit would wait out the timeout below
        done.add_done_callback(lambda _: loop.call_soon_threadsafe(loop.stop))
        if threading.current_thread().name == LOOP_THREAD:  # from the loop itself: never wait on it
            return False
        with contextlib.suppress(Exception):
            done.result(timeout=15)
        return done.done() and not done.cancelled()


SHARED_RENDERER = BrowserRenderer(tabs=BROWSER_TABS)
atexit.register(SHARED_RENDERER.close)


def seconds_left(deadline: float | None) -> float | None:
    """Seconds left until ``deadline`` (a time.monotonic() value; None: no limit); ExportBusyError if none."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise ExportBusyError("the export ran out of time (the server is busy); try again in a minute")
    return left


def result_before(future: concurrent.futures.Future, deadline: float | None) -> bytes:
    """The render's bytes once ``future`` is done; past ``deadline`` it is cancelled and ExportBusyError raised."""
    try:
        return future.result(timeout=seconds_left(deadline))
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise ExportBusyError("the export ran out of time (the server is busy); try again in a minute") from None
