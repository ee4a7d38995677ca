"""Figures of the Gaussian-kernel RoPE lesson: data checked against posviz.gaussian, sizes bounded."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import gaussian as gk
from posviz.figures import gaussian as fg
from posviz.figures._registry import FIGURES, build
from testkit.figures import trace_array as values

NAMES = fg.__all__
KB = 1000


def json_size(fig: go.Figure) -> int:
    return len(fig.to_json())


def test_all_registered_with_defaults():
    for name in NAMES:
        assert name in FIGURES
        spec = FIGURES[name]
        assert all(v is not None for v in spec.defaults().values())
        fig = build(name)
        assert isinstance(fig, go.Figure) and fig.data
        assert json_size(fig) < 500 * KB, name


LARGEST = {
    "gaussian_kernel_curve": dict(sigma1=50.0, sigma2=500.0, log_y=True),
    "gaussian_attention": dict(T=512, d=256, mode="absolute"),
    "gaussian_attention_grid": dict(T=512, d=256),
    "gaussian_envelope": dict(T=512, d=256, queries=(10, 40, 100, 200, 300, 511)),
    "gaussian_shift_check": dict(m=512, n=0, shift=512, d=256),
    "gaussian_mixed_layout": dict(T=128, d=256),
    "gaussian_kernel_broadcast": dict(T=256, D=256),
    "gaussian_magnitude_only": dict(n_positions=512, d=256, pair=127),
}


@pytest.mark.parametrize("name", NAMES)
def test_largest_settings_stay_under_2mb(name):
    fig = build(name, **LARGEST[name])
    assert json_size(fig) < 2000 * KB
    for trace in fig.data:
        if trace.type == "heatmap":
            assert values(fig.to_plotly_json()["data"][list(fig.data).index(trace)]["z"]).dtype == np.float32


def test_kernel_curve_data():
    fig = fg.gaussian_kernel_curve(alpha1=0.6, alpha2=0.2, sigma1=4.0, sigma2=30.0)
    local, wide, total = fig.data
    r = values(local.x)
    assert r[0] == 0 and r[-1] >= 3 * 30
    np.testing.assert_allclose(values(total.y), gk.gaussian_kernel(r, 0.6, 0.2, 4.0, 30.0), rtol=1e-6)
    np.testing.assert_allclose(values(local.y) + values(wide.y), values(total.y), rtol=1e-5, atol=1e-7)
    assert values(total.y)[0] == pytest.approx(0.8)
    lines = sorted(s.x0 for s in fig.layout.shapes)
    assert lines == [4.0, 30.0]  # sigma1 and sigma2 are marked
    texts = {a.text for a in fig.layout.annotations}
    assert {"σ1 = 4", "σ2 = 30"} <= texts


def test_kernel_curve_bad_input_raises_named():
    with pytest.raises(ValueError, match="alpha1 and alpha2"):
        fg.gaussian_kernel_curve(alpha1=0.0, alpha2=0.0)
    with pytest.raises(ValueError, match="sigma2"):
        fg.gaussian_kernel_curve(sigma2=-1.0)


def test_attention_matches_math_and_is_block_averaged():
    fig = fg.gaussian_attention(mode="relative_mul", T=64, d=16, seed=3)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    rope, mul = (values(t.z) for t in fig.data)
    assert rope.shape == mul.shape == (64, 64)
    want = np.log10(np.maximum(gk.attention(64, 16, seed=3, mode="relative_mul"), 1e-6))
    np.testing.assert_allclose(mul, want, atol=1e-5)
    assert "block means" not in fig.layout.title.text

    big = fg.gaussian_attention(mode="relative_log", T=512)
    z = values(big.data[1].z)
    assert z.shape == (128, 128) and z.size * 2 <= 250_000
    assert "T = 512 shown as 128×128 block means of 4×4" in big.layout.title.text
    a = gk.attention(512, mode="relative_log")
    np.testing.assert_allclose(z[0, 0], np.log10(a[:4, :4].mean()), atol=1e-5)
    np.testing.assert_allclose(z[50, 51], np.log10(a[200:204, 204:208].mean()), atol=1e-5)
    assert len(fg.gaussian_attention(mode="rope").data) == 1


def test_attention_grid_has_four_modes():
    fig = fg.gaussian_attention_grid(T=80)
    assert len(fig.data) == 4
    zs = [values(t.z) for t in fig.data]
    assert zs[0].shape == (80, 80)
    # late rows of mode (a) are uniform: one value 1/T everywhere
    np.testing.assert_allclose(zs[1][70], math.log10(1 / 80), atol=1e-3)
    assert np.ptp(zs[0][70]) > 0.3  # plain RoPE is not uniform there
    # mode (c) is banded: the far corner is at the colour floor
    assert zs[3][0, -1] < -4 < zs[3][0, 0]
    assert fg.gaussian_attention_grid(T=128).data[3].z[0, -1] == pytest.approx(fg.LOG_FLOOR)
    big = fg.gaussian_attention_grid(T=512)
    assert sum(values(t.z).size for t in big.data) <= 250_000


def test_envelope_data():
    fig = fg.gaussian_envelope(T=64, queries=(40,))
    by_name = {t.name: t for t in fig.data}
    k = by_name["(b), (c): K(Δ), the same for every query"]
    np.testing.assert_allclose(values(k.y), gk.gaussian_kernel(np.arange(64.0)), rtol=1e-6)
    a = by_name["(a): K(m)·K(m−Δ), query m = 40"]
    assert values(a.y)[3] == pytest.approx(gk.gaussian_kernel(40) * gk.gaussian_kernel(37), rel=1e-5)
    assert values(a.y)[3] < 0.01 < values(k.y)[3]
    prof = by_name["mean weight, (c) +log K(|m−n|)"]
    np.testing.assert_allclose(values(prof.y), gk.mean_by_distance(gk.attention(64, mode="relative_log")),
                               rtol=1e-5)


def test_shift_check_bars():
    fig = fg.gaussian_shift_check()
    before, after = (values(t.y) for t in fig.data)
    res = gk.shift_check()
    np.testing.assert_allclose(before, [res[m]["before"] for m in gk.MODES], rtol=1e-6)
    np.testing.assert_allclose(after[[0, 2, 3]], before[[0, 2, 3]], rtol=1e-6)
    assert abs(after[1]) < 0.01 * abs(before[1])
    assert fig.data[1].name == "at (m, n) = (40, 37)"


def test_mixed_layout_figure():
    wrong, right = fg.gaussian_mixed_layout(layout="mixed"), fg.gaussian_mixed_layout(layout="interleaved")
    assert right.layout.title.text.endswith("<br>largest spread along a diagonal = 0 (up to rounding)")
    assert wrong.layout.title.text.endswith("<br>largest spread along a diagonal = 1.76")
    for fig, flat in ((wrong, False), (right, True)):
        line = values(fig.data[2].y)  # Δ = 3
        assert bool(np.ptp(line) < 1e-6) == flat
    np.testing.assert_allclose(values(wrong.data[0].z), gk.mixed_layout_score_grid(), rtol=1e-6)
    with pytest.raises(ValueError, match="T"):
        fg.gaussian_mixed_layout(T=4096)


def test_kernel_broadcast_figure():
    fig = fg.gaussian_kernel_broadcast(T=128, D=64)
    assert not fig.data and "must match the size" in fig.layout.annotations[0].text
    feature = values(fg.gaussian_kernel_broadcast(T=64, D=64).data[0].z)
    fixed = values(fg.gaussian_kernel_broadcast(version="fixed").data[0].z)
    assert np.ptp(feature[:, 10]) == 0 and np.ptp(feature[10]) > 0.5  # varies along channels
    assert np.ptp(fixed[10]) == 0 and np.ptp(fixed[:, 10]) > 0.5  # varies along positions


def test_magnitude_only_figure():
    fig = fg.gaussian_magnitude_only(pair=3, n_positions=30)
    by_name = {t.name: t for t in fig.data}
    np.testing.assert_allclose(values(by_name["angle, K(m)·R_m"].y), values(by_name["angle, plain RoPE"].y),
                               atol=1e-5)
    ratio = values(by_name["length, K(m)·R_m"].y) / values(by_name["length, plain RoPE"].y)
    np.testing.assert_allclose(ratio, gk.gaussian_kernel(np.arange(30.0)), rtol=1e-5)
    slope = np.diff(values(by_name["angle, plain RoPE"].y))
    np.testing.assert_allclose(slope, 10000 ** (-6 / 64), rtol=1e-4)  # θ_3 per token


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameters_raise_value_error(name):
    spec = FIGURES[name]
    for param, default in spec.defaults().items():
        bad = {int: -10**9, float: float("nan"), str: "<script>", bool: None}.get(type(default), (-1,))
        with pytest.raises(ValueError, match=param):
            build(name, **{param: bad})
