"""Figures of the RoPE lesson's score: the (m, n) grid whose diagonals are constant (``rope_score_grid``, with a
zoom on the cells a caption quotes), left against right like with like (``rope_left_right``, and the bare
contrast with sinusoidal PE·PE, ``rope_vs_sinusoidal``), and the norm a rotation keeps (``rope_norms``).
Every number comes from ``posviz.rope`` (and ``posviz.sinusoidal`` for the contrast).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import rope, sinusoidal
from posviz._validate import check_choice, check_int
from posviz.figures._common import Panels, f32
from posviz.figures._registry import figure
from posviz.figures._rope_draw import GREY, every, stride
from posviz.i18n import N_, _
from posviz.theme import COLORS, DIVERGING

__all__ = ["rope_score_grid", "rope_vs_sinusoidal", "rope_norms", "rope_left_right"]

MAX_GRID_POSITIONS = 256  # the (m, n) score heatmap shows at most this many positions per axis
LAYOUT_NAMES = {"interleaved": N_("interleaved (RoFormer, Meta)"), "half": N_("half-split (GPT-NeoX, HF)"),
                "mixed": N_("mixed (buggy)")}


# ---------------------------------------------------------------------------- the relative property

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
    step = stride(n_positions, MAX_GRID_POSITIONS)
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    s = rope.score_grid(q, k, pos, base, layout, swap=bool(swap))  # (T', T')
    spread = float(np.abs(s).max()) or 1.0
    fig = go.Figure(go.Heatmap(
        z=f32(s), x=f32(pos), y=f32(pos), colorscale=DIVERGING, zmid=0, zmin=-spread, zmax=spread,
        meta="diverging", colorbar=dict(title=_("score")),
        hovertemplate=_("query m = %{y}<br>key n = %{x}<br>score = %{z:.4f}<extra></extra>")))
    named = _(LAYOUT_NAMES[layout])
    title = _("Score q_m·k_n, {layout} with q and k swapped", layout=named) if swap else _(
        "Score q_m·k_n, {layout}", layout=named)
    note = _score_marks(fig, q, k, m, n, c, n_positions, base, layout, bool(swap)) if min(m, n) >= 0 else ""
    fig.update_layout(title=title + every(step) + note,
                      xaxis=dict(title=_("key position n"), constrain="domain"),
                      yaxis=dict(title=_("query position m"), autorange="reversed", scaleanchor="x",
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
    fig.add_trace(go.Heatmap(z=f32(s), x=f32(cols), y=f32(rows), colorscale=DIVERGING, zmid=0, zmin=-spread,
                             zmax=spread, meta="diverging", showscale=False, xaxis="x2", yaxis="y2",
                             name=_("zoom on the marked cells"),
                             hovertemplate=_("query m = %{y}<br>key n = %{x}<br>score = %{z:.4f}<extra></extra>")))
    for t in marks:
        fig.add_trace(go.Scatter(t).update(showlegend=False, xaxis="x2", yaxis="y2"))
    for t in marks:  # on the whole grid the marks only locate the zoom
        if t.mode == "markers":
            t.marker.size = 9
    half = 0.45
    fig.update_layout(
        xaxis=dict(domain=[0.0, half]),
        xaxis2=dict(domain=[1 - half, 1.0], anchor="y2", title=_("key position n"),
                    range=[cols[0] - 0.5, cols[-1] + 0.5],
                    constrain="domain"),
        yaxis2=dict(anchor="x2", range=[rows[-1] + 0.5, rows[0] - 0.5], scaleanchor="x2", constrain="domain"),
        annotations=[dict(xref=f"{x} domain", yref=f"{y} domain", x=0.5, y=1.0, yanchor="bottom", showarrow=False,
                          text=text) for x, y, text in (
            ("x", "y", _("every position")),
            ("x2", "y2", _("zoom: m = {first_m}…{last_m}, n = {first_n}…{last_n}", first_m=int(rows[0]),
                           last_m=int(rows[-1]), first_n=int(cols[0]), last_n=int(cols[-1]))))],
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
                                 name=_("the diagonal m − n = {offset}", offset=delta),
                                 line=dict(color=COLORS[1], dash="dash",
                                                                                 width=1.5)))
    cells = [(m, n, "(m, n)"), (m + c, n + c, "(m + c, n + c)")]
    inside = [(a, b, label) for a, b, label in cells if a <= last and b <= last]
    for j, (a, b, label) in enumerate(inside):
        value = rope.score(q, k, b, a, base, layout) if swap else rope.score(q, k, a, b, base, layout)
        fig.add_trace(go.Scatter(x=[b], y=[a], mode="markers",
                                 name=_("{cell} = ({query}, {key}): score {score:.4f}", cell=label, query=a, key=b,
                                        score=value),
                                 marker=dict(symbol=["square-open", "circle-open"][j], size=16, color=COLORS[1],
                                             line=dict(width=3)),
                                 hovertemplate=_("{cell}: query {query}, key {key}<br>score {score:.6f}"
                                                 "<extra></extra>", cell=label, query=a, key=b, score=value)))
    missing = [label for a, b, label in cells if a > last or b > last]
    if not missing:
        return ""
    if len(missing) == 2:
        return _(" — {first} and {second} beyond the positions shown", first=missing[0], second=missing[1])
    return _(" — {cell} beyond the positions shown", cell=missing[0])


@figure("rope_vs_sinusoidal")
def rope_vs_sinusoidal(*, dim: int = 64, base: float = 10000.0, max_offset: int = 64, seed: int = 0) -> go.Figure:
    """Score against offset Δ = m - n: RoPE (seeded q, k) is not mirror-symmetric; sinusoidal PE·PE is.

    The raw sinusoidal dot product PE(p)·PE(p+Δ) = Σ cos(Δ w_i) (W = I) is even in Δ; RoPE's score has a
    sine term that flips sign with Δ. For the fair comparison (a learned W, q = k) see ``rope_left_right``.
    """
    max_offset = check_int("max_offset", max_offset, 1, 8192)
    q, k = rope.sample_qk(dim, seed)
    step = stride(2 * max_offset + 1, 4001)
    deltas = np.arange(-max_offset, max_offset + 1, step, dtype=np.float64)
    r = rope.relative_scores(q, k, deltas, base)
    r_mirror = rope.relative_scores(q, k, -deltas, base)
    s = sinusoidal.dot_by_offset(deltas, dim, base)
    p = Panels.grid(2, 1, [_("RoPE: q_m·k_n depends on the sign of Δ"),
                           _("sinusoidal PE(p)·PE(p+Δ): the same for +Δ and -Δ")], vspace=0.12, title_size=16)
    p.add(go.Scatter(x=f32(deltas), y=f32(r), name=_("RoPE score at Δ"), line=dict(color=COLORS[0]),
                     hovertemplate=_("Δ = %{x}<br>score = %{y:.4f}<extra>RoPE</extra>")), 1)
    p.add(go.Scatter(x=f32(deltas), y=f32(r_mirror), name=_("RoPE score at -Δ (mirror)"),
                     line=dict(color=COLORS[1], dash="dot"),
                     hovertemplate=_("Δ = %{x}<br>score at -Δ = %{y:.4f}<extra>mirror</extra>")), 1)
    p.add(go.Scatter(x=f32(deltas), y=f32(s), name=_("sinusoidal Σ cos(Δ w_i)"), line=dict(color=COLORS[2]),
                     hovertemplate=_("Δ = %{x}<br>PE·PE = %{y:.4f}<extra>sinusoidal</extra>")), 2)
    p.axis("x", 1, matches="x2", showticklabels=False)  # one offset axis, labelled under the lower panel
    p.axis("x", 2, title=_("offset Δ = m - n (tokens)"))
    p.axis("y", 1, title=_("score"))
    p.axis("y", 2, title=_("dot product"))
    return p.figure(title=_("Left or right? d = {dim}, b = {base:g}", dim=dim, base=base) + every(step, "offset"),
                    height=560,
                    legend=dict(orientation="h", y=-0.18))


@figure("rope_norms")
def rope_norms(*, dim: int = 64, base: float = 10000.0, n_positions: int = 256, seed: int = 0) -> go.Figure:
    """‖R_m q‖ / ‖q‖ against m: exactly 1 for both real layouts, drifting for the mixed one."""
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    q = rope.sample_qk(dim, seed)[0]
    step = stride(n_positions, 2048)
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    fig = go.Figure()
    for i, layout in enumerate(rope.TEACHING_LAYOUTS):
        ratio = rope.norm_ratio(q, pos, base, layout)
        fig.add_trace(go.Scatter(x=f32(pos), y=ratio.astype(np.float32), name=_(LAYOUT_NAMES[layout]),
                                 line=dict(color=COLORS[[0, 2, 3][i]], dash=["solid", "dash", "solid"][i]),
                                 hovertemplate="m = %{x}<br>‖R_m q‖/‖q‖ = %{y:.5f}<extra></extra>"))
    fig.update_layout(title=_("Norm after rotation ÷ norm before") + every(step),
                      xaxis_title=_("position m (tokens)"), yaxis_title="‖R_m q‖ / ‖q‖",
                      legend=dict(orientation="h", y=-0.25))
    return fig



# ---------------------------------------------------------------------------- left or right, fairly

@figure("rope_left_right")
def rope_left_right(*, dim: int = 64, base: float = 10000.0, max_offset: int = 64, c: int = 4,
                    seed: int = 0) -> go.Figure:
    """Score against Δ = m − n, like with like: RoPE (left) and an absolute code with a learned W (right).

    Solid: query at a = max_offset; dotted: at a + c. RoPE's two curves coincide (the score depends on
    Δ alone) and are not even in Δ for q ≠ k; with q = k (grey) RoPE is even. The absolute code with a
    learned W is direction-aware too, but its curve moves with a; with W = I (grey) it is even.
    """
    cur = rope.left_right_curves(dim, base, max_offset, c, seed)
    x = f32(cur["deltas"])
    a = max_offset
    g = Panels.grid(1, 2, ["RoPE: (R_m q)·(R_n k)", _("absolute: p_mᵀ W_qᵀW_k p_n")], hspace=0.08, title_size=13)
    spec = (("rope_a", 1, COLORS[0], "solid", _("RoPE, q ≠ k, query at {position}", position=a)),
            ("rope_ac", 1, COLORS[1], "dot", _("RoPE, q ≠ k, query at {position}", position=a + c)),
            ("rope_same", 1, GREY, "solid", "RoPE, q = k"),
            ("abs_a", 2, COLORS[0], "solid", _("absolute + learned W, query at {position}", position=a)),
            ("abs_ac", 2, COLORS[1], "dot", _("absolute + learned W, query at {position}", position=a + c)),
            ("abs_identity", 2, GREY, "solid", _("absolute, W = I (PE·PE)")))
    for key, panel, color, dash, label in spec:
        g.scatter(panel, x=x, y=f32(cur[key]), mode="lines", name=label,
                  line=dict(color=color, dash=dash, width=3 if dash == "dot" else 2),
                  hovertemplate=_("{label}<br>Δ = %{{x}}<br>score = %{{y:.4f}}<extra></extra>", label=label))
    for panel in (1, 2):
        g.axis("x", panel, title=_("Δ = m − n (key to the left: Δ > 0)"))
    g.axis("y", 1, title=_("score"))
    return g.figure(title=_("Left or right, like with like: d = {dim}, b = {base:g}, queries at {first} and {second}",
                            dim=dim, base=base, first=a, second=a + c),
                    height=520, legend=dict(orientation="h", y=-0.2, x=0), margin=dict(t=90, b=150))
