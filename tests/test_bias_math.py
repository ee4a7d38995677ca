"""posviz.bias against transformers 5.23 (BLOOM's ALiBi, T5's buckets), hand-derived golden values, plain
loops, hypothesis properties and the public-API contract (a finite result or a ValueError naming the
parameter, size caps)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.t5.modeling_t5 import T5Attention

from posviz import bias as b
from posviz import gaussian as gk

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T5_BUCKET = T5Attention._relative_position_bucket


# ---------------------------------------------------------------------------- ALiBi

def bloom_slopes(n_heads: int) -> np.ndarray:
    """Slopes read back from BLOOM's tensor: with an all-ones mask, alibi[h, 0, j] = m_h·j, so j = 1 gives m_h."""
    alibi = build_alibi_tensor(torch.ones(1, 2), n_heads, torch.float32)  # (H, 1, 2)
    return alibi[:, 0, 1].double().numpy()


@pytest.mark.parametrize("n_heads", [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96, 100, 128, 255, 1024])
def test_alibi_slopes_equal_bloom(n_heads):
    # BLOOM computes base^power in float32: the error grows with the power (up to P = the largest power of 2)
    p = 1 << (n_heads.bit_length() - 1)
    np.testing.assert_allclose(b.alibi_slopes(n_heads), bloom_slopes(n_heads), rtol=2e-7 * p, atol=0)


def test_alibi_slopes_golden():
    np.testing.assert_array_equal(b.alibi_slopes(8), [2.0 ** -k for k in range(1, 9)])
    np.testing.assert_allclose(b.alibi_slopes(4), [1 / 4, 1 / 16, 1 / 64, 1 / 256])
    # 6 heads: the 4-head slopes, then the 1st and 3rd of the 8-head slopes (Press et al.'s interpolation)
    np.testing.assert_allclose(b.alibi_slopes(6), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8])


@pytest.mark.parametrize(("n_heads", "T"), [(1, 1), (4, 9), (6, 17), (12, 33), (16, 64)])
def test_alibi_bias_equals_bloom_up_to_a_row_constant(n_heads, T):
    ours = b.alibi_bias(n_heads, T)  # (H, T, T)
    bloom = build_alibi_tensor(torch.ones(1, T), n_heads, torch.float32)[:, 0, :].double().numpy()  # (H, T)
    slopes = bloom_slopes(n_heads) if T == 1 else bloom[:, 1]
    i, j = np.tril_indices(T)
    # BLOOM adds m_h·j; the causal bias is m_h·j − m_h·i: the difference is −m_h·i, constant along a row
    np.testing.assert_allclose(ours[:, i, j] - bloom[:, j], -slopes[:, None] * i, rtol=1e-6, atol=1e-6)
    # ... so the softmax of any logits over the visible keys is the same with either
    logits = np.random.default_rng(T).standard_normal((T, T))
    for h in range(n_heads):
        ref = np.where(np.tril(np.ones((T, T))) > 0, logits + bloom[h][None, :], -np.inf)
        np.testing.assert_allclose(gk.softmax(logits + ours[h]), gk.softmax(ref), atol=1e-6)


def test_alibi_bias_matches_plain_loops_and_mask():
    H, T = 5, 7
    out = b.alibi_bias(H, T)
    slopes = b.alibi_slopes(H)
    for h in range(H):
        for i in range(T):
            for j in range(T):
                if j <= i:
                    assert out[h, i, j] == pytest.approx(-slopes[h] * (i - j), abs=1e-15)
                else:
                    assert out[h, i, j] == -math.inf
    assert out.shape == (H, T, T) and np.isfinite(out[:, np.tril(np.ones((T, T), bool))]).all()


@pytest.mark.parametrize(("n_heads", "T"), [(1, 5), (6, 20), (16, 33)])
def test_alibi_key_only_is_blooms_tensor(n_heads, T):
    bloom = build_alibi_tensor(torch.ones(1, T), n_heads, torch.float32)[:, 0, :].double().numpy()  # (H, T)
    np.testing.assert_allclose(b.alibi_key_only(n_heads, T), bloom, rtol=2e-7 * n_heads, atol=0)


def test_blooms_form_needs_the_causal_mask():
    assert b.alibi_forms_gap(8, 64, causal=True) < 1e-12
    assert b.alibi_forms_gap(12, 50, causal=True, seed=3) < 1e-12
    assert b.alibi_forms_gap(8, 64, causal=False) > 0.1
    # without the mask, head 0's key-only bias sends the first query's weight to the last keys
    content = b.content_logits_grid(32)
    w = gk.softmax(content + b.alibi_key_only(8, 32)[0][None, :])
    assert w[0, -8:].sum() > 0.9


def test_content_logits_grid_matches_a_loop():
    q, k = gk.random_qk(6, 16, 2)
    grid = b.content_logits_grid(6, seed=2)
    for i in range(6):
        for j in range(6):
            assert grid[i, j] == pytest.approx(sum(q[i, c] * k[j, c] for c in range(16)) / 4.0, rel=1e-12)


@FAST
@given(k=st.integers(0, 10))
def test_alibi_slopes_geometric_for_powers_of_two(k):
    H = 2**k
    s = b.alibi_slopes(H)
    assert s[0] == pytest.approx(2.0 ** (-8.0 / H), rel=1e-14)
    np.testing.assert_allclose(s[1:] / s[:-1], 2.0 ** (-8.0 / H), rtol=1e-12)
    assert s[-1] == pytest.approx(2.0**-8, rel=1e-12)


@FAST
@given(H=st.integers(1, 1024))
def test_alibi_slopes_positive_distinct_and_in_range(H):
    s = b.alibi_slopes(H)
    assert s.shape == (H,) and (s > 0).all() and (s < 1).all() and len(set(s.tolist())) == H
    assert s.min() >= 2.0**-8 - 1e-15


# ---------------------------------------------------------------------------- T5 buckets

GRID = np.concatenate([np.arange(-1100, 1101), [-(10**6), -4097, 4097, 10**6, 123_456_789]])


SIZES = [(32, 128), (4, 3), (5, 20), (8, 9), (16, 64), (31, 100), (64, 256), (128, 1000), (256, 4096)]
T5_CASES = [(bi, n, m) for bi in (True, False) for n, m in SIZES] + [(False, 2, 2), (False, 3, 7)]


@pytest.mark.parametrize(("bidirectional", "num_buckets", "max_distance"), T5_CASES)
def test_t5_bucket_equals_transformers(bidirectional, num_buckets, max_distance):
    ref = T5_BUCKET(torch.tensor(GRID), bidirectional, num_buckets, max_distance).numpy()
    got = b.t5_bucket(GRID, bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(got, ref)
    assert got.dtype == np.int64


@FAST
@given(bidirectional=st.booleans(), num_buckets=st.integers(4, 600), max_distance=st.integers(2, 10**6),
       seed=st.integers(0, 2**31))
def test_t5_bucket_equals_transformers_random(bidirectional, num_buckets, max_distance, seed):
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    max_distance = max(max_distance, max_exact + 1)
    rp = np.random.default_rng(seed).integers(-3 * max_distance, 3 * max_distance, 500)
    ref = T5_BUCKET(torch.tensor(rp), bidirectional, num_buckets, max_distance).numpy()
    np.testing.assert_array_equal(b.t5_bucket(rp, bidirectional, num_buckets, max_distance), ref)


def test_t5_bucket_golden_and_shape():
    # defaults: 16 buckets a side, 8 exact; j − i = −8 (8 tokens back) starts the log buckets
    assert b.t5_bucket(np.array([0, -1, -7, -8, -127, -128, -10**6])).tolist() == [0, 1, 7, 8, 15, 15, 15]
    assert b.t5_bucket(np.array([1, 7, 8, 10**6])).tolist() == [17, 23, 24, 31]
    assert b.t5_bucket(np.array([3, 0, -3]), bidirectional=False).tolist() == [0, 0, 3]
    grid = np.arange(-6, 6).reshape(3, 4)
    assert b.t5_bucket(grid).shape == (3, 4)
    assert b.t5_bucket(-5).shape == () and int(b.t5_bucket(-5)) == 5


@FAST
@given(bidirectional=st.booleans(), num_buckets=st.integers(4, 256), extra=st.integers(1, 5000))
def test_t5_bucket_monotone_in_distance(bidirectional, num_buckets, extra):
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    d = np.arange(0, 3 * (max_exact + extra))
    back = b.t5_bucket(-d, bidirectional, num_buckets, max_exact + extra)
    assert (np.diff(back) >= 0).all() and back.max() <= (num_buckets // 2 if bidirectional else num_buckets) - 1
    if bidirectional:
        ahead = b.t5_bucket(d[1:], True, num_buckets, max_exact + extra)
        assert (np.diff(ahead) >= 0).all() and (ahead >= num_buckets // 2).all()


def test_t5_bucket_edges_invert_the_log_map():
    edges = b.t5_bucket_edges(32, 128)
    np.testing.assert_array_equal(edges[:16], np.arange(16))
    assert edges[16] == 16 and edges[24] == pytest.approx(16 * 8**0.5)
    # a distance just past a bucket's start lands in that bucket (just before: the one below)
    for bucket in range(17, 32):
        assert int(b.t5_bucket(-math.ceil(edges[bucket] + 1e-3), False)) == bucket
        assert int(b.t5_bucket(-math.floor(edges[bucket] - 1e-3), False)) == bucket - 1


def test_t5_table_seeded_and_staircase_of_a_member():
    fam = b.Family(t5_shape="seeded", t5_scale=2.0, seed=5)
    np.testing.assert_array_equal(b.t5_table(fam), 2.0 * np.random.default_rng(5).standard_normal(32))
    fam = b.Family(t5_shape="alibi", n_heads=4, head=1)
    np.testing.assert_allclose(b.t5_table(fam), -b.t5_bucket_edges() / 16)
    d = np.arange(0, 200)
    stair = b.distance_bias("t5", d, fam)
    for dist, value in zip(d, stair):  # each distance gets its bucket's value: a staircase
        assert value == pytest.approx(-b.t5_bucket_edges()[int(b.t5_bucket(-dist, False))] / 16)


# ---------------------------------------------------------------------------- KERPLE

def test_kerple_golden():
    assert float(b.kerple(math.e - 1, 2.0, 1.0, "log")) == pytest.approx(-2.0, abs=1e-15)
    assert float(b.kerple(3.0, 0.5, 2.0, "log")) == pytest.approx(-0.5 * math.log(7.0), abs=1e-15)
    assert float(b.kerple(0.0, 5.0, 3.0, "log")) == 0.0
    assert float(b.kerple(4.0, 1.5, 0.5, "power")) == pytest.approx(-3.0, abs=1e-15)
    assert float(b.kerple(3.0, 2.0, 2.0, "power")) == pytest.approx(-18.0, abs=1e-15)
    assert float(b.kerple(8.0, 1.0, 1.0 / 3.0, "power")) == pytest.approx(-2.0, abs=1e-14)
    np.testing.assert_allclose(b.kerple([0, 1, 9], 1.0, 0.5, "power"), [0.0, -1.0, -3.0], atol=1e-15)


@FAST
@given(r1=st.floats(1e-3, 1e3), r2=st.floats(1e-3, 2.0), kind=st.sampled_from(b.KERPLE_KINDS))
def test_kerple_decreases_with_distance_and_matches_loop(r1, r2, kind):
    d = np.linspace(0, 500, 101)
    out = b.kerple(d, r1, r2, kind)
    assert out[0] == 0 and (np.diff(out) < 0).all()
    for di, oi in zip(d[::10], out[::10]):
        ref = -r1 * math.log(1 + r2 * di) if kind == "log" else -r1 * di**r2
        assert oi == pytest.approx(ref, rel=1e-12, abs=1e-300)


# ---------------------------------------------------------------------------- the family

@pytest.mark.parametrize("member", b.BIASES)
def test_distance_bias_is_zero_at_distance_zero_except_gaussian_and_monotone(member):
    fam = b.Family()
    d = np.arange(0, 300)
    out = b.distance_bias(member, d, fam)
    assert np.isfinite(out).all() and (np.diff(out) <= 1e-12).all()
    expect0 = math.log(0.7 + 0.3) if member == "gaussian_log" else 0.0
    assert out[0] == pytest.approx(expect0, abs=1e-15)


def test_distance_bias_golden_values():
    fam = b.Family(n_heads=8, head=2, log_r1=2.0, log_r2=0.5, pow_r1=0.25, pow_r2=1.5)
    assert float(b.distance_bias("alibi", 10.0, fam)) == pytest.approx(-10 / 8)
    assert float(b.distance_bias("kerple_log", 6.0, fam)) == pytest.approx(-2 * math.log(4.0))
    assert float(b.distance_bias("kerple_power", 4.0, fam)) == pytest.approx(-0.25 * 8.0)
    assert float(b.distance_bias("nope", 99.0, fam)) == 0.0
    # log K(3) with the default kernel: 0.7·exp(−9/50) + 0.3·exp(−9/800)
    k3 = 0.7 * math.exp(-9 / 50) + 0.3 * math.exp(-9 / 800)
    assert float(b.distance_bias("gaussian_log", 3.0, fam)) == pytest.approx(math.log(k3), rel=1e-14)


def test_gaussian_member_is_the_gaussian_lessons_relative_log_mode():
    fam = b.Family(sigma1=3.0, alpha2=0.5)
    T = 40
    pos = np.arange(T, dtype=np.float64)
    lesson = gk.apply_kernel(np.zeros((T, T)), pos, pos, "relative_log", **fam.kernel)
    ours = b.bias_matrix("gaussian_log", T, fam)
    low = np.tril(np.ones((T, T), bool))
    np.testing.assert_array_equal(ours[low], lesson[low])
    assert (ours[~low] == -np.inf).all()


@pytest.mark.parametrize("member", b.BIASES)
def test_bias_matrix_is_the_distance_curve_on_the_lower_triangle(member):
    fam = b.Family(n_heads=6, head=5, t5_shape="seeded")
    T = 50
    m = b.bias_matrix(member, T, fam)
    curve = b.distance_bias(member, np.arange(T), fam)
    for i in range(T):
        np.testing.assert_array_equal(m[i, : i + 1], curve[i::-1])
        assert (m[i, i + 1:] == -np.inf).all()


def test_alibi_member_is_alibi_bias_of_the_chosen_head():
    fam = b.Family(n_heads=12, head=9)
    np.testing.assert_array_equal(b.bias_matrix("alibi", 30, fam), b.alibi_bias(12, 30)[9])


def softmax_ref(x):
    e = [math.exp(v - max(x)) for v in x]
    return [v / sum(e) for v in e]


@pytest.mark.parametrize("member", b.MEMBERS)
def test_attention_row_matches_a_plain_reference(member):
    fam = b.Family(d=16, seed=3, content_scale=2.0)
    T = 24
    q, k = gk.random_qk(T, 16, 3)
    got = b.attention_row(member, T, fam)
    logits = []
    for j in range(T):
        content = 2.0 * sum(q[-1, c] * k[j, c] for c in range(16)) / 4.0
        dist = T - 1 - j
        if member == "rope":
            logit = 2.0 * float(gk.rope_logits(q[-1:], k[j:j + 1], [T - 1.0], [float(j)])[0, 0])
        elif member == "gaussian_mul":
            logit = content * float(gk.gaussian_kernel(dist))
        else:
            logit = content + float(b.distance_bias(member, dist, fam))
        logits.append(logit)
    np.testing.assert_allclose(got, softmax_ref(logits), rtol=1e-12, atol=1e-15)


def test_content_term_is_shared_and_scaling_it_to_zero_leaves_the_bias():
    fam0 = b.Family(content_scale=0.0)
    T = 64
    np.testing.assert_allclose(b.attention_row("nope", T, fam0), np.full(T, 1 / T))
    slope = b.alibi_slopes(8)[0]
    ref = np.exp(-slope * np.arange(T)[::-1])
    np.testing.assert_allclose(b.attention_row("alibi", T, fam0), ref / ref.sum(), rtol=1e-12)


def test_a_bias_shortens_the_reach_a_rotation_does_not():
    fam = b.Family()
    T = 128
    reach = {m: b.reach(b.attention_row(m, T, fam)) for m in b.MEMBERS}
    assert reach["alibi"] < reach["gaussian_log"] < reach["kerple_log"] < reach["nope"]
    assert reach["rope"] > 100 and reach["nope"] > 100


def test_reach_golden():
    w = np.array([0.05, 0.05, 0.1, 0.3, 0.5])  # query at 4: distances 4, 3, 2, 1, 0
    assert b.reach(w, 0.5) == 0 and b.reach(w, 0.8) == 1 and b.reach(w, 0.9) == 2 and b.reach(w, 1.0) == 4


def test_nope_signals():
    s = b.nope_signals(T=200, d=4096, seed=1)
    i = np.arange(200)
    np.testing.assert_allclose(s["first_token"], 1 / (i + 1), rtol=1e-14)
    np.testing.assert_allclose(s["recovered"], i, atol=1e-9)
    # the average of i+1 i.i.d. N(0, 1) values has variance 1/(i+1); 4096 channels: ~2.2% relative spread
    ratio = s["variance"] * (i + 1)
    assert abs(ratio.mean() - 1) < 0.02 and np.abs(ratio - 1).max() < 0.15


def test_rope_profile():
    prof = b.rope_profile(span=64, dim=32, seed=2, n_samples=256)
    q, k = gk.random_qk(1, 32, 2)
    for delta in (0, 5, 64):
        ref = float(gk.rope_logits(q, k, [float(delta)], [0.0])[0, 0])
        assert prof["seeded"][delta] == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert prof["ones"][0] == pytest.approx(32 / math.sqrt(32))
    assert prof["ones"].min() < prof["ones"][0] / 2
    assert np.abs(prof["mean"]).max() < 5 * math.sqrt(32 / 256) / math.sqrt(32)
    assert (np.diff(np.sign(prof["seeded"])) != 0).any()  # the seeded pair's logit changes sign with Δ


# ---------------------------------------------------------------------------- contract

@pytest.mark.parametrize(("call", "name"), [
    (lambda: b.alibi_slopes(0), "n_heads"),
    (lambda: b.alibi_slopes(1025), "n_heads"),
    (lambda: b.alibi_slopes(2.5), "n_heads"),
    (lambda: b.alibi_slopes(True), "n_heads"),
    (lambda: b.alibi_bias(8, 0), "T"),
    (lambda: b.alibi_bias(8, 5000), "T"),
    (lambda: b.alibi_bias(64, 4096), "n_heads·T·T"),
    (lambda: b.alibi_key_only(8, 0), "T"),
    (lambda: b.alibi_forms_gap(64, 128), "n_heads·T·T"),
    (lambda: b.alibi_forms_gap(8, 16, causal=1), "causal"),
    (lambda: b.alibi_base_heads(0), "n_heads"),
    (lambda: b.content_logits_grid(2000), "T"),
    (lambda: b.t5_bucket("3"), "relative_position"),
    (lambda: b.t5_bucket([1.5]), "relative_position"),
    (lambda: b.t5_bucket([np.nan]), "relative_position"),
    (lambda: b.t5_bucket([10**12]), "relative_position"),
    (lambda: b.t5_bucket(np.zeros(2**21)), "relative_position"),
    (lambda: b.t5_bucket([True]), "relative_position"),
    (lambda: b.t5_bucket([1], bidirectional="yes"), "bidirectional"),
    (lambda: b.t5_bucket([1], num_buckets=3), "num_buckets"),
    (lambda: b.t5_bucket([1], bidirectional=False, num_buckets=1), "num_buckets"),
    (lambda: b.t5_bucket([1], num_buckets=32, max_distance=8), "max_distance"),
    (lambda: b.t5_bucket([1], bidirectional=False, num_buckets=32, max_distance=16), "max_distance"),
    (lambda: b.kerple([-1.0], 1.0, 1.0), "distance"),
    (lambda: b.kerple([1.0], 0.0, 1.0), "r1"),
    (lambda: b.kerple([1.0], 1.0, -1.0), "r2"),
    (lambda: b.kerple([1.0], 1.0, 2.5, "power"), "r2"),
    (lambda: b.kerple([1.0], 1.0, 1.0, "square"), "kind"),
    (lambda: b.kerple([1.0], float("nan"), 1.0), "r1"),
    (lambda: b.Family(head=8), "head"),
    (lambda: b.Family(t5_shape="t5"), "t5_shape"),
    (lambda: b.Family(num_buckets=8, max_distance=4), "max_distance"),
    (lambda: b.Family(d=3), "d"),
    (lambda: b.Family(sigma1=0.0), "sigma1"),
    (lambda: b.distance_bias("rope", [1.0]), "member"),
    (lambda: b.bias_matrix("alibi", 1025), "T"),
    (lambda: b.attention_row("alibi", 0), "T"),
    (lambda: b.attention_row("alibi", 2000), "T"),
    (lambda: b.reach([0.5, 0.5], 0.0), "mass"),
    (lambda: b.reach([[0.5]]), "weights"),
    (lambda: b.nope_signals(T=0), "T"),
    (lambda: b.rope_profile(span=0), "span"),
    (lambda: b.rope_profile(span=8192, dim=gk.MAX_DIM), "span, dim"),  # each in range, the angles past rope's cap
    (lambda: b.Family(t5_shape="kerple_log", num_buckets=64, max_distance=10**7), "max_distance"),
    (lambda: b.t5_table("seeded"), "fam"),
    (lambda: b.bias_matrix("alibi", 8, fam=None), "fam"),
])
def test_bad_arguments_name_the_parameter_and_range(call, name):
    with pytest.raises(ValueError) as err:
        call()
    assert name in str(err.value)
    assert any(w in str(err.value) for w in ("[", "(", ">", "<", "one of", "True or False", "cap"))


def test_caps_are_stated():
    with pytest.raises(ValueError, match=str(b.MAX_CELLS)):
        b.alibi_bias(64, 4096)
    with pytest.raises(ValueError, match=str(b.MAX_ELEMENTS)):
        b.kerple(np.zeros(b.MAX_ELEMENTS + 1), 1.0, 1.0)


def test_a_seeded_t5_table_takes_any_max_distance():
    """Only a table shaped by another member's curve is bounded by the distances that curve takes."""
    assert b.t5_table(b.Family(t5_shape="seeded", num_buckets=64, max_distance=10**9)).shape == (64,)
    assert np.isfinite(b.t5_table(b.Family(t5_shape="gaussian_log", max_distance=b.MAX_CURVE_DISTANCE))).all()


def test_largest_calls_stay_under_256_mb():
    assert b.alibi_bias(1, 2896).nbytes <= 256 * 2**20
    assert b.alibi_bias(b.MAX_HEADS, 90).nbytes <= 256 * 2**20
    assert b.bias_matrix("gaussian_log", b.MAX_MATRIX_T).nbytes <= 256 * 2**20
    assert b.t5_bucket(np.arange(-(b.MAX_ELEMENTS // 2), b.MAX_ELEMENTS // 2)).nbytes <= 256 * 2**20


ANY = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=True),
                st.text(max_size=6), st.lists(st.floats(allow_nan=True), max_size=4),
                st.lists(st.integers(-(10**12), 10**12), max_size=4))
GOOD = {
    b.alibi_slopes: dict(n_heads=8),
    b.alibi_bias: dict(n_heads=4, T=8),
    b.alibi_base_heads: dict(n_heads=5),
    b.alibi_key_only: dict(n_heads=3, T=8),
    b.alibi_forms_gap: dict(n_heads=2, T=8, causal=False, seed=0),
    b.content_logits_grid: dict(T=8, seed=0, d=16),
    b.t5_bucket: dict(relative_position=[-3, 0, 4], bidirectional=True, num_buckets=32, max_distance=128),
    b.kerple: dict(distance=[0.0, 2.0], r1=1.0, r2=0.5, kind="power"),
    b.t5_bucket_edges: dict(num_buckets=32, max_distance=128),
    b.alibi_distance_bias: dict(n_heads=4, distance=[0.0, 3.0]),
    b.distance_bias: dict(member="t5", distance=[0.0, 9.0]),
    b.bias_matrix: dict(member="kerple_log", T=8),
    b.attention_row: dict(member="gaussian_mul", T=8),
    b.content_logits: dict(T=8),
    b.reach: dict(weights=[0.2, 0.8], mass=0.9),
    b.nope_signals: dict(T=8, d=4, seed=0),
    b.rope_profile: dict(span=8, dim=8, base=10000.0, seed=0, n_samples=4),
    b.Family: dict(n_heads=8, head=0, num_buckets=32, max_distance=128, t5_shape="seeded", t5_scale=1.0,
                   log_r1=1.0, log_r2=1.0, pow_r1=0.5, pow_r2=0.5, alpha1=0.7, sigma2=20.0, d=64, base=1e4,
                   seed=0, content_scale=1.0),
}
CALLS = [(fn, name) for fn, kw in GOOD.items() for name in kw]


def _finite(out) -> bool:
    if isinstance(out, b.Family):
        return True
    if isinstance(out, dict):
        return all(_finite(v) for v in out.values())
    arr = np.asarray(out, dtype=np.float64)
    return bool(np.isfinite(arr).all())


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=st.sampled_from(CALLS), value=ANY)
def test_fuzz_every_public_function(call, value):
    fn, name = call
    if fn in (b.alibi_bias, b.bias_matrix, b.alibi_forms_gap) and name == "T" and isinstance(value, int) \
            and value > 64:
        value = 64  # the caps are tested above; keep examples quick
    kwargs = dict(GOOD[fn], **{name: value})
    try:
        out = fn(**kwargs)
    except ValueError as err:
        assert any(k in str(err) for k in kwargs), (fn.__name__, name, str(err))
    else:
        if fn is b.alibi_bias or fn is b.bias_matrix:
            out = np.where(np.isneginf(out), 0.0, out)  # the causal mask is −inf by contract
        assert _finite(out), (fn.__name__, name, value)


def test_the_steepest_alibi_head_is_head_0_only_for_a_power_of_two():
    """The lesson's help and caption: head 0 is steepest when H = 2^k; otherwise head P (H = 12: head 8, 0.7071,
    against head 0's 0.5)."""
    for n_heads in range(1, b.MAX_HEADS + 1):
        slopes = b.alibi_slopes(n_heads)
        assert b.alibi_steepest_head(n_heads) == int(np.argmax(slopes)), n_heads
    assert b.alibi_steepest_head(12) == 8 and b.alibi_slopes(12)[8] == pytest.approx(2**-0.5)
    assert b.alibi_slopes(12)[0] == 0.5 and b.alibi_steepest_head(16) == 0
    with pytest.raises(ValueError, match="n_heads"):
        b.alibi_steepest_head(0)


def test_alibi_slopes_count_heads_from_zero():
    """The docstring's, the chart's and the formula's numbering: m_h = 2^(−8(h+1)/H) for h = 0..H − 1."""
    h = np.arange(8)
    np.testing.assert_allclose(b.alibi_slopes(8), 2.0 ** (-8 * (h + 1) / 8))
    assert "h = 0..P − 1" in b.alibi_slopes.__doc__
