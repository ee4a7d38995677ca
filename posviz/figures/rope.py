"""Figure builders for the RoPE lesson's frequencies and tables: the angle of every pair at every position, the
cos/sin tables a model stores, the two pair layouts, the decay curves, the frequency ladder, float32 angles,
which pairs turn within a context, and the base against the training length.

The clock hands are in ``rope_hands``, the first principles in ``rope_derive``, the scores in ``rope_scores``.
Every number comes from ``posviz.rope``; the builders only arrange it. Big arrays are float32 numpy; heatmaps
are strided to at most ``MAX_HEATMAP_CELLS`` cells and say so in their title.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import plotly.graph_objects as go

from posviz import rope
from posviz._validate import check_float, check_int
from posviz.figures._common import MAX_CELLS, TWO_LINE_TOP, Panels, f32, subtitled
from posviz.figures._registry import figure
from posviz.figures._rope_draw import GREY, every, stride
from posviz.i18n import N_, _
from posviz.theme import COLORS, CYCLIC, DIVERGING, SEQUENTIAL, typeset_figure

__all__ = ["rope_angle_heatmap", "rope_cos_sin_tables", "rope_pairing", "rope_decay", "rope_frequency_ladder",
           "rope_float32_error", "rope_pair_roles", "rope_base_choice"]

MAX_HEATMAP_CELLS = MAX_CELLS
MAX_TABLE_ROWS = 64  # rope_cos_sin_tables shows the first positions only
SCHEME_NAMES = {"full": N_("full RoPE"), "partial": N_("partial RoPE (GPT-NeoX, Phi)"),
                "p-rope": N_("p-RoPE (Barbero et al. 2024)"), "decoupled": N_("decoupled RoPE (DeepSeek MLA)")}
ROLE_NAMES = {"turns": N_("turns"), "under a quarter turn": N_("under a quarter turn"),
              "not rotated": N_("not rotated")}  # rope.pair_roles's roles, as a legend names them
ROLE_COLORS = {"turns": COLORS[0], "under a quarter turn": COLORS[1], "not rotated": COLORS[3]}
_PI_TICKS = dict(tickvals=[0, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi],
                 ticktext=["0", "π/2", "π", "3π/2", "2π"])


# ---------------------------------------------------------------------------- angles and cos/sin tables

@figure("rope_angle_heatmap")
def rope_angle_heatmap(*, dim: int = 64, base: float = 10000.0, n_positions: int = 256) -> go.Figure:
    """The angle m·θ_i mod 2π of every pair at every position, on a cyclic colour scale.

    Fast pairs (bottom rows) cycle every few tokens; slow pairs barely move. The dashed line marks
    where each pair completes its first full turn (m = λ_i).
    """
    n_positions = check_int("n_positions", n_positions, 1, 8192)
    n_pairs = rope.inv_freq(dim, base).size
    step = stride(n_positions, max(1, MAX_HEATMAP_CELLS // n_pairs))
    pos = np.arange(0, n_positions, step, dtype=np.float64)
    z = np.mod(rope.angles(pos, dim, base), rope.TWO_PI).T  # (d/2, T')
    lam = rope.wavelengths(dim, base)
    turn = lam <= n_positions - 1
    fig = go.Figure([
        go.Heatmap(z=f32(z), x=f32(pos), y=np.arange(z.shape[0]), colorscale=CYCLIC, zmin=0,
                   zmax=2 * math.pi, colorbar=dict(title=_("angle (rad)"), **_PI_TICKS),
                   hovertemplate=_("position m = %{x}<br>pair i = %{y}<br>m·θ_i mod 2π = %{z:.3f} rad"
                                   "<extra></extra>")),
        go.Scatter(x=f32(lam[turn]), y=np.nonzero(turn)[0], mode="lines+markers",
                   line=dict(color=COLORS[1], dash="dash", width=2), marker=dict(size=4, color=COLORS[1]),
                   name=_("first full turn (m = λ_i)"),
                   hovertemplate=_("pair %{y} completes a turn at m = λ = %{x:.1f}<extra></extra>")),
    ])
    fig.update_layout(title=_("Angle m·θ_i mod 2π, d = {dim}, b = {base:g}", dim=dim, base=base) + every(step),
                      xaxis_title=_("position m (tokens)"), yaxis_title=_("pair i (0 = fastest)"),
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
    p = Panels.grid(2, 2, [_("interleaved: cos"), _("interleaved: sin"), _("half-split: cos"), _("half-split: sin")],
                    hspace=0.04, vspace=0.1, title_size=16)
    for r, layout in enumerate(("interleaved", "half")):
        tables = rope.cos_sin(pos, dim, base, layout)
        shown_layout = _("interleaved") if layout == "interleaved" else _("half")
        for c, (name, tab) in enumerate(zip(("cos", "sin"), tables)):
            p.add(go.Heatmap(
                z=f32(tab), x=np.arange(d), y=f32(pos), colorscale=DIVERGING, zmid=0, zmin=-1, zmax=1,
                meta="diverging", showscale=(r, c) == (0, 1), colorbar=dict(title=_("value")),
                name=_("{layout} {function}", layout=shown_layout, function=name),
                hovertemplate=_("{layout} {function}<br>position m = %{{y}}<br>channel %{{x}}<br>"
                                "value = %{{z:.3f}}<extra></extra>", layout=shown_layout, function=name)),
                2 * r + c + 1)
    for panel in (1, 2):
        p.axis("x", panel, matches=f"x{panel + 2}", showticklabels=False)
        p.axis("x", panel + 2, title=_("channel"))
    for panel in (1, 3):
        p.axis("y", panel, title=_("position m"), autorange="reversed")
        p.axis("y", panel + 1, matches="y" if panel == 1 else "y3", showticklabels=False)
    note = "" if shown == n_positions else _(" (first {shown} of {n_positions} positions shown)", shown=shown,
                                             n_positions=n_positions)
    return p.figure(title=_("cos/sin tables as stored, d = {dim}", dim=dim) + note, height=620)



# ---------------------------------------------------------------------------- layouts

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
    fig.add_trace(go.Scatter(x=f32(px), y=f32(py), mode="lines", line=dict(color=GREY, width=1),
                             name=_("permutation P"), hoverinfo="skip"))
    t = np.linspace(0, np.pi, 13)
    for y0, pairs_, sgn, label in ((1.0, il, 1, _("interleaved pair")), (0.0, hf, -1, _("half-split pair"))):
        ax, ay = [], []
        for u, v in pairs_:
            mid, rad = (u + v) / 2, (v - u) / 2
            ax += list(mid - rad * np.cos(t)) + [np.nan]
            ay += list(y0 + sgn * (0.04 + np.sin(t) * (0.1 + 0.2 * min(1.0, rad / max(1, h / 2))))) + [np.nan]
        fig.add_trace(go.Scatter(x=f32(ax), y=f32(ay), mode="lines", line=dict(width=1.5, color=COLORS[0]),
                                 name=label, hoverinfo="skip"))
    ch = np.arange(d)
    show_text = d <= 32
    fig.add_trace(go.Scatter(
        x=ch, y=np.ones(d), mode="markers", marker=dict(size=10 if d <= 64 else 6, color=ch // 2, colorscale=SEQUENTIAL,
                                               cmin=0, cmax=max(1, h - 1)),
        customdata=ch // 2, name=_("interleaved channel"),
        hovertemplate=_("interleaved channel %{x}<br>pair %{customdata}<extra></extra>")))
    fig.add_trace(go.Scatter(
        x=ch, y=np.zeros(d), mode="markers", marker=dict(size=10 if d <= 64 else 6, color=ch % h, colorscale=SEQUENTIAL,
                                                  cmin=0, cmax=max(1, h - 1)),
        customdata=np.stack([ch % h, P], axis=1), name=_("half-split channel"),
        hovertemplate=_("half-split channel %{x}<br>pair %{customdata[0]}<br>holds interleaved channel "
                        "%{customdata[1]}<extra></extra>")))
    if show_text:
        fig.add_trace(go.Scatter(x=np.concatenate([ch, ch]), y=np.concatenate([np.full(d, 1.4), np.full(d, -0.45)]),
                                 mode="text", text=[str(c) for c in ch] + [str(P[c]) for c in ch],
                                 hoverinfo="skip", name=_("channel labels")))
    fig.update_layout(
        title=_("Pairs in both layouts, d = {d}: same colour = same pair (labels below: P[j])", d=d),
        xaxis=dict(title=_("channel index"), range=[-1, d]), showlegend=False, height=380,
        yaxis=dict(tickvals=[0, 1], ticktext=[_("half-split"), _("interleaved")], range=[-0.6, 1.55],
                   zeroline=False, showgrid=False),
        margin=dict(l=110))  # the row labels need more than the template's 72 px
    return fig



# ---------------------------------------------------------------------------- the decay bound

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
        go.Scatter(x=f32(deltas), y=f32(b), name=_("bound B(Δ) (RoFormer §3.4.3)"), line=dict(color=COLORS[0]),
                   hovertemplate="Δ = %{x}<br>B(Δ) = %{y:.3f}<extra></extra>"),
        go.Scatter(x=f32(deltas), y=f32(c), name=_("Σ cos(Δθ_i) (q = k = ones, ÷2)"), line=dict(color=COLORS[1]),
                   hovertemplate="Δ = %{x}<br>Σ cos = %{y:.3f}<extra></extra>"),
        go.Scatter(x=f32(deltas), y=f32(r), name=_("mean score, {samples} random q, k", samples=n_samples),
                   line=dict(color=COLORS[2]),
                   hovertemplate=_("Δ = %{x}<br>mean score = %{y:.3f}<extra></extra>")),
    ])
    fig.add_hline(y=0, line=dict(color=GREY, width=1, dash="dot"))
    i_min = int(np.argmin(c))
    fig.add_annotation(x=float(deltas[i_min]), y=float(c[i_min]),
                       text=_("Σ cos = {lowest:.2f} at Δ = {delta}", lowest=c[i_min], delta=i_min),
                       showarrow=True, arrowhead=2, ay=30)
    fig.update_layout(title=_("The 'long-term decay' curves, d = {dim}, b = {base:g}", dim=dim, base=base),
                      xaxis_title=_("offset Δ = m - n (tokens)"), yaxis_title=_("value"),
                      legend=dict(orientation="h", y=-0.22))
    return fig



# ---------------------------------------------------------------------------- pitfalls

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
    p = Panels.grid(1, 2, [_("frequency θ_i (rad/token)"), _("wavelength λ_i = 2π/θ_i (tokens)")], hspace=0.12,
                    title_size=16)
    p.add(go.Scatter(x=i, y=theta, mode="lines+markers", name="θ_i = b<sup>−2i/d</sup>", line=dict(color=COLORS[0]),
                     marker=dict(size=5), hovertemplate=_("pair %{x}<br>θ = %{y:.4g} rad/token<extra></extra>")), 1)
    if show_claim:
        p.add(go.Scatter(x=i, y=theta[::-1], mode="lines", name=_("claimed ordering (reversed, wrong)"),
                         line=dict(color=COLORS[3], dash="dash"),
                         hovertemplate=_("claimed: pair %{x} at %{y:.4g} rad/token<extra></extra>")), 1)
    p.add(go.Scatter(x=i, y=lam, mode="markers", name="λ_i",
                     marker=dict(size=6, color=np.where(long_, COLORS[3], COLORS[0])),
                     customdata=np.where(long_, _("never turns fully within the positions shown"),
                                         _("turns at least once")),
                     hovertemplate=_("pair %{x}<br>λ = %{y:.4g} tokens<br>%{customdata}<extra></extra>")), 2)
    p.add(go.Scatter(x=[-0.5, theta.size - 0.5], y=[n_positions, n_positions], mode="lines",
                     name=_("positions shown N = {n_positions}", n_positions=n_positions),
                     line=dict(color=COLORS[3], dash="dot"),
                     hovertemplate=f"N = {n_positions}<extra></extra>"), 2)
    p.axis("y", 1, title=_("θ_i (rad/token, log)"), log=True)
    p.axis("y", 2, title=_("λ_i (tokens, log)"), log=True)
    p.axis("x", 1, title=_("pair i"))
    p.axis("x", 2, title=_("pair i"))
    # typeset here, not only on export: the glossary shows this figure in the app, where θ_i would read literally
    return typeset_figure(p.figure(
        title=subtitled(_("Frequency and wavelength of every pair: pair 0 turns fastest"),
                        _("θ₀ = {theta:g} rad per token, λ₀ = 2π ≈ {wavelength:.3g} tokens; d = {dim}, b = {base:g}",
                          theta=theta[0], wavelength=lam[0], dim=dim, base=base)),
        legend=dict(orientation="h", y=-0.25), margin=dict(t=TWO_LINE_TOP)))


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
        go.Scatter(x=f32(pos), y=np.maximum(err, 1e-12).astype(np.float32), mode="lines",
                   name=_("max |cos, sin error| over pairs"), line=dict(color=COLORS[3]),
                   hovertemplate=_("m = %{x:.4g}<br>error = %{y:.2e}<extra></extra>")),
        go.Scatter(x=f32(pos), y=f32(spacing), mode="lines", name=_("float32 rounding of m·θ_0 (≈ m·2⁻²⁴)"),
                   line=dict(color=GREY, dash="dot"), hoverinfo="skip"),
    ])
    top = float(max(err.max(), spacing.max()))
    fig.add_trace(go.Scatter(x=[1e4, 1e4], y=[1e-9, top], mode="lines", name="m = 10⁴",
                             line=dict(color=COLORS[1], dash="dash"), hoverinfo="skip"))
    fig.update_layout(title=_("float32 angle error vs float64, d = {dim}, b = {base:g}", dim=dim, base=base),
                      xaxis=dict(type="log", title=_("position m (tokens, log)")),
                      yaxis=dict(type="log", title=_("absolute error (log)")), legend=dict(orientation="h", y=-0.25))
    return fig


def _float32_positions(max_position: int) -> np.ndarray:
    """The positions ``rope_float32_error`` draws: 400 log-spaced whole positions from 1 to ``max_position`` and
    every power of ten up to it, sorted and unique."""
    decades = 10.0 ** np.arange(len(str(max_position)))  # 10^0 .. the largest power of ten <= max_position
    return np.union1d(np.round(np.logspace(0, math.log10(max_position), 400)), decades)



# ---------------------------------------------------------------------------- which pairs matter

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
    data = [dict(type="scatter", x=i, y=f32(full), mode="markers", name=_("full RoPE (reference)"),
                 marker=dict(symbol="circle-open", size=9, color=GREY),
                 hovertemplate=_("pair %{x}, full RoPE<br>%{y:.3g} turns within L<extra></extra>"))]
    for role, symbol in (("turns", "circle"), ("under a quarter turn", "diamond"), ("not rotated", "x")):
        sel = roles == role
        if sel.any():
            y = np.where(turns[sel] > 0, turns[sel], floor)
            named = _(ROLE_NAMES[role])
            data.append(dict(type="scatter", x=i[sel], y=f32(y), mode="markers",
                             name=_("{role} ({count})", role=named, count=int(sel.sum())),
                             marker=dict(symbol=symbol, size=8, color=ROLE_COLORS[role]),
                             customdata=f32(freqs[sel]),
                             hovertemplate=_("pair %{{x}}: {role}<br>θ = %{{customdata:.3g}} rad/token"
                                             "<br>%{{y:.3g}} turns within L<extra></extra>", role=named)))
    for level, label, dash in ((0.25, _("a quarter turn"), "dot"), (1.0, _("one turn"), "dash")):
        data.append(dict(type="scatter", x=[-0.5, dim // 2 - 0.5], y=[level, level], mode="lines", name=label,
                         line=dict(color=GREY, dash=dash, width=1), hoverinfo="skip"))
    rotated = int((freqs > 0).sum())
    return go.Figure(data=data, layout=dict(
        title=_("Turns per pair within L = {context:,}: {scheme}, {rotated} of {pairs} pairs rotate", context=context,
                scheme=_(SCHEME_NAMES[scheme]), rotated=rotated, pairs=dim // 2),
        xaxis=dict(title=_("pair (head's channel order)")),
        yaxis=dict(title=_("turns within L = L·|θ_i|/2π (log)"), type="log"),
        legend=dict(orientation="h", y=-0.2, x=0), height=480, margin=dict(b=130)))



# ---------------------------------------------------------------------------- choosing the base

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
        dict(type="scatter", x=f32(bases), y=f32(lam), mode="lines", name=_("slowest wavelength λ_(d/2−1)"),
             line=dict(color=COLORS[0], width=3),
             hovertemplate=_("b = %{x:.3g}<br>slowest λ = %{y:.3g} tokens<extra></extra>")),
        dict(type="scatter", x=[bases[0], bases[-1]], y=[train_length, train_length], mode="lines",
             name=_("training length L = {length:,}", length=train_length), line=dict(color=COLORS[3], dash="dash"),
             hoverinfo="skip"),
        dict(type="scatter", x=f32(bases), y=longer, yaxis="y2", mode="lines", line=dict(color=COLORS[2], shape="hv"),
             name=_("pairs with λ_i > L (right axis)"),
             hovertemplate=_("b = %{x:.3g}<br>%{y} pairs never turn fully within L<extra></extra>")),
        dict(type="scatter", x=[base], y=[here], mode="markers",
             name=_("b = {base:g}: slowest λ = {slowest:,.0f}, {longer} of {pairs} pairs with λ_i > L", base=base,
                    slowest=here, longer=n_here, pairs=dim // 2),
             marker=dict(size=13, color=COLORS[1], line=dict(color="#1f2330", width=1)),
             hovertemplate=_("b = %{x:.3g}<br>slowest λ = %{y:.4g}<extra></extra>")),
    ]
    if math.isfinite(star) and bases[0] <= star <= bases[-1]:
        data.append(dict(type="scatter", x=[star], y=[train_length], mode="markers", name=f"b* = {star:,.0f}",
                         marker=dict(symbol="diamond", size=12, color=COLORS[3]),
                         hovertemplate=_("b* = %{x:.4g}: slowest λ = L<extra></extra>")))
    return go.Figure(data=data, layout=dict(
        title=_("Choosing the base: the slowest pair against L = {length:,}, d = {dim}", length=train_length, dim=dim),
        xaxis=dict(title=_("base b (rope_theta, log)"), type="log"),
        yaxis=dict(title=_("slowest wavelength (tokens, log)"), type="log"),
        yaxis2=dict(title=_("pairs with λ_i > L"), overlaying="y", side="right", range=[0, dim // 2 + 0.5],
                    showgrid=False, tickmode="linear", tick0=0, dtick=max(1, 2 ** round(math.log2(dim / 16)))),
        legend=dict(orientation="h", y=-0.22, x=0), height=500, margin=dict(b=140, r=80)))
