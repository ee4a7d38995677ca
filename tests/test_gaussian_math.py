"""posviz.gaussian against independent formulas (plain loops, math.exp), golden values and properties."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from posviz import gaussian as g

DEFAULTS = dict(alpha1=0.7, alpha2=0.3, sigma1=5.0, sigma2=20.0)


def kernel_ref(r, alpha1=0.7, alpha2=0.3, sigma1=5.0, sigma2=20.0):
    """The formula of docs/FORMULAS.md §6.1, one number at a time."""
    return alpha1 * math.exp(-r * r / (2 * sigma1 * sigma1)) + alpha2 * math.exp(-r * r / (2 * sigma2 * sigma2))


def rope_score_ref(q, k, m, n, base=10000.0):
    """RoPE score with complex numbers: sum_i Re[z_q e^{i m θ} conj(z_k e^{i n θ})] / sqrt(d)."""
    d = len(q)
    total = 0.0
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        zq = complex(q[2 * i], q[2 * i + 1]) * cmath.exp(1j * m * theta)
        zk = complex(k[2 * i], k[2 * i + 1]) * cmath.exp(1j * n * theta)
        total += (zq * zk.conjugate()).real
    return total / math.sqrt(d)


# ----- the kernel -----

def test_golden_values():
    assert g.gaussian_kernel(0) == pytest.approx(1.0, abs=1e-15)
    assert g.gaussian_kernel(0, alpha1=0.4, alpha2=0.25) == pytest.approx(0.65, abs=1e-15)
    assert g.gaussian_kernel(3) == pytest.approx(0.881, abs=5e-4)
    assert g.gaussian_kernel(40) * g.gaussian_kernel(37) == pytest.approx(2.2e-3, rel=0.01)
    assert g.gaussian_kernel(127) == pytest.approx(5.26e-10, rel=0.01)


@pytest.mark.parametrize("params", [DEFAULTS, dict(alpha1=1.0, alpha2=0.0, sigma1=0.5, sigma2=1.0),
                                    dict(alpha1=0.0, alpha2=1.0, sigma1=50.0, sigma2=500.0),
                                    dict(alpha1=0.2, alpha2=0.9, sigma1=30.0, sigma2=3.0)])
def test_kernel_matches_formula(params):
    r = np.linspace(-300, 300, 601)
    got = g.gaussian_kernel(r, **params)
    assert got.shape == r.shape and got.dtype == np.float64
    ref = np.array([kernel_ref(x, **params) for x in r])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-300)


def test_kernel_shapes_and_components():
    assert g.gaussian_kernel(2.5).shape == ()
    assert g.gaussian_kernel([[1, 2], [3, 4]]).shape == (2, 2)
    local, wide = g.kernel_components(np.arange(50), **DEFAULTS)
    np.testing.assert_allclose(local + wide, g.gaussian_kernel(np.arange(50)), rtol=1e-15)
    assert local[5] == pytest.approx(0.7 * math.exp(-0.5))  # at r = sigma1 the local term is alpha1/√e
    assert wide[20] == pytest.approx(0.3 * math.exp(-0.5))


@given(r=st.floats(-1e4, 1e4), a1=st.floats(0, 1), a2=st.floats(0.01, 1),
       s1=st.floats(0.5, 50), s2=st.floats(1, 500))
def test_kernel_even_bounded_decreasing(r, a1, a2, s1, s2):
    p = dict(alpha1=a1, alpha2=a2, sigma1=s1, sigma2=s2)
    k = float(g.gaussian_kernel(r, **p))
    assert k == float(g.gaussian_kernel(-r, **p))
    assert 0 <= k <= a1 + a2 + 1e-12
    assert float(g.gaussian_kernel(abs(r) + 1, **p)) <= k + 1e-15


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(alpha1=0.0, alpha2=0.0), "alpha1 and alpha2"),
    (dict(alpha1=-0.1), "alpha1"), (dict(alpha2=-1), "alpha2"),
    (dict(sigma1=0.0), "sigma1"), (dict(sigma2=-3.0), "sigma2"),
    (dict(sigma1=float("nan")), "sigma1"), (dict(alpha2=float("inf")), "alpha2"),
    (dict(sigma2="5"), "sigma2"), (dict(alpha1=True), "alpha1"),
])
def test_bad_kernel_parameters_name_themselves(kwargs, name):
    with pytest.raises(ValueError, match=name):
        g.gaussian_kernel(1.0, **kwargs)


@pytest.mark.parametrize("r", [float("nan"), float("inf"), "3", b"x", [1, "a"], 1j, [[1, 2], [3]], True, None])
def test_bad_r(r):
    with pytest.raises(ValueError, match="^r "):
        g.gaussian_kernel(r)


# ----- the three modes against direct formulas -----

def test_modes_match_direct_formulas():
    q, k = g.random_qk(12, 8, seed=3)
    m = np.array([0.0, 1, 2, 5, 9, 13, 21, 40, 41, 60, 99, 127])
    n = np.array([0.0, 3, 7, 11, 37, 38, 40, 50, 64, 80, 100, 126])
    rope = g.rope_logits(q, k, m, n)
    for i in range(12):
        for j in range(12):
            ref = rope_score_ref(q[i], k[j], m[i], n[j])
            assert rope[i, j] == pytest.approx(ref, abs=1e-12)
            assert g.apply_kernel(rope, m, n, "absolute")[i, j] == pytest.approx(
                kernel_ref(m[i]) * kernel_ref(n[j]) * ref, abs=1e-12)
            assert g.apply_kernel(rope, m, n, "relative_mul")[i, j] == pytest.approx(
                kernel_ref(m[i] - n[j]) * ref, abs=1e-12)
            assert g.apply_kernel(rope, m, n, "relative_log")[i, j] == pytest.approx(
                ref + math.log(max(kernel_ref(abs(m[i] - n[j])), 1e-30)), abs=1e-9)
    np.testing.assert_array_equal(g.apply_kernel(rope, m, n, "rope"), rope)


def test_as_written_is_absolute_mode():
    """The blog post's f(x, m) = K(m) R_m x on both q and k gives K(m)K(n)·RoPE score (docs/FORMULAS.md §6.2)."""
    q, k = g.random_qk(20, 16, seed=1)
    pos = np.arange(20.0) * 3
    qa, ka = g.as_written_qk(q, pos), g.as_written_qk(k, pos)
    want = g.apply_kernel(g.rope_logits(q, k, pos, pos), pos, pos, "absolute")
    np.testing.assert_allclose(qa @ ka.T / 4.0, want, rtol=1e-10, atol=1e-14)


def test_log_bias_clamps_before_the_log():
    logits = np.zeros((1, 1))
    out = g.apply_kernel(logits, [0.0], [1000.0], "relative_log", sigma1=0.5, sigma2=1.0)
    assert out[0, 0] == pytest.approx(math.log(1e-30))


def test_relative_log_multiplies_softmax_weights_by_K():
    q, k = g.random_qk(30, 8, seed=5)
    pos = np.arange(30.0)
    rope = g.rope_logits(q, k, pos, pos)
    w = np.exp(rope) * g.gaussian_kernel(np.abs(pos[:, None] - pos[None, :]))
    np.testing.assert_allclose(g.softmax(g.apply_kernel(rope, pos, pos, "relative_log")),
                               w / w.sum(axis=1, keepdims=True), rtol=1e-10)


@pytest.mark.parametrize("mode", g.MODES)
def test_attention_rows_are_distributions(mode):
    a = g.attention(T=64, d=16, mode=mode)
    assert a.shape == (64, 64)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, rtol=1e-12)
    assert (a >= 0).all()


def test_attention_effects():
    t = 128
    rope, absolute = g.attention(T=t), g.attention(T=t, mode="absolute")
    mul, log = g.attention(T=t, mode="relative_mul"), g.attention(T=t, mode="relative_log")
    # (a) late rows: logits × K(m)K(n) ≈ 0, so attention is uniform (1/T) there
    np.testing.assert_allclose(absolute[100], 1 / t, rtol=1e-4)
    assert np.abs(rope[100] - 1 / t).max() > 0.01
    # (c) the log bias concentrates attention near the diagonal; (b) does not
    near = np.abs(np.arange(t)[:, None] - np.arange(t)[None, :]) <= 40  # 2 sigma2
    assert (log * near).sum(axis=1).mean() > 0.95
    assert (mul * near).sum(axis=1).mean() < 0.6
    assert (rope * near).sum(axis=1).mean() < 0.6
    # distance profile
    prof = g.mean_by_distance(log)
    assert prof.shape == (t,) and prof[0] > 100 * prof[100]


def test_mean_by_distance_by_hand():
    a = np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(g.mean_by_distance(a), [(0 + 4 + 8) / 3, (1 + 3 + 5 + 7) / 4, (2 + 6) / 2])


def test_shift_check_numbers():
    s = g.shift_check()
    assert s["absolute"]["factor_before"] == pytest.approx(0.881, abs=5e-4)
    assert s["absolute"]["factor_after"] == pytest.approx(2.2e-3, rel=0.01)
    for mode in ("rope", "relative_mul", "relative_log"):
        assert s[mode]["after"] == pytest.approx(s[mode]["before"], rel=1e-9, abs=1e-12)
    assert abs(s["absolute"]["after"]) < 0.01 * abs(s["absolute"]["before"])
    assert s["relative_mul"]["before"] == pytest.approx(0.881333 * s["rope"]["before"], rel=1e-5)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 2000), n=st.integers(0, 2000), c=st.integers(0, 5000), seed=st.integers(0, 99),
       a1=st.floats(0.05, 1), a2=st.floats(0, 1), s1=st.floats(0.5, 50), s2=st.floats(1, 500))
def test_relative_modes_are_shift_invariant(m, n, c, seed, a1, a2, s1, s2):
    p = dict(alpha1=a1, alpha2=a2, sigma1=s1, sigma2=s2)
    q, k = g.random_qk(1, 16, seed)
    pm, pn = np.array([float(m)]), np.array([float(n)])
    before = g.rope_logits(q, k, pm, pn)
    after = g.rope_logits(q, k, pm + c, pn + c)
    assert after[0, 0] == pytest.approx(before[0, 0], abs=1e-9)
    for mode in ("relative_mul", "relative_log"):
        b = g.apply_kernel(before, pm, pn, mode, **p)[0, 0]
        a = g.apply_kernel(before, pm + c, pn + c, mode, **p)[0, 0]
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12)
    absolute = g.apply_kernel(before, pm + c, pn + c, "absolute", **p)[0, 0]
    expect = kernel_ref(m + c, **p) * kernel_ref(n + c, **p) * before[0, 0]
    assert absolute == pytest.approx(expect, rel=1e-9, abs=1e-300)


def test_absolute_mode_is_not_shift_invariant():
    s = g.shift_check(m=3, n=0, shift=37)
    assert s["absolute"]["factor_after"] / s["absolute"]["factor_before"] < 0.01


# ----- the pitfalls: mixed layout, feature-axis broadcast -----

def test_mixed_layout_breaks_relativity_and_norms():
    mixed, right = g.mixed_layout_score_grid(layout="mixed"), g.mixed_layout_score_grid(layout="interleaved")
    assert g.toeplitz_error(right) < 1e-12
    assert g.toeplitz_error(mixed) > 0.1
    x, _ = g.random_qk(1, 8, seed=0)
    rot = g.mixed_layout_rope(np.repeat(x, 3, 0), np.array([0.0, 7.0, 20.0]), layout="mixed")
    ratios = np.linalg.norm(rot, axis=1) / np.linalg.norm(x)
    assert ratios[0] == pytest.approx(1.0) and abs(ratios[1:] - 1).max() > 1e-3
    good = g.mixed_layout_rope(np.repeat(x, 3, 0), np.array([0.0, 7.0, 20.0]), layout="interleaved")
    np.testing.assert_allclose(good, g.rotate(np.repeat(x, 3, 0), np.array([0.0, 7.0, 20.0])), atol=1e-12)


def test_feature_axis_broadcast_fails_or_scales_channels():
    scale, err = g.feature_axis_broadcast(T=128, D=64)
    assert scale is None and "128" in err and "64" in err
    scale, err = g.feature_axis_broadcast(T=64, D=64)
    assert err is None and scale.shape == (64, 64)
    k = g.gaussian_kernel(np.arange(64.0))
    np.testing.assert_allclose(scale, np.tile(k, (64, 1)))  # constant down each column: per channel
    np.testing.assert_allclose(g.intended_scale(64, 64), np.tile(k[:, None], (1, 64)))  # per position


def test_kernel_only_scales_magnitudes():
    s = g.spiral(pair=2, n_positions=60)
    np.testing.assert_allclose(s["angle_kernel"], s["angle_rope"], atol=1e-12)
    np.testing.assert_allclose(s["radius_kernel"], g.gaussian_kernel(s["m"]) * s["radius_rope"], rtol=1e-12)
    np.testing.assert_allclose(s["radius_rope"], s["radius_rope"][0], rtol=1e-12)


# ----- hostile input: every public function gives a finite result or a ValueError naming the parameter -----

ANY = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                st.text(max_size=5), st.lists(st.floats(-1e3, 1e3), max_size=4))
SMALL_INT = st.one_of(st.integers(-5, 2000), ANY)
FLOAT = st.one_of(st.floats(-10, 600), ANY)
NAMES = ("alpha1", "alpha2", "sigma1", "sigma2", "r", "T", "d", "D", "seed", "base", "mode", "layout", "m", "n",
         "shift", "pair", "n_positions", "batch", "x", "q", "k", "positions", "logits", "matrix", "scores")


def _finite_or_named_error(fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except ValueError as exc:
        assert any(name in str(exc) for name in NAMES), str(exc)
        return
    arrays = out if isinstance(out, tuple) else (out,)
    if isinstance(out, dict):
        arrays = [np.asarray(list(v.values()) if isinstance(v, dict) else v, dtype=float) for v in out.values()]
    for a in arrays:
        if a is None or isinstance(a, str):
            continue
        assert np.isfinite(np.asarray(a, dtype=float)).all()


FUZZ = settings(max_examples=80, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(r=st.one_of(FLOAT, st.lists(st.floats(), max_size=5)), a1=FLOAT, a2=FLOAT, s1=FLOAT, s2=FLOAT)
def test_fuzz_kernel(r, a1, a2, s1, s2):
    _finite_or_named_error(g.gaussian_kernel, r, a1, a2, s1, s2)
    _finite_or_named_error(g.kernel_components, r, a1, a2, s1, s2)


@FUZZ
@given(T=SMALL_INT, d=SMALL_INT, base=FLOAT, seed=SMALL_INT, mode=st.one_of(st.sampled_from(g.MODES), ANY),
       a1=FLOAT, s2=FLOAT)
def test_fuzz_attention(T, d, base, seed, mode, a1, s2):
    if isinstance(T, int) and isinstance(d, int) and not isinstance(T, bool) and T * max(d, 1) > 300 * 64:
        T = 300  # keep each example quick; the caps themselves are tested below
    _finite_or_named_error(g.attention, T, d, base, seed, mode, alpha1=a1, sigma2=s2)


@FUZZ
@given(m=SMALL_INT, n=SMALL_INT, shift=SMALL_INT, d=SMALL_INT, seed=SMALL_INT, s1=FLOAT)
def test_fuzz_shift_check(m, n, shift, d, seed, s1):
    _finite_or_named_error(g.shift_check, m, n, shift, d, seed=seed, sigma1=s1)


@FUZZ
@given(T=SMALL_INT, D=SMALL_INT, pair=SMALL_INT, P=SMALL_INT, layout=st.one_of(st.sampled_from(g.PITFALL_LAYOUTS), ANY),
       a2=FLOAT)
def test_fuzz_pitfalls(T, D, pair, P, layout, a2):
    _finite_or_named_error(g.feature_axis_broadcast, T, D, alpha2=a2)
    _finite_or_named_error(g.intended_scale, T, D, alpha2=a2)
    _finite_or_named_error(g.mixed_layout_score_grid, T, D, layout=layout)
    _finite_or_named_error(g.spiral, pair, P, D, alpha2=a2)


@FUZZ
@given(x=st.one_of(ANY, st.lists(st.lists(st.floats(), min_size=2, max_size=2), min_size=1, max_size=3)),
       pos=st.one_of(ANY, st.lists(st.floats(), min_size=1, max_size=3)))
@example(x=[[0.0, 1.3407807929942597e154]], pos=[0.0])  # q·k overflowed before entries were capped
def test_fuzz_array_inputs(x, pos):
    _finite_or_named_error(g.rotate, x, pos)
    _finite_or_named_error(g.mixed_layout_rope, x, pos)
    _finite_or_named_error(g.as_written_qk, x, pos)
    _finite_or_named_error(g.rope_logits, x, x, pos, pos)
    _finite_or_named_error(g.apply_kernel, x, pos, pos, "relative_log")
    _finite_or_named_error(g.mean_by_distance, x)
    _finite_or_named_error(g.toeplitz_error, x)


def test_size_caps():
    with pytest.raises(ValueError, match="T must be an integer in \\[1, 1024\\]"):
        g.attention(T=100_000)
    with pytest.raises(ValueError, match="d must be"):
        g.random_qk(4, 10**6)
    with pytest.raises(ValueError, match="m must lie"):
        g.rope_logits(np.ones((1, 2)), np.ones((1, 2)), [1e9], [0.0])


def test_mean_by_distance_refuses_a_matrix_larger_than_max_t_before_copying_it():
    """A 4096 × 4096 matrix is refused before its copy, the T² distances and the weights are made (about 400 MB)."""
    import tracemalloc

    big = np.zeros((4096, 4096))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"matrix must be square \(T, T\) with 1 <= T <= 1024"):
            g.mean_by_distance(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    with pytest.raises(ValueError, match="matrix"):
        g.mean_by_distance(np.zeros((g.MAX_T + 1, g.MAX_T + 1)).tolist())
    full = g.mean_by_distance(g.attention(g.MAX_T))  # the largest attention the lesson's figure draws
    assert full.shape == (g.MAX_T,) and np.isfinite(full).all()
