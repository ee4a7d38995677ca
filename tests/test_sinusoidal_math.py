"""Sinusoidal PE against independent references: naive loops, DistilBERT, diffusers, and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz import sinusoidal as sn


def naive_table(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    out = np.zeros((n, d))
    for p in range(n):
        for i in range(d // 2):
            w = base ** (-2 * i / d)
            out[p, 2 * i] = math.sin(p * w)
            out[p, 2 * i + 1] = math.cos(p * w)
    return out


@pytest.mark.parametrize(("n", "d", "base"), [(1, 2, 10000.0), (50, 16, 10000.0), (33, 64, 500.0), (7, 10, 10.0)])
def test_table_matches_naive_loop(n, d, base):
    np.testing.assert_allclose(sn.sinusoidal_table(n, d, base), naive_table(n, d, base), atol=1e-12)


def test_interleaved_matches_distilbert():
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings

    out = torch.empty(64, 32)
    create_sinusoidal_embeddings(64, 32, out)
    np.testing.assert_allclose(sn.sinusoidal_table(64, 32), out.numpy(), atol=1e-6)


def test_concat_matches_diffusers_timestep_embedding():
    from diffusers.models.embeddings import get_timestep_embedding

    ref = get_timestep_embedding(torch.arange(40), 32, flip_sin_to_cos=False, downscale_freq_shift=0)
    np.testing.assert_allclose(sn.sinusoidal_table(40, 32, layout="concat"), ref.numpy(), atol=1e-5)


def test_wavelengths_run_from_2pi_to_2pi_base():
    lam = sn.wavelengths(512, 10000.0)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert np.all(np.diff(lam) > 0)  # pair 0 is the fastest


@settings(max_examples=60, deadline=None)
@given(p=st.integers(0, 500), k=st.integers(-50, 200), half=st.integers(1, 64),
       base=st.floats(2.0, 1e6))
def test_shift_matrix_maps_p_to_p_plus_k(p, k, half, base):
    d = 2 * half
    positions = np.array([p, p + k], dtype=float)
    w = sn.frequencies(d, base)
    ang = positions[:, None] * w  # (2, d/2)
    table = np.stack([np.sin(ang), np.cos(ang)], axis=2).reshape(2, d)
    m = sn.shift_matrix(k, d, base)
    np.testing.assert_allclose(m @ table[0], table[1], atol=1e-8)
    np.testing.assert_allclose(m @ m.T, np.eye(d), atol=1e-10)  # orthogonal


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 120), half=st.integers(1, 40))
def test_similarity_identity_matches_table_product(n, half):
    d = 2 * half
    pe = sn.sinusoidal_table(n, d)
    rows, cols = np.arange(0, n, 3), np.arange(n)
    np.testing.assert_allclose(sn.similarity(rows, cols, d), (pe @ pe.T)[rows][:, cols], atol=1e-9)


def test_dot_by_offset_is_even_and_independent_of_p():
    pe = sn.sinusoidal_table(300, 64)
    k = 17
    dots = np.einsum("pd,pd->p", pe[:-k], pe[k:])
    np.testing.assert_allclose(dots, sn.dot_by_offset(k, 64), atol=1e-9)
    np.testing.assert_allclose(sn.dot_by_offset(-k, 64), sn.dot_by_offset(k, 64))


def test_2d_add_mode_collides_transposed_positions():
    pe = sn.sinusoidal_2d(6, 6, 16, combine="add")
    np.testing.assert_allclose(pe[2, 5], pe[5, 2])
    cat = sn.sinusoidal_2d(6, 6, 16, combine="concat")
    assert not np.allclose(cat[2, 5], cat[5, 2])


def test_slicing_the_feature_axis_gives_the_wrong_shape():
    pe = sn.sinusoidal_table(512, 64)
    assert sn.slice_for_sequence(pe, 10).shape == (10, 64)
    assert sn.slice_for_sequence(pe, 10, feature_axis=True).shape == (512, 10)


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"n_positions": 0, "d_model": 8}, "n_positions"),
    ({"n_positions": 4, "d_model": 7}, "d_model"),
    ({"n_positions": 4, "d_model": 8, "base": float("nan")}, "base"),
    ({"n_positions": 4, "d_model": 8, "base": -3.0}, "base"),
    ({"n_positions": 4, "d_model": 8, "layout": "zigzag"}, "layout"),
    ({"n_positions": True, "d_model": 8}, "n_positions"),
    ({"n_positions": "5", "d_model": 8}, "n_positions"),
    ({"n_positions": 10**9, "d_model": 8}, "n_positions"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sn.sinusoidal_table(**kwargs)


@settings(max_examples=150, deadline=None)
@given(n=st.one_of(st.integers(-5, 5000), st.floats(allow_nan=True), st.text(max_size=3)),
       d=st.one_of(st.integers(-4, 2000), st.floats(allow_nan=True), st.none()),
       base=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**7)),
       layout=st.sampled_from(["interleaved", "concat", "other", ""]))
def test_fuzz_finite_or_named_value_error(n, d, base, layout):
    try:
        out = sn.sinusoidal_table(n, d, base, layout)
    except ValueError as err:
        assert any(p in str(err) for p in ("n_positions", "d_model", "base", "layout"))
    else:
        assert np.isfinite(out).all()


def test_shift_matrix_in_the_plots_order_is_the_counter_clockwise_rotation():
    """Part 4 draws each pair as the point (cos pω, sin pω) and writes M_k in that order: [[cos, −sin], [sin, cos]],
    which turns (1, 0) towards +sin for a small kω (counter-clockwise), and maps PE(p) to PE(p + k) in that order."""
    d, k = 16, 3
    w = sn.frequencies(d)
    m = sn.shift_matrix(k, d, order="cos_sin")
    for i, wi in enumerate(w):
        block = m[2 * i:2 * i + 2, 2 * i:2 * i + 2]
        np.testing.assert_allclose(block, [[math.cos(k * wi), -math.sin(k * wi)],
                                           [math.sin(k * wi), math.cos(k * wi)]], atol=1e-15)
    pe = sn.sinusoidal_table(40, d)[:, np.arange(d) ^ 1]  # (cos, sin) per pair
    for p in (0, 7, 30):
        np.testing.assert_allclose(m @ pe[p], pe[p + k], atol=1e-12)
    last = m[-2:, -2:] @ [1.0, 0.0]
    assert last[1] > 0  # the slowest pair turns by a small positive angle: counter-clockwise
    with pytest.raises(ValueError, match="order"):
        sn.shift_matrix(k, d, order="sin-cos")


def test_similarity_refuses_or_accepts_by_the_request_not_by_the_spread_of_positions():
    """[0, 200000] against [0] at d = 64 and the same request shifted by 0.5 both give the exact value
    Σ cos((p − q)·ω_i): the size of a request decides whether it is refused, not the spread of its positions."""
    w = sn.frequencies(64)
    exact = [[32.0], [float(np.cos(200000 * w).sum())]]
    np.testing.assert_allclose(sn.similarity([0, 200000], [0], 64), exact, atol=1e-9)
    np.testing.assert_allclose(sn.similarity([0.5, 200000.5], [0.5], 64), exact, atol=1e-9)
    w8 = sn.frequencies(8)
    np.testing.assert_allclose(sn.similarity([0, 10**9], [0, 1], 8),
                               [[4.0, np.cos(w8).sum()], [np.cos(1e9 * w8).sum(), np.cos((1e9 - 1) * w8).sum()]],
                               atol=1e-6)
    with pytest.raises(ValueError, match="rows"):  # a request too big in itself still names what to shrink
        sn.similarity(np.arange(5000.0), np.arange(5000.0), 64)
