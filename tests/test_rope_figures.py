"""RoPE figures: the plotted numbers, the animation's frames and controls, and payload sizes."""

from __future__ import annotations

import base64
import math
import time
import tracemalloc

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import export, rope, theme
from posviz.figures import FIGURES, build
from posviz.figures import rope as rf

NAMES = sorted(rf.__all__)
LARGEST = dict(dim=256, base=1e7, n_positions=8192, max_delta=8192, m_max=8192.0, n_frames=rf.MAX_FRAMES,
               max_offset=8192, max_position=100_000_000, n_samples=4096)


# caps of the new parts' math (rope.MAX_ADDITIVE positions; qk cells: 2·max_offset + 1 rows × d/2 pairs <= 2^18)
LARGEST_BY_NAME = {"rope_additive_terms": dict(n_positions=rope.MAX_ADDITIVE),
                   "rope_left_right": dict(max_offset=1000, c=rope.MAX_OFFSET),
                   "rope_qk_turn": dict(c_max=1e6, m=1e6, n=1e6),
                   "rope_pair_roles": dict(context=10**7)}
ANIMATED = {"rope_clock", "rope_qk_turn"}


def _largest(name: str) -> dict:
    out = {k: v for k, v in LARGEST.items() if k in FIGURES[name].defaults()}
    return out | LARGEST_BY_NAME.get(name, {})


def arr(v) -> np.ndarray:
    """A numpy array, or plotly's typed-array dict {dtype, bdata}, as numpy."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v)


def ft(fig, f: int, trace: int):
    """Frame f's update of base trace ``trace``."""
    frame = fig.frames[f]
    return frame.data[list(frame.traces).index(trace)]


def _size(fig) -> int:
    return len(theme.style(fig).to_json())


def test_every_builder_is_registered():
    assert sorted(n for n in FIGURES if n.startswith("rope_")) == NAMES
    assert {n for n in NAMES if FIGURES[n].animated} == ANIMATED


@pytest.mark.parametrize("name", NAMES)
def test_json_size_limits(name):
    small = _size(build(name))
    big = _size(build(name, **_largest(name)))
    assert small < 500_000, small
    assert big < 2_000_000, big


@pytest.mark.parametrize("name", NAMES)
def test_memory_and_time_at_largest_settings(name):
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        theme.style(build(name, **_largest(name))).to_json()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, peak
    assert time.perf_counter() - t0 < 4.0  # 2 s budget, doubled for tracemalloc and a shared machine


@pytest.mark.parametrize("name", NAMES)
def test_builds_at_smallest_and_dark_theme(name):
    params = {k: v for k, v in dict(dim=2, n_positions=1, max_delta=1, m_max=1.0, max_offset=1,
                                    max_position=10, n_samples=1).items() if k in FIGURES[name].defaults()}
    fig = theme.style(build(name, **params), "dark", presenter=True)
    for trace in fig.data:
        if getattr(trace, "meta", None) == "diverging":
            assert trace.colorscale[0][1] == theme.diverging("dark")[0][1]


# ---------------------------------------------------------------------------- the clock

def test_clock_frames_controls_and_payload():
    fig = build("rope_clock", dim=256, n_frames=rf.MAX_FRAMES, m_max=8192.0, pairs="all")
    assert len(fig.frames) == rf.MAX_FRAMES >= 30
    assert _size(fig) < 1_000_000
    steps = fig.layout.sliders[0].steps
    # 72 frames: the slider stops at every 2nd frame and the last (a light slider), Play shows every frame
    assert [s.args[0][0] for s in steps] == [str(f) for f in range(0, rf.MAX_FRAMES, 2)] + [str(rf.MAX_FRAMES - 1)]
    assert len(steps) <= rf.MAX_SLIDER_STEPS
    assert {s.args[0][0] for s in steps} <= {f.name for f in fig.frames}
    small = build("rope_clock", n_frames=rf.MAX_SLIDER_STEPS, m_max=36.0)  # up to 37 frames: a stop per frame
    assert [s.args[0][0] for s in small.layout.sliders[0].steps] == [f.name for f in small.frames]
    play, pause = fig.layout.updatemenus[0].buttons
    assert play.method == "animate" and play.args[1]["frame"]["redraw"] is False
    assert list(pause.args[0]) == [None]
    assert set(fig.frames[0].traces) == {2, 3, 4}
    assert len(fig.data[3].x) == 128  # one tip per pair: all pairs as small multiples
    go.Figure(fig.to_plotly_json())  # frames built without validation for speed: every attribute must be valid
    dark = theme.style(build("rope_clock"), "dark").to_dict()["layout"]["template"]
    assert dark["layout"]["paper_bgcolor"] == "#0f1117"  # the theme's template really applies
    stills = list(export.frame_figures(fig))  # what the GIF/MP4 export renders
    assert len(stills) == rf.MAX_FRAMES
    assert arr(stills[-1].data[3].x).tolist() == arr(ft(fig, -1, 3).x).tolist()


def test_clock_builds_fast():
    build("rope_clock", dim=66)
    t0 = time.perf_counter()
    theme.style(build("rope_clock", dim=256, n_frames=rf.MAX_FRAMES, m_max=512.0)).to_json()
    assert time.perf_counter() - t0 < 1.0


def test_clock_hands_follow_the_rotation():
    dim, base, m_max, n = 8, 100.0, 30.0, 31
    fig = build("rope_clock", dim=dim, base=base, m_max=m_max, n_frames=n, preset="ones")
    theta = rope.inv_freq(dim, base)
    cx = np.asarray(fig.data[1].x, dtype=np.float64)  # circle centres, from the label trace
    cy = np.asarray(fig.data[1].y, dtype=np.float64) + rf.LABEL_DY[0]
    tips_x, tips_y = np.asarray(fig.data[3].x), np.asarray(fig.data[3].y)  # frame 0: all hands at 45°
    np.testing.assert_allclose(tips_x - cx, math.cos(math.pi / 4), atol=1e-5)
    np.testing.assert_allclose(tips_y - cy, math.sin(math.pi / 4), atol=1e-5)
    last = ft(fig, -1, 3)
    expected = np.pi / 4 + m_max * theta
    np.testing.assert_allclose(arr(last.x) - cx, np.cos(expected), atol=1e-5)
    np.testing.assert_allclose(arr(last.y) - cy, np.sin(expected), atol=1e-5)
    hands = arr(ft(fig, -1, 2).x).astype(np.float64).reshape(-1, 3)
    np.testing.assert_allclose(hands[:, 0], cx, atol=1e-5)  # each hand starts at its circle's centre
    np.testing.assert_allclose(arr(last.customdata), m_max * theta, rtol=1e-6)
    # wrapped marking: pairs with m_max·θ >= 2π are coloured 1
    assert arr(last.marker.color).tolist() == (m_max * theta >= 2 * np.pi).astype(float).tolist()
    assert arr(ft(fig, 0, 3).marker.color).sum() == 0
    assert "of 4 pairs have completed a full turn" in ft(fig, -1, 4).text[0]


def test_clock_labels_show_the_angle_frame_by_frame():
    plain = build("rope_clock", dim=8, base=100.0, m_max=30.0, n_frames=31)  # by default: one label line
    assert len(plain.data) == 5 and list(plain.frames[0].traces) == [2, 3, 4]
    fig = build("rope_clock", dim=8, base=100.0, m_max=30.0, n_frames=31, show_angles=True)
    theta = rope.inv_freq(8, 100.0)
    assert list(fig.frames[0].traces) == [2, 3, 4, 5]  # hands, tips, status, and the angle line of the labels
    assert fig.data[1].text[1] == f"i=1, λ={2 * math.pi / theta[1]:.3g}"  # first line: pair and wavelength
    angle_line = fig.data[5]  # second line: the angle, a template filled from each frame's customdata
    assert angle_line.texttemplate == "m·θ=%{customdata:.3~g} rad"
    assert arr(angle_line.customdata).tolist() == [0.0] * 4
    np.testing.assert_allclose(arr(ft(fig, -1, 5).customdata), 30 * theta, rtol=1e-6)
    np.testing.assert_allclose(arr(ft(fig, 10, 5).customdata), 10 * theta, rtol=1e-6)
    assert ft(fig, 10, 5).to_plotly_json().keys() == {"type", "customdata"}  # a frame sends numbers, no text
    np.testing.assert_allclose(arr(angle_line.y) + rf.LABEL_DY[1], arr(fig.data[1].y) + rf.LABEL_DY[0])
    # 32 live labels
    big = build("rope_clock", dim=64, n_frames=rf.MAX_FRAMES, m_max=8192.0, show_angles=True, pairs="all")
    assert _size(big) < 1_000_000
    # 33 pairs: static two-line labels, the angle in the hover
    many = build("rope_clock", dim=66, show_angles=True, pairs="all")
    assert list(many.frames[0].traces) == [2, 3, 4]
    assert many.data[1].text[32] == "i=32" and many.data[5].text[32] == f"λ={rope.wavelengths(66, 1e4)[32]:.3g}"


def test_clock_position_slider_is_light():
    """The slider labels every 12th step and has no current-value box: the status line shows m."""
    fig = build("rope_clock", dim=64, m_max=48.0, n_frames=49)
    slider = fig.layout.sliders[0]
    assert slider.currentvalue.visible is False
    labels = {s.value: s.label for s in slider.steps}
    assert list(labels) == [str(f) for f in range(0, 49, 2)]  # 49 frames: a stop at every 2nd frame
    assert {v: x for v, x in labels.items() if x} == {"0": "0", "12": "12", "24": "24", "36": "36", "48": "48"}
    assert ft(fig, 12, 4).text[0].startswith("m = 12:")  # the position the slider no longer prints
    default = build("rope_clock")  # 31 frames, one token apart: every 10th step is labelled, the last one too
    assert [s.label for s in default.layout.sliders[0].steps if s.label] == ["0", "10", "20", "30"]
    assert len(default.frames) == 31 >= 30


def test_clock_layout_and_subsets():
    q, _ = rope.sample_qk(8, 3)
    for layout in ("interleaved", "half"):
        fig = build("rope_clock", dim=8, preset="random", seed=3, layout=layout)
        u, v = rope.pair_channels(8, layout)[2]
        tip = np.array([fig.data[3].x[2] - fig.data[1].x[2], fig.data[3].y[2] - fig.data[1].y[2] - rf.LABEL_DY[0]])
        np.testing.assert_allclose(tip, np.array([q[u], q[v]]) / math.hypot(q[u], q[v]), atol=1e-6)
    assert len(build("rope_clock", dim=256, pairs="ends").data[3].x) == 16
    # the default: 16 pairs from the fastest to the slowest, every pair up to d = 32
    spread = rf._pair_subset(128, "spread")
    assert spread.size == rf.SPREAD_PAIRS and spread[0] == 0 and spread[-1] == 127
    assert np.all(np.diff(spread) >= 8) and np.all(np.diff(spread) <= 9)  # evenly spaced
    assert len(build("rope_clock", dim=256).data[3].x) == 16
    assert len(build("rope_clock", dim=32).data[3].x) == 16
    assert len(build("rope_clock", dim=20).data[3].x) == 10
    assert len(build("rope_clock", dim=256, pairs="stride4").data[3].x) == 32


# ---------------------------------------------------------------------------- tables

def test_angle_heatmap_values_and_stride():
    fig = build("rope_angle_heatmap", dim=16, base=100.0, n_positions=50)
    hm = fig.data[0]
    z = np.asarray(hm.z)
    assert z.shape == (8, 50)
    assert hm.colorscale == build("rope_angle_heatmap").data[0].colorscale
    assert hm.zmin == 0 and hm.zmax == pytest.approx(2 * math.pi)
    assert z[1, 7] == pytest.approx((7 * 100 ** (-2 / 16)) % (2 * math.pi), abs=1e-5)
    assert z[0, 7] == pytest.approx(7 % (2 * math.pi), abs=1e-5)
    big = build("rope_angle_heatmap", dim=256, n_positions=8192)
    zb = np.asarray(big.data[0].z)
    assert zb.size <= rf.MAX_HEATMAP_CELLS and "shown" in big.layout.title.text
    step = big.data[0].x[1] - big.data[0].x[0]
    assert zb[0, 1] == pytest.approx(step % (2 * math.pi), abs=1e-4)


def test_cos_sin_tables_in_both_layouts():
    fig = build("rope_cos_sin_tables", dim=8, base=10.0, n_positions=5)
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    il_cos, il_sin, half_cos, _ = (np.asarray(t.z) for t in fig.data)
    theta = rope.inv_freq(8, 10.0)
    for i in range(4):
        assert il_cos[3, 2 * i] == pytest.approx(math.cos(3 * theta[i]), abs=1e-6)
        assert il_cos[3, 2 * i + 1] == pytest.approx(math.cos(3 * theta[i]), abs=1e-6)
        assert il_sin[3, 2 * i + 1] == pytest.approx(math.sin(3 * theta[i]), abs=1e-6)
        assert half_cos[3, i] == half_cos[3, i + 4] == pytest.approx(math.cos(3 * theta[i]), abs=1e-6)
    big = build("rope_cos_sin_tables", dim=256, n_positions=8192)
    assert sum(np.asarray(t.z).size for t in big.data) <= rf.MAX_HEATMAP_CELLS
    assert "first 64 of 8192" in big.layout.title.text
    assert np.asarray(big.data[0].z).shape == (64, 256)


# ---------------------------------------------------------------------------- scores

def test_score_grid_diagonals_mixed_and_swap():
    good = np.asarray(build("rope_score_grid", dim=16, n_positions=40).data[0].z, dtype=np.float64)
    for off in (-5, 0, 9):
        assert np.ptp(np.diagonal(good, off)) < 1e-4
    mixed = np.asarray(build("rope_score_grid", dim=16, n_positions=40, layout="mixed").data[0].z)
    assert np.ptp(np.diagonal(mixed, -3)) > 0.1
    swapped = np.asarray(build("rope_score_grid", dim=16, n_positions=40, swap=True).data[0].z)
    np.testing.assert_allclose(swapped, good.T, atol=1e-5)
    q, k = rope.sample_qk(16, 0)
    assert good[5, 2] == pytest.approx(rope.score(q, k, 5, 2), abs=1e-4)
    big = build("rope_score_grid", n_positions=8192)
    assert np.asarray(big.data[0].z).shape == (rf.MAX_GRID_POSITIONS, rf.MAX_GRID_POSITIONS)
    assert big.data[0].meta == "diverging" and big.data[0].zmid == 0


def test_rope_tells_left_from_right_sinusoidal_does_not():
    fig = build("rope_vs_sinusoidal", dim=32, max_offset=20)
    x = np.asarray(fig.data[0].x)
    rope_y, mirror, sin_y = (np.asarray(t.y, dtype=np.float64) for t in fig.data)
    assert x[0] == -20 and x[-1] == 20
    np.testing.assert_allclose(sin_y, sin_y[::-1], atol=1e-4)
    np.testing.assert_allclose(mirror, rope_y[::-1], atol=1e-4)
    assert np.abs(rope_y - rope_y[::-1]).max() > 0.5
    assert sin_y[20] == pytest.approx(16.0)


def test_norms_layouts():
    fig = build("rope_norms", dim=16, n_positions=100)
    il, half, mixed = (np.asarray(t.y, dtype=np.float64) for t in fig.data)
    assert np.abs(il - 1).max() < 1e-6 and np.abs(half - 1).max() < 1e-6
    assert np.abs(mixed - 1).max() > 1e-2


def test_pairing_diagram_shows_the_permutation():
    fig = build("rope_pairing", dim=8)
    perm = fig.data[0]
    x = np.asarray(perm.x, dtype=np.float64).reshape(-1, 3)
    assert x[:, 0].tolist() == rope.deinterleave_permutation(8).tolist()  # top end: interleaved channel P[j]
    assert x[:, 1].tolist() == list(range(8))  # bottom end: half-split channel j
    half = next(t for t in fig.data if t.name == "half-split channel")
    assert np.asarray(half.customdata)[:, 0].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_decay_curves():
    fig = build("rope_decay", dim=128, max_delta=2000)
    b, c, r = (np.asarray(t.y, dtype=np.float64) for t in fig.data)
    assert b[0] == pytest.approx(32.5) and b[1] == pytest.approx(31.54, abs=0.01)
    assert b[100] == pytest.approx(10.23, abs=0.01)
    assert c[0] == pytest.approx(64) and c.min() == pytest.approx(-1.82, abs=0.01)
    assert np.abs(r).max() < 5 * math.sqrt(128 / 512)
    assert "-1.82" in fig.layout.annotations[0].text


def test_frequency_ladder_and_claim():
    plain = build("rope_frequency_ladder", dim=16, n_positions=100)
    claim = build("rope_frequency_ladder", dim=16, n_positions=100, show_claim=True)
    assert len(claim.data) == len(plain.data) + 1
    theta = np.asarray(plain.data[0].y)
    assert theta[0] == 1.0 and (np.diff(theta) < 0).all()
    np.testing.assert_allclose(np.asarray(claim.data[1].y), theta[::-1])
    colors = list(plain.data[1].marker.color)
    lam = rope.wavelengths(16)
    assert [c == rf.COLORS[3] for c in colors] == (lam > 100).tolist()


def test_float32_error_curve():
    fig = build("rope_float32_error", dim=128, max_position=1_000_000)
    x, y = np.asarray(fig.data[0].x, dtype=np.float64), np.asarray(fig.data[0].y, dtype=np.float64)
    assert x[0] == 1 and x[-1] == pytest.approx(1e6)
    assert y[x <= 100].max() < 1e-5
    assert y[(x > 5e4) & (x < 2e5)].max() > 2e-3


@pytest.mark.parametrize("name,params,word", [
    ("rope_clock", dict(n_frames=10), "n_frames"),
    ("rope_clock", dict(pairs="some"), "pairs"),
    ("rope_clock", dict(m_max=float("nan")), "m_max"),
    ("rope_clock", dict(dim=7), "dim"),
    ("rope_angle_heatmap", dict(n_positions=0), "n_positions"),
    ("rope_score_grid", dict(layout="diagonal"), "layout"),
    ("rope_decay", dict(max_delta=10**6), "max_delta"),
    ("rope_float32_error", dict(base=0.5), "base"),
    ("rope_pairing", dict(dim=-2), "dim"),
])
def test_bad_parameters_name_themselves(name, params, word):
    with pytest.raises(ValueError, match=word):
        build(name, **params)


# ---------------------------------------------------------------------------- hostile-input fuzz (issue 10)

junk = st.one_of(
    st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4), st.none(),
    st.booleans(), st.just(10**400), st.sampled_from(["interleaved", "half", "mixed", "ones", "all", "ends"]),
)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_builders(name, data):
    """Any value for any one parameter: a figure, or a ValueError that names that parameter."""
    params = FIGURES[name].defaults()
    key = data.draw(st.sampled_from(sorted(params)), label="parameter")
    value = data.draw(junk, label="value")
    try:
        fig = build(name, **{key: value})
    except ValueError as e:
        assert key in str(e) or (key == "dim" and "d_model" in str(e)), (key, str(e))
    else:
        assert len(fig.data) > 0


@pytest.mark.parametrize("name", NAMES)
def test_data_exports(name):
    """CSV and JSON carry the plotted numbers; HTML embeds the figure (images are the export layer's tests)."""
    csv = export.export_figure(name, {}, "csv").decode()
    assert csv.count("\n") > 5
    assert export.export_figure(name, {}, "json").startswith(b"{")
    assert b"plotly" in export.export_figure(name, {}, "html")[:5000].lower()
    assert ("gif" in export.formats_for(name)) == (name in ANIMATED)
