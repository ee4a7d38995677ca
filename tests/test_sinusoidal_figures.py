"""Figures of the Sinusoidal lesson: the data they draw, checked against direct formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.figures import FIGURES, build

NAMES = ["sinusoidal_heatmap", "sinusoidal_waves", "sinusoidal_similarity", "sinusoidal_dot_by_offset",
         "sinusoidal_shift", "sinusoidal_exponent_bug", "sinusoidal_fast_slow"]


def _arr(v) -> np.ndarray:
    return np.asarray(v, dtype=float)


def _pe(p: np.ndarray, d: int, base: float) -> np.ndarray:
    """Vaswani's table by a naive loop: [sin p w0, cos p w0, sin p w1, ...], w_i = base^(-2i/d)."""
    out = np.zeros((len(p), d))
    for r, pos in enumerate(p):
        for i in range(d // 2):
            w = base ** (-2 * i / d)
            out[r, 2 * i], out[r, 2 * i + 1] = np.sin(pos * w), np.cos(pos * w)
    return out


def test_all_registered():
    assert set(NAMES) <= set(FIGURES)


def test_heatmap_is_the_table():
    fig = build("sinusoidal_heatmap", n_positions=12, d_model=8, base=100.0)
    np.testing.assert_allclose(_arr(fig.data[0].z), _pe(np.arange(12), 8, 100.0), atol=1e-6)


def _concat(pe: np.ndarray) -> np.ndarray:
    """The interleaved table's columns in the concat layout: all sines, then all cosines."""
    return np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)


def _rows(fig) -> tuple[np.ndarray, np.ndarray]:
    """The centres of a heatmap's rows given as a first centre and a spacing, and its cells."""
    (hm,) = fig.data
    z = _arr(hm.z)
    return hm.y0 + hm.dy * np.arange(z.shape[0]), z


@pytest.mark.parametrize(("layout", "n", "runs"), [("interleaved", 4096, "16"), ("concat", 4096, "16"),
                                                   ("interleaved", 3900, "15 or 16"), ("concat", 1001, "3 or 4")])
def test_a_table_too_large_shows_means_of_runs_of_positions_and_every_kth_dimension(layout, n, runs):
    """Too large a table for the cell cap shows every k-th dimension, and each row is the mean of a run of
    positions: the rows share the table's height evenly (runs whose lengths differ by at most one), each drawn
    over its own positions. Interleaved columns alternate sin, cos, sin ...: an even k would keep only sines, so
    k is odd there and the columns shown alternate as the table's do."""
    d, base = 1024, 1e6
    fig = build("sinusoidal_heatmap", n_positions=n, d_model=d, base=base, layout=layout)
    centres, z = _rows(fig)
    cols = _arr(fig.data[0].x).astype(int)
    k = int(cols[1] - cols[0])
    assert np.all(np.diff(cols) == k) and z.shape[0] <= 256
    full = _pe(np.arange(n), d, base)  # by the naive loop
    full = full if layout == "interleaved" else _concat(full)
    height = n / z.shape[0]
    edges = np.arange(z.shape[0] + 1) * height - 0.5
    np.testing.assert_allclose(centres, (edges[:-1] + edges[1:]) / 2)
    for i in (0, 1, z.shape[0] // 2, z.shape[0] - 1):  # each row: the positions whose centres lie under it
        inside = (np.arange(n) >= edges[i]) & (np.arange(n) < edges[i + 1])
        np.testing.assert_allclose(z[i], full[inside][:, cols].mean(axis=0), atol=1e-5)
    assert tuple(fig.layout.yaxis.range) == (n - 0.5, -0.5)  # reversed, ending at the last position
    shown = f"; one dimension in {k} shown" if k > 1 else ""
    assert f"each row: the mean of {runs} positions{shown}" in fig.layout.title.text
    if layout == "interleaved" and k > 1:
        assert k % 2 == 1 and {0, 1} == set(cols % 2)


def test_a_dimension_whose_wavelength_is_near_the_run_shows_its_mean_not_a_slow_false_wave():
    """Every k-th position of a dimension whose wavelength is near k drifts slowly from row to row: shown alone,
    those positions would draw a slow wave the table does not have (its wavelength is about k positions). The
    mean of each run is near 0 instead, as the eye would see the fast dimension from afar."""
    n, d, base = 4096, 1024, 10000.0
    fig = build("sinusoidal_heatmap", n_positions=n, d_model=d, base=base)  # interleaved
    centres, z = _rows(fig)
    cols = _arr(fig.data[0].x).astype(int)
    run = int(round(centres[1] - centres[0]))
    wavelength = 2 * np.pi * base ** (2 * (cols // 2) / d)
    c = int(np.argmin(np.abs(wavelength - run)))
    assert abs(wavelength[c] / run - 1) < 0.01  # 16.01 positions against runs of 16
    table = _pe(np.arange(10 * run), d, base)[:, cols[c]]  # the first ten rows' positions
    assert np.ptp(table) > 1.9  # the table swings through ±1 within them ...
    assert np.ptp(table[::run]) < 1.0  # ... every run-th position alone drifts, a slow false wave ...
    assert np.abs(z[:10, c]).max() < 0.05  # ... and the rows' means are near 0


@given(n=st.integers(257, 5000))
@settings(max_examples=40, deadline=None)
def test_every_position_is_in_exactly_one_row_of_the_table(n):
    """However many positions, the rows shown take every position once: runs that tile 0..n-1, each one or two
    lengths apart at most, and at most 256 rows."""
    from posviz.figures.sinusoidal import row_means

    shown = math.ceil(n / math.ceil(n / 256))
    _, starts = row_means(np.zeros((n, 1)), shown)
    runs = np.diff(starts)
    assert starts[0] == 0 and starts[-1] == n and runs.min() >= 1 and runs.max() - runs.min() <= 1
    assert len(runs) == shown <= 256


def test_similarity_uses_a_sequential_scale_for_positive_dots():
    fig = build("sinusoidal_similarity", n_positions=40, d_model=64)
    (hm,) = fig.data
    z = _arr(hm.z)
    pe = _pe(np.arange(40), 64, 10000.0)
    np.testing.assert_allclose(z, pe @ pe.T, atol=1e-3)
    assert z.min() > 0 and hm.meta != "diverging" and hm.zmid is None
    assert hm.colorscale[0][1] != hm.colorscale[-1][1] and hm.zmax == 32 and hm.zmin == pytest.approx(z.min())
    # constant along diagonals
    assert np.ptp(np.diagonal(z, 3)) < 1e-3


def test_similarity_goes_diverging_when_dots_turn_negative():
    fig = build("sinusoidal_similarity", n_positions=40, d_model=4, base=10.0)
    (hm,) = fig.data
    z = _arr(hm.z)
    assert z.min() < 0 and hm.meta == "diverging" and hm.zmid == 0 and hm.zmin == -hm.zmax


def test_dot_by_offset_is_symmetric():
    fig = build("sinusoidal_dot_by_offset", max_offset=50, d_model=32)
    k, y = _arr(fig.data[0].x), _arr(fig.data[0].y)
    np.testing.assert_allclose(y, y[::-1], atol=1e-4)
    pe = _pe(np.arange(0, 101), 32, 10000.0)
    np.testing.assert_allclose(y[k == 7], pe[50] @ pe[57], atol=1e-4)


def test_shift_turns_counter_clockwise_and_both_markers_show():
    fig = build("sinusoidal_shift")  # defaults: pair 10, p = 10, k = 5
    by_name = {t.name: t for t in fig.data if t.name}
    start, end, mapped = by_name["PE(p=10)"], by_name["PE(p+k=15)"], by_name["M_k · PE(p)"]
    w = 10000.0 ** (-20 / 128)
    np.testing.assert_allclose([start.x[1], start.y[1]], [np.cos(10 * w), np.sin(10 * w)], atol=1e-9)
    np.testing.assert_allclose([end.x[1], end.y[1]], [np.cos(15 * w), np.sin(15 * w)], atol=1e-9)
    np.testing.assert_allclose([mapped.x[1], mapped.y[1]], [end.x[1], end.y[1]], atol=1e-9)
    # counter-clockwise from PE(p) to PE(p+k): positive cross product, a visible arc (not pair 0's 286°)
    assert start.x[1] * end.y[1] - start.y[1] * end.x[1] > 0
    arc = next(t for t in fig.data if t.name and t.name.startswith("rotation"))
    degrees = np.degrees(5 * w)
    assert 20 < degrees < 90 and f"= {5 * w:.3f} rad ({degrees:.0f}°)" in arc.name
    # M_k·PE(p) is an open ring larger than the filled PE(p+k) marker, so both stay visible
    assert mapped.marker.symbol == "circle-open" and mapped.marker.size[1] > end.marker.size[1]
    assert fig.layout.xaxis.title.text == "cos(p·ω)"


@pytest.mark.parametrize("base", [10000.0, 500.0])
def test_exponent_bug_draws_both_curves_and_the_intended_ceiling_on_the_log_axis(base):
    fig = build("sinusoidal_exponent_bug", d_model=16, base=base)
    i = np.arange(8)
    right, wrong = (_arr(t.y) for t in fig.data)
    np.testing.assert_allclose(right, 2 * np.pi * base ** (2 * i / 16))
    np.testing.assert_allclose(wrong, 2 * np.pi * base ** (4 * i / 16))
    assert fig.layout.yaxis.type == "log"
    (line,), (label,) = fig.layout.shapes, fig.layout.annotations
    assert line.y0 == line.y1 == pytest.approx(2 * np.pi * base) and line.yref == "y"
    # on a log axis an annotation's y is log10 of the value: the label sits on the line, inside the chart
    assert label.yref == "y" and label.y == pytest.approx(np.log10(2 * np.pi * base))
    assert "2π·b" in label.text


def test_waves_are_continuous_curves_through_the_table_at_integer_positions():
    """Dimension 0 (λ = 2π tokens) as a continuous sine, 8 samples per token, with dots at the integer
    positions that are exactly the table's entries: joined at integers alone it looked jagged."""
    fig = build("sinusoidal_waves", n_positions=100, d_model=128, dims=(0, 21))
    curve, dots = fig.data[0], fig.data[1]
    assert curve.mode == "lines" and dots.mode == "markers"
    assert len(curve.x) == 8 * 99 + 1
    np.testing.assert_allclose(curve.y, np.sin(np.asarray(curve.x, dtype=float)), atol=1e-6)
    table = _pe(np.arange(100), 128, 10000.0)
    np.testing.assert_allclose(dots.y, table[:, 0], atol=1e-6)
    np.testing.assert_allclose(np.interp(np.arange(100), curve.x, curve.y), table[:, 0], atol=1e-5)
    # the largest gap between neighbouring points of the drawn line is 1/8 token, not a whole token
    assert float(np.diff(np.asarray(curve.x, dtype=float)).max()) == pytest.approx(1 / 8)
