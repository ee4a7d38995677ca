"""posviz.scaling against transformers 5.23 (ROPE_INIT_FUNCTIONS and the per-model defaults), the golden
values of docs/FORMULAS.md §5, independent closed forms, and hostile input."""

from __future__ import annotations

import itertools
import json
import logging
import math
import time
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import scaling as sc
from posviz.scaling import effects

RTOL = 1e-5

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
logging.getLogger("transformers").setLevel(logging.ERROR)


def _hf(config_kwargs: dict, seq_len=None, model: str = "llama"):
    """(inv_freq float64, attention_factor) from transformers for a config given as kwargs."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "neox":
            from transformers import GPTNeoXConfig
            from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding as Rot
            cfg = GPTNeoXConfig(**config_kwargs)
        else:
            from transformers import LlamaConfig
            from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding as Rot
            cfg = LlamaConfig(**config_kwargs)
        rope_type = cfg.rope_parameters["rope_type"]
        if rope_type == "default":
            inv, a = Rot.compute_default_rope_parameters(cfg)
        else:
            inv, a = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)
    return inv.double().numpy(), float(a)


def _base(d: int, **extra) -> dict:
    return dict(hidden_size=8 * d, num_attention_heads=8, head_dim=d, num_hidden_layers=1, **extra)


def _close(ours, theirs):
    (a, A), (b, B) = ours, theirs
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)
    assert pytest.approx(B, rel=RTOL) == A


# ---------------------------------------------------------------- transformers conformance grid

DIMS = (32, 64, 128)
BASES = (10000.0, 500000.0)


@pytest.mark.parametrize("d,b", list(itertools.product(DIMS, BASES)))
def test_default_matches_llama(d, b):
    cfg = _base(d, max_position_embeddings=4096, rope_parameters={"rope_type": "default", "rope_theta": b})
    _close(sc.inv_freq_from_config(json.loads(json.dumps(cfg))), _hf(cfg))


@pytest.mark.parametrize("prf", [0.25, 0.5, 1.0])
def test_default_partial_rotary_matches_gpt_neox(prf):
    cfg = dict(hidden_size=512, num_attention_heads=4, num_hidden_layers=1, max_position_embeddings=2048,
               rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": prf})
    ours = sc.inv_freq_from_config(cfg)
    assert ours[0].shape == (int(128 * prf) // 2,)
    _close(ours, _hf(cfg, model="neox"))


@pytest.mark.parametrize("d,b,s,prf", list(itertools.product(DIMS, BASES, (1.0, 2.0, 8.0, 32.0), (0.5, 1.0))))
def test_linear_matches(d, b, s, prf):
    cfg = _base(d, max_position_embeddings=4096,
                rope_parameters={"rope_type": "linear", "rope_theta": b, "factor": s, "partial_rotary_factor": prf})
    _close(sc.inv_freq_from_config(cfg), _hf(cfg))


@pytest.mark.parametrize("d,s,L,seq", list(itertools.product(DIMS, (1.0, 2.0, 4.0, 16.0), (2048, 8192),
                                                             (None, 100, 4096, 65536))))
def test_dynamic_matches(d, s, L, seq):
    cfg = _base(d, max_position_embeddings=L, rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0,
                                                                "factor": s})
    _close(sc.inv_freq_from_config(cfg, seq), _hf(cfg, seq))


YARN_GRID = list(itertools.product(
    (32, 64, 128),                      # d
    (10000.0, 1e6),                     # base
    (2.0, 16.0, 40.0),                  # factor
    (256, 2048, 131072),                # original L (256: low == high; 131072: high clamped at d - 1)
    ((32, 1), (0, 0), (4, 2), (64, 0.5)),  # (beta_fast, beta_slow); 0 -> transformers' `or` default
    (True, False),                      # truncate
))


@pytest.mark.parametrize("d,b,s,L,betas,trunc", YARN_GRID)
def test_yarn_matches(d, b, s, L, betas, trunc):
    bf, bs = betas
    cfg = _base(d, max_position_embeddings=int(s * L),
                rope_parameters={"rope_type": "yarn", "rope_theta": b, "factor": s,
                                 "original_max_position_embeddings": L, "beta_fast": bf, "beta_slow": bs,
                                 "truncate": trunc})
    _close(sc.inv_freq_from_config(cfg), _hf(cfg))


@pytest.mark.parametrize("extra", [
    {"mscale": 0.707, "mscale_all_dim": 0.707},
    {"mscale": 1.0, "mscale_all_dim": 1.0},
    {"mscale": 1.0, "mscale_all_dim": 0.707},
    {"mscale": 0.707},                        # only one given: ignored
    {"attention_factor": 0.8},                # given: used as is
    {"attention_factor": 1.5, "mscale": 1.0, "mscale_all_dim": 0.5},
    {"partial_rotary_factor": 0.5},
])
def test_yarn_attention_factor_variants_match(extra):
    cfg = _base(64, max_position_embeddings=163840,
                rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0,
                                 "original_max_position_embeddings": 4096, **extra})
    _close(sc.inv_freq_from_config(cfg), _hf(cfg))


def test_yarn_factor_inferred_from_lengths():
    cfg = _base(64, max_position_embeddings=65536,
                rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": None,
                                 "original_max_position_embeddings": 4096})
    ours = sc.inv_freq_from_config(cfg)
    _close(ours, _hf(cfg))
    assert ours[1] == pytest.approx(0.1 * math.log(16) + 1)


@pytest.mark.parametrize("d,s,L,lo,hi", list(itertools.product((64, 128), (8.0, 32.0), (8192, 2048),
                                                              (1.0, 2.0), (4.0, 8.0))))
def test_llama3_matches(d, s, L, lo, hi):
    cfg = _base(d, max_position_embeddings=int(s * L),
                rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": s,
                                 "original_max_position_embeddings": L, "low_freq_factor": lo,
                                 "high_freq_factor": hi})
    _close(sc.inv_freq_from_config(cfg), _hf(cfg))


@pytest.mark.parametrize("seq,factor", list(itertools.product((None, 100, 4096, 4097, 100000), (None, 8.0))))
def test_longrope_matches(seq, factor):
    rng = np.random.default_rng(3)
    short = [float(x) for x in 1 + rng.random(32)]
    long = [float(x) for x in np.sort(1 + 30 * rng.random(32))]
    params = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": short, "long_factor": long,
              "original_max_position_embeddings": 4096}
    if factor is not None:
        params["factor"] = factor
    cfg = _base(64, max_position_embeddings=131072, rope_parameters=params)
    _close(sc.inv_freq_from_config(cfg, seq), _hf(cfg, seq))


@pytest.mark.parametrize("spelling", ["type", "rope_type"])
@pytest.mark.parametrize("scaling", [
    {"factor": 4.0, "_t": "linear"},
    {"factor": 2.0, "_t": "dynamic"},
    {"factor": 16.0, "original_max_position_embeddings": 2048, "beta_fast": 16, "_t": "yarn"},
    {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
     "_t": "llama3"},
])
def test_transformers4_spelling_matches(spelling, scaling):
    """Top-level rope_theta + rope_scaling with "type" or "rope_type" (transformers 4 files)."""
    block = {k: v for k, v in scaling.items() if k != "_t"}
    block[spelling] = scaling["_t"]
    cfg = _base(64, max_position_embeddings=65536, rope_theta=50000.0, rope_scaling=block)
    ours = sc.inv_freq_from_config(json.loads(json.dumps(cfg)))
    theirs = _hf(dict(cfg, rope_scaling=dict(block)))
    _close(ours, theirs)
    # and the transformers-5 spelling of the same config gives the same numbers
    v5 = _base(64, max_position_embeddings=65536,
               rope_parameters={**{k: v for k, v in block.items() if k != spelling},
                                "rope_type": scaling["_t"], "rope_theta": 50000.0})
    np.testing.assert_array_equal(sc.inv_freq_from_config(v5)[0], ours[0])


def test_top_level_original_length_wins_like_transformers():
    cfg = _base(64, max_position_embeddings=65536, original_max_position_embeddings=2048,
                rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0,
                                 "original_max_position_embeddings": 8192})
    _close(sc.inv_freq_from_config(cfg), _hf(cfg))


# ---------------------------------------------------------------- static NTK, golden values, closed forms


@pytest.mark.parametrize("d,alpha,L", list(itertools.product((32, 64, 128), (1.0, 2.0, 8.0, 16.0), (2048, 4096))))
def test_ntk_equals_dynamic_at_alpha_times_length(d, alpha, L):
    """docs/FORMULAS.md §5.2 recipe: static NTK == transformers' dynamic with factor 1 at seq_len = alpha·L."""
    ours = sc.inv_freq_from_config({"head_dim": d, "max_position_embeddings": L,
                                    "rope_parameters": {"rope_type": "ntk", "rope_theta": 1e4, "factor": alpha}})
    cfg = _base(d, max_position_embeddings=L, rope_parameters={"rope_type": "dynamic", "rope_theta": 1e4,
                                                                "factor": 1.0})
    _close(ours, _hf(cfg, int(alpha * L)))


def test_ntk_golden_bases():
    assert sc.ntk_base(64, 1e4, 8) == pytest.approx(85550.4, rel=1e-6)
    assert sc.ntk_base(128, 1e4, 8) == pytest.approx(82684.6, rel=1e-6)
    theta, _ = sc.ntk_inv_freq(64, 1e4, 8)
    assert theta[0] == 1.0 and theta[-1] == pytest.approx(sc.inv_freq(64, 1e4)[-1] / 8, rel=1e-12)


def test_golden_linear_and_dynamic():
    inv, A = sc.linear_inv_freq(64, 1e4, 4)
    assert (inv[0], inv[16], A) == (0.25, pytest.approx(2.5e-3), 1.0)
    assert inv[31] == pytest.approx(3.333804e-5, rel=1e-6)
    inv, _ = sc.dynamic_inv_freq(64, 1e4, 4, 2048, 4096)
    assert sc.dynamic_alpha(4, 2048, 4096) == 5
    assert inv[31] == pytest.approx(2.667043e-5, rel=1e-6)
    inv, _ = sc.default_inv_freq(64)
    assert inv[1] == pytest.approx(0.749894, rel=1e-6) and inv[31] == pytest.approx(1.333522e-4, rel=1e-6)


def test_golden_yarn():
    assert sc.yarn_correction_range(64, 1e4, 2048) == (8.0, 21.0)
    low, high = sc.yarn_correction_range(64, 1e4, 2048, truncate=False)
    assert (low, high) == (pytest.approx(8.064, abs=1e-3), pytest.approx(20.105, abs=1e-3))
    inv, A = sc.yarn_inv_freq(64, 1e4, 16, 2048)
    assert inv[16] == pytest.approx(4.230769e-3, rel=1e-6) and pytest.approx(1.277259, rel=1e-6) == A
    inv, A = sc.yarn_inv_freq(64, 1e4, 16, 2048, truncate=False)
    assert inv[16] == pytest.approx(3.821215e-3, rel=1e-6)
    inv, A = sc.yarn_inv_freq(64, 1e4, 40, 4096, mscale=0.707, mscale_all_dim=0.707)
    assert A == 1.0 and inv[16] == pytest.approx(5.5e-3, rel=0.01)
    # raw correction dims for other shapes
    assert sc.yarn_correction_dim(32, 96, 1e4, 2048) == pytest.approx(12.096, abs=1e-3)
    assert sc.yarn_correction_dim(1, 96, 1e4, 2048) == pytest.approx(30.158, abs=1e-3)
    assert sc.yarn_correction_dim(32, 128, 1e4, 4096) == pytest.approx(20.945, abs=1e-3)
    assert sc.yarn_correction_dim(1, 128, 1e4, 4096) == pytest.approx(45.027, abs=1e-3)
    # the §5.4 table: code weight vs paper gamma
    w_code = sc.yarn_extrapolation_weight(64, 1e4, 2048)
    w_paper = sc.yarn_extrapolation_weight(64, 1e4, 2048, ramp="paper")
    table = {8: (1.000, 1.000), 10: (0.846, 0.559), 12: (0.692, 0.300), 14: (0.538, 0.155),
             16: (0.385, 0.073), 18: (0.231, 0.027), 20: (0.077, 0.001), 21: (0.0, 0.0)}
    for i, (code, paper) in table.items():
        assert w_code[i] == pytest.approx(code, abs=1e-3)
        assert w_paper[i] == pytest.approx(paper, abs=1e-3)
    # surprise 2: high clamped to d - 1, so the last pair keeps weight on extrapolation
    w = sc.yarn_extrapolation_weight(64, 1e4, 131072)
    assert w[31] == pytest.approx(0.31, abs=0.02)


def test_golden_deepseek_and_longrope():
    assert sc.deepseek_softmax_multiplier(40, 0.707) == pytest.approx(1.589626, rel=1e-6)
    assert sc.deepseek_softmax_multiplier(40, 1.0) == pytest.approx(1.873854, rel=1e-6)
    assert sc.longrope_attention_factor(32, 4096) == pytest.approx(1.190238, rel=1e-6)
    assert sc.get_mscale(0.5) == 1.0 and sc.get_mscale(1.0) == 1.0


def test_golden_llama3():
    theta = sc.inv_freq(128, 5e5)
    new, A = sc.llama3_inv_freq(128, 5e5, 8, 8192, 1, 4)
    ratio = theta / new
    assert A == 1.0
    assert np.sum(np.isclose(ratio, 1.0)) == 29 and np.sum(np.isclose(ratio, 8.0)) == 29
    np.testing.assert_allclose(ratio[29:35], [1.2075, 1.5534, 2.0263, 2.6945, 3.6843, 5.2573], atol=1e-4)
    assert new[63] == pytest.approx(3.068926e-7, rel=1e-6)


def test_llama3_is_paper_yarn_without_temperature():
    """Insight of docs/FORMULAS.md §5.5: Llama 3 == YaRN's paper ramp with alpha = low, beta = high, and A = 1."""
    for d, b, L, lo, hi in [(128, 5e5, 8192, 1, 4), (64, 1e4, 2048, 2, 8)]:
        l3, A3 = sc.llama3_inv_freq(d, b, 8, L, lo, hi)
        ya, Ay = sc.yarn_inv_freq(d, b, 8, L, beta_fast=hi, beta_slow=lo, ramp="paper")
        np.testing.assert_allclose(l3, ya, rtol=1e-12)
        assert A3 == 1.0 and Ay > 1.2


def test_method_registry_and_shapes():
    for m in sc.METHODS:
        inv, A = sc.scaled_inv_freq(m, 64, 1e4, 8, 4096)
        theta = sc.inv_freq(64, 1e4)
        assert inv.shape == (32,) and np.all(np.isfinite(inv)) and A >= 1
        ratio = theta / inv
        # every method keeps ratios within [1, s·alpha-ish]: never faster than the original
        assert np.all(ratio >= 1 - 1e-12)
    assert np.allclose(sc.scaled_inv_freq("linear", 64, 1e4, 8, 4096)[0], sc.inv_freq(64, 1e4) / 8)
    assert sc.parse_methods("linear, yarn,linear") == ("linear", "yarn")
    with pytest.raises(ValueError, match="methods"):
        sc.parse_methods("linear,bogus")


def test_unseen_angles_flags_only_slow_pairs_that_grow():
    theta = sc.inv_freq(64, 1e4)
    seen, target, flag = sc.unseen_angles(64, 1e4, 8, 4096, theta)     # no scaling: every slow pair flagged
    assert np.array_equal(flag, seen < 2 * np.pi) and flag.sum() > 0
    _, _, flag_pi = sc.unseen_angles(64, 1e4, 8, 4096, theta / 8)      # PI: L'·θ/s == L·θ, nothing unseen
    assert not flag_pi.any()
    np.testing.assert_allclose(target, 8 * seen)


def test_scores_and_entropy():
    theta = sc.inv_freq(64, 1e4)
    s = sc.rope_scores(theta, np.arange(5))
    assert s[0] == pytest.approx(1.0)
    np.testing.assert_allclose(s, [np.cos(k * theta).mean() for k in range(5)])
    r = sc.rope_scores(theta, np.arange(3), qk="random", seed=1)
    assert 0 < r[0] <= 1 and np.all(np.abs(r) <= 1) and np.all(np.isfinite(r))
    lengths = np.array([16, 256, 4096])
    h1 = sc.attention_entropy(theta, lengths, 1.0)
    h2 = sc.attention_entropy(theta, lengths, 1.6)
    assert np.all(h1 <= np.log(lengths) + 1e-9) and np.all(h2 < h1)
    # exact for n <= n_keys: direct softmax entropy
    n = 16
    rng = np.random.default_rng(0)
    q = rng.standard_normal((32, 2))
    k = 0.5 * q + math.sqrt(0.75) * rng.standard_normal((32, 2))
    h = (q[:, 0] + 1j * q[:, 1]) * np.conj(k[:, 0] + 1j * k[:, 1])
    z = np.array([np.real(h * np.exp(1j * j * theta)).sum() for j in range(n)]) / 8.0
    p = np.exp(z - z.max())
    p /= p.sum()
    assert h1[0] == pytest.approx(-(p * np.log(p)).sum(), rel=1e-9)


def test_extreme_sizes_stay_per_pair():
    """At d = 256 and s = 131072 every method still returns d/2 finite numbers (speed: benchmarks/compute.py)."""
    for m in sc.METHODS:
        theta, factor = sc.scaled_inv_freq(m, 256, 1e7, 8, 131072)
        assert theta.shape == (128,) and np.isfinite(theta).all() and np.isfinite(factor)
    theta, _ = sc.scaled_inv_freq("yarn", 256, 1e4, 8, 131072)
    assert np.isfinite(sc.unseen_angles(256, 1e4, 8, 131072, theta)).all()


# ---------------------------------------------------------------- invalid configs and hostile input


@pytest.mark.parametrize("cfg,key", [
    ([1, 2], "config"),
    ({"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4}}, "original_max_position_embeddings"),
    ({"head_dim": 64, "rope_scaling": {"type": "linear"}}, "rope_scaling.factor"),
    ({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": "4"}}, "rope_scaling.factor"),
    ({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 0.5}}, "rope_scaling.factor"),
    ({"head_dim": 64, "rope_scaling": {"type": "warp", "factor": 2}}, "rope_type"),
    ({"head_dim": 64, "rope_scaling": {"type": 3}}, "rope_type"),
    ({"head_dim": 64, "rope_scaling": "yarn"}, "rope_scaling"),
    ({"head_dim": 63}, "rotary dimension"),
    ({"head_dim": 64, "partial_rotary_factor": 0.3}, "rotary dimension"),
    ({"head_dim": 64, "partial_rotary_factor": 2}, "partial_rotary_factor"),
    ({"rope_theta": 1e4}, "head_dim"),
    ({"head_dim": 64, "rope_theta": -5}, "rope_theta"),
    ({"head_dim": 64, "rope_theta": True}, "rope_theta"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 1024,
                                          "truncate": "no"}}, "truncate"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 1024,
                                          "beta_fast": -1}}, "rope_parameters.beta_fast"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "llama3", "factor": 8, "original_max_position_embeddings": 8192,
                                          "low_freq_factor": 4, "high_freq_factor": 2}}, "high_freq_factor"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "llama3", "factor": 8,
                                          "original_max_position_embeddings": 8192}}, "low_freq_factor"),
    ({"head_dim": 64, "max_position_embeddings": 8192,
      "rope_parameters": {"rope_type": "longrope", "short_factor": [1.0] * 31, "long_factor": [1.0] * 32,
                          "original_max_position_embeddings": 4096}}, "short_factor"),
    ({"head_dim": 64, "max_position_embeddings": 8192,
      "rope_parameters": {"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [1.0] * 31 + ["x"],
                          "original_max_position_embeddings": 4096}}, "long_factor[31]"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "dynamic", "factor": 2}}, "max_position_embeddings"),
    ({"head_dim": 64, "rope_parameters": {"full_attention": None, "sliding_attention": None}}, "no RoPE"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "yarn", "original_max_position_embeddings": 1024}},
     "rope_parameters.factor is required"),
    ({"head_dim": 64, "rope_scaling": {"rope_type": "yarn", "factor": 148.41315910257657, "mscale": 1,
                                       "mscale_all_dim": -2, "original_max_position_embeddings": 1024}},
     "mscale_all_dim"),
    ({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 16]}}, "mrope_section"),
    ({"text_config": [1]}, "text_config"),
    ({"num_hidden_layers": 4, "head_dim": 64, "no_rope_layers": [1, 0, "x", 1]}, "no_rope_layers"),
    ({"head_dim": 64, "max_position_embeddings": 10**12}, "max_position_embeddings"),
])
def test_invalid_configs_name_the_key(cfg, key):
    with pytest.raises(ValueError, match=key.replace("[", r"\[").replace("]", r"\]")):
        sc.describe_config(cfg)


def test_beta_fast_zero_is_read_as_32_with_a_note():
    base = {"head_dim": 64, "max_position_embeddings": 32768,
            "rope_scaling": {"type": "yarn", "factor": 8, "original_max_position_embeddings": 4096}}
    zero = json.loads(json.dumps(base))
    zero["rope_scaling"]["beta_fast"] = 0
    np.testing.assert_array_equal(sc.inv_freq_from_config(zero)[0], sc.inv_freq_from_config(base)[0])
    assert any("beta_fast = 0" in n for n in sc.read_rope_config(zero).notes)


@pytest.mark.parametrize("text,words", [
    ("", "empty"),
    ("{", "not valid JSON"),
    ('{"a": 1,}', "line 1"),
    ("[1, 2]", "JSON object"),
    ('"hello"', "JSON object"),
    ('{"rope_theta": NaN}', "NaN"),
    ('{"rope_theta": Infinity}', "Infinity"),
    ('{"rope_theta": 1e999}', "too large"),
    ('{"x": ' + "1" * 5000 + "}", "number"),
    ("[" * 100000, "nested"),
    ('{"a": ' + '{"b": ' * 30 + "1" + "}" * 31, "nested"),
    ("x" * 1_000_000, "limit"),
])
def test_parse_config_text_rejects_precisely_and_fast(text, words):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=words):
        sc.parse_config_text(text)
    assert time.perf_counter() - t0 < 1.0


def test_parse_config_text_brackets_inside_strings_are_not_nesting():
    cfg = sc.parse_config_text('{"_name_or_path": "' + "[{" * 40 + '\\"x", "head_dim": 64}')
    assert cfg["head_dim"] == 64


_finite = st.floats(allow_nan=True, allow_infinity=True, width=64)
_anything = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**12), _finite, st.text(max_size=5),
                      st.lists(st.floats(0.5, 70), max_size=3))


def _ok_or_named_value_error(fn, names):
    try:
        out = fn()
    except ValueError as e:
        assert any(n in str(e) for n in names), str(e)
        return
    arrays = out if isinstance(out, tuple) else (out,)
    for a in arrays:
        assert np.all(np.isfinite(np.asarray(a, dtype=float)))


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(list(sc.METHODS) + ["nope"]), dim=_anything, base=_anything, factor=_anything,
       L=_anything, bf=_anything, bs=_anything, lo=_anything, hi=_anything, ms=_anything, trunc=st.booleans())
def test_fuzz_scaled_inv_freq(method, dim, base, factor, L, bf, bs, lo, hi, ms, trunc):
    names = ("method", "dim", "base", "factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
             "low_freq_factor", "high_freq_factor", "mscale", "scale", "max_position_embeddings", "seq_len")
    _ok_or_named_value_error(lambda: sc.scaled_inv_freq(
        method, dim, base, factor, L, beta_fast=bf, beta_slow=bs, low_freq_factor=lo, high_freq_factor=hi,
        mscale=ms, mscale_all_dim=ms, truncate=trunc), names)


@settings(max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "su", 7]),
       spelling=st.sampled_from(["rope_parameters", "rope_scaling"]),
       values=st.dictionaries(st.sampled_from(["factor", "rope_theta", "original_max_position_embeddings",
                                               "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
                                               "attention_factor", "truncate", "low_freq_factor",
                                               "high_freq_factor", "short_factor", "long_factor",
                                               "partial_rotary_factor"]), _anything, max_size=8),
       top=st.dictionaries(st.sampled_from(["head_dim", "hidden_size", "num_attention_heads",
                                            "max_position_embeddings", "rope_theta", "qk_rope_head_dim"]),
                           _anything, max_size=4),
       seq=st.one_of(st.none(), st.integers(-5, 10**10)))
def test_fuzz_inv_freq_from_config(kind, spelling, values, top, seq):
    cfg = {"head_dim": 64, "max_position_embeddings": 8192, **top, spelling: {"type": kind, **values}}
    try:
        inv, A = sc.inv_freq_from_config(cfg, seq)
    except ValueError as e:
        assert str(e)
        return
    assert np.all(np.isfinite(inv)) and np.all(inv > 0) and math.isfinite(A)


@settings(max_examples=150, deadline=2000)
@given(text=st.one_of(st.text(max_size=200), st.from_regex(r"\{[\"a-z0-9:,\[\]{} .eE+-]{0,80}\}", fullmatch=True)))
def test_fuzz_parse_config_text(text):
    try:
        cfg = sc.parse_config_text(text)
    except ValueError:
        return
    assert isinstance(cfg, dict)


@settings(max_examples=150, deadline=2000)
@given(dim=_anything, base=_anything, L=_anything, bf=_anything, bs=_anything,
       ramp=st.sampled_from(["code", "paper", "x"]), scale=_anything, m=_anything)
def test_fuzz_helpers(dim, base, L, bf, bs, ramp, scale, m):
    names = ("dim", "base", "original_max_position_embeddings", "beta_fast", "beta_slow", "ramp", "scale",
             "mscale", "factor", "max_position_embeddings", "seq_len")
    _ok_or_named_value_error(lambda: sc.yarn_extrapolation_weight(dim, base, L, bf, bs, True, ramp), names)
    _ok_or_named_value_error(lambda: sc.get_mscale(scale, m), names)
    _ok_or_named_value_error(lambda: sc.dynamic_base(dim, base, scale, L, None), names)
    _ok_or_named_value_error(lambda: sc.rotations(dim, base, L), names)


_arrays = st.one_of(
    st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**12)), max_size=40),
    st.just([]), st.just([[1.0, 2.0]]), st.just("abc"), st.none())


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(theta=_arrays, points=_arrays, qk=st.sampled_from(["ones", "random", "x"]),
       mult=_anything, seed=_anything)
def test_fuzz_array_functions(theta, points, qk, mult, seed):
    names = ("theta", "distances", "lengths", "qk", "seed", "logit_multiplier", "theta_scaled", "factor", "dim")
    _ok_or_named_value_error(lambda: sc.rope_scores(theta, points, qk, seed), names)
    _ok_or_named_value_error(lambda: sc.attention_entropy(theta, points, mult, n_keys=64, seed=0), names)
    _ok_or_named_value_error(lambda: sc.unseen_angles(4, 1e4, 2.0, 1024, theta), names)


@settings(max_examples=200, deadline=2000)
@given(d=st.sampled_from([16, 64, 128, 256]), b=st.sampled_from([10.0, 1e4, 5e5, 1e7]),
       s=st.floats(1.0, 128.0), L=st.sampled_from([256, 4096, 131072]), bf=st.floats(1.5, 128.0),
       bs=st.floats(1.0, 1.4), trunc=st.booleans())
def test_yarn_with_beta_slow_at_least_one_never_reaches_unseen_angles(d, b, s, L, bf, bs, trunc):
    """The page's claim: every pair with wavelength > L is fully interpolated when beta_slow >= 1."""
    theta, _ = sc.yarn_inv_freq(d, b, s, L, bf, bs, truncate=trunc)
    assert not sc.unseen_angles(d, b, s, L, theta)[2].any()


def test_what_the_unseen_caption_says():
    def flagged(method, **kw):
        theta, _ = sc.scaled_inv_freq(method, 128, 1e4, 8, 4096, **kw)
        return int(sc.unseen_angles(128, 1e4, 8, 4096, theta)[2].sum())

    assert flagged("default") == 18 and flagged("linear") == 0 and flagged("ntk") > 0
    assert flagged("yarn") == 0 and flagged("yarn", beta_slow=0.25) > 0 and flagged("llama3") == 0


def test_config_temperature():
    ds = {"qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000,
          "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                           "original_max_position_embeddings": 4096}}
    t = sc.config_temperature(ds)
    assert t["cos/sin × A"] == 1.0 and t["softmax scale × (DeepSeek)"] == pytest.approx(1.589626, rel=1e-6)
    assert t["logits × in total"] == pytest.approx(1.589626, rel=1e-6)
    plain = sc.config_temperature({"head_dim": 64})
    assert plain == {"cos/sin × A": 1.0, "logits × A²": 1.0}


# ---------------------------------------------------------------- real configs as published

ROTARY = {  # text model_type -> (module, rotary class) of transformers 5.23
    "llama4_text": ("llama4", "Llama4TextRotaryEmbedding"), "gemma3_text": ("gemma3", "Gemma3RotaryEmbedding"),
    "qwen2_vl_text": ("qwen2_vl", "Qwen2VLRotaryEmbedding"),
    "qwen2_5_vl_text": ("qwen2_5_vl", "Qwen2_5_VLRotaryEmbedding"),
    "qwen3": ("qwen3", "Qwen3RotaryEmbedding"), "smollm3": ("smollm3", "SmolLM3RotaryEmbedding"),
    "deepseek_v3": ("deepseek_v3", "DeepseekV3RotaryEmbedding"), "llama": ("llama", "LlamaRotaryEmbedding"),
    "qwen3_vl_text": ("qwen3_vl", "Qwen3VLTextRotaryEmbedding"),
}
_YARN_DS = {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096, "type": "yarn"}
REAL = {
    "Llama 4 Scout (rope_scaling, text_config)": {
        "model_type": "llama4", "text_config": {
            "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
            "num_hidden_layers": 48, "max_position_embeddings": 10485760, "rope_theta": 500000.0,
            "no_rope_layers": [], "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                                                   "original_max_position_embeddings": 8192, "rope_type": "llama3"}}},
    "Gemma 3 (rope_scaling + rope_local_base_freq)": {
        "model_type": "gemma3", "text_config": {
            "model_type": "gemma3_text", "hidden_size": 2560, "num_hidden_layers": 34, "sliding_window": 1024,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}},
    "Gemma 3 (transformers 5 per-layer rope_parameters)": {
        "model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32, "head_dim": 128,
        "num_hidden_layers": 12, "max_position_embeddings": 131072,
        "layer_types": ["sliding_attention"] * 5 + ["full_attention"] + ["sliding_attention"] * 5 + ["full_attention"],
        "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
    "Qwen2-VL 7B (mrope)": {
        "model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_hidden_layers": 28,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    "Qwen2.5-VL 7B (mrope, default)": {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_hidden_layers": 28,
        "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}},
    "Qwen2.5-VL 3B (text_config, rope_parameters)": {
        "model_type": "qwen2_5_vl", "text_config": {
            "model_type": "qwen2_5_vl_text", "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 36,
            "max_position_embeddings": 128000, "rope_parameters": {
                "type": "mrope", "mrope_section": [16, 24, 24], "rope_theta": 1000000.0, "rope_type": "default"}}},
    "Qwen3 8B": {
        "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "num_hidden_layers": 36,
        "max_position_embeddings": 40960, "rope_theta": 1000000.0, "rope_scaling": None},
    "SmolLM3 (no_rope_layers)": {
        "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 8,
        "max_position_embeddings": 65536, "rope_theta": 5000000.0, "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]},
    "DeepSeek-V3 (decoupled RoPE)": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128, "num_hidden_layers": 61, "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": _YARN_DS},
    "Llama 3.2 1B (transformers 5 rope_parameters)": {
        "model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64, "num_hidden_layers": 16,
        "max_position_embeddings": 131072, "rope_parameters": {
            "rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "high_freq_factor": 4.0,
            "low_freq_factor": 1.0, "original_max_position_embeddings": 8192}},
}


def _hf_model(config: dict):
    """transformers' text config and rotary module built from a config dict exactly as pasted."""
    import copy
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = transformers.AutoConfig.for_model(**copy.deepcopy(config))
        text = cfg.get_text_config()
        module, cls = ROTARY[text.model_type]
        rot = getattr(importlib.import_module(f"transformers.models.{module}.modeling_{module}"), cls)(text)
    return text, rot


@pytest.mark.parametrize("name", list(REAL))
def test_real_config_matches_transformers_rotary_module(name):
    config = REAL[name]
    text, rot = _hf_model(config)
    report = sc.describe_config(json.loads(json.dumps(config)))
    assert report.target_length == text.max_position_embeddings  # the model's own length
    for block in report.blocks:
        prefix = "" if block.layer_type == "all" else f"{block.layer_type}_"
        theirs = getattr(rot, f"{prefix}inv_freq").double().numpy()
        att = getattr(rot, f"{prefix}attention_scaling", getattr(rot, "attention_scaling", 1.0))
        np.testing.assert_allclose(block.inv_freq, theirs, rtol=RTOL)
        assert block.attention_factor == pytest.approx(float(att), rel=1e-6)
    types = getattr(text, "layer_types", None)
    flags = getattr(text, "no_rope_layers", None)
    nope = [i for i, f in enumerate(flags or []) if f == 0]
    assert list(report.nope_layers) == nope
    if types is not None and len(report.blocks) > 1:
        for block in report.blocks:
            assert list(block.layers) == [i for i, t in enumerate(types) if t == block.layer_type]


def test_gemma3_reads_both_layer_types():
    report = sc.describe_config(REAL["Gemma 3 (rope_scaling + rope_local_base_freq)"])
    blocks = {b.layer_type: b for b in report.blocks}
    assert blocks["full_attention"].rope.rope_type == "linear" and blocks["full_attention"].rope.base == 1e6
    assert blocks["sliding_attention"].rope.rope_type == "default" and blocks["sliding_attention"].rope.base == 1e4
    assert blocks["full_attention"].rope.head_dim == 256  # Gemma3TextConfig's default: the file has no head_dim
    assert len(blocks["full_attention"].layers) == 5 and len(blocks["sliding_attention"].layers) == 29


def test_llama4_equal_band_factors_accepted_not_swapped():
    """Llama 4's equal band factors are a valid config: refusing them ("high_freq_factor must be greater") would
    make the page fall back to Llama 3.1's preset."""
    rc = sc.read_rope_config(REAL["Llama 4 Scout (rope_scaling, text_config)"])
    assert (rc.params["low_freq_factor"], rc.params["high_freq_factor"], rc.params["factor"]) == (1.0, 1.0, 16.0)
    inv, _ = sc.inv_freq_from_rope_config(rc)
    theta = sc.inv_freq(128, 500000.0)
    kept = 2 * np.pi / theta <= 8192
    np.testing.assert_allclose(inv[kept], theta[kept])
    np.testing.assert_allclose(inv[~kept], theta[~kept] / 16)


@pytest.mark.parametrize("section,interleaved", [((16, 24, 24), False), ((24, 20, 20), True), ((8, 12, 12), False)])
def test_mrope_axis_matches_transformers(section, interleaved):
    """Give temporal, height and width position ids 1, 2, 3 and read which one each pair's angle used."""
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    d = 2 * sum(section)
    kind = "qwen3_vl_text" if interleaved else "qwen2_vl_text"
    rope = {"rope_type": "default", "mrope_section": list(section), "rope_theta": 100.0}
    if interleaved:
        rope["mrope_interleaved"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = transformers.AutoConfig.for_model(kind, hidden_size=4 * d, num_attention_heads=4, head_dim=d,
                                                rope_parameters=rope)
        rot = (Qwen3VLTextRotaryEmbedding if interleaved else Qwen2VLRotaryEmbedding)(cfg)
    ids = torch.tensor([1.0, 2.0, 3.0]).view(3, 1, 1)
    cos, _ = rot(torch.zeros(1, dtype=torch.float64), ids)  # (1, 1, d)
    angles = rot.inv_freq.double().numpy()[None, :] * np.array([[1.0], [2.0], [3.0]])  # (3, d/2)
    theirs = np.argmin(np.abs(np.cos(angles) - cos[0, 0, : d // 2].double().numpy()[None, :]), axis=0)
    report = sc.describe_config({"model_type": kind, "head_dim": d, "hidden_size": 4 * d, "num_attention_heads": 4,
                                 "rope_parameters": rope})
    np.testing.assert_array_equal(report.mrope_axis, theirs)
    assert report.mrope_section == section


def test_mrope_ranges_say_how_sections_split_the_pairs():
    report = sc.describe_config(REAL["Qwen2-VL 7B (mrope)"])
    assert [(axis, idx.tolist()) for axis, idx in report.mrope_pairs()] == [
        ("temporal", list(range(16))), ("height", list(range(16, 40))), ("width", list(range(40, 64)))]


def test_model_defaults_equal_transformers_class_defaults():
    for model_type, defaults in sc.MODEL_DEFAULTS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = transformers.AutoConfig.for_model(model_type)
        for key, value in defaults.items():
            if key == "rope_theta":
                theta = type(cfg).default_theta
                assert value == (theta["global"] if isinstance(theta, dict) else theta), model_type
            elif key == "rope_local_base_freq":
                assert value == type(cfg).default_theta["local"]
            elif key == "sliding_window_pattern":
                assert value == cfg._sliding_window_pattern
            else:
                assert getattr(cfg, key) == value, (model_type, key)


def test_text_config_is_read_and_never_another_model():
    cfg = {"model_type": "llama4", "hidden_size": 999, "text_config": REAL["Llama 4 Scout (rope_scaling, text_config)"]
           ["text_config"]}
    rc = sc.read_rope_config(cfg)
    assert (rc.rope_type, rc.base, rc.dim) == ("llama3", 500000.0, 128)


def test_target_length_is_the_models_own_length():
    """The model's own max_position_embeddings (131,072 for Llama 3.2 1B), not max(max_position_embeddings,
    factor·L) = 262,144."""
    rc = sc.read_rope_config(REAL["Llama 3.2 1B (transformers 5 rope_parameters)"])
    assert sc.config_target_length(rc) == 131072
    assert sc.config_target_source(rc) == "max_position_embeddings"
    qwen = sc.read_rope_config({"head_dim": 128, "max_position_embeddings": 32768, "rope_scaling": {
        "type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})
    assert sc.config_target_length(qwen) == 131072  # a card-added block: mpe is still the original length
    with pytest.raises(ValueError, match="rc"):
        sc.config_target_length(5)


def test_yarn_missing_factor_raises_like_transformers_null_is_inferred():
    base = {"model_type": "llama", "head_dim": 64, "hidden_size": 512, "num_attention_heads": 8,
            "max_position_embeddings": 16384}
    missing = dict(base, rope_parameters={"rope_type": "yarn", "original_max_position_embeddings": 4096})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(KeyError):
            transformers.AutoConfig.for_model(**json.loads(json.dumps(missing)))
    with pytest.raises(ValueError, match="factor is required"):
        sc.read_rope_config(missing)
    null = dict(base, rope_parameters={"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 4096})
    text, rot = _hf_model(json.loads(json.dumps(null)))
    ours, A = sc.inv_freq_from_config(null)
    np.testing.assert_allclose(ours, rot.inv_freq.double().numpy(), rtol=RTOL)
    assert sc.read_rope_config(null).params["factor"] == 4.0


def test_yarn_attention_factor_crash_is_a_value_error():
    """factor e^5, mscale 1, mscale_all_dim -2 make the denominator 0: a ValueError naming mscale_all_dim, not a
    ZeroDivisionError."""
    with pytest.raises(ValueError, match="mscale_all_dim"):
        sc.yarn_attention_factor(148.41315910257657, 1.0, -2.0)
    cfg = {"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 148.41315910257657, "mscale": 1,
                                            "mscale_all_dim": -2, "original_max_position_embeddings": 4096}}
    with pytest.raises(ValueError, match="mscale_all_dim"):
        sc.inv_freq_from_config(cfg)
    with pytest.raises(ValueError, match="factor"):
        sc.deepseek_softmax_multiplier(factor=0, mscale_all_dim=1.0)  # named as the caller names it


@pytest.mark.parametrize("args,name", [((0.0, 8, 1e4, 4096), "num_rotations"), ((1.0, 8, 1.0, 4096), "base"),
                                       ((-1.0, 8, 1e4, 4096), "num_rotations"), ((math.nan, 8, 1e4, 4096),
                                                                                 "num_rotations"),
                                       ((1.0, 8, 1e4, -5), "original_max_position_embeddings")])
def test_yarn_correction_dim_bad_inputs(args, name):
    """Inputs that would divide by zero, leave a math function's domain or give NaN: a ValueError naming them."""
    with pytest.raises(ValueError, match=name):
        sc.yarn_correction_dim(*args)


def test_yarn_ramp_truncate_both_ways():
    trunc = sc.yarn_correction_range(64, 150000.0, 4096, 32.0, 1.0, truncate=True)
    free = sc.yarn_correction_range(64, 150000.0, 4096, 32.0, 1.0, truncate=False)
    assert trunc == (math.floor(free[0]), math.ceil(free[1])) and free[0] % 1 and free[1] % 1
    oss = sc.describe_config({"head_dim": 64, "max_position_embeddings": 131072, "rope_theta": 150000, "rope_scaling": {
        "beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
        "rope_type": "yarn", "truncate": False}})
    assert any("truncate false" in n for n in oss.notes)


def _transformers_dynamic(lengths, L, d=64, base=10000.0, factor=4.0):
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = transformers.LlamaConfig(hidden_size=8 * d, num_attention_heads=8, head_dim=d, max_position_embeddings=L,
                                       rope_parameters={"rope_type": "dynamic", "factor": factor, "rope_theta": base})
        rot = LlamaRotaryEmbedding(cfg)
    out = []
    for n in lengths:
        rot(torch.zeros(1), torch.arange(n).view(1, -1))
        out.append(rot.inv_freq.double().numpy().copy())
    return np.array(out)


def test_dynamic_ntk_schedule_matches_transformers_cache():
    """transformers keeps the longest length seen until a call drops below L; the naive view follows l."""
    L, lengths = 512, [100, 700, 2000, 900, 600, 300, 800, 512, 513]
    theirs = _transformers_dynamic(lengths, L)
    eff = sc.dynamic_ntk_schedule(lengths, L)
    assert list(eff) == [512, 700, 2000, 2000, 2000, 512, 800, 800, 800]
    ours = np.array([sc.dynamic_inv_freq(64, 10000.0, 4.0, L, int(n))[0] for n in eff])
    np.testing.assert_allclose(ours, theirs, rtol=RTOL)
    bases = sc.dynamic_ntk_bases(lengths, 64, 10000.0, 4.0, L)
    np.testing.assert_allclose(bases[:, None] ** (-np.arange(0, 64, 2) / 64), ours, rtol=1e-12)


# ---------------------------------------------------------------- target length of length-free blocks

@pytest.mark.parametrize("factor,L", [(2.0, 4096), (8.0, 2048), (1.5, 512)])
def test_dynamic_block_targets_factor_times_max_position_embeddings_like_transformers(factor, L):
    """The target is factor·L, not L (dynamic at L is plain RoPE): transformers' dynamic NTK scales from
    max_position_embeddings on, and at factor·L its update (one call of that length) gives what describe_config
    draws."""
    d = 64
    cfg = _base(d, max_position_embeddings=L, rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0,
                                                                "factor": factor})
    report = sc.describe_config(json.loads(json.dumps(cfg)))
    target = int(round(factor * L))
    assert report.target_length == target and report.original_length == L
    assert report.target_source.startswith("factor × max_position_embeddings")
    theirs = _transformers_dynamic([target], L, d=d, factor=factor)[0]
    np.testing.assert_allclose(report.blocks[0].inv_freq, theirs, rtol=RTOL)
    alpha = factor * factor - (factor - 1)  # s·(sL)/L − (s − 1): the slowest pair is divided by α
    assert (sc.inv_freq(d, 10000.0) / report.blocks[0].inv_freq)[-1] == pytest.approx(alpha)


def test_linear_and_ntk_blocks_target_factor_times_the_stated_length():
    """Linear ×4 on a 4,096-token config targets 16,384, not 4,096: a linear block names no length, so the length
    it scales is the config's; its frequencies (transformers' linear) do not depend on it."""
    cfg = _base(64, max_position_embeddings=4096, rope_parameters={"rope_type": "linear", "rope_theta": 1e4,
                                                                    "factor": 4.0})
    report = sc.describe_config(cfg)
    assert (report.target_length, report.original_length) == (16384, 4096)
    _close((report.blocks[0].inv_freq, report.blocks[0].attention_factor), _hf(cfg))
    ntk = sc.read_rope_config({"head_dim": 64, "max_position_embeddings": 2048,
                               "rope_scaling": {"type": "ntk", "factor": 8.0}})
    assert sc.config_target_length(ntk) == 16384 and sc.config_original_length(ntk) == 2048
    gemma = sc.read_rope_config(REAL["Gemma 3 (rope_scaling + rope_local_base_freq)"])  # states its scaled length
    assert (sc.config_target_length(gemma), sc.config_original_length(gemma)) == (131072, None)
    assert "gemma3_text" in sc.config_target_source(gemma)
    plain = sc.read_rope_config({"head_dim": 64, "max_position_embeddings": 4096})
    assert (sc.config_target_length(plain), sc.config_original_length(plain)) == (4096, 4096)
    with pytest.raises(ValueError, match="rc"):
        sc.config_original_length("llama")


def test_describe_config_is_linear_in_layers_and_caps_them():
    """One pass over the layers (a list searched once per layer takes seconds at 20,000 layer types), and at most
    MAX_LAYERS layers."""
    n = sc.MAX_LAYERS
    cfg = {"head_dim": 64, "rope_theta": 1e4, "layer_types": ["sliding_attention"] * (n - 1) + ["full_attention"],
           "rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding_attention": None}}
    report = sc.describe_config(cfg)
    assert report.nope_layers == tuple(range(n - 1)) and report.blocks[0].layers == (n - 1,)
    flags = {"head_dim": 64, "rope_theta": 1e4, "num_hidden_layers": n, "no_rope_layers": [0, 1] * (n // 2)}
    report = sc.describe_config(flags)
    assert report.nope_layers == tuple(range(0, n, 2)) and report.blocks[0].layers == tuple(range(1, n, 2))
    with pytest.raises(ValueError, match="layer_types"):
        sc.describe_config(dict(cfg, layer_types=["full_attention"] * 2 * n))
    with pytest.raises(ValueError, match="no_rope_layers"):
        sc.describe_config({"head_dim": 64, "no_rope_layers": [1] * (n + 1)})


@pytest.mark.parametrize("method", sorted(sc.METHODS))
def test_one_registry_serves_the_sliders_and_the_config_reader(method):
    """``scaled_inv_freq`` (one set of slider numbers) and ``inv_freq_from_config`` (a config.json) both dispatch
    through ``ROPE_INIT_FUNCTIONS``: the same numbers give the same frequencies and attention factor."""
    assert tuple(sc.ROPE_INIT_FUNCTIONS) == sc.ROPE_TYPES and set(sc.METHODS) <= set(sc.ROPE_INIT_FUNCTIONS)
    block = {"rope_type": method, "factor": 8.0, "original_max_position_embeddings": 4096,
             "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    config = {"head_dim": 64, "rope_theta": 10000.0, "rope_scaling": block,
              "max_position_embeddings": 4096 if method == "dynamic" else 32768}
    theta, factor = sc.scaled_inv_freq(method, 64, 10000.0, 8.0, 4096)
    theta_cfg, factor_cfg = sc.inv_freq_from_config(config, seq_len=32768)
    np.testing.assert_allclose(theta, theta_cfg, rtol=1e-15)
    assert factor == pytest.approx(factor_cfg, rel=1e-15)
    assert (method == "default") == np.array_equal(theta, sc.inv_freq(64, 10000.0))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**20 - 4096), st.integers(1, 64), st.integers(0, 2**31 - 1))
def test_phase_sums_from_two_tables_equal_the_direct_sums(start, pairs, seed):
    """Many integer distances take the two-table path (Δ = a·256 + b); it gives the cosine-and-sine sums to 1e-10
    of the largest possible score, negative distances included."""
    rng = np.random.default_rng(seed)
    theta = 10000.0 ** (-np.arange(pairs) / pairs)
    h = rng.standard_normal(pairs) + 1j * rng.standard_normal(pairs)
    dist = np.concatenate([np.arange(start, start + 4096), -rng.integers(0, 2**20, 4096)]).astype(float)
    angles = dist[:, None] * theta[None, :]
    direct = np.cos(angles) @ h.real - np.sin(angles) @ h.imag
    np.testing.assert_allclose(effects._phase_sum(dist, theta, h), direct, rtol=0, atol=1e-10 * np.abs(h).sum())
