"""posviz.figures.mrope: the plotted ids and angles are posviz.mrope's, registered, small, float32."""

from __future__ import annotations

import base64

import numpy as np
import plotly.io as pio
import pytest

from posviz import mrope
from posviz.figures import FIGURES, build
from posviz.figures import mrope as fm
from posviz.theme import style

LARGEST = {
    "mrope_ids": dict(n_text_before=64, image_h=16, image_w=16, n_text_mid=64, video_t=16, video_h=16, video_w=16,
                      n_text_after=64, variant="qwen2_5_vl", second_per_grid_t=4.0),
    "mrope_pair_angles": dict(n_text_before=64, image_h=16, image_w=16, n_text_mid=64, video_t=16, video_h=16,
                              video_w=16, n_text_after=64, interleaved=True),
}


def z_of(trace) -> np.ndarray:
    z = trace.z
    if isinstance(z, dict) and "bdata" in z:
        return np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(z["shape"])
    return np.asarray(z, dtype=np.float64)


def test_registered():
    assert set(fm.__all__) == set(LARGEST)
    for name in fm.__all__:
        assert FIGURES[name].builder is getattr(fm, name)


@pytest.mark.parametrize("name", sorted(LARGEST))
def test_json_size_limits(name):
    assert len(pio.to_json(style(build(name), "light"), validate=False)) < 500_000
    assert len(pio.to_json(style(build(name, **LARGEST[name]), "light"), validate=False)) < 2_000_000


def test_sequence_is_in_merged_tokens():
    segs = fm.sequence(n_text_before=2, image_h=3, image_w=5, n_text_mid=1, video_t=0)
    assert segs == (("text", 2), ("image", 1, 6, 10), ("text", 1))
    assert fm.segment_spans(segs) == [("text", 0, 1, "text ×2"), ("image", 2, 16, "image 3×5"),
                                      ("text", 17, 17, "text ×1")]


@pytest.mark.parametrize("kw", [{}, dict(text_after="spatial", video_t=6, video_h=2, video_w=2),
                                dict(variant="qwen2_5_vl", second_per_grid_t=1.5)])
def test_ids_are_plotted_per_axis(kw):
    fig = fm.mrope_ids(**kw)
    seq = {k: v for k, v in kw.items() if k not in ("text_after", "variant", "second_per_grid_t")}
    ids = mrope.mrope_position_ids(fm.sequence(**seq), variant=kw.get("variant", "qwen2_vl"),
                                   second_per_grid_t=kw.get("second_per_grid_t", 1.0),
                                   text_after=kw.get("text_after", "max_id"))
    traces = {t.name: t for t in fig.data}
    for a, name in enumerate(("temporal", "height", "width")):
        np.testing.assert_array_equal(np.asarray(traces[f"{name} id"].y), ids[a])
    assert f"ids 0 … {ids.max()}" in fig.layout.title.text
    bands = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(bands) == 2 - (kw.get("video_t", 2) == 0)


def test_markers_shrink_with_thousands_of_tokens_and_keep_their_ratios():
    full = [t.marker.size for t in fm.mrope_ids().data]
    assert full == [m["size"] for m in fm.AXIS_MARKERS]  # 40 tokens: full size
    segs = fm.sequence(**{k: v for k, v in LARGEST["mrope_ids"].items() if k not in ("variant", "second_per_grid_t")})
    n = mrope.mrope_position_ids(segs).shape[1]
    small = [t.marker.size for t in fm.mrope_ids(**LARGEST["mrope_ids"]).data]
    assert n > 4 * fm.SPARSE_TOKENS and small == pytest.approx([s / 2 for s in full])  # the floor: one half
    assert fm.marker_scale(fm.SPARSE_TOKENS) == 1.0 and fm.marker_scale(4 * fm.SPARSE_TOKENS) == pytest.approx(0.5)
    scales = [fm.marker_scale(k) for k in range(1, 2000, 37)]
    assert scales == sorted(scales, reverse=True)


def test_sequential_ids_are_the_token_index():
    fig = fm.mrope_ids(ids="sequential")
    n = len(fig.data[0].y)
    for trace in fig.data:
        np.testing.assert_array_equal(np.asarray(trace.y), np.arange(n))


@pytest.mark.parametrize("interleaved", [False, True])
def test_pair_angles_are_mrope_angles(interleaved):
    fig = fm.mrope_pair_angles(base=100.0, interleaved=interleaved)
    strip, angles = [t for t in fig.data if t.type == "heatmap"]
    section = (24, 20, 20) if interleaved else (16, 24, 24)
    want = np.mod(mrope.mrope_angles(mrope.mrope_position_ids(fm.sequence()), 128, 100.0, section, interleaved),
                  2 * np.pi)
    np.testing.assert_allclose(z_of(angles), want, atol=1e-5)
    axis = z_of(strip)[0]
    assert np.bincount(axis.astype(int)).tolist() == list(section)
    assert (axis[:16] == 0).all() != interleaved


def test_pair_angles_text_uses_sub_and_superscripts_and_a_short_base():
    fig = fm.mrope_pair_angles(base=1e6)
    assert "base 1M;" in fig.layout.title.text and "e+0" not in fig.layout.title.text
    title = fig.layout.xaxis2.title.text
    assert "θ<sub>k</sub> = b<sup>−2k/128</sup>" in title and "_" not in title and "^" not in title

