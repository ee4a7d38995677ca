"""Sinusoidal position encoding: the table, its waves, its similarity, and the shift as a rotation."""

import numpy as np
import streamlit as st

from posviz import sinusoidal as sn
from posviz import ui
from posviz.figures.sinusoidal import (
    sinusoidal_dot_by_offset,
    sinusoidal_exponent_bug,
    sinusoidal_fast_slow,
    sinusoidal_heatmap,
    sinusoidal_shift,
    sinusoidal_similarity,
    sinusoidal_waves,
)
from posviz.i18n import N_, _

MAX_OFFSET = 512  # the offset curve stops here: beyond it the wiggles of a long curve are too fine to read

lesson = ui.Lesson(
    "sinusoidal", N_("Sinusoidal"), icon="〰️", order=2, headline="sinusoidal_heatmap",
    summary=N_("The PE heatmap, single dimensions as waves with their wavelengths, PE·PE similarity (a function "
               "of the offset only, the same to the left and to the right), and PE(p+k) = M_k PE(p) as a rotation "
               "of every (sin, cos) pair, checked numerically."),
    intro=N_("The original Transformer adds a fixed table of sines and cosines to the token embeddings. Drag the "
             "sliders to see how the table is built, why each pair of dimensions is a clock running at its own "
             "speed, and why moving k positions is the same rotation wherever you start."),
    controls=(
        ui.Int("n", N_("positions shown P"), default=100, lo=8, hi=4096, step=4),
        ui.Int("d", N_("model dimension d_model"), default=128, lo=4, hi=1024, step=2,
               help=N_("Even: the dimensions come in (sin, cos) pairs.")),
        ui.LogFloat("base", N_("base b"), default=10000.0, lo=10.0, hi=1e6),
        ui.Choice("layout", N_("layout"), default="interleaved",
                  options={"interleaved": N_("interleaved (paper)"), "concat": N_("concatenated (TF, MAE)")}),
    ),
)


def table(v: ui.Values) -> dict:
    return dict(n_positions=v.n, d_model=v.d, base=v.base)


@lesson.part("table", N_("1. The table"), uses=("n", "d", "base", "layout"))
def part_table(v: ui.Values) -> None:
    base_term = ui.term("base", _("base b"))
    ui.figure_panel(
        sinusoidal_heatmap, {**table(v), "layout": v.layout}, key="heatmap",
        live={"n": "n_positions", "d": "d_model", "base": "base"},
        caption=_("Each row is the code added at one position: {d_model} = {d} numbers, sines and cosines whose "
                  "frequencies the {base} sets. The left columns flicker from row to row (fast pairs); the right "
                  "columns barely change over hundreds of positions (slow pairs). In the concatenated layout the "
                  "same numbers are regrouped: all sines first, then all cosines.",
                  d_model=ui.term("dimensions", "d_model"), d=v.d, base=base_term),
        latex=r"PE(p, 2i) = \sin(p\,\omega_i),\quad PE(p, 2i+1) = \cos(p\,\omega_i),\quad "
              r"\omega_i = b^{-2i/d_{\mathrm{model}}}",
        code=[sn.sinusoidal_table, sn.frequencies],
    )


@lesson.part("waves", N_("2. One dimension"), uses=("n", "d", "base", "layout"),
             title=N_("2. One dimension at a time"),
             controls=(
                 ui.Int("dim_a", N_("first dimension j"), default=0, lo=0, hi=lambda c: c["d"] - 1, hi_max=1023),
                 ui.Int("dim_b", N_("second dimension j"), default=21, lo=0, hi=lambda c: c["d"] - 1, hi_max=1023),
             ))
def part_waves(v: ui.Values) -> None:
    dims = ui.controls(where="main", columns=2)
    lam = sn.wavelengths(v.d, v.base)
    wavelength_term = ui.term("wavelength", _("wavelength"))
    ui.figure_panel(
        sinusoidal_waves, {**table(v), "layout": v.layout, "dims": (dims.dim_a, dims.dim_b)}, key="waves",
        live={"n": "n_positions", "d": "d_model", "base": "base",
              "dim_a": ui.Sets.item("dims", 0, (dims.dim_a, dims.dim_b)),
              "dim_b": ui.Sets.item("dims", 1, (dims.dim_a, dims.dim_b))},
        caption=_("Every dimension is a plain sine or cosine of the position; only the {wavelength} changes. "
                  "Wavelengths grow geometrically, by b^(2/d) = {ratio:.4g} per pair, from 2π = {first:.4g} tokens "
                  "(pair 0) to 2π·b^((d−2)/d) = {last:,.0f} tokens (pair {last_pair}, the last): just below 2π·b = "
                  "{limit:,.0f}, which no pair reaches.", wavelength=wavelength_term,
                  ratio=lam[1] / lam[0], first=lam[0], last=lam[-1], last_pair=v.d // 2 - 1,
                  limit=2 * np.pi * v.base),
        latex=r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi\, b^{2i/d_{\mathrm{model}}}",
        code=[sn.wavelengths],
    )


@lesson.part("similarity", N_("3. Similarity"), uses=("n", "d", "base"),
             title=N_("3. How similar are two positions?"))
def part_similarity(v: ui.Values) -> None:
    left, right = st.columns(2)
    with left:
        ui.figure_panel(
            sinusoidal_similarity, table(v), key="similarity",
            live={"n": "n_positions", "d": "d_model", "base": "base"},
            caption=_("Every diagonal is constant: the dot product of two codes depends only on how far apart "
                      "they are, not on where they are."),
            latex=r"PE(p)\cdot PE(q) = \sum_i \cos\big((p-q)\,\omega_i\big)",
            code=[sn.similarity, sn.dot_by_offset],
        )
    with right:
        ui.figure_panel(
            sinusoidal_dot_by_offset, {"max_offset": min(v.n, MAX_OFFSET), "d_model": v.d, "base": v.base},
            key="offset", live={"n": ui.AtMost("max_offset", MAX_OFFSET), "d": "d_model", "base": "base"},
            caption=_("The curve is mirror-symmetric: cos is even, so PE(p)·PE(p + k) = PE(p)·PE(p − k). That is "
                      "a property of the bare dot product of two codes. Inside a model the score is "
                      "(x + PE)ᵀ W_qᵀ W_k (x + PE): with learned W_q ≠ W_k it can differ between left and right, "
                      "and it also depends on where p is. What RoPE adds is a score that depends on the offset "
                      "alone for any query and key (see the RoPE lesson)."),
            code=[sn.dot_by_offset],
        )


@lesson.part("shift", N_("4. Shift = rotation"), uses=("d", "base"), title=N_("4. Moving k positions is a rotation"),
             controls=(
                 ui.Int("p", N_("start position p"), default=10, lo=0, hi=1000),
                 ui.Int("k", N_("offset k"), default=5, lo=0, hi=100),
                 ui.Int("pair", N_("pair i"), default=10, lo=0, hi=lambda c: c["d"] // 2 - 1, hi_max=511),
             ))
def part_shift(v: ui.Values) -> None:
    shift = ui.controls(where="main", columns=3)
    omega = sn.frequencies(v.d, v.base)[shift.pair]
    ui.figure_panel(
        sinusoidal_shift, {"d_model": v.d, "base": v.base, "p": shift.p, "k": shift.k, "pair": shift.pair},
        key="shift",
        live={"p": "p", "k": "k", "pair": "pair", "d": "d_model", "base": "base"},
        caption=_("Each pair of dimensions, read as the point (cos pω, sin pω), lives on the unit circle (cos "
                  "across, sin up, so it turns counter-clockwise like the RoPE clock). Going from p to p + k turns "
                  "pair {pair} by k·ω = {k} × {omega:.4g} = {degrees:.1f}°, and the matrix M_k that does it "
                  "contains only k, never p: the same linear map works from every start.", pair=shift.pair,
                  k=shift.k, omega=omega, degrees=np.degrees(shift.k * omega)),
        latex=r"\begin{pmatrix}\cos((p+k)\omega)\\ \sin((p+k)\omega)\end{pmatrix} = "
              r"\underbrace{\begin{pmatrix}\cos k\omega & -\sin k\omega\\ \sin k\omega & \cos k\omega"
              r"\end{pmatrix}}_{M_k}\begin{pmatrix}\cos p\omega\\ \sin p\omega\end{pmatrix}",
        code=[sn.shift_matrix],
    )
    err = shift_error(v.d, v.base, shift.p, shift.k)
    ui.check(_("M_k · PE(p) = PE(p + k) over all d_model dimensions, each pair as (cos, sin)"), err < 1e-9,
             _("max |difference| = {error:.1e} at p = {p}, k = {k}", error=err, p=shift.p, k=shift.k))


def shift_error(d: int, base: float, p: int, k: int) -> float:
    """max |M_k·PE(p) − PE(p + k)| with every pair in the formula's order (cos, sin) and M_k in that order."""
    pe = sn.sinusoidal_table(p + k + 1, d, base)[:, np.arange(d) ^ 1]  # (p + k + 1, d): (cos, sin) per pair
    mapped = sn.shift_matrix(k, d, base, order="cos_sin") @ pe[p]
    return float(np.abs(mapped - pe[p + k]).max())


def shapes(feature_axis: bool) -> None:
    """Slice a (512, 64) table for a 10-token sequence, along the positions (right) or the features (wrong)."""
    rows = sn.slice_for_sequence(sn.sinusoidal_table(512, 64), 10, feature_axis=feature_axis)
    ui.check(_("the slice has shape (10, 64) for a 10-token sequence"), rows.shape == (10, 64),
             _("got {shape}", shape=rows.shape))


@lesson.part("pitfalls", N_("5. Pitfalls"), uses=("n", "d", "base"))
def part_pitfalls(v: ui.Values) -> None:
    ui.pitfall(
        _("slicing the feature axis"),
        _("An easy slip: store the table as a `(max_len, d_model)` buffer, then add `pe[:, :seq_len]` to the input "
          "(the indexing of a `(1, max_len, d_model)` buffer). That slices the **feature** axis, giving shape "
          "`(max_len, seq_len)`, which cannot be added to a `(seq_len, d_model)` input. The rows to add are "
          "`pe[:seq_len]`."),
        key="slice",
        wrong=lambda: shapes(feature_axis=True),
        right=lambda: shapes(feature_axis=False),
    )
    ui.pitfall(
        _("which dimensions are fast?"),
        _("It is sometimes said that the low dimensions change slowly (global) and the high ones quickly (local). "
          "It is the other way round: pair 0 has ω = 1 rad/token and turns fastest; the last pair is the slowest."),
        key="fastslow",
        wrong=lambda: ui.figure_panel(sinusoidal_fast_slow, {**table(v), "claim": "reversed"}, key="fs_wrong",
        live={"n": "n_positions", "d": "d_model", "base": "base"},
                                      caption=_("The labels follow that claim: they contradict the curves.")),
        right=lambda: ui.figure_panel(sinusoidal_fast_slow, {**table(v), "claim": "right"}, key="fs_right",
        live={"n": "n_positions", "d": "d_model", "base": "base"},
                                      caption=_("Dimension 0 oscillates every ~6 tokens; the last pair hardly "
                                                "moves.")),
    )
    ui.pitfall(
        _("the exponent counted twice"),
        _("Loops written as `for i in range(0, d, 2): ... 10000 ** ((2 * i) / d)` use the channel index (which "
          "already steps by 2) *and* multiply by 2, so the exponent runs to 2 instead of 1: the slow half of the "
          "table gets wavelengths far beyond 2π·b and is almost constant over any real sequence."),
        key="exponent",
    )
    right, wrong = sn.wavelengths(v.d, v.base)[-1], 2 * np.pi * v.base ** (2 * (v.d - 2) / v.d)
    ui.figure_panel(sinusoidal_exponent_bug, {"d_model": v.d, "base": v.base}, key="exp_bug",
    live={"d": "d_model", "base": "base"},
                    caption=_("Solid: the right wavelengths, the last one {right:,.0f} tokens, just below 2π·b. "
                              "Dashed: the doubled exponent ends at {wrong:.3g} tokens, {ratio:.3g}× further, so "
                              "half the table barely moves.", right=right, wrong=wrong, ratio=wrong / right))


lesson.run()
