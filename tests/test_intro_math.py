"""posviz.intro against independent references (loops, Python's own binary formatting, closed forms)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import intro
from posviz.sinusoidal import frequencies, sinusoidal_table

ROOT = Path(__file__).resolve().parents[1]


# --- tokens and embeddings ---------------------------------------------------------------------------

def test_tokenize_lowercases_words_and_drops_punctuation_and_markup():
    assert intro.tokenize("The dog chased another dog") == ["the", "dog", "chased", "another", "dog"]
    assert intro.tokenize("<script>alert('x')</script> **Dog**!") == ["script", "alert", "x", "script", "dog"]
    assert intro.tokenize("Übermäßig 42 naïve") == ["übermäßig", "42", "naïve"]


def test_tokenize_caps_the_number_of_words_and_count_words_does_not():
    text = " ".join(f"w{i}" for i in range(100))
    assert intro.tokenize(text) == [f"w{i}" for i in range(intro.MAX_TOKENS)]
    assert intro.tokenize(text, max_tokens=3) == ["w0", "w1", "w2"]
    assert intro.count_words(text) == 100


@pytest.mark.parametrize("text", ["", "   ", "!!! ??? <>", "\n\t"])
def test_tokenize_without_words_names_text(text):
    with pytest.raises(ValueError, match="text"):
        intro.tokenize(text)


def test_token_embeddings_depend_only_on_word_and_seed():
    a = intro.token_embeddings(["the", "dog", "ran"], 8, seed=3)
    b = intro.token_embeddings(["dog", "sat", "the", "dog"], 8, seed=3)
    assert a.shape == (3, 8) and b.shape == (4, 8)
    np.testing.assert_array_equal(a[1], b[0])
    np.testing.assert_array_equal(a[1], b[3])
    np.testing.assert_array_equal(a[0], b[2])
    assert not np.allclose(a[0], a[1])
    c = intro.token_embeddings(["dog"], 8, seed=4)
    assert not np.allclose(a[1], c[0])
    # entries are N(0, EMBED_STD^2): the sample spread over many words is close to it
    many = intro.token_embeddings([f"w{i}" for i in range(400)], 16, seed=0)
    assert abs(many.std() - intro.EMBED_STD) < 0.03 and abs(many.mean()) < 0.03


# --- the attention layer -----------------------------------------------------------------------------

def _naive_attention(x: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Loop reference: scores q_i·k_j/√d, softmax per row with math.exp, weighted sum of the v_j."""
    t, d = x.shape
    w_q, w_k, w_v = intro.attention_weights_qkv(d, seed)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    out, weights = np.zeros((t, d)), np.zeros((t, t))
    for i in range(t):
        s = [sum(q[i, c] * k[j, c] for c in range(d)) / math.sqrt(d) for j in range(t)]
        m = max(s)
        e = [math.exp(v_ - m) for v_ in s]
        total = sum(e)
        for j in range(t):
            weights[i, j] = e[j] / total
            out[i] += weights[i, j] * v[j]
    return out, weights


@pytest.mark.parametrize(("t", "d", "seed"), [(1, 1, 0), (5, 16, 0), (7, 6, 9), (3, 64, 123)])
def test_self_attention_matches_a_loop_reference(t, d, seed):
    x = np.random.default_rng(t * 100 + d).normal(0, 1, (t, d))
    out, w = intro.self_attention(x, seed)
    ref_out, ref_w = _naive_attention(x, seed)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


def test_projection_weights_are_seeded_with_variance_one_over_d():
    a = intro.attention_weights_qkv(32, 5)
    b = intro.attention_weights_qkv(32, 5)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.allclose(a[0], intro.attention_weights_qkv(32, 6)[0])
    assert abs(np.stack(a).var() - 1 / 32) < 0.1 / 32


@settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(t=st.integers(1, 9), d=st.integers(1, 12), seed=st.integers(0, 50), data=st.data())
def test_attention_is_permutation_equivariant(t, d, seed, data):
    x = np.asarray(data.draw(st.lists(st.lists(st.floats(-50, 50), min_size=d, max_size=d),
                                      min_size=t, max_size=t)))
    perm = np.asarray(data.draw(st.permutations(range(t))))
    out, w = intro.self_attention(x, seed)
    out_p, w_p = intro.self_attention(x[perm], seed)
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(w_p, w[np.ix_(perm, perm)], rtol=1e-9, atol=1e-12)


def test_the_two_dogs_are_identical_without_positions_and_differ_with_them():
    plain = intro.attention_demo()
    assert plain.tokens == ("the", "dog", "chased", "another", "dog")
    i, j = intro.repeated_pair(plain.tokens)
    assert (i, j) == (1, 4)
    np.testing.assert_array_equal(plain.out[i], plain.out[j])  # bit-identical, not just close
    with_pe = intro.attention_demo(positions="sinusoidal")
    assert np.abs(with_pe.out[i] - with_pe.out[j]).max() > 1e-3
    # the input really is embedding + the sinusoidal table row of each slot
    emb = intro.token_embeddings(list(with_pe.tokens), 16, 0)
    np.testing.assert_allclose(with_pe.x, emb + sinusoidal_table(5, 16))


@pytest.mark.parametrize("shuffle", [1, 2, 7, 999])
def test_shuffled_outputs_permute_with_inputs_only_without_positions(shuffle):
    base = intro.attention_demo(shuffle=0)
    shuf = intro.attention_demo(shuffle=shuffle)
    assert sorted(shuf.order.tolist()) == list(range(5))
    assert shuf.tokens == tuple(base.tokens[k] for k in shuf.order)
    np.testing.assert_allclose(shuf.out, base.out[shuf.order], atol=1e-12)
    if not np.array_equal(shuf.order, np.arange(5)):
        base_pe = intro.attention_demo(positions="sinusoidal")
        shuf_pe = intro.attention_demo(positions="sinusoidal", shuffle=shuffle)
        assert np.abs(shuf_pe.out - base_pe.out[shuf_pe.order]).max() > 1e-3


def test_shuffle_order_is_a_seeded_permutation_and_zero_keeps_order():
    np.testing.assert_array_equal(intro.shuffle_order(6, 0), np.arange(6))
    for s in range(1, 20):
        p = intro.shuffle_order(6, s)
        assert sorted(p.tolist()) == list(range(6))
        np.testing.assert_array_equal(p, intro.shuffle_order(6, s))
    assert len({tuple(intro.shuffle_order(6, s)) for s in range(1, 20)}) > 5


def test_repeated_pair():
    assert intro.repeated_pair(["a", "b", "c"]) is None
    assert intro.repeated_pair(["a", "b", "b", "a"]) == (1, 2)
    assert intro.repeated_pair(["x", "y", "x"]) == (0, 2)


# --- position codes ----------------------------------------------------------------------------------

def test_integer_and_normalised_codes():
    np.testing.assert_array_equal(intro.integer_encoding(4, 3), [[0] * 3, [1] * 3, [2] * 3, [3] * 3])
    np.testing.assert_allclose(intro.normalised_positions(4), [0, 0.25, 0.5, 0.75])
    assert intro.normalised_positions(10)[5] == 0.5
    assert intro.normalised_positions(100)[5] == 0.05
    codes = intro.position_codes("normalised", 8, 3)
    np.testing.assert_allclose(codes, np.repeat((np.arange(8) / 8)[:, None], 3, axis=1))


@pytest.mark.parametrize("n_bits", [1, 3, 8, 12])
def test_binary_encoding_matches_python_format(n_bits):
    n = min(1 << n_bits, intro.MAX_POSITIONS)
    bits = intro.binary_encoding(n, n_bits)
    for p in range(n):
        text = format(p, "b").zfill(n_bits)  # MSB first
        assert "".join(str(int(b)) for b in bits[p][::-1]) == text


def test_binary_encoding_wraps_after_2_to_the_n():
    bits = intro.binary_encoding(40, 4)
    np.testing.assert_array_equal(bits[16:32], bits[:16])
    np.testing.assert_array_equal(bits[3], bits[19])


@pytest.mark.parametrize("j", range(7))
def test_bit_j_flips_exactly_every_2_to_the_j_tokens(j):
    bits = intro.binary_encoding(512, 8)
    flips = np.nonzero(np.diff(bits[:, j]))[0] + 1  # positions where bit j changed
    assert intro.flip_period(j) == 2**j
    np.testing.assert_array_equal(flips, np.arange(2**j, 512, 2**j))


def test_smooth_bits_have_the_bit_wavelength_and_round_to_the_bit():
    n, n_bits = 1024, 10
    smooth = intro.smooth_bits(n, n_bits)
    bits = intro.binary_encoding(n, n_bits)
    np.testing.assert_array_equal(smooth > 0.5, bits == 1)  # the same runs, smoothed
    for j in range(n_bits - 1):
        period = 2 ** (j + 1)
        np.testing.assert_allclose(smooth[period:, j], smooth[:-period, j], atol=1e-9)
        if period > 2:
            assert not np.allclose(smooth[period // 2:, j], smooth[:-(period // 2), j])
    assert smooth.min() >= 0 and smooth.max() <= 1


def test_smooth_bits_at_fractional_positions_against_the_formula():
    """``smooth_bits_at`` is the cosine of docs/FORMULAS.md's smooth bit at any real p, integers included."""
    p = np.array([0.0, 0.25, 0.5, 1.0, 2.75, 7.5, 100.125])
    got = intro.smooth_bits_at(p, 5)
    for row, pos in enumerate(p):
        for j in range(5):
            want = 0.5 - 0.5 * math.cos(math.pi * (pos - (2**j - 1) / 2) / 2**j)
            assert got[row, j] == pytest.approx(want, abs=1e-12)
    assert got[2, 0] == pytest.approx(0.5)  # bit 0 halfway between its 0 at p = 0 and its 1 at p = 1
    np.testing.assert_array_equal(intro.smooth_bits_at(np.arange(40.0), 6), intro.smooth_bits(40, 6))


def test_sinusoid_pair_against_math():
    pair = intro.sinusoid_pair(20, 16.0)
    for p in range(20):
        assert pair[p, 0] == pytest.approx(math.sin(2 * math.pi * p / 16))
        assert pair[p, 1] == pytest.approx(math.cos(2 * math.pi * p / 16))


def test_position_codes_dispatch():
    np.testing.assert_array_equal(intro.position_codes("sinusoidal", 10, 8), sinusoidal_table(10, 8))
    np.testing.assert_array_equal(intro.position_codes("binary", 10, 4), intro.binary_encoding(10, 4))
    np.testing.assert_array_equal(intro.position_codes("smooth", 10, 4), intro.smooth_bits(10, 4))
    np.testing.assert_array_equal(intro.position_codes("integer", 10, 4), intro.integer_encoding(10, 4))


# --- measurements ------------------------------------------------------------------------------------

def _trailing_ones(p: int) -> int:
    text = format(p, "b")
    return len(text) - len(text.rstrip("1"))


def test_binary_step_lengths_are_sqrt_of_flipped_bits():
    steps = intro.step_lengths(intro.binary_encoding(256, 8))
    expected = [math.sqrt(_trailing_ones(p) + 1) for p in range(255)]  # p -> p+1 flips the trailing 1s and a 0
    np.testing.assert_allclose(steps, expected)


@pytest.mark.parametrize(("d", "base"), [(2, 10000.0), (16, 10000.0), (64, 100.0)])
def test_sinusoidal_step_length_is_constant(d, base):
    steps = intro.step_lengths(sinusoidal_table(300, d, base))
    w = frequencies(d, base)
    np.testing.assert_allclose(steps, math.sqrt(float(np.sum(2 - 2 * np.cos(w)))), rtol=1e-9)


def test_linear_shift_residual_separates_the_schemes():
    for k in (1, 3, 10):
        assert intro.linear_shift_residual(sinusoidal_table(64, 16), k) < 1e-9
        assert intro.linear_shift_residual(intro.integer_encoding(64, 16), k) < 1e-9
        assert intro.linear_shift_residual(intro.position_codes("normalised", 64, 16), k) < 1e-9
        assert intro.linear_shift_residual(intro.binary_encoding(64, 6), k) > 0.2
    # a lone cosine per bit is smooth but not shiftable; give each wavelength its sine partner and it is
    assert intro.linear_shift_residual(intro.smooth_bits(64, 6)) > 0.1
    pairs = np.hstack([intro.sinusoid_pair(64, 2.0 ** (j + 1)) for j in range(1, 6)])
    assert intro.linear_shift_residual(pairs) < 1e-9


def test_norm_ratio():
    codes = intro.integer_encoding(5, 4)
    emb = np.full((5, 4), 0.5)
    np.testing.assert_allclose(intro.norm_ratio(codes, emb), [0, 2, 4, 6, 8])
    with pytest.raises(ValueError, match="embeddings"):
        intro.norm_ratio(codes, emb[:, :2])


def test_repeated_sentence_cycles_the_words():
    tokens, emb = intro.repeated_sentence("a b c", 7, 4, 0)
    assert tokens == ("a", "b", "c", "a", "b", "c", "a")
    np.testing.assert_array_equal(emb[0], emb[3])
    assert emb.shape == (7, 4)


def test_row_gap_and_equivariance_gap():
    out = np.array([[1.0, 2.0], [1.0, 2.5], [0.0, 0.0]])
    assert intro.row_gap(out, 0, 1) == 0.5 and intro.row_gap(out, 1, 1) == 0.0
    with pytest.raises(ValueError, match="j"):
        intro.row_gap(out, 0, 3)
    assert intro.equivariance_gap(shuffle=3) < 1e-12
    assert intro.equivariance_gap(shuffle=0, positions="sinusoidal") == 0.0
    assert intro.equivariance_gap(shuffle=3, positions="sinusoidal") > 1e-3


def test_bit_pairs_are_sin_cos_at_the_bit_wavelengths():
    pairs = intro.bit_pairs(32, 4)
    assert pairs.shape == (32, 8)
    for j in range(4):
        p = np.arange(32)
        np.testing.assert_allclose(pairs[:, 2 * j], np.sin(2 * np.pi * p / 2 ** (j + 1)), atol=1e-12)
        np.testing.assert_allclose(pairs[:, 2 * j + 1], np.cos(2 * np.pi * p / 2 ** (j + 1)), atol=1e-12)


def test_measured_flip_periods_and_distinct_codes():
    np.testing.assert_array_equal(intro.measured_flip_periods(intro.binary_encoding(64, 8)),
                                  [1, 2, 4, 8, 16, 32, 0, 0])
    irregular = np.array([[0.0], [1.0], [1.0], [0.0], [1.0]])  # changes at 1, 3, 4: gaps 1, 2, 1
    np.testing.assert_array_equal(intro.measured_flip_periods(irregular), [-1])
    assert intro.distinct_codes(intro.binary_encoding(64, 6)) == 64
    assert intro.distinct_codes(intro.binary_encoding(64, 4)) == 16
    assert intro.distinct_codes(sinusoidal_table(500, 2)) == 500  # pair 0 alone never repeats


@pytest.mark.parametrize(("d", "base"), [(2, 10000.0), (16, 10000.0), (8, 100.0)])
def test_offset_distances_match_table_differences(d, base):
    table = sinusoidal_table(400, d, base)
    dist = intro.offset_distances(300, d, base)
    for k in (1, 7, 150, 300):
        for p in (0, 13, 99):
            assert dist[k - 1] == pytest.approx(np.linalg.norm(table[p + k] - table[p]), abs=1e-9)
    slow = intro.offset_distances(300, d, base, "slowest")
    np.testing.assert_allclose(slow, np.linalg.norm(table[1:301, -2:] - table[0, -2:], axis=1), atol=1e-9)


def test_distance_profile_bins_cover_every_offset_and_keep_the_minimum():
    lo, hi, mins = intro.distance_profile(5000, 16, n_bins=50)
    assert lo[0] == 1 and hi[-1] == 5000
    np.testing.assert_array_equal(lo[1:], hi[:-1] + 1)  # contiguous, no gaps or overlaps
    dist = intro.offset_distances(5000, 16)
    for a, b, m in zip(lo, hi, mins):
        assert m == dist[a - 1:b].min()


def test_the_slowest_wavelength_is_not_a_repeat_of_the_whole_code():
    # the slowest pair alone comes back after ~ its wavelength (19,869 tokens for d = 16) ...
    k, d_slow, _ = intro.closest_repeat(intro.MAX_OFFSET, 16, pairs="slowest")
    wavelength = 2 * math.pi * 10000 ** (14 / 16)
    assert d_slow < 1e-3 and abs(k / wavelength - round(k / wavelength)) < 0.01
    # ... the whole code never comes closer than the next token, within 200,000 tokens
    k, d_all, d_step = intro.closest_repeat(intro.MAX_OFFSET, 16)
    assert d_all > d_step == pytest.approx(intro.offset_distances(1, 16)[0])
    # with only two pairs, near-repeats do happen (an honest limit of tiny d)
    k, d_tiny, d_step = intro.closest_repeat(intro.MAX_OFFSET, 4)
    assert d_tiny < 0.01 < d_step


# --- bad arguments -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "name"), [
    (lambda: intro.tokenize(3), "text"),
    (lambda: intro.tokenize("x" * (intro.MAX_TEXT_CHARS + 1)), "text"),
    (lambda: intro.tokenize("a b", max_tokens=0), "max_tokens"),
    (lambda: intro.token_embeddings("dog", 4), "tokens"),
    (lambda: intro.token_embeddings([], 4), "tokens"),
    (lambda: intro.token_embeddings(["a", 3], 4), "tokens"),
    (lambda: intro.token_embeddings(["a"], 1000), "d_model"),
    (lambda: intro.token_embeddings(["a"], 4, seed=-1), "seed"),
    (lambda: intro.self_attention(np.ones(3)), "x"),
    (lambda: intro.self_attention([[np.nan, 1.0]]), "x"),
    (lambda: intro.self_attention([[1e300, 1.0]]), "x"),
    (lambda: intro.self_attention([["a", "b"]]), "x"),
    (lambda: intro.shuffle_order(5, -1), "shuffle"),
    (lambda: intro.shuffle_order(0, 1), "n"),
    (lambda: intro.attention_demo(positions="rope"), "positions"),
    (lambda: intro.attention_demo(d_model=15, positions="sinusoidal"), "d_model"),
    (lambda: intro.attention_demo(base=float("nan"), positions="sinusoidal"), "base"),
    (lambda: intro.integer_encoding(0, 4), "n_positions"),
    (lambda: intro.normalised_positions(10**9), "length"),
    (lambda: intro.binary_encoding(10, 0), "n_bits"),
    (lambda: intro.binary_encoding(10, 64), "n_bits"),
    (lambda: intro.smooth_bits(10, 13), "n_bits"),
    (lambda: intro.smooth_bits_at([0.5, float("nan")], 4), "positions"),
    (lambda: intro.smooth_bits_at(np.zeros(10**6), 4), "positions"),
    (lambda: intro.sinusoid_pair(10, 0.0), "wavelength"),
    (lambda: intro.flip_period(-1), "bit"),
    (lambda: intro.position_codes("gray", 10), "scheme"),
    (lambda: intro.position_codes("binary", 10, 13), "d_model"),
    (lambda: intro.step_lengths(np.ones((1, 3))), "codes"),
    (lambda: intro.step_lengths([[1.0, float("inf")], [0.0, 0.0]]), "codes"),
    (lambda: intro.linear_shift_residual(np.ones((4, 2)), k=4), "k"),
])
def test_bad_arguments_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- hostile-input fuzz: a finite result or a ValueError naming the parameter ---------------

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.integers(-3, 70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["none", "sinusoidal", "integer", "binary", "smooth", "normalised", "<script>", "1e309"]),
    st.lists(st.text(max_size=5), max_size=4),
)


def _finite(value: object) -> bool:
    if isinstance(value, intro.AttentionDemo):
        return all(np.all(np.isfinite(a)) for a in (value.x, value.out, value.weights))
    if isinstance(value, tuple):
        return all(_finite(v) for v in value)
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    if isinstance(value, str):  # a label (e.g. a word of repeated_sentence): nothing to be finite
        return True
    return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))))


def _names_one(message: str, names: tuple[str, ...]) -> bool:
    """The message starts with (or otherwise names, as a whole word) one of the parameters."""
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b", message) for n in names)


FUZZED = {
    intro.tokenize: ("text", "max_tokens"),
    intro.count_words: ("text",),
    intro.token_embeddings: ("tokens", "d_model", "seed"),
    intro.attention_weights_qkv: ("d_model", "seed"),
    intro.shuffle_order: ("n", "shuffle"),
    intro.attention_demo: ("text", "d_model", "seed", "positions", "shuffle", "base"),
    intro.integer_encoding: ("n_positions", "d_model"),
    intro.normalised_positions: ("length",),
    intro.binary_encoding: ("n_positions", "n_bits"),
    intro.smooth_bits: ("n_positions", "n_bits"),
    intro.smooth_bits_at: ("positions", "n_bits"),
    intro.sinusoid_pair: ("n_positions", "wavelength"),
    intro.flip_period: ("bit",),
    intro.position_codes: ("scheme", "n_positions", "d_model", "base"),
    intro.repeated_sentence: ("text", "n_positions", "d_model", "seed"),
    intro.equivariance_gap: ("text", "d_model", "seed", "positions", "shuffle", "base"),
    intro.bit_pairs: ("n_positions", "n_bits"),
    intro.offset_distances: ("max_offset", "d_model", "base", "pairs"),
    intro.closest_repeat: ("max_offset", "d_model", "base", "pairs"),
}


@pytest.mark.parametrize("fn", list(FUZZED), ids=lambda f: f.__name__)
@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_public_functions(fn, data):
    names = FUZZED[fn]
    kwargs = {n: data.draw(HOSTILE, label=n) for n in names}
    try:
        result = fn(**kwargs)
    except ValueError as err:
        assert _names_one(str(err), names), str(err)
        return
    assert _finite(result)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(x=st.one_of(HOSTILE, st.lists(st.lists(st.floats(), min_size=1, max_size=4), min_size=1, max_size=4)),
       seed=HOSTILE, k=HOSTILE)
def test_fuzz_array_functions(x, seed, k):
    for fn, kwargs, names in ((intro.self_attention, dict(x=x, seed=seed), ("x", "seed")),
                              (intro.step_lengths, dict(codes=x), ("codes",)),
                              (intro.linear_shift_residual, dict(codes=x, k=k), ("codes", "k")),
                              (intro.measured_flip_periods, dict(codes=x), ("codes",)),
                              (intro.distinct_codes, dict(codes=x), ("codes",)),
                              (intro.row_gap, dict(values=x, i=seed, j=k), ("values", "i", "j"))):
        try:
            result = fn(**kwargs)
        except ValueError as err:
            assert _names_one(str(err), names), str(err)
            continue
        assert _finite(result)


# --- the causal layer, the carry rule and the size caps ------------------------------------------------

def _naive_causal_attention(x: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """softmax(QKᵀ/√d) over the keys j <= i only, one query at a time (the decoder's mask, Vaswani §3.2.3)."""
    t, d = x.shape
    w_q, w_k, w_v = intro.attention_weights_qkv(d, seed)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    out, weights = np.zeros((t, d)), np.zeros((t, t))
    for i in range(t):
        s = [sum(q[i, c] * k[j, c] for c in range(d)) / math.sqrt(d) for j in range(i + 1)]
        e = [math.exp(v_ - max(s)) for v_ in s]
        for j in range(i + 1):
            weights[i, j] = e[j] / sum(e)
            out[i] += weights[i, j] * v[j]
    return out, weights


@pytest.mark.parametrize(("t", "d", "seed"), [(1, 1, 0), (5, 16, 0), (7, 6, 9)])
def test_causal_self_attention_matches_a_masked_loop(t, d, seed):
    x = np.random.default_rng(t * 100 + d).normal(0, 1, (t, d))
    out, w = intro.self_attention(x, seed, causal=True)
    ref_out, ref_w = _naive_causal_attention(x, seed)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    assert (w[np.triu_indices(t, 1)] == 0).all()  # no weight on a key after its query


def test_the_causal_mask_alone_tells_the_two_dogs_apart():
    """Lesson 1's claim, made precise: without a mask and without positions the two copies of 'dog' come out
    identical; with the causal mask and still no positions they differ by 0.67, more than sinusoidal PE makes
    them differ in the unmasked layer (0.057)."""
    i, j = intro.repeated_pair(intro.attention_demo().tokens)
    plain = intro.row_gap(intro.attention_demo().out, i, j)
    with_pe = intro.row_gap(intro.attention_demo(positions="sinusoidal").out, i, j)
    causal = intro.row_gap(intro.attention_demo(causal=True).out, i, j)
    assert plain == 0.0
    assert with_pe == pytest.approx(0.0572, abs=1e-4)
    assert causal == pytest.approx(0.6661, abs=1e-4) and causal > with_pe
    # the first copy sees only "the dog": its output is the causal layer's output of that prefix
    prefix = intro.attention_demo("the dog", causal=True).out
    np.testing.assert_allclose(intro.attention_demo(causal=True).out[:2], prefix, atol=1e-12)


@pytest.mark.parametrize("bad", ["yes", 1, None, 0.5])
def test_causal_must_be_a_bool(bad):
    with pytest.raises(ValueError, match="causal"):
        intro.self_attention(np.ones((2, 2)), causal=bad)
    with pytest.raises(ValueError, match="causal"):
        intro.attention_demo(causal=bad)


def test_flipped_bits_follow_the_carry_rule():
    """p → p + 1 flips min(n, 1 + trailing zeros of p + 1) bits: 7 → 8 flips 4 of 6, not all 6; all n flip
    only where p + 1 is a multiple of 2^(n−1) (31 → 32 and the wrap 63 → 64 for n = 6)."""
    for n in (1, 2, 6, 12):
        flips = intro.flipped_bits(300, n)
        p1 = np.arange(1, 300)
        tz = np.array([(int(m) & -int(m)).bit_length() - 1 for m in p1])  # trailing zeros of p + 1
        np.testing.assert_array_equal(flips, np.minimum(n, 1 + tz))
        np.testing.assert_array_equal(np.flatnonzero(flips == n) + 1, p1[p1 % (1 << (n - 1)) == 0])
    six = intro.flipped_bits(70, 6)
    assert six[7] == 4 and six[31] == 6 and six[63] == 6 and six[6] == 1
    np.testing.assert_allclose(intro.step_lengths(intro.binary_encoding(70, 6)), np.sqrt(six))
    assert intro.flipped_bits(1, 4).shape == (0,)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: intro.linear_shift_residual(np.zeros((4096, 4096))), "codes"),
    (lambda: intro.linear_shift_residual(np.zeros((600, 129))), "codes"),
    (lambda: intro.distinct_codes(np.zeros((4096, 4096))), "codes"),
    (lambda: intro.self_attention(np.zeros((4096, 4096))), "x"),
    (lambda: intro.self_attention(np.zeros((2000, 8))), "x"),
    (lambda: intro.self_attention(np.zeros((8, 1000))), "x"),
    (lambda: intro.attention_weights_qkv(4096), "d_model"),
])
def test_oversized_requests_are_refused_naming_the_parameter_and_its_range(call, name):
    """Unrefused, these would take 168 s and +799 MB (the fit), +403 MB (np.unique), +1.57 GB (attention),
    +390 MB (the weights)."""
    with pytest.raises(ValueError, match=name) as err:
        call()
    assert re.search(r"at most|in \[", str(err.value)), str(err.value)


def test_the_lessons_largest_settings_fit_under_the_caps():
    """Lesson 1's sliders end at d = 64, P = 1024 positions, 12 bits and 24 words: every call it makes there runs."""
    d, n, bits = intro.MAX_DIM, intro.MAX_POSITIONS, intro.MAX_BITS
    assert d <= intro.MAX_ATTENTION_DIM and intro.MAX_TOKENS <= intro.MAX_ATTENTION_TOKENS
    sin = intro.position_codes("sinusoidal", n, d)
    assert intro.linear_shift_residual(sin) < 1e-9
    assert intro.linear_shift_residual(intro.bit_pairs(n, bits)) < 1e-9
    assert intro.distinct_codes(intro.binary_encoding(n, bits)) == n
    text = " ".join(f"w{k % 20}" for k in range(intro.MAX_TOKENS))
    for causal in (False, True):
        assert intro.attention_demo(text, d, causal=causal).out.shape == (intro.MAX_TOKENS, d)
