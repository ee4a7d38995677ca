"""Figures of the Sinusoidal lesson: the PE table, its waves, similarity, and the shift rotation."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from posviz import sinusoidal as sn
from posviz._validate import check_choice, check_int
from posviz.figures._common import (
    MAX_CELLS,
    TWO_LINE_TOP,
    Marks,
    f32,
    sample_index,
    sampled_note,
    subtitled,
)
from posviz.figures._registry import figure
from posviz.i18n import _
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL

__all__ = ["sinusoidal_heatmap", "sinusoidal_waves", "sinusoidal_similarity", "sinusoidal_dot_by_offset",
           "sinusoidal_shift", "sinusoidal_exponent_bug", "sinusoidal_fast_slow"]


# Rows of the table's heatmap at most: a pixel or more each in a chart of the page (a plot area about 330 px
# high). More positions are shown as the mean of each run of neighbouring positions: drawn one per position, rows
# thinner than a pixel would be shown one in several, and a dimension whose wavelength is near that spacing would
# show as a slow wave, or a constant column, that the table does not have.
TABLE_ROWS = 256


@figure("sinusoidal_heatmap")
def sinusoidal_heatmap(*, n_positions: int = 100, d_model: int = 128, base: float = 10000.0,
                       layout: str = "interleaved") -> go.Figure:
    """The sinusoidal table PE(p, j) as a heatmap: positions down, dimensions across. Past TABLE_ROWS positions
    each row is the mean of a run of neighbouring positions, and past MAX_CELLS cells every k-th dimension is shown
    (k odd in the interleaved layout, so both sin and cos columns stay)."""
    pe = sn.sinusoidal_table(n_positions, d_model, base, layout)  # (P, d)
    n_rows, n_dims = pe.shape
    shown = math.ceil(n_rows / math.ceil(n_rows / TABLE_ROWS))  # rows shown: runs of equal length where they can be
    step = math.ceil(shown * n_dims / MAX_CELLS)  # dimensions per column shown
    step += layout == "interleaved" and step % 2 == 0
    cols = np.arange(0, n_dims, step)
    z, starts = row_means(pe[:, cols], shown)
    # rows evenly spaced (y0, dy): plotly draws evenly spaced cells as one image, uneven ones a rectangle each
    cells = dict(z=z, y0=(n_rows / shown - 1) / 2, dy=n_rows / shown,
                 hovertemplate=(_("position p=%{y}<br>dimension j=%{x}<br>PE=%{z:.3f}<extra></extra>")
                                if shown == n_rows else
                                _("positions around p=%{y:.0f}<br>dimension j=%{x}<br>mean PE=%{z:.3f}"
                                  "<extra></extra>")))
    fig = go.Figure(go.Heatmap(x=cols, zmin=-1, zmax=1, zmid=0, colorscale=DIVERGING, meta="diverging",
                               colorbar=dict(title=_("value")), **cells))
    # ``layout`` is interleaved or concat (sinusoidal_table checks it): each has its own whole title to translate
    title = _("Sinusoidal PE, concat layout") if layout == "concat" else _("Sinusoidal PE, interleaved layout")
    note = table_note(step, np.diff(starts))
    fig.update_layout(title=subtitled(title, note) if note else title, margin=dict(t=TWO_LINE_TOP) if note else {},
                      xaxis_title=_("dimension j"), yaxis_title=_("position p"),
                      yaxis=dict(range=[n_rows - 0.5, -0.5]))  # reversed: position 0 at the top
    return fig


def row_means(z: np.ndarray, shown: int) -> tuple[np.ndarray, np.ndarray]:
    """``z`` (rows, columns) as ``shown`` rows, each the mean of the rows whose index falls in its share of
    equal height (shares of rows / shown: runs whose lengths differ by at most one), as float32, and the first
    row of each run with the row count appended."""
    n = z.shape[0]
    starts = np.ceil(np.arange(shown + 1) * n / shown - 0.5).astype(int)  # row p lies in share i: its centre
    means = np.add.reduceat(np.asarray(z, dtype=np.float64), starts[:-1], axis=0) / np.diff(starts)[:, None]
    return f32(means), starts


def table_note(step: int, runs: np.ndarray) -> str:
    """The title's second line for a table shown in part: each row the mean of a run of positions (``runs``: the
    length of each), one dimension in ``step``; "" for the whole table."""
    short, long = int(runs.min()), int(runs.max())
    rows = ("" if long == 1 else _("each row: the mean of {run} positions", run=long) if short == long
            else _("each row: the mean of {short} or {long} positions", short=short, long=long))
    parts = [rows, _("one dimension in {step} shown", step=step) if step > 1 else ""]
    return _("; ").join(p for p in parts if p)


def _pair_of(dim: int, d_model: int, layout: str) -> tuple[int, str]:
    half = d_model // 2
    if layout == "concat":
        return dim % half, "sin" if dim < half else "cos"
    return dim // 2, "sin" if dim % 2 == 0 else "cos"


WAVE_SAMPLES = 4001  # points of each continuous wave: 8 per token up to 500 positions


@figure("sinusoidal_waves")
def sinusoidal_waves(*, n_positions: int = 100, d_model: int = 128, base: float = 10000.0,
                     layout: str = "interleaved", dims: tuple[int, ...] = (0, 21)) -> go.Figure:
    """Chosen dimensions of PE as waves over position, each labelled with its wavelength: the continuous
    sin(p·ω_i) or cos(p·ω_i) (Vaswani et al. 2017, docs/FORMULAS.md 1), and dots at the integer positions, the
    table's entries (a fast dimension sampled at integers alone, joined by lines, looks jagged)."""
    n_positions = check_int("n_positions", n_positions, 1, sn.MAX_POSITIONS)
    layout = check_choice("layout", layout, sn.LAYOUTS_1D)
    lam = sn.wavelengths(d_model, base)
    omega = sn.frequencies(d_model, base)
    fig = go.Figure()
    p = np.arange(n_positions)
    fine = np.linspace(0, n_positions - 1, min(8 * (n_positions - 1) + 1, WAVE_SAMPLES))
    dots = n_positions <= 200  # beyond that the dots merge into the curve
    # the table's entries for the dots (the whole table at 4,096 × 1,024 takes 40 ms, all of it unused)
    pe = sn.sinusoidal_table(n_positions, d_model, base, layout) if dots else None  # (P, d)
    for n, dim in enumerate(dims[:8]):
        if not 0 <= dim < d_model:
            raise ValueError(f"dims must lie in [0, {d_model - 1}] for d_model {d_model}; got {dim}")
        pair, kind = _pair_of(dim, d_model, layout)
        color = COLORS[n % 10]
        wave = (np.sin if kind == "sin" else np.cos)(fine * omega[pair])
        name = _("dim {dim} ({kind}, pair {pair}): λ = {wavelength:.4g} tokens", dim=dim, kind=kind, pair=pair,
                 wavelength=lam[pair])
        fig.add_scatter(x=f32(fine), y=f32(wave), mode="lines", line=dict(color=color), name=name, legendgroup=name,
                        hovertemplate="p=%{x:.2f}<br>PE=%{y:.3f}<extra></extra>")
        if not dots:
            continue
        fig.add_scatter(x=p, y=f32(pe[:, dim]), mode="markers", showlegend=False,
                        marker=dict(color=color, size=5), name=_("{name}, integer positions", name=name),
                        legendgroup=name, hovertemplate=_("p=%{x}<br>PE=%{y:.3f}<extra>table entry</extra>"))
    fig.update_layout(title=_("Single dimensions as waves (dots: the integer positions)"), xaxis_title=_("position p"),
                      yaxis_title="PE(p, j)", yaxis_range=[-1.1, 1.1], legend=dict(orientation="h", y=-0.25))
    return fig


@figure("sinusoidal_similarity")
def sinusoidal_similarity(*, n_positions: int = 100, d_model: int = 128, base: float = 10000.0) -> go.Figure:
    """The PE·PE dot-product matrix over pairs of positions: constant along every diagonal.

    Colour: a sequential scale from the smallest value to d/2 (= PE(p)·PE(p)) when every value is positive
    (the usual case: a diverging scale would spend half its colours on values that never occur), the
    diverging scale centred at 0 when some pairs of positions have a negative dot product.
    """
    rows, cols, stride = sample_index(n_positions, n_positions)
    z = f32(sn.similarity(rows, cols, d_model, base))  # (R, C), only the cells shown
    top = d_model / 2  # PE(p)·PE(p) = Σ sin² + cos² over d/2 pairs
    if float(z.min()) >= 0:
        scale = dict(colorscale=SEQUENTIAL, zmin=float(z.min()), zmax=top)
    else:
        lim = max(top, float(-z.min()))
        scale = dict(colorscale=DIVERGING, meta="diverging", zmid=0, zmin=-lim, zmax=lim)
    fig = go.Figure(go.Heatmap(z=z, x=cols, y=rows, colorbar=dict(title="PE·PE"), **scale,
                               hovertemplate="p=%{y}, q=%{x}<br>PE(p)·PE(q)=%{z:.2f}<extra></extra>"))
    fig.update_layout(title=subtitled("PE(p)·PE(q)", _("constant along diagonals{note}", note=sampled_note(stride))),
                      margin=dict(t=TWO_LINE_TOP), xaxis_title=_("position q"), yaxis_title=_("position p"),
                      yaxis_autorange="reversed", xaxis_scaleanchor="y")
    return fig


@figure("sinusoidal_dot_by_offset")
def sinusoidal_dot_by_offset(*, max_offset: int = 100, d_model: int = 128, base: float = 10000.0) -> go.Figure:
    """PE(p)·PE(p+k) against the offset k: the same for every p, and the same for +k and −k."""
    k = np.arange(-max_offset, max_offset + 1)
    dots = sn.dot_by_offset(k, d_model, base)
    fig = go.Figure(go.Scatter(x=k, y=dots.astype(np.float32), mode="lines", name="Σ cos(k·ω_i)",
                               hovertemplate="k=%{x}<br>PE(p)·PE(p+k)=%{y:.3f}<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title=subtitled("PE(p)·PE(p+k)", _("the same at +k and −k")), margin=dict(t=TWO_LINE_TOP),
                      xaxis_title=_("offset k (tokens)"), yaxis_title="PE(p)·PE(p+k)")
    return fig


@figure("sinusoidal_shift")
def sinusoidal_shift(*, d_model: int = 128, base: float = 10000.0, p: int = 10, k: int = 5,
                     pair: int = 10) -> go.Figure:
    """One pair of PE(p) and PE(p+k) on the unit circle: M_k rotates one into the other.

    Drawn as the point (cos pω, sin pω), so a growing position turns it counter-clockwise, the same way as
    the RoPE clock, and M_k is written in that order, ``[[cos kω, −sin kω], [sin kω, cos kω]]``
    (``shift_matrix(order="cos_sin")``). M_k·PE(p) is an open ring around PE(p+k): they coincide, and both
    stay visible. The default pair 10 (ω ≈ 0.237 rad/token at d = 128) turns by 68° for k = 5: a visible arc
    (pair 0 turns by 286°, and the arc hides where it started).
    """
    if not 0 <= pair < d_model // 2:
        raise ValueError(f"pair must lie in [0, {d_model // 2 - 1}] for d_model {d_model}; got {pair}")
    w = sn.frequencies(d_model, base)[pair]
    pe = sn.sinusoidal_table(p + k + 1, d_model, base)  # interleaved: pair i is channels (2i, 2i+1) = (sin, cos)
    cols = [2 * pair + 1, 2 * pair]  # the pair as the point (cos, sin)
    m = sn.shift_matrix(k, d_model, base, order="cos_sin")[2 * pair:2 * pair + 2, 2 * pair:2 * pair + 2]
    start, end = pe[p, cols], pe[p + k, cols]
    mapped = m @ start
    t = np.linspace(0, 2 * np.pi, 181)
    fig = go.Figure(go.Scatter(x=f32(np.cos(t)), y=f32(np.sin(t)), mode="lines", line=dict(color="#9aa0b4", width=1),
                               hoverinfo="skip", showlegend=False))
    arc = np.linspace(p * w, (p + k) * w, 60)
    fig.add_scatter(x=f32(np.cos(arc)), y=f32(np.sin(arc)), mode="lines", line=dict(color=COLORS[1], dash="dot"),
                    name=_("rotation by k·ω = {angle:.3f} rad ({degrees:.0f}°)", angle=k * w,
                           degrees=np.degrees(k * w)))
    for (c_, s_), label, color, marker in (
            (start, f"PE(p={p})", COLORS[0], dict(size=[0, 12], symbol="circle")),
            (end, f"PE(p+k={p + k})", COLORS[2], dict(size=[0, 12], symbol="circle")),
            (mapped, "M_k · PE(p)", COLORS[3], dict(size=[0, 22], symbol="circle-open", line=dict(width=3)))):
        fig.add_scatter(x=[0, c_], y=[0, s_], mode="lines+markers", name=label,
                        line=dict(color=color, dash="dash" if label.startswith("M_k") else "solid"),
                        marker=dict(color=color, **marker),
                        hovertemplate=f"{label}<br>cos=%{{x:.4f}}<br>sin=%{{y:.4f}}<extra></extra>")
    fig.update_layout(title=subtitled("PE(p+k) = M_k PE(p)", _("pair {pair}, ω = {omega:.4g} rad/token", pair=pair,
                                                                omega=w)),
                      margin=dict(t=TWO_LINE_TOP),
                      xaxis=dict(title="cos(p·ω)", range=[-1.25, 1.25], scaleanchor="y"),
                      yaxis=dict(title="sin(p·ω)", range=[-1.25, 1.25]), legend=dict(orientation="h", y=-0.2))
    return fig


@figure("sinusoidal_exponent_bug")
def sinusoidal_exponent_bug(*, d_model: int = 128, base: float = 10000.0) -> go.Figure:
    """Wavelength per pair, right (exponent 2i/d) and with the exponent counted twice (4i/d)."""
    lam = sn.wavelengths(d_model, base)
    i = np.arange(d_model // 2)
    wrong = 2 * np.pi * base ** (4.0 * i / d_model)  # i stepping by 2 *and* a factor 2: exponent doubled
    fig = go.Figure()
    fig.add_scatter(x=i, y=lam, mode="lines+markers", name=_("right: λ_i = 2π·b^(2i/d)"), marker_size=4)
    fig.add_scatter(x=i, y=wrong, mode="lines+markers", name=_("exponent counted twice: 2π·b^(4i/d)"),
                    marker_size=4, line_dash="dash")
    # a layout shape with its label at log10(y) (Marks): add_hline's label would sit at y itself, which a log axis
    # reads as 10^y, and the autorange would stretch to reach it. The label goes above the line: below it, the
    # right wavelengths' last pairs (just under 2π·b) run through it
    marks = Marks()
    marks.hline(2 * np.pi * base, _("longest intended wavelength 2π·b"), log=True, dash="dot", color="gray",
                right=True)
    fig.update_layout(title=_("Wavelength per pair"), xaxis_title=_("pair index i"), yaxis_type="log",
                      yaxis_title=_("wavelength λ_i (tokens, log)"), legend=dict(orientation="h", y=-0.25),
                      shapes=marks.shapes, annotations=marks.notes)
    return fig


@figure("sinusoidal_fast_slow")
def sinusoidal_fast_slow(*, n_positions: int = 100, d_model: int = 128, base: float = 10000.0,
                         claim: str = "right") -> go.Figure:
    """Pair 0 against the last pair over positions, labelled right or reversed (a common claim)."""
    if claim not in ("right", "reversed"):
        raise ValueError(f"claim must be one of 'right', 'reversed'; got {claim!r}")
    pe = sn.sinusoidal_table(n_positions, d_model, base)
    p = np.arange(n_positions)
    first, last = _("fast, local"), _("slow, global")
    if claim == "reversed":
        first, last = last, first
    fig = go.Figure()
    fig.add_scatter(x=p, y=pe[:, 0].astype(np.float32), name=_("dimension 0 (pair 0): labelled {label}", label=first))
    fig.add_scatter(x=p, y=pe[:, d_model - 2].astype(np.float32),
                    name=_("dimension {dim} (last pair): labelled {label}", dim=d_model - 2, label=last))
    fig.update_layout(title=_("Which dimensions change fastest?"), xaxis_title=_("position p"),
                      yaxis_title="PE(p, j)", legend=dict(orientation="h", y=-0.25))
    return fig
