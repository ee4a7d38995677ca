"""RoPE math: against complex numbers, transformers' Llama RoPE, golden values and properties."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import rope

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------- references

def complex_reference(x: np.ndarray, positions: np.ndarray, base: float, layout: str) -> np.ndarray:
    """Naive per-pair complex rotation z -> z·e^{i m θ_i}, written with loops (RoFormer §3.2)."""
    T, d = x.shape
    out = np.zeros_like(x)
    for t in range(T):
        for i in range(d // 2):
            u_idx, v_idx = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
            z = complex(x[t, u_idx], x[t, v_idx]) * np.exp(1j * positions[t] * base ** (-2 * i / d))
            out[t, u_idx], out[t, v_idx] = z.real, z.imag
    return out


def hf_llama(dim: int, base: float):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = LlamaConfig(hidden_size=2 * dim, num_attention_heads=2, head_dim=dim, rope_theta=base)
        return LlamaRotaryEmbedding(cfg), apply_rotary_pos_emb


# ---------------------------------------------------------------------------- frequencies

def test_inv_freq_golden_values():
    theta = rope.inv_freq(64)
    assert theta[0] == 1.0
    assert theta[1] == pytest.approx(0.749894, rel=1e-6)
    assert theta[31] == pytest.approx(1.333522e-4, rel=1e-6)
    assert rope.wavelengths(64)[0] == pytest.approx(2 * math.pi)


@pytest.mark.parametrize("dim,base", [(64, 10000.0), (128, 500000.0), (8, 10.0)])
def test_inv_freq_matches_transformers(dim, base):
    emb, _ = hf_llama(dim, base)
    np.testing.assert_allclose(rope.inv_freq(dim, base), emb.inv_freq.double().numpy(), rtol=1e-6)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_apply_rope_matches_complex_reference(layout):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((7, 12))
    pos = np.array([0, 1, 2.5, 9, 100, 1000, 4095.0])
    expected = complex_reference(x, pos, 500.0, layout)
    got = rope.apply_rope(torch.tensor(x), torch.tensor(pos), rope.inv_freq(12, 500.0), layout)
    assert got.dtype == torch.float64
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(rope.rotate(x, pos, rope.inv_freq(12, 500.0), layout), expected, atol=1e-12)


def test_apply_rope_keeps_batch_shape_and_dtype():
    x = torch.randn(2, 3, 5, 8, dtype=torch.float32)
    out = rope.apply_rope(x, torch.arange(5), rope.inv_freq(8))
    assert out.shape == x.shape and out.dtype == torch.float32
    np.testing.assert_allclose(out[:, :, 0].numpy(), x[:, :, 0].numpy())  # position 0: identity


@pytest.mark.parametrize("dim,base", [(64, 10000.0), (16, 500000.0)])
def test_matches_transformers_apply_rotary_pos_emb(dim, base):
    emb, apply_rotary_pos_emb = hf_llama(dim, base)
    T = 33
    q = torch.randn(1, 2, T, dim, dtype=torch.float32)  # (B, H, T, D)
    k = torch.randn(1, 2, T, dim, dtype=torch.float32)
    pos = torch.arange(T)[None]
    cos, sin = emb(q, pos)  # (1, T, D), half layout
    ours_cos, ours_sin = rope.cos_sin(np.arange(T), dim, base, "half")
    np.testing.assert_allclose(cos[0].numpy(), ours_cos, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sin[0].numpy(), ours_sin, rtol=1e-5, atol=1e-6)
    hq, hk = apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1)
    theta = rope.inv_freq(dim, base)
    # half layout: same numbers as HF directly
    np.testing.assert_allclose(rope.apply_rope(q, pos[0], theta, "half").numpy(), hq.numpy(), atol=2e-5)
    # interleaved: HF(P·x) == P·ours(x), and scores agree without permutation
    P = torch.as_tensor(rope.deinterleave_permutation(dim))
    inv_p = torch.argsort(P)
    hq_p, hk_p = apply_rotary_pos_emb(q[..., P], k[..., P], cos, sin, unsqueeze_dim=1)
    oq = rope.apply_rope(q, pos[0], theta, "interleaved")
    ok = rope.apply_rope(k, pos[0], theta, "interleaved")
    np.testing.assert_allclose(oq[..., P].numpy(), hq_p.numpy(), atol=2e-5)
    np.testing.assert_allclose(hq_p[..., inv_p].numpy(), oq.numpy(), atol=2e-5)
    np.testing.assert_allclose((oq @ ok.transpose(-1, -2)).numpy(), (hq_p @ hk_p.transpose(-1, -2)).numpy(),
                               atol=1e-3)


def test_apply_rope_long_sequences_and_tensor_inv_freq():
    T = 100_000
    x = torch.ones(T, 8, dtype=torch.float64)
    theta = torch.tensor(rope.inv_freq(8), dtype=torch.float32)  # a float32 tensor, as models store it
    out = rope.apply_rope(x, torch.arange(T), theta)
    a = (T - 1) * theta.double().numpy()[0]
    assert out[-1, 0].item() == pytest.approx(math.cos(a) - math.sin(a), abs=1e-9)
    with pytest.raises(ValueError, match="positions"):
        rope.apply_rope(torch.ones(1 << 21, 2), torch.zeros(1 << 21), rope.inv_freq(2))


def test_cos_sin_tables_layouts():
    c_il, s_il = rope.cos_sin([3.0], 8, 100.0, "interleaved")
    c_h, _ = rope.cos_sin([3.0], 8, 100.0, "half")
    a = 3.0 * rope.inv_freq(8, 100.0)
    np.testing.assert_allclose(c_il[0], np.cos(np.repeat(a, 2)))
    np.testing.assert_allclose(s_il[0], np.sin(np.repeat(a, 2)))
    np.testing.assert_allclose(c_h[0], np.cos(np.concatenate([a, a])))
    P = rope.deinterleave_permutation(8)
    np.testing.assert_allclose(c_il[0][P], c_h[0])


def test_pair_channels_and_permutation():
    assert rope.pair_channels(8, "interleaved").tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert rope.pair_channels(8, "half").tolist() == [[0, 4], [1, 5], [2, 6], [3, 7]]
    P = rope.deinterleave_permutation(8)
    assert P.tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    # P maps interleaved pairs onto half pairs
    assert (P[rope.pair_channels(8, "half")] == rope.pair_channels(8, "interleaved")).all()


# ---------------------------------------------------------------------------- properties

dims = st.integers(1, 32).map(lambda h: 2 * h)
bases = st.floats(10.0, 1e7)
positions = st.floats(-5000, 5000, allow_nan=False)
layouts = st.sampled_from(["interleaved", "half"])


@FAST
@given(dim=dims, base=bases, m=positions, seed=st.integers(0, 2**16), layout=layouts)
def test_norm_is_kept(dim, base, m, seed, layout):
    q, _ = rope.sample_qk(dim, seed)
    ratio = rope.norm_ratio(q, [m], base, layout)
    assert ratio[0] == pytest.approx(1.0, abs=1e-12)


@FAST
@given(dim=dims, base=bases, m=positions, n=positions, c=positions, seed=st.integers(0, 2**16), layout=layouts)
def test_score_invariant_under_shifting_both(dim, base, m, n, c, seed, layout):
    q, k = rope.sample_qk(dim, seed)
    s1 = rope.score(q, k, m, n, base, layout)
    s2 = rope.score(q, k, m + c, n + c, base, layout)
    assert s1 == pytest.approx(s2, abs=1e-8 * (1 + abs(m) + abs(n) + abs(c)))
    rel = rope.relative_scores(q, k, [m - n], base, layout)[0]
    assert rel == pytest.approx(s1, abs=1e-8 * (1 + abs(m) + abs(n)))


@FAST
@given(dim=dims, base=bases, seed=st.integers(0, 2**16),
       pos=st.lists(st.floats(-3000, 3000, allow_nan=False), min_size=1, max_size=6))
def test_layouts_agree_up_to_permutation(dim, base, seed, pos):
    q, k = rope.sample_qk(dim, seed)
    P = rope.deinterleave_permutation(dim)
    theta = rope.inv_freq(dim, base)
    x = np.ones((len(pos), 1)) * q
    np.testing.assert_allclose(rope.rotate(x[:, P], pos, theta, "half"),
                               rope.rotate(x, pos, theta, "interleaved")[:, P], atol=1e-12)
    np.testing.assert_allclose(rope.score_grid(q[P], k[P], pos, base, "half"),
                               rope.score_grid(q, k, pos, base, "interleaved"), atol=1e-9)


def test_layout_agreement_numbers():
    out = rope.layout_agreement(64, 10000.0, 64, 3)
    assert out["max_vector_diff"] < 1e-12 and out["max_score_diff"] < 1e-10


def test_score_grid_has_constant_diagonals_and_matches_score():
    q, k = rope.sample_qk(16, 5)
    pos = np.arange(20.0)
    s = rope.score_grid(q, k, pos, 100.0)
    for off in (-7, 0, 3):
        diag = np.diagonal(s, offset=off)
        assert np.ptp(diag) < 1e-10
    assert s[5, 2] == pytest.approx(rope.score(q, k, 5, 2, 100.0))
    assert abs(s[5, 2] - s[2, 5]) > 1e-3  # left differs from right


def test_mixed_layout_is_not_a_rotation():
    """The mixed layout: concatenated cos/sin + interleaved rotate."""
    q, k = rope.sample_qk(8, 0)
    ratios = rope.norm_ratio(q, np.arange(64.0), 10000.0, "mixed")
    assert np.abs(ratios - 1).max() > 1e-2
    s = rope.score_grid(q, k, np.arange(32.0), 10000.0, "mixed")
    assert np.ptp(np.diagonal(s, offset=-3)) > 0.1
    assert abs(rope.score(q, k, 5, 2, layout="mixed") - rope.score(q, k, 9, 6, layout="mixed")) > 0.1
    # what one pair gets: two different angles m·θ_{2i mod d/2} and m·θ_{(2i+1) mod d/2}
    x = np.zeros((1, 8))
    x[0, 2] = 1.0  # u of pair 1
    out = rope.rotate(x, [1.0], rope.inv_freq(8), "mixed")[0]
    theta = rope.inv_freq(8)
    assert out[2] == pytest.approx(math.cos(theta[2]))  # cos table index 2 -> θ_2
    assert out[3] == pytest.approx(math.sin(theta[3]))  # sin table index 3 -> θ_3


def test_swapped_q_and_k_transpose_the_grid():
    q, k = rope.sample_qk(16, 2)
    pos = np.arange(12.0)
    good = rope.score_grid(q, k, pos)
    bad = rope.score_grid(q, k, pos, swap=True)
    np.testing.assert_allclose(bad, good.T, atol=1e-12)
    assert np.abs(bad - good).max() > 0.1


# ---------------------------------------------------------------------------- decay (docs/FORMULAS.md §1.4)

def test_decay_bound_golden_values():
    deltas = [0, 1, 5, 10, 100, 250, 1000, 2000]
    expected = [32.5, 31.54, 20.85, 17.95, 10.23, 6.55, 4.47, 5.05]
    np.testing.assert_allclose(rope.decay_bound(deltas, 128), expected, atol=0.006)


def test_decay_bound_is_not_monotone_and_cos_sum_goes_negative():
    d = np.arange(0, 2001.0)
    b = rope.decay_bound(d, 128)
    rises = (np.diff(b) > 0).mean()
    assert 0.3 < rises < 0.7
    c = rope.cos_sum(d, 128)
    assert int(np.argmin(c)) == 1970
    assert c.min() == pytest.approx(-1.82, abs=0.006)
    assert c[0] == 64


def test_decay_bound_against_naive_abel_sum():
    theta = rope.inv_freq(16, 100.0)
    delta = 7.0
    s = [sum(np.exp(1j * delta * theta[k]) for k in range(j)) for j in range(1, 9)]
    assert rope.decay_bound([delta], 16, 100.0)[0] == pytest.approx(np.mean(np.abs(s)))


def test_mean_random_score_is_zero_within_noise():
    dim, n = 128, 2048
    r = rope.mean_random_score(np.arange(0, 1000.0), dim, n_samples=n, seed=1)
    assert np.abs(r).max() < 5 * math.sqrt(dim / n)
    assert abs(r.mean()) < 0.5


# ---------------------------------------------------------------------------- float32 and wrapping

def test_float32_error_grows_with_position():
    err = rope.float32_error([10, 1e3, 1e4, 1.3e5], 128)
    assert err[0] < 1e-5
    assert err[2] > 1e-4
    assert 2e-3 < err[3] < 5e-2
    a32 = rope.angles([1e5], 64, dtype="float32")
    assert a32.dtype == np.float32


def test_wrapped_pairs():
    w = rope.wrapped_pairs(2 * math.pi, 8, 10000.0)
    assert w.tolist() == [True, False, False, False]
    assert rope.wrapped_pairs(0, 8).sum() == 0
    assert rope.wrapped_pairs(1e9, 8).all()


def test_sample_qk_presets():
    q, k = rope.sample_qk(6, 0, "ones")
    assert q.tolist() == [1.0] * 6 and k.tolist() == [1.0] * 6
    a, b = rope.sample_qk(6, 7)
    c, _ = rope.sample_qk(6, 7)
    assert (a == c).all() and not (a == b).all()


# ---------------------------------------------------------------------------- bad input

BAD_CALLS = [
    (lambda: rope.inv_freq(7), "dim"),
    (lambda: rope.inv_freq(0), "dim"),
    (lambda: rope.inv_freq(64, -1.0), "base"),
    (lambda: rope.inv_freq(64, float("nan")), "base"),
    (lambda: rope.angles([float("inf")], 8), "positions"),
    (lambda: rope.angles([1.0], 8, dtype="float16"), "dtype"),
    (lambda: rope.angles(np.zeros(70000), 8), "positions"),
    (lambda: rope.cos_sin([1.0], 8, layout="diagonal"), "layout"),
    (lambda: rope.rotate(np.ones((2, 8)), [0.0], rope.inv_freq(8)), "positions"),
    (lambda: rope.rotate(np.ones((2, 8)), [0.0, 1.0], rope.inv_freq(6)), "inv_freq"),
    (lambda: rope.rotate("abc", [0.0], rope.inv_freq(8)), "x"),
    (lambda: rope.apply_rope(np.ones((2, 8)), [0.0, 1.0], rope.inv_freq(8)), "x"),
    (lambda: rope.apply_rope(torch.ones(2, 8), torch.tensor([0.0, float("nan")]), rope.inv_freq(8)), "positions"),
    (lambda: rope.apply_rope(torch.ones(2, 8), torch.arange(2), rope.inv_freq(8), "mixed"), "layout"),
    (lambda: rope.score(np.ones(8), np.ones(6), 0, 0), "k"),
    (lambda: rope.score(np.ones(7), np.ones(7), 0, 0), "q"),
    (lambda: rope.score(np.ones(8), np.ones(8), float("nan"), 0), "m"),
    (lambda: rope.score_grid(np.ones(8), np.ones(8), np.arange(5000.0)), "positions"),
    (lambda: rope.score_grid(np.ones(8), np.ones(8), [1.0], swap="yes"), "swap"),
    (lambda: rope.sample_qk(8, -1), "seed"),
    (lambda: rope.sample_qk(8, 0, "zeros"), "preset"),
    (lambda: rope.norm_ratio(np.zeros(8), [1.0]), "x"),
    (lambda: rope.decay_bound(np.arange(40000.0), 4096), "deltas"),
    (lambda: rope.mean_random_score([1.0], 8, n_samples=0), "n_samples"),
    (lambda: rope.layout_agreement(8, n_positions=10**6), "n_positions"),
    (lambda: rope.wrapped_pairs(float("inf"), 8), "m"),
]


@pytest.mark.parametrize("call,name", BAD_CALLS)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ---------------------------------------------------------------------------- hostile-input fuzz

junk = st.one_of(
    st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.none(), st.booleans(), st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
    st.just(10**400), st.just([[1.0, 2.0]]), st.just(np.ones(4)),
)

PUBLIC = {
    "inv_freq": (rope.inv_freq, ("dim", "base")),
    "wavelengths": (rope.wavelengths, ("dim", "base")),
    "angles": (rope.angles, ("positions", "dim", "base")),
    "wrapped_pairs": (rope.wrapped_pairs, ("m", "dim", "base")),
    "cos_sin": (rope.cos_sin, ("positions", "dim", "base", "layout")),
    "deinterleave_permutation": (rope.deinterleave_permutation, ("dim",)),
    "pair_channels": (rope.pair_channels, ("dim", "layout")),
    "sample_qk": (rope.sample_qk, ("dim", "seed", "preset")),
    "score": (rope.score, ("q", "k", "m", "n", "base", "layout")),
    "score_grid": (rope.score_grid, ("q", "k", "positions", "base", "layout")),
    "relative_scores": (rope.relative_scores, ("q", "k", "deltas", "base", "layout")),
    "norm_ratio": (rope.norm_ratio, ("x", "positions", "base", "layout")),
    "decay_bound": (rope.decay_bound, ("deltas", "dim", "base")),
    "cos_sum": (rope.cos_sum, ("deltas", "dim", "base")),
    "mean_random_score": (rope.mean_random_score, ("deltas", "dim", "base", "n_samples", "seed")),
    "float32_error": (rope.float32_error, ("positions", "dim", "base")),
    "layout_agreement": (rope.layout_agreement, ("dim", "base", "n_positions", "seed")),
    "rotate": (rope.rotate, ("x", "positions", "inv_freq", "layout")),
}
ALIASES: dict[str, tuple[str, ...]] = {}

# RoPE from first principles
NEW_PUBLIC = {
    "additive_weights": (rope.additive_weights, ("d_model", "seed", "weights")),
    "additive_score_terms": (rope.additive_score_terms, ("n_positions", "d_model", "base", "seed", "tokens",
                                                         "weights")),
    "off_offset_residual": (rope.off_offset_residual, ("z",)),
    "rotation_2d": (rope.rotation_2d, ("angle",)),
    "block_rotation": (rope.block_rotation, ("m", "dim", "base")),
    "complex_pairs": (rope.complex_pairs, ("x", "layout")),
    "derivation_checks": (rope.derivation_checks, ("q", "k", "m", "n", "c", "base")),
    "qk_pairs": (rope.qk_pairs, ("q", "k", "m", "n", "base", "layout", "freqs")),
    "absolute_offset_scores": (rope.absolute_offset_scores, ("anchor", "max_offset", "d_model", "base", "seed",
                                                             "weights")),
    "left_right_curves": (rope.left_right_curves, ("dim", "base", "max_offset", "c", "seed")),
    "pair_frequencies": (rope.pair_frequencies, ("dim", "base", "scheme", "fraction")),
    "turns_within": (rope.turns_within, ("freqs", "length")),
    "pair_roles": (rope.pair_roles, ("freqs", "length")),
    "slowest_wavelengths": (rope.slowest_wavelengths, ("dim", "bases")),
    "base_for_wavelength": (rope.base_for_wavelength, ("dim", "length")),
    "first_negative_cos_sum": (rope.first_negative_cos_sum, ("dim", "base", "length")),
}


def _finite(out: object) -> bool:
    if isinstance(out, dict):
        return all(_finite(v) for v in out.values())
    if isinstance(out, tuple):
        return all(_finite(v) for v in out)
    if np.asarray(out).dtype.kind == "U":  # labels (pair_roles)
        return True
    return bool(np.isfinite(np.asarray(out, dtype=np.float64)).all())


@pytest.mark.parametrize("fname", sorted(PUBLIC | NEW_PUBLIC))
@settings(max_examples=40, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_public_functions(fname, data):
    fn, names = (PUBLIC | NEW_PUBLIC)[fname]
    args = {n: data.draw(junk, label=n) for n in names}
    try:
        out = fn(**args)
    except ValueError as e:
        msg = str(e)
        allowed = [a for n in names for a in ALIASES.get(n, (n,))]
        assert any(n in msg for n in allowed), msg
    else:
        assert _finite(out)


@settings(max_examples=40, deadline=2000)
@given(x=st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=0, max_size=8),
       pos=junk, theta=junk, layout=st.sampled_from(["interleaved", "half", "mixed", "", "x"]))
def test_fuzz_apply_rope(x, pos, theta, layout):
    t = torch.tensor([x], dtype=torch.float64) if x else torch.zeros(1, 0, dtype=torch.float64)
    try:
        out = rope.apply_rope(t, pos, theta, layout)
    except ValueError as e:
        assert any(n in str(e) for n in ("x", "positions", "inv_freq", "layout"))
    else:
        assert out.shape == t.shape
        assert torch.isfinite(out).all()


# ============================================================================ RoPE from first principles

def _seeded_inputs(n_positions: int, d: int, seed: int, tokens: str):
    """W_q, W_k and the token embeddings drawn the way the docstring of additive_score_terms says."""
    rng = np.random.default_rng(seed)
    w_q, w_k = rng.standard_normal((2, d, d)) / math.sqrt(d)
    x = rng.standard_normal((1 if tokens == "same" else n_positions, d))
    return w_q, w_k, np.broadcast_to(x, (n_positions, d))


def naive_sinusoid(pos: int, d: int, base: float) -> np.ndarray:
    """Vaswani §3.5 with loops: PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(same)."""
    out = np.zeros(d)
    for i in range(d // 2):
        out[2 * i] = math.sin(pos / base ** (2 * i / d))
        out[2 * i + 1] = math.cos(pos / base ** (2 * i / d))
    return out


@pytest.mark.parametrize("tokens", ["same", "random"])
def test_additive_terms_against_a_naive_loop_and_sum_to_the_full_score(tokens):
    T, d, base, seed = 9, 12, 100.0, 3
    terms = rope.additive_score_terms(T, d, base, seed, tokens)
    w_q, w_k, x = _seeded_inputs(T, d, seed, tokens)
    for mpos in range(T):
        for npos in range(T):
            e_m, e_n = x[mpos] + naive_sinusoid(mpos, d, base), x[npos] + naive_sinusoid(npos, d, base)
            full = float((w_q @ e_m) @ (w_k @ e_n))  # q = W_q e_m, k = W_k e_n
            assert terms["full"][mpos, npos] == pytest.approx(full, abs=1e-10)
    total = sum(terms[t] for t in rope.ADDITIVE_TERMS)
    assert np.abs(total - terms["full"]).max() < 1e-10


@settings(max_examples=25, deadline=None)
@given(T=st.integers(1, 40), d=st.sampled_from([2, 8, 64]), seed=st.integers(0, 999),
       tokens=st.sampled_from(rope.TOKENS), weights=st.sampled_from(rope.WEIGHTS))
def test_additive_terms_always_sum_back(T, d, seed, tokens, weights):
    terms = rope.additive_score_terms(T, d, 10000.0, seed, tokens, weights)
    total = sum(terms[t] for t in rope.ADDITIVE_TERMS)
    assert np.abs(total - terms["full"]).max() <= 1e-10 * max(1.0, np.abs(terms["full"]).max())


def test_which_additive_terms_depend_on_what():
    """Same token everywhere: content·content is constant, content·position depends on n alone, position·content
    on m alone; with W = I position·position is PE·PE, a function of m − n; with a learned W it is not."""
    t = rope.additive_score_terms(48, 32, 10000.0, 0, "same", "random")
    assert np.ptp(t["content·content"]) < 1e-12
    assert np.ptp(t["content·position"], axis=0).max() < 1e-12  # every row the same: depends on n only
    assert np.ptp(t["position·content"], axis=1).max() < 1e-12  # every column the same: depends on m only
    assert rope.off_offset_residual(t["content·position"]) > 0.3
    assert rope.off_offset_residual(t["position·position"]) > 0.3
    assert rope.off_offset_residual(t["full"]) > 0.3  # so the full score is not relative either
    ident = rope.additive_score_terms(48, 32, 10000.0, 0, "same", "identity")["position·position"]
    assert rope.off_offset_residual(ident) < 1e-12
    from posviz.sinusoidal import dot_by_offset
    np.testing.assert_allclose(ident[20, :], dot_by_offset(20 - np.arange(48.0), 32), atol=1e-12)


def test_off_offset_residual_against_a_naive_loop():
    rng = np.random.default_rng(5)
    z = rng.standard_normal((7, 7))
    diag = {}
    for a in range(7):
        for b in range(7):
            diag.setdefault(a - b, []).append(z[a, b])
    sq = [(z[a, b] - np.mean(diag[a - b])) ** 2 for a in range(7) for b in range(7)]
    assert rope.off_offset_residual(z) == pytest.approx(math.sqrt(np.mean(sq)), rel=1e-12)
    toeplitz = np.subtract.outer(np.arange(7.0), np.arange(7.0)) ** 3
    assert rope.off_offset_residual(toeplitz) == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(a=st.floats(-1e4, 1e4), b=st.floats(-1e4, 1e4))
def test_rotation_2d_is_the_exponential_of_a_generator_and_composes(a, b):
    generator = torch.tensor([[0.0, -a], [a, 0.0]], dtype=torch.float64)
    np.testing.assert_allclose(rope.rotation_2d(a), torch.linalg.matrix_exp(generator).numpy(), atol=1e-9)
    np.testing.assert_allclose(rope.rotation_2d(a).T @ rope.rotation_2d(b), rope.rotation_2d(b - a), atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(dim=st.sampled_from([2, 4, 8, 32]), m=st.floats(-500, 500), n=st.floats(-500, 500),
       base=st.sampled_from([10.0, 10000.0]), seed=st.integers(0, 99))
def test_block_rotation_is_rotate_and_composes(dim, m, n, base, seed):
    q, _ = rope.sample_qk(dim, seed)
    r_m = rope.block_rotation(m, dim, base)
    np.testing.assert_allclose(r_m @ q, complex_reference(q[None], np.array([m]), base, "interleaved")[0],
                               atol=1e-10)
    np.testing.assert_allclose(r_m.T @ rope.block_rotation(n, dim, base), rope.block_rotation(n - m, dim, base),
                               atol=1e-9)
    np.testing.assert_allclose(r_m.T @ r_m, np.eye(dim), atol=1e-12)  # orthogonal


def test_complex_pairs_in_both_layouts():
    x = np.arange(8.0)
    np.testing.assert_array_equal(rope.complex_pairs(x), [0 + 1j, 2 + 3j, 4 + 5j, 6 + 7j])
    np.testing.assert_array_equal(rope.complex_pairs(x, "half"), [0 + 4j, 1 + 5j, 2 + 6j, 3 + 7j])


@settings(max_examples=30, deadline=None)
@given(dim=st.sampled_from([2, 8, 64]), m=st.integers(0, 4096), n=st.integers(0, 4096), c=st.integers(-99, 99),
       seed=st.integers(0, 99))
def test_derivation_steps_agree(dim, m, n, c, seed):
    q, k = rope.sample_qk(dim, seed)
    out = rope.derivation_checks(q, k, m, n, c)
    ref = rope.score(q, k, m, n)
    scale = 1e-9 * (1 + abs(ref))
    for key in ("score_matrix", "score_relative", "score_complex", "score_shifted"):
        assert abs(out[key] - ref) < scale, key
    assert out["composition_error"] < 1e-9 and out["complex_error"] < 1e-9 and out["norm_change"] < 1e-9


def test_qk_pairs_against_complex_numbers():
    dim, base = 8, 100.0
    q, k = rope.sample_qk(dim, 4)
    m, n = np.array([5.0, 9.0, 0.5]), np.array([2.0, 6.0, 7.25])
    out = rope.qk_pairs(q, k, m, n, base)
    theta = base ** (-np.arange(0, dim, 2) / dim)
    zq = (q[0::2] + 1j * q[1::2])[None] * np.exp(1j * m[:, None] * theta)  # (T, d/2)
    zk = (k[0::2] + 1j * k[1::2])[None] * np.exp(1j * n[:, None] * theta)
    np.testing.assert_allclose(out["q"][..., 0] + 1j * out["q"][..., 1], zq, atol=1e-12)
    np.testing.assert_allclose(out["score"], np.real(zq * np.conj(zk)), atol=1e-12)
    np.testing.assert_allclose(out["angle"], np.angle(zq * np.conj(zk)), atol=1e-12)
    assert out["score"][0].sum() == pytest.approx(rope.score(q, k, 5, 2, base), abs=1e-12)
    np.testing.assert_allclose(out["angle"][0], out["angle"][1], atol=1e-12)  # both shifted by 4: same angles


@settings(max_examples=25, deadline=None)
@given(dim=st.sampled_from([4, 16, 64]), m=st.integers(0, 10**5), n=st.integers(0, 10**5),
       c=st.floats(0, 1000), layout=st.sampled_from(rope.LAYOUTS), seed=st.integers(0, 50))
def test_qk_pairs_angles_and_shares_survive_a_common_shift(dim, m, n, c, layout, seed):
    q, k = rope.sample_qk(dim, seed)
    out = rope.qk_pairs(q, k, [m, m + c], [n, n + c], layout=layout)
    np.testing.assert_allclose(out["score"][0], out["score"][1], atol=1e-7)
    wrapped = np.angle(np.exp(1j * (out["angle"][0] - out["angle"][1])))
    assert np.abs(wrapped).max() < 1e-7


def test_absolute_offset_scores_against_a_naive_loop():
    d, base, seed, anchor, D = 8, 100.0, 2, 6, 4
    w_q, w_k, _ = _seeded_inputs(1, d, seed, "same")
    got = rope.absolute_offset_scores(anchor, D, d, base, seed)
    for j, delta in enumerate(range(-D, D + 1)):
        p_m, p_n = naive_sinusoid(anchor, d, base), naive_sinusoid(anchor - delta, d, base)
        assert got[j] == pytest.approx(float((w_q @ p_m) @ (w_k @ p_n)), abs=1e-10)


def test_left_right_like_with_like():
    """RoPE: the same curve at both anchors, direction-aware for q ≠ k, even for q = k. Absolute code with a learned W:
    direction-aware too, but the curve moves with the anchor; with W = I it is even (and anchor-free)."""
    cur = rope.left_right_curves(64, 10000.0, 48, 7, 0)
    assert np.abs(cur["rope_a"] - cur["rope_ac"]).max() < 1e-9
    assert np.abs(cur["rope_a"] - cur["rope_a"][::-1]).max() > 1.0
    assert np.abs(cur["rope_same"] - cur["rope_same"][::-1]).max() < 1e-9
    assert np.abs(cur["abs_a"] - cur["abs_a"][::-1]).max() > 1.0
    assert np.abs(cur["abs_a"] - cur["abs_ac"]).max() > 1.0
    assert np.abs(cur["abs_identity"] - cur["abs_identity"][::-1]).max() < 1e-9
    q, k = rope.sample_qk(64, 0)
    np.testing.assert_allclose(cur["rope_a"], rope.relative_scores(q, k, cur["deltas"]), atol=1e-9)


# ---------------------------------------------------------------------------- which pairs matter

def _hf_config(cls_name: str, head_dim: int, base: float, **rope_parameters):
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(transformers, cls_name)(hidden_size=2 * head_dim, num_attention_heads=2, head_dim=head_dim,
                                               rope_parameters={"rope_theta": base, **rope_parameters})


@pytest.mark.parametrize("dim,fraction", [(64, 0.25), (80, 0.4), (128, 0.5), (96, 1.0)])
def test_partial_frequencies_match_transformers_phi(dim, fraction):
    """Phi's rotary embedding (transformers 5.23) reads partial_rotary_factor: int(head_dim·factor) channels."""
    from transformers import PhiConfig
    from transformers.models.phi.modeling_phi import PhiRotaryEmbedding

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = PhiConfig(hidden_size=2 * dim, num_attention_heads=2, rope_parameters={
            "rope_theta": 10000.0, "rope_type": "default", "partial_rotary_factor": fraction})
        hf = PhiRotaryEmbedding(cfg).inv_freq
    got = rope.pair_frequencies(dim, 10000.0, "partial", fraction)
    np.testing.assert_allclose(got[:hf.numel()], hf.double().numpy(), rtol=1e-6)
    assert (got[hf.numel():] == 0).all() and got.size == dim // 2 and hf.numel() == int(dim * fraction) // 2


@pytest.mark.parametrize("dim,fraction", [(64, 0.75), (128, 0.25), (64, 0.0), (64, 1.0), (256, 0.5)])
def test_p_rope_frequencies_match_transformers_proportional(dim, fraction):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cfg = _hf_config("LlamaConfig", dim, 10000.0, rope_type="proportional", partial_rotary_factor=fraction)
    hf, _ = ROPE_INIT_FUNCTIONS["proportional"](cfg, "cpu")
    np.testing.assert_allclose(rope.pair_frequencies(dim, 10000.0, "p-rope", fraction), hf.double().numpy(),
                               rtol=1e-6)


def test_partial_rope_scores_match_gpt_neox():
    """transformers' GPT-NeoX rotates the first d_r channels half-split and passes the rest; rotating every pair
    (i, i + d/2) of the permuted vector with pair_frequencies gives the same scores."""
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding, apply_rotary_pos_emb

    head, frac, base = 32, 0.25, 10000.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        emb = GPTNeoXRotaryEmbedding(GPTNeoXConfig(hidden_size=2 * head, num_attention_heads=2, rotary_pct=frac,
                                                   rope_theta=base))
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 1, 1, 6, head))  # (batch, heads, T, head_dim)
    pos = torch.arange(6)[None]
    cos, sin = emb(torch.tensor(q), pos)
    hq, hk = apply_rotary_pos_emb(torch.tensor(q), torch.tensor(k), cos.double(), sin.double())
    hf_scores = (hq[0, 0] @ hk[0, 0].T).numpy()  # (T, T)
    d_r = int(head * frac)
    # half layout over the whole head pairs (i, i + head/2): rotated pairs first, then the passed channels
    order = np.concatenate([np.arange(d_r // 2), np.arange(d_r, d_r + (head - d_r) // 2),
                            np.arange(d_r // 2, d_r), np.arange(d_r + (head - d_r) // 2, head)])
    freqs = rope.pair_frequencies(head, base, "partial", frac)
    mine_q = rope.rotate(q[0, 0][:, order], np.arange(6.0), freqs, "half")
    mine_k = rope.rotate(k[0, 0][:, order], np.arange(6.0), freqs, "half")
    np.testing.assert_allclose(mine_q @ mine_k.T, hf_scores, atol=1e-5)


def test_decoupled_rope_score_is_content_plus_rotated_part():
    """DeepSeek MLA: q·k = q_nope·k_nope + (R_m q_rope)·(R_n k_rope), the rope part with its own exponent d_r."""
    nope, d_r, base = 16, 8, 10000.0
    freqs = rope.pair_frequencies(nope + d_r, base, "decoupled", d_r / (nope + d_r))
    assert (freqs[:nope // 2] == 0).all()
    np.testing.assert_allclose(freqs[nope // 2:], rope.inv_freq(d_r, base))
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, nope + d_r))
    out = rope.qk_pairs(q, k, [9.0], [3.0], base, freqs=freqs)["score"].sum()
    expected = q[:nope] @ k[:nope] + rope.score(q[nope:], k[nope:], 9, 3, base)
    assert out == pytest.approx(expected, abs=1e-12)


def test_turns_and_roles():
    theta = rope.inv_freq(64)
    turns = rope.turns_within(theta, 4096)
    assert turns[0] == pytest.approx(4096 / (2 * math.pi))
    roles = rope.pair_roles(rope.pair_frequencies(64, 10000.0, "p-rope", 0.75), 4096)
    assert (roles[24:] == "not rotated").all() and (roles[:24] == "turns").all()
    full = rope.pair_roles(theta, 4096)
    quarter = 4096 * theta < math.pi / 2
    assert ((full == "under a quarter turn") == quarter).all() and quarter.sum() == 4  # pairs 28-31 at d = 64
    assert (rope.pair_roles(theta, 100) == "under a quarter turn").sum() > quarter.sum()


@settings(max_examples=40, deadline=None)
@given(dim=st.integers(2, 512).map(lambda v: 2 * v), length=st.floats(7.0, 1e8))
def test_base_for_wavelength_inverts_the_slowest_wavelength(dim, length):
    if (length / (2 * math.pi)) ** (dim / (dim - 2)) > 1e12:  # beyond the largest base: said, not returned
        with pytest.raises(ValueError, match="length"):
            rope.base_for_wavelength(dim, length)
        return
    b = rope.base_for_wavelength(dim, length)
    assert rope.slowest_wavelengths(dim, [b])[0] == pytest.approx(length, rel=1e-9)
    assert rope.wavelengths(dim, b)[-1] == pytest.approx(length, rel=1e-9)


NEW_BAD_CALLS = [
    (lambda: rope.additive_score_terms(rope.MAX_ADDITIVE + 1), "n_positions"),
    (lambda: rope.additive_score_terms(8, 7), "d_model"),
    (lambda: rope.additive_score_terms(8, tokens="some"), "tokens"),
    (lambda: rope.additive_weights(8, weights="zero"), "weights"),
    (lambda: rope.off_offset_residual(np.ones((2, 3))), "z"),
    (lambda: rope.rotation_2d(float("nan")), "angle"),
    (lambda: rope.block_rotation(1.0, rope.MAX_BLOCK + 2), "dim"),
    (lambda: rope.derivation_checks(np.ones(300), np.ones(300), 1, 2), "q"),
    (lambda: rope.qk_pairs(np.ones(4), np.ones(4), [1.0, 2.0], [1.0]), "m and n"),
    (lambda: rope.qk_pairs(np.ones(4), np.ones(4), [1.0], [1.0], freqs=[1.0]), "freqs"),
    (lambda: rope.qk_pairs(np.ones(1024), np.ones(1024), np.arange(1024.0), np.arange(1024.0)), "cap"),
    (lambda: rope.absolute_offset_scores(3, 4), "anchor"),
    (lambda: rope.left_right_curves(max_offset=rope.MAX_OFFSET + 1), "max_offset"),
    (lambda: rope.pair_frequencies(64, scheme="half"), "scheme"),
    (lambda: rope.pair_frequencies(64, scheme="partial", fraction=0.4), "fraction"),
    (lambda: rope.pair_frequencies(64, fraction=1.5), "fraction"),
    (lambda: rope.turns_within([1.0], 0), "length"),
    (lambda: rope.slowest_wavelengths(8, [0.5]), "bases"),
    (lambda: rope.base_for_wavelength(2, 100.0), "dim"),
    (lambda: rope.base_for_wavelength(8, 3.0), "length"),
]


@pytest.mark.parametrize("call,name", NEW_BAD_CALLS)
def test_new_functions_name_the_bad_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("fname,kwargs", [
    ("additive_score_terms", dict(n_positions=rope.MAX_ADDITIVE, d_model=rope.MAX_D_MODEL)),
    ("absolute_offset_scores", dict(anchor=2 * rope.MAX_OFFSET, max_offset=rope.MAX_OFFSET,
                                    d_model=rope.MAX_D_MODEL)),
    ("left_right_curves", dict(dim=256, max_offset=1000, c=rope.MAX_OFFSET)),  # 2001 × 128 cells: under the cap
    ("qk_pairs", dict(q=np.ones(512), k=np.ones(512), m=np.arange(1024.0), n=np.arange(1024.0))),
    ("derivation_checks", dict(q=np.ones(rope.MAX_BLOCK), k=np.ones(rope.MAX_BLOCK), m=7, n=3)),
])
def test_new_functions_at_their_caps_stay_under_256_mb(fname, kwargs):
    import tracemalloc

    tracemalloc.start()
    try:
        getattr(rope, fname)(**kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, peak


def test_relative_scores_docstring_claims():
    """RoPE: a function of m - n for any q, k; asymmetric in Δ for generic q, k, symmetric for q = k. Absolute
    sinusoidal PE through a learned W: direction-aware as well, but not a function of m - n alone."""
    from posviz import sinusoidal

    q, k = rope.sample_qk(16, seed=3)
    d = np.array([5.0, -5.0])
    s = rope.relative_scores(q, k, d)
    assert abs(s[0] - s[1]) > 1e-3
    sym = rope.relative_scores(q, q, d)
    assert sym[0] == pytest.approx(sym[1], abs=1e-12)
    grid = rope.score_grid(q, k, np.arange(12.0))
    assert np.ptp(np.diagonal(grid, 3)) < 1e-12  # constant along a diagonal: m - n alone
    pe = sinusoidal.sinusoidal_table(12, 16)
    w = np.random.default_rng(0).standard_normal((16, 16))
    absolute = pe @ w @ pe.T  # (m, n) logits of PE(m) W PE(n)
    assert abs(absolute[7, 2] - absolute[2, 7]) > 1e-3  # direction-aware
    assert np.ptp(np.diagonal(absolute, 3)) > 1e-3  # but depends on m and n, not only m - n


# ---------------------------------------------------------------------------- pair roles, caps, Men et al.

def _slowest_pair_qk(dim: int, phi: float) -> tuple[np.ndarray, np.ndarray]:
    """q and k that are zero except in the slowest interleaved pair, where h = z^q conj(z^k) = e^{jφ}."""
    q, k = np.zeros(dim), np.zeros(dim)
    q[dim - 2] = 1.0
    k[dim - 2], k[dim - 1] = math.cos(phi), -math.sin(phi)
    return q, k


def test_negative_frequencies_count_their_turns():
    """A negative frequency turns as often as its positive one (mixed 2-D RoPE learns negative frequencies; the sign
    is only the direction of the turn): turns_within([-1], 4096) = 4096/2π ≈ +652, and the pair "turns"."""
    assert rope.turns_within([-1.0], 4096)[0] == pytest.approx(4096 / (2 * math.pi))
    assert rope.pair_roles([-1.0], 4096).tolist() == ["turns"]
    freqs = np.array([-1.0, 1.0, -1e-4, 1e-4, 0.0])
    assert rope.pair_roles(freqs, 4096).tolist() == ["turns", "turns", "under a quarter turn",
                                                     "under a quarter turn", "not rotated"]
    np.testing.assert_array_equal(rope.turns_within(freqs, 4096), rope.turns_within(np.abs(freqs), 4096))


@pytest.mark.parametrize("dim,base,length", [(64, 1e4, 4096), (128, 5e5, 8192), (16, 1e6, 256), (256, 1e7, 131072)])
def test_under_a_quarter_turn_keeps_cos_positive_at_every_distance(dim, base, length):
    """What pair_roles and the pairs part say: L·|θ_i| < π/2 gives cos(Δθ_i) > 0 for every |Δ| <= L."""
    theta = rope.inv_freq(dim, base)
    quarter = rope.pair_roles(theta, length) == "under a quarter turn"
    deltas = np.linspace(-length, length, 4001)
    assert quarter.any()
    assert (np.cos(np.outer(deltas, theta[quarter])) > 0).all()
    assert ((np.cos(np.outer(deltas, theta[~quarter])) <= 0).any(axis=0)).all()  # the others reach a quarter turn


def test_under_a_quarter_turn_share_can_still_change_sign():
    """The tempting claim ("its share of the score never changes sign") is false: a slowest pair (L·θ = 0.55 rad at
    d = 64, b = 1e4, L = 4096) whose q and k are nearly perpendicular scores +0.10 at Δ = 0 and −0.43 at Δ = L."""
    dim, L = 64, 4096
    assert rope.pair_roles(rope.inv_freq(dim), L)[-1] == "under a quarter turn"
    q, k = _slowest_pair_qk(dim, math.pi / 2 - 0.1)
    s = rope.relative_scores(q, k, [0.0, float(L)])
    assert s[0] == pytest.approx(math.sin(0.1)) and s[0] > 0
    assert s[1] == pytest.approx(math.cos(math.pi / 2 - 0.1 + L * rope.inv_freq(dim)[-1])) and s[1] < -0.4


def test_share_changes_sign_within_l_exactly_when_phi_is_near_a_right_angle():
    """The corrected statement: the share |h|cos(Δθ + φ) changes sign for some |Δ| <= L exactly when φ lies less
    than L·θ from ±π/2; at the defaults (d = 64, b = 1e4, L = 4096) a fair share of random (q, k) do so."""
    dim, L = 64, 4096
    lt = L * rope.inv_freq(dim)[-1]
    deltas = np.linspace(-L, L, 8193)
    changed = 0
    for phi in np.random.default_rng(7).uniform(-math.pi, math.pi, 400):
        gap = min(abs(abs(phi) - math.pi / 2), 10.0)
        if abs(gap - lt) < 1e-3:
            continue  # on the boundary the grid cannot tell
        s = rope.relative_scores(*_slowest_pair_qk(dim, float(phi)), deltas)
        crosses = bool((s > 0).any() and (s < 0).any())
        assert crosses == (gap < lt), (phi, gap, lt)
        changed += crosses
    assert 0.2 < changed / 400 < 0.5  # 2·(2·0.55)/(2π) ≈ 35 % of uniform φ


def test_mean_random_score_caps_samples_times_dim():
    """n_samples · dim <= 2^21: 4096 samples at dim 4096 would draw 2 × 128 MB of normals (+391 MB peak)."""
    import tracemalloc

    with pytest.raises(ValueError, match="n_samples"):
        rope.mean_random_score([0.0, 1.0], 4096, n_samples=4096)
    with pytest.raises(ValueError, match="n_samples"):
        rope.mean_random_score([0.0], 1024, n_samples=4096)
    tracemalloc.start()
    try:
        out = rope.mean_random_score(np.arange(2048.0), 1024, n_samples=2048)  # at the cap: 2^21 draws per vector
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, peak
    assert np.abs(out).max() < 5 * math.sqrt(1024 / 2048)


def _first_negative_naive(dim: int, base: float, length: int) -> int:
    theta = [base ** (-2 * i / dim) for i in range(dim // 2)]
    for m in range(length + 1):
        if sum(math.cos(m * t) for t in theta) < 0:
            return m
    return -1


@pytest.mark.parametrize("dim,base,length", [(64, 1e4, 4096), (2, 1e4, 50), (64, 803.0, 4096), (128, 5e5, 8192),
                                             (16, 1e6, 3000), (8, 10.0, 100)])
def test_first_negative_cos_sum_against_a_loop(dim, base, length):
    assert rope.first_negative_cos_sum(dim, base, length) == _first_negative_naive(dim, base, length)


def test_first_negative_cos_sum_chunks_and_caps():
    # d = 256: chunks of 8192 distances; b = 10 turns negative at m = 5, b = 1e7 never does up to 2^17
    assert rope.first_negative_cos_sum(256, 10.0, 131072) == 5
    assert rope.first_negative_cos_sum(256, 1e7, 131072) == -1
    c = rope.cos_sum(np.arange(0, 20001.0), 128, 1e4)
    assert rope.first_negative_cos_sum(128, 1e4, 20000) == int(np.flatnonzero(c < 0)[0])
    with pytest.raises(ValueError, match="length"):
        rope.first_negative_cos_sum(256, 1e4, 1 << 20)  # 2^20 distances × 128 pairs: above the cell cap
    with pytest.raises(ValueError, match="length"):
        rope.first_negative_cos_sum(8, 1e4, -1)


def test_additive_terms_take_a_whole_float_seed_as_its_int():
    """The seed's check accepts a whole float; the terms then use its int (default_rng refuses 0.0)."""
    from posviz import rope as rp

    whole, exact = rp.additive_score_terms(8, 16, seed=3.0), rp.additive_score_terms(8, 16, seed=3)
    assert np.array_equal(whole["full"], exact["full"])
