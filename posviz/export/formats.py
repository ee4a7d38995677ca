"""What a figure becomes: PNG, SVG and PDF rendered by the shared browser, a self-contained HTML page, CSV and JSON
of the plotted numbers, and GIF/MP4 of an animated figure (``posviz.export.animation``). ``render_into`` is the one
path every export takes: typeset, check what this installation can make and the budget, wait in the export line,
render; the app's export buttons and the command line (``python -m posviz export``) both reach it through
``export_figure`` or ``export_file``, which writes beside its target and moves the file over it, so a failed export
never destroys an existing file. No streamlit here."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import secrets
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import BinaryIO

import numpy as np
import plotly.graph_objects as go

from posviz.export import scheduler
from posviz.export.animation import Progress, write_animation
from posviz.export.availability import require
from posviz.export.options import ANIMATION_FORMATS, FORMATS, IMAGE_FORMATS, RENDERED, ExportOptions, check_budget
from posviz.figures import FIGURES, build
from posviz.theme import style, typeset_figure


def _plotly_json(fig: go.Figure | dict) -> dict:
    return fig if isinstance(fig, dict) else fig.to_dict()


def image_bytes(fig: go.Figure | dict, fmt: str, opts: ExportOptions, *, deadline: float | None = None,
                priority: float | None = None) -> bytes:
    """Render a styled figure to PNG, SVG or PDF bytes in the shared browser (budget checked first);
    ExportBusyError if it is not done by ``deadline`` (a time.monotonic() value)."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(IMAGE_FORMATS)}; got {fmt!r}")
    check_budget(fmt, opts)
    scheduler.seconds_left(deadline)
    priority = scheduler.export_priority(1) if priority is None else priority
    return scheduler.result_before(scheduler.SHARED_RENDERER.submit(_plotly_json(fig), fmt, opts, priority), deadline)


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
                    rows.append({"trace": name, "x": _cell_value(xs[c]), "y": _cell_value(ys[r]),
                                 "z": _cell_value(z[r, c])})
            continue
        if trace.type == "table":  # one row per table row: x = row number, y = column header, z = cell
            headers = list(trace.header.values or [])
            for c, column in enumerate(trace.cells.values or []):
                for r, cell in enumerate(column):
                    head = headers[c] if c < len(headers) else c
                    rows.append({"trace": name, "x": r, "y": _cell_value(head), "z": _cell_value(cell)})
            continue
        xs, ys = _trace_points(trace)
        for x, y in zip(xs, ys, strict=False):
            rows.append({"trace": name, "x": _cell_value(x), "y": _cell_value(y), "z": ""})
    return rows


def _trace_points(trace: object) -> tuple[Iterable, Iterable]:
    """A trace's points as (positions, values): x and y, or theta and r (polar), or labels and values (pie)."""
    for a, b in (("x", "y"), ("theta", "r"), ("labels", "values")):
        x, y = getattr(trace, a, None), getattr(trace, b, None)
        if x is not None or y is not None:
            n = len(y if y is not None else x)
            return (x if x is not None else range(n)), (y if y is not None else [""] * n)
    return (), ()


def _cell_value(v: object) -> object:
    """A table cell as plain Python: numpy scalars unwrapped, floats rounded to 9 digits."""
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
    return json.dumps(payload, default=_json_fallback).encode()


def _json_fallback(v: object) -> object:
    """What JSON writes for a value it has no type for: numpy scalars as numbers, tuples and sets as lists."""
    if isinstance(v, (np.generic,)):
        return v.item()
    if isinstance(v, (tuple, set)):
        return list(v)
    return str(v)


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
    Images and animations need the [export] extra (ExportUnavailableError says how to get it), check the budget,
    then wait for one of the EXPORT_SLOTS render slots (in the order of export_priority, which also orders their
    frames in the browser); an animation reports ``progress(i, n)`` per frame. With a ``time_limit`` (seconds,
    queue included) an export that cannot finish in time stops with ExportBusyError, waiting or rendering; the
    app passes DOWNLOAD_TIME_LIMIT_S."""
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
    priority = scheduler.export_priority(len(fig.frames) if fmt in ANIMATION_FORMATS else 1)
    with scheduler.EXPORT_QUEUE.hold(time_limit, priority):
        if fmt in IMAGE_FORMATS:
            out.write(image_bytes(fig, fmt, opts, deadline=deadline, priority=priority))
        else:
            write_animation(out, fig, fmt, opts, deadline=deadline, priority=priority, progress=progress)


def _styled_figure(name: str, params: Mapping[str, object], fmt: str, opts: ExportOptions) -> go.Figure:
    """The registered figure ``name`` built with ``params`` and styled by ``opts`` (sized too, if rendered)."""
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
    return render(_styled_figure(name, params, fmt, opts), fmt, opts, name=name, params=params,
                  time_limit=time_limit, progress=progress)


def export_file(path: str | os.PathLike[str], name: str, params: Mapping[str, object], fmt: str,
                opts: ExportOptions | None = None, *, time_limit: float | None = None,
                progress: Progress | None = None) -> None:
    """Export the registered figure ``name`` (as ``export_figure``) to the file ``path``, streamed into a
    temporary file beside it that replaces it only once complete (``atomic_write``): a failed export leaves
    an existing ``path`` exactly as it was, and no temporary file behind."""
    opts = opts or ExportOptions()
    fig = _styled_figure(name, params, fmt, opts)  # a bad parameter fails before any file is created
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
