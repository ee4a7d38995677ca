"""The export budget, the render slots and the streamed GIF/MP4 encoders (no browser: a fake renderer).

The budget is recomputed here from its definition (frames × width·scale × height·scale); the slots are
watched while held; the encoders are fed synthetic frames and their files decoded back pixel for pixel.
"""

from __future__ import annotations

import concurrent.futures
import io
import threading
import time
import weakref

import imageio.v3 as iio
import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from posviz import export
from posviz.export import animation, formats, scheduler

# ---------------------------------------------------------------------------------------------- budget


@settings(max_examples=300, deadline=None)
@given(w=st.integers(100, 4000), h=st.integers(100, 4000), scale=st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]),
       frames=st.integers(1, 200), fmt=st.sampled_from(export.FORMATS))
def test_budget_refuses_exactly_what_is_over_a_cap(w, h, scale, frames, fmt):
    opts = export.ExportOptions(width=w, height=h, scale=scale)
    if fmt == "mp4":  # H.264: sizes divisible by 16, scale 1
        pw, ph = max(112, w // 16 * 16), max(112, h // 16 * 16)
    else:
        pw, ph = round(w * scale), round(h * scale)
    n = frames if fmt in ("gif", "mp4") else 1
    over = fmt in ("png", "svg", "pdf", "gif", "mp4") and (
        pw * ph > export.MAX_IMAGE_PIXELS or n * pw * ph > export.MAX_ANIMATION_PIXELS)
    if over:
        with pytest.raises(ValueError, match="megapixels") as err:
            export.check_budget(fmt, opts, frames)
        cap = export.MAX_IMAGE_PIXELS if pw * ph > export.MAX_IMAGE_PIXELS else export.MAX_ANIMATION_PIXELS
        assert f"cap of {cap / 1e6:g} megapixels" in str(err.value)
    else:
        export.check_budget(fmt, opts, frames)


def test_budget_edges_and_the_app_defaults():
    blog2 = export.ExportOptions(width=1200, height=675, scale=2)  # the app's default export settings
    export.check_budget("gif", blog2, 72)  # the largest clock (72 frames) at the default size is allowed
    export.check_budget("png", export.ExportOptions(width=1920, height=1080, scale=3))  # slide ×3: 18.7 MP
    with pytest.raises(ValueError, match="at most 31 frames"):
        export.check_budget("gif", export.ExportOptions(width=1920, height=1080, scale=2), 32)
    export.check_budget("gif", export.ExportOptions(width=1920, height=1080, scale=2), 31)
    with pytest.raises(ValueError, match="16000×16000 px"):
        export.check_budget("png", export.ExportOptions(width=4000, height=4000, scale=4))
    for fmt in ("html", "csv", "json"):
        export.check_budget(fmt, export.ExportOptions(width=4000, height=4000, scale=4), 10_000)


def test_render_refuses_before_any_rendering(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("rendering started")

    monkeypatch.setattr(scheduler.SHARED_RENDERER, "submit", never)
    fig = _moving_square(40)
    with pytest.raises(ValueError, match="260 megapixels per animation"):
        export.render(fig, "gif", export.ExportOptions(width=4000, height=4000, scale=1))
    with pytest.raises(ValueError, match="36 megapixels per image"):
        export.render(fig, "png", export.ExportOptions(width=4000, height=4000, scale=2))
    assert export.export_status() == (0, 0)  # a refused export never took a slot


# ----------------------------------------------------------------------------------------------- slots


def test_slots_bound_the_renders_and_serve_in_order(monkeypatch):
    release = threading.Event()
    inside: list[int] = []
    most = [0]
    lock = threading.Lock()

    def slow(fig, fmt, opts, deadline=None, priority=None):
        with lock:
            inside.append(fig.layout.meta)
            most[0] = max(most[0], export.export_status()[0])
        release.wait(60)
        return b"png"

    monkeypatch.setattr(formats, "image_bytes", slow)
    n = export.EXPORT_SLOTS + 3
    threads = []
    for i in range(n):  # started one by one, so their order in the line is known
        fig = go.Figure(layout=dict(meta=i))
        threads.append(threading.Thread(target=export.render, args=(fig, "png", export.ExportOptions())))
        threads[-1].start()
        _until(lambda i=i: sum(export.export_status()) == i + 1)
    assert export.export_status() == (export.EXPORT_SLOTS, n - export.EXPORT_SLOTS)
    with pytest.raises(export.ExportBusyError, match="try again"):
        export.render(go.Figure(), "svg", export.ExportOptions(), time_limit=0.2)
    assert export.export_status() == (export.EXPORT_SLOTS, n - export.EXPORT_SLOTS)  # the quitter left the line
    release.set()
    for t in threads:
        t.join(60)
    assert export.export_status() == (0, 0)
    assert most[0] == export.EXPORT_SLOTS
    assert inside[export.EXPORT_SLOTS:] == list(range(export.EXPORT_SLOTS, n))  # first come, first served


def _until(ready, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


# ------------------------------------------------------------------------------------- streamed encoding

COLOURS = np.array([[255, 255, 255], [200, 30, 30], [30, 30, 200], [20, 160, 60]], dtype=np.uint8)


def _frame_rgb(i: int, w: int, h: int) -> np.ndarray:
    """Frame i: white, a red square moving right, a blue bar growing, a green dot in later frames."""
    img = np.empty((h, w, 3), np.uint8)
    img[:] = COLOURS[0]
    img[10:30, 5 + 4 * i:25 + 4 * i] = COLOURS[1]
    img[h - 12:h - 4, 0:10 + 3 * i] = COLOURS[2]
    if i >= 6:
        img[40:44, 60:64] = COLOURS[3]
    return img


def _moving_square(n: int) -> go.Figure:
    fig = go.Figure(go.Scatter(x=[0], y=[0]), frames=[go.Frame(layout=dict(meta=i), name=str(i)) for i in range(n)])
    return fig


class FakeRenderer:
    """Answers each frame with the PNG (RGBA, as the browser sends) of _frame_rgb, and counts what is out."""

    def __init__(self) -> None:
        self.submitted = 0
        self.decoded = 0
        self.most_in_flight = 0

    def submit(self, fig, fmt, opts, priority=0.0):
        w, h = export.raster_size(opts)
        rgba = np.dstack([_frame_rgb(fig["layout"]["meta"], w, h), np.full((h, w), 255, np.uint8)])
        buf = io.BytesIO()
        Image.fromarray(rgba).save(buf, format="PNG")
        self.submitted += 1
        self.most_in_flight = max(self.most_in_flight, self.submitted - self.decoded)
        future = concurrent.futures.Future()
        future.set_result(buf.getvalue())
        return future


@pytest.fixture
def fake(monkeypatch):
    renderer = FakeRenderer()
    monkeypatch.setattr(scheduler, "SHARED_RENDERER", renderer)
    real_rgb = animation._decoded_rgb
    alive: list[weakref.ref] = []
    most_alive = [0]

    def rgb(png):
        renderer.decoded += 1
        image = real_rgb(png)
        alive.append(weakref.ref(image))
        most_alive[0] = max(most_alive[0], sum(r() is not None for r in alive))
        return image

    monkeypatch.setattr(animation, "_decoded_rgb", rgb)
    renderer.most_alive = most_alive
    return renderer


def test_gif_streams_and_decodes_to_every_frame_exactly(fake):
    n, opts = 24, export.ExportOptions(width=160, height=120, fps=8)  # 125 ms a frame: 130 in 1/100 s
    gif = export.render(_moving_square(n), "gif", opts)
    frames = iio.imread(io.BytesIO(gif), extension=".gif", index=None)[..., :3]  # (n, H, W, 3)
    assert frames.shape == (n, 120, 160, 3)
    for i in range(n):
        np.testing.assert_array_equal(frames[i], _frame_rgb(i, 160, 120), err_msg=f"frame {i}")
    # streamed: the sampled palette frames are not rendered twice, at most FRAMES_IN_FLIGHT frames wait in the
    # browser beyond the one being encoded, and a handful of decoded frames are alive at any time
    assert fake.submitted == n
    assert fake.most_in_flight <= export.PALETTE_SAMPLES + export.FRAMES_IN_FLIGHT + 1
    assert fake.most_alive[0] <= 3
    durations = [Image.open(io.BytesIO(gif)).info["duration"]]
    assert durations == [130]


@pytest.mark.render  # ffmpeg (imageio-ffmpeg) encodes the MP4
def test_mp4_streams_every_frame(fake):
    n, opts = 20, export.ExportOptions(width=170, height=130, fps=10)  # MP4 renders at 160×128 (÷16)
    seen: list[tuple[int, int]] = []
    mp4 = export.render(_moving_square(n), "mp4", opts, progress=lambda *a: seen.append(a))
    assert seen == [(i, n) for i in range(1, n + 1)]  # each frame reported once, as it arrives
    frames = iio.imread(mp4, extension=".mp4", plugin="FFMPEG", index=None)
    assert frames.shape[:3] == (n, 128, 160)
    red = np.all(np.abs(frames.astype(int) - COLOURS[1]) < 60, axis=-1)  # (n, H, W) lossy H.264
    left = [np.flatnonzero(red[i].any(axis=0))[0] for i in (0, n - 1)]
    assert abs(left[0] - 5) <= 2 and abs(left[1] - (5 + 4 * (n - 1))) <= 2  # the square moved as drawn
    assert fake.submitted == n and fake.most_in_flight <= export.FRAMES_IN_FLIGHT + 1 and fake.most_alive[0] <= 3


def test_an_export_past_its_time_limit_stops_and_frees_its_slot(fake, monkeypatch):
    clock = [1000.0]

    class Clock:  # each rendered frame takes one second of this clock
        @staticmethod
        def monotonic() -> float:
            return clock[0]

    real_submit = fake.submit

    def slow_submit(fig, fmt, opts, priority=0.0):
        clock[0] += 1.0
        return real_submit(fig, fmt, opts, priority)

    for module in (formats, scheduler):  # the deadline is set in one and checked in the other
        monkeypatch.setattr(module, "time", Clock)
    monkeypatch.setattr(fake, "submit", slow_submit)
    with pytest.raises(export.ExportBusyError, match="ran out of time"):
        export.render(_moving_square(40), "gif", export.ExportOptions(width=160, height=120), time_limit=12.5)
    assert fake.submitted == 13  # frames started at 0, 1, ..., 12 s; none after the 12.5 s limit
    assert export.export_status() == (0, 0)
    gif = export.render(_moving_square(8), "gif", export.ExportOptions(width=160, height=120), time_limit=12.5)
    assert gif[:6] == b"GIF89a"  # 8 frames fit in the limit


def test_browser_tabs_go_to_the_lowest_priority_first_and_skip_cancelled_waiters():
    import asyncio

    async def scenario() -> list[str]:
        tabs, order = scheduler.BrowserTabs(1), []
        await tabs.acquire(0.0)  # the tab is busy

        async def wait(name: str, priority: float) -> None:
            await tabs.acquire(priority)
            order.append(name)
            tabs.release()

        tasks = {name: asyncio.create_task(wait(name, p)) for name, p in [("gif", 5.0), ("png", 1.0),
                                                                           ("gone", 0.5), ("svg", 3.0)]}
        await asyncio.sleep(0)
        tasks["gone"].cancel()  # a download whose export stopped early
        await asyncio.sleep(0)
        tabs.release()
        await asyncio.gather(*(t for name, t in tasks.items() if name != "gone"))
        assert tabs.free == 1  # every tab handed back
        return order

    assert asyncio.run(scenario()) == ["png", "svg", "gif"]


def test_a_short_export_pressed_after_a_long_one_comes_first():
    gif = export.export_priority(72)
    time.sleep(0.01)
    png = export.export_priority(1)
    assert png < gif < export.export_priority(72)  # and two GIFs keep their order of arrival
