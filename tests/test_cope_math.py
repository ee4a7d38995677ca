"""CoPE math: golden examples of docs/FORMULAS.md §7.2, naive-loop references, a hand-computed module, fuzzing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posviz import cope
from posviz.cope import (
    CoPE,
    attention_weights,
    cope_positions,
    cope_run,
    gqa_shapes,
    interpolate,
    position_logits,
    tokenize,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def naive_positions(z: np.ndarray, npos_max: int | None, causal: bool) -> np.ndarray:
    """p_ij = Σ_{k >= j} σ(z_ik)·[k <= i or not causal], clamped, by explicit loops."""
    z = np.asarray(z, dtype=np.float64)
    out = np.zeros_like(z)
    T = z.shape[-1]
    for idx in np.ndindex(*z.shape[:-2]):
        for i in range(T):
            for j in range(T):
                total = 0.0
                for k in range(j, T):
                    if causal and k > i:
                        continue
                    total += 1.0 / (1.0 + math.exp(-z[idx + (i, k)]))
                if npos_max is not None:
                    total = min(total, npos_max - 1)
                out[idx + (i, j)] = total
    return out


# ---------------------------------------------------------------------------------------------------
# Golden examples (docs/FORMULAS.md §7.2)


def test_golden_all_logits_zero():
    p = cope_positions(np.zeros((4, 4)))
    expected = [[0.5, 0, 0, 0], [1.0, 0.5, 0, 0], [1.5, 1.0, 0.5, 0], [2.0, 1.5, 1.0, 0.5]]
    np.testing.assert_allclose(p.numpy(), expected, atol=1e-12)
    assert isinstance(p, torch.Tensor) and p.shape == (4, 4)


def test_golden_selective_gates():
    z = np.full((4, 4), -cope.SATURATE)
    z[:, [1, 3]] = cope.SATURATE  # gates ≈ 1 only on keys 1 and 3
    p = cope_positions(z).numpy()
    np.testing.assert_allclose(p, [[0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [2, 2, 1, 1]], atol=1e-12)


def test_saturated_gates_reduce_to_relative_positions():
    T = 7
    p = cope_positions(np.full((T, T), cope.SATURATE)).numpy()
    i, j = np.indices((T, T))
    np.testing.assert_array_equal(p, np.where(j <= i, i - j + 1, 0))


def test_without_causal_mask_positions_count_the_future():
    p = cope_positions(np.zeros((4, 4)), causal=False).numpy()
    np.testing.assert_allclose(p[0], [2.0, 1.5, 1.0, 0.5])
    assert p[0, 1:].min() > 0  # the leak: query 0 sees positions for keys 1..3


def test_clamp_to_npos_max_minus_one():
    p = cope_positions(np.full((6, 6), cope.SATURATE), npos_max=4).numpy()
    assert p.max() == 3.0
    assert p[5, 0] == 3.0 and p[2, 2] == 1.0
    # npos_max = T (a table of T embeddings) clamps p = T at (T-1, 0); T + 1 (official) keeps it
    T = 6
    full = np.full((T, T), cope.SATURATE)
    assert cope_positions(full, npos_max=T).numpy()[T - 1, 0] == T - 1
    assert cope_positions(full, npos_max=T + 1).numpy()[T - 1, 0] == T


def test_positions_bounded_by_i_minus_j_plus_1_not_i():
    T = 5
    p = cope_positions(np.full((T, T), cope.SATURATE)).numpy()
    assert all(p[i, 0] == i + 1 > i for i in range(T))  # the claimed bound "[0, i]" is wrong on every row


# ---------------------------------------------------------------------------------------------------
# Naive-loop reference (hypothesis)


@FAST
@given(
    z=hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=5).map(
        lambda s: s[:-1] + (s[-2],)), elements=st.floats(-30, 30)),
    npos_max=st.one_of(st.none(), st.integers(1, 8)),
    causal=st.booleans(),
)
def test_matches_naive_loops(z, npos_max, causal):
    ours = cope_positions(z, npos_max=npos_max, causal=causal).numpy()
    np.testing.assert_allclose(ours, naive_positions(z, npos_max, causal), atol=1e-9)
    assert ours.min() >= 0
    if causal:
        i, j = np.indices(z.shape[-2:])
        assert (ours <= np.where(j <= i, i - j + 1, 0) + 1e-9).all()


def test_accepts_torch_and_keeps_float32_and_gradients():
    z = torch.zeros(2, 3, 3, dtype=torch.float32, requires_grad=True)
    p = cope_positions(z, npos_max=10)
    assert p.dtype == torch.float32 and p.shape == (2, 3, 3)
    p.sum().backward()
    assert z.grad is not None and float(z.grad.abs().sum()) > 0
    ints = cope_positions(np.zeros((3, 3), dtype=np.int64))
    assert ints.dtype == torch.float64


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(gate_logits=np.zeros(4)), "gate_logits"),
    (dict(gate_logits=np.zeros((3, 4))), "gate_logits"),
    (dict(gate_logits=np.zeros((0, 0))), "gate_logits"),
    (dict(gate_logits=np.array([[0.0, np.nan], [0, 0]])), "gate_logits"),
    (dict(gate_logits=np.array([[0.0, np.inf], [0, 0]])), "gate_logits"),
    (dict(gate_logits=np.zeros((2, 2), dtype=complex)), "gate_logits"),
    (dict(gate_logits=[[1, 2], [3]]), "gate_logits"),
    (dict(gate_logits="abc"), "gate_logits"),
    (dict(gate_logits=None), "gate_logits"),
    (dict(gate_logits=np.zeros((2, 5000, 5000), dtype=np.float32)), "gate_logits"),
    (dict(gate_logits=np.zeros((2, 2)), npos_max=0), "npos_max"),
    (dict(gate_logits=np.zeros((2, 2)), npos_max=-1), "npos_max"),
    (dict(gate_logits=np.zeros((2, 2)), npos_max=1.5), "npos_max"),
    (dict(gate_logits=np.zeros((2, 2)), npos_max="3"), "npos_max"),
    (dict(gate_logits=np.zeros((2, 2)), npos_max=True), "npos_max"),
    (dict(gate_logits=np.zeros((2, 2)), causal="yes"), "causal"),
    (dict(gate_logits=np.zeros((2, 2)), causal=None), "causal"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        cope_positions(**kwargs)


HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.lists(st.integers(-3, 3), max_size=3), st.just(np.array([np.nan])),
)


@FAST
@given(gate_logits=st.one_of(HOSTILE, hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3,
                                                                               max_side=4))),
       npos_max=st.one_of(st.none(), HOSTILE), causal=st.one_of(st.booleans(), HOSTILE))
def test_fuzz_cope_positions(gate_logits, npos_max, causal):
    try:
        p = cope_positions(gate_logits, npos_max=npos_max, causal=causal)
    except ValueError as err:
        assert any(n in str(err) for n in ("gate_logits", "npos_max", "causal"))
    else:
        assert bool(torch.isfinite(p).all())


# ---------------------------------------------------------------------------------------------------
# Interpolation and position logits


def test_interpolation_at_integer_and_fractional_positions():
    z = torch.tensor([[[0.0, 10.0, 20.0, 40.0]] * 2])  # (1, 2, 4): z_i[p]
    p = torch.tensor([[[1.0, 0.0], [2.25, 1.5]]])  # (1, 2, 2)
    out = interpolate(z, p)
    np.testing.assert_allclose(out.numpy(), [[[10.0, 0.0], [0.25 * 40 + 0.75 * 20, 15.0]]])


def test_interpolation_rejects_positions_beyond_the_table():
    # a table of T entries is too small: p_ij reaches T
    T = 4
    p = cope_positions(np.full((T, T), cope.SATURATE))
    with pytest.raises(ValueError, match="positions"):
        interpolate(torch.zeros(T, T), p)  # P = T
    assert interpolate(torch.zeros(T, T + 1), p).shape == (T, T)  # P = T + 1 is enough


@FAST
@given(seed=st.integers(0, 1000), T=st.integers(1, 6), d=st.integers(1, 5), P=st.integers(1, 8))
def test_position_logits_match_naive_loops(seed, T, d, P):
    rng = np.random.default_rng(seed)
    q, e = rng.standard_normal((T, d)), rng.standard_normal((d, P))
    p = np.tril(rng.uniform(0, P - 1, (T, T)))
    ours = position_logits(q, e, p).numpy()
    for i in range(T):
        for j in range(T):
            lo, hi = math.floor(p[i, j]), math.ceil(p[i, j])
            w = p[i, j] - lo
            ref = w * float(q[i] @ e[:, hi]) + (1 - w) * float(q[i] @ e[:, lo])
            assert abs(ours[i, j] - ref) < 1e-9


def test_attention_weights_variants():
    s = torch.tensor([[0.0, 2.0], [4.0, 8.0]], dtype=torch.float64)
    pos = torch.tensor([[1.0, 0.0], [2.0, 6.0]], dtype=torch.float64)
    plain = attention_weights(s, 4)
    assert plain[0, 1] == 0 and torch.allclose(plain.sum(-1), torch.ones(2, dtype=plain.dtype))
    official = attention_weights(s, 4, pos)
    nodiv = attention_weights(s, 4, pos, nodiv=True)
    # row 1: official logits (4+2)/2, (8+6)/2 = 3, 7; nodiv 4/2+2, 8/2+6 = 4, 10
    assert abs(float(official[1, 1]) - 1 / (1 + math.exp(3 - 7))) < 1e-12
    assert abs(float(nodiv[1, 1]) - 1 / (1 + math.exp(4 - 10))) < 1e-12


# ---------------------------------------------------------------------------------------------------
# The CoPE module against a hand computation


@pytest.mark.parametrize("nodiv", [False, True])
def test_module_matches_hand_computation(nodiv):
    m = CoPE(head_dim=4, block_size=2, nodiv=nodiv)
    assert m.npos_max == 3 and m.pos_emb.shape == (4, 3) and float(m.pos_emb.detach().abs().sum()) == 0
    with torch.no_grad():
        m.pos_emb.zero_()
        m.pos_emb[0] = torch.tensor([0.0, 1.0, 10.0])  # e[p] = (0|1|10, 0, 0, 0)
    q = torch.tensor([[1.0, 0, 0, 0], [2.0, 0, 0, 0]])
    k = torch.tensor([[0.0, 0, 0, 0], [1.0, 0, 0, 0]])
    v = torch.tensor([[1.0, 0, 0, 0], [3.0, 0, 0, 0]])
    res = m(q, k, v)
    # scores q·k = [[0, 1], [0, 2]], √d = 2; gates σ(score/2) with the causal mask
    s1 = 1 / (1 + math.exp(-1.0))
    np.testing.assert_allclose(res["gates"].detach().numpy(), [[0.5, 0.0], [0.5, s1]], atol=1e-7)
    # positions: row 0 [0.5, 0], row 1 [0.5 + σ(1), σ(1)]
    np.testing.assert_allclose(res["positions"].detach().numpy(), [[0.5, 0], [0.5 + s1, s1]], atol=1e-7)
    # z_0[p] = 1·(0, 1, 10); z_1[p] = 2·(0, 1, 10) = (0, 2, 20)
    w10 = 0.5 + s1 - 1
    pos00 = 0.5 * 1 + 0.5 * 0
    pos10 = w10 * 20 + (1 - w10) * 2
    pos11 = s1 * 2 + (1 - s1) * 0
    np.testing.assert_allclose(res["pos_logits"].detach().numpy()[[0, 1, 1], [0, 0, 1]],
                               [pos00, pos10, pos11], atol=1e-6)
    if nodiv:
        l10, l11 = 0 / 2 + pos10, 2 / 2 + pos11
    else:
        l10, l11 = (0 + pos10) / 2, (2 + pos11) / 2
    a11 = 1 / (1 + math.exp(l10 - l11))
    attn = res["attn"].detach().numpy()
    np.testing.assert_allclose(attn, [[1.0, 0.0], [1 - a11, a11]], atol=1e-6)
    np.testing.assert_allclose(res["out"].detach().numpy()[1, 0], (1 - a11) * 1 + a11 * 3, atol=1e-6)


def test_module_gradients_reach_gates_and_table():
    torch.manual_seed(0)
    m = CoPE(head_dim=8, block_size=6)
    torch.nn.init.normal_(m.pos_emb)
    q = torch.randn(2, 6, 8, requires_grad=True)
    k = torch.randn(2, 6, 8, requires_grad=True)
    m(q, k, torch.randn(2, 6, 8))["out"].sum().backward()
    assert float(m.pos_emb.grad.abs().sum()) > 0 and float(k.grad.abs().sum()) > 0


def test_module_rejects_bad_shapes():
    m = CoPE(4, 8)
    with pytest.raises(ValueError, match="head_dim"):
        m(torch.zeros(3, 5), torch.zeros(3, 5), torch.zeros(3, 5))
    with pytest.raises(ValueError, match="npos_max"):
        CoPE(4, 8, npos_max=0)


# ---------------------------------------------------------------------------------------------------
# Tokenizer, gate rules, the lesson


def test_tokenizer_words_pieces_and_sentence_ends():
    t = tokenize("Contextual counting works. Yes!\n- ok")
    assert t.pieces == ("Conte", "xtual", "count", "ing", "works", ".", "Yes", "!", "\n", "-", "ok")
    assert t.labels[1] == "##xtual" and t.labels[8] == "↵"
    assert sum(t.word_start) == 5  # Contextual, counting, works, Yes, ok
    assert [p for p, e in zip(t.pieces, t.sentence_end) if e] == [".", "!", "\n"]
    assert not t.truncated


def test_tokenizer_caps_and_hostile_text():
    t = tokenize("a " * 500)
    assert t.T == cope.MAX_TOKENS and t.truncated
    assert tokenize("").T == 0 and tokenize("   \t ").T == 0
    t = tokenize("<b>x</b> 🙂 数数 **bold**")
    assert "<" in t.pieces and "b" in t.pieces and "🙂" in t.pieces and "数数" in t.pieces
    with pytest.raises(ValueError, match="text"):
        tokenize(None)  # type: ignore[arg-type]


@FAST
@given(st.text(max_size=80))
def test_tokenizer_keeps_every_visible_character(text):
    t = tokenize(text, max_tokens=1000)
    assert "".join(t.pieces) == "".join(c for c in text if c == "\n" or not c.isspace())
    assert all(len(p) <= cope.PIECE_LEN for p in t.pieces)


def test_gate_rules():
    t = tokenize("One two. Three")
    words = cope.gate_logits(t, "words", scale=cope.SATURATE)
    assert (words[0] > 0).tolist() == [True, True, False, True]
    sent = cope.gate_logits(t, "sentences", scale=cope.SATURATE)
    assert (sent[3] > 0).tolist() == [False, False, True, False]
    assert np.all(cope.gate_logits(t, "constant", scale=7, bias=-1.5) == -1.5)
    att = cope.gate_logits(t, "attention", scale=1, seed=3)
    assert att.shape == (4, 4) and np.allclose(att, cope.gate_logits(t, "attention", scale=1, seed=3))
    assert not np.allclose(att, cope.gate_logits(t, "attention", scale=1, seed=4))


def test_lesson_defaults_and_count_everything():
    L = cope_run()
    assert L.npos_max == L.T + 1 and L.T == tokenize(cope.DEFAULT_TEXT).T
    assert not L.clamped.any()
    np.testing.assert_allclose(L.attn_cope.sum(-1), 1.0)
    with pytest.raises(ValueError):
        L.positions[0, 0] = 5.0  # read-only
    rel = cope_run(rule="all", scale=cope.SATURATE)
    i, j = np.indices((rel.T, rel.T))
    np.testing.assert_array_equal(rel.positions, np.where(j <= i, i - j + 1, 0))
    plain, with_cope = cope.attention_near_target(L, L.T - 1)
    assert with_cope > plain + 0.2  # the query finds keys at CoPE position p*


def test_lesson_clamp_and_detail():
    L = cope_run(rule="all", scale=cope.SATURATE, npos_max=3)
    assert L.positions.max() == 2 and L.clamped.sum() > 0
    d = cope.interpolation_detail(L, L.T - 1, 0)
    assert d["p"] == 2 and d["w"] == 0 and d["logit"] == pytest.approx(L.z_int[L.T - 1, 2])
    h = cope.interpolation_detail(cope_run(rule="constant", scale=0), 2, 0)  # p = 3 · 0.5 = 1.5
    assert h["p"] == pytest.approx(1.5) and h["floor"] == 1 and h["ceil"] == 2 and h["w"] == pytest.approx(0.5)
    assert h["logit"] == pytest.approx(0.5 * h["z_floor"] + 0.5 * h["z_ceil"])


def test_lesson_rejects_empty_text():
    with pytest.raises(ValueError, match="text"):
        cope_run(text=" \n ".replace("\n", " "))


LESSON_PARAMS = ("text", "rule", "scale", "bias", "causal", "npos_max", "seed", "d_head", "emb", "target",
                 "strength", "nodiv")


@FAST
@given(name=st.sampled_from(LESSON_PARAMS), value=HOSTILE)
def test_fuzz_lesson(name, value):
    try:
        L = cope_run(**{name: value})
    except ValueError as err:
        assert name in str(err)
    else:
        for a in (L.gates, L.positions, L.pos_logits, L.attn_plain, L.attn_cope, L.z_int):
            assert np.isfinite(a).all()


@FAST
@given(text=st.text(max_size=300), rule=st.sampled_from(list(cope.RULES)), npos_max=st.integers(0, 65),
       causal=st.booleans(), scale=st.floats(-40, 40), query=st.integers(-1, 100))
def test_fuzz_lesson_valid_inputs(text, rule, npos_max, causal, scale, query):
    try:
        L = cope_run(text=text, rule=rule, npos_max=npos_max, causal=causal, scale=scale)
    except ValueError as err:
        assert "text" in str(err) and tokenize(text).T == 0
        return
    i = cope.pick_index(query, L.T)
    assert 0 <= i < L.T and L.T <= cope.MAX_TOKENS
    assert np.isfinite(L.pos_logits).all() and L.positions.max() <= L.npos_max - 1


def test_worst_case_lesson_is_capped():
    """The largest text is cut to MAX_TOKENS (its speed is measured in benchmarks/, not asserted here)."""
    text = "word " * 200
    L = cope_run(text=text, rule="attention", d_head=cope.MAX_D_HEAD, emb="sinusoidal", seed=7)
    assert L.T == cope.MAX_TOKENS


def test_gqa_shapes_fixed_and_swapped():
    fixed = gqa_shapes(64, 8, 2, "fixed")
    assert fixed[-1] == ("scores = q·kᵀ", "(1, 8, 4, 4)")
    assert not any("Error" in r for _, r in fixed)
    broken = gqa_shapes(64, 8, 2, "swapped")
    assert broken[-1][1].startswith("RuntimeError") and "invalid for input of size 64" in broken[-1][1]
    mha = gqa_shapes(64, 8, 8, "swapped")  # the swap is invisible without grouping
    assert mha[-1][1] == "(1, 8, 4, 4)"
    with pytest.raises(ValueError, match="num_kv_heads"):
        gqa_shapes(64, 8, 3)


# ---------------------------------------------------------------------------------------------------
# Fuzz every other public function: a finite result or a ValueError naming the parameter


def _finite(out) -> bool:
    if isinstance(out, torch.Tensor):
        return bool(torch.isfinite(out).all())
    if isinstance(out, np.ndarray):
        return bool(np.isfinite(out).all())
    if isinstance(out, dict):
        return all(_finite(v) for v in out.values())
    if isinstance(out, (tuple, list)):
        return all(_finite(v) if not isinstance(v, str) else True for v in out)
    if isinstance(out, float):
        return math.isfinite(out)
    return True


_TOK = tokenize("One two. Three")
_LESSON = cope_run(text="One two. Three")
_Z = np.zeros((3, 4))
_P = np.tril(np.ones((3, 3)))
GOOD = {
    tokenize: dict(text="a b", max_tokens=64, piece_len=5),
    cope.gate_logits: dict(tokens=_TOK, rule="words", scale=10.0, bias=0.0, seed=0, d_head=16),
    cope.seeded_qk: dict(tokens=_TOK, seed=0, d_head=16),
    cope.embedding_table: dict(npos_max=5, d_head=8, kind="random", seed=0),
    interpolate: dict(z_int=_Z, positions=_P),
    position_logits: dict(query=np.ones((3, 2)), pos_emb=np.ones((2, 4)), positions=_P),
    attention_weights: dict(scores=np.zeros((3, 3)), head_dim=4, pos_logits=None, causal=True, nodiv=False),
    cope.cope_gates: dict(gate_logits=np.zeros((3, 3)), causal=True),
    cope.positions_from_gates: dict(gates=np.full((3, 3), 0.5), npos_max=None),
    gqa_shapes: dict(d_model=64, num_heads=8, num_kv_heads=2, layout="fixed", seq_len=4),
    cope.pick_index: dict(index=-1, n=5),
    cope.interpolation_detail: dict(lesson=_LESSON, i=2, j=0),
    cope.attention_near_target: dict(lesson=_LESSON, i=2),
    CoPE: dict(head_dim=4, block_size=8, npos_max=None, nodiv=False),
}
CALLS = [(fn, name) for fn, kw in GOOD.items() for name in kw]
HUGE = st.one_of(HOSTILE, hnp.arrays(np.float64, st.sampled_from([(3, 3), (3, 4), (2, 4), (3,), (0, 0)]),
                                     elements=st.floats(allow_nan=True, allow_infinity=True)))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=st.sampled_from(CALLS), value=HUGE)
def test_fuzz_every_public_function(call, value):
    fn, name = call
    kwargs = dict(GOOD[fn], **{name: value})
    try:
        out = fn(**kwargs)
    except ValueError as err:
        assert name in str(err) or any(k in str(err) for k in kwargs), (fn.__name__, name, str(err))
    else:
        assert _finite(out), (fn.__name__, name)


@pytest.mark.parametrize("value", [None, "x", np.zeros((3, 3, 3))])
def test_fuzz_module_forward(value):
    m = CoPE(4, 8)
    good = torch.zeros(3, 4)
    for args in ((value, good, good), (good, value, good), (good, good, value)):
        with pytest.raises(ValueError, match="query, key and value"):
            m(*args)


def test_concurrent_lessons_restore_torch_threads():
    from concurrent.futures import ThreadPoolExecutor

    before = torch.get_num_threads()
    texts = [f"sentence number {k}. and more {k}!" for k in range(12)]
    with ThreadPoolExecutor(4) as pool:
        lessons = list(pool.map(lambda t: cope_run(text=t, rule="attention", seed=3), texts))
    assert all(np.isfinite(L.attn_cope).all() for L in lessons)
    assert torch.get_num_threads() == before


@pytest.mark.parametrize(("npos_max", "target"), [(0, 2), (0, 40), (3, 2), (3, 5), (1, 0), (2, 7), (12, 12)])
def test_the_table_settings_keep_the_sought_position_where_the_run_itself_clamps_it(npos_max, target):
    tokens = cope.tokenize(cope.DEFAULT_TEXT).T
    settings = cope.table_settings(npos_max, target=target, n_tokens=tokens)
    run = cope.cope_run(npos_max=npos_max, target=target)
    assert settings["npos_max"] == npos_max
    assert settings["target"] == max(run.target, min(target, 1))  # the slider keeps p* = 1 for a one-slot table


@pytest.mark.parametrize(("query", "key", "causal", "expected"), [
    (5, 9, True, {"query": 5, "key": 5}),      # a causal query sees keys up to itself
    (5, 3, True, {"query": 5, "key": 3}),
    (0, 4, True, {"query": 0, "key": 1}),      # query 0: the key slider still offers 0 and 1
    (5, 30, False, {"query": 5, "key": 19}),   # no mask: every token of the 20
    (-1, 30, True, {"query": -1, "key": 19}),  # −1: the last token
])
def test_the_query_settings_keep_the_key_where_the_page_s_key_slider_keeps_it(query, key, causal, expected):
    assert cope.query_settings(query, key=key, causal=causal, n_tokens=20) == expected
    as_index = cope.query_settings(query, key=key, causal=causal, n_tokens=20, as_index=True)
    assert as_index == {"query": cope.pick_index(query, 20), "key": cope.pick_index(expected["key"], 20)}
