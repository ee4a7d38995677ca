"""The six pitfalls of context-extension code and write-ups that ``scaling_pitfall`` draws, one function each.

Each draws its case on a ``Panels``, the wrong way (the pitfall, with the right curve dotted for reference where
that helps) or the right way, and returns what the figure's title and axes say. Every number comes from
``posviz.scaling`` (docs/FORMULAS.md §5.7 lists the pitfalls and their sources).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from posviz import scaling as sc
from posviz.figures._common import Panels, f32
from posviz.i18n import _
from posviz.theme import COLORS

REFERENCE = "#999"  # the dotted curve drawn for reference beside a wrong one


class Drawn(NamedTuple):
    """What a drawn case says: the figure's title (without the ✗/✓ mark) and its axes (None: the pair index and
    θ_i / θ'_i, in the language of the build)."""
    title: str
    x_title: str | None = None
    y_title: str = "θ_i / θ'_i"
    log_y: bool = True


def ratio_trace(f: Panels, theta0: np.ndarray, theta: np.ndarray, name: str, color: str,
                dash: str = "solid", width: float = 2.5) -> None:
    """One curve of θ_i/θ'_i per pair: how much a method slows each pair down."""
    f.scatter(x=np.arange(theta0.size), y=f32(theta0 / theta), mode="lines+markers", name=name,
              line=dict(color=color, dash=dash, width=width), marker=dict(size=4),
              hovertemplate=_("pair %{x}<br>θ/θ' = %{y:.4g}") + "<extra></extra>")


def _reference(f: Panels, theta0: np.ndarray, theta: np.ndarray, name: str | None = None) -> None:
    ratio_trace(f, theta0, theta, name or _("correct (for reference)"), REFERENCE, "dot", 1.5)


def floor_ceil(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float, L: int) -> Drawn:
    """YaRN's ramp ends rounded before the division by 2 ln b (fractional ends) against the whole quotient rounded."""
    right, _A = sc.yarn_inv_freq(dim, base, factor, L)
    if not wrong:
        low, high = sc.yarn_correction_range(dim, base, L)
        ratio_trace(f, theta0, right, _("floor/ceil of the whole quotient: low, high = {low:g}, {high:g}", low=low,
                                        high=high), COLORS[2])
        return Drawn(_("integer ramp ends {low:g} and {high:g}", low=low, high=high))
    bad = sc.numerator_rounded_yarn_inv_freq(dim, base, factor, L)
    wl, wh = sc.numerator_rounded_yarn_bounds(dim, base, L)
    ratio_trace(f, theta0, bad, _("rounded before ÷: low, high = {low:.3f}, {high:.3f}", low=wl, high=wh), COLORS[3])
    _reference(f, theta0, right)
    err = float(np.max(np.abs(bad / right - 1)))
    return Drawn(_("ramp ends {low:.3f}, {high:.3f}: θ' off by up to {err:.0%}", low=wl, high=wh, err=err))


def mscale(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float, L: int) -> Drawn:
    """The logit multiplier against s: 0.707 applied to cos/sin (cools) against YaRN's and DeepSeek's (sharpen)."""
    s = np.geomspace(1, 128, 120)
    right = np.array([sc.get_mscale(x) ** 2 for x in s])
    if wrong:
        bad = np.array([sc.scaled_cos_sin_logit_multiplier(x) for x in s])
        f.scatter(x=f32(s), y=f32(bad), mode="lines", name="cos/sin × 0.707·(0.1 ln s + 1)",
                  line=dict(color=COLORS[3], width=3))
        f.scatter(x=f32(s), y=f32(right), mode="lines", name=_("correct (for reference)"),
                  line=dict(color=REFERENCE, dash="dot"))
        title = _("logits × {wrong:.3f} at s = {s:g}, not × {right:.3f}",
                  wrong=sc.scaled_cos_sin_logit_multiplier(factor), s=factor, right=sc.get_mscale(factor) ** 2)
    else:
        ds = np.array([sc.deepseek_softmax_multiplier(x, 0.707) for x in s])
        f.scatter(x=f32(s), y=f32(right), mode="lines", name="YaRN: (0.1 ln s + 1)²",
                  line=dict(color=COLORS[2], width=3))
        f.scatter(x=f32(s), y=f32(ds), mode="lines", name=_("DeepSeek-V2: (0.1·0.707·ln s + 1)² on the "
                  "softmax scale, cos/sin × 1"), line=dict(color=COLORS[0], width=3, dash="dash"))
        title = _("0.707 lives inside get_mscale (DeepSeek)")
    f.axis("x", log=True)
    return Drawn(title, _("scale s"), _("attention logits multiplied by"), log_y=False)


def linear(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float, L: int) -> Drawn:
    """A 'linear' function without a scale parameter (plain RoPE) against Position Interpolation's θ/s."""
    if wrong:
        ratio_trace(f, theta0, theta0, _("'linear' without a scale parameter: plain RoPE"), COLORS[3])
        title = _("'linear' without a scale: nothing moves")
    else:
        ratio_trace(f, theta0, sc.linear_inv_freq(dim, base, factor)[0], f"PI: θ/s, s = {factor:g}", COLORS[2])
        title = _("PI: every pair slowed by s = {s:g}", s=factor)
    f.marks.hline(factor, f"s = {factor:g}", log=True, dash="dot")
    return Drawn(title)


def inverted_bands(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float,
                   L: int) -> Drawn:
    """The fast pairs interpolated and the slow ones kept (the bands inverted) against YaRN's bands."""
    if wrong:
        ratio_trace(f, theta0, sc.inverted_yarn_inv_freq(dim, base, factor, L),
                    _("inverted: fast pairs interpolated, slow pairs kept"), COLORS[3])
        title = _("fast pairs interpolated, slow pairs kept")
    else:
        ratio_trace(f, theta0, sc.yarn_inv_freq(dim, base, factor, L)[0],
                    _("YaRN: fast pairs (short λ) kept, slow pairs (λ > L) ÷ s"), COLORS[2])
        title = _("fast pairs kept, slow pairs ÷ s")
    f.marks.hline(factor, f"s = {factor:g}", log=True, dash="dot")
    return Drawn(title)


def beta_fast_zero(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float,
                   L: int) -> Drawn:
    """A config's beta_fast 0, which transformers reads as 32, against an explicit beta_fast = 8."""
    ref, _A = sc.yarn_inv_freq(dim, base, factor, L, 32, 1)
    if wrong:
        cfg = {"head_dim": dim, "rope_theta": base, "max_position_embeddings": int(factor * L),
               "rope_scaling": {"type": "yarn", "factor": factor, "original_max_position_embeddings": L,
                                "beta_fast": 0}}
        ratio_trace(f, theta0, sc.inv_freq_from_config(cfg)[0],
                    _("config says beta_fast: 0 (as transformers reads it)"), COLORS[3])
        title = _("beta_fast 0 gives the same curve as 32")
    else:
        ratio_trace(f, theta0, sc.yarn_inv_freq(dim, base, factor, L, 8, 1)[0],
                    _("beta_fast = 8 written explicitly"), COLORS[2])
        title = _("an explicit beta_fast = 8 moves the ramp")
    _reference(f, theta0, ref, "beta_fast = 32")
    return Drawn(title)


def llama3_temperature(f: Panels, wrong: bool, theta0: np.ndarray, dim: int, base: float, factor: float,
                       L: int) -> Drawn:
    """'Llama 3 is YaRN' (another ramp and a temperature) against Llama 3 = YaRN's paper ramp without one."""
    l3, a3 = sc.llama3_inv_freq(dim, base, factor, L, 1.0, 4.0)
    if wrong:
        ya, ay = sc.yarn_inv_freq(dim, base, factor, L)
        ratio_trace(f, theta0, ya, _("'Llama 3 is YaRN': code ramp β 32/1, logits × {a2:.3f}", a2=ay * ay), COLORS[3])
        _reference(f, theta0, l3, _("actual Llama 3 (for reference)"))
        return Drawn(_("'Llama 3 is YaRN': another ramp, plus A²"))
    yp, ayp = sc.yarn_inv_freq(dim, base, factor, L, 4.0, 1.0, ramp="paper")
    ratio_trace(f, theta0, l3, _("Llama 3 (low 1, high 4), cos/sin × {a:g}", a=a3), COLORS[2])
    ratio_trace(f, theta0, yp, _("YaRN paper ramp α = 1, β = 4 (it would add × {a:.3f})", a=ayp), COLORS[0], "dash",
                2)
    return Drawn(_("Llama 3 = paper ramp (α 1, β 4), no temperature"))


CASES: dict[str, Callable[..., Drawn]] = {
    "floor_ceil": floor_ceil, "mscale": mscale, "linear": linear, "inverted_bands": inverted_bands,
    "beta_fast_zero": beta_fast_zero, "llama3_temperature": llama3_temperature,
}
