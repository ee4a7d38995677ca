"""Figures of the 2D lesson: built at defaults and extremes, checked on their data and payload size."""

from __future__ import annotations

import base64

import numpy as np
import plotly.io as pio
import pytest

from posviz import rope2d as r2
from posviz.figures import FIGURES, build, twod
from posviz.sinusoidal import sinusoidal_2d
from posviz.theme import DIVERGING_DARK, style

LARGEST = {
    "patch_channel": dict(height=64, width=64, d_model=1024, channel=1023),
    "patch_channels": dict(height=64, width=64, d_model=1024, first=1008, n_channels=16),
    "patch_similarity_modes": dict(height=64, width=64, d_model=1024, row=63, col=5),
    "mae_axis_response": dict(height=64, width=64, d_model=1024),
    "resize_channel": dict(old_height=64, old_width=64, new_height=64, new_width=64, d_model=1024, channel=1023),
    "resize_error_map": dict(old_height=8, old_width=64, new_height=64, new_width=64, d_model=1024,
                             recompute="integer"),
    "rope2d_two_queries": dict(height=64, width=64, dim=128, kind="mixed", base=10.0, by_offset=True,
                               row_b=63, col_b=63, content="random"),
    "mixed_rope_directions": dict(dim=128, num_heads=16),
    "flux_angles": dict(height=64, width=64, n_text=64, patch_rows=64),
    "flux_scores": dict(height=64, width=64, n_text=512, query="text", text_index=511),
}


def z_of(trace) -> np.ndarray:
    """A heatmap's z as numpy, whether plotly kept the array or encoded it (base64 typed array)."""
    z = trace["z"] if isinstance(trace, dict) else trace.z
    if isinstance(z, dict) and "bdata" in z:
        return np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(z["shape"])
    return np.asarray(z, dtype=np.float64)


def json_size(fig) -> int:
    return len(pio.to_json(style(fig, "light"), validate=False))


def test_every_builder_is_registered_and_listed():
    assert set(twod.__all__) == set(LARGEST)
    for name in twod.__all__:
        assert FIGURES[name].builder is getattr(twod, name)


@pytest.mark.parametrize("name", sorted(LARGEST))
def test_json_size_limits(name):
    assert json_size(build(name)) < 500_000
    assert json_size(build(name, **LARGEST[name])) < 2_000_000


@pytest.mark.parametrize("name", sorted(LARGEST))
def test_float32_heatmaps_and_theme_swap(name):
    fig = build(name)
    for trace in fig.data:
        if trace.type == "heatmap":
            assert np.asarray(trace.z).dtype == np.float32
            if trace.meta == "diverging":
                assert trace.zmid == 0
    style(fig, "dark")
    for trace in fig.data:
        if trace.type == "heatmap" and trace.meta == "diverging":
            assert trace.colorscale[0][1] == DIVERGING_DARK[0][1].lower() or \
                trace.colorscale[0][1] == DIVERGING_DARK[0][1]


def test_patch_channel_is_the_table_slice():
    fig = build("patch_channel", height=5, width=9, d_model=16, combine="mae", channel=3)
    z = z_of(fig.data[0])
    np.testing.assert_allclose(z, sinusoidal_2d(5, 9, 16, combine="mae")[:, :, 3], atol=1e-6)
    assert "sin" in fig.layout.title.text and "column" in fig.layout.title.text
    assert fig.layout.yaxis.autorange == "reversed"  # row 0 on top, like an image
    with pytest.raises(ValueError, match="channel"):
        build("patch_channel", d_model=16, channel=16)


def tiles(fig) -> dict[int, np.ndarray]:
    """The small-multiples mosaic cut back into its tiles, by channel (located through customdata)."""
    tr = fig.data[0]
    z, ch = np.asarray(tr.z, dtype=np.float64), np.asarray(tr.customdata, dtype=np.float64)
    out = {}
    for c in np.unique(ch[np.isfinite(ch)]).astype(int):
        rows, cols = np.nonzero(ch == c)
        out[c] = z[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    return out


def test_patch_channels_small_multiples():
    fig = build("patch_channels", height=6, width=7, d_model=32, combine="concat", first=14, n_channels=8,
                spread=False)
    assert len(fig.data) == 1 and fig.data[0].type == "heatmap"  # one mosaic, not 8 subplots
    pe = sinusoidal_2d(6, 7, 32, combine="concat")
    got = tiles(fig)
    assert sorted(got) == list(range(14, 22))
    for c, tile in got.items():
        np.testing.assert_allclose(tile, pe[:, :, c], atol=1e-6)
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0].startswith("ch 14") and "row" in titles[0] and "column" in titles[2]
    assert len(tiles(build("patch_channels", d_model=8, first=4, n_channels=16))) == 4  # stops at d_model
    spread = build("patch_channels", height=5, width=5, d_model=64, combine="mae")
    assert [a.text for a in spread.layout.annotations][:2] == ["ch 0: sin column", "ch 4: sin column"]
    np.testing.assert_allclose(tiles(spread)[60], sinusoidal_2d(5, 5, 64, combine="mae")[:, :, 60], atol=1e-6)
    assert np.isnan(np.asarray(spread.data[0].z, dtype=float)).any()  # blank gutters between tiles


def test_similarity_modes_show_the_add_collision():
    fig = build("patch_similarity_modes", height=10, width=12, d_model=64, row=2, col=7)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 3
    for tr, mode in zip(heat, ("concat", "add", "mae")):
        z = z_of(tr)
        assert z.shape == (10, 12)
        assert z[2, 7] == pytest.approx(1.0, abs=1e-6)
        np.testing.assert_allclose(z, r2.patch_similarity(10, 12, 64, 10000.0, mode, 2, 7), atol=1e-6)
    z_add, z_concat = z_of(heat[1]), z_of(heat[0])
    assert z_add[7, 2] == pytest.approx(1.0, abs=1e-6) and z_concat[7, 2] < 0.99
    marks = [t for t in fig.data if t.type == "scatter" and "transposed" in t.name]
    assert [m.text[0] for m in marks][1] == "1.000"


def test_mae_axis_response_halves():
    fig = build("mae_axis_response", d_model=32)
    along, down = (np.asarray(t.y) for t in fig.data)
    assert along[16:].max() == 0 and along[:16].min() > 0
    assert down[:16].max() == 0 and down[16:].min() > 0
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "emb_h" in texts and "emb_w" in texts


def test_resize_figures():
    fig = build("resize_channel", old_height=6, old_width=6, new_height=9, new_width=9, d_model=16, channel=0)
    a, b, d = (z_of(t) for t in fig.data)
    interp, exact = r2.resize_sincos_2d(6, 6, 9, 9, 16)
    np.testing.assert_allclose(a, interp[:, :, 0], atol=1e-6)
    np.testing.assert_allclose(b, exact[:, :, 0], atol=1e-6)
    np.testing.assert_allclose(d, a - b, atol=1e-6)
    fig = build("resize_error_map", d_model=64)
    patch, chan = fig.data
    assert z_of(patch).shape == (20, 20) and len(chan.y) == 64
    pp, pc = r2.resize_error(14, 14, 20, 20, 64)
    np.testing.assert_allclose(np.asarray(chan.y), pc, rtol=1e-6)


def test_resize_error_marks_each_channel_only_while_they_can_be_told_apart():
    """A marker per channel up to D = 64; at D = 1,024 a thousand markers would merge into the line and each is an
    SVG element the browser paints at every frame of a drag: the line alone, with the same values."""
    few, many = build("resize_error_map", d_model=64).data[1], build("resize_error_map", d_model=1024).data[1]
    assert few.mode == "lines+markers" and many.mode == "lines" and len(many.y) == 1024
    np.testing.assert_allclose(np.asarray(many.y), r2.resize_error(14, 14, 20, 20, 1024)[1], rtol=1e-6)


@pytest.mark.parametrize("kind", ["axial", "mixed"])
def test_rope2d_two_queries_by_offset(kind):
    base = 100.0 if kind == "axial" else 10.0
    fig = build("rope2d_two_queries", height=8, width=9, dim=32, kind=kind, base=base, row_a=1, col_a=2,
                row_b=5, col_b=6, by_offset=True, content="random")
    heat = [t for t in fig.data if t.type == "heatmap"]
    za, zb = z_of(heat[0]), z_of(heat[1])
    xa, xb = np.asarray(heat[0].x), np.asarray(heat[1].x)
    assert xa[0] == -2 and xb[0] == -6  # columns relative to each query
    # the same offset (dx, dy) = (1, 2) gives the same score for both queries
    assert za[1 + 2, 2 + 1] == pytest.approx(zb[5 + 2, 6 + 1], abs=1e-5)
    assert "e-" in fig.layout.title.text  # the gap is printed, tiny
    np.testing.assert_allclose(za, r2.rope2d_scores(8, 9, 32, 1, 2, kind, base, content="random"), atol=1e-6)


def test_mixed_directions():
    fig = build("mixed_rope_directions", dim=16, num_heads=3, seed=5)
    assert len(fig.data) == 3
    f = r2.mixed_rope_freqs(16, 3, 10.0, 5)
    np.testing.assert_allclose(np.asarray(fig.data[2].x), f[2, 0], rtol=1e-6)


def test_flux_figures():
    fig = build("flux_angles", height=3, width=4, n_text=5)
    z = z_of(fig.data[0])
    assert z.shape == (5 + 12, 64)
    assert np.all(z[:5] == 0) and np.all(z[5] == 0)  # text tokens and patch (0, 0): no rotation
    assert z[6:].max() > 0
    assert list(fig.data[0].y[:2]) == ["text 0 (0,0,0)", "text 1 (0,0,0)"]
    capped = build("flux_angles", height=64, width=64, n_text=4, patch_rows=64)
    assert z_of(capped.data[0]).shape == (4 + 16 * 64, 64) and "first 16 of 64 grid rows" in capped.layout.title.text
    fig = build("flux_scores", height=4, width=5, n_text=6, query="patch", row=2, col=3)
    bars, heat = fig.data
    assert np.ptp(np.asarray(bars.y)) < 1e-6  # every text token scores the same
    zh = z_of(heat)
    assert zh[2, 3] == pytest.approx(1.0, abs=1e-6)
    assert zh[0, 0] == pytest.approx(bars.y[0], abs=1e-6)  # patch (0, 0) looks like a text token
    with pytest.raises(ValueError, match="text_index"):
        build("flux_scores", n_text=4, query="text", text_index=4)


@pytest.mark.parametrize("name", sorted(LARGEST))
def test_csv_export_holds_the_plotted_numbers(name):
    from posviz import export

    text = export.export_figure(name, {}, "csv", export.ExportOptions()).decode()
    lines = text.strip().splitlines()
    assert len(lines) > 10  # a header and the plotted cells / points
    if name == "patch_channel":  # MAE channel 0 at column 1 is sin(1)
        assert f"{np.sin(1.0):.4f}"[:5] in text
