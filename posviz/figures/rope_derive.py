"""Figures of the RoPE lesson's first principles: why adding a position code cannot give a relative score (the four
terms of the score, ``rope_additive_terms``) and the rotation derived, one plane and then d/2 of them
(``rope_derivation``). Every number comes from ``posviz.rope``; the panels are the kit's ``Panels``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import rope
from posviz._validate import check_int
from posviz.figures._common import Panels, f32
from posviz.figures._registry import figure
from posviz.figures._rope_draw import GREY, arc, every, stride
from posviz.i18n import N_, _
from posviz.theme import COLORS, DIVERGING

__all__ = ["rope_additive_terms", "rope_derivation"]

MAX_TERM_POSITIONS = 192  # rope_additive_terms: four heatmaps of at most 192 × 192 cells (147k in all)
MAX_MATRIX_SHOWN = 16  # rope_derivation draws the top-left 16 × 16 block of R_m at most
TERM_FORMULAS = {"content·content": "x_mᵀ A x_n", "content·position": "x_mᵀ A p_n",
                 "position·content": "p_mᵀ A x_n", "position·position": "p_mᵀ A p_n"}
# the terms' names as a student reads them (rope.ADDITIVE_TERMS, and the score they add up to)
TERM_NAMES = {"content·content": N_("content·content"), "content·position": N_("content·position"),
              "position·content": N_("position·content"), "position·position": N_("position·position"),
              "full": N_("full")}


# ---------------------------------------------------------------------------- why not just add?

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
    step = stride(n_positions, MAX_TERM_POSITIONS)
    idx = np.arange(0, n_positions, step)
    pos = f32(idx)
    spread = max(float(np.abs(terms[t]).max()) for t in rope.ADDITIVE_TERMS) or 1.0
    titles = [_("{formula} ({term})<br>RMS {rms:.3g}, RMS along diagonals {residual:.2g}",
                formula=TERM_FORMULAS[name], term=_(TERM_NAMES[name]), rms=np.sqrt(np.mean(terms[name] ** 2)),
                residual=rope.off_offset_residual(terms[name])) for name in rope.ADDITIVE_TERMS]
    g = Panels.grid(2, 2, titles, hspace=0.1, vspace=0.16, title_size=13)
    for j, name in enumerate(rope.ADDITIVE_TERMS, start=1):
        term = _(TERM_NAMES[name])
        g.add(dict(type="heatmap", z=f32(terms[name][np.ix_(idx, idx)]), x=pos, y=pos, colorscale=DIVERGING,
                   zmin=-spread, zmax=spread, meta="diverging", showscale=j == 2,
                   colorbar=dict(title=_("score term"), len=0.9), name=term,
                   hovertemplate=_("{term}<br>query m = %{{y}}<br>key n = %{{x}}<br>value = %{{z:.4f}}"
                                   "<extra></extra>", term=term)),
              j)
        sfx = "" if j == 1 else str(j)
        g.axis("x", j, title=_("key n") if j >= 3 else None, constrain="domain")
        g.axis("y", j, title=_("query m") if j % 2 == 1 else None, autorange="reversed", scaleanchor=f"x{sfx}",
               constrain="domain")
    what = _("one token everywhere") if tokens == "same" else _("random tokens")
    w = _("learned W") if weights == "random" else "W = I"
    return g.figure(title=_("Additive code, four terms: {tokens}, {weights}, d = {dim}", tokens=what, weights=w,
                            dim=dim) + every(step), height=760,
                    margin=dict(t=110))


# ---------------------------------------------------------------------------- derive the rotation

def _arrow(x: float, y: float, name: str, color: str, *, dash: str = "solid") -> dict:
    """A hand from the origin to (x, y) with an arrow head."""
    return dict(type="scatter", x=[0.0, x], y=[0.0, y], mode="lines+markers", name=name,
                line=dict(color=color, width=3, dash=dash),
                marker=dict(size=[0, 14], symbol="arrow", angleref="previous", color=color),
                hovertemplate=f"{name}<br>(%{{x:.3f}}, %{{y:.3f}})<extra></extra>")


def _plane(g: Panels, q0: np.ndarray, qm: np.ndarray, k0: np.ndarray, kn: np.ndarray, turns: tuple[float, float],
           between: float, m: float, n: float, pair: int) -> None:
    """Panel 1: the unit circle, the turn of q (m·θ) and of k (n·θ) as dotted arcs, both hands before and after,
    and the angle from k to q after the turn."""
    ring = np.linspace(0, 2 * np.pi, 121)
    g.scatter(1, x=f32(np.cos(ring)), y=f32(np.sin(ring)), mode="lines", line=dict(color=GREY, width=1),
              hoverinfo="skip", showlegend=False)
    for start, turn, rad, color, label in (
            (q0, turns[0], 0.32, COLORS[0], _("m·θ_{pair} = {turn:.3g} rad", pair=pair, turn=turns[0])),
            (k0, turns[1], 0.22, COLORS[2], _("n·θ_{pair} = {turn:.3g} rad", pair=pair, turn=turns[1]))):
        a0 = float(np.arctan2(start[1], start[0]))
        ax, ay = arc(a0, a0 + min(turn, 2 * np.pi), rad)
        g.scatter(1, x=ax, y=ay, mode="lines", line=dict(color=color, dash="dot"), name=label, hoverinfo="skip")
    for hand in (_arrow(*q0, _("q (pair at position 0)"), COLORS[0], dash="dot"),
                 _arrow(*k0, _("k (pair at position 0)"), COLORS[2], dash="dot"),
                 _arrow(*qm, _("e^(jmθ)·q, m = {m:g}", m=m), COLORS[0]),
                 _arrow(*kn, _("e^(jnθ)·k, n = {n:g}", n=n), COLORS[2])):
        g.add(hand, 1)
    a_k = float(np.arctan2(kn[1], kn[0]))
    bx, by = arc(a_k, a_k + between, 0.5)
    g.scatter(1, x=bx, y=by, mode="lines", line=dict(color=COLORS[3], width=2),
              name=_("angle k → q = {angle:.3f} rad", angle=between), hoverinfo="skip")
    g.axis("x", 1, range=[-1.2, 1.2], title=_("Re (channel 2i)"), zeroline=True)
    g.axis("y", 1, range=[-1.2, 1.2], title=_("Im (channel 2i+1)"), scaleanchor="x", zeroline=True)


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
    (q0, qm), (k0, kn) = (hands[h][:, pair] / np.linalg.norm(hands[h][0, pair]) for h in ("q", "k"))  # length 1
    shown = min(dim, MAX_MATRIX_SHOWN)
    cut = "" if shown == dim else _(" (top-left {shown} × {shown} of {dim} × {dim})", shown=shown, dim=dim)
    g = Panels.grid(1, 2, [_("pair {pair} in the complex plane", pair=pair),
                           _("R_m at m = {m:g}: {blocks} blocks R(m·θ_i)", m=m, blocks=dim // 2) + cut],
                    hspace=0.12, title_size=13)
    _plane(g, q0, qm, k0, kn, (m * theta, n * theta), float(hands["angle"][1, pair]), m, n, pair)
    g.add(dict(type="heatmap", z=f32(rope.block_rotation(m, dim, base)[:shown, :shown]), x=np.arange(shown),
               y=np.arange(shown), colorscale=DIVERGING, zmin=-1, zmax=1, meta="diverging", showscale=True,
               colorbar=dict(title=_("entry"), len=0.8, x=1.02), name="R_m",
               hovertemplate=_("row %{y}, column %{x}<br>R_m entry = %{z:.4f}<extra></extra>")), 2)
    g.axis("x", 2, title=_("column (channel)"), constrain="domain")
    g.axis("y", 2, title=_("row (channel)"), autorange="reversed", scaleanchor="x2", constrain="domain")
    return g.figure(title=_("From one plane to d/2 planes: θ_{pair} = {theta:.4g} rad/token, b = {base:g}", pair=pair,
                            theta=theta, base=base),
                    height=520, legend=dict(orientation="h", y=-0.18, x=0), margin=dict(t=90, b=130))
