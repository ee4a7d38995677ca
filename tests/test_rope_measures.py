"""What the RoPE lesson quotes (posviz.rope_measures), recomputed independently: rotations by complex numbers, the
closed forms of the base and the caps, the bound's shape at d = 2."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posviz import rope, rope_measures


def _score(q: np.ndarray, k: np.ndarray, m: float, n: float, base: float) -> float:
    """Interleaved RoPE score as complex numbers: Re Σ z^q_i conj(z^k_i) e^(j(m−n)θ_i)."""
    theta = base ** (-np.arange(q.size // 2) * 2 / q.size)
    zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    return float(np.real(np.sum(zq * np.conj(zk) * np.exp(1j * (m - n) * theta))))


def test_relative_checks_shift_keeps_the_score_and_the_mixed_layout_does_not():
    got = rope_measures.relative_checks(16, 100.0, 3, "interleaved", m=7, n=2, c=5, n_positions=64)
    q, k = rope.sample_qk(16, 3)
    assert got["s"] == pytest.approx(_score(q, k, 7, 2, 100.0), abs=1e-12)
    assert got["s_shift"] == pytest.approx(got["s"], abs=1e-12)
    assert got["s_swap"] == pytest.approx(_score(q, k, 2, 7, 100.0), abs=1e-12)
    assert got["norm"] == pytest.approx(math.sqrt(float(q @ q)))
    assert got["drift"] < 1e-12 and got["ratio"] == pytest.approx(1.0)
    assert got["mixed_drift"] > 1e-3 and abs(got["mixed_s"] - got["mixed_s_shift"]) > 1e-6


def test_together_ends_keep_the_score_and_the_angle_and_turn_by_c_theta():
    got = rope_measures.together_ends(8, 100.0, 4, "half", m=5, n=2, pair=1, c_max=12.0)
    assert got["score"][0] == pytest.approx(got["score"][1], abs=1e-12)
    assert got["angle"][0] == pytest.approx(got["angle"][1], abs=1e-12)
    assert got["theta"] == pytest.approx(100.0 ** (-2 / 8)) and got["turned"] == pytest.approx(12 * got["theta"])
    with pytest.raises(ValueError, match="pair"):
        rope_measures.together_ends(8, pair=4)


def test_base_summary_against_the_closed_forms():
    got = rope_measures.base_summary(64, 10000.0, 4096)
    slowest = 2 * math.pi * 10000.0 ** (62 / 64)
    assert got["slowest"] == pytest.approx(slowest) and got["turns"] == pytest.approx(4096 / slowest)
    assert got["b_star"] == pytest.approx((4096 / (2 * math.pi)) ** (64 / 62), rel=1e-9)
    assert got["longer"] == int((2 * math.pi * 10000.0 ** (2 * np.arange(32) / 64) > 4096).sum())
    assert got["models"]["Llama 3"] == pytest.approx((8192 / (2 * math.pi)) ** (128 / 126), rel=1e-9)
    assert rope_measures.base_summary(2, 10000.0, 4096)["b_star"] is None  # d = 2: θ_0 = 1 whatever b is


def test_pairs_caps_and_the_decay_shape():
    assert rope_measures.rotated_pairs(64, 1 / 3) == (11, 22 / 64)
    assert rope_measures.rotated_pairs(2, 0.125) == (1, 1.0)  # at least one pair
    assert rope_measures.left_right_offset(256, 2048) == (1 << 18) // 129 // 2 - 1 == 1015  # cells: Δ × pairs
    assert rope_measures.left_right_offset(8, 100) == 100
    flat = rope_measures.decay_shape(2, 10000.0, 64)
    assert flat["flat"] and flat["cos_min"] == pytest.approx(min(math.cos(d) for d in range(65)))  # one pair: cos Δ
    assert flat["cos_at"] == int(np.argmin(np.cos(np.arange(65))))
    roles = rope_measures.pair_summary(64, 10000.0, "full", 1.0, 4096)
    assert sum(roles["roles"].values()) == 32 and roles["roles"]["not rotated"] == 0
    assert roles["full_quarter"] == roles["roles"]["under a quarter turn"]


@pytest.mark.parametrize(("dim", "share"), [(64, 0.75), (2, 0.125), (10, 1 / 3), (256, 1.0), (6, 0.4)])
def test_the_which_pairs_settings_of_a_head_size_are_d_and_the_fraction_its_rotated_pairs_make(dim, share):
    settings = rope_measures.pair_roles_settings(dim, share=share)
    pairs = settings["fraction"] * dim / 2
    assert settings["dim"] == dim and pairs == round(pairs) >= 1
    assert abs(2 * pairs - share * dim) <= 1 + 1e-9 or pairs == 1  # the nearest even rotated width, or one pair
