"""GIF and MP4 of an animated figure: each frame becomes a static figure (``frame_dicts``), is rendered as PNG by the
shared browser and streams into the encoder as it arrives, so an animation holds a few frames in memory, never all
of them. Pillow writes the GIF (one palette for all frames, each frame cropped to what changed) and imageio-ffmpeg
the MP4 (H.264); both are imported only when a frame is encoded, as they belong to the ``[export]`` extra."""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import ctypes
import io
import itertools
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import plotly.graph_objects as go

from posviz.export import scheduler
from posviz.export.options import ANIMATION_FORMATS, ExportOptions, check_budget, raster_size, render_options

if TYPE_CHECKING:  # Pillow is part of the [export] extra: imported where frames are decoded, never at import
    from PIL import Image

FRAMES_IN_FLIGHT = 2  # animation frames in flight in the browser while the previous one is encoded
PALETTE_SAMPLES = 6  # frames (spread over the animation) whose colours make a GIF's one palette

Progress = Callable[[int, int], None]  # (frames rendered so far, frames in all), called as each frame arrives


def frame_dicts(fig: go.Figure) -> Iterator[dict]:
    """One static figure per animation frame, as plotly JSON with the play controls removed. Plain dicts, because
    rebuilding a validated ``go.Figure`` per frame costs ~40 ms a frame (2 s of a 60-frame GIF); a frame's traces
    and layout update the figure's the way plotly.js applies them, by nested merge."""
    base = fig.to_plotly_json()
    frames = base.pop("frames", None) or [{"data": []}]
    layout = {k: v for k, v in base.get("layout", {}).items() if k not in ("updatemenus", "sliders")}
    for frame in frames:
        data = list(base["data"])
        updates = frame.get("data") or []
        targets = frame.get("traces") or range(len(updates))
        for idx, trace in zip(targets, updates, strict=False):
            data[idx] = _nested_merge(data[idx], trace)
        yield {"data": data, "layout": _nested_merge(layout, frame.get("layout") or {})}


def _nested_merge(base: dict, update: dict) -> dict:
    """``base`` updated by ``update``, dicts within dicts merged key by key rather than replaced."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _nested_merge(out[key], value)
        else:
            out[key] = value
    return out


def _frame_ticker(total: int, progress: Progress | None) -> Callable[[], None]:
    """A tick to call once per rendered frame: reports (frames so far, ``total``) to ``progress``, if any."""
    done = itertools.count(1)

    def tick() -> None:
        if progress is not None:
            progress(next(done), total)

    return tick


def _rendered_pngs(stills: Iterable[dict], opts: ExportOptions, already_rendered: Mapping[int, bytes],
                   deadline: float | None, priority: float, tick: Callable[[], None]) -> Iterator[bytes]:
    """PNG bytes of each still in order, FRAMES_IN_FLIGHT frames rendering in the browser while the caller encodes
    the previous one; frames in ``already_rendered`` (by index) are not rendered again, nor ticked. Past
    ``deadline`` the stream stops (ExportBusyError), and unfinished renders are cancelled whenever the caller stops
    early."""
    pending: collections.deque[concurrent.futures.Future | bytes] = collections.deque()
    try:
        for i, still in enumerate(stills):
            scheduler.seconds_left(deadline)
            pending.append(already_rendered[i] if i in already_rendered else
                           scheduler.SHARED_RENDERER.submit(still, "png", opts, priority))
            if len(pending) > FRAMES_IN_FLIGHT:
                yield _png_when_ready(pending.popleft(), deadline, tick)
        while pending:
            yield _png_when_ready(pending.popleft(), deadline, tick)
    finally:
        for item in pending:
            if isinstance(item, concurrent.futures.Future):
                item.cancel()


def _png_when_ready(item: concurrent.futures.Future | bytes, deadline: float | None,
                    tick: Callable[[], None]) -> bytes:
    """The PNG of a frame: bytes already rendered as they are, else the render's result (ticking once)."""
    if isinstance(item, bytes):
        return item
    png = scheduler.result_before(item, deadline)
    tick()
    return png


def _decoded_rgb(png: bytes) -> Image.Image:
    """Decode a PNG to a standalone RGB image: the decoded RGBA buffer is freed on return (a numpy
    ``[..., :3]`` view would keep all of it alive)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        return im.convert("RGB")


def _gif_palette(pngs: Iterable[bytes]) -> Image.Image:
    """One 255-colour palette (median cut) for the whole GIF from a few frames spread over it: quantising each
    frame on its own costs ~3 s for 50 frames at 800×800, and one palette keeps colours from flickering. Each
    sample is shrunk to about 0.25 megapixels first, so the sample stays small."""
    from PIL import Image

    parts = []
    for png in pngs:
        im = _decoded_rgb(png)
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
    """Write a GIF or MP4 of an animated figure to ``out``, each frame rendered by the browser and streamed to the
    encoder, ``progress(i, n)`` called as frame i of n arrives. Memory holds a few frames: FRAMES_IN_FLIGHT
    rendering, the one being encoded and (GIF) the previous frame's palette indices. A GIF's palette comes from
    PALETTE_SAMPLES frames spread over the animation, rendered first (their PNGs are reused, not rendered twice).
    Past ``deadline`` (a time.monotonic() value) it stops with ExportBusyError, so a download nobody waits for stops
    using the server."""
    if fmt not in ANIMATION_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(ANIMATION_FORMATS)}; got {fmt!r}")
    opts = render_options(fmt, opts)
    n_frames = max(1, len(fig.frames))
    check_budget(fmt, opts, n_frames)
    priority = scheduler.export_priority(n_frames) if priority is None else priority
    tick = _frame_ticker(n_frames, progress)

    def decoded(stills: Iterable[dict], already_rendered: Mapping[int, bytes]) -> Iterator[Image.Image]:
        for png in _rendered_pngs(stills, opts, already_rendered, deadline, priority, tick):
            yield _decoded_rgb(png)

    try:
        if fmt == "mp4":
            _write_mp4(out, decoded(frame_dicts(fig), {}), raster_size(opts), opts.fps)
            return
        stills = list(frame_dicts(fig))  # plotly JSON, no pixels: ~0.1 MB a frame for the clock at d = 256
        samples = np.linspace(0, n_frames - 1, min(PALETTE_SAMPLES, n_frames)).round().astype(int).tolist()
        sampled = sorted(set(samples))
        sample_pngs = _rendered_pngs([stills[i] for i in sampled], opts, {}, deadline, priority, tick)
        palette_pngs = dict(zip(sampled, sample_pngs, strict=True))
        palette = _gif_palette(palette_pngs.values())
        _write_gif(out, decoded(stills, palette_pngs), palette, opts.fps)
    finally:
        _release_memory()
