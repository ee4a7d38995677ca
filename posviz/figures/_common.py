"""Helpers shared by every figure builder, one of each: float32 arrays, the heatmap cell cap, multi-panel
figures built from one layout dict, reference lines on any axis, and play/pause animation controls.

Builders import from here instead of growing their own copy: one helper of each kind means one place to
fix a cap, a layout or a control, and figures that look and behave alike.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from posviz.i18n import _
from posviz.theme import compact_number, log_ticks  # noqa: F401  (the kit's tick helpers live with the type)

# One heatmap cell cap for every figure: ~0.85 MB of float32 JSON, under the 1 MB payload budget of a
# page's heatmap; a screen cannot show more cells than that anyway.
MAX_CELLS = 160_000

LABEL_FONT = 16  # px: the largest base font of the themes (blog); presenter mode scales margins itself
LABEL_LINE_PX = 24  # px between two lines of band labels: a label at presenter mode's 21 px font fits
TWO_LINE_TOP = 96  # px: top margin that fits a title with a <sup> second line (the template's is 64)

Domain = tuple[tuple[float, float], tuple[float, float]]  # ((x0, x1), (y0, y1)) in paper coordinates


# ------------------------------------------------------------------------------------------ arrays

def f32(a: object) -> np.ndarray:
    """``a`` as a contiguous float32 numpy array: plotly sends it as a compact typed array, not a list."""
    return np.ascontiguousarray(a, dtype=np.float32)


def typed(a: object) -> dict:
    """``a`` as plotly's typed-array JSON (what plotly.py sends for a float32 array), for figure parts
    built as plain dicts without validation (animation frames)."""
    return {"dtype": "f4", "bdata": base64.b64encode(f32(a).astype("<f4", copy=False).tobytes()).decode("ascii")}


# ------------------------------------------------------------------------------------------ curves

def curve_mode(points: int, most: int) -> str:
    """Plotly mode of a curve with one point per item (a pair, a channel, a position): a marker per point while
    there are at most ``most``, few enough to tell apart. Beyond that they merge into the line anyway, and each
    marker is an SVG element the browser paints again at every slider move (hundreds per chart: half of a
    per-pair curve's redraw, and frames dropped during a drag where a still holds a thousand)."""
    return "lines+markers" if points <= most else "lines"


# ------------------------------------------------------------------------------------------ heatmaps

def sample_index(rows: int, cols: int, max_cells: int = MAX_CELLS, *,
                 odd: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """Row and column indices of an evenly strided view with at most ``max_cells`` cells, and the stride.

    ``stride == 1`` means nothing is dropped. Compute only the cells you show: a screen cannot show
    more cells than it has pixels. With ``odd`` the stride is odd: columns that alternate in kind (the
    interleaved sin, cos, sin, ... of a sinusoidal table) are then kept of both kinds, where an even stride
    would keep only the first kind.
    """
    stride = max(1, math.ceil(math.sqrt(rows * cols / max_cells)))
    if odd and stride % 2 == 0:
        stride += 1
    r_step = stride if rows > 1 else 1
    c_step = stride if cols >= stride * 4 else 1
    while math.ceil(rows / r_step) * math.ceil(cols / c_step) > max_cells:
        r_step += 1
    return np.arange(0, rows, r_step), np.arange(0, cols, c_step), max(r_step, c_step)


def downsample(z: np.ndarray, max_cells: int = MAX_CELLS, *,
               odd: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Stride a 2-D array to at most ``max_cells`` cells: (z as float32, row_index, col_index, stride); an odd
    stride with ``odd`` (sample_index)."""
    r_idx, c_idx, stride = sample_index(*z.shape, max_cells=max_cells, odd=odd)
    return f32(z[np.ix_(r_idx, c_idx)]), r_idx, c_idx, stride


def column_run(columns: int, most: int) -> int:
    """The run of columns column_means averages into one: the least power of two k with ceil(columns / k) <= most."""
    return 1 << max(0, math.ceil(math.log2(columns / most))) if columns > most else 1


def column_means(z: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``z`` (rows, columns) with its columns averaged in runs of k, the least power of two that leaves at most
    ``most`` columns (the last run may be shorter), the run edges in column units (-0.5, k - 0.5, ...,
    columns - 0.5: plotly's brick edges) and k. A heatmap cell narrower than a pixel is not drawn: plotly shows
    one column of several, and a row that alternates at every column turns into slow stripes that are not in the
    data. The mean of the columns a pixel covers is what the eye would see there; runs of 2, 4, 8 ... positions
    turn each bit that flips within a run into exactly one half."""
    cols = z.shape[1]
    k = column_run(cols, most)
    starts = np.arange(0, cols, k)
    means = np.add.reduceat(np.asarray(z, dtype=np.float64), starts, axis=1) / np.diff(np.append(starts, cols))
    return f32(means), np.append(starts, cols) - 0.5, k


def sampled_note(stride: int) -> str:
    """Title suffix telling the reader that a heatmap shows every n-th row and column."""
    return "" if stride == 1 else _(" (rows and columns: one in {stride} shown)", stride=stride)


# ------------------------------------------------------------------------------------------ text

def label_margin(labels: Sequence[object], *, title: bool = True, size: int = LABEL_FONT) -> int:
    """Margin (px) beside an axis that fits its longest tick label (0.6 em a character, a generous
    average for sans fonts) and, with ``title``, the rotated axis title beyond it. Margins are fixed
    (automargin costs the browser extra layout passes), so figures with word labels size them here."""
    chars = max((len(str(label)) for label in labels), default=2)
    return int(math.ceil(0.6 * size * chars)) + 14 + (int(1.4 * size) + 8 if title else 0)


def subtitled(main: str, detail: str) -> str:
    """A title with a smaller second line (give the figure ``margin.t = TWO_LINE_TOP``): long titles are
    cut off at the chart's edge on a narrow page, so the numbers go to the second line."""
    return f"{main}<br><sup>{detail}</sup>"


# ------------------------------------------------------------------------------------------ panels

def _axis_suffix(panel: int) -> str:
    return "" if panel == 1 else str(panel)


def grid_domains(rows: int = 1, cols: int = 1, *, widths: Sequence[float] = (), heights: Sequence[float] = (),
                 hspace: float = 0.1, vspace: float = 0.1) -> list[Domain]:
    """Paper domains of a rows × cols grid, row by row from the top left; ``widths``/``heights`` are
    relative sizes, ``hspace``/``vspace`` the gaps as fractions of the figure."""
    w = np.asarray(widths or [1.0] * cols, dtype=float)
    w = w / w.sum() * (1 - hspace * (cols - 1))
    h = np.asarray(heights or [1.0] * rows, dtype=float)
    h = h / h.sum() * (1 - vspace * (rows - 1))
    out = []
    for r in range(rows):
        y1 = 1 - float(h[:r].sum()) - vspace * r
        for c in range(cols):
            x0 = float(w[:c].sum()) + hspace * c
            out.append(((x0, x0 + float(w[c])), (max(0.0, y1 - float(h[r])), y1)))
    return out


class Marks:
    """Reference lines, bands and their labels as layout shapes and annotations, on any panel.

    plotly's add_hline/add_vline/add_vrect are slow on multi-panel figures and place labels wrongly on
    log axes (annotations take log10 coordinates there, shapes take data coordinates); these do not.
    """

    def __init__(self) -> None:
        self.shapes: list[dict] = []
        self.notes: list[dict] = []

    def _line(self, axis: str, at: float, text: str, panel: int, log: bool, dash: str, color: str,
              at_end: bool, before: bool = False, outside: bool = False) -> None:
        """A line across ``panel`` at ``at`` on ``axis`` ("y": horizontal, "x": vertical), labelled near its
        start (left, bottom) or, with ``at_end``, near its end (right, top); the label is after the line (right
        of it, above it) or, with ``before``, before it. ``outside`` (a vertical line): the label just above the
        plot, where no curve runs over it."""
        a, other = _axis_suffix(panel), "x" if axis == "y" else "y"
        self.shapes.append({"type": "line", f"{other}ref": f"{other}{a} domain", f"{other}0": 0, f"{other}1": 1,
                            f"{axis}ref": f"{axis}{a}", f"{axis}0": at, f"{axis}1": at,
                            "line": dict(dash=dash, color=color, width=1.5)})
        along = ("right" if at_end else "left") if other == "x" else ("top" if at_end else "bottom")
        self.notes.append({f"{other}ref": f"{other}{a} domain", other: 0.99 if at_end else 0.01,
                           f"{other}anchor": along, f"{axis}ref": f"{axis}{a}", axis: math.log10(at) if log else at,
                           f"{axis}anchor": ("top" if before else "bottom") if axis == "y" else
                           ("right" if before else "left"), "text": text, "showarrow": False,
                           "font": dict(color=color)})
        if outside and axis == "x":
            self.notes[-1].update(y=1.0, yanchor="bottom")

    def hline(self, y: float, text: str, *, panel: int = 1, log: bool = False, dash: str = "dash",
              color: str = "#888", right: bool = False, below: bool = False) -> None:
        """A horizontal line at ``y``, its label above it (``below``: below it) at the left (``right``: at the
        right)."""
        self._line("y", y, text, panel, log, dash, color, right, below)

    def vline(self, x: float, text: str, *, panel: int = 1, log: bool = False, dash: str = "dash",
              color: str = "#888", top: bool = True, left: bool = False, outside: bool = False) -> None:
        """A vertical line at ``x``, its label right of it (``left``: left of it) at the top (``top=False``: at
        the bottom; ``outside``: just above the plot)."""
        self._line("x", x, text, panel, log, dash, color, top, left, outside)

    def vrect(self, x0: float, x1: float, text: str, *, panel: int = 1, color: str = "#d55e00",
              opacity: float = 0.08, outside: bool = False, line: int = 0) -> None:
        """A shaded band from ``x0`` to ``x1``, its label at its top left inside the plot (``outside``: just above
        the plot, where no curve runs over it), ``line`` lines of text lower (clear of a narrow band's label
        before it)."""
        a = _axis_suffix(panel)
        self.shapes.append(dict(type="rect", yref=f"y{a} domain", y0=0, y1=1, xref=f"x{a}", x0=x0, x1=x1,
                                fillcolor=color, opacity=opacity, line=dict(width=0), layer="below"))
        if text:
            top = 1.0 if outside else 0.99
            self.notes.append(dict(yref=f"y{a} domain", y=top, yshift=-LABEL_LINE_PX * line, xref=f"x{a}", x=x0,
                                   text=text, showarrow=False, xanchor="left", yanchor="bottom" if outside else "top",
                                   font=dict(color=color)))


class Panels:
    """A multi-panel figure as plain data: traces, axes (x, y), (x2, y2), ... with explicit domains, a
    title over each panel, reference marks; one ``go.Figure`` at the end.

    ``make_subplots`` + ``add_trace(row=, col=)`` + ``update_xaxes`` validate every call (~10x the cost
    of building the figure in one go), and figures are rebuilt on every slider move. Panels are numbered
    from 1, row by row; ``Panels.grid(rows, cols, ...)`` lays out a regular grid, ``Panels(domains)``
    takes any layout (a panel spanning two columns, say).
    """

    def __init__(self, domains: Sequence[Domain] = (((0.0, 1.0), (0.0, 1.0)),), titles: Sequence[str] = (),
                 *, title_size: int | None = None) -> None:
        self.traces: list[dict | go.Heatmap] = []
        self.layout: dict = {}
        self.marks = Marks()
        self.titles: list[dict] = []
        for n, ((x0, x1), (y0, y1)) in enumerate(domains, start=1):
            a = _axis_suffix(n)
            self.layout[f"xaxis{a}"] = dict(domain=[x0, x1], anchor=f"y{a}")
            self.layout[f"yaxis{a}"] = dict(domain=[y0, y1], anchor=f"x{a}")
            if n <= len(titles) and titles[n - 1]:
                self.titles.append(dict(text=titles[n - 1], x=(x0 + x1) / 2, y=y1, xref="paper", yref="paper",
                                        xanchor="center", yanchor="bottom", showarrow=False,
                                        font=dict(size=title_size) if title_size else {}))

    @classmethod
    def grid(cls, rows: int = 1, cols: int = 1, titles: Sequence[str] = (), *, widths: Sequence[float] = (),
             heights: Sequence[float] = (), hspace: float = 0.1, vspace: float = 0.1,
             title_size: int | None = None) -> Panels:
        """A regular rows × cols grid (see ``grid_domains``)."""
        return cls(grid_domains(rows, cols, widths=widths, heights=heights, hspace=hspace, vspace=vspace),
                   titles, title_size=title_size)

    def add(self, trace: dict | go.Heatmap, panel: int = 1) -> None:
        """Put ``trace`` (a dict or a plotly trace object) on ``panel``."""
        where = dict(xaxis=f"x{_axis_suffix(panel)}", yaxis=f"y{_axis_suffix(panel)}")
        if isinstance(trace, dict):
            self.traces.append({**trace, **where})
        else:
            self.traces.append(trace.update(**where))

    def scatter(self, panel: int = 1, **kw: object) -> None:
        """A scatter trace on ``panel`` (keywords as go.Scatter's)."""
        self.add(dict(type="scatter", **kw), panel)

    def axis(self, letter: str, panel: int = 1, *, title: str | None = None, log: bool = False,
             **kw: object) -> None:
        """Set axis ``letter`` ("x" or "y") of ``panel``: a title, log type, any other axis keyword."""
        ax = self.layout[f"{letter}axis{_axis_suffix(panel)}"]
        if title is not None:
            ax["title"] = dict(text=title)
        if log:
            ax["type"] = "log"
        ax.update(kw)

    def _log_ticks(self) -> None:
        """Readable ticks on every log axis that has none: spanning its explicit range, else its data."""
        for key, ax in self.layout.items():
            if ax.get("type") != "log" or "tickvals" in ax or "dtick" in ax:
                continue
            letter, sfx = key[0], key[5:]
            if "range" in ax:
                lo, hi = 10.0 ** np.asarray(ax["range"], dtype=float)
            else:
                vals = [np.asarray(t.get(letter) if isinstance(t, dict) else t[letter], dtype=float).ravel()
                        for t in self.traces
                        if (t.get(f"{letter}axis") if isinstance(t, dict) else t[f"{letter}axis"]) == letter + sfx]
                data = np.concatenate(vals) if vals else np.zeros(0)
                data = data[np.isfinite(data) & (data > 0)]
                if not data.size:
                    continue
                lo, hi = float(data.min()), float(data.max())
            ax.update(log_ticks(lo, hi))

    def figure(self, **layout: object) -> go.Figure:
        """The finished figure; ``layout`` keywords (title, height, legend, ...) go into its layout."""
        self._log_ticks()
        notes = self.titles + self.marks.notes + list(layout.pop("annotations", []))  # type: ignore[arg-type]
        shapes = self.marks.shapes + list(layout.pop("shapes", []))  # type: ignore[arg-type]
        return go.Figure(self.traces, layout=dict(self.layout, shapes=shapes, annotations=notes, **layout))


# ------------------------------------------------------------------------------------------ animation

def animation_controls(frames: Sequence[str], labels: Sequence[str], *, duration: int = 120, x: float = 0.0,
                       y: float = -0.02, slider_x: float = 0.18, prefix: str | None = None, active: int = 0) -> dict:
    """``updatemenus`` (▶ Play / ❚❚ Pause) and ``sliders`` (one step per frame) for a plotly animation that
    runs in the browser, as layout keywords: ``go.Figure(..., layout=dict(..., **animation_controls(...)))``.

    ``frames`` are frame names, ``labels`` the slider's tick labels (empty strings to thin them out);
    ``prefix`` shows the current value above the slider ("current length l = "), None hides it (each
    label costs the browser a measurement on every redraw). The buttons sit left of the slider on one
    row, both hanging from ``y`` (paper coordinates), so neither covers the other's text. ``active`` is the slider
    stop the figure's own traces show (the still a page and an export show before Play): an informative frame,
    not necessarily the first.
    """
    play = dict(frame=dict(duration=duration, redraw=False), fromcurrent=True, transition=dict(duration=0),
                mode="immediate")
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    # the current value sits at the slider's right end, away from the buttons on its left
    current = dict(visible=False) if prefix is None else dict(prefix=prefix, xanchor="right")
    return dict(
        updatemenus=[dict(type="buttons", direction="left", x=x, y=y, xanchor="left", yanchor="top",
                          showactive=False, pad=dict(t=4, r=8),
                          buttons=[dict(label=_("▶ Play"), method="animate", args=[None, play]),
                                   dict(label=_("❚❚ Pause"), method="animate", args=[[None], pause])])],
        sliders=[dict(active=active, x=slider_x, len=1.0 - slider_x, y=y, yanchor="top", pad=dict(t=4),
                      currentvalue=current,
                      steps=[dict(label=lab, value=name, method="animate", args=[[name], pause])
                             for name, lab in zip(frames, labels, strict=True)])])
