"""Figures of the context-extension lesson: data, not just that they ran; JSON size limits."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.io as pio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz import scaling as sc
from posviz import theme
from posviz.figures import FIGURES, build
from posviz.figures import scaling as fs
from posviz.rope import inv_freq
from posviz.theme import style

NAMES = ["scaling_wavelengths", "scaling_ratio", "scaling_unseen", "scaling_yarn_ramp", "scaling_temperature",
         "scaling_entropy", "scaling_dynamic", "scaling_score", "scaling_config", "scaling_pitfall"]
EXTREME = dict(dim=256, base=1e7, factor=128.0, original_len=131072)
KB = 1024


def _params(name: str, **values) -> dict:
    known = FIGURES[name].defaults()
    return {k: v for k, v in values.items() if k in known}


def _size(fig) -> int:
    return len(pio.to_json(fig, validate=False))


def _arr(v) -> np.ndarray:
    return np.asarray(v, dtype=float)


def _by_name(fig, start: str):
    return [t for t in fig.data if t.name and t.name.startswith(start)]


def test_all_registered_and_exported():
    assert set(NAMES) <= set(FIGURES)
    assert {FIGURES[n].builder.__name__ for n in NAMES} == set(fs.__all__)
    assert FIGURES["scaling_dynamic"].animated


@pytest.mark.parametrize("name", NAMES)
def test_defaults_small_and_finite(name):
    fig = build(name)
    assert _size(fig) < 500 * KB
    assert fig.layout.template.layout.font.family != theme.FONT  # no posviz template baked in
    assert style(fig, "dark").layout.template.layout.paper_bgcolor == "#0f1117"
    for t in fig.data:
        if t.y is not None and len(t.y) and not isinstance(t.y[0], str):
            assert np.all(np.isfinite(_arr(t.y))), (name, t.name)


@pytest.mark.parametrize("name", NAMES)
def test_extremes_small(name):
    # (speed is a benchmark's job, not a test's: no wall-clock assert here)
    fig = build(name, **_params(name, **EXTREME))
    assert _size(fig) < 2048 * KB


@pytest.mark.parametrize("name", ["scaling_wavelengths", "scaling_ratio", "scaling_yarn_ramp", "scaling_dynamic"])
def test_per_pair_markers_only_while_few_pairs(name):
    """One marker per pair up to d = 64; above, lines only (hundreds of SVG markers per slider move)."""
    def modes(dim: int) -> set[str]:
        fig = build(name, dim=dim)
        return {t.mode for t in fig.data if t.x is not None and len(t.x) == dim // 2 and t.mode}

    assert "lines+markers" in modes(64)
    assert modes(66) and all("markers" not in m for m in modes(66))
    wide = build(name, dim=256)
    assert sum(len(t.x) for t in wide.data if t.mode and "markers" in t.mode) < 10  # at most a few marks


def test_wavelengths_data():
    fig = build("scaling_wavelengths", methods="default,linear,ntk", dim=64, base=1e4, factor=8, original_len=2048)
    lam0 = 2 * np.pi / inv_freq(64, 1e4)
    assert len(fig.data) == 3 and {t.yaxis for t in fig.data} <= {None, "y"}  # one panel, a curve per method
    wl = {t.name: _arr(t.y) for t in fig.data}
    np.testing.assert_allclose(wl["RoPE (no scaling)"], lam0, rtol=1e-6)
    np.testing.assert_allclose(wl["PI / linear"], 8 * lam0, rtol=1e-6)
    ntk = wl["NTK-aware (static)"]
    assert ntk[0] == pytest.approx(lam0[0], rel=1e-6) and ntk[-1] == pytest.approx(8 * lam0[-1], rel=1e-6)
    freq = build("scaling_wavelengths", methods="default,linear,ntk", dim=64, base=1e4, factor=8, original_len=2048,
                 curve="frequency")
    assert len(freq.data) == 3 and freq.layout.title.text.startswith("Per-pair frequencies")
    np.testing.assert_allclose(_arr(freq.data[0].y), inv_freq(64, 1e4), rtol=1e-6)
    np.testing.assert_allclose(_arr(freq.data[1].y) * _arr(wl["PI / linear"]), 2 * np.pi, rtol=1e-6)  # θ' = 2π/λ'
    # the frequency view marks 2π/L and 2π/L' where the wavelength view marks L and L'
    assert sorted(s.y0 for s in freq.layout.shapes if s.type == "line") == pytest.approx(
        [2 * np.pi / 16384, 2 * np.pi / 2048])
    # L and L' lines and the shaded region of pairs with wavelength > L
    ys = sorted(s.y0 for s in fig.layout.shapes if s.type == "line")
    assert 2048 in ys and 16384 in ys
    rect = [s for s in fig.layout.shapes if s.type == "rect"]
    first_long = int(np.nonzero(lam0 > 2048)[0][0])
    assert rect and rect[0].x0 == first_long - 0.5


def test_ratio_marks_yarn_and_llama3():
    fig = build("scaling_ratio", methods="linear,yarn,llama3", dim=64, base=1e4, factor=16, original_len=2048)
    lin = _arr(_by_name(fig, "PI")[0].y)
    assert np.allclose(lin, 16)
    yarn = _arr(_by_name(fig, "YaRN")[0].y)
    assert yarn[:8] == pytest.approx(np.ones(8)) and yarn[21:] == pytest.approx(16 * np.ones(11), rel=1e-6)
    assert "A = 1.277" in _by_name(fig, "YaRN")[0].name
    vlines = sorted(s.x0 for s in fig.layout.shapes if s.type == "line" and s.x0 == s.x1)
    assert vlines == [8.0, 21.0]
    assert any(s.type == "rect" for s in fig.layout.shapes)  # Llama 3 blend band


def test_unseen_flags_match_math():
    fig = build("scaling_unseen", methods="default,linear,yarn", dim=64, base=1e4, factor=8, original_len=4096)
    flagged_default = _by_name(fig, "RoPE (no scaling): unseen")
    theta = inv_freq(64, 1e4)
    _, _, flag = sc.unseen_angles(64, 1e4, 8, 4096, theta)
    assert flagged_default and np.array_equal(_arr(flagged_default[0].x), np.nonzero(flag)[0])
    assert not _by_name(fig, "PI / linear: unseen")  # PI never leaves the training arc
    train = _by_name(fig, "training")[0]
    np.testing.assert_allclose(_arr(train.y), 4096 * theta, rtol=1e-6)


def test_yarn_ramp_code_vs_paper():
    code = build("scaling_yarn_ramp", dim=64, base=1e4, original_len=2048, ramp="code")
    ys = {t.legendgroup: _arr(t.y) for t in code.data}
    np.testing.assert_allclose(ys["code"], sc.yarn_extrapolation_weight(64, 1e4, 2048), rtol=1e-6)
    np.testing.assert_allclose(ys["paper"], sc.yarn_extrapolation_weight(64, 1e4, 2048, ramp="paper"), rtol=1e-5)
    assert code.data[0].line.width == 3 and "code" in code.layout.title.text
    paper = build("scaling_yarn_ramp", ramp="paper")
    widths = {t.legendgroup: t.line.width for t in paper.data}
    assert widths["paper"] == 3 and widths["code"] == 1.5
    # r axis is the rotation count
    r_trace = [t for t in code.data if t.xaxis == "x2"][0]
    np.testing.assert_allclose(_arr(r_trace.x), sc.rotations(64, 1e4, 2048), rtol=1e-6)


@pytest.mark.parametrize(("dim", "beta_fast", "beta_slow", "truncate"),
                         [(128, 32.0, 1.0, True), (128, 8.0, 1.0, True), (64, 64.0, 2.0, False), (256, 4.0, 0.5, True)])
def test_yarn_ramp_labels_sit_beside_the_line_where_every_curve_is_flat(dim, beta_fast, beta_slow, truncate):
    """Each of the four line labels (low, high, α, β) is on the side of its line where both ramps are flat at the
    other end of the axis, so no curve runs through the text whatever the settings: left of low at the bottom
    (weights 1), right of high at the top (0), left of α at the top (0), right of β at the bottom (1)."""
    fig = build("scaling_yarn_ramp", dim=dim, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate)
    labels = {a.text.split(" = ")[0]: a for a in fig.layout.annotations if a.xref in ("x", "x2")}  # not titles
    assert set(labels) >= {"α", "β"}
    for name, label in labels.items():
        axis = "x" if name in ("low", "high") else "x2"
        line = 10 ** label.x if axis == "x2" else label.x
        left, top = label.xanchor == "right", label.yanchor == "top"
        for t in (t for t in fig.data if t.xaxis == axis):
            x, w = _arr(t.x), _arr(t.y)
            beside = w[x < line] if left else w[x > line]
            assert beside.size, (name, "no curve beside the label: the test would prove nothing")
            np.testing.assert_array_equal(beside, np.zeros_like(beside) if top else np.ones_like(beside), err_msg=name)


def test_temperature_curves():
    fig = build("scaling_temperature", factor=40, mscale=0.707, mscale_all_dim=0.707)
    names = [t.name for t in fig.data]
    assert len(fig.data) == 5 and any("DeepSeek softmax" in n for n in names)
    ds = [t for t in fig.data if t.name.startswith("DeepSeek cos/sin")][0]
    assert np.allclose(_arr(ds.y), 1.0)
    marker = fig.data[-1]
    assert _arr(marker.y)[0] == pytest.approx(0.1 * math.log(40) + 1, rel=1e-6)
    assert len(build("scaling_temperature").data) == 3  # without DeepSeek settings


def test_entropy_ordering():
    fig = build("scaling_entropy", dim=64, factor=16, original_len=1024)
    ceil, plain, no_t, with_t = (_arr(t.y) for t in fig.data)
    x = _arr(fig.data[0].x)
    assert x[0] == 16 and x[-1] == pytest.approx(16384, rel=1e-3)
    assert np.all(with_t < no_t) and np.all(no_t <= ceil + 1e-6)


def test_dynamic_frames_and_scrubber():
    fig = build("scaling_dynamic", dim=64, base=1e4, factor=4, original_len=2048, n_frames=12)
    assert 2 <= len(fig.frames) <= 12 and len(fig.layout.sliders[0].steps) == len(fig.frames)
    last = fig.frames[-1]
    length = int(last.name)
    b_hf, b_plain = _arr(last.data[0].y)
    assert b_hf == pytest.approx(sc.dynamic_base(64, 1e4, 4, 2048, length), rel=1e-9)
    assert b_plain == pytest.approx(sc.dynamic_base(64, 1e4, 1, 2048, length), rel=1e-9)
    first = fig.frames[0]
    assert int(first.name) == 2048 and np.allclose(_arr(first.data[1].y), 1.0)  # nothing moves at l = L
    # the still (before Play, in an export) is the frame nearest L' = 8192, where the base has moved
    still = fig.layout.sliders[0].active
    length = int(fig.frames[still].name)
    assert abs(math.log(length / 8192)) == min(abs(math.log(int(f.name) / 8192)) for f in fig.frames)
    assert _arr(fig.data[2].x).tolist() == [length, length]
    assert _arr(fig.data[2].y)[0] == pytest.approx(sc.dynamic_base(64, 1e4, 4, 2048, length), rel=1e-6)
    assert float(_arr(fig.data[3].y).max()) > 1.5  # not the flat line at 1 of l = L
    play = fig.layout.updatemenus[0].buttons[0]
    assert play.args[1]["frame"]["redraw"] is False


def test_score_far_bands_do_not_cover_each_other():
    """Five min..max bands on one panel overlapped, the last drawn (Llama 3) over all: each method's far band now
    has a strip of its own, stacked, none overlapping another, all on one Δ axis, the legend under the plot."""
    fig = build("scaling_score", methods="default,linear,ntk,yarn,llama3")
    strips = [fig.layout[f"yaxis{n}"].domain for n in range(2, 7)]
    assert all(a[0] > b[1] for a, b in zip(strips, strips[1:]))  # top to bottom, apart
    for n, m in zip(range(2, 7), ("default", "linear", "ntk", "yarn", "llama3")):
        own = [t for t in fig.data if t.yaxis == f"y{n}"]
        assert {t.legendgroup for t in own} == {m} and sum(t.fill == "tonexty" for t in own) == 1
    assert all(fig.layout[f"xaxis{n}"].matches == "x2" for n in range(3, 7))
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.yref == "container"


@pytest.mark.parametrize("name", ["scaling_unseen", "scaling_wavelengths", "scaling_ratio"])
def test_legend_sits_under_the_plot_not_beside_it(name):
    """A legend at the right took ~40 % of the 820 px chart's width: it is in rows under the plot, with the bottom
    margin grown by its rows, so the plot keeps the column's width."""
    fig = build(name)
    legend = fig.layout.legend
    assert legend.orientation == "h" and legend.yref == "container" and legend.y == 0
    names = [t.name for t in fig.data if t.showlegend is not False and t.name]
    columns = fs.legend_columns(names)
    assert legend.traceorder == "normal"  # grouped, a method's two entries stacked in a column of their own
    # every entry fits its column: the longest name at 7 px a character (14 px sans), its symbol beside it
    assert max(len(n) for n in names) * fs.LEGEND_CHAR + fs.LEGEND_SYMBOL <= fs.LEGEND_WIDTH / columns
    assert fig.layout.margin.b == fs.AXIS_ROOM + math.ceil(len(names) / columns) * fs.LEGEND_ROW + 8


def test_score_near_and_far():
    fig = build("scaling_score", methods="default,linear", dim=64, factor=4, original_len=1024)
    near = [t for t in fig.data if t.xaxis in (None, "x")]
    far = [t for t in fig.data if t.xaxis == "x2"]
    assert len(near) == 2 and len(far) == 3  # the first method's strip: the lowest, highest and mean of each bin
    assert len([t for t in fig.data if t.xaxis == "x3"]) == 3  # the second method's, below it
    theta = inv_freq(64, 1e4)
    np.testing.assert_allclose(_arr(near[0].y), np.cos(np.outer(np.arange(129), theta)).mean(1), atol=1e-6)
    # PI stretches the curve: its score at 4Δ equals plain RoPE's at Δ
    np.testing.assert_allclose(_arr(near[1].y)[::4], _arr(near[0].y)[:33], atol=1e-6)
    # the far panel is an envelope: bins over Δ = 0..L' = 4096, each the min..max over its integer offsets
    lo, hi = _arr(far[0].y), _arr(far[1].y)
    assert len(lo) == len(hi) == fs.ENVELOPE_BINS and far[1].fill == "tonexty" and np.all(hi >= lo)
    edges = np.linspace(0, 4097, fs.ENVELOPE_BINS + 1)
    centres, offsets = fs._envelope_offsets(4096)
    for k in (0, 700, fs.ENVELOPE_BINS - 1):
        inside = offsets[k]
        assert len(set(inside)) == len(inside) and np.all(inside == np.round(inside))  # distinct integers
        assert edges[k] <= inside.min() and inside.max() < edges[k + 1]
        direct = np.cos(np.outer(inside, theta)).mean(1)  # q = k = ones: the score is the mean of cos(Δθ_i)
        assert lo[k] == pytest.approx(direct.min(), abs=1e-6) and hi[k] == pytest.approx(direct.max(), abs=1e-6)
        assert _arr(far[2].y)[k] == pytest.approx(direct.mean(), abs=1e-6)
    wide_bins = fs._envelope_offsets(1_000_000)[1]
    assert wide_bins.shape == (fs.ENVELOPE_BINS, fs.ENVELOPE_SAMPLES)
    assert _arr(far[0].x)[-1] == pytest.approx((edges[-2] + edges[-1]) / 2 - 0.5)
    rnd = build("scaling_score", qk="random", seed=3)
    assert "seed 3" in rnd.layout.title.text


@pytest.mark.parametrize("qk", ["ones", "random"])
def test_the_score_axes_hold_still_as_d_moves_and_hold_every_curve(qk):
    """The near panel's score axis runs from 0 (or the half below the lowest score, when one is negative) to 1, the
    largest possible score; the far strips span 0..L'. Over every even d from 16 to 256 each axis holds every
    curve, and the near one moves at no more than one step in ten: a figure at a new d is then patched in with its
    axes as they were (posviz/ui/live/chart.js, patchOf), and the eye sees the curves move, not the axis."""
    ranges = []
    for d in range(16, 258, 2):
        fig = build("scaling_score", methods="default,linear,ntk,yarn,llama3", dim=d, qk=qk)
        near = np.concatenate([_arr(t.y) for t in fig.data if t.xaxis in (None, "x")])
        lo, hi = fig.layout.yaxis.range
        assert lo < near.min() and near.max() < hi == 1.05 and (lo == -0.05) == (near.min() >= 0)
        assert tuple(fig.layout.xaxis.range) == (0, 128) and tuple(fig.layout.xaxis2.range) == (0, 32768)
        assert all(tuple(fig.layout[f"xaxis{k}"].range) == (0, 32768) for k in range(3, 7))
        ranges.append((lo, hi))
    moves = sum(a != b for a, b in zip(ranges, ranges[1:]))
    assert moves <= len(ranges) // 10


def test_config_figure_from_preset_and_text():
    fig = build("scaling_config", preset="Phi-3 mini 128k (Apr 2024)")
    assert "longrope" in fig.layout.title.text and "1.19" in fig.layout.title.text
    short = [t for t in fig.data if t.name and "short" in t.name]
    assert short and len(short[0].y) == 48  # LongRoPE differs between short and long lengths
    text = '{"head_dim": 64, "rope_theta": 10000, "rope_scaling": {"type": "linear", "factor": 4}}'
    fig = build("scaling_config", config_json=text)
    scale = [t for t in fig.data if t.name and t.name.startswith("scale at")][0]
    assert np.allclose(_arr(scale.y), 4.0) and "pasted" in fig.layout.title.text
    with pytest.raises(ValueError, match="not valid JSON"):
        build("scaling_config", config_json="{oops")


@pytest.mark.parametrize("case", fs.PITFALLS)
def test_pitfalls_wrong_differs_from_right(case):
    wrong = build("scaling_pitfall", case=case, variant="wrong")
    right = build("scaling_pitfall", case=case, variant="right")
    assert wrong.layout.title.text.startswith("✗") and right.layout.title.text.startswith("✓")
    w0, r0 = _arr(wrong.data[0].y), _arr(right.data[0].y)
    if case == "beta_fast_zero":
        np.testing.assert_allclose(w0, _arr(wrong.data[1].y))          # 0 read as 32: identical
        assert not np.allclose(r0, _arr(right.data[1].y))              # an explicit value moves the ramp
    elif case == "llama3_temperature":
        np.testing.assert_allclose(r0, _arr(right.data[1].y), rtol=1e-6)  # Llama 3 == paper ramp
        assert not np.allclose(w0, r0)
    else:
        assert not np.allclose(w0, r0)


def test_pitfall_numbers():
    fc = build("scaling_pitfall", case="floor_ceil", variant="wrong")
    assert "8.034, 20.140" in fc.layout.title.text and "45%" in fc.layout.title.text
    ms = build("scaling_pitfall", case="mscale", variant="wrong")
    assert "0.815" in ms.layout.title.text and "1.631" in ms.layout.title.text
    lin = build("scaling_pitfall", case="linear", variant="wrong")
    assert np.allclose(_arr(lin.data[0].y), 1.0)


@pytest.mark.parametrize("name,bad,word", [
    ("scaling_wavelengths", dict(methods="warp"), "methods"),
    ("scaling_wavelengths", dict(dim=7), "dim"),
    ("scaling_wavelengths", dict(curve="period"), "curve"),
    ("scaling_ratio", dict(factor=0.5), "factor"),
    ("scaling_yarn_ramp", dict(ramp="sideways"), "ramp"),
    ("scaling_dynamic", dict(n_frames=1000), "n_frames"),
    ("scaling_score", dict(qk="zeros"), "qk"),
    ("scaling_pitfall", dict(case="nope"), "case"),
    ("scaling_config", dict(preset="GPT-5"), "name"),
    ("scaling_ratio", dict(methods="llama3", high_freq_factor=0.5, low_freq_factor=1.0), "high_freq_factor"),
])
def test_bad_parameters_raise_value_error(name, bad, word):
    with pytest.raises(ValueError, match=word):
        build(name, **bad)


_val = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**7), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=4), st.lists(st.floats(0.5, 70), min_size=0, max_size=40))


@settings(max_examples=120, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "su"]),
       block=st.dictionaries(st.sampled_from(["factor", "rope_theta", "original_max_position_embeddings",
                                              "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate",
                                              "low_freq_factor", "high_freq_factor", "short_factor", "long_factor",
                                              "attention_factor"]), _val, max_size=7),
       top=st.dictionaries(st.sampled_from(["head_dim", "max_position_embeddings", "rope_theta",
                                            "partial_rotary_factor", "original_max_position_embeddings"]),
                           _val, max_size=3))
def test_fuzz_pasted_config_through_the_figure(kind, block, top):
    """The paste box's path: text -> parse -> read -> compute -> figure. Only ValueError may escape."""
    text = json.dumps({"head_dim": 40, "max_position_embeddings": 4096, **top, "rope_scaling": {"type": kind, **block}})
    try:
        fig = build("scaling_config", config_json=text)
    except ValueError as e:
        assert str(e)
        return
    for t in fig.data:
        assert np.all(np.isfinite(_arr(t.y)))
    assert _size(fig) < 500 * KB


def test_ratio_and_wavelength_labels_sit_where_no_curve_runs():
    """Labels ran over curves: the Llama 3 band's and YaRN's ramp ends' labels sit just above the plot, "s = 8"
    under its line (PI's curve runs on the line itself), the long-wavelength band's label above the plot."""
    ratio = build("scaling_ratio")
    above = {a.text for a in ratio.layout.annotations if a.y == 1.0 and a.yanchor == "bottom"}
    assert {"Llama 3 band", "YaRN low = 20", "YaRN high = 46"} <= above
    s_label = next(a for a in ratio.layout.annotations if a.text == "s = 8")
    assert s_label.yanchor == "top"
    waves = build("scaling_wavelengths")
    band = next(a for a in waves.layout.annotations if a.text.startswith("λ_i > L"))
    assert (band.y, band.yanchor) == (1.0, "bottom")


# ---------------------------------------------------------------------------- what the lesson says, computed

def test_every_pitfall_case_is_drawn_by_its_own_step():
    from posviz.figures import _scaling_pitfalls as cases

    assert fs.PITFALLS == tuple(cases.CASES) == ("floor_ceil", "mscale", "linear", "inverted_bands",
                                                 "beta_fast_zero", "llama3_temperature")
    mscale = build("scaling_pitfall", case="mscale", variant="right")
    assert mscale.layout.xaxis.type == "log" and mscale.layout.yaxis.type != "log"
    assert mscale.layout.xaxis.title.text == "scale s"
    ratio = build("scaling_pitfall", case="inverted_bands", variant="wrong")
    assert ratio.layout.yaxis.type == "log" and ratio.layout.xaxis.title.text == "pair index i"


def test_key_numbers_against_the_formulas():
    from posviz.figures import scaling_prose as sp

    d, b, s, L = 64, 10000.0, 16.0, 2048
    theta = b ** (-np.arange(0, d, 2) / d)                     # independent of posviz.rope
    shown = sp.key_numbers({"d": d, "base": b, "s": s, "L": float(L), "beta_fast": 32.0, "beta_slow": 1.0,
                            "truncate": True, "mscale": 0.0, "mscale_all_dim": 0.0})
    assert shown["L' = s·L"] == "32,768"
    assert shown["pairs with λ > L"] == int((2 * np.pi / theta > L).sum())
    assert shown["NTK base b'"] == f"{b * s ** (d / (d - 2)):,.0f}"
    assert shown["YaRN cos/sin × A"] == f"{0.1 * math.log(s) + 1:.4f}"
    assert shown["logits × A²"] == f"{(0.1 * math.log(s) + 1) ** 2:.4f}"
    assert sp.key_numbers({"s": 4.0, "mscale": 0.0, "mscale_all_dim": 0.0}) == {
        "YaRN cos/sin × A": f"{0.1 * math.log(4) + 1:.4f}", "logits × A²": f"{(0.1 * math.log(4) + 1) ** 2:.4f}"}


@given(d=st.integers(4, 128).map(lambda n: 2 * n), s=st.floats(1.5, 64.0), L=st.sampled_from([256, 2048, 8192]))
@settings(max_examples=40, deadline=None)
def test_unseen_counts_pi_none_plain_rope_every_slow_pair(d, s, L):
    """PI turns no pair further than training did (L'·θ/s = L·θ); plain RoPE turns every slow pair (λ > L)
    further, so its count is the number of slow pairs."""
    from posviz.figures import scaling_prose as sp

    counts = sp.unseen_counts(methods="default,linear", dim=d, base=10000.0, factor=s, original_len=L,
                              beta_fast=32.0, beta_slow=1.0, truncate=True, low_freq_factor=1.0,
                              high_freq_factor=4.0)
    slow = int((2 * np.pi * 10000.0 ** (np.arange(0, d, 2) / d) > L).sum())
    assert counts == {"default": slow, "linear": 0}
    assert sp.unseen_tally(counts, d) == f"{sc.METHODS['default'].label}: {slow} of {d // 2}; " \
                                         f"{sc.METHODS['linear'].label}: 0 of {d // 2}"
    assert sp.unseen_counts(methods="", dim=d, base=10000.0, factor=s, original_len=L, beta_fast=32.0,
                            beta_slow=1.0, truncate=True, low_freq_factor=1.0, high_freq_factor=4.0) == {}


def test_ramp_dynamic_entropy_and_far_panel_sentences():
    from posviz.figures import scaling_prose as sp

    assert "floor(low) = 20 and ceil(high) = 46" in sp.ramp_ends(20, 46, True)
    assert "low = 20.125 and high = 45.500" in sp.ramp_ends(20.125, 45.5, False)
    said = sp.ramp_comparison(dim=128, base=10000.0, original_len=4096, beta_fast=32.0, beta_slow=1.0, truncate=True)
    w = {k: sc.yarn_extrapolation_weight(128, 10000.0, 4096, 32.0, 1.0, True, k)[33] for k in sc.RAMPS}
    assert f"pair 33 keeps weight {w['code']:.2f}" in said and f"{w['paper']:.2f} with the paper" in said
    assert sp.ramp_comparison(dim=128, base=10000.0, original_len=4096, beta_fast=1.0, beta_slow=1.0,
                              truncate=True) == ""   # no ramp: nothing to compare
    rows, said = sp.dynamic_calls(dim=64, base=10000.0, factor=1.0, original_len=2048)
    assert list(rows) == ["call 1: l = 2,048", "call 2: l = 2,048", "call 3: l = 1,024"]
    assert said == "here all three agree with the chart" and all("afresh" not in r for r in rows.values())
    rows, said = sp.dynamic_calls(dim=64, base=10000.0, factor=8.0, original_len=2048)
    assert said.startswith("calls whose base differs") and "afresh" in rows["call 2: l = 9,216"]
    assert "below" in sp.entropy_effect(1.2) and "coincide" in sp.entropy_effect(1.0)
    assert "flattens" in sp.entropy_effect(0.9)
    assert sp.far_panel(255) == "every token is drawn there"
    assert f"each bin of {32769 / fs.ENVELOPE_BINS:,.3g} tokens" in sp.far_panel(32768)


def test_pitfall_numbers_and_llama3_against_the_paper_ramp():
    from posviz.figures import scaling_prose as sp

    quoted = sp.pitfall_numbers(**sp.PITFALL_SETTING)
    assert (quoted["low"], quoted["high"]) == (8, 21)
    assert f"{quoted['wrong_low']:.3f}, {quoted['wrong_high']:.3f}" == "8.034, 20.140"
    assert f"{quoted['off']:.0%}" == "45%" and f"{quoted['logits']:.3f}" == "1.631"
    assert quoted["wrong_logits"] == pytest.approx(0.707 ** 2 * (0.1 * math.log(16) + 1) ** 2)
    assert sp.llama3_against_paper_yarn(dim=128, base=500000.0, factor=8.0, original_len=8192, low_freq_factor=1.0,
                                        high_freq_factor=4.0) < 1e-12


def test_the_evidence_sentences_from_given_losses():
    """The shares and the order are read from the losses given (no model run): a method that does worse than
    plain RoPE is said to recover none."""
    from posviz.figures import models_prose as mp

    label = {m: sc.METHODS[m].label for m in ("default", "linear", "yarn")}
    said = mp.recovered({"linear": 0.25, "yarn": 1.5, "default": 1.0}, 4.0)
    assert said.startswith("Past L at s = 4, plain RoPE is +1.00 nats above the floor.")
    assert f"{label['linear']} 75%" in said and f"{label['yarn']} none (worse than no scaling: +1.50)" in said
    assert said.endswith(f"{label['linear']} (0.25) < {label['default']} (1.00) < {label['yarn']} (1.50).")
    assert mp.recovered({"default": 1.0}, 4.0).endswith("Pick methods above to compare.")
    assert mp.recovered({"default": 1.0}, 1.0) == "At s = 1 nothing is read past L."


def test_the_schemes_sentences_from_given_losses():
    from posviz.figures import models_prose as mp
    from posviz.figures.models import LEARNED_MARGIN, SCHEME_LABELS

    at_L = {"nope": LEARNED_MARGIN + 0.5, "rope": 0.01, "alibi": 0.02}
    said = mp.schemes_prose(at_L, {"nope": 3.0, "rope": 1.2, "alibi": 0.4}, 64, 256)
    assert said.startswith(f"{SCHEME_LABELS['nope']} did not learn the task at L") and mp.NOPE_WHY in said
    assert f"farthest: {SCHEME_LABELS['alibi']} (0.40) < {SCHEME_LABELS['rope']} (1.20). " in said
    assert "NoPE (3.00)" not in said
    fair = mp.schemes_prose({"rope": 0.01}, {"rope": 0.5}, 64, 64)
    assert fair.startswith("Every scheme is within") and fair.endswith("At s = 1 nothing is read past L.")
