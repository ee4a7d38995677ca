"""Concurrent exports each get the file their caller asked for: format, size and content.

Two paths: threads calling ``export.render`` with figures that differ in title and size, and two AppTest
sessions (RoPE clock, Sinusoidal page) whose download buttons' callables run at the same time through
Streamlit's own ``MediaFileManager.execute_deferred``, as the server does when students press Export.
On kaleido's sync server (one shared result queue) both fail: results cross between threads.
"""

from __future__ import annotations

import io
import re
import threading

import imageio.v3 as iio
import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from posviz import export
from posviz.export import scheduler
from posviz.theme import style
from testkit.apptest import ROOT, run_page
from testkit.browser import need_browser


@pytest.fixture(scope="module", autouse=True)
def kaleido_ready():
    need_browser()


def _tagged(i: int, frames: int = 0) -> go.Figure:
    """A figure whose title names it, with a marker at height i (and ``frames`` frames moving it)."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, i], mode="markers+lines"), layout=dict(title=f"figure-{i}-of-test"))
    if frames:
        fig.frames = [go.Frame(data=[go.Scatter(x=[0, 1], y=[f, i])], name=str(f)) for f in range(frames)]
        fig.update_layout(yaxis_range=[-1, 12])
    return style(fig, "light")


def _pdf_page_size(pdf: bytes) -> tuple[float, float]:
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box, "no page size in the PDF"
    return float(box.group(1)), float(box.group(2))


def check(data: bytes, fmt: str, size: tuple[int, int], title: str | None, n_frames: int = 0) -> None:
    """``data`` is a ``fmt`` file of ``size`` (w, h) pixels; an SVG holds ``title``; a GIF has n_frames."""
    w, h = size
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert iio.imread(data, extension=".png").shape[:2] == (h, w)
    elif fmt == "svg":
        assert data.lstrip().startswith(b"<svg")
        assert f'width="{w}"'.encode() in data and f'height="{h}"'.encode() in data
        assert title is None or title.encode() in data
    elif fmt == "pdf":
        assert data.startswith(b"%PDF-")
        pw, ph = _pdf_page_size(data)
        assert abs(pw / ph - w / h) < 0.02, (pw, ph, w, h)  # a page of another export has another shape
    elif fmt == "gif":
        frames = iio.imread(io.BytesIO(data), extension=".gif", index=None)
        assert frames.shape[0] == n_frames and frames.shape[1:3] == (h, w)
    else:
        raise AssertionError(fmt)


@pytest.mark.render
def test_threads_rendering_different_figures_get_their_own(monkeypatch):
    jobs = [("svg", 0), ("png", 1), ("pdf", 2), ("svg", 3), ("png", 4), ("gif", 5)]
    errors: list[str] = []
    barrier = threading.Barrier(len(jobs))

    def run(fmt: str, i: int) -> None:
        opts = export.ExportOptions(width=200 + 40 * i, height=140 + 20 * i, fps=5)
        frames = 4 if fmt == "gif" else 0
        fig = _tagged(i, frames)
        barrier.wait()
        for _ in range(3 if fmt != "gif" else 1):
            try:
                check(export.render(fig, fmt, opts), fmt, (opts.width, opts.height), f"figure-{i}-of-test", frames)
            except AssertionError as err:
                errors.append(f"{fmt} #{i}: {err}")

    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors


@pytest.mark.render
def test_an_svg_holds_exactly_its_own_figure():
    # the crossing the issue saw, reduced: every thread renders its own title; no result holds another's
    results: dict[int, list[bytes]] = {}

    def run(i: int) -> None:
        fig = _tagged(i)
        results[i] = [export.render(fig, "svg", export.ExportOptions(width=300, height=200)) for _ in range(4)]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    for i, svgs in results.items():
        for svg in svgs:
            titles = set(re.findall(rb"figure-(\d+)-of-test", svg))
            assert titles == {str(i).encode()}, (i, titles)


# --------------------------------------------------------------------------- two sessions of the app

def _page(title: str) -> str:
    """The page script of a lesson, whatever its number (pages/<n>_<title>.py)."""
    (path,) = [p for p in (ROOT / "pages").glob("*.py") if re.fullmatch(rf"\d+_{title}\.py", p.name)]
    return str(path.relative_to(ROOT))


def _session(page: str, preset: str, width: int, height: int, theme: str):
    at = run_page(_page(page), {"part": "clock"} if page == "RoPE" else None)  # RoPE's animated clock
    at.selectbox(key="_export.preset").set_value(preset)
    at.run()
    if preset == "custom":
        at.number_input(key="_export.w").set_value(width)
        at.number_input(key="_export.h").set_value(height)
    at.select_slider(key="_export.scale").set_value(1.0)
    at.selectbox(key="_export.theme").set_value(theme)
    at.run()
    extras = [b for b in at.get("button_group") if str(b.key).endswith(".extras")]
    extras[0].set_value("export")  # the first figure's "Export / copy as code"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return {b.proto.label.lower(): b.proto.deferred_file_id for b in at.get("download_button")}


def _fetch(manager: MediaFileManager, file_id: str) -> bytes:
    url = manager.execute_deferred(file_id)  # what Streamlit runs in a worker thread on a click
    return manager._storage.get_file(url.rsplit("/", 1)[1]).content


@pytest.mark.render
def test_two_app_sessions_exporting_at_once_get_their_own_files(deferred):
    clock = _session("RoPE", "custom", 360, 240, "dark")
    waves = _session("Sinusoidal", "custom", 420, 300, "light")
    assert {"png", "svg", "pdf", "gif"} <= set(clock) and {"png", "svg", "pdf"} <= set(waves)
    jobs = [("clock", fmt, clock[fmt], (360, 240)) for fmt in ("png", "svg", "pdf", "gif")]
    jobs += [("waves", fmt, waves[fmt], (420, 300)) for fmt in ("png", "svg", "pdf", "svg", "png")]
    results: dict[int, bytes] = {}
    errors: list[str] = []
    barrier = threading.Barrier(len(jobs))

    def run(k: int, file_id: str) -> None:
        barrier.wait()
        try:
            results[k] = _fetch(deferred[file_id], file_id)
        except Exception as err:  # reported below with the job
            errors.append(f"job {jobs[k][:2]}: {type(err).__name__}: {err}")

    threads = [threading.Thread(target=run, args=(k, job[2])) for k, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not errors, errors
    for k, (who, fmt, _, size) in enumerate(jobs):
        title = "Clock hands" if who == "clock" else None
        check(results[k], fmt, size, title, n_frames=31)
        if fmt == "svg":  # content: each session's figure, in each session's theme
            assert (b"Clock hands" in results[k]) == (who == "clock")
            assert (b"rgb(15, 17, 23)" in results[k]) == (who == "clock")  # the dark background
        if fmt == "png":
            corner = iio.imread(results[k], extension=".png")[3, 3, :3]
            assert np.array_equal(corner, [15, 17, 23]) == (who == "clock")


def test_the_app_shows_the_queue_and_does_not_offer_what_is_over_budget():
    release, held = threading.Event(), []

    def hold(priority: float) -> None:
        with scheduler.EXPORT_QUEUE.hold(None, priority):
            held.append(priority)
            release.wait(60)

    holders = [threading.Thread(target=hold, args=(float(i),)) for i in range(export.EXPORT_SLOTS + 2)]
    try:
        for t in holders:
            t.start()
        for _ in range(3000):  # until the holders are in place (at most 30 s)
            if export.export_status() == (export.EXPORT_SLOTS, 2):
                break
            threading.Event().wait(0.01)
        at = run_page(_page("RoPE"), {"part": "clock"})
        at.selectbox(key="_export.preset").set_value("custom")
        at.run()
        at.number_input(key="_export.w").set_value(4000)
        at.number_input(key="_export.h").set_value(4000)
        at.select_slider(key="_export.scale").set_value(1.0)
        at.run()
        [b for b in at.get("button_group") if str(b.key).endswith(".extras")][0].set_value("export")
        at.run()
    finally:
        release.set()
        for t in holders:
            t.join(60)
    captions = "\n".join(c.value for c in at.caption)
    assert f"{export.EXPORT_SLOTS} rendering, 2 waiting in line" in captions
    offered = {b.proto.label for b in at.get("download_button")}
    assert {"PNG", "SVG", "PDF", "HTML", "CSV", "JSON"} <= offered  # 16 MP per image: under the cap
    assert not offered & {"GIF", "MP4"}  # 31 frames × 16 MP: over 260 MP
    assert "GIF not offered" in captions and "cap of 260 megapixels per animation" in captions
    assert export.export_status() == (0, 0)


@pytest.mark.render
def test_the_browser_shuts_down_when_asked_instead_of_running_out_its_time():
    """Closing the exporter (at exit, or after a crash) completes: a CLI export exits as soon as its file is written
    and a server stops in seconds. A loop stopped from inside the shutdown never delivers its result, and every exit
    would wait out the 15 s timeout; close() reports whether the shutdown completed."""
    renderer = scheduler.BrowserRenderer(tabs=1)
    png = renderer.submit(style(go.Figure(go.Scatter(y=[0, 1])), "light"), "png",
                          export.ExportOptions(width=200, height=100)).result(timeout=120)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    loop = renderer._loop
    assert renderer.close() is True  # the shutdown completed, it did not time out
    assert _stops(loop)
    assert renderer.close() is False  # nothing left to close


def _stops(loop) -> bool:
    """Whether ``loop`` stops within 5 s (its stop is posted right after the shutdown's result is handed over)."""
    for _ in range(100):
        if not loop.is_running():
            return True
        threading.Event().wait(0.05)
    return False
