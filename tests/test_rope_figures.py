"""RoPE figures: the plotted numbers, the animation's frames and controls, and payload sizes."""

from __future__ import annotations

import base64
import math
import re
import tracemalloc

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import export, i18n, rope, theme
from posviz.figures import FIGURES, build
from posviz.figures import rope as rf
from posviz.figures import rope_derive as rd
from posviz.figures import rope_hands as rh
from posviz.figures import rope_scores as rs
from posviz.theme import COLORS

NAMES = sorted(name for module in (rf, rh, rd, rs) for name in module.__all__)  # the RoPE lesson's figures
LARGEST = dict(dim=256, base=1e7, n_positions=8192, max_delta=8192, m_max=8192.0, n_frames=rh.MAX_FRAMES,
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
def test_memory_at_largest_settings(name):
    tracemalloc.start()
    try:
        theme.style(build(name, **_largest(name))).to_json()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, peak


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
    fig = build("rope_clock", dim=256, n_frames=rh.MAX_FRAMES, m_max=8192.0, pairs="all")
    assert len(fig.frames) == rh.MAX_FRAMES >= 30
    assert _size(fig) < 1_000_000
    steps = fig.layout.sliders[0].steps
    # 72 frames: the slider stops at every 2nd frame and the last (a light slider), Play shows every frame
    assert [s.args[0][0] for s in steps] == [str(f) for f in range(0, rh.MAX_FRAMES, 2)] + [str(rh.MAX_FRAMES - 1)]
    assert len(steps) <= rh.MAX_SLIDER_STEPS
    assert {s.args[0][0] for s in steps} <= {f.name for f in fig.frames}
    small = build("rope_clock", n_frames=rh.MAX_SLIDER_STEPS, m_max=36.0)  # up to 37 frames: a stop per frame
    assert [s.args[0][0] for s in small.layout.sliders[0].steps] == [f.name for f in small.frames]
    play, pause = fig.layout.updatemenus[0].buttons
    assert play.method == "animate" and play.args[1]["frame"]["redraw"] is False
    assert list(pause.args[0]) == [None]
    assert set(fig.frames[0].traces) == {2, 3, 4}
    assert len(fig.data[3].x) == 128  # one tip per pair: all pairs as small multiples
    go.Figure(fig.to_plotly_json())  # frames built without validation for speed: every attribute must be valid
    dark = theme.style(build("rope_clock"), "dark").to_dict()["layout"]["template"]
    assert dark["layout"]["paper_bgcolor"] == "#0f1117"  # the theme's template really applies
    stills = list(export.frame_dicts(fig))  # what the GIF/MP4 export renders
    assert len(stills) == rh.MAX_FRAMES
    assert arr(stills[-1]["data"][3]["x"]).tolist() == arr(ft(fig, -1, 3).x).tolist()
    assert arr(stills[0]["data"][3]["x"]).tolist() != arr(stills[-1]["data"][3]["x"]).tolist()
    go.Figure(stills[-1])  # every still is a valid figure


def test_largest_clock_stays_under_the_payload_bound():
    """At d = 256 and the most frames the clock's JSON stays under 1 MB (its build time: benchmarks/)."""
    spec = theme.style(build("rope_clock", dim=256, n_frames=rh.MAX_FRAMES, m_max=512.0)).to_json()
    assert len(spec) < 1_000_000


def test_clock_hands_follow_the_rotation():
    dim, base, m_max, n = 8, 100.0, 30.0, 31
    fig = build("rope_clock", dim=dim, base=base, m_max=m_max, n_frames=n, preset="ones")
    theta = rope.inv_freq(dim, base)
    cx = np.asarray(fig.data[1].x, dtype=np.float64)  # circle centres, from the label trace
    cy = np.asarray(fig.data[1].y, dtype=np.float64) + rh.LABEL_DY[0]
    first = ft(fig, 0, 3)  # frame 0: all hands at 45°
    np.testing.assert_allclose(arr(first.x) - cx, math.cos(math.pi / 4), atol=1e-5)
    np.testing.assert_allclose(arr(first.y) - cy, math.sin(math.pi / 4), atol=1e-5)
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


def test_clock_still_is_an_informative_frame():
    """Before Play (the page's still, a PNG/SVG export) the clock shows m = m_max/3, not m = 0 where every hand
    of the "ones" query points at 45°: the fast pairs have turned past a full circle, the slow ones barely moved,
    and the slider starts at that frame."""
    dim, base, m_max, n = 16, 10000.0, 30.0, 31
    fig = build("rope_clock", dim=dim, base=base, m_max=m_max, n_frames=n)
    theta = rope.inv_freq(dim, base)
    still = rh.clock_still(n)
    assert still == 10 and fig.layout.sliders[0].active == still
    assert fig.layout.sliders[0].steps[still].args[0][0] == fig.frames[still].name
    cx = np.asarray(fig.data[1].x, dtype=np.float64)
    cy = np.asarray(fig.data[1].y, dtype=np.float64) + rh.LABEL_DY[0]
    m = 10.0
    np.testing.assert_allclose(arr(fig.data[3].x) - cx, np.cos(np.pi / 4 + m * theta), atol=1e-5)
    np.testing.assert_allclose(arr(fig.data[3].y) - cy, np.sin(np.pi / 4 + m * theta), atol=1e-5)
    angles = np.mod(np.arctan2(arr(fig.data[3].y) - cy, arr(fig.data[3].x) - cx), 2 * np.pi)
    assert np.ptp(angles) > 1.0  # the hands point different ways
    assert arr(fig.data[3].marker.color).tolist() == (m * theta >= 2 * np.pi).astype(float).tolist()
    assert fig.data[4].text[0].startswith("m = 10:")
    big = build("rope_clock", n_frames=rh.MAX_FRAMES)  # a slider stopping at every 2nd frame: the still is a stop
    assert int(big.layout.sliders[0].steps[big.layout.sliders[0].active].args[0][0]) == rh.clock_still(rh.MAX_FRAMES)


def test_clock_labels_show_the_angle_frame_by_frame():
    plain = build("rope_clock", dim=8, base=100.0, m_max=30.0, n_frames=31)  # by default: one label line
    assert len(plain.data) == 5 and list(plain.frames[0].traces) == [2, 3, 4]
    fig = build("rope_clock", dim=8, base=100.0, m_max=30.0, n_frames=31, show_angles=True)
    theta = rope.inv_freq(8, 100.0)
    assert list(fig.frames[0].traces) == [2, 3, 4, 5]  # hands, tips, status, and the angle line of the labels
    assert fig.data[1].text[1] == f"i=1, λ={2 * math.pi / theta[1]:.3g}"  # first line: pair and wavelength
    angle_line = fig.data[5]  # second line: the angle, a template filled from each frame's customdata
    assert angle_line.texttemplate == "m·θ=%{customdata:.3~g} rad"
    np.testing.assert_allclose(arr(angle_line.customdata), 10 * theta, rtol=1e-6)  # the still: m = 10
    np.testing.assert_allclose(arr(ft(fig, -1, 5).customdata), 30 * theta, rtol=1e-6)
    np.testing.assert_allclose(arr(ft(fig, 10, 5).customdata), 10 * theta, rtol=1e-6)
    assert ft(fig, 10, 5).to_plotly_json().keys() == {"type", "customdata"}  # a frame sends numbers, no text
    np.testing.assert_allclose(arr(angle_line.y) + rh.LABEL_DY[1], arr(fig.data[1].y) + rh.LABEL_DY[0])
    # 32 live labels
    big = build("rope_clock", dim=64, n_frames=rh.MAX_FRAMES, m_max=8192.0, show_angles=True, pairs="all")
    assert _size(big) < 1_000_000
    # 33 pairs: static two-line labels, the angle in the hover
    many = build("rope_clock", dim=66, show_angles=True, pairs="all")
    assert list(many.frames[0].traces) == [2, 3, 4]
    assert many.data[1].text[32] == "i=32" and many.data[5].text[32] == "λ=47.5k"  # 4.75e+04 tokens, written short
    default = build("rope_clock", dim=64)
    assert [t for t in default.data[1].text if "e+" in t] == []  # 1.49k, never 1.49e+03


def test_clock_position_slider_is_light():
    """The slider labels every 12th step and has no current-value box: the status line shows m."""
    fig = build("rope_clock", dim=64, m_max=48.0, n_frames=49)
    slider = fig.layout.sliders[0]
    assert slider.currentvalue.visible is False
    labels = {s.value: s.label for s in slider.steps}
    assert list(labels) == [str(f) for f in range(0, 49, 2)]  # 49 frames: a stop at every 2nd frame
    assert {v: x for v, x in labels.items() if x} == {"0": "0", "12": "12", "24": "24", "36": "36", "48": "48"}
    assert ft(fig, 12, 4).text[0].startswith("m = 12:")  # the position, which the slider does not print
    default = build("rope_clock")  # 31 frames, one token apart: every 10th step is labelled, the last one too
    assert [s.label for s in default.layout.sliders[0].steps if s.label] == ["0", "10", "20", "30"]
    assert len(default.frames) == 31 >= 30


def test_clock_layout_and_subsets():
    q, _ = rope.sample_qk(8, 3)
    for layout in ("interleaved", "half"):
        fig = build("rope_clock", dim=8, preset="random", seed=3, layout=layout)
        u, v = rope.pair_channels(8, layout)[2]
        m0 = ft(fig, 0, 3)  # frame 0, m = 0: the query's own direction
        tip = np.array([arr(m0.x)[2] - fig.data[1].x[2], arr(m0.y)[2] - fig.data[1].y[2] - rh.LABEL_DY[0]])
        np.testing.assert_allclose(tip, np.array([q[u], q[v]]) / math.hypot(q[u], q[v]), atol=1e-6)
    assert len(build("rope_clock", dim=256, pairs="ends").data[3].x) == 16
    # the default: 16 pairs from the fastest to the slowest, every pair up to d = 32
    spread = rh.clock_pairs(128, "spread")
    assert spread.size == rh.SPREAD_PAIRS and spread[0] == 0 and spread[-1] == 127
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
    assert np.asarray(big.data[0].z).shape == (rs.MAX_GRID_POSITIONS, rs.MAX_GRID_POSITIONS)
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
    assert [c == COLORS[3] for c in colors] == (lam > 100).tolist()


def test_float32_error_curve():
    fig = build("rope_float32_error", dim=128, max_position=1_000_000)
    x, y = np.asarray(fig.data[0].x, dtype=np.float64), np.asarray(fig.data[0].y, dtype=np.float64)
    assert x[0] == 1 and x[-1] == pytest.approx(1e6)
    assert y[x <= 100].max() < 1e-5
    assert y[(x > 5e4) & (x < 2e5)].max() > 2e-3


@pytest.mark.parametrize("dim,base", [(64, 1e4), (8, 1e4), (2, 1e4), (256, 1e7)])
def test_float32_error_curve_is_drawn_at_every_power_of_ten(dim, base):
    """The chart holds rope.float32_error at 10⁰ .. 10⁶ exactly, the numbers the pitfall quotes: 400 log-spaced
    positions alone miss 10³ and 10⁵, and the caption would quote numbers the chart does not draw."""
    fig = build("rope_float32_error", dim=dim, base=base, max_position=1_000_000)
    x, y = np.asarray(fig.data[0].x, dtype=np.float64), np.asarray(fig.data[0].y, dtype=np.float64)
    decades = 10.0 ** np.arange(7)
    at = np.searchsorted(x, decades)
    np.testing.assert_array_equal(x[at], decades)
    expected = np.maximum(rope.float32_error(decades, dim, base), 1e-12).astype(np.float32)
    np.testing.assert_array_equal(y[at], expected)
    assert np.all(np.diff(x) > 0) and x.size <= 407


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
    ("rope_left_right", dict(dim=4066), "dim"),  # within dim's range, but too many pairs beside max_offset's curve
])
def test_bad_parameters_name_themselves(name, params, word):
    with pytest.raises(ValueError, match=word):
        build(name, **params)


# ---------------------------------------------------------------------------- hostile-input fuzz

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


# ---------------------------------------------------------------------------- RoPE from first principles

def test_additive_terms_figure_plots_the_math_on_one_scale():
    fig = build("rope_additive_terms", dim=16, n_positions=20, seed=2, tokens="random")
    terms = rope.additive_score_terms(20, 16, 10000.0, 2, "random")
    assert [t.name for t in fig.data] == list(rope.ADDITIVE_TERMS)
    for trace, name in zip(fig.data, rope.ADDITIVE_TERMS, strict=True):
        np.testing.assert_allclose(np.asarray(trace.z, dtype=np.float64), terms[name], atol=1e-4)
    assert len({(t.zmin, t.zmax) for t in fig.data}) == 1  # one colour scale: sizes compare
    titles = [a.text for a in fig.layout.annotations]
    z = terms["position·position"]
    assert f"RMS {np.sqrt(np.mean(z**2)):.3g}" in titles[3]
    assert f"RMS along diagonals {rope.off_offset_residual(z):.2g}" in titles[3]
    big = build("rope_additive_terms", n_positions=rope.MAX_ADDITIVE)
    assert sum(np.asarray(t.z).size for t in big.data) <= 4 * rd.MAX_TERM_POSITIONS**2
    assert "shown" in big.layout.title.text


def test_derivation_figure_hands_and_matrix():
    fig = build("rope_derivation", dim=8, base=100.0, m=5.0, n=2.0, pair=1, seed=3)
    q, k = rope.sample_qk(8, 3)
    theta = rope.inv_freq(8, 100.0)[1]
    zq = complex(q[2], q[3])
    tip = next(t for t in fig.data if t.name == "e^(jmθ)·q, m = 5")
    expected = zq * np.exp(1j * 5 * theta) / abs(zq)
    assert (tip.x[1], tip.y[1]) == pytest.approx((expected.real, expected.imag), abs=1e-9)
    heat = next(t for t in fig.data if t.type == "heatmap")
    np.testing.assert_allclose(np.asarray(heat.z, dtype=np.float64), rope.block_rotation(5.0, 8, 100.0), atol=1e-6)
    between = rope.qk_pairs(q, k, [5.0], [2.0], 100.0)["angle"][0, 1]
    assert any(t.name == f"angle k → q = {between:.3f} rad" for t in fig.data)
    big = build("rope_derivation", dim=64)
    assert np.asarray(next(t for t in big.data if t.type == "heatmap").z).shape == (16, 16)


def test_qk_turn_hands_turn_together_and_the_score_stays():
    dim, base, m, n, c_max, frames = 8, 100.0, 5.0, 2.0, 12.0, 25
    fig = build("rope_qk_turn", dim=dim, base=base, m=m, n=n, pair=1, c_max=c_max, n_frames=frames, seed=4)
    q, k = rope.sample_qk(dim, 4)
    theta = rope.inv_freq(dim, base)
    assert len(fig.frames) == frames and list(fig.frames[0].traces) == [1, 2, 3, 5, 6, 7]
    shifts = np.linspace(0, c_max, frames)
    zq, zk = complex(q[2], q[3]), complex(k[2], k[3])
    for f in (0, 7, frames - 1):
        qx, qy = arr(ft(fig, f, 1).x)[1], arr(ft(fig, f, 1).y)[1]
        want = zq * np.exp(1j * (m + shifts[f]) * theta[1]) / abs(zq)
        assert (qx, qy) == pytest.approx((want.real, want.imag), abs=1e-5)
        kx, ky = arr(ft(fig, f, 2).x)[1], arr(ft(fig, f, 2).y)[1]
        angle = np.angle(complex(qx, qy) * np.conj(complex(kx, ky)))
        assert angle == pytest.approx(np.angle(zq * np.conj(zk) * np.exp(1j * (m - n) * theta[1])), abs=1e-5)
        status = ft(fig, f, 7).text[0]
        assert f"whole score q·k = {rope.score(q, k, m + shifts[f], n + shifts[f], base):+.4f}" in status
        assert f"c = {shifts[f]:.3g}:" in status
    texts = {ft(fig, f, 7).text[0].split("share")[1] for f in range(frames)}
    assert len(texts) == 1  # the pair's share and the whole score print the same in every frame
    small_q = arr(ft(fig, -1, 5).x).astype(np.float64).reshape(-1, 3)
    assert small_q.shape[0] == 4  # d = 8: all four pairs as small clocks
    steps = fig.layout.sliders[0].steps
    assert {s.args[0][0] for s in steps} <= {fr.name for fr in fig.frames}
    assert fig.layout.updatemenus[0].buttons[0].args[1]["frame"]["redraw"] is False
    go.Figure(fig.to_plotly_json())  # frames built without validation: every attribute must be valid
    assert len(list(export.frame_dicts(fig))) == frames
    assert len(arr(ft(build("rope_qk_turn", dim=256), 0, 5).x)) == 3 * rh.MAX_TURN_PAIRS


def test_score_grid_marks_the_quoted_cells_and_their_diagonal():
    fig = build("rope_score_grid", dim=16, n_positions=32, m=5, n=2, c=4)
    q, k = rope.sample_qk(16, 0)
    line, first, second = fig.data[1:]
    assert list(line.x) == [0, 28] and list(line.y) == [3, 31]  # m − n = 3 across the 32 positions
    assert (first.x[0], first.y[0]) == (2, 5) and (second.x[0], second.y[0]) == (6, 9)
    assert first.name == f"(m, n) = (5, 2): score {rope.score(q, k, 5, 2):.4f}"
    assert second.name == f"(m + c, n + c) = (9, 6): score {rope.score(q, k, 9, 6):.4f}"
    z = np.asarray(fig.data[0].z, dtype=np.float64)
    assert z[5, 2] == pytest.approx(z[9, 6], abs=1e-4) == pytest.approx(rope.score(q, k, 5, 2), abs=1e-4)
    swapped = build("rope_score_grid", dim=16, n_positions=32, m=5, n=2, c=4, swap=True)
    zs = np.asarray(swapped.data[0].z, dtype=np.float64)
    assert swapped.data[2].name.endswith(f"score {zs[5, 2]:.4f}")  # the mark quotes the cell it sits on
    beyond = build("rope_score_grid", n_positions=8, m=5, n=2, c=4)
    assert "(m + c, n + c) beyond the positions shown" in beyond.layout.title.text and len(beyond.data) == 3
    assert len(build("rope_score_grid").data) == 1  # no marks unless m and n are given


def test_left_right_figure_compares_like_with_like():
    fig = build("rope_left_right", dim=32, max_offset=20, c=5, seed=1)
    cur = rope.left_right_curves(32, 10000.0, 20, 5, 1)
    keys = ["rope_a", "rope_ac", "rope_same", "abs_a", "abs_ac", "abs_identity"]
    for trace, key in zip(fig.data, keys, strict=True):
        np.testing.assert_allclose(np.asarray(trace.y, dtype=np.float64), cur[key], atol=1e-4)
    assert fig.data[0].name == "RoPE, q ≠ k, query at 20" and fig.data[1].name == "RoPE, q ≠ k, query at 25"
    assert np.asarray(fig.data[0].x)[0] == -20


def test_pair_roles_figure_counts_and_floor():
    fig = build("rope_pair_roles", dim=64, scheme="p-rope", fraction=0.75, context=4096)
    names = [t.name for t in fig.data]
    assert "turns (24)" in names and "not rotated (8)" in names
    full = fig.data[0]
    np.testing.assert_allclose(np.asarray(full.y, dtype=np.float64), rope.turns_within(rope.inv_freq(64), 4096),
                               rtol=1e-6)
    zero = next(t for t in fig.data if t.name == "not rotated (8)")
    assert list(zero.x) == list(range(24, 32)) and np.ptp(np.asarray(zero.y)) == 0
    assert float(zero.y[0]) < float(np.asarray(full.y).min())  # drawn below every turning pair
    ds = build("rope_pair_roles", dim=192, scheme="decoupled", fraction=1 / 3)
    assert {t.name for t in ds.data} >= {"not rotated (64)", "under a quarter turn (4)", "turns (28)"}


def test_base_choice_marks_the_base_and_b_star():
    fig = build("rope_base_choice", dim=64, base=10000.0, train_length=4096)
    lam, _, count, here, star = fig.data
    x = np.asarray(lam.x, dtype=np.float64)
    np.testing.assert_allclose(np.asarray(lam.y, dtype=np.float64), 2 * np.pi * x ** (62 / 64), rtol=1e-5)
    j = 120
    assert count.y[j] == (rope.wavelengths(64, float(x[j])) > 4096).sum()
    assert star.x[0] == pytest.approx(rope.base_for_wavelength(64, 4096))
    assert here.name == f"b = 10000: slowest λ = {rope.wavelengths(64)[-1]:,.0f}, 9 of 32 pairs with λ_i > L"
    assert len(build("rope_base_choice", dim=2).data) == 4  # d = 2: one pair at θ = 1, no b*


@pytest.mark.parametrize("name,params,word", [
    ("rope_additive_terms", dict(tokens="few"), "tokens"),
    ("rope_additive_terms", dict(n_positions=rope.MAX_ADDITIVE + 1), "n_positions"),
    ("rope_derivation", dict(pair=4), "pair"),
    ("rope_qk_turn", dict(n_frames=1), "n_frames"),
    ("rope_qk_turn", dict(c_max=0.0), "c_max"),
    ("rope_score_grid", dict(m=-2), "m"),
    ("rope_left_right", dict(max_offset=0), "max_offset"),
    ("rope_pair_roles", dict(scheme="partial", fraction=0.4), "fraction"),
    ("rope_pair_roles", dict(scheme="nope"), "scheme"),
    ("rope_base_choice", dict(train_length=2), "train_length"),
])
def test_new_figures_name_a_bad_parameter(name, params, word):
    with pytest.raises(ValueError, match=word):
        build(name, **params)


def test_score_grid_zooms_on_the_marked_cells_of_a_large_grid():
    """At RoPE 6a's defaults (N = 256, (m, n) = (5, 2), c = 4) the two marks sat on top of each other in the
    corner of a 245 px heatmap: a second panel shows the cells around them one position per cell, the marks
    apart, each on the cell whose score it quotes, both on the same diagonal."""
    fig = build("rope_score_grid", dim=64, n_positions=256, m=5, n=2, c=4)
    q, k = rope.sample_qk(64, 0)
    zoom = next(t for t in fig.data if t.type == "heatmap" and t.xaxis == "x2")
    rows, cols = arr(zoom.y).astype(int), arr(zoom.x).astype(int)
    assert rows[0] <= 5 and rows[-1] >= 9 and cols[0] <= 2 and cols[-1] >= 6
    z = arr(zoom.z).reshape(rows.size, cols.size)
    for m, n in ((5, 2), (9, 6)):
        assert z[list(rows).index(m), list(cols).index(n)] == pytest.approx(rope.score(q, k, m, n), abs=1e-4)
    marks = [t for t in fig.data if t.xaxis == "x2" and t.type == "scatter" and t.mode == "markers"]
    assert [(t.x[0], t.y[0]) for t in marks] == [(2, 5), (6, 9)]
    # on the zoom's own scale the marks are 4 cells apart along each axis: px per cell × 4 > a mark's size
    x0, x1 = fig.layout.xaxis2.domain
    plot_px = 820 - 72 - 30  # the 820 px column less the template's side margins
    px_per_cell = (x1 - x0) * plot_px / (cols[-1] - cols[0] + 1)
    assert 4 * px_per_cell > max(t.marker.size for t in marks)
    assert fig.layout.xaxis2.range == (cols[0] - 0.5, cols[-1] + 0.5)
    assert len(build("rope_score_grid", dim=16, n_positions=32, m=5, n=2, c=4).data) == 4  # a small grid: no zoom


@pytest.mark.parametrize("name", NAMES)
def test_chinese_figures_change_words_not_numbers(name):
    """Built in Chinese, a figure's title is Chinese and every trace draws the same points as in English."""
    english = build(name)
    with i18n.using("zh"):
        chinese = build(name)
    assert re.search(r"[\u4e00-\u9fff]", chinese.layout.title.text)
    assert len(chinese.data) == len(english.data) and len(chinese.frames) == len(english.frames)
    for zh, en in zip(chinese.to_plotly_json()["data"], english.to_plotly_json()["data"], strict=True):
        for axis in ("x", "y", "z"):
            if axis not in en:
                continue
            if isinstance(en[axis], dict):  # a typed array (bytes) drawn as it is
                assert zh[axis] == en[axis]
            elif en[axis] is not None:
                np.testing.assert_array_equal(np.asarray(zh[axis], dtype=float), np.asarray(en[axis], dtype=float))
