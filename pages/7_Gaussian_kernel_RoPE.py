"""Gaussian-kernel RoPE (from the Gaussian Kernel-enhanced RoPE post in docs/SOURCES.md): the kernel, three ways
to apply it, what each does to attention, and the pitfalls of code that applies it."""

import streamlit as st

from posviz import gaussian as gk
from posviz import ui
from posviz.figures import gaussian as fg
from posviz.figures.gaussian import (
    gaussian_attention,
    gaussian_attention_grid,
    gaussian_envelope,
    gaussian_kernel_broadcast,
    gaussian_kernel_curve,
    gaussian_magnitude_only,
    gaussian_mixed_layout,
    gaussian_shift_check,
    mode_label,
)
from posviz.i18n import N_, _


@ui.cached
def shift_numbers(m: int, n: int, shift: int, d: int, base: float, seed: int, a1: float, a2: float,
                  s1: float, s2: float) -> dict:
    return gk.shift_check(m, n, shift, d, base, seed, a1, a2, s1, s2)


@ui.cached
def broadcast_error(a1: float, a2: float, s1: float, s2: float) -> str:
    return gk.feature_axis_broadcast(128, 64, 2, a1, a2, s1, s2)[1] or ""


@ui.cached
def angle_gap(d: int, base: float, seed: int, a1: float, a2: float, s1: float, s2: float) -> tuple[float, float]:
    s = gk.spiral(2, 40, d, base, seed, a1, a2, s1, s2)
    return float(abs(s["angle_kernel"] - s["angle_rope"]).max()), float(s["radius_kernel"][-1] / s["radius_rope"][-1])




lesson = ui.Lesson(
    "gaussian_kernel_rope", N_("Gaussian-kernel RoPE"), icon="🔔", order=7, headline="gaussian_attention",
    summary=N_("A blog post's two-scale Gaussian kernel K(r) and three ways to apply it to RoPE — as the post "
               "writes it (K(m)K(n)), relative ×K(m−n), relative +log K(|m−n|) — on real softmax attention beside "
               "plain RoPE, with a shift check showing only the relative modes depend on m − n alone."),
    intro=N_("One of our source articles, “Gaussian Kernel-enhanced Rotary Position Embedding”, proposes scaling "
             "RoPE by a two-scale Gaussian kernel K, one narrow (local) and one wide (global). It is not a "
             "published method: the page shows the kernel, three ways it could be applied, what each does to a "
             "real softmax attention matrix, and which of them keeps RoPE's promise that only the distance m − n "
             "matters."),
    controls=(
            ui.Float("alpha1", N_("local weight α1"), default=0.7, lo=0.0, hi=1.0, step=0.05),
            ui.Float("alpha2", N_("global weight α2"), default=0.3, lo=0.0, hi=1.0, step=0.05),
            ui.Float("sigma1", N_("local width σ1 (tokens)"), default=5.0, lo=0.5, hi=50.0, step=0.5),
            ui.Float("sigma2", N_("global width σ2 (tokens)"), default=20.0, lo=1.0, hi=500.0, step=1.0),
            ui.Int("T", N_("sequence length T"), default=128, lo=8, hi=512, step=8,
                   help=N_("Attention matrices are T × T; T is at most 512.")),
            ui.Int("d", N_("head dim d"), default=64, lo=8, hi=256, step=2, help=N_("rotary dimension (even)")),
            ui.LogFloat("base", N_("base b"), default=10000.0, lo=10.0, hi=1e7),
            ui.Int("seed", N_("random seed of q, k"), default=0, lo=0, hi=9999, widget="number",
                   help=N_("q and k are i.i.d. standard normal token vectors drawn with this seed.")),
    ),
)


def kernel_settings(v: ui.Values) -> dict:
    """The kernel's parameters; α1 = α2 = 0 (K = 0, log K undefined) falls back to the defaults, with a warning."""
    alpha1, alpha2 = v.alpha1, v.alpha2
    if alpha1 == 0 and alpha2 == 0:
        st.warning(_("α1 and α2 are both 0, so K would be 0 everywhere (and log K undefined). Using the defaults "
                     "α1 = 0.7 and α2 = 0.3 instead."), icon="⚠️")
        alpha1, alpha2 = 0.7, 0.3
    if v.sigma1 > v.sigma2:
        st.info(_("σ1 is wider than σ2 here, so the 'local' and 'global' roles swap. The math does not mind."))
    return dict(alpha1=alpha1, alpha2=alpha2, sigma1=v.sigma1, sigma2=v.sigma2)


@ui.cached
def _near_far(T: int, d: int, base: float, seed: int, mode: str, kern: tuple) -> float:
    profile = gk.mean_by_distance(gk.attention(T, d, base, seed, mode, **dict(kern)))
    return float(profile[:3].mean() / profile[T // 2:].mean())


def near_far(qk: dict, kern: dict, mode: str) -> float:
    """Mean attention weight of keys within 2 tokens over that of keys beyond T/2, as the envelope draws it."""
    return _near_far(qk["T"], qk["d"], qk["base"], qk["seed"], mode, tuple(sorted(kern.items())))


def wide_reach(kern: dict, wide: object) -> str:
    """How far the wide term reaches, from its values at σ2 and 2σ2 (or that it is switched off)."""
    if kern["alpha2"] == 0:
        return _("the wide term is switched off here (α2 = 0), so nothing reaches far.")
    return _("the wide term (σ2) reaches further (global): it is still {at_sigma:.3g} ({share_sigma:.0%} of α2) at "
             "σ2 = {sigma2:g} tokens and {at_twice:.3g} ({share_twice:.0%}) at 2σ2.", at_sigma=wide[0],
             share_sigma=wide[0] / kern['alpha2'], sigma2=kern['sigma2'], at_twice=wide[1],
             share_twice=wide[1] / kern['alpha2'])


def times(ratio: float) -> str:
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.2g}"


def qk_settings(v: ui.Values) -> dict:
    """The seeded q, k vectors' settings."""
    return dict(T=v.T, d=v.d, base=v.base, seed=v.seed)


@lesson.part('kernel', N_('1. The kernel'), uses=('alpha1', 'alpha2', 'sigma1', 'sigma2'))
def part_kernel(v: ui.Values) -> None:
    kern = kernel_settings(v)
    local, wide = gk.kernel_components([kern["sigma2"], 2 * kern["sigma2"]], **kern)
    ui.figure_panel(
        gaussian_kernel_curve, kern, key="kernel", live=("alpha1", "alpha2", "sigma1", "sigma2"),
        caption=_("What to notice: the narrow term (σ1) falls off within a few tokens, so it favours close "
                  "neighbours (local); {wide} The sum starts at α1 + α2 and is even in r. Dotted lines mark σ1 and "
                  "σ2, where each term has dropped to 61 % of its height.", wide=wide_reach(kern, wide)),
        latex=r"K(r) = \alpha_1\, e^{-r^2/2\sigma_1^2} + \alpha_2\, e^{-r^2/2\sigma_2^2}",
        code=[gk.gaussian_kernel, gk.kernel_components],
    )


@lesson.part('modes', N_('2. Three ways to apply it'),
              uses=('T', 'alpha1', 'alpha2', 'base', 'd', 'seed', 'sigma1', 'sigma2'),
             controls=(
                 ui.Bool("all4", N_("show all four modes side by side"), default=False),
                 ui.Choice("mode", N_("mode shown beside plain RoPE"), default="absolute",
                           options={m: gk.MODE_LABELS[m] for m in gk.MODES if m != "rope"}),
             ))
def part_modes(v: ui.Values) -> None:
    kern = kernel_settings(v)
    qk = qk_settings(v)
    ui.prose(_(  # folded under "Notes" in presenter mode: the chart stays near the top of a projector's screen
        "All three start from the RoPE logit of query m and key n, "
        "$\\ell_{{mn}} = (R_m q_m)^\\top (R_n k_n)/\\sqrt d$, which depends on positions only through m − n.\n\n"
        "- **(a) as the article writes it**: multiply the rotated q and k by K of their *absolute* positions, "
        "$f(x, m) = K(m)\\,R_m x$. The logit becomes $K(m)K(n)\\,\\ell_{{mn}}$.\n"
        "- **(b) relative, multiplicative**: $K(m-n)\\,\\ell_{{mn}}$. It needs the T × T logits: no per-token "
        "scaling can produce $K(m-n)$, because $e^{{-(m-n)^2/2\\sigma^2}}$ does not split into $f(m)\\,g(n)$.\n"
        "- **(c) relative, additive log-bias**: $\\ell_{{mn}} + \\log K(|m-n|)$, which multiplies each softmax "
        "weight by $K(|m-n|)$ before renormalising, like ALiBi and KERPLE do with their own kernels "
        "([the distance-bias lesson]({address}) puts this kernel beside them). "
        "K is clamped at $10^{{-30}}$ before the log.", address=ui.href('bias', part='gaussian')
    ))
    # one attention chart at a time: the four-way view replaces the pair, so a slider move redraws one chart
    if ui.controls("all4", where="main", columns=1).all4:
        ui.figure_panel(
            gaussian_attention_grid, {**qk, **kern}, key="grid",
            live=("alpha1", "alpha2", "sigma1", "sigma2", "T", "d", "base"),
            caption=_("The four side by side at the same settings. Read each row as one query: a horizontal band "
                      "of one colour means that query spreads its attention evenly over every key."),
            code=[gk.attention],
        )
    else:
        sel = ui.controls("mode", where="main", columns=1)
        ui.figure_panel(
            gaussian_attention, {**qk, **kern, "mode": sel.mode}, key="attention",
            live=("alpha1", "alpha2", "sigma1", "sigma2", "T", "d", "base"),
            caption=_("What to notice: with random q and k, plain RoPE attention is noise around 1/T everywhere. "
                      "(a) leaves the first rows alone but turns every later row into a flat, uniform smear: "
                      "K(m)K(n) drives those logits to 0. (b) also pushes far logits to 0, which again means uniform, "
                      "not ignored. Only (c) actually suppresses distant keys, giving a band around the diagonal "
                      "whose width follows σ2. Colour is log10 of the weight; no causal mask."),
            latex=r"A_{mn} = \operatorname{softmax}_n\big(s_{mn}\big),\quad s_{mn} \in \{\ell_{mn},\ "
                  r"K(m)K(n)\,\ell_{mn},\ K(m-n)\,\ell_{mn},\ \ell_{mn} + \log K(|m-n|)\}",
            code=[gk.attention, gk.apply_kernel, gk.rope_logits, gk.random_qk],
        )
    st.caption(_("T × T = {cells:,} cells per matrix. The charts show at most {side} × {side} cells per matrix "
                 "({grid} × {grid} in the four-way view); larger T are averaged over blocks, as the chart titles "
                 "say.", cells=v.T * v.T, side=fg.SIDE_COMPARE, grid=fg.SIDE_GRID))


@lesson.part('envelope', N_('3a. Effect on attention'),
              uses=('T', 'alpha1', 'alpha2', 'base', 'd', 'seed', 'sigma1', 'sigma2'),
              title=N_('3a. What it does to attention'))
def part_envelope(v: ui.Values) -> None:
    kern = kernel_settings(v)
    qk = qk_settings(v)
    queries = tuple(m for m in (10, 40, 100) if m < v.T) or (v.T - 1,)
    ui.figure_panel(
        gaussian_envelope, {**qk, **kern, "queries": queries}, key="envelope",
        live=("alpha1", "alpha2", "sigma1", "sigma2", "T", "d", "base"),
        caption=_("Left: the factor each mode puts on the score. For (b) and (c) it is the same curve K(Δ) for "
                  "every query. For (a) it depends on where the query sits: at m = 40, a key only 3 tokens back "
                  "already gets K(40)·K(37), far below K(3). Right: the measured mean attention weight at each "
                  "distance. Keys within 2 tokens get {log}× the weight of keys more than T/2 away under (c), "
                  "{mul}× under (b) and {absolute}× under (a): only (c) makes attention fall off with distance; (b) "
                  "tilts it towards neighbours without suppressing far keys, (a) leaves it almost flat.",
                  log=times(near_far(qk, kern, 'relative_log')), mul=times(near_far(qk, kern, 'relative_mul')),
                  absolute=times(near_far(qk, kern, 'absolute'))),
        code=[gk.mean_by_distance, gk.gaussian_kernel],
    )


@lesson.part('shift', N_('3b. The shift check'),
              uses=('alpha1', 'alpha2', 'base', 'd', 'seed', 'sigma1', 'sigma2'),
              title=N_('3b. The shift check: move both positions, keep the distance'),
             controls=(
                 ui.Int("m", N_("query position m"), default=3, lo=0, hi=512),
                 ui.Int("n", N_("key position n"), default=0, lo=0, hi=512),
                 ui.Int("shift", N_("shift c (both)"), default=37, lo=0, hi=512),
             ))
def part_shift(v: ui.Values) -> None:
    kern = kernel_settings(v)
    sh = ui.controls(where="main", columns=3)
    res = shift_numbers(sh.m, sh.n, sh.shift, v.d, v.base, v.seed, kern["alpha1"], kern["alpha2"], v.sigma1,
                        v.sigma2)
    ui.figure_panel(
        gaussian_shift_check, {"m": sh.m, "n": sh.n, "shift": sh.shift, "d": v.d, "base": v.base,
                                 "seed": v.seed, **kern}, key="shift",
                                 live=("m", "n", "shift", "alpha1", "alpha2", "sigma1", "sigma2", "d", "base"),
        caption=_("The same token pair, scored at (m, n) and again at (m + c, n + c). A relative encoding must give "
                  "the same bar twice. Plain RoPE, (b) and (c) do; (a) does not, because its factor is K(m)K(n)."),
        code=[gk.shift_check],
    )
    a = res["absolute"]
    ui.numbers({
        _("K(m)K(n) at ({m}, {n})", m=sh.m, n=sh.n): a["factor_before"],
        _("K(m)K(n) at ({m}, {n})", m=sh.m + sh.shift, n=sh.n + sh.shift): a["factor_after"],
        _("K(m−n) = K({distance}) at both", distance=sh.m - sh.n): res["relative_mul"]["factor_before"],
        _("log K(|m−n|) at both"): res["relative_log"]["factor_before"],
    }, fmt="{:.4g}")
    for mode in ("relative_mul", "relative_log", "absolute"):
        before, after = res[mode]["before"], res[mode]["after"]
        ok = abs(after - before) <= 1e-9 * max(1.0, abs(before))
        ui.check(_("{mode}: logit unchanged by the shift", mode=mode_label(mode)), ok,
                 _("{before:.6g} before, {after:.6g} after", before=before, after=after))


def mixed_layout_pitfall(v: ui.Values) -> None:
    """The kernel on a score whose pair layout is mixed: the diagonals are no longer constant."""
    ui.pitfall(
        _("mixed pair layout"),
        _("Code whose `rotate_half` swaps neighbours `(x0, x1), (x2, x3), ...` (the interleaved layout) but "
          "builds cos and sin with `cat((freqs, freqs))` (the half-split layout) mixes the two, so the kernel "
          "multiplies a score that no longer depends on m − n alone ({link} shows why the mix is not a "
          "rotation). Either layout works when cos/sin and the rotation agree.", link=ui.link('rope', 'mixed')),
        key="mixed",
        wrong=lambda: ui.figure_panel(
            gaussian_mixed_layout, {"layout": "mixed", "d": v.d, "base": v.base, "seed": v.seed},
            key="mixed_wrong", live=("d", "base"),
            caption=_("Mixed layout: the diagonals are not constant, and the score at a fixed distance wanders "
                      "along the sequence (even at Δ = 0).")),
        right=lambda: ui.figure_panel(
            gaussian_mixed_layout, {"layout": "interleaved", "d": v.d, "base": v.base, "seed": v.seed},
            key="mixed_right", live=("d", "base"),
            caption=_("Each angle repeated for its own pair: constant diagonals, flat lines."),
            code=[gk.mixed_layout_rope, gk.toeplitz_error]),
    )


@lesson.part('pitfalls', N_('4. Pitfalls'),
              uses=('alpha1', 'alpha2', 'base', 'd', 'seed', 'sigma1', 'sigma2'),
              title=N_('4. Pitfalls: layout, broadcast, frequency'),
             controls=(
                 ui.Bool("spiral", N_("show the rotation with and without K"), default=False),
             ))
def part_pitfalls(v: ui.Values) -> None:
    kern = kernel_settings(v)
    mixed_layout_pitfall(v)

    def broadcast_wrong() -> None:
        st.markdown(_("A demo with x of shape (2, 128, 64) and K_r of shape (128,):"))
        st.code("K_r * ((x * cos) + (rotate_half(x) * sin))\nRuntimeError: " + broadcast_error(
            kern["alpha1"], kern["alpha2"], v.sigma1, v.sigma2), language=None, wrap_lines=True)
        ui.figure_panel(gaussian_kernel_broadcast, {"version": "feature_axis", "T": 64, "D": 64, **kern},
                        key="bc_wrong", live=("alpha1", "alpha2", "sigma1", "sigma2"),
                        caption=_("With T = D = 64 it runs without a word, but token t's channel c is scaled by "
                                  "K(c): every token gets the same treatment, and position plays no part."),
                        code=[gk.feature_axis_broadcast])

    ui.pitfall(
        _("the kernel broadcast along the feature axis"),
        _("`K_r` has shape `(T,)` and `x` has shape `(batch, T, D)`. Broadcasting lines up the **last** axes, so "
          "`K_r` meets the feature axis. With T ≠ D it stops with a shape error; with T = D "
          "it silently scales channels instead of positions. Per-position scaling is `K_r[None, :, None] * x`."),
        key="broadcast",
        wrong=broadcast_wrong,
        right=lambda: ui.figure_panel(
            gaussian_kernel_broadcast, {"version": "fixed", "T": 64, "D": 64, **kern}, key="bc_right",
            live=("alpha1", "alpha2", "sigma1", "sigma2"),
            caption=_("One factor K(t) per token, the same for all its channels."), code=[gk.intended_scale]),
    )

    ui.pitfall(
        _("“the kernel controls the rotation frequency”"),
        _("Scaling by K is sometimes described as adjusting RoPE's rotation frequency. A "
          "positive factor cannot turn a vector: K(m)·R_m x points exactly where R_m x points, only shorter. The "
          "angle still grows by θ_i per token; only the length changes."),
        key="frequency",
    )
    gap, shrink = angle_gap(v.d, v.base, v.seed, kern["alpha1"], kern["alpha2"], v.sigma1, v.sigma2)
    ui.check(_("K(m)·R_m q has the same angle as R_m q at every position"), gap < 1e-9,
             _("largest angle difference {gap:.1e} rad over m = 0..39, while the length shrinks to {shrink:.3g} "
               "of its start by m = 39", gap=gap, shrink=shrink))
    if ui.controls(where="main", columns=1).spiral:
        ui.figure_panel(
            gaussian_magnitude_only, {"d": v.d, "base": v.base, "seed": v.seed, **kern}, key="magnitude",
            live=("alpha1", "alpha2", "sigma1", "sigma2", "d", "base"),
            caption=_("Left: plain RoPE walks around a circle; K(m)·R_m spirals inward along the same rays. Middle: "
                      "the two angle lines lie on top of each other. Right: only the length differs, by the factor "
                      "K(m)."),
            code=[gk.spiral, gk.as_written_qk],
        )


lesson.run()
