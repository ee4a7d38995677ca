"""Sentences on the pages that state a fact in words, not formatted from a computation: each is recomputed here,
one test per claim, named after the page and part, so changing a formula or a default fails the claim it breaks.
(Numbers the pages format from the math at render time are checked by the page tests.)"""

from __future__ import annotations

import math

import numpy as np

from posviz import gaussian as gk
from posviz import rope2d, sinusoidal
from posviz.rope import inv_freq

KERNEL = dict(alpha1=0.7, alpha2=0.3, sigma1=5.0, sigma2=20.0)  # the Gaussian lesson's defaults


def test_sinusoidal_pitfalls_pair_0_turns_one_radian_per_token_and_fastest():
    """"pair 0 has ω = 1 rad/token and turns fastest; the last pair is the slowest" (seed 003's pitfall)."""
    for d, base in ((128, 1e4), (16, 500.0), (1024, 1e6)):
        omega = sinusoidal.frequencies(d, base)
        assert omega[0] == 1.0 and np.all(np.diff(omega) < 0)


def test_sinusoidal_pitfalls_dimension_0_repeats_every_six_tokens():
    """"Dimension 0 oscillates every ~6 tokens": its wavelength is 2π ≈ 6.28."""
    assert round(sinusoidal.wavelengths(128)[0], 2) == 6.28


def test_rope_clock_pair_0_turns_one_radian_per_token():
    """RoPE: "pair 0 turns by 1 radian per token (local detail)" (the fast/slow pitfall)."""
    assert inv_freq(64, 10000.0)[0] == 1.0 and inv_freq(64, 10000.0)[-1] < 1e-3


def test_gaussian_kernel_sigma_marks_where_a_term_drops_to_61_percent():
    """"Dotted lines mark σ1 and σ2, where each term has dropped to 61 % of its height"."""
    local, wide = gk.kernel_components([KERNEL["sigma1"], KERNEL["sigma2"]], **KERNEL)
    assert round(local[0] / KERNEL["alpha1"], 2) == 0.61 and round(wide[1] / KERNEL["alpha2"], 2) == 0.61


def test_gaussian_envelope_a_near_key_far_from_the_start_is_suppressed_in_mode_a():
    """"at m = 40, a key only 3 tokens back already gets K(40)·K(37), far below K(3)"."""
    k = lambda r: float(gk.gaussian_kernel(float(r), **KERNEL))  # noqa: E731
    assert k(40) * k(37) < 0.01 * k(3)


def test_2d_add_mode_collides_transposed_patches():
    """2D pitfall: "Adding a row code and a column code ... PE(r, c) = PE(c, r) for every pair"."""
    for r, c in ((2, 5), (0, 13), (7, 7)):
        assert rope2d.transpose_gap(64, 10000.0, "add", r, c) == 0.0
        assert r == c or rope2d.transpose_gap(64, 10000.0, "mae", r, c) > 0


def test_intro_properties_sinusoidal_pair_0_never_repeats_exactly():
    """Intro, the five properties: "pair 0 never repeats (wavelength 2π is irrational)": no whole number of
    tokens is a multiple of 2π, so sin(p) never takes the same (sin, cos) twice; near-returns do exist."""
    p = np.arange(1, 200_001)
    assert np.min(np.abs(np.mod(p + math.pi, 2 * math.pi) - math.pi)) > 0
