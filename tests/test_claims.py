"""Sentences on the pages that state a fact in words, not formatted from a computation: each is recomputed here,
one test per claim, named after the page and part, so changing a formula or a default fails the claim it breaks.
(Numbers the pages format from the math at render time are checked by the page tests.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from posviz import gaussian as gk
from posviz import rope2d, sinusoidal
from posviz.rope import inv_freq

KERNEL = dict(alpha1=0.7, alpha2=0.3, sigma1=5.0, sigma2=20.0)  # the Gaussian lesson's defaults


def test_sinusoidal_pitfalls_pair_0_turns_one_radian_per_token_and_fastest():
    """"pair 0 has ω = 1 rad/token and turns fastest; the last pair is the slowest" (the fast/slow pitfall)."""
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


# ---------------------------------------------------------------------------- RoPE, part 9: which pairs matter

def test_rope_pairs_under_a_quarter_turn_keep_cos_positive_but_not_the_share():
    """"For a pair under a quarter turn, cos(Δθ_i) > 0 at every distance |Δ| ≤ L ... The share itself can still change
    sign: it does so within L exactly when φ_i ... lies less than L·|θ_i| from ±π/2"."""
    from posviz import rope

    rng = np.random.default_rng(0)
    for dim, base, L in ((64, 1e4, 4096), (128, 5e5, 8192), (256, 1e7, 131072)):
        theta = rope.inv_freq(dim, base)
        quarter = rope.pair_roles(theta, L) == "under a quarter turn"
        deltas = np.linspace(-L, L, 2001)
        assert quarter.any() and (np.cos(np.outer(deltas, theta[quarter])) > 0).all()
        for i in np.flatnonzero(quarter):
            phi = rng.uniform(-math.pi, math.pi, 200)
            share = np.cos(np.add.outer(deltas * theta[i], phi))  # (Δ, φ), |h| = 1
            crosses = (share > 0).any(axis=0) & (share < 0).any(axis=0)
            near = np.abs(np.abs(phi) - math.pi / 2) < L * theta[i]
            clear = np.abs(np.abs(np.abs(phi) - math.pi / 2) - L * theta[i]) > 1e-2  # away from the boundary
            np.testing.assert_array_equal(crosses[clear], near[clear])
            edge = np.cos(deltas * theta[i] + math.pi / 2 - L * theta[i] / 2)  # φ half a turn-within-L from π/2
            assert edge.max() > 0 > edge.min()  # "never changes sign" fails in every such pair


# ---------------------------------------------------------------------------- RoPE, part 10: choosing the base

def test_rope_base_real_models_bases_and_training_lengths():
    """"Llama 3 trains on 8,192 tokens with b = 500,000 ..., Code Llama on 16,384 with b = 1,000,000 ... (d = 128,
    their config.json)": the presets, which quote the published config.json files."""
    from posviz import presets, scaling

    for name, (base, length) in {"Llama 3 8B": (500_000.0, 8192), "Code Llama 7B": (1_000_000.0, 16384)}.items():
        rc = scaling.read_rope_config(presets.get_preset(name).config)
        assert (rc.base, rc.max_position_embeddings, rc.dim, rc.rope_type) == (base, length, 128, "default")


def test_rope_base_similar_key_lead_is_proportional_to_the_cos_sum():
    """Men et al.: "when a key is the query plus noise, the query's expected score for it beats that for a random key
    by an amount proportional to Σ_i cos(mθ_i)": E[(R_m q)·(R_0 (q + ε))] − E[(R_m q)·(R_0 k)] = E[qᵀR_{−m}q]
    = Σ_i E|z^q_i|² cos(mθ_i) = 2σ² Σ_i cos(mθ_i), from the exact identity qᵀR_{−m}q = Σ_i |z^q_i|² cos(mθ_i)."""
    from posviz import rope

    q, _ = rope.sample_qk(64, 3)
    theta = rope.inv_freq(64)
    z2 = q[0::2] ** 2 + q[1::2] ** 2
    for m in (0, 5, 300, 4000):
        assert rope.score(q, q, m, 0) == pytest.approx(float(z2 @ np.cos(m * theta)), abs=1e-9)
    qs = np.random.default_rng(1).standard_normal((20000, 64)) * 0.5  # σ = 0.5
    noise = np.random.default_rng(2).standard_normal((20000, 64))
    others = np.random.default_rng(3).standard_normal((20000, 64))
    m = 37.0
    rot = rope.rotate(qs, np.full(20000, m), theta)  # every query at m, every key at 0
    lead = float(np.mean(np.sum(rot * (qs + noise), axis=1)) - np.mean(np.sum(rot * others, axis=1)))
    assert lead == pytest.approx(2 * 0.25 * rope.cos_sum([m], 64)[0], abs=0.3)


# ---------------------------------------------------------------------------- RoPE, pitfall: float32 angles

def test_rope_float32_error_stays_below_twice_the_rounding_step_and_d2_is_exact():
    """"the error stays below twice the dotted line, the float32 rounding step of m·θ_0 = m, plus the ~1e-7 of
    float32 cos and sin ... with d = 2 the only pair has θ_0 = 1, and every whole-number angle up to 10⁶ is exact"."""
    from posviz import rope

    pos = np.unique(np.round(np.logspace(0, 6, 400)))
    for dim in (2, 4, 8, 16, 64, 128, 200, 256):
        for base in (10.0, 1e3, 1e4, 5e5, 1e7):
            err = rope.float32_error(pos, dim, base)
            assert np.all(err <= 2 * pos * 2.0**-24 + 1.2e-7), (dim, base)
    m = np.arange(0, 1_000_001, 997, dtype=np.float64)
    assert np.all(m.astype(np.float32) * np.float32(1.0) == m)  # θ_0 = 1: m·θ_0 exact in float32
    assert rope.float32_error(m, 2, 1e4).max() < 1.2e-7


def test_rope_float32_spacing_near_1e5_and_float64_near_1e6():
    """"A float32 number near 10^5 is only exact to about 0.008 ... float64 stays exact to ~1e-11 there" and "float64
    angles: the rounding of m·θ_i stays near 1e-10 even at m = 10⁶"."""
    assert float(np.spacing(np.float32(1e5))) == pytest.approx(0.0078125)
    assert 1e-11 <= float(np.spacing(1e5)) < 2e-11
    assert 1e-10 <= float(np.spacing(1e6)) < 2e-10


# ---------------------------------------------------------------------------- Context extension, part 7: dynamic NTK

def test_dynamic_ntk_cached_keys_keep_the_old_base():
    """"The KV cache holds keys after RoPE, and transformers never rotates them again: ... the keys already cached
    keep the angles of the old base while new queries turn with the new one, so their scores are no longer a function
    of m − n alone": Llama's attention rotates the keys before it hands them to the cache, and a key rotated with
    the old base scored against a query rotated with the new one changes when both move by the same amount."""
    import inspect

    from transformers.models.llama.modeling_llama import LlamaAttention

    from posviz import rope
    from posviz import scaling as sc

    src = inspect.getsource(LlamaAttention.forward)
    assert src.index("apply_rotary_pos_emb(") < src.index("past_key_values.update(")
    assert src.count("apply_rotary_pos_emb(") == 1  # never again on what the cache returns
    old = sc.dynamic_inv_freq(64, 1e4, 4.0, 512, 512)[0]
    new = sc.dynamic_inv_freq(64, 1e4, 4.0, 512, 2048)[0]
    q, k = rope.sample_qk(64, 0)

    def mixed(m: float, n: float) -> float:  # query turned with the new base, cached key with the old one
        return float(rope.rotate(q[None], [m], new)[0] @ rope.rotate(k[None], [n], old)[0])

    assert abs(mixed(2000.0, 400.0) - mixed(2010.0, 410.0)) > 1e-2
    same = float(rope.rotate(q[None], [2000.0], new)[0] @ rope.rotate(k[None], [400.0], new)[0])
    assert same == pytest.approx(float(rope.rotate(q[None], [2010.0], new)[0] @ rope.rotate(k[None], [410.0], new)[0]))
