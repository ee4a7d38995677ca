"""Figure builders for the RoPE lesson: rotating pairs, angle and cos/sin tables, scores, layouts, decay.

Every number comes from ``posviz.rope`` (and ``posviz.sinusoidal`` for the contrast); the builders only
arrange it. Big arrays are float32 numpy; heatmaps are strided to at most ``MAX_HEATMAP_CELLS`` cells
and say so in their title.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import plotly.graph_objects as go

from posviz import rope, sinusoidal
from posviz._validate import check_choice, check_float, check_int
from posviz.figures._common import MAX_CELLS, Panels, animation_controls, compact_number
from posviz.figures._common import f32 as _f32
from posviz.figures._common import typed as _typed
from posviz.figures._registry import figure
from posviz.theme import COLORS, CYCLIC, DIVERGING, SEQUENTIAL

__all__ = ["rope_clock", "rope_angle_heatmap", "rope_cos_sin_tables", "rope_score_grid", "rope_vs_sinusoidal",
           "rope_norms", "rope_pairing", "rope_decay", "rope_frequency_ladder", "rope_float32_error",
           "rope_additive_terms", "rope_derivation", "rope_qk_turn", "rope_left_right", "rope_pair_roles",
           "rope_base_choice"]

MAX_HEATMAP_CELLS = MAX_CELLS
MAX_GRID_POSITIONS = 256  # the (m, n) score heatmap shows at most this many positions per axis
MAX_FRAMES = 72
MAX_SLIDER_STEPS = 37  # more frames than that: the position slider steps through every k-th frame, Play shows all
MAX_TABLE_ROWS = 64  # rope_cos_sin_tables shows the first positions only
MAX_LIVE_LABELS = 32  # up to this many pairs, the clock's labels can show each angle frame by frame
LABEL_DY = (1.25, 1.62)  # the clock's two label lines sit this far below each circle's centre
# The clock's position slider labels every 10th step when the last step is one of them, else every 12th
# (plotly hides all but every 1st, 2nd, 3rd, ... label when they crowd: 12 suits most of those strides).
SLIDER_LABEL_EVERY = (10, 12)
PAIR_SETS = ("spread", "all", "ends", "stride4")
SPREAD_PAIRS = 16  # the clock's default subset: this many pairs from the fastest to the slowest
LAYOUT_NAMES = {"interleaved": "interleaved (RoFormer, Meta)", "half": "half-split (GPT-NeoX, HF)",
                "mixed": "mixed (buggy)"}
_WRAP_SCALE = [[0.0, COLORS[0]], [0.5, COLORS[0]], [0.5, COLORS[3]], [1.0, COLORS[3]]]
_PI_TICKS = dict(tickvals=[0, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi],
                 ticktext=["0", "π/2", "π", "3π/2", "2π"])


def _stride(n: int, cap: int) -> int:
    """Smallest stride that leaves at most ``cap`` of ``n`` items."""
    return max(1, math.ceil(n / cap))


def _every(stride: int, what: str = "position") -> str:
    return "" if stride == 1 else f" (1 {what} in {stride} shown)"


def clock_pairs(n_pairs: int, pairs: str) -> np.ndarray:
    """The pairs the clock draws: "spread" picks SPREAD_PAIRS evenly from pair 0 to the last one (their
    wavelengths evenly spaced on a log scale), "ends" the fastest and slowest 8, "stride4" every 4th."""
    if pairs == "spread" and n_pairs > SPREAD_PAIRS:
        return np.unique(np.round(np.linspace(0, n_pairs - 1, SPREAD_PAIRS)).astype(int))
    if pairs == "ends" and n_pairs > 16:
        return np.concatenate([np.arange(8), np.arange(n_pairs - 8, n_pairs)])
    if pairs == "stride4" and n_pairs > 4:
        return np.arange(0, n_pairs, 4)
    return np.arange(n_pairs)


# ---------------------------------------------------------------------------- 1. the clock hands

@figure("rope_clock", animated=True)
def rope_clock(*, dim: int = 16, base: float = 10000.0, m_max: float = 30.0, n_frames: int = 31,
               preset: str = "ones", seed: int = 0, layout: str = "interleaved", pairs: str = "spread",
               show_angles: bool = False) -> go.Figure:
    """Each pair of a query as a clock hand turning by m·θ_i as the position m runs from 0 to m_max.

    Small multiples, one circle per pair (pair 0 top left, fastest); by default 16 pairs spread from the
    fastest to the slowest (every pair up to d = 32), ``pairs="all"`` draws all d/2. Hands are drawn at unit length
    (rotation keeps each pair's length). A hand turns orange once its pair has completed a full turn.
    Play/pause and the position slider run in the browser: no server round trip per frame.
    ``show_angles`` (up to 32 pairs) adds each pair's angle m·θ_i under its clock, frame by frame.
    """
    n_frames = check_int("n_frames", n_frames, 30, MAX_FRAMES)
    m_max = check_float("m_max", m_max, 1.0, 1e6)
    pairs = check_choice("pairs", pairs, PAIR_SETS)
    layout = check_choice("layout", layout, rope.LAYOUTS)
    q, _ = rope.sample_qk(dim, seed, preset)
    theta = rope.inv_freq(dim, base)
    lam = rope.wavelengths(dim, base)
    sel = clock_pairs(dim // 2, pairs)  # (P,)
    ch = rope.pair_channels(dim, layout)[sel]  # (P, 2)
    pos = np.linspace(0.0, m_max, n_frames)  # (F,)
    rot = rope.rotate(np.ones((n_frames, 1)) * q, pos, theta, layout)  # (F, d)
    uv = np.stack([rot[:, ch[:, 0]], rot[:, ch[:, 1]]], axis=-1)  # (F, P, 2)
    length = np.linalg.norm(uv[0], axis=-1)  # (P,) kept by the rotation
    uv = uv / np.where(length > 0, length, 1.0)[None, :, None]
    ang = rope.angles(pos, dim, base)[:, sel]  # (F, P), unwrapped

    n_sel = sel.size
    ncols = min(16, max(1, math.ceil(math.sqrt(2 * n_sel))))
    nrows = math.ceil(n_sel / ncols)
    cx = (np.arange(n_sel) % ncols) * 2.6  # (P,)
    cy = -(np.arange(n_sel) // ncols) * 3.0  # (P,)

    circ = np.linspace(0, 2 * np.pi, 41)
    ring_x = np.concatenate([np.append(x0 + np.cos(circ), np.nan) for x0 in cx])
    ring_y = np.concatenate([np.append(y0 + np.sin(circ), np.nan) for y0 in cy])
    small = n_sel > 32
    # Labels under each circle, one text trace per line: plotly lays a multi-line text out line by line, and
    # every text element costs each redraw in the browser (in the app, 32 more labels add ~10 ms to a slider
    # move). Few pairs: "i, λ" on one line and, if asked, the current angle on a second line, frame by
    # frame: a text template filled in the browser from customdata, so a frame sends P numbers, not P
    # strings. Many pairs: "i" and "λ" on two lines in a small font (the angle is in the hover).
    live = bool(show_angles) and n_sel <= MAX_LIVE_LABELS
    second_line = None
    if n_sel <= MAX_LIVE_LABELS:
        first_line = [f"i={i}, λ={_short(lam[i])}" for i in sel]
        if live:
            second_line = dict(texttemplate="m·θ=%{customdata:.3~g} rad", customdata=_f32(ang[clock_still(n_frames)]),
                               name="angle m·θ_i at this position")
    else:
        first_line = [f"i={i}" for i in sel]
        second_line = dict(text=[f"λ={_short(lam[i])}" for i in sel], name="wavelength λ_i")
    label_font = dict(size=8 if small else 11)

    hover = [f"pair {i} (channels {ch[j, 0]}, {ch[j, 1]})<br>θ_{i} = {theta[i]:.4g} rad/token"
             f"<br>λ_{i} = {lam[i]:.4g} tokens" for j, i in enumerate(sel)]

    def hands(f: int) -> tuple[np.ndarray, np.ndarray]:
        x = np.stack([cx, cx + uv[f, :, 0], np.full(n_sel, np.nan)], axis=1).ravel()  # (3P,)
        y = np.stack([cy, cy + uv[f, :, 1], np.full(n_sel, np.nan)], axis=1).ravel()
        return _f32(x), _f32(y)

    def status(f: int) -> str:
        turned = int((np.abs(ang[f]) >= rope.TWO_PI).sum())
        return f"m = {pos[f]:.4g}: {turned} of {n_sel} pairs have completed a full turn"

    def frame_traces(f: int) -> list[dict]:
        hx, hy = hands(f)
        wrapped = np.abs(ang[f]) >= rope.TWO_PI
        return [dict(type="scatter", x=_typed(hx), y=_typed(hy)),
                dict(type="scatter", x=_typed(cx + uv[f, :, 0]), y=_typed(cy + uv[f, :, 1]),
                     customdata=_typed(ang[f]), marker=dict(color=_typed(wrapped))),
                dict(type="scatter", text=[status(f)])] + [dict(type="scatter", customdata=_typed(ang[f]))] * live

    top = 1.4
    still = clock_still(n_frames)
    hx, hy = hands(still)
    data = [
        dict(type="scatter", x=_f32(ring_x), y=_f32(ring_y), mode="lines", line=dict(color="#9aa0b4", width=1),
             hoverinfo="skip", name="unit circle per pair"),
        dict(type="scatter", x=_f32(cx), y=_f32(cy - LABEL_DY[0]), mode="text", text=first_line, hoverinfo="skip",
             textfont=label_font, name="pair i" + ", wavelength λ_i" * (n_sel <= MAX_LIVE_LABELS)),
        dict(type="scatter", x=hx, y=hy, mode="lines", line=dict(color=COLORS[0], width=2), hoverinfo="skip",
             name="hand (pair rotated by m·θ_i)"),
        dict(type="scatter", x=_f32(cx + uv[still, :, 0]), y=_f32(cy + uv[still, :, 1]), mode="markers",
             customdata=_f32(ang[still]), hovertext=hover,
             marker=dict(size=6 if small else 9, color=_f32(np.abs(ang[still]) >= rope.TWO_PI),
                         colorscale=_WRAP_SCALE, cmin=0, cmax=1),
             hovertemplate="%{hovertext}<br>angle m·θ_i = %{customdata:.4g} rad<extra></extra>",
             name="tip (orange once the pair has turned fully)"),
        dict(type="scatter", x=[-1.0], y=[top], mode="text", text=[status(still)], textposition="middle right",
             hoverinfo="skip", name="status"),
    ]
    if second_line is not None:
        data.append(dict(type="scatter", x=_f32(cx), y=_f32(cy - LABEL_DY[1]), mode="text", **second_line,
                         hoverinfo="skip", textfont=label_font))
    # Frames are plain dicts with arrays already in plotly's typed-array form, built without plotly's
    # validation: with numpy arrays, validation and serialisation cost ~0.5 ms per array, about 0.3 s per
    # build and 60 ms per rerun for 300 arrays. The tests validate the frames instead.
    traces = [2, 3, 4] + [5] * live
    frames = [dict(data=frame_traces(f), traces=traces, name=str(f)) for f in range(n_frames)]
    # about square cells at a 900 px wide chart, and at most 200 px per row when there are few pairs
    height = int(min(1100, max(360, 150 + min(880 * (3.0 * nrows + 0.6) / (2.6 * ncols), 200 * nrows))))
    every = SLIDER_LABEL_EVERY[0] if (n_frames - 1) % SLIDER_LABEL_EVERY[0] == 0 else SLIDER_LABEL_EVERY[1]
    layout = dict(
        title=dict(text=f"Clock hands: pair i turns by m·θ_i, θ_i = {base:g}^(-2i/{dim})"
                   + ("" if n_sel == dim // 2 else f" ({n_sel} of {dim // 2} pairs shown)")),
        showlegend=False, height=height, hovermode="closest",
        xaxis=dict(visible=False, range=[-1.3, (ncols - 1) * 2.6 + 1.3]),
        yaxis=dict(visible=False, scaleanchor="x", range=[-(nrows - 1) * 3.0 - 1.8, top + 0.4]),
        # The status line above the clocks shows the position, so the slider has no "current value" box,
        # and it labels every 10th or 12th step only: plotly draws and measures every label (and every
        # current-value text) on each redraw, ~25 ms for 49 steps.
        **_player(n_frames, [f"{p:.4g}" for p in pos], every=every, still=still),
        margin=dict(l=10, r=10, t=60, b=90),
    )
    fig = go.Figure(data=data, layout=layout)  # validated: five or six traces and the layout are cheap
    fig.frames = [go.Frame(fr, _validate=False) for fr in frames]  # the bulk: skip per-attribute checks
    return fig


def _short(v: float) -> str:
    """A wavelength to 3 significant digits, short: 6.28, 199, 1.49k, 47.1k (never 1.49e+03)."""
    return compact_number(float(f"{v:.3g}"))


def clock_still(n_frames: int) -> int:
    """The clock's frame before Play (the page's still and an export's): a third of the way, m = m_max/3, where
    the fastest pairs have turned past a full circle and the slow ones barely moved (at m = 0 every hand points
    the same way); a stop of the slider."""
    return min(_slider_stops(n_frames), key=lambda f: abs(f - (n_frames - 1) / 3))


# ---------------------------------------------------------------------------- 2. angle and cos/sin tables

@figure("rope_angle_heatmap")
def rope_angle_heatmap(*, dim: int = 64, base: float = 10000.0, n_positions: int = 256) -> go.Figure:
    """The angle m·θ_i mod 2π of every pair at every position, on a cyclic colour scale.

    Fast pairs (bottom rows) cycle every few tokens; slow pairs barely move. The dashed line marks
    where each pair completes its first full turn (m = λ_i).
    """
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    n_pairs = rope.inv_freq(dim, base).size
    step = _stride(n_positions, max(1, MAX_HEATMAP_CELLS // n_pairs))
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    z = np.mod(rope.angles(pos, dim, base), rope.TWO_PI).T  # (d/2, T')
    lam = rope.wavelengths(dim, base)
    turn = lam <= n_positions - 1
    fig = go.Figure([
        go.Heatmap(z=_f32(z), x=_f32(pos), y=np.arange(z.shape[0]), colorscale=CYCLIC, zmin=0,
                   zmax=2 * math.pi, colorbar=dict(title="angle (rad)", **_PI_TICKS),
                   hovertemplate="position m = %{x}<br>pair i = %{y}<br>m·θ_i mod 2π = %{z:.3f} rad"
                                 "<extra></extra>"),
        go.Scatter(x=_f32(lam[turn]), y=np.nonzero(turn)[0], mode="lines+markers",
                   line=dict(color=COLORS[1], dash="dash", width=2), marker=dict(size=4, color=COLORS[1]),
                   name="first full turn (m = λ_i)",
                   hovertemplate="pair %{y} completes a turn at m = λ = %{x:.1f}<extra></extra>"),
    ])
    fig.update_layout(title=f"Angle m·θ_i mod 2π, d = {dim}, b = {base:g}" + _every(step),
                      xaxis_title="position m (tokens)", yaxis_title="pair i (0 = fastest)",
                      legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    return fig


@figure("rope_cos_sin_tables")
def rope_cos_sin_tables(*, dim: int = 16, base: float = 10000.0, n_positions: int = 64) -> go.Figure:
    """The cos and sin tables as a model stores them, in both layouts (rows: position, columns: channel).

    Interleaved repeats each angle in place [a0, a0, a1, a1, ...]; half-split concatenates
    [a0 .. a_{d/2-1}, a0 .. a_{d/2-1}]. Same numbers, different channel order.
    """
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    d = rope.inv_freq(dim, base).size * 2
    shown = min(n_positions, MAX_TABLE_ROWS)  # the first rows show the pattern; more only slows the redraw
    pos = np.arange(shown, dtype=np.float64)
    # panels 1, 2 on top, 3, 4 below; the top row shares the bottom row's x axes, the right column the left's y
    p = Panels.grid(2, 2, ["interleaved: cos", "interleaved: sin", "half-split: cos", "half-split: sin"],
                    hspace=0.04, vspace=0.1, title_size=16)
    for r, layout in enumerate(("interleaved", "half")):
        tables = rope.cos_sin(pos, dim, base, layout)
        for c, (name, tab) in enumerate(zip(("cos", "sin"), tables)):
            p.add(go.Heatmap(
                z=_f32(tab), x=np.arange(d), y=_f32(pos), colorscale=DIVERGING, zmid=0, zmin=-1, zmax=1,
                meta="diverging", showscale=(r, c) == (0, 1), colorbar=dict(title="value"),
                name=f"{layout} {name}",
                hovertemplate=f"{layout} {name}<br>position m = %{{y}}<br>channel %{{x}}<br>"
                              "value = %{z:.3f}<extra></extra>"), 2 * r + c + 1)
    for panel in (1, 2):
        p.axis("x", panel, matches=f"x{panel + 2}", showticklabels=False)
        p.axis("x", panel + 2, title="channel")
    for panel in (1, 3):
        p.axis("y", panel, title="position m", autorange="reversed")
        p.axis("y", panel + 1, matches="y" if panel == 1 else "y3", showticklabels=False)
    note = "" if shown == n_positions else f" (first {shown} of {n_positions} positions shown)"
    return p.figure(title=f"cos/sin tables as stored, d = {dim}" + note, height=620)


# ---------------------------------------------------------------------------- 3. relative property

@figure("rope_score_grid")
def rope_score_grid(*, dim: int = 64, base: float = 10000.0, n_positions: int = 64, layout: str = "interleaved",
                    seed: int = 0, preset: str = "random", swap: bool = False, m: int = -1, n: int = -1,
                    c: int = 0) -> go.Figure:
    """The score (R_m q)·(R_n k) for every query position m and key position n.

    With a consistent layout it depends on m - n only, so every diagonal is constant. The "mixed"
    layout (a bug) breaks the diagonals; ``swap`` (q and k swapped, a bug) transposes the grid. With m, n >= 0
    the cells (m, n) and (m + c, n + c) are marked with their scores, and the diagonal m − n they share.
    """
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    layout = check_choice("layout", layout, rope.TEACHING_LAYOUTS)
    m, n = check_int("m", m, -1, 8192), check_int("n", n, -1, 8192)
    c = check_int("c", c, 0, 8192)
    q, k = rope.sample_qk(dim, seed, preset)
    step = _stride(n_positions, MAX_GRID_POSITIONS)
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    s = rope.score_grid(q, k, pos, base, layout, swap=bool(swap))  # (T', T')
    spread = float(np.abs(s).max()) or 1.0
    fig = go.Figure(go.Heatmap(
        z=_f32(s), x=_f32(pos), y=_f32(pos), colorscale=DIVERGING, zmid=0, zmin=-spread, zmax=spread,
        meta="diverging", colorbar=dict(title="score"),
        hovertemplate="query m = %{y}<br>key n = %{x}<br>score = %{z:.4f}<extra></extra>"))
    bug = " with q and k swapped" if swap else ""
    note = _score_marks(fig, q, k, m, n, c, n_positions, base, layout, bool(swap)) if min(m, n) >= 0 else ""
    fig.update_layout(title=f"Score q_m·k_n, {LAYOUT_NAMES[layout]}{bug}" + _every(step) + note,
                      xaxis=dict(title="key position n", constrain="domain"),
                      yaxis=dict(title="query position m", autorange="reversed", scaleanchor="x",
                                 constrain="domain"),
                      legend=dict(orientation="h", y=-0.16, x=0))
    if min(m, n) >= 0 and not note and n_positions > ZOOM_ABOVE:
        _score_zoom(fig, q, k, (m, n, c), base, layout, bool(swap), spread)
    return fig


ZOOM_ABOVE = 48  # rope_score_grid: from this many positions on, the marked cells get a zoomed panel of their own
ZOOM_PAD = 4  # positions around the marked cells in that panel


def _score_zoom(fig: go.Figure, q: np.ndarray, k: np.ndarray, cells: tuple[int, int, int], base: float,
                layout: str, swap: bool, spread: float) -> None:
    """A second panel, right of the whole grid, zoomed on the marked cells (m, n) and (m + c, n + c) with a few
    positions around them, one cell per position: in a grid of hundreds of positions the two marks sat on top of
    each other in a corner. The marks and the diagonal are drawn again there, larger; the grid keeps the left."""
    m, n, c = cells
    width = max(c + 1 + 2 * ZOOM_PAD, 16)
    rows = np.arange(max(0, m - ZOOM_PAD), max(0, m - ZOOM_PAD) + width, dtype=np.float64)
    cols = np.arange(max(0, n - ZOOM_PAD), max(0, n - ZOOM_PAD) + width, dtype=np.float64)
    rows, cols = rows[:MAX_GRID_POSITIONS], cols[:MAX_GRID_POSITIONS]
    s = _score_block(q, k, rows, cols, base, layout, swap)
    marks = list(fig.data[1:])
    fig.add_trace(go.Heatmap(z=_f32(s), x=_f32(cols), y=_f32(rows), colorscale=DIVERGING, zmid=0, zmin=-spread,
                             zmax=spread, meta="diverging", showscale=False, xaxis="x2", yaxis="y2",
                             name="zoom on the marked cells",
                             hovertemplate="query m = %{y}<br>key n = %{x}<br>score = %{z:.4f}<extra></extra>"))
    for t in marks:
        fig.add_trace(go.Scatter(t).update(showlegend=False, xaxis="x2", yaxis="y2"))
    for t in marks:  # on the whole grid the marks only locate the zoom
        if t.mode == "markers":
            t.marker.size = 9
    half = 0.45
    fig.update_layout(
        xaxis=dict(domain=[0.0, half]),
        xaxis2=dict(domain=[1 - half, 1.0], anchor="y2", title="key position n", range=[cols[0] - 0.5, cols[-1] + 0.5],
                    constrain="domain"),
        yaxis2=dict(anchor="x2", range=[rows[-1] + 0.5, rows[0] - 0.5], scaleanchor="x2", constrain="domain"),
        annotations=[dict(xref=f"{x} domain", yref=f"{y} domain", x=0.5, y=1.0, yanchor="bottom", showarrow=False,
                          text=text) for x, y, text in (
            ("x", "y", "every position"),
            ("x2", "y2", f"zoom: m = {int(rows[0])}…{int(rows[-1])}, n = {int(cols[0])}…{int(cols[-1])}"))],
        height=480)


def _score_block(q: np.ndarray, k: np.ndarray, rows: np.ndarray, cols: np.ndarray, base: float, layout: str,
                 swap: bool) -> np.ndarray:
    """Scores of query positions ``rows`` against key positions ``cols``: the block of ``rope.score_grid`` over
    their union (one call of the math layer, rows × cols picked out)."""
    pos = np.union1d(rows, cols)
    full = rope.score_grid(q, k, pos, base, layout, swap=swap)
    return full[np.ix_(np.searchsorted(pos, rows), np.searchsorted(pos, cols))]


def _score_marks(fig: go.Figure, q: np.ndarray, k: np.ndarray, m: int, n: int, c: int, n_positions: int,
                 base: float, layout: str, swap: bool) -> str:
    """Mark the cells (m, n) and (m + c, n + c) of a score grid and their shared diagonal; return a title note
    naming any cell beyond the positions shown."""
    last = n_positions - 1
    delta = m - n
    lo, hi = max(0, -delta), min(last, last - delta)  # key positions n' with m' = n' + Δ inside the grid
    if lo <= hi:
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo + delta, hi + delta], mode="lines", hoverinfo="skip",
                                 name=f"the diagonal m − n = {delta}", line=dict(color=COLORS[1], dash="dash",
                                                                                 width=1.5)))
    cells = [(m, n, "(m, n)"), (m + c, n + c, "(m + c, n + c)")]
    inside = [(a, b, label) for a, b, label in cells if a <= last and b <= last]
    for j, (a, b, label) in enumerate(inside):
        value = rope.score(q, k, b, a, base, layout) if swap else rope.score(q, k, a, b, base, layout)
        fig.add_trace(go.Scatter(x=[b], y=[a], mode="markers", name=f"{label} = ({a}, {b}): score {value:.4f}",
                                 marker=dict(symbol=["square-open", "circle-open"][j], size=16, color=COLORS[1],
                                             line=dict(width=3)),
                                 hovertemplate=f"{label}: query {a}, key {b}<br>score {value:.6f}<extra></extra>"))
    missing = [label for a, b, label in cells if a > last or b > last]
    return f" — {' and '.join(missing)} beyond the positions shown" if missing else ""


@figure("rope_vs_sinusoidal")
def rope_vs_sinusoidal(*, dim: int = 64, base: float = 10000.0, max_offset: int = 64, seed: int = 0) -> go.Figure:
    """Score against offset Δ = m - n: RoPE (seeded q, k) is not mirror-symmetric; sinusoidal PE·PE is.

    The raw sinusoidal dot product PE(p)·PE(p+Δ) = Σ cos(Δ w_i) (W = I) is even in Δ; RoPE's score has a
    sine term that flips sign with Δ. For the fair comparison (a learned W, q = k) see ``rope_left_right``.
    """
    max_offset = check_int("max_offset", max_offset, 1, 8192)
    q, k = rope.sample_qk(dim, seed)
    step = _stride(2 * max_offset + 1, 4001)
    deltas = np.arange(-max_offset, max_offset + 1, step, dtype=np.float64)
    r = rope.relative_scores(q, k, deltas, base)
    r_mirror = rope.relative_scores(q, k, -deltas, base)
    s = sinusoidal.dot_by_offset(deltas, dim, base)
    p = Panels.grid(2, 1, ["RoPE: q_m·k_n depends on the sign of Δ",
                           "sinusoidal PE(p)·PE(p+Δ): the same for +Δ and -Δ"], vspace=0.12, title_size=16)
    p.add(go.Scatter(x=_f32(deltas), y=_f32(r), name="RoPE score at Δ", line=dict(color=COLORS[0]),
                     hovertemplate="Δ = %{x}<br>score = %{y:.4f}<extra>RoPE</extra>"), 1)
    p.add(go.Scatter(x=_f32(deltas), y=_f32(r_mirror), name="RoPE score at -Δ (mirror)",
                     line=dict(color=COLORS[1], dash="dot"),
                     hovertemplate="Δ = %{x}<br>score at -Δ = %{y:.4f}<extra>mirror</extra>"), 1)
    p.add(go.Scatter(x=_f32(deltas), y=_f32(s), name="sinusoidal Σ cos(Δ w_i)", line=dict(color=COLORS[2]),
                     hovertemplate="Δ = %{x}<br>PE·PE = %{y:.4f}<extra>sinusoidal</extra>"), 2)
    p.axis("x", 1, matches="x2", showticklabels=False)  # one offset axis, labelled under the lower panel
    p.axis("x", 2, title="offset Δ = m - n (tokens)")
    p.axis("y", 1, title="score")
    p.axis("y", 2, title="dot product")
    return p.figure(title=f"Left or right? d = {dim}, b = {base:g}" + _every(step, "offset"), height=560,
                    legend=dict(orientation="h", y=-0.18))


@figure("rope_norms")
def rope_norms(*, dim: int = 64, base: float = 10000.0, n_positions: int = 256, seed: int = 0) -> go.Figure:
    """‖R_m q‖ / ‖q‖ against m: exactly 1 for both real layouts, drifting for the mixed one."""
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    q, _ = rope.sample_qk(dim, seed)
    step = _stride(n_positions, 2048)
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    fig = go.Figure()
    for i, layout in enumerate(rope.TEACHING_LAYOUTS):
        ratio = rope.norm_ratio(q, pos, base, layout)
        fig.add_trace(go.Scatter(x=_f32(pos), y=ratio.astype(np.float32), name=LAYOUT_NAMES[layout],
                                 line=dict(color=COLORS[[0, 2, 3][i]], dash=["solid", "dash", "solid"][i]),
                                 hovertemplate="m = %{x}<br>‖R_m q‖/‖q‖ = %{y:.5f}<extra></extra>"))
    fig.update_layout(title="Norm after rotation ÷ norm before" + _every(step),
                      xaxis_title="position m (tokens)", yaxis_title="‖R_m q‖ / ‖q‖",
                      legend=dict(orientation="h", y=-0.25))
    return fig


# ---------------------------------------------------------------------------- 4. layouts

@figure("rope_pairing")
def rope_pairing(*, dim: int = 16) -> go.Figure:
    """Which channels form a pair in each layout, and the permutation P that maps one to the other.

    Top row: interleaved channels, pairs (2i, 2i+1) side by side. Bottom row: half-split channels,
    pairs (i, i + d/2). Grey lines: half-split channel j holds interleaved channel P[j].
    """
    P = rope.deinterleave_permutation(dim)
    d = P.size
    h = d // 2
    il = rope.pair_channels(d, "interleaved")  # (d/2, 2)
    hf = rope.pair_channels(d, "half")  # (d/2, 2)
    fig = go.Figure()
    px, py = [], []
    for j in range(d):
        px += [P[j], j, np.nan]
        py += [1.0, 0.0, np.nan]
    fig.add_trace(go.Scatter(x=_f32(px), y=_f32(py), mode="lines", line=dict(color="#9aa0b4", width=1),
                             name="permutation P", hoverinfo="skip"))
    t = np.linspace(0, np.pi, 13)
    for y0, pairs_, sgn, label in ((1.0, il, 1, "interleaved pair"), (0.0, hf, -1, "half-split pair")):
        ax, ay = [], []
        for u, v in pairs_:
            mid, rad = (u + v) / 2, (v - u) / 2
            ax += list(mid - rad * np.cos(t)) + [np.nan]
            ay += list(y0 + sgn * (0.04 + np.sin(t) * (0.1 + 0.2 * min(1.0, rad / max(1, h / 2))))) + [np.nan]
        fig.add_trace(go.Scatter(x=_f32(ax), y=_f32(ay), mode="lines", line=dict(width=1.5, color=COLORS[0]),
                                 name=label, hoverinfo="skip"))
    ch = np.arange(d)
    show_text = d <= 32
    fig.add_trace(go.Scatter(
        x=ch, y=np.ones(d), mode="markers", marker=dict(size=10 if d <= 64 else 6, color=ch // 2, colorscale=SEQUENTIAL,
                                               cmin=0, cmax=max(1, h - 1)),
        customdata=ch // 2, name="interleaved channel",
        hovertemplate="interleaved channel %{x}<br>pair %{customdata}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=ch, y=np.zeros(d), mode="markers", marker=dict(size=10 if d <= 64 else 6, color=ch % h, colorscale=SEQUENTIAL,
                                                  cmin=0, cmax=max(1, h - 1)),
        customdata=np.stack([ch % h, P], axis=1), name="half-split channel",
        hovertemplate="half-split channel %{x}<br>pair %{customdata[0]}<br>holds interleaved channel "
                      "%{customdata[1]}<extra></extra>"))
    if show_text:
        fig.add_trace(go.Scatter(x=np.concatenate([ch, ch]), y=np.concatenate([np.full(d, 1.4), np.full(d, -0.45)]),
                                 mode="text", text=[str(c) for c in ch] + [str(P[c]) for c in ch],
                                 hoverinfo="skip", name="channel labels"))
    fig.update_layout(
        title=f"Pairs in both layouts, d = {d}: same colour = same pair (labels below: P[j])",
        xaxis=dict(title="channel index", range=[-1, d]), showlegend=False, height=380,
        yaxis=dict(tickvals=[0, 1], ticktext=["half-split", "interleaved"], range=[-0.6, 1.55],
                   zeroline=False, showgrid=False),
        margin=dict(l=110))  # the row labels need more than the template's 72 px
    return fig


# ---------------------------------------------------------------------------- 5. the decay bound

@figure("rope_decay")
def rope_decay(*, dim: int = 128, base: float = 10000.0, max_delta: int = 1024, n_samples: int = 512,
               seed: int = 0) -> go.Figure:
    """RoFormer's relative upper bound B(Δ), Σ cos(Δθ_i) (q = k = ones) and the mean random score.

    B(Δ) is a bound, not a score, and it is not monotone; Σ cos goes negative; the mean score of
    independent random q, k is zero at every offset.
    """
    max_delta = check_int("max_delta", max_delta, 1, 8192)
    deltas = np.arange(0, max_delta + 1, dtype=np.float64)
    b = rope.decay_bound(deltas, dim, base)
    c = rope.cos_sum(deltas, dim, base)
    r = rope.mean_random_score(deltas, dim, base, n_samples, seed)
    fig = go.Figure([
        go.Scatter(x=_f32(deltas), y=_f32(b), name="bound B(Δ) (RoFormer §3.4.3)", line=dict(color=COLORS[0]),
                   hovertemplate="Δ = %{x}<br>B(Δ) = %{y:.3f}<extra></extra>"),
        go.Scatter(x=_f32(deltas), y=_f32(c), name="Σ cos(Δθ_i) (q = k = ones, ÷2)", line=dict(color=COLORS[1]),
                   hovertemplate="Δ = %{x}<br>Σ cos = %{y:.3f}<extra></extra>"),
        go.Scatter(x=_f32(deltas), y=_f32(r), name=f"mean score, {n_samples} random q, k",
                   line=dict(color=COLORS[2]),
                   hovertemplate="Δ = %{x}<br>mean score = %{y:.3f}<extra></extra>"),
    ])
    fig.add_hline(y=0, line=dict(color="#9aa0b4", width=1, dash="dot"))
    i_min = int(np.argmin(c))
    fig.add_annotation(x=float(deltas[i_min]), y=float(c[i_min]), text=f"Σ cos = {c[i_min]:.2f} at Δ = {i_min}",
                       showarrow=True, arrowhead=2, ay=30)
    fig.update_layout(title=f"The 'long-term decay' curves, d = {dim}, b = {base:g}",
                      xaxis_title="offset Δ = m - n (tokens)", yaxis_title="value",
                      legend=dict(orientation="h", y=-0.22))
    return fig


# ---------------------------------------------------------------------------- 6. pitfalls

@figure("rope_frequency_ladder")
def rope_frequency_ladder(*, dim: int = 64, base: float = 10000.0, n_positions: int = 256,
                          show_claim: bool = False) -> go.Figure:
    """Frequency θ_i (rad/token) and wavelength λ_i (tokens) of every pair: pair 0 is the fastest.

    Pairs whose wavelength exceeds the positions shown never complete a turn there. ``show_claim``
    adds the reversed story ("low dimensions are slow") as a dashed curve.
    """
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    theta = rope.inv_freq(dim, base)
    lam = rope.wavelengths(dim, base)
    i = np.arange(theta.size)
    long_ = lam > n_positions
    p = Panels.grid(1, 2, ["frequency θ_i (rad/token)", "wavelength λ_i = 2π/θ_i (tokens)"], hspace=0.12,
                    title_size=16)
    p.add(go.Scatter(x=i, y=theta, mode="lines+markers", name="θ_i = b^(-2i/d)", line=dict(color=COLORS[0]),
                     marker=dict(size=5), hovertemplate="pair %{x}<br>θ = %{y:.4g} rad/token<extra></extra>"), 1)
    if show_claim:
        p.add(go.Scatter(x=i, y=theta[::-1], mode="lines", name="claimed ordering (reversed, wrong)",
                         line=dict(color=COLORS[3], dash="dash"),
                         hovertemplate="claimed: pair %{x} at %{y:.4g} rad/token<extra></extra>"), 1)
    p.add(go.Scatter(x=i, y=lam, mode="markers", name="λ_i",
                     marker=dict(size=6, color=np.where(long_, COLORS[3], COLORS[0])),
                     customdata=np.where(long_, "never turns fully within the positions shown", "turns at least once"),
                     hovertemplate="pair %{x}<br>λ = %{y:.4g} tokens<br>%{customdata}<extra></extra>"), 2)
    p.add(go.Scatter(x=[-0.5, theta.size - 0.5], y=[n_positions, n_positions], mode="lines",
                     name=f"positions shown N = {n_positions}", line=dict(color=COLORS[3], dash="dot"),
                     hovertemplate=f"N = {n_positions}<extra></extra>"), 2)
    p.axis("y", 1, title="θ_i (rad/token, log)", log=True)
    p.axis("y", 2, title="λ_i (tokens, log)", log=True)
    p.axis("x", 1, title="pair i")
    p.axis("x", 2, title="pair i")
    return p.figure(title=f"Pair 0 is the fastest: θ_0 = 1 rad/token, λ_0 = 2π; d = {dim}, b = {base:g}",
                    legend=dict(orientation="h", y=-0.25))


@figure("rope_float32_error")
def rope_float32_error(*, dim: int = 128, base: float = 10000.0, max_position: int = 1_000_000) -> go.Figure:
    """cos/sin error of float32 angles (as transformers computes them) against float64, by position m, with the
    float32 rounding step of m·θ_0 = m (m·2⁻²⁴, dotted): ``rope.float32_error`` at 400 log-spaced positions and
    at every power of ten up to ``max_position`` (``_float32_positions``), so a page can quote drawn values.
    """
    max_position = check_int("max_position", max_position, 10, 100_000_000)
    pos = _float32_positions(max_position)
    err = rope.float32_error(pos, dim, base)
    spacing = pos * float(rope.inv_freq(dim, base)[0]) * 2.0 ** -24
    fig = go.Figure([
        go.Scatter(x=_f32(pos), y=np.maximum(err, 1e-12).astype(np.float32), mode="lines",
                   name="max |cos, sin error| over pairs", line=dict(color=COLORS[3]),
                   hovertemplate="m = %{x:.4g}<br>error = %{y:.2e}<extra></extra>"),
        go.Scatter(x=_f32(pos), y=_f32(spacing), mode="lines", name="float32 rounding of m·θ_0 (≈ m·2⁻²⁴)",
                   line=dict(color="#9aa0b4", dash="dot"), hoverinfo="skip"),
    ])
    top = float(max(err.max(), spacing.max()))
    fig.add_trace(go.Scatter(x=[1e4, 1e4], y=[1e-9, top], mode="lines", name="m = 10⁴",
                             line=dict(color=COLORS[1], dash="dash"), hoverinfo="skip"))
    fig.update_layout(title=f"float32 angle error vs float64, d = {dim}, b = {base:g}",
                      xaxis=dict(type="log", title="position m (tokens, log)"),
                      yaxis=dict(type="log", title="absolute error (log)"), legend=dict(orientation="h", y=-0.25))
    return fig


def _float32_positions(max_position: int) -> np.ndarray:
    """The positions ``rope_float32_error`` draws: 400 log-spaced whole positions from 1 to ``max_position`` and
    every power of ten up to it, sorted and unique."""
    decades = 10.0 ** np.arange(len(str(max_position)))  # 10^0 .. the largest power of ten <= max_position
    return np.union1d(np.round(np.logspace(0, math.log10(max_position), 400)), decades)


# ============================================================================ RoPE from first principles

MAX_TERM_POSITIONS = 192  # rope_additive_terms: four heatmaps of at most 192 × 192 cells (147k in all)
MAX_MATRIX_SHOWN = 16  # rope_derivation draws the top-left 16 × 16 block of R_m at most
MAX_TURN_PAIRS = 8  # rope_qk_turn: small clocks for at most this many pairs (spread fast to slow)
SCHEME_NAMES = {"full": "full RoPE", "partial": "partial RoPE (GPT-NeoX, Phi)",
                "p-rope": "p-RoPE (Barbero et al. 2024)", "decoupled": "decoupled RoPE (DeepSeek MLA)"}
ROLE_COLORS = {"turns": COLORS[0], "under a quarter turn": COLORS[1], "not rotated": COLORS[3]}
_GREY = "#9aa0b4"


def _grid(rows: int, cols: int, *, hspace: float = 0.08, vspace: float = 0.14,
          widths: tuple[float, ...] = (), square: bool = False) -> tuple[dict, list[tuple[str, str, float, float]]]:
    """A rows × cols grid of axes as a plain layout dict (no make_subplots), and each panel's x and y axis
    references with the paper coordinates of its top centre, row by row."""
    w = np.asarray(widths or [1.0] * cols, dtype=float)
    w = w / w.sum() * (1 - hspace * (cols - 1))
    h = (1 - vspace * (rows - 1)) / rows
    layout, panels = {}, []
    for r in range(rows):
        top = 1 - r * (h + vspace)
        for c in range(cols):
            j = r * cols + c + 1
            a = "" if j == 1 else str(j)
            x0 = float(w[:c].sum() + hspace * c)
            layout[f"xaxis{a}"] = dict(domain=[x0, x0 + float(w[c])], anchor=f"y{a}")
            layout[f"yaxis{a}"] = dict(domain=[max(0.0, top - h), top], anchor=f"x{a}")
            if square:
                layout[f"yaxis{a}"].update(scaleanchor=f"x{a}", constrain="domain")
                layout[f"xaxis{a}"].update(constrain="domain")
            panels.append((f"x{a}", f"y{a}", x0 + float(w[c]) / 2, top))
    return layout, panels


def _colored(text: str, color: int) -> str:
    return f"<span style='color:{COLORS[color]}'>{text}</span>"


def _panel_title(text: str, x: float, top: float) -> dict:
    return dict(text=text, x=x, y=top, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                showarrow=False, font=dict(size=13))


def _slider_stops(n_frames: int) -> list[int]:
    """The frames a player's slider stops at: every frame up to MAX_SLIDER_STEPS, else every k-th and the last."""
    stride = math.ceil((n_frames - 1) / (MAX_SLIDER_STEPS - 1))
    return sorted(set(range(0, n_frames, stride)) | {n_frames - 1})


def _player(n_frames: int, labels: list[str], *, duration: int = 90, every: int = 10, still: int = 0) -> dict:
    """Play/pause buttons and a frame slider that run in the browser (the shared ``animation_controls``).

    Above MAX_SLIDER_STEPS frames the slider stops at every k-th frame and the last (plotly draws every step
    on each redraw); Play still shows every frame. Only every ``every``-th stop carries its label. ``still`` is
    the frame the figure's own traces show (a stop of the slider, which starts there).
    """
    stops = _slider_stops(n_frames)
    still = min(stops, key=lambda f: abs(f - still))
    return animation_controls([str(f) for f in stops], [labels[f] if f % every == 0 else "" for f in stops],
                              duration=duration, slider_x=0.24, active=stops.index(still))


# ---------------------------------------------------------------------------- 1. why not just add?

TERM_FORMULAS = {"content·content": "x_mᵀ A x_n", "content·position": "x_mᵀ A p_n",
                 "position·content": "p_mᵀ A x_n", "position·position": "p_mᵀ A p_n"}


@figure("rope_additive_terms")
def rope_additive_terms(*, dim: int = 64, base: float = 10000.0, n_positions: int = 64, seed: int = 0,
                        tokens: str = "same", weights: str = "random") -> go.Figure:
    """The four terms of an additive code's score (x_m + p_m)ᵀ A (x_n + p_n), A = W_qᵀW_k, as (m, n) heatmaps.

    One colour scale for all four, so their sizes compare. Each panel says its RMS and what is left after
    subtracting each diagonal's mean (0 = the term depends on m − n alone). With the same token at every
    position the content·position terms depend on one absolute position; with a learned W even the
    position·position term depends on m and n, not only on m − n.
    """
    n_positions = check_int("n_positions", n_positions, 1, rope.MAX_ADDITIVE)
    terms = rope.additive_score_terms(n_positions, dim, base, seed, tokens, weights)
    step = _stride(n_positions, MAX_TERM_POSITIONS)
    idx = np.arange(0, n_positions, step)
    pos = _f32(idx)
    spread = max(float(np.abs(terms[t]).max()) for t in rope.ADDITIVE_TERMS) or 1.0
    layout, panels = _grid(2, 2, hspace=0.1, vspace=0.16, square=True)
    data, titles = [], []
    for j, name in enumerate(rope.ADDITIVE_TERMS):
        xa, ya, cx, top = panels[j]
        z = terms[name]
        rms, res = float(np.sqrt(np.mean(z**2))), rope.off_offset_residual(z)
        data.append(dict(type="heatmap", z=_f32(z[np.ix_(idx, idx)]), x=pos, y=pos, xaxis=xa, yaxis=ya,
                         colorscale=DIVERGING, zmin=-spread, zmax=spread, meta="diverging", showscale=j == 1,
                         colorbar=dict(title="score term", len=0.9), name=name,
                         hovertemplate=f"{name}<br>query m = %{{y}}<br>key n = %{{x}}<br>"
                                       "value = %{z:.4f}<extra></extra>"))
        titles.append(_panel_title(f"{TERM_FORMULAS[name]} ({name})<br>RMS {rms:.3g}, RMS along diagonals {res:.2g}",
                                   cx, top))
        layout[f"yaxis{'' if j == 0 else j + 1}"].update(autorange="reversed", title="query m" if j % 2 == 0 else None)
        layout[f"xaxis{'' if j == 0 else j + 1}"].update(title="key n" if j >= 2 else None)
    what = "one token everywhere" if tokens == "same" else "random tokens"
    w = "learned W" if weights == "random" else "W = I"
    layout.update(title=f"Additive code, four terms: {what}, {w}, d = {dim}" + _every(step),
                  annotations=titles, height=760, margin=dict(t=110))
    return go.Figure(data=data, layout=layout)


# ---------------------------------------------------------------------------- 2. derive the rotation

def _arrow(x: float, y: float, name: str, color: str, *, dash: str = "solid", xa: str = "x", ya: str = "y",
           hover: str = "") -> dict:
    return dict(type="scatter", x=[0.0, x], y=[0.0, y], mode="lines+markers", name=name, xaxis=xa, yaxis=ya,
                line=dict(color=color, width=3, dash=dash),
                marker=dict(size=[0, 14], symbol="arrow", angleref="previous", color=color),
                hovertemplate=f"{hover or name}<br>(%{{x:.3f}}, %{{y:.3f}})<extra></extra>")


def _arc(a0: float, a1: float, r: float) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(a0, a1, max(8, int(abs(a1 - a0) * 12)))
    return _f32(r * np.cos(t)), _f32(r * np.sin(t))


@figure("rope_derivation")
def rope_derivation(*, dim: int = 8, base: float = 10000.0, m: float = 5.0, n: float = 2.0, pair: int = 0,
                    seed: int = 0) -> go.Figure:
    """Left: pair i of q and k in the complex plane, q turned by m·θ_i (times e^{jmθ_i}, j² = −1), k by n·θ_i.
    Right: RoFormer's block-diagonal R_m, d/2 independent 2-D rotations.

    Hands are drawn at length 1 (a rotation keeps each pair's length; the angles are what the picture is about).
    The angle between the turned hands is arg z^q − arg z^k + (m − n)θ_i: only m − n enters. Rotations
    are counter-clockwise ((u, v) → (u cos a − v sin a, u sin a + v cos a)).
    """
    q, k = rope.sample_qk(dim, seed)
    pair = check_int("pair", pair, 0, dim // 2 - 1)
    theta = float(rope.inv_freq(dim, base)[pair])
    hands = rope.qk_pairs(q, k, [0.0, m], [0.0, n], base)
    unit = hands["q"][:, pair] / np.linalg.norm(hands["q"][0, pair]), hands["k"][:, pair] / np.linalg.norm(
        hands["k"][0, pair])  # (2, 2) each: the hands at length 1 (a rotation keeps lengths)
    (q0, qm), (k0, kn) = unit
    r = 1.0
    shown = min(dim, MAX_MATRIX_SHOWN)
    mat = rope.block_rotation(m, dim, base)[:shown, :shown]
    layout, panels = _grid(1, 2, hspace=0.12, widths=(1.0, 1.0))
    a_q, a_k = float(np.arctan2(q0[1], q0[0])), float(np.arctan2(k0[1], k0[0]))
    between = float(hands["angle"][1, pair])
    ring = np.linspace(0, 2 * np.pi, 121)
    data = [dict(type="scatter", x=_f32(r * np.cos(ring)), y=_f32(r * np.sin(ring)), mode="lines",
                 line=dict(color=_GREY, width=1), hoverinfo="skip", showlegend=False)]
    for a0, turn, rad, color, label in ((a_q, m * theta, 0.32, COLORS[0], f"m·θ_{pair} = {m * theta:.3g} rad"),
                                        (a_k, n * theta, 0.22, COLORS[2], f"n·θ_{pair} = {n * theta:.3g} rad")):
        ax, ay = _arc(a0, a0 + min(turn, 2 * np.pi), rad * r)
        data.append(dict(type="scatter", x=ax, y=ay, mode="lines", line=dict(color=color, dash="dot"), name=label,
                         hoverinfo="skip"))
    data += [
        _arrow(*q0, "q (pair at position 0)", COLORS[0], dash="dot"),
        _arrow(*k0, "k (pair at position 0)", COLORS[2], dash="dot"),
        _arrow(*qm, f"e^(jmθ)·q, m = {m:g}", COLORS[0]),
        _arrow(*kn, f"e^(jnθ)·k, n = {n:g}", COLORS[2]),
    ]
    bx, by = _arc(float(np.arctan2(kn[1], kn[0])), float(np.arctan2(kn[1], kn[0])) + between, 0.5 * r)
    data.append(dict(type="scatter", x=bx, y=by, mode="lines", line=dict(color=COLORS[3], width=2),
                     name=f"angle k → q = {between:.3f} rad", hoverinfo="skip"))
    data.append(dict(type="heatmap", z=_f32(mat), x=np.arange(shown), y=np.arange(shown), xaxis="x2", yaxis="y2",
                     colorscale=DIVERGING, zmin=-1, zmax=1, meta="diverging", showscale=True,
                     colorbar=dict(title="entry", len=0.8, x=1.02), name="R_m",
                     hovertemplate="row %{y}, column %{x}<br>R_m entry = %{z:.4f}<extra></extra>"))
    layout["xaxis"].update(range=[-1.2, 1.2], title="Re (channel 2i)", zeroline=True)
    layout["yaxis"].update(range=[-1.2, 1.2], title="Im (channel 2i+1)", scaleanchor="x", zeroline=True)
    layout["xaxis2"].update(title="column (channel)", constrain="domain")
    layout["yaxis2"].update(title="row (channel)", autorange="reversed", scaleanchor="x2", constrain="domain")
    cut = "" if shown == dim else f" (top-left {shown} × {shown} of {dim} × {dim})"
    layout.update(
        title=f"From one plane to d/2 planes: θ_{pair} = {theta:.4g} rad/token, b = {base:g}",
        annotations=[_panel_title(f"pair {pair} in the complex plane", panels[0][2], panels[0][3]),
                     _panel_title(f"R_m at m = {m:g}: {dim // 2} blocks R(m·θ_i){cut}", panels[1][2], panels[1][3])],
        height=520, legend=dict(orientation="h", y=-0.18, x=0), margin=dict(t=90, b=130))
    return go.Figure(data=data, layout=layout)


# ---------------------------------------------------------------------------- 3. q and k turning together

@figure("rope_qk_turn", animated=True)
def rope_qk_turn(*, dim: int = 8, base: float = 10000.0, m: float = 5.0, n: float = 2.0, pair: int = 0,
                 c_max: float = 24.0, n_frames: int = 49, seed: int = 0, layout: str = "interleaved") -> go.Figure:
    """q at m + c and k at n + c for a shift c from 0 to c_max: both hands turn, their angle and the score stay.

    Left: pair i, large, with the angle from k's hand to q's hand. Right: up to 8 pairs (spread from the
    fastest to the slowest), each turning at its own speed θ_i, each keeping its own angle. The status line
    gives, frame by frame, c, both positions, pair i's angle and share of the score, and the whole score
    (computed at the shifted positions). Plays in the browser: plotly frames, play/pause and a slider.
    """
    n_frames = check_int("n_frames", n_frames, 2, MAX_FRAMES)
    c_max = check_float("c_max", c_max, 0.0, 1e6, lo_open=True)
    m = check_float("m", m, 0.0, 1e6)
    n = check_float("n", n, 0.0, 1e6)
    layout = check_choice("layout", layout, rope.LAYOUTS)
    q, k = rope.sample_qk(dim, seed)
    pair = check_int("pair", pair, 0, dim // 2 - 1)
    shifts = np.linspace(0.0, c_max, n_frames)  # (F,)
    hands = rope.qk_pairs(q, k, m + shifts, n + shifts, base, layout)  # q, k: (F, d/2, 2)
    total = hands["score"].sum(axis=1)  # (F,) the whole score at every shift
    sel = np.unique(np.concatenate([[pair], clock_pairs(dim // 2, "spread")[:: max(1, math.ceil(
        min(dim // 2, SPREAD_PAIRS) / MAX_TURN_PAIRS))]]))[:MAX_TURN_PAIRS]  # (P,)
    def unit(h: np.ndarray) -> np.ndarray:  # (F, d/2, 2): every hand at length 1 (a rotation keeps lengths)
        length = np.linalg.norm(h[0], axis=-1)  # (d/2,)
        return h / np.where(length > 0, length, 1.0)[None, :, None]

    hq, hk = unit(hands["q"]), unit(hands["k"])
    theta = rope.inv_freq(dim, base)
    n_sel = sel.size
    ncols = min(4, n_sel)
    nrows = math.ceil(n_sel / ncols)
    cx = (np.arange(n_sel) % ncols) * 2.6  # (P,)
    cy = -(np.arange(n_sel) // ncols) * 3.0  # (P,)

    def big(f: int) -> list[dict]:
        a_k = float(np.arctan2(hk[f, pair, 1], hk[f, pair, 0]))
        ax, ay = _arc(a_k, a_k + float(hands["angle"][f, pair]), 0.45)
        return [dict(type="scatter", x=_typed([0, hq[f, pair, 0]]), y=_typed([0, hq[f, pair, 1]])),
                dict(type="scatter", x=_typed([0, hk[f, pair, 0]]), y=_typed([0, hk[f, pair, 1]])),
                dict(type="scatter", x=_typed(ax), y=_typed(ay))]

    def small(f: int, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.stack([cx, cx + h[f, sel, 0], np.full(n_sel, np.nan)], axis=1).ravel()  # (3P,)
        y = np.stack([cy, cy + h[f, sel, 1], np.full(n_sel, np.nan)], axis=1).ravel()
        return x, y

    def status(f: int) -> str:
        return (f"c = {shifts[f]:.3g}: q at m + c = {m + shifts[f]:.4g}, k at n + c = {n + shifts[f]:.4g} "
                f"(m − n = {m - n:g})<br>pair {pair}: angle k → q = {hands['angle'][f, pair]:+.4f} rad, "
                f"share of the score = {hands['score'][f, pair]:+.4f}; whole score q·k = {total[f]:+.4f}")

    def frame_traces(f: int) -> list[dict]:
        sq, sk = small(f, hq), small(f, hk)
        return big(f) + [dict(type="scatter", x=_typed(sq[0]), y=_typed(sq[1])),
                         dict(type="scatter", x=_typed(sk[0]), y=_typed(sk[1])),
                         dict(type="scatter", text=[status(f)])]

    ring = np.linspace(0, 2 * np.pi, 61)
    rings_x = np.concatenate([np.append(x0 + np.cos(ring), np.nan) for x0 in cx])
    rings_y = np.concatenate([np.append(y0 + np.sin(ring), np.nan) for y0 in cy])
    first = frame_traces(0)
    line = dict(width=3)
    data = [
        dict(type="scatter", x=_f32(np.cos(ring)), y=_f32(np.sin(ring)), mode="lines", hoverinfo="skip",
             line=dict(color=_GREY, width=1), name="circle", showlegend=False),
        dict(first[0], mode="lines+markers", name=f"q's pair {pair} at m + c", line=dict(color=COLORS[0], **line),
             marker=dict(size=[0, 14], symbol="arrow", angleref="previous", color=COLORS[0]), hoverinfo="skip"),
        dict(first[1], mode="lines+markers", name=f"k's pair {pair} at n + c", line=dict(color=COLORS[2], **line),
             marker=dict(size=[0, 14], symbol="arrow", angleref="previous", color=COLORS[2]), hoverinfo="skip"),
        dict(first[2], mode="lines", name="angle k → q (constant)", line=dict(color=COLORS[3], width=2),
             hoverinfo="skip"),
        dict(type="scatter", x=_f32(rings_x), y=_f32(rings_y), xaxis="x2", yaxis="y2", mode="lines",
             line=dict(color=_GREY, width=1), hoverinfo="skip", name="pairs", showlegend=False),
        dict(first[3], xaxis="x2", yaxis="y2", mode="lines", line=dict(color=COLORS[0], width=2), hoverinfo="skip",
             name="q's pairs", showlegend=False),
        dict(first[4], xaxis="x2", yaxis="y2", mode="lines", line=dict(color=COLORS[2], width=2), hoverinfo="skip",
             name="k's pairs", showlegend=False),
        dict(first[5], x=[0.0], y=[0.5], mode="text", textposition="middle right", hoverinfo="skip",
             xaxis="x3", yaxis="y3", name="status", showlegend=False, textfont=dict(size=13)),
        dict(type="scatter", x=_f32(cx), y=_f32(cy - 1.35), xaxis="x2", yaxis="y2", mode="text", hoverinfo="skip",
             text=[f"i={i}, θ={theta[i]:.2g}" for i in sel], textfont=dict(size=11), name="pair labels",
             showlegend=False),
    ]
    traces = [1, 2, 3, 5, 6, 7]
    frames = [go.Frame(dict(data=frame_traces(f), traces=traces, name=str(f)), _validate=False)
              for f in range(n_frames)]
    span_x = [-1.3, (ncols - 1) * 2.6 + 1.3]
    span_y = [-(nrows - 1) * 3.0 - 1.7, 1.3]
    fig_layout = dict(
        title=f"q and k, shifted together: d = {dim}, b = {base:g}",  # m and n are in the status line
        showlegend=False, hovermode=False, height=560, margin=dict(l=10, r=10, t=60, b=90),
        xaxis=dict(domain=[0.0, 0.42], range=[-1.25, 1.25], visible=False, constrain="domain"),
        yaxis=dict(domain=[0.0, 0.8], range=[-1.25, 1.25], visible=False, scaleanchor="x", constrain="domain"),
        xaxis2=dict(domain=[0.48, 1.0], range=span_x, visible=False, constrain="domain"),
        yaxis2=dict(domain=[0.0, 0.8], range=span_y, visible=False, scaleanchor="x2", constrain="domain"),
        xaxis3=dict(domain=[0.0, 1.0], range=[0, 1], visible=False, fixedrange=True),
        yaxis3=dict(domain=[0.9, 1.0], range=[0, 1], visible=False, fixedrange=True),
        annotations=[_panel_title(f"pair {pair}: {_colored('q at m + c', 0)}, {_colored('k at n + c', 2)}, "
                                  f"{_colored('angle', 3)}", 0.21, 0.81),
                     _panel_title("each pair at its own speed", 0.74, 0.81)],
        **_player(n_frames, [f"{c:.3g}" for c in shifts], every=12 if (n_frames - 1) % 12 == 0 else 8),
    )
    fig_layout["sliders"][0]["currentvalue"] = dict(visible=False)
    fig = go.Figure(data=data, layout=fig_layout)
    fig.frames = frames
    return fig


# ---------------------------------------------------------------------------- 5. left or right, fairly

@figure("rope_left_right")
def rope_left_right(*, dim: int = 64, base: float = 10000.0, max_offset: int = 64, c: int = 4,
                    seed: int = 0) -> go.Figure:
    """Score against Δ = m − n, like with like: RoPE (left) and an absolute code with a learned W (right).

    Solid: query at a = max_offset; dotted: at a + c. RoPE's two curves coincide (the score depends on
    Δ alone) and are not even in Δ for q ≠ k; with q = k (grey) RoPE is even. The absolute code with a
    learned W is direction-aware too, but its curve moves with a; with W = I (grey) it is even.
    """
    cur = rope.left_right_curves(dim, base, max_offset, c, seed)
    x = _f32(cur["deltas"])
    a = max_offset
    layout, panels = _grid(1, 2, hspace=0.08)
    spec = (("rope_a", "x", "y", COLORS[0], "solid", f"RoPE, q ≠ k, query at {a}"),
            ("rope_ac", "x", "y", COLORS[1], "dot", f"RoPE, q ≠ k, query at {a + c}"),
            ("rope_same", "x", "y", _GREY, "solid", "RoPE, q = k"),
            ("abs_a", "x2", "y2", COLORS[0], "solid", f"absolute + learned W, query at {a}"),
            ("abs_ac", "x2", "y2", COLORS[1], "dot", f"absolute + learned W, query at {a + c}"),
            ("abs_identity", "x2", "y2", _GREY, "solid", "absolute, W = I (PE·PE)"))
    data = [dict(type="scatter", x=x, y=_f32(cur[key]), xaxis=xa, yaxis=ya, mode="lines", name=label,
                 line=dict(color=color, dash=dash, width=3 if dash == "dot" else 2),
                 hovertemplate=f"{label}<br>Δ = %{{x}}<br>score = %{{y:.4f}}<extra></extra>")
            for key, xa, ya, color, dash, label in spec]
    for axis in ("xaxis", "xaxis2"):
        layout[axis].update(title="Δ = m − n (key to the left: Δ > 0)")
    layout["yaxis"].update(title="score")
    layout.update(title=f"Left or right, like with like: d = {dim}, b = {base:g}, queries at {a} and {a + c}",
                  annotations=[_panel_title("RoPE: (R_m q)·(R_n k)", panels[0][2], panels[0][3]),
                               _panel_title("absolute: p_mᵀ W_qᵀW_k p_n", panels[1][2], panels[1][3])],
                  height=520, legend=dict(orientation="h", y=-0.2, x=0), margin=dict(t=90, b=150))
    return go.Figure(data=data, layout=layout)


# ---------------------------------------------------------------------------- 6. which pairs matter

@figure("rope_pair_roles")
def rope_pair_roles(*, dim: int = 64, base: float = 10000.0, scheme: str = "p-rope", fraction: float = 0.75,
                    context: int = 4096) -> go.Figure:
    """Turns each pair makes within the context L, for a RoPE variant against full RoPE (hollow grey).

    Pairs in the head's channel order, turns = L·|θ_i|/2π (``rope.turns_within``). Blue pairs turn; orange pairs
    turn less than a quarter turn within L, so cos(Δθ_i) > 0 for every |Δ| <= L (a nearly position-free,
    semantic channel; ``rope.pair_roles``); red crosses are not rotated at all (frequency 0, drawn on the floor
    of the log axis).
    """
    context = check_int("context", context, 1, 10**7)
    freqs = rope.pair_frequencies(dim, base, scheme, fraction)
    full = rope.turns_within(rope.inv_freq(dim, base), context)
    turns = rope.turns_within(freqs, context)
    roles = rope.pair_roles(freqs, context)
    floor = float(min(full.min(), turns[turns > 0].min() if (turns > 0).any() else 1.0)) / 4
    i = np.arange(dim // 2)
    data = [dict(type="scatter", x=i, y=_f32(full), mode="markers", name="full RoPE (reference)",
                 marker=dict(symbol="circle-open", size=9, color=_GREY),
                 hovertemplate="pair %{x}, full RoPE<br>%{y:.3g} turns within L<extra></extra>")]
    for role, symbol in (("turns", "circle"), ("under a quarter turn", "diamond"), ("not rotated", "x")):
        sel = roles == role
        if sel.any():
            y = np.where(turns[sel] > 0, turns[sel], floor)
            data.append(dict(type="scatter", x=i[sel], y=_f32(y), mode="markers", name=f"{role} ({int(sel.sum())})",
                             marker=dict(symbol=symbol, size=8, color=ROLE_COLORS[role]),
                             customdata=_f32(freqs[sel]),
                             hovertemplate=f"pair %{{x}}: {role}<br>θ = %{{customdata:.3g}} rad/token"
                                           "<br>%{y:.3g} turns within L<extra></extra>"))
    for level, label, dash in ((0.25, "a quarter turn", "dot"), (1.0, "one turn", "dash")):
        data.append(dict(type="scatter", x=[-0.5, dim // 2 - 0.5], y=[level, level], mode="lines", name=label,
                         line=dict(color=_GREY, dash=dash, width=1), hoverinfo="skip"))
    rotated = int((freqs > 0).sum())
    return go.Figure(data=data, layout=dict(
        title=f"Turns per pair within L = {context:,}: {SCHEME_NAMES[scheme]}, {rotated} of {dim // 2} pairs rotate",
        xaxis=dict(title="pair (head's channel order)"),
        yaxis=dict(title="turns within L = L·|θ_i|/2π (log)", type="log"),
        legend=dict(orientation="h", y=-0.2, x=0), height=480, margin=dict(b=130)))


# ---------------------------------------------------------------------------- 7. choosing the base

@figure("rope_base_choice")
def rope_base_choice(*, dim: int = 64, base: float = 10000.0, train_length: int = 4096) -> go.Figure:
    """The slowest pair's wavelength 2π·b^((d−2)/d) against the base b, beside the training length L.

    Left axis: the wavelength (log); the dashed line is L; the marked base b* = (L/2π)^(d/(d−2)) is where
    the slowest pair completes exactly one turn in L. Right axis (steps): how many pairs have a wavelength
    longer than L, i.e. never complete a turn during training.
    """
    dim = check_int("dim", dim, 2, rope.MAX_DIM, even=True)
    train_length = check_int("train_length", train_length, 8, 10**7)
    base = check_float("base", base, 1.0, 1e12, lo_open=True)
    lo, hi = 1.0, max(9.0, math.log10(base) + 1)
    bases = np.logspace(lo, hi, 241)  # (B,)
    lam = rope.slowest_wavelengths(dim, bases)
    longer = np.array([(rope.wavelengths(dim, b) > train_length).sum() for b in bases])  # (B,)
    here = float(rope.slowest_wavelengths(dim, [base])[0])
    n_here = int((rope.wavelengths(dim, base) > train_length).sum())
    # b* exists for d >= 4 (at d = 2 the only pair has θ_0 = 1 whatever b is) and is shown up to the largest base
    star = float("nan")
    if dim >= 4:
        with contextlib.suppress(ValueError):  # b* above the largest base: not drawn
            star = rope.base_for_wavelength(dim, float(train_length))
    data = [
        dict(type="scatter", x=_f32(bases), y=_f32(lam), mode="lines", name="slowest wavelength λ_(d/2−1)",
             line=dict(color=COLORS[0], width=3),
             hovertemplate="b = %{x:.3g}<br>slowest λ = %{y:.3g} tokens<extra></extra>"),
        dict(type="scatter", x=[bases[0], bases[-1]], y=[train_length, train_length], mode="lines",
             name=f"training length L = {train_length:,}", line=dict(color=COLORS[3], dash="dash"),
             hoverinfo="skip"),
        dict(type="scatter", x=_f32(bases), y=longer, yaxis="y2", mode="lines", line=dict(color=COLORS[2], shape="hv"),
             name="pairs with λ_i > L (right axis)",
             hovertemplate="b = %{x:.3g}<br>%{y} pairs never turn fully within L<extra></extra>"),
        dict(type="scatter", x=[base], y=[here], mode="markers",
             name=f"b = {base:g}: slowest λ = {here:,.0f}, {n_here} of {dim // 2} pairs with λ_i > L",
             marker=dict(size=13, color=COLORS[1], line=dict(color="#1f2330", width=1)),
             hovertemplate="b = %{x:.3g}<br>slowest λ = %{y:.4g}<extra></extra>"),
    ]
    if math.isfinite(star) and bases[0] <= star <= bases[-1]:
        data.append(dict(type="scatter", x=[star], y=[train_length], mode="markers", name=f"b* = {star:,.0f}",
                         marker=dict(symbol="diamond", size=12, color=COLORS[3]),
                         hovertemplate="b* = %{x:.4g}: slowest λ = L<extra></extra>"))
    return go.Figure(data=data, layout=dict(
        title=f"Choosing the base: the slowest pair against L = {train_length:,}, d = {dim}",
        xaxis=dict(title="base b (rope_theta, log)", type="log"),
        yaxis=dict(title="slowest wavelength (tokens, log)", type="log"),
        yaxis2=dict(title="pairs with λ_i > L", overlaying="y", side="right", range=[0, dim // 2 + 0.5],
                    showgrid=False, tickmode="linear", tick0=0, dtick=max(1, 2 ** round(math.log2(dim / 16)))),
        legend=dict(orientation="h", y=-0.22, x=0), height=500, margin=dict(b=140, r=80)))
