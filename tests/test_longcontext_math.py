"""The long-context methods' math (posviz.longctx, posviz.streams) against independent re-derivations of the
authors' reference code (re-typed logic, never their code: microsoft/torchscale's XPOS, bojone/rerope's two
passes and decoding branch, datamllab/LongLM's masks and grouped positions, mit-han-lab/streaming-llm's
StartRecentKVCache with position shift, dwzhu-pku/PoSE's position ids), naive loops and hypothesis properties."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import longctx as lc
from posviz import streams as sm

# ------------------------------------------------------------------------------------------ the base bound


def naive_b(m: int, d: int, base: float) -> float:
    return sum(math.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


def naive_first_negative(d: int, base: float, length: int) -> int:
    for m in range(length + 1):
        if naive_b(m, d, base) < 0:
            return m
    return -1


def test_cosine_sum_matches_a_loop():
    got = lc.cosine_sum([0, 1, 7, 1000, 4097], 64, 5000.0)
    assert got == pytest.approx([naive_b(m, 64, 5000.0) for m in (0, 1, 7, 1000, 4097)], abs=1e-9)
    assert lc.cosine_sum([0], 128, 1e4)[0] == 64  # every pair at angle 0


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 24).map(lambda h: 2 * h), log_b=st.floats(1.0, 5.0), length=st.integers(1, 700))
def test_first_negative_position_matches_a_loop(d, log_b, length):
    assert lc.first_negative_position(d, 10.0 ** log_b, length) == naive_first_negative(d, 10.0 ** log_b, length)


def test_first_negative_position_across_blocks():
    # a long scan: the block factorisation against the loop where it first fails
    first = lc.first_negative_position(128, 2e5, 20_000)
    assert first == naive_first_negative(128, 2e5, 20_000) and first > 256


@pytest.mark.parametrize("d,length", [(128, 1024), (128, 4096), (64, 2048), (24, 2048)])
def test_base_lower_bound_is_the_smallest_passing_grid_base(d, length):
    bound = lc.base_lower_bound(d, length)
    grid = lc.base_grid()
    k = int(np.argmin(np.abs(grid - bound)))
    assert grid[k] == pytest.approx(bound)
    assert lc.first_negative_position(d, bound, length) == -1
    # every grid base below fails (checked independently from the grid's start, with the loop near the bound)
    assert all(lc.first_negative_position(d, float(b), length) >= 0 for b in grid[:k])
    assert naive_first_negative(d, float(grid[k - 1]), length) >= 0


def test_base_bound_values_and_growth():
    # values of this grid scan (100 bases per decade), for d = 128 (Men et al. 2024 tabulate the same trend)
    got = {L: lc.base_lower_bound(128, L) for L in (1024, 4096, 8192, 32768)}
    assert got[1024] == pytest.approx(10 ** 3.75)
    assert got[4096] == pytest.approx(10 ** 4.46)
    assert got[8192] == pytest.approx(10 ** 4.96)
    assert got[32768] == pytest.approx(10 ** 5.80)
    assert got[1024] < got[4096] < got[8192] < got[32768]


def test_bisection_misses_the_smallest_base():
    assert lc.base_bound_bisection(128, 4096) > 1.5 * lc.base_lower_bound(128, 4096)
    for L in (512, 2048, 8192):
        assert lc.base_bound_bisection(128, L) >= lc.base_lower_bound(128, L)


def test_critical_dimension_llama2_and_extrapolation_limit():
    # Liu et al. 2023: Llama 2 (d = 128, b = 1e4, 4k training) has critical dimension 92
    assert lc.critical_dimension(128, 1e4, 4096) == 92
    assert lc.extrapolation_limit(128, 1e4, 4096) == pytest.approx(2 * math.pi * 1e4 ** (92 / 128))
    # the pairs before d_extra have wavelength 2π b^(2i/d) within T_train; the pair at d_extra/2 does not fit
    i = 92 // 2
    assert 2 * math.pi * 1e4 ** (2 * (i - 1) / 128) <= 4096 < 2 * math.pi * 1e4 ** (2 * i / 128)


# ------------------------------------------------------------------------------------------ xPos


def torchscale_xpos_logits(q: np.ndarray, k: np.ndarray, scale_base: float = 512.0) -> np.ndarray:
    """microsoft/torchscale's XPOS re-typed in numpy: the scale buffer (arange(0, d, 2) + 0.4d)/(1.4d) raised to
    centred positions (from -(T)//2) over scale_base; sin/cos of positions 0..T-1 with inv_freq
    10000^(-j/(d/2)); duplicated-interleaved tables; rotate-every-two; q upscaled, k downscaled."""
    T, d = q.shape
    scale_vec = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
    min_pos = -T // 2
    scale = scale_vec[None, :] ** (np.arange(min_pos, min_pos + T)[:, None] / scale_base)  # (T, d/2)
    inv_freq = 1.0 / 10000 ** (np.arange(0, d // 2) / (d // 2))
    ang = np.arange(T)[:, None] * inv_freq[None, :]
    sin, cos = np.sin(ang), np.cos(ang)

    def dup(a: np.ndarray) -> np.ndarray:
        return np.repeat(a, 2, axis=1)

    def rot2(x: np.ndarray) -> np.ndarray:
        out = np.empty_like(x)
        out[:, 0::2], out[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return out

    qx = q * dup(cos * scale) + rot2(q) * dup(sin * scale)
    kx = k * dup(cos / scale) + rot2(k) * dup(sin / scale)
    return qx @ kx.T


@pytest.mark.parametrize("T,d", [(9, 8), (16, 32), (33, 64)])
def test_xpos_scores_match_torchscale(T, d):
    rng = np.random.default_rng(T)
    q, k = rng.standard_normal((T, d)), rng.standard_normal((T, d))
    assert lc.xpos_scores(q, k, d) == pytest.approx(torchscale_xpos_logits(q, k), rel=1e-9, abs=1e-9)


def test_xpos_zeta_is_torchscales_buffer():
    d = 128
    assert lc.xpos_zeta(d) == pytest.approx((np.arange(0, d, 2) + 0.4 * d) / (1.4 * d))
    assert lc.xpos_zeta(d)[0] == pytest.approx(0.4 / 1.4)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 64).map(lambda h: 2 * h), delta=st.floats(0, 1e5), gamma=st.floats(0.05, 2.0))
def test_xpos_decay_in_unit_interval_and_decreasing(d, delta, gamma):
    f = lc.xpos_decay([delta, delta + 1.0], d, gamma)
    assert np.all((f > 0) & (f <= 1)) and np.all(f[1] <= f[0])


def test_xpos_shift_invariance_and_overflow():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((12, 16)), rng.standard_normal((12, 16))
    assert lc.xpos_scores(q, k, 16, offset=0) == pytest.approx(lc.xpos_scores(q, k, 16, offset=777), rel=1e-9)
    plain = lc.xpos_key_scale_overflow(128, centred=False)
    zeta0 = 0.4 / 1.4
    assert zeta0 ** (-(plain - 1) / 512) > 65504 >= zeta0 ** (-(plain - 2) / 512)
    centred = lc.xpos_key_scale_overflow(128, centred=True)
    # torchscale's centred keys reach n = T - 1 - T//2: overflow first at that T
    assert zeta0 ** (-(centred - 1 - centred // 2) / 512) > 65504
    assert zeta0 ** (-(centred - 2 - (centred - 1) // 2) / 512) <= 65504


def test_xpos_profile_starts_at_one():
    prof = lc.xpos_score_profile(100, 64)
    assert prof["rope"][0] == pytest.approx(1.0) and prof["xpos"][0] == pytest.approx(1.0)
    assert prof["rope"] * 32 == pytest.approx(lc.cosine_sum(np.arange(101), 64))


# ------------------------------------------------------------------------------------------ ReRoPE


def rotate_half(x: np.ndarray) -> np.ndarray:
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_tables(positions: np.ndarray, d: int, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    inv = 1.0 / base ** (np.arange(0, d, 2) / d)
    emb = np.concatenate([np.outer(positions, inv)] * 2, axis=1)
    return np.cos(emb), np.sin(emb)


def bojone_prefill(q: np.ndarray, k: np.ndarray, window: int, leaky_k: float) -> np.ndarray:
    """bojone/rerope's prefill re-typed: pass 1 RoPE at (m, n); pass 2 q at w and k unrotated (leaky: q at
    (m + w(k-1))/k, k at n/k via linear scaling); where(|m - n| < w, pass 1, pass 2)."""
    T, d = q.shape
    pos = np.arange(T, dtype=np.float64)
    c, s = hf_tables(pos, d)
    q1, k1 = q * c + rotate_half(q) * s, k * c + rotate_half(k) * s
    if leaky_k:
        c2, s2 = hf_tables((pos + window * (leaky_k - 1)) / leaky_k, d)
        ck, sk = hf_tables(pos / leaky_k, d)
        q2, k2 = q * c2 + rotate_half(q) * s2, k * ck + rotate_half(k) * sk
    else:
        c2, s2 = hf_tables(np.full(T, float(window)), d)
        q2, k2 = q * c2 + rotate_half(q) * s2, k
    mask = np.abs(pos[:, None] - pos[None, :]) < window
    return np.where(mask, q1 @ k1.T, q2 @ k2.T)


def bojone_decode_row(q_last: np.ndarray, k: np.ndarray, window: int, leaky_k: float) -> np.ndarray:
    """The decoding branch: the new query unrotated; every cached key rotated by minus its table entry at
    t - n (the table capped at w, or for leaky: cos[:w] then the linearly scaled table from index w + offset)."""
    T, d = k.shape
    rel = (T - 1) - np.arange(T, dtype=np.float64)
    if leaky_k:
        offset = window * (leaky_k - 1)
        table_pos = np.where(rel < window, rel, (rel + offset) / leaky_k)
    else:
        table_pos = np.minimum(rel, window)
    c, s = hf_tables(table_pos, d)
    k_back = k * c + rotate_half(k) * (-s)
    return k_back @ q_last


@pytest.mark.parametrize("window,leaky_k", [(4, 0.0), (7, 0.0), (4, 2.0), (5, 16.0), (1, 3.0)])
def test_rerope_matches_the_reference_prefill_and_decoding(window, leaky_k):
    rng = np.random.default_rng(window)
    q, k = rng.standard_normal((20, 8)), rng.standard_normal((20, 8))
    ref = bojone_prefill(q, k, window, leaky_k)
    assert lc.rerope_two_pass_scores(q, k, window, leaky_k) == pytest.approx(ref, abs=1e-10)
    one_pass = lc.relative_scores(q, k, lc.rerope_relative(20, window, leaky_k))
    assert one_pass == pytest.approx(ref, abs=1e-10)
    assert one_pass[-1] == pytest.approx(bojone_decode_row(q[-1], k, window, leaky_k), abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 40), w=st.integers(1, 50), k=st.sampled_from([0.0, 1.0, 2.0, 7.5]))
def test_rerope_relative_properties(T, w, k):
    rel = lc.rerope_relative(T, w, k)
    causal = lc.causal_part(rel)
    plain = lc.causal_part(lc.rerope_relative(T, T + w))  # a window past T: plain m - n
    assert np.all(causal <= plain + 1e-12) and np.all(causal >= 0)
    if k == 0:
        assert causal.max(initial=0) <= w
    else:
        assert np.all(causal >= np.minimum(plain, w) - 1e-12)


def test_relative_scores_with_plain_positions_is_rope():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((10, 8)), rng.standard_normal((10, 8))
    pos = np.arange(10.0)
    c, s = hf_tables(pos, 8)
    ref = (q * c + rotate_half(q) * s) @ (k * c + rotate_half(k) * s).T
    assert lc.relative_scores(q, k, pos[:, None] - pos[None, :]) == pytest.approx(ref, abs=1e-10)


def test_rerope_cost():
    cost = lc.rerope_cost(4096, 128, 512)
    assert cost["rerope_prefill_macs"] == 2 * cost["rope_prefill_macs"] == 2 * 4096 * 4096 * 128
    far = sum(1 for m in range(64) for n in range(m + 1) if m - n >= 16) / (64 * 65 / 2)
    assert lc.rerope_cost(64, 8, 16)["far_fraction"] == pytest.approx(far)


# ------------------------------------------------------------------------------------------ Self-Extend


def longlm_relative(T: int, G: int, W: int) -> np.ndarray:
    """datamllab/LongLM's prefill re-typed: neighbour logits at positions (i, j), group logits at query
    i // G + re - re / G and key j // G (re = W once the largest position reaches W, else 0); the neighbour mask
    is tril(ones) minus tril(ones(T-W, T-W)) placed at rows W.., columns ..T-W; the relative position a pair
    uses is read off the chosen pass."""
    pos = np.arange(T)
    re = 0 if pos.max() < W else W
    gq = pos // G + re - re / G
    gk = pos // G
    neighbour = np.tril(np.ones((T, T)))
    if T - W > 0:
        neighbour[W:, : T - W] -= np.tril(np.ones((T - W, T - W)))
    neighbour = neighbour.astype(bool)
    out = np.empty((T, T))
    for i in range(T):
        for j in range(i + 1):
            out[i, j] = (i - j) if neighbour[i, j] else (gq[i] - gk[j])
    return out


@pytest.mark.parametrize("T,G,W", [(24, 4, 6), (40, 3, 8), (17, 2, 3), (12, 5, 20), (33, 8, 7), (20, 1, 4)])
def test_self_extend_matches_the_reference(T, G, W):
    got = sm.self_extend_relative(T, G, W)
    ref = longlm_relative(T, G, W)
    tril = np.tril_indices(T)
    assert got[tril] == pytest.approx(ref[tril])
    # decoding (q_len 1): the neighbour mask is the last W keys, positions as above
    i = T - 1
    re = W if i >= W else 0
    row = [(i - j) if j >= T - W else (i // G + re - re / G) - j // G for j in range(T)]
    assert got[i] == pytest.approx(row)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 60), G=st.integers(1, 9), W=st.integers(1, 30))
def test_self_extend_properties(T, G, W):
    rel = sm.self_extend_relative(T, G, W)
    i, j = np.tril_indices(T)
    r = rel[i, j]
    # grouping can lengthen a distance, by less than one token: ⌊m/G⌋ - ⌊n/G⌋ <= (m - n + G - 1)/G
    assert np.all(r <= (i - j) + (G - 1) / G + 1e-12)
    assert r.max(initial=0) <= max(T - 1, 0) + 1e-12
    assert np.all(r[(i - j) < W] == (i - j)[(i - j) < W])
    assert np.all(r >= 0)


def test_self_extend_reach_and_angles():
    assert sm.self_extend_reach(4096, 5, 1024) == 5 * (4096 - 1024) + 1024  # LongLM's README example: 16,384
    a = sm.self_extend_angles(24, 4, 6, 64, 1e4, 3)
    theta = 1e4 ** (-6 / 64)
    assert a["rope"][0] == pytest.approx(23 * theta)
    assert a["self_extend"][0] == pytest.approx((23 // 4 + 6 - 1.5) * theta)


# ------------------------------------------------------------------------------------------ attention sinks


def simulate_start_recent(steps: int, start: int, recent: int) -> list[list[int]]:
    """mit-han-lab/streaming-llm's token-by-token loop re-typed: feed token t with the cache, then trim the
    cache to the first ``start`` and last ``recent`` entries when it holds more than start + recent."""
    cache: list[int] = []
    seen = []
    for t in range(steps):
        seen.append(cache + [t])
        cache = cache + [t]
        if len(cache) > start + recent:
            cache = cache[:start] + cache[len(cache) - recent:]
    return seen


@pytest.mark.parametrize("start,recent", [(4, 8), (0, 5), (2, 1), (1, 16)])
def test_sink_cache_matches_start_recent_cache(start, recent):
    seen = simulate_start_recent(60, start, recent)
    for t in range(60):
        got = sm.sink_cache(t, start, recent)
        assert got["token"].tolist() == seen[t]
        assert got["position"].tolist() == list(range(len(seen[t])))  # position shift: slots in the cache


def test_sink_positions_over_stream():
    cache = sm.sink_positions_over_stream(100, 4, 10, True)
    text = sm.sink_positions_over_stream(100, 4, 10, False)
    assert cache["max_position"].max() == 14 and text["max_position"][-1] == 99
    assert [int(sm.sink_cache(t, 4, 10)["position"][-1]) for t in range(100)] == cache["max_position"].tolist()


# ------------------------------------------------------------------------------------------ PoSE, random ids


def pose_reference(Lc: int, Lt: int, n: int, seed: int, method: str) -> list[list[int]]:
    """dwzhu-pku/PoSE's preprocessing re-typed for a text of Lt tokens: the same random draws in order."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        if method == "random":
            rows.append(sorted(rnd.sample(list(range(Lt)), Lc)))
            continue
        rt1 = rnd.randint(1, (Lc + 1) // 2)
        rnd.randint(0 + Lc, Lt)  # rt2, the text end: ids do not depend on it
        rt = rnd.randint(0, Lt - Lc)
        pos = list(range(Lc))
        rows.append(pos[:rt1] + [p + rt for p in pos[rt1:]])
    return rows


@pytest.mark.parametrize("method", ["pose", "random"])
@pytest.mark.parametrize("seed", [0, 1, 42])
def test_pose_batch_matches_the_reference(method, seed):
    assert sm.pose_batch(16, 200, 6, seed, method).tolist() == pose_reference(16, 200, 6, seed, method)


@settings(max_examples=30, deadline=None)
@given(Lc=st.integers(2, 40), extra=st.integers(0, 300), seed=st.integers(0, 10_000))
def test_pose_ids_properties(Lc, extra, seed):
    Lt = Lc + extra
    for method in ("pose", "random"):
        ids = sm.pose_batch(Lc, Lt, 3, seed, method)
        assert ids.shape == (3, Lc) and np.all(np.diff(ids, axis=1) > 0) and ids.min() >= 0 and ids.max() < Lt


def test_relative_coverage_matches_sets():
    ids = sm.pose_batch(8, 40, 5, 7)
    want = np.zeros(40, dtype=int)
    for row in ids:
        for r in {int(a - b) for a in row for b in row if a >= b}:
            want[r] += 1
    assert sm.relative_coverage(ids, 40).tolist() == want.tolist()


# ------------------------------------------------------------------------------------------ the contract


@pytest.mark.parametrize("call,name", [
    (lambda: lc.base_lower_bound(128, lc.MAX_BOUND_LENGTH + 1), "length"),
    (lambda: lc.cosine_sum([1.0], 7), "dim"),
    (lambda: lc.rerope_relative(8, 2, 0.5), "leaky_k"),
    (lambda: lc.relative_scores(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 2))), "relative"),
    (lambda: sm.self_extend_relative(sm.MAX_SIDE + 1), "T"),
    (lambda: sm.pose_position_ids(16, 64, 9, 0), "split"),
    (lambda: sm.pose_batch(16, 8), "target_length"),
    (lambda: sm.relative_coverage([[0, 9]], 5), "position_ids"),
    (lambda: lc.xpos_key_scale_overflow(centred="yes"), "centred"),
])
def test_bad_arguments_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_unsorted_order_errors_counts_backward_pairs():
    rnd = random.Random(5)
    wrong = total = 0
    for _ in range(4):
        ids = rnd.sample(range(50), 10)
        for m in range(10):
            for n in range(m):
                total += 1
                wrong += ids[m] < ids[n]
    assert sm.unsorted_order_errors(10, 50, 4, 5) == pytest.approx(wrong / total)
