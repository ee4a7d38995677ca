"""Figure export: PNG, SVG, PDF (kaleido), self-contained HTML, CSV and JSON of the plotted numbers,
and GIF/MP4 of animated figures. No streamlit here: the app's export buttons and the command line
(``python -m posviz export``) both call ``export_figure``.

One kaleido browser serves every image of a process (``kaleido.start_sync_server``): starting
Chromium costs ~4 s, a warm image ~0.25 s. Kaleido finds Debian's ``chromium`` on PATH
(``BROWSER_PATH`` overrides); nothing here downloads a browser.
"""

from __future__ import annotations

import atexit
import csv
import io
import json
import threading
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from posviz.figures import FIGURES, build
from posviz.theme import THEMES, style

IMAGE_FORMATS = ("png", "svg", "pdf")
DATA_FORMATS = ("csv", "json")
ANIMATION_FORMATS = ("gif", "mp4")
FORMATS = IMAGE_FORMATS + ("html",) + DATA_FORMATS + ANIMATION_FORMATS
SIZE_PRESETS: dict[str, tuple[int, int]] = {
    "blog": (1200, 675),
    "square": (1080, 1080),
    "slide": (1920, 1080),
}
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html",
        "csv": "text/csv", "json": "application/json", "gif": "image/gif", "mp4": "video/mp4"}

_LOCK = threading.Lock()
_SERVER = {"started": False}


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
        for name, value, lo, hi in (("width", self.width, 100, 4000), ("height", self.height, 100, 4000)):
            if not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
        if not 0.25 <= float(self.scale) <= 4:
            raise ValueError(f"scale must be a number in [0.25, 4]; got {self.scale!r}")
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {self.theme!r}")
        if not 1 <= self.fps <= 60:
            raise ValueError(f"fps must be an integer in [1, 60]; got {self.fps!r}")


def browser_available() -> bool:
    """True if a Chromium for kaleido is installed (Debian's ``chromium`` on PATH, or BROWSER_PATH)."""
    import os
    import shutil

    return bool(os.environ.get("BROWSER_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
                or shutil.which("google-chrome"))


def _ensure_server() -> None:
    if not _SERVER["started"]:
        import kaleido

        kaleido.start_sync_server(silence_warnings=True)
        _SERVER["started"] = True
        atexit.register(_stop_server)


def _stop_server() -> None:
    if _SERVER["started"]:
        import kaleido

        kaleido.stop_sync_server(silence_warnings=True)
        _SERVER["started"] = False


def image_bytes(fig: go.Figure | dict, fmt: str, opts: ExportOptions) -> bytes:
    """Render a styled figure to PNG, SVG or PDF bytes with the shared kaleido browser."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(IMAGE_FORMATS)}; got {fmt!r}")
    with _LOCK:
        _ensure_server()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The kopts argument is ignored")
        return pio.to_image(fig, format=fmt, width=opts.width, height=opts.height, scale=opts.scale,
                            validate=False)


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


def frame_figures(fig: go.Figure) -> Iterator[go.Figure]:
    """The frames of :func:`frame_dicts` as figures (for inspection; the export renders the dicts)."""
    for still in frame_dicts(fig):
        yield go.Figure(still)


def _merged(base: dict, update: dict) -> dict:
    out = dict(base)
    for key, value in update.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def animation_bytes(fig: go.Figure, fmt: str, opts: ExportOptions) -> bytes:
    """GIF or MP4 of an animated figure: every frame rendered by kaleido, stitched by imageio."""
    import imageio.v3 as iio

    if fmt not in ANIMATION_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(ANIMATION_FORMATS)}; got {fmt!r}")
    if fmt == "mp4":  # H.264 wants sizes divisible by 16
        opts = ExportOptions(**{**opts.__dict__, "width": max(112, opts.width // 16 * 16),
                                "height": max(112, opts.height // 16 * 16), "scale": 1.0})
    stills = list(frame_dicts(fig))
    # one shared tab, in order: on 2 cores more kaleido tabs (or a private pipelined instance) were slower
    images = [iio.imread(image_bytes(f, "png", opts), extension=".png")[..., :3] for f in stills]
    buf = io.BytesIO()
    if fmt == "gif":
        _write_gif(buf, images, opts.fps)
    else:
        iio.imwrite(buf, np.stack(images), extension=".mp4", fps=opts.fps, codec="libx264",
                    macro_block_size=16)
    return buf.getvalue()


def _write_gif(buf: io.BinaryIO, images: list[np.ndarray], fps: int) -> None:
    """Encode RGB frames as a looping GIF with ONE palette, built from a few sample frames: quantising
    every frame on its own (median cut) cost ~3 s for 50 frames at 800×800; this costs ~0.4 s, and a
    shared palette also keeps colours from flickering between frames."""
    from PIL import Image

    picks = np.linspace(0, len(images) - 1, min(6, len(images))).astype(int)
    sample = np.concatenate([images[i][::2, ::2] for i in picks], axis=0)  # (6·H/2, W/2, 3)
    palette = Image.fromarray(sample).quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    frames = [Image.fromarray(a).quantize(palette=palette, dither=Image.Dither.NONE) for a in images]
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=round(1000 / fps),
                   loop=0, optimize=False)


def render(fig: go.Figure, fmt: str, opts: ExportOptions | None = None, *, name: str = "",
           params: Mapping[str, object] | None = None) -> bytes:
    """Bytes of ``fig`` (already styled) in format ``fmt`` (one of FORMATS)."""
    opts = opts or ExportOptions()
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if fmt in IMAGE_FORMATS:
        return image_bytes(fig, fmt, opts)
    if fmt == "html":
        return html_bytes(fig)
    if fmt == "csv":
        return csv_bytes(fig)
    if fmt == "json":
        return json_bytes(fig, name, params)
    if not fig.frames:
        raise ValueError(f"format {fmt} is only for animated figures; {name or 'this figure'} has no frames")
    return animation_bytes(fig, fmt, opts)


def export_figure(name: str, params: Mapping[str, object], fmt: str,
                  opts: ExportOptions | None = None) -> bytes:
    """Build the registered figure ``name`` with ``params``, style it, and return it as ``fmt`` bytes."""
    opts = opts or ExportOptions()
    fig = build(name, **dict(params))
    style(fig, opts.theme, opts.presenter, opts.transparent)
    if fmt in IMAGE_FORMATS + ANIMATION_FORMATS:
        fig.update_layout(width=opts.width, height=opts.height)
    return render(fig, fmt, opts, name=name, params=params)


def formats_for(name: str) -> tuple[str, ...]:
    """The formats the figure ``name`` can be exported to (GIF/MP4 only for animated figures)."""
    animated = FIGURES[name].animated
    return FORMATS if animated else tuple(f for f in FORMATS if f not in ANIMATION_FORMATS)
