"""Figures of the Gaussian-kernel RoPE lesson: the kernel, attention under the three modes, the shift
check, and two pitfalls of real code (mixed layout, feature-axis broadcast). All numbers come from
``posviz.gaussian``."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from posviz import gaussian as gk
from posviz._validate import check_bool, check_choice, check_int
from posviz.figures._common import Panels, f32
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL

__all__ = ["gaussian_kernel_curve", "gaussian_attention", "gaussian_attention_grid", "gaussian_envelope",
           "gaussian_shift_check", "gaussian_mixed_layout", "gaussian_kernel_broadcast", "gaussian_magnitude_only"]

MODE_COLORS = {"rope": "#7f7f7f", "absolute": COLORS[3], "relative_mul": COLORS[1], "relative_log": COLORS[0]}
SHORT = {"rope": N_("plain RoPE"), "absolute": "(a) K(m)·K(n)", "relative_mul": "(b) ×K(m−n)",
         "relative_log": "(c) +log K(|m−n|)"}
LOG_FLOOR = -6.0  # colour floor of log10 attention weights (the log bias reaches 1e-30)
SIDE_COMPARE = 160  # displayed side of each attention heatmap: 2 panels × 160² = 51k cells at most
SIDE_GRID = 80      # four panels × 80² = 26k cells at most


def _block_mean(a: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Average a (T, T) matrix over f×f blocks so that it is at most side×side: (z float32, starts, f).

    Block means (not strided samples) keep a one-cell-wide diagonal band visible: each shown cell is the
    mean attention weight of its f×f block.
    """
    T = a.shape[0]
    f = max(1, math.ceil(T / side))
    starts = np.arange(0, T, f)
    sums = np.add.reduceat(np.add.reduceat(a, starts, axis=0), starts, axis=1)  # (B, B)
    sizes = np.diff(np.append(starts, T)).astype(np.float64)  # (B,)
    return (sums / np.outer(sizes, sizes)).astype(np.float32), starts, f


def _kernel_args(alpha1: float, alpha2: float, sigma1: float, sigma2: float) -> dict[str, float]:
    return dict(alpha1=alpha1, alpha2=alpha2, sigma1=sigma1, sigma2=sigma2)


def _log_weights(a: np.ndarray) -> np.ndarray:
    return np.log10(np.maximum(a, 10.0 ** LOG_FLOOR)).astype(np.float32)


def _shown_note(T: int, f: int, side_shown: int) -> str:
    return "" if f == 1 else _(" (T = {T} shown as {side}×{side} block means of {f}×{f})", T=T, side=side_shown, f=f)


def short(mode: str) -> str:
    """A mode's short name: plain RoPE in the student's language, the modes' formulas as they are."""
    return _(SHORT[mode]) if mode == "rope" else SHORT[mode]


def mode_label(mode: str) -> str:
    """A mode's label (``posviz.gaussian.MODE_LABELS``) in the student's language."""
    return _(gk.MODE_LABELS[mode])


@figure("gaussian_kernel_curve")
def gaussian_kernel_curve(*, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                          sigma2: float = 20.0, r_max: int = 0, log_y: bool = False) -> go.Figure:
    """K(r) with its local (α1, σ1) and global (α2, σ2) terms, σ1 and σ2 marked on the distance axis."""
    kern = _kernel_args(alpha1, alpha2, sigma1, sigma2)
    gk.gaussian_kernel(0.0, **kern)  # validates before any layout work
    r_max = check_int("r_max", r_max, 0, 100_000)  # 0: three times the wider σ, at least 10 tokens
    log_y = check_bool("log_y", log_y)
    if r_max == 0:
        r_max = int(min(max(math.ceil(3.2 * max(sigma1, sigma2)), 10), 2000))
    r = np.linspace(0.0, r_max, 801)
    local, wide = gk.kernel_components(r, **kern)
    total = gk.gaussian_kernel(r, **kern)
    r32 = r.astype(np.float32)
    # plain dicts, not add_scatter/add_vline/update_yaxes: plotly's validation of each call cost ~10 ms of
    # every slider move (the first slider of the page drives this figure)
    data = [dict(type="scatter", x=r32, y=y.astype(np.float32), mode="lines", name=name,
                 line=dict(color=color, dash=dash, width=width),
                 hovertemplate="r=%{x:.1f}<br>%{y:.4g}<extra>" + short + "</extra>")
            for y, name, short, color, dash, width in (
                (local, _("local α1·exp(−r²/2σ1²), σ1 = {sigma1:g}", sigma1=sigma1), _("local"), COLORS[1], "dash",
                 2),
                (wide, _("global α2·exp(−r²/2σ2²), σ2 = {sigma2:g}", sigma2=sigma2), _("global"), COLORS[2], "dash",
                 2),
                (total, _("K(r) = local + global"), "K(r)", COLORS[0], "solid", 3))]
    marks = [(s, name, color) for s, name, color in ((sigma1, "σ1", COLORS[1]), (sigma2, "σ2", COLORS[2]))
             if s <= r_max]
    if log_y:
        yaxis = dict(type="log", range=[-6, math.log10(max(alpha1 + alpha2, 1e-6)) + 0.2],
                     title=dict(text=_("K(r) (log scale)")))
    else:
        yaxis = dict(range=[0, (alpha1 + alpha2) * 1.08], title=dict(text="K(r)"))
    layout = dict(
        shapes=[dict(type="line", x0=s, x1=s, xref="x", y0=0, y1=1, yref="y domain", line=dict(color=color, dash="dot"))
                for s, _, color in marks],
        annotations=[dict(showarrow=False, text=f"{name} = {s:g}", x=s, xanchor="left", xref="x", y=1, yanchor="top",
                          yref="y domain") for s, name, _ in marks],
        title=dict(text=_("Multi-scale Gaussian kernel: K(0) = α1 + α2 = {height:g}", height=alpha1 + alpha2)),
        xaxis=dict(title=dict(text=_("distance r (tokens)"))), yaxis=yaxis, legend=dict(orientation="h", y=-0.25))
    return go.Figure(dict(data=data, layout=layout))


def _heatmap(a: np.ndarray, side: int, name: str) -> tuple[dict, int, int]:
    z, starts, f = _block_mean(a, side)
    trace = dict(
        type="heatmap", z=_log_weights(z), x=starts, y=starts, coloraxis="coloraxis", name=name,
        hovertemplate=_("{name}<br>query m=%{{y}}<br>key n=%{{x}}<br>log10 weight=%{{z:.2f}}<extra></extra>",
                        name=name))
    return trace, f, len(starts)


def _attention_figure(grid: Panels, key_title: str, **layout: object) -> go.Figure:
    for col in range(1, len(grid.traces) + 1):
        grid.axis("x", col, title=key_title)
        grid.axis("y", col, autorange="reversed")
    grid.axis("y", 1, title=_("query position m"))
    return grid.figure(coloraxis=dict(colorscale=SEQUENTIAL, cmin=LOG_FLOOR, cmax=0,
                                      colorbar=dict(title=_("log10 weight"))), **layout)


@figure("gaussian_attention")
def gaussian_attention(*, mode: str = "relative_log", T: int = 128, d: int = 64, base: float = 10000.0,
                       seed: int = 0, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                       sigma2: float = 20.0) -> go.Figure:
    """Softmax attention (T × T) of seeded q, k: plain RoPE beside the chosen mode, log colour scale."""
    kern = _kernel_args(alpha1, alpha2, sigma1, sigma2)
    modes = ("rope",) if check_choice("mode", mode, gk.MODES) == "rope" else ("rope", mode)
    grid = Panels.grid(1, len(modes), [mode_label(m) for m in modes], hspace=0.08, title_size=15)
    for col, m in enumerate(modes, start=1):
        trace, f, shown = _heatmap(gk.attention(T, d, base, seed, m, **kern), SIDE_COMPARE, short(m))
        grid.add(trace, col)
    return _attention_figure(grid, _("key position n"),
                             title=dict(text=_("Attention after softmax, T = {T}, d = {d}{note}", T=T, d=d,
                                               note=_shown_note(T, f, shown))))


@figure("gaussian_attention_grid")
def gaussian_attention_grid(*, T: int = 128, d: int = 64, base: float = 10000.0, seed: int = 0,
                            alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                            sigma2: float = 20.0) -> go.Figure:
    """The four attention matrices side by side: plain RoPE and modes (a), (b), (c)."""
    kern = _kernel_args(alpha1, alpha2, sigma1, sigma2)
    grid = Panels.grid(1, len(gk.MODES), [short(m) for m in gk.MODES], hspace=0.03, title_size=15)
    for col, m in enumerate(gk.MODES, start=1):
        trace, f, shown = _heatmap(gk.attention(T, d, base, seed, m, **kern), SIDE_GRID, short(m))
        grid.add(trace, col)
    for col in (2, 3, 4):  # same query axis as the first panel
        grid.axis("y", col, showticklabels=False)
    return _attention_figure(grid, _("key n"),
                             title=dict(text=_("All four side by side{note}", note=_shown_note(T, f, shown))),
                             height=380)


@figure("gaussian_envelope")
def gaussian_envelope(*, T: int = 128, d: int = 64, base: float = 10000.0, seed: int = 0,
                      alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0, sigma2: float = 20.0,
                      queries: tuple[int, ...] = (10, 40, 100)) -> go.Figure:
    """Left: what each mode multiplies at distance Δ = m − n. Right: mean attention weight at distance |m − n|."""
    kern = _kernel_args(alpha1, alpha2, sigma1, sigma2)
    T = check_int("T", T, 2, gk.MAX_T)
    grid = Panels.grid(1, 2, [_("factor on the score at distance Δ"), _("mean attention weight at distance |m − n|")],
                       hspace=0.12, title_size=15)
    delta = np.arange(T, dtype=np.float64)
    k = gk.gaussian_kernel(delta, **kern).astype(np.float32)
    grid.scatter(x=delta, y=np.ones(T, np.float32), name=_("plain RoPE: ×1"), mode="lines",
                 line=dict(color=MODE_COLORS["rope"]),
                 hovertemplate=_("Δ=%{x}<br>factor=%{y:.4g}<extra>plain RoPE</extra>"))
    grid.scatter(x=delta, y=k, name=_("(b), (c): K(Δ), the same for every query"), mode="lines",
                 line=dict(color=MODE_COLORS["relative_log"], width=3),
                 hovertemplate=_("Δ=%{x}<br>K(Δ)=%{y:.4g}<extra>(b) ×logit, (c) ×weight</extra>"))
    for i, m in enumerate(queries[:6]):
        m = check_int("queries", m, 0, 10**6)
        dd = delta[delta <= m]
        fac = (gk.gaussian_kernel(float(m), **kern) * gk.gaussian_kernel(m - dd, **kern)).astype(np.float32)
        grid.scatter(x=dd, y=fac, mode="lines", name=_("(a): K(m)·K(m−Δ), query m = {m}", m=m),
                     line=dict(color=MODE_COLORS["absolute"], dash=("dash", "dot", "dashdot")[i % 3]),
                     hovertemplate=_("m={m}<br>Δ=%{{x}}<br>factor=%{{y:.4g}}<extra>(a)</extra>", m=m))
    for mode in gk.MODES:
        prof = gk.mean_by_distance(gk.attention(T, d, base, seed, mode, **kern)).astype(np.float32)
        grid.scatter(2, x=delta, y=prof, mode="lines", name=_("mean weight, {mode}", mode=short(mode)),
                     line=dict(color=MODE_COLORS[mode], width=2 if mode != "rope" else 1.5),
                     hovertemplate=_("|m−n|=%{x}<br>mean weight=%{y:.3g}") + "<extra>" + short(mode)
                     + "</extra>")
    grid.axis("x", 1, title=_("distance Δ = m − n (tokens)"))
    grid.axis("y", 1, title=_("factor"))
    grid.axis("x", 2, title=_("distance |m − n| (tokens)"))
    grid.axis("y", 2, title=_("mean weight (log)"), log=True, exponentformat="power")
    return grid.figure(title=dict(text=_("The envelope: what multiplies the score, and where attention goes")),
                       legend=dict(orientation="h", y=-0.3), height=480)


@figure("gaussian_shift_check")
def gaussian_shift_check(*, m: int = 3, n: int = 0, shift: int = 37, d: int = 64, base: float = 10000.0,
                         seed: int = 0, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                         sigma2: float = 20.0) -> go.Figure:
    """One (q, k) pair's logit at (m, n) and at (m + c, n + c) under each mode: only (a) changes."""
    res = gk.shift_check(m, n, shift, d, base, seed, **_kernel_args(alpha1, alpha2, sigma1, sigma2))
    labels = [short(mode) for mode in gk.MODES]
    fig = go.Figure()
    for tag, pos, color in (("before", (m, n), COLORS[4]), ("after", (m + shift, n + shift), COLORS[3])):
        vals = np.array([res[mode][tag] for mode in gk.MODES], dtype=np.float32)
        fig.add_bar(x=labels, y=vals, name=_("at (m, n) = {pos}", pos=pos), marker_color=color,
                    text=[f"{v:.4g}" for v in vals], textposition="outside",
                    hovertemplate=_("%{x}<br>logit=%{y:.5g}") + "<extra>" + f"(m, n) = {pos}" + "</extra>")
    fig.add_hline(y=0, line_color="gray", line_width=1)
    fig.update_layout(barmode="group", xaxis_title=_("mode"), yaxis_title=_("logit (score before softmax)"),
                      title=_("Same q and k, same distance m − n = {distance}, both positions shifted by {shift}",
                              distance=m - n, shift=shift))
    return fig


@figure("gaussian_mixed_layout")
def gaussian_mixed_layout(*, layout: str = "mixed", T: int = 24, d: int = 8, base: float = 10000.0,
                          seed: int = 0) -> go.Figure:
    """Scores of one fixed q and k at every pair of positions, with the mixed layout or a consistent one."""
    T = check_int("T", T, 4, 128)  # a picture of diagonals: 128² cells at most
    s = gk.mixed_layout_score_grid(T, d, base, seed, layout)  # (T, T)
    spread = gk.toeplitz_error(s)
    lim = float(np.abs(s).max()) or 1.0
    pos = np.arange(T)
    # two stacked panels (the figure is usually shown in half a page): the scores, then two diagonals
    grid = Panels((((0.0, 1.0), (0.42, 1.0)), ((0.0, 1.0), (0.0, 0.27))))
    grid.add(dict(type="heatmap", z=f32(s), x=pos, y=pos, zmin=-lim, zmax=lim, zmid=0,
                  colorscale=DIVERGING, meta="diverging", colorbar=dict(title=dict(text="q·k"), y=0.71, len=0.58),
                  hovertemplate=_("query m=%{y}<br>key n=%{x}<br>score=%{z:.3f}<extra></extra>")))
    for i, delta in enumerate((0, 3)):
        m = pos[delta:]
        grid.scatter(2, x=m, y=f32(s[m, m - delta]), mode="lines+markers",
                     name=_("score at Δ = m − n = {delta}", delta=delta), line=dict(color=COLORS[i]),
                     hovertemplate=_("Δ={delta}<br>m=%{{x}}<br>score=%{{y:.3f}}<extra></extra>", delta=delta))
    shown = f"{spread:.3g}" if spread > 1e-9 else _("0 (up to rounding)")
    title = (_("mixed: cat(freqs, freqs) + interleaved rotate<br>largest spread along a diagonal = {shown}",
               shown=shown) if layout == "mixed" else
             _("interleaved: angles repeated per pair<br>largest spread along a diagonal = {shown}", shown=shown))
    grid.axis("x", 1, title=_("key position n"))
    grid.axis("y", 1, title=_("query position m"), autorange="reversed")
    grid.axis("x", 2, title=_("query position m (key n = m − Δ)"))
    grid.axis("y", 2, title=_("score"))
    return grid.figure(title=dict(text=title),
                       legend=dict(orientation="h", x=0, y=-0.12, yanchor="top"), height=760,
                       margin=dict(t=90, b=90))


@figure("gaussian_kernel_broadcast")
def gaussian_kernel_broadcast(*, version: str = "feature_axis", T: int = 64, D: int = 64, alpha1: float = 0.7,
                              alpha2: float = 0.3, sigma1: float = 5.0, sigma2: float = 20.0) -> go.Figure:
    """The factor each (token, channel) of x gets: ``K_r * x`` (K meets the feature axis) against per-position K(t)."""
    kern = _kernel_args(alpha1, alpha2, sigma1, sigma2)
    version = check_choice("version", version, ("feature_axis", "fixed"))
    T, D = check_int("T", T, 1, 256), check_int("D", D, 1, 256)  # 256² cells at most
    if version == "feature_axis":
        scale, error = gk.feature_axis_broadcast(T, D, **kern)
    else:
        scale, error = gk.intended_scale(T, D, **kern), None
    fig = go.Figure()
    if scale is None:
        fig.add_annotation(text=f"RuntimeError: {error}", x=0.5, y=0.5, xref="paper", yref="paper",
                           showarrow=False, font=dict(color=COLORS[3]))
        fig.update_layout(title=_("K_r * x, T = {T}, D = {D}: it does not run", T=T, D=D),
                          xaxis_visible=False, yaxis_visible=False)
        return fig
    fig.add_heatmap(z=scale.astype(np.float32), x=np.arange(scale.shape[1]), y=np.arange(scale.shape[0]),
                    colorscale=SEQUENTIAL, zmin=0, colorbar=dict(title=_("factor")),
                    hovertemplate=_("token t=%{y}<br>channel c=%{x}<br>factor=%{z:.4f}<extra></extra>"))
    title = (_("K_r * x, T = D: one factor per FEATURE") if version == "feature_axis"
             else _("intended: one factor K(t) per token"))
    fig.update_layout(title=title, xaxis_title=_("channel c"), yaxis_title=_("token position t"),
                      yaxis_autorange="reversed")
    return fig


@figure("gaussian_magnitude_only")
def gaussian_magnitude_only(*, pair: int = 2, n_positions: int = 40, d: int = 64, base: float = 10000.0,
                            seed: int = 0, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                            sigma2: float = 20.0) -> go.Figure:
    """One pair of q rotated by plain RoPE and by K(m)·R_m: same angles, only the length shrinks."""
    s = gk.spiral(pair, n_positions, d, base, seed, **_kernel_args(alpha1, alpha2, sigma1, sigma2))
    grid = Panels.grid(1, 3, [_("the pair in its plane"), _("angle against position"), _("length against position")],
                       hspace=0.08, widths=[0.36, 0.32, 0.32], title_size=15)
    m = s["m"].astype(np.float32)
    rays = min(8, len(m))
    ray_x = np.column_stack([np.zeros(rays), s["rope"][:rays, 0], np.full(rays, np.nan)]).ravel()
    ray_y = np.column_stack([np.zeros(rays), s["rope"][:rays, 1], np.full(rays, np.nan)]).ravel()
    grid.scatter(x=f32(ray_x), y=f32(ray_y), mode="lines", name=_("rays of m = 0..{last}", last=rays - 1),
                 line=dict(color="#bbbbbb", width=1), hoverinfo="skip")
    for key, name, color, mode in (("rope", _("R_m q (plain RoPE)"), MODE_COLORS["rope"], "markers"),
                                   ("kernel", _("K(m)·R_m q (as written)"), MODE_COLORS["absolute"], "lines+markers")):
        xy = s[key].astype(np.float32)
        grid.scatter(x=xy[:, 0], y=xy[:, 1], mode=mode, name=name, line=dict(color=color),
                     marker=dict(size=6, color=color), customdata=m,
                     hovertemplate="m=%{customdata}<br>(%{x:.3f}, %{y:.3f})<extra>" + name + "</extra>")
    for key, name, color, dash, width in (("rope", _("plain RoPE"), MODE_COLORS["rope"], "solid", 5),
                                          ("kernel", "K(m)·R_m", MODE_COLORS["absolute"], "dot", 2)):
        ang = np.unwrap(s[f"angle_{key}"]).astype(np.float32)
        grid.scatter(2, x=m, y=ang, mode="lines", name=_("angle, {name}", name=name),
                     line=dict(color=color, dash=dash, width=width),
                     hovertemplate=_("m=%{x}<br>angle=%{y:.3f} rad") + "<extra>" + name + "</extra>")
        grid.scatter(3, x=m, y=f32(s[f"radius_{key}"]), mode="lines", name=_("length, {name}", name=name),
                     line=dict(color=color, dash="dash" if key == "kernel" else "solid"),
                     hovertemplate=_("m=%{x}<br>length=%{y:.3f}") + "<extra>" + name + "</extra>")
    grid.axis("x", 1, title=_("component 2i"))
    grid.axis("y", 1, title=_("component 2i+1"), scaleanchor="x")
    grid.axis("x", 2, title=_("position m"))
    grid.axis("y", 2, title=_("angle (rad, unwrapped)"))
    grid.axis("x", 3, title=_("position m"))
    grid.axis("y", 3, title=_("length"), rangemode="tozero")
    return grid.figure(title=dict(text=_("Pair {pair}: the kernel shrinks the length; the angle still grows by "
                                         "θ_{pair} per token", pair=pair)), legend=dict(orientation="h", y=-0.25))
