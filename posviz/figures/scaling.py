"""Figures of the context-extension lesson: per-pair wavelengths, scales, unseen angles, YaRN's ramp,
attention temperature, dynamic NTK, scores past L, a config.json viewer and common pitfalls.
Every number comes from ``posviz.scaling``; all curves are per pair (d/2 points), so L' never costs."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from posviz import presets as ps
from posviz import scaling as sc
from posviz._validate import check_choice, check_float, check_int
from posviz.figures import _scaling_pitfalls as pitfall_cases
from posviz.figures._common import Marks, Panels, animation_controls, curve_mode, f32, grid_domains
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.rope import inv_freq
from posviz.theme import COLORS, METHOD_COLORS

__all__ = ["scaling_wavelengths", "scaling_ratio", "scaling_unseen", "scaling_yarn_ramp", "scaling_temperature",
           "scaling_entropy", "scaling_dynamic", "scaling_score", "scaling_config", "scaling_pitfall"]

DEFAULT_METHODS = "default,linear,ntk,yarn,llama3"
PITFALLS = tuple(pitfall_cases.CASES)  # floor_ceil, mscale, linear, inverted_bands, beta_fast_zero, llama3_temperature
VARIANTS = ("wrong", "right")


def _opt(x: float) -> float | None:
    """Slider value 0 means "not set" (as transformers' falsy mscale/mscale_all_dim)."""
    return None if not x else float(x)


def _common(dim: int, base: float, factor: float, original_len: int) -> tuple[int, float, float, int, int]:
    dim = check_int("dim", dim, 4, 1024, even=True)
    base = check_float("base", base, 1.0, sc.MAX_BASE, lo_open=True)
    factor = check_float("factor", factor, 1.0, 1024.0)
    L = check_int("original_len", original_len, 16, 10**7)
    return dim, base, factor, L, int(round(factor * L))


def _compute(methods: str, dim: int, base: float, factor: float, L: int, beta_fast: float, beta_slow: float,
             low_freq_factor: float, high_freq_factor: float, mscale: float, mscale_all_dim: float,
             truncate: bool) -> dict[str, tuple[np.ndarray, float]]:
    out = {}
    for m in sc.parse_methods(methods):
        out[m] = sc.scaled_inv_freq(m, dim, base, factor, L, beta_fast=beta_fast, beta_slow=beta_slow,
                                    low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor,
                                    mscale=_opt(mscale), mscale_all_dim=_opt(mscale_all_dim), truncate=truncate)
    return out


def _per_pair_mode(dim: int) -> str:
    """Plotly mode of a per-pair curve: a marker per pair up to 32 pairs (d ≤ 64)."""
    return curve_mode(dim // 2, 32)


WAVELENGTH_CURVES = ("wavelength", "frequency")


# the labels of ``posviz.scaling.METHODS`` that hold words besides the method's name, marked for the catalog
METHOD_WORDS = (N_("RoPE (no scaling)"), N_("NTK-aware (static)"))


def method_label(m: str) -> str:
    """A method's label (``posviz.scaling.METHODS``) in the student's language: names stay, words are translated."""
    label = sc.METHODS[m].label if m in sc.METHODS else m
    return _(label) if label in METHOD_WORDS else label


_label = method_label


LEGEND_ROW = 26  # px a row of a horizontal legend takes at the base font
LEGEND_COLUMNS = 3  # at most this many legend entries per row
LEGEND_WIDTH = 720  # px the legend has in the 820 px column (the plot's width)
LEGEND_CHAR = 7.0  # px per character of a legend entry at the base font (a generous average), + LEGEND_SYMBOL
LEGEND_SYMBOL = 48
AXIS_ROOM = 64  # px under the plot for the x tick labels and the axis title


def legend_columns(names: list[str]) -> int:
    """Entries per row of a legend under the plot: as many as fit the longest entry, at most LEGEND_COLUMNS."""
    longest = max((len(name) for name in names), default=1)
    return max(1, min(LEGEND_COLUMNS, int(LEGEND_WIDTH // (longest * LEGEND_CHAR + LEGEND_SYMBOL))))


def _legend_below(names: list[str], height: int) -> dict:
    """Layout keywords putting the legend in rows under the plot (at the figure's bottom, ``yref="container"``),
    the bottom margin grown to hold them and the figure taller by as much: a legend at the right took ~40 % of
    an 820 px chart from the curves and its entries ran over them. Entries in trace order (a legend group would
    stack its entries in a column of its own), each a column's width, as many columns as the longest fits."""
    columns = legend_columns(names)
    extra = math.ceil(len(names) / columns) * LEGEND_ROW + 8
    return dict(legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left",
                            traceorder="normal", entrywidth=1 / columns - 0.005, entrywidthmode="fraction"),
                margin=dict(b=AXIS_ROOM + extra), height=height + extra)


def _legend_names(f: Panels) -> list[str]:
    return [t["name"] for t in f.traces if isinstance(t, dict) and t.get("showlegend", True) and t.get("name")]


def _shade_long_wavelengths(marks: Marks, lam: np.ndarray, L: int) -> None:
    """Shade the pairs whose original wavelength exceeds L (they never finish a turn in training)."""
    idx = np.nonzero(lam > L)[0]
    if idx.size:
        marks.vrect(idx[0] - 0.5, lam.size - 0.5, _("λ_i > L: never a full turn in training"), outside=True)


@figure("scaling_wavelengths")
def scaling_wavelengths(*, methods: str = DEFAULT_METHODS, dim: int = 128, base: float = 10000.0,
                        factor: float = 8.0, original_len: int = 4096, beta_fast: float = 32.0,
                        beta_slow: float = 1.0, low_freq_factor: float = 1.0, high_freq_factor: float = 4.0,
                        mscale: float = 0.0, mscale_all_dim: float = 0.0, truncate: bool = True,
                        curve: str = "wavelength") -> go.Figure:
    """Wavelength λ'_i = 2π/θ'_i (``curve="wavelength"``) or frequency θ'_i (``"frequency"``) against pair i
    for each method, with L and L' (or 2π/L and 2π/L') marked and the pairs whose wavelength exceeds L
    shaded. One panel: the two curves are reciprocals, and a second panel doubled the browser's redraw."""
    if curve not in WAVELENGTH_CURVES:
        raise ValueError(f"curve must be one of {', '.join(WAVELENGTH_CURVES)}, got {curve!r}")
    dim, base, factor, L, Lp = _common(dim, base, factor, original_len)
    res = _compute(methods, dim, base, factor, L, beta_fast, beta_slow, low_freq_factor, high_freq_factor,
                   mscale, mscale_all_dim, truncate)
    i = np.arange(dim // 2)
    lam0 = 2 * np.pi / inv_freq(dim, base)
    wave = curve == "wavelength"
    f = Panels()
    for m, (theta, _A) in res.items():
        hover = (_("pair %{x}<br>λ' = %{y:.4g} tokens") if wave else _("pair %{x}<br>θ' = %{y:.4g} rad/token"))
        f.scatter(x=i, y=f32(2 * np.pi / theta if wave else theta), mode=_per_pair_mode(dim), name=_label(m),
                  line=dict(color=METHOD_COLORS[m], width=2), marker=dict(size=4),
                  hovertemplate=f"{hover}<extra>{_label(m)}</extra>")
    for n, name, dash in ((L, "L", "dash"), (Lp, "L'", "dot")):  # a turn inside n tokens: λ' < n, θ' > 2π/n
        f.marks.hline(n if wave else 2 * np.pi / n, f"{name} = {n:,}" if wave else f"2π/{name} ({name} = {n:,})",
                      log=True, dash=dash)
    _shade_long_wavelengths(f.marks, lam0, L)
    f.axis("y", title=_("wavelength λ'_i = 2π/θ'_i (tokens)") if wave else _("frequency θ'_i (rad/token)"), log=True,
           exponentformat="B" if wave else "power")  # 10⁻⁴ rather than 100μ rad/token
    f.axis("x", title=_("pair index i"))
    title = (_("Per-pair wavelengths, d = {dim}, b = {base:g}, s = {factor:g}", dim=dim, base=base, factor=factor)
             if wave else
             _("Per-pair frequencies, d = {dim}, b = {base:g}, s = {factor:g}", dim=dim, base=base, factor=factor))
    return f.figure(title=title, hovermode="x unified",
                    **_legend_below(_legend_names(f), 480))


@figure("scaling_ratio")
def scaling_ratio(*, methods: str = DEFAULT_METHODS, dim: int = 128, base: float = 10000.0, factor: float = 8.0,
                  original_len: int = 4096, beta_fast: float = 32.0, beta_slow: float = 1.0,
                  low_freq_factor: float = 1.0, high_freq_factor: float = 4.0, mscale: float = 0.0,
                  mscale_all_dim: float = 0.0, truncate: bool = True) -> go.Figure:
    """Per-pair scale θ_i/θ'_i (1 = untouched, s = fully interpolated) for each method, with YaRN's ramp
    ends and Llama 3's band edges marked."""
    dim, base, factor, L, _Lp = _common(dim, base, factor, original_len)
    res = _compute(methods, dim, base, factor, L, beta_fast, beta_slow, low_freq_factor, high_freq_factor,
                   mscale, mscale_all_dim, truncate)
    theta0 = inv_freq(dim, base)
    i = np.arange(dim // 2)
    f = Panels()
    for m, (theta, A) in res.items():
        name = _label(m) + (f" (A = {A:.3f})" if A != 1 else "")
        f.scatter(x=i, y=f32(theta0 / theta), mode=_per_pair_mode(dim), name=name,
                  line=dict(color=METHOD_COLORS[m], width=2), marker=dict(size=4),
                  hovertemplate=_("pair %{x}<br>θ/θ' = %{y:.4g}") + "<extra>" + _label(m) + "</extra>")
    f.marks.hline(factor, f"s = {factor:g}", log=True, dash="dot", below=True)  # PI's line runs on s itself
    if "yarn" in res:
        low, high = sc.yarn_correction_range(dim, base, L, beta_fast, beta_slow, truncate)
        for x, txt in ((low, f"YaRN low = {low:.3g}"), (high, f"YaRN high = {high:.3g}")):
            if x <= dim // 2 - 1:
                f.marks.vline(x, txt, color=METHOD_COLORS["yarn"], outside=True)
    if "llama3" in res and high_freq_factor > low_freq_factor:
        lam = 2 * np.pi / theta0
        lo_edge = np.searchsorted(lam, L / high_freq_factor)
        hi_edge = np.searchsorted(lam, L / low_freq_factor, side="right")
        if hi_edge > lo_edge:
            f.marks.vrect(lo_edge - 0.5, hi_edge - 0.5, _("Llama 3 band"), color=METHOD_COLORS["llama3"],
                          opacity=0.1, outside=True)
    f.axis("y", title=_("θ_i / θ'_i  (1 = untouched, s = interpolated)"), log=True)
    f.axis("x", title=_("pair index i (fast → slow)"))
    return f.figure(title=_("How much each pair is slowed down (s = {factor:g}, L = {L:,})", factor=factor, L=L),
                    hovermode="x unified",
                    **_legend_below(_legend_names(f), 450))


@figure("scaling_unseen")
def scaling_unseen(*, methods: str = DEFAULT_METHODS, dim: int = 128, base: float = 10000.0,
                   factor: float = 8.0, original_len: int = 4096, beta_fast: float = 32.0, beta_slow: float = 1.0,
                   low_freq_factor: float = 1.0, high_freq_factor: float = 4.0, mscale: float = 0.0,
                   mscale_all_dim: float = 0.0, truncate: bool = True) -> go.Figure:
    """Largest angle per pair in training (L·θ_i) against at the target (L'·θ'_i); pairs that reach angles
    never seen in training are flagged."""
    dim, base, factor, L, Lp = _common(dim, base, factor, original_len)
    res = _compute(methods, dim, base, factor, L, beta_fast, beta_slow, low_freq_factor, high_freq_factor,
                   mscale, mscale_all_dim, truncate)
    i = np.arange(dim // 2)
    f = Panels()
    seen = L * inv_freq(dim, base)
    for m, (theta, _A) in res.items():
        seen, target, flag = sc.unseen_angles(dim, base, factor, L, theta)
        f.scatter(x=i, y=f32(target), mode="lines", name=_("{method}: L'·θ'_i", method=_label(m)),
                  line=dict(color=METHOD_COLORS[m], width=2), legendgroup=m,
                  hovertemplate=_("pair %{x}<br>L'·θ' = %{y:.4g} rad") + "<extra>" + _label(m) + "</extra>")
        if flag.any():
            f.scatter(x=i[flag], y=f32(target[flag]), mode="markers", legendgroup=m,
                      name=_("{method}: unseen angles ({pairs} pairs)", method=_label(m), pairs=int(flag.sum())),
                      marker=dict(symbol="x", size=9, color=METHOD_COLORS[m]),
                      hovertemplate=_("pair %{x} reaches %{y:.4g} rad, never seen in training")
                                    + "<extra>" + _label(m) + "</extra>")
    f.scatter(x=i, y=f32(seen), mode="lines", name=_("training: L·θ_i"),
              line=dict(color="#8c8c8c", dash="dash", width=3),
              hovertemplate=_("pair %{x}<br>L·θ = %{y:.4g} rad") + "<extra>" + _("training") + "</extra>")
    f.marks.hline(2 * np.pi, _("2π: one full turn"), log=True, dash="dot")
    f.axis("y", title=_("largest angle reached (rad)"), log=True)
    f.axis("x", title=_("pair index i"))
    return f.figure(title=_("Unseen angles at L' = {Lp:,} (× = beyond every angle seen in training)", Lp=Lp),
                    **_legend_below(_legend_names(f), 520))


@figure("scaling_yarn_ramp")
def scaling_yarn_ramp(*, dim: int = 128, base: float = 10000.0, original_len: int = 4096, beta_fast: float = 32.0,
                      beta_slow: float = 1.0, truncate: bool = True, ramp: str = "code") -> go.Figure:
    """YaRN's extrapolation weight against pair index and against r = L/λ, the code's ramp (linear in i)
    and the paper's γ(r) (linear in r)."""
    ramp = check_choice("ramp", ramp, sc.RAMPS)
    dim = check_int("dim", dim, 4, 1024, even=True)
    L = check_int("original_len", original_len, 16, 10**7)
    i = np.arange(dim // 2)
    r = sc.rotations(dim, base, L)
    curves = {k: sc.yarn_extrapolation_weight(dim, base, L, beta_fast, beta_slow, truncate, k)
              for k in sc.RAMPS if k == "code" or beta_fast > beta_slow}
    f = Panels.grid(1, 2, (_("by pair index i"), _("by r_i = L/λ_i")))
    custom = np.stack([i, r], axis=1).astype(np.float32)
    ramp_names = {"code": _("code"), "paper": _("paper")}  # the hover's tag of each ramp
    for k, w in curves.items():
        chosen = k == ramp
        name = _("code ramp (linear in i; what implementations compute)") if k == "code" else \
            _("paper ramp γ(r) (linear in r; YaRN Eq. 18)")
        style = dict(color=COLORS[0] if k == "code" else COLORS[1], width=3 if chosen else 1.5,
                     dash="solid" if chosen else "dot")
        for col, x in ((1, i), (2, r)):
            f.scatter(col, x=f32(x), y=f32(w), mode=_per_pair_mode(dim) if chosen else "lines", name=name,
                      legendgroup=k, showlegend=col == 1, line=style, marker=dict(size=5), customdata=custom,
                      hovertemplate=_("pair %{customdata[0]:.0f}, r = %{customdata[1]:.3g}<br>"
                                      "weight on θ_i = %{y:.3f}") + "<extra>" + ramp_names[k] + "</extra>")
    low, high = sc.yarn_correction_range(dim, base, L, beta_fast, beta_slow, truncate)
    # each label outside the ramp, where every curve is flat at the other end of the axis: left of low at the
    # bottom (weights are 1 there), right of high at the top (0); left of α at the top (0), right of β at the bottom
    for x, txt, top, left in ((low, f"low = {low:.3g}", False, True), (high, f"high = {high:.3g}", True, False)):
        if x <= dim // 2 - 1:
            f.marks.vline(x, txt, color=COLORS[0], top=top, left=left)
    for x, txt, top, left in ((beta_slow, f"α = {beta_slow:g}", True, True),  # the paper's names: short labels
                              (beta_fast, f"β = {beta_fast:g}", False, False)):  # left of α do not widen the axis
        f.marks.vline(x, txt, panel=2, log=True, color=COLORS[1], top=top, left=left)
    f.axis("x", 1, title=_("pair index i"))
    f.axis("x", 2, title=_("rotations in L: r = L/λ"), log=True)
    for col in (1, 2):
        f.axis("y", col, title=_("weight w_i on θ_i (1 = untouched)"), range=[-0.05, 1.05])
    # the legend under the panels: at its right it took a third of an 820 px chart from them
    title = (_("YaRN ramp (code shown bold), d = {dim}, L = {L:,}", dim=dim, L=L) if ramp == "code" else
             _("YaRN ramp (paper shown bold), d = {dim}, L = {L:,}", dim=dim, L=L))
    return f.figure(title=title, height=480,
                    legend=dict(orientation="h", y=-0.22))


@figure("scaling_temperature")
def scaling_temperature(*, factor: float = 8.0, mscale: float = 0.0, mscale_all_dim: float = 0.0) -> go.Figure:
    """YaRN's temperature against s: cos/sin factor A = 0.1 ln s + 1, the logit multiplier A², DeepSeek's
    ratio and its softmax multiplier get_mscale(s, mscale_all_dim)²."""
    factor = check_float("factor", factor, 1.0, 1024.0)
    s = np.geomspace(1.0, max(128.0, factor), 200)
    A = np.array([sc.get_mscale(x) for x in s])
    f = Panels()
    curves = [(_("YaRN cos/sin factor A = 0.1 ln s + 1"), A, COLORS[0], "solid"),
              (_("YaRN logit multiplier A²"), A**2, COLORS[0], "dash")]
    if mscale and mscale_all_dim:
        ratio = np.array([sc.yarn_attention_factor(x, mscale, mscale_all_dim) for x in s])
        curves.append((_("DeepSeek cos/sin factor (mscale {mscale:g} / mscale_all_dim {all_dim:g})", mscale=mscale,
                         all_dim=mscale_all_dim), ratio, COLORS[3], "solid"))
    if mscale_all_dim:
        soft = np.array([sc.deepseek_softmax_multiplier(x, mscale_all_dim) for x in s])
        curves.append((_("DeepSeek softmax multiplier (0.1·{all_dim:g}·ln s + 1)²", all_dim=mscale_all_dim), soft,
                       COLORS[3], "dash"))
    for name, y, color, dash in curves:
        f.scatter(x=f32(s), y=f32(y), mode="lines", name=name, line=dict(color=color, dash=dash, width=2.5),
                  hovertemplate="s = %{x:.3g}<br>%{y:.4f}<extra></extra>")
    here = sc.get_mscale(factor)
    f.scatter(x=[factor, factor], y=[here, here**2], mode="markers+text", name=f"s = {factor:g}",
              text=[f"A = {here:.3f}", f"A² = {here**2:.3f}"], textposition="top left",
              marker=dict(size=11, color=COLORS[0]))
    f.axis("x", title=_("scale s = L'/L"), log=True)
    f.axis("y", title=_("multiplier"))
    return f.figure(title=_("Attention temperature: what multiplies cos/sin and the logits"))


@figure("scaling_entropy")
def scaling_entropy(*, dim: int = 128, base: float = 10000.0, factor: float = 8.0, original_len: int = 4096,
                    beta_fast: float = 32.0, beta_slow: float = 1.0, truncate: bool = True, mscale: float = 0.0,
                    mscale_all_dim: float = 0.0, seed: int = 0) -> go.Figure:
    """Softmax entropy of one query against context length under YaRN, with and without its temperature
    (logits × A²), and plain RoPE; ln n is the uniform-attention ceiling."""
    dim, base, factor, L, Lp = _common(dim, base, factor, original_len)
    theta, A = sc.yarn_inv_freq(dim, base, factor, L, beta_fast, beta_slow, _opt(mscale), _opt(mscale_all_dim),
                                None, truncate)
    lengths = np.unique(np.geomspace(16, Lp, 24).astype(np.int64)).astype(np.float64)
    n_keys = 512
    f = Panels()
    f.scatter(x=f32(lengths), y=f32(np.log(lengths)), mode="lines", name=_("ln n (uniform attention)"),
              line=dict(color="#999", dash="dot"))
    for name, th, mult, color, dash in (
            (_("plain RoPE (no scaling)"), inv_freq(dim, base), 1.0, METHOD_COLORS["default"], "solid"),
            (_("YaRN frequencies, no temperature"), theta, 1.0, COLORS[0], "dash"),
            (_("YaRN with temperature (logits × A² = {a2:.3f})", a2=A * A), theta, A * A, COLORS[0], "solid")):
        h = sc.attention_entropy(th, lengths, mult, n_keys=n_keys, seed=seed)
        f.scatter(x=f32(lengths), y=f32(h), mode="lines+markers", name=name,
                  line=dict(color=color, dash=dash, width=2.5), marker=dict(size=5),
                  hovertemplate=_("n = %{x:,.0f}<br>H = %{y:.3f} nats") + "<extra></extra>")
    f.marks.vline(L, f"L = {L:,}", log=True)
    f.axis("x", title=_("context length n (keys at distances 0..n−1)"), log=True)
    f.axis("y", title=_("softmax entropy H (nats)"))
    return f.figure(title=_("Attention entropy vs length (seeded q, k; {n_keys} sampled keys per length)",
                            n_keys=n_keys))


@figure("scaling_dynamic", animated=True)
def scaling_dynamic(*, dim: int = 128, base: float = 10000.0, factor: float = 8.0, original_len: int = 4096,
                    n_frames: int = 30) -> go.Figure:
    """Dynamic NTK: the effective base as the sequence grows (transformers' formula with factor s, and the
    plain l/L version), with a current-length scrubber that plays in the browser."""
    dim, base, factor, L, Lp = _common(dim, base, factor, original_len)
    n_frames = check_int("n_frames", n_frames, 2, 60)
    grid = np.geomspace(max(1, L // 4), max(2 * Lp, 2 * L), 120)
    hf = np.array([sc.dynamic_base(dim, base, factor, L, int(g)) for g in grid])
    plain = np.array([sc.dynamic_base(dim, base, 1.0, L, int(g)) for g in grid])
    i = np.arange(dim // 2)
    theta0 = inv_freq(dim, base)
    steps = np.unique(np.geomspace(L, max(2 * Lp, 2 * L), n_frames).astype(np.int64))

    def state(length: int) -> tuple[list[float], np.ndarray, np.ndarray]:
        b_hf = sc.dynamic_base(dim, base, factor, L, int(length))
        b_pl = sc.dynamic_base(dim, base, 1.0, L, int(length))
        r_hf = theta0 / sc.dynamic_inv_freq(dim, base, factor, L, int(length))[0]
        r_pl = theta0 / sc.dynamic_inv_freq(dim, base, 1.0, L, int(length))[0]
        return [b_hf, b_pl], f32(r_hf), f32(r_pl)

    # The panels take the top 64 % of the plot area and the controls sit in the paper area below them, so
    # they keep clear of the axis titles at any export height (sliders and buttons only take paper y).
    f = Panels([(x, (CONTROLS_ROOM, 1.0)) for x, _y in grid_domains(1, 2, hspace=0.12)],
               (_("effective base b'"), _("per-pair scale θ/θ' at length l")))
    f.scatter(1, x=f32(grid), y=f32(hf), mode="lines", line=dict(color=METHOD_COLORS["dynamic"], width=2.5),
              name=_("transformers 'dynamic', factor s = {factor:g}", factor=factor))
    f.scatter(1, x=f32(grid), y=f32(plain), mode="lines", name=_("α = max(1, l/L) (factor 1)"),
              line=dict(color=COLORS[2], width=2.5, dash="dash"))
    # the still (before Play, and in an export) is the target length L': at l = L the base has not moved yet
    still = int(np.argmin(np.abs(np.log(steps) - math.log(Lp))))
    bases, r_hf, r_pl = state(int(steps[still]))
    f.scatter(1, x=[int(steps[still])] * 2, y=bases, mode="markers", name=_("current length l"),
              marker=dict(size=12, color="#8c8c8c"))
    f.scatter(2, x=i, y=r_hf, mode=_per_pair_mode(dim), name=_("θ/θ', factor s"), showlegend=False,
              line=dict(color=METHOD_COLORS["dynamic"], width=2.5), marker=dict(size=4))
    f.scatter(2, x=i, y=r_pl, mode=_per_pair_mode(dim), name=_("θ/θ', factor 1"), showlegend=False,
              line=dict(color=COLORS[2], width=2.5, dash="dash"), marker=dict(size=4))
    f.marks.vline(L, f"L = {L:,}", log=True, dash="dot")
    f.marks.vline(Lp, f"L' = {Lp:,}", log=True, dash="dot", top=False)
    f.axis("x", 1, title=_("current length l (tokens)"), log=True)
    f.axis("y", 1, title=_("effective base b'"), log=True)
    f.axis("x", 2, title=_("pair index i"))
    # from 0.95: the ratio is never below 1, and a tick at 0.9 would crowd the "1"
    f.axis("y", 2, title="θ_i / θ'_i", log=True, range=[math.log10(0.95), math.log10(max(4.0, factor * factor * 2))])
    frames = []
    for length in steps:
        bases, r_hf, r_pl = state(int(length))
        frames.append(go.Frame(name=str(int(length)), traces=[2, 3, 4],
                               data=[go.Scatter(x=[int(length)] * 2, y=bases), go.Scatter(y=r_hf),
                                     go.Scatter(y=r_pl)]))
    fig = f.figure(
        title=_("Dynamic NTK: the base moves with the sequence (d = {dim}, L = {L:,}, s = {factor:g})", dim=dim, L=L,
                factor=factor), height=550,
        margin=dict(b=100),  # the legend in the right panel's empty top left
        legend=dict(x=f.layout["xaxis2"]["domain"][0] + 0.01, y=0.99, xanchor="left", yanchor="top"),
        **animation_controls([str(int(n)) for n in steps], [f"{int(n):,}" for n in steps], duration=150, y=0.13,
                             slider_x=0.25, prefix=_("current length l = "), active=still))
    fig.frames = frames
    return fig


CONTROLS_ROOM = 0.36  # scaling_dynamic: bottom share of the plot area kept for the play/pause row and slider
ENVELOPE_BINS = 1000  # the far panel of scaling_score: bins of Δ, each drawn as the band min..max
ENVELOPE_SAMPLES = 32  # integer offsets evaluated per bin (all of them when a bin is that narrow)
NEAR_RANGE_STEP = 0.5  # the near panel's score axis reaches down in halves, as far as its curves go below 0


def _steady_range(y: np.ndarray) -> list[float]:
    """A score axis over ``y`` (scores divided by the largest possible score, so never above 1): from 0, or from
    the half below the lowest score when one is negative, up to 1, with a little room. It holds still over almost
    every step of a slider, so the eye sees the curves move against the ceiling of 1, not the axis, and Plotly.js
    moves the curves without drawing the axes again."""
    lo = min(0.0, math.floor(float(y.min()) / NEAR_RANGE_STEP) * NEAR_RANGE_STEP)
    return [lo - 0.05, 1.05]


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _envelope_offsets(Lp: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin centres over Δ = 0..L' and, per bin, up to ENVELOPE_SAMPLES integer offsets evenly inside it:
    (centres (B,), offsets (B, S)). Plotting scores at 2,000 evenly spaced Δ aliased the fast pairs into
    noise; the band from the lowest to the highest score of each bin is what the eye should see."""
    bins = min(ENVELOPE_BINS, Lp + 1)
    edges = np.linspace(0.0, Lp + 1.0, bins + 1)  # (B+1,)
    starts = np.ceil(edges[:-1])  # (B,) first integer offset of each bin
    counts = np.ceil(edges[1:]) - starts  # (B,) integer offsets in each bin, >= 1
    per = int(min(ENVELOPE_SAMPLES, counts.min()))
    offsets = starts[:, None] + np.floor(np.arange(per) * counts[:, None] / per)  # (B, S), distinct, inside
    return (edges[:-1] + edges[1:]) / 2 - 0.5, offsets


@figure("scaling_score")
def scaling_score(*, methods: str = "default,linear,ntk,yarn", dim: int = 128, base: float = 10000.0,
                  factor: float = 8.0, original_len: int = 4096, beta_fast: float = 32.0, beta_slow: float = 1.0,
                  low_freq_factor: float = 1.0, high_freq_factor: float = 4.0, truncate: bool = True,
                  qk: str = "ones", seed: int = 0) -> go.Figure:
    """Attention score (divided by the largest possible score) against relative distance: every token up to 128, and
    sampled out to L' with L marked. PI stretches the curve, NTK and YaRN keep the fast wiggles."""
    dim, base, factor, L, Lp = _common(dim, base, factor, original_len)
    res = _compute(methods, dim, base, factor, L, beta_fast, beta_slow, low_freq_factor, high_freq_factor,
                   0.0, 0.0, truncate)
    near = np.arange(129, dtype=np.float64)
    far_x, far_at = _envelope_offsets(Lp)
    width = (Lp + 1) / far_x.size
    far_title = (_("far: every Δ up to L' = {Lp:,}", Lp=Lp) if width <= 1  # line: bin mean; band: its range
                 else _("far: Δ up to L' = {Lp:,}, bins of {width:.3g}", Lp=Lp, width=width))
    # far: one strip per method, stacked, so that no method's band covers another's (five overlapping bands, the
    # last drawn on top of all, hid every method but one)
    n = len(res)
    gap = 0.04
    strip = (1.0 - gap * (n - 1)) / n
    far_rows = [(max(0.0, 1.0 - r * (strip + gap) - strip), 1.0 - r * (strip + gap)) for r in range(n)]
    f = Panels([((0.0, 0.34), (0.0, 1.0))] + [((0.44, 1.0), row) for row in far_rows],
               (_("near: Δ = 0..128, every token"), far_title))
    near_y = []
    for r, (m, (theta, _A)) in enumerate(res.items(), start=2):
        y = sc.rope_scores(theta, near, qk, seed)
        near_y.append(y)
        f.scatter(1, x=f32(near), y=f32(y), mode="lines", name=_label(m), legendgroup=m,
                  line=dict(color=METHOD_COLORS[m], width=2),
                  hovertemplate=_("Δ = %{x:,.0f}<br>score = %{y:.3f}") + "<extra>" + _label(m) + "</extra>")
        far = sc.rope_scores(theta, far_at.ravel(), qk, seed).reshape(far_at.shape)  # (bins, offsets per bin)
        lo, hi = far.min(axis=1), far.max(axis=1)
        band = _rgba(METHOD_COLORS[m], 0.3)
        # the band's edges are not drawn (mode "none"): a line of width 0 is still laid out point by point at each draw
        f.scatter(r, x=f32(far_x), y=f32(lo), mode="none", name=_("{method}: lowest in bin", method=_label(m)),
                  legendgroup=m, showlegend=False, hoverinfo="skip")
        f.scatter(r, x=f32(far_x), y=f32(hi), mode="none", name=_("{method}: highest in bin", method=_label(m)),
                  legendgroup=m, showlegend=False, fill="tonexty", fillcolor=band, hoveron="points",
                  customdata=f32(lo), hovertemplate=_("Δ ≈ %{x:,.0f}<br>score from %{customdata:.3f} to %{y:.3f}")
                  + "<extra>" + _label(m) + "</extra>")
        f.scatter(r, x=f32(far_x), y=f32(far.mean(axis=1)), mode="lines",
                  name=_("{method}: mean in bin", method=_label(m)), legendgroup=m, showlegend=False,
                  line=dict(color=METHOD_COLORS[m], width=1.5),
                  hovertemplate=_("Δ ≈ %{x:,.0f}<br>mean score %{y:.3f}") + "<extra>" + _label(m) + "</extra>")
        f.marks.vline(L, f"L = {L:,}" if r == 2 else "", panel=r)
        last = r == n + 1
        f.axis("x", r, showticklabels=last, title=_("distance Δ = m − n (tokens)") if last else None,
               exponentformat="SI", range=[0, Lp], **({"matches": "x2"} if r > 2 else {}))  # tokens: 10k, 20k
        # 0 and 1 only: a strip's −1 would sit on the 1 of the strip below it
        f.axis("y", r, range=[-1.05, 1.05], tickvals=[0, 1], zeroline=True)
    f.axis("x", 1, title=_("distance Δ = m − n (tokens)"), range=[0, 128])
    f.axis("y", 1, title=_("score / largest possible score"), range=_steady_range(np.concatenate(near_y)))
    title = (_("Attention score vs distance (q = k = all ones)") if qk == "ones" else
             _("Attention score vs distance (seeded random q, k (seed {seed}))", seed=seed))
    return f.figure(title=title,
                    **_legend_below(_legend_names(f), max(460, 160 + 70 * n)))


@figure("scaling_config")
def scaling_config(*, preset: str = "Llama 3.1 8B", config_json: str = "", seq_len: int = 0) -> go.Figure:
    """A model's RoPE as its config.json says: per-pair wavelengths before/after scaling (with L and the
    target length) and the per-pair scale, at a short and at the target length."""
    if config_json.strip():
        cfg = sc.parse_config_text(config_json)
        title_name = _("pasted config.json")
    else:
        cfg = ps.get_preset(preset).config
        title_name = preset
    rc = sc.read_rope_config(cfg)
    target = sc.config_target_length(rc) if seq_len <= 0 else check_int("seq_len", seq_len, 1, sc.MAX_LENGTH)
    theta0 = inv_freq(rc.dim, rc.base)
    short, A = sc.inv_freq_from_config(cfg, None)
    long, _A = sc.inv_freq_from_config(cfg, target)
    L = sc.config_original_length(rc)  # None when the config states only its scaled length (Gemma 3)
    i = np.arange(rc.dim // 2)
    f = Panels.grid(1, 2, (_("wavelength per pair (tokens)"), _("per-pair scale θ_i/θ'_i")))
    f.scatter(1, x=i, y=f32(2 * np.pi / theta0), mode="lines", name=_("original RoPE"),
              line=dict(color=METHOD_COLORS["default"], width=2, dash="dash"))
    color = METHOD_COLORS.get(rc.rope_type, COLORS[0])
    f.scatter(1, x=i, y=f32(2 * np.pi / long), mode=_per_pair_mode(rc.dim),
              name=_("{kind} at length {target:,}", kind=rc.rope_type, target=target),
              line=dict(color=color, width=2.5), marker=dict(size=4))
    f.scatter(2, x=i, y=f32(theta0 / long), mode=_per_pair_mode(rc.dim), name=_("scale at {target:,}", target=target),
              showlegend=False, line=dict(color=color, width=2.5), marker=dict(size=4))
    if not np.allclose(short, long):
        f.scatter(2, x=i, y=f32(theta0 / short), mode="lines", name=_("{kind} at short lengths", kind=rc.rope_type),
                  line=dict(color=color, width=1.5, dash="dot"))
    if L:
        f.marks.hline(L, f"L = {L:,}", log=True)
    if target != L:
        f.marks.hline(target, _("target {target:,}", target=target), log=True, dash="dot")
    f.axis("y", 1, title=_("λ (tokens)"), log=True)
    f.axis("y", 2, title="θ/θ'", log=True)
    for col in (1, 2):
        f.axis("x", col, title=_("pair index i"))
    return f.figure(title=f"{title_name}: {rc.rope_type}, d = {rc.dim}, b = {rc.base:g}, cos/sin × {A:.4g}",
                   height=460, legend=dict(orientation="h", y=-0.22))


@figure("scaling_pitfall")
def scaling_pitfall(*, case: str = "floor_ceil", variant: str = "wrong", dim: int = 64, base: float = 10000.0,
                    factor: float = 16.0, original_len: int = 2048) -> go.Figure:
    """One common pitfall of context-extension code or write-ups, drawn either the wrong way or the right way
    (docs/FORMULAS.md §5.7); each case is one function of ``posviz.figures._scaling_pitfalls``."""
    case = check_choice("case", case, PITFALLS)
    wrong = check_choice("variant", variant, VARIANTS) == "wrong"
    dim, base, factor, L, _Lp = _common(dim, base, factor, original_len)
    f = Panels()
    drawn = pitfall_cases.CASES[case](f, wrong, inv_freq(dim, base), dim, base, factor, L)
    f.axis("y", title=drawn.y_title, log=drawn.log_y)
    f.axis("x", title=drawn.x_title or _("pair index i"))
    return f.figure(title=("✗ " if wrong else "✓ ") + drawn.title, height=400, legend=dict(orientation="h", y=-0.25))
