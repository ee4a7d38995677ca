"""What the Context extension lesson says beside its per-pair figures, computed: the numbers row, the pairs that
reach unseen angles, where YaRN's ramp ends, the temperature's effect on entropy, dynamic NTK's calls in a row and
the numbers the pitfalls quote. Every number comes from ``posviz.scaling`` at the student's settings, the same
calls the figures draw from (docs/FORMULAS.md §5), so a caption never says what the chart does not show.
No figure is built here (``__all__`` is empty); no streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from posviz import scaling as sc
from posviz.figures.scaling import ENVELOPE_BINS, method_label
from posviz.i18n import _

__all__: list[str] = []

PITFALL_SETTING = dict(dim=64, base=10000.0, factor=16.0, original_len=2048)  # where the pitfalls are drawn


def short(x: float) -> str:
    """A base or a wavelength for prose: "500,000", or "1.5e+09" past a billion."""
    return f"{x:,.0f}" if x < 1e9 else f"{x:.3g}"


def unset(x: float) -> float | None:
    """A 0 on the mscale controls means "not set", as transformers reads a missing or 0 value."""
    return float(x) if x else None


def key_numbers(values: Mapping[str, object]) -> dict[str, str | int]:
    """The numbers the part's sidebar settings determine, by label: L' = s·L, the pairs whose wavelength exceeds
    L, NTK's base b' = b·s^(d/(d−2)), YaRN's ramp ends and its temperature A (logits × A²). ``values``: the
    lesson's control values by name (d, base, s, L, beta_fast, beta_slow, truncate, mscale, mscale_all_dim), only
    those the part reads; a number is shown when its controls are there."""
    v = values
    shown: dict[str, str | int] = {}
    if "s" in v and "L" in v:
        shown["L' = s·L"] = f"{int(round(v['s'] * v['L'])):,}"
    if "d" in v:
        shown[_("pairs with λ > L")] = int((sc.rotations(v["d"], v["base"], int(v["L"])) < 1).sum())
    if "d" in v and "s" in v:
        shown[_("NTK base b'")] = short(sc.ntk_base(v["d"], v["base"], v["s"]))
    if "beta_fast" in v:
        low, high = sc.yarn_correction_range(v["d"], v["base"], int(v["L"]), v["beta_fast"], v["beta_slow"],
                                             v["truncate"])
        shown[_("YaRN low, high")] = f"{low:g}, {high:g}"
    if "mscale" in v:
        factor = sc.yarn_attention_factor(v["s"], unset(v["mscale"]), unset(v["mscale_all_dim"]))
        shown |= {_("YaRN cos/sin × A"): f"{factor:.4f}", _("logits × A²"): f"{factor * factor:.4f}"}
    return shown


def unseen_counts(*, methods: str, dim: int, base: float, factor: float, original_len: int, beta_fast: float,
                  beta_slow: float, truncate: bool, low_freq_factor: float, high_freq_factor: float) -> dict[str, int]:
    """Per method, how many pairs reach angles never seen in training at L' = s·L (``sc.unseen_angles``: the pairs
    ``scaling_unseen`` marks with ×), with the figure's parameters."""
    counts = {}
    for method in sc.parse_methods(methods) if methods else ():
        theta, _A = sc.scaled_inv_freq(method, dim, base, factor, original_len, beta_fast=beta_fast,
                                      beta_slow=beta_slow, low_freq_factor=low_freq_factor,
                                      high_freq_factor=high_freq_factor, truncate=truncate)
        counts[method] = int(sc.unseen_angles(dim, base, factor, original_len, theta)[2].sum())
    return counts


def unseen_tally(counts: Mapping[str, int], dim: int) -> str:
    """"PI / linear: 0 of 64; ...": each method's pairs marked ×, out of the d/2 pairs."""
    return _("; ").join(_("{method}: {n} of {pairs}", method=method_label(m), n=n, pairs=dim // 2)
                        for m, n in counts.items())


def ramp_ends(low: float, high: float, truncate: bool) -> str:
    """Where YaRN's code ramp runs, in words: between the rounded ends (truncate on) or the unrounded ones."""
    # truncate on is the default of transformers, jquesnelle/yarn, vLLM and DeepSeek's code
    if truncate:
        return _("between floor(low) = {low:g} and ceil(high) = {high:g}, the ramp's ends rounded outwards to "
                 "whole pairs (truncate on, the usual default)", low=low, high=high)
    return _("between the unrounded ends low = {low:.3f} and high = {high:.3f} (truncate off, as gpt-oss sets it)",
             low=low, high=high)


def ramp_comparison(*, dim: int, base: float, original_len: int, beta_fast: float, beta_slow: float,
                    truncate: bool) -> str:
    """One sentence comparing the code's and the paper's weight w_i on the pair in the middle of YaRN's ramp
    (``sc.yarn_extrapolation_weight``, both ramps); empty when the ramp is under two pairs wide."""
    low, high = sc.yarn_correction_range(dim, base, original_len, beta_fast, beta_slow, truncate)
    if beta_fast <= beta_slow or high - low < 2:
        return ""
    pair = int((low + high) // 2)
    weights = {k: sc.yarn_extrapolation_weight(dim, base, original_len, beta_fast, beta_slow, truncate, k)[pair]
               for k in sc.RAMPS}
    if weights["code"] > weights["paper"]:
        return _("Mid-ramp, pair {pair} keeps weight {code:.2f} on its original frequency with the code and "
                 "{paper:.2f} with the paper: the code keeps it closer to the original.",
                 pair=pair, code=weights["code"], paper=weights["paper"])
    return _("Mid-ramp, pair {pair} keeps weight {code:.2f} on its original frequency with the code and "
             "{paper:.2f} with the paper: the code keeps it further from the original.",
             pair=pair, code=weights["code"], paper=weights["paper"])


def entropy_effect(attention_factor: float) -> str:
    """What YaRN's temperature A does to attention entropy at this setting (logits × A²), one sentence read
    against ``scaling_entropy``."""
    a2 = attention_factor * attention_factor
    if attention_factor > 1:
        return _("The temperature (logits × A² = {a2:.3f}) sharpens the softmax back: the solid YaRN curve lies "
                 "below the dashed one at every length.", a2=a2)
    if attention_factor == 1:
        return _("The temperature (logits × A² = {a2:.3f}) is 1 here, so both YaRN curves coincide.", a2=a2)
    return _("The temperature (logits × A² = {a2:.3f}) is below 1 here, so it flattens the softmax: the solid curve "
             "lies above the dashed one.", a2=a2)


def dynamic_calls(*, dim: int, base: float, factor: float, original_len: int) -> tuple[dict[str, str], str]:
    """Three calls in a row (l = L', then halfway back to L, then L/2): the base transformers' dynamic NTK uses for
    each (``sc.dynamic_ntk_bases``) beside the base computed afresh for that length (``sc.dynamic_base``), by
    label, and how many of them differ, in words."""
    L = original_len
    lengths = np.array([int(round(factor * L)), (L + int(round(factor * L))) // 2, max(1, L // 2)])
    kept = sc.dynamic_ntk_bases(lengths, dim, base, factor, L)
    fresh = [sc.dynamic_base(dim, base, factor, L, int(n)) for n in lengths]
    rows = {_("call {k}: l = {n:,}", k=k, n=n): f"b' = {short(b)}" if np.isclose(b, f) else
            _("b' = {kept} (afresh: {fresh})", kept=short(b), fresh=short(f))
            for k, (n, b, f) in enumerate(zip(lengths, kept, fresh, strict=True), start=1)}
    differ = int(sum(not np.isclose(b, f) for b, f in zip(kept, fresh, strict=True)))
    return rows, (_("calls whose base differs from the chart's: {differ} of 3", differ=differ) if differ else
                  _("here all three agree with the chart"))


def far_panel(target: int) -> str:
    """How ``scaling_score``'s far panel draws the distances 0..L' (``ENVELOPE_BINS`` bins), in words."""
    width = (target + 1) / min(ENVELOPE_BINS, target + 1)
    if width <= 1:
        return _("every token is drawn there")
    return _("each bin of {width:,.3g} tokens is drawn as its mean score (line) and the band from its lowest to its "
             "highest score, so the fast pairs' wiggles show as the band's width instead of aliased noise",
             width=width)


def pitfall_numbers(dim: int, base: float, factor: float, original_len: int) -> dict[str, float]:
    """The numbers the pitfalls quote: the ramp ends rounded before the division beside the right ones and how far
    the wrong frequencies are off (at most), and the logit multiplier of 0.707 on cos/sin beside YaRN's A²."""
    L = original_len
    wrong_low, wrong_high = sc.numerator_rounded_yarn_bounds(dim, base, L)
    low, high = sc.yarn_correction_range(dim, base, L)
    wrong = sc.numerator_rounded_yarn_inv_freq(dim, base, factor, L)
    off = np.abs(wrong / sc.yarn_inv_freq(dim, base, factor, L)[0] - 1)
    return dict(wrong_low=wrong_low, wrong_high=wrong_high, low=low, high=high, off=float(off.max()),
                wrong_logits=sc.scaled_cos_sin_logit_multiplier(factor), logits=sc.get_mscale(factor) ** 2)


def llama3_against_paper_yarn(*, dim: int, base: float, factor: float, original_len: int, low_freq_factor: float,
                              high_freq_factor: float) -> float:
    """The largest relative difference, over the pairs, between Llama 3's frequencies and YaRN's paper ramp with
    α = low_freq_factor, β = high_freq_factor (they are the same formula: 0 up to rounding)."""
    llama3, _A = sc.llama3_inv_freq(dim, base, factor, original_len, low_freq_factor, high_freq_factor)
    paper, _Ap = sc.yarn_inv_freq(dim, base, factor, original_len, high_freq_factor, low_freq_factor, ramp="paper")
    return float(np.abs(llama3 / paper - 1).max())
