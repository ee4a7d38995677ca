"""Figures of the distance-bias lesson: the plotted data checked against posviz.bias, axis titles and
colour bars present, sizes bounded, bad parameters named."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import bias as b
from posviz.figures import bias as fb
from posviz.figures._common import compact_number
from posviz.figures._registry import FIGURES, build

NAMES = fb.__all__
KB = 1000


def arr(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def by_name(fig: go.Figure, start: str):
    hits = [t for t in fig.data if (t.name or "").startswith(start)]
    assert len(hits) == 1, (start, [t.name for t in fig.data])
    return hits[0]


def member(fig: go.Figure, name: str):
    hits = [t for t in fig.data if t.legendgroup == name]
    assert len(hits) == 1, (name, [t.legendgroup for t in fig.data])
    return hits[0]


def axis_titles(fig: go.Figure) -> list[str]:
    lay = fig.layout.to_plotly_json()
    return [lay[k]["title"]["text"] for k in lay if re.fullmatch(r"[xy]axis\d*", k)]


@pytest.mark.parametrize("name", NAMES)
def test_registered_keyword_only_with_defaults_and_titled_axes(name):
    spec = FIGURES[name]
    for p in inspect.signature(spec.builder).parameters.values():
        assert p.kind is p.KEYWORD_ONLY and p.default is not p.empty
        assert type(p.default) in (int, float, str, bool)
    fig = build(name)
    titles = axis_titles(fig)
    assert titles and all(t.strip() for t in titles), titles
    assert len(fig.to_json()) < 500 * KB


LARGEST = {
    "bias_distance": dict(span=fb.MAX_SPAN, n_heads=b.MAX_HEADS // 16, head=63),
    "bias_attention": dict(T=b.MAX_ATTENTION_T, d=256, log_y=True),
    "bias_heatmap": dict(T=fb.MAX_HEATMAP_T, member="gaussian_log"),
    "bias_rotation_vs_bias": dict(span=fb.MAX_SPAN, d=256, n_samples=4096),
    "bias_nope": dict(T=b.MAX_ATTENTION_T, d=1024),
    "bias_t5_buckets": dict(span=fb.MAX_SPAN, num_buckets=1024, max_distance=4000),
    "bias_alibi_slopes": dict(n_heads=b.MAX_HEADS),
    "bias_alibi_bloom": dict(T=fb.MAX_SPAN, query=fb.MAX_SPAN - 1, n_heads=64, head=63),
}


@pytest.mark.parametrize("name", NAMES)
def test_largest_settings_stay_under_2mb(name):
    assert len(build(name, **LARGEST[name]).to_json()) < 2000 * KB


def test_distance_chart_is_every_member_and_every_alibi_head():
    kw = dict(span=90, n_heads=6, head=4, t5_shape="seeded", log_r1=2.0, pow_r2=1.5, sigma2=9.0)
    fig = build("bias_distance", **kw)
    fam = b.Family.of(**kw)
    d = np.arange(91)
    for m in b.BIASES:
        trace = member(fig, m)
        np.testing.assert_allclose(arr(trace.y), b.distance_bias(m, d, fam), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(arr(trace.x), d)
    faint = by_name(fig, "ALiBi, the other 5 heads")
    ends = arr(faint.y).reshape(5, 3)  # (d = 0, d = 90, gap) per head
    slopes = b.alibi_slopes(6)
    np.testing.assert_allclose(-ends[:, 1] / 90, np.delete(slopes, 4), rtol=1e-6)
    assert (ends[:, 0] == 0).all() and np.isnan(ends[:, 2]).all()
    np.testing.assert_array_equal(arr(faint.customdata).reshape(5, 3)[:, 0], [0, 1, 2, 3, 5])
    assert not any("other" in t.name for t in build("bias_distance", n_heads=1).data)
    assert member(fig, "t5").line.shape == "hv"
    assert fig.layout.yaxis.range[0] == -20.0


def test_distance_chart_names_the_parameters_it_draws():
    fig = build("bias_distance", n_heads=4, head=1, log_r1=1.5, log_r2=0.25)
    assert by_name(fig, "ALiBi head 1").name.endswith("−0.0625·Δ")
    assert by_name(fig, "KERPLE log").name == "KERPLE log −1.5·log(1 + 0.25·Δ)"


def test_attention_chart_every_member_on_one_softmax_with_reach_in_the_legend():
    fam = b.Family(content_scale=0.5, seed=3, t5_shape="seeded")  # the figures' default T5 table
    fig = build("bias_attention", T=100, content_scale=0.5, seed=3, mass=0.8)
    assert len(fig.data) == len(b.MEMBERS)
    for m in b.MEMBERS:
        trace = member(fig, m)
        w = b.attention_row(m, 100, fam)
        np.testing.assert_allclose(arr(trace.y), w, rtol=1e-6, atol=1e-9)
        assert arr(trace.y).sum() == pytest.approx(1.0, abs=1e-5)
        assert trace.name.endswith(f"80% within Δ ≤ {b.reach(w, 0.8)}")
        np.testing.assert_array_equal(arr(trace.x), np.arange(99, -1, -1))
    assert "i = 99" in fig.layout.title.text


def test_attention_chart_groups():
    fig = build("bias_attention", group="gaussian")
    assert [t.legendgroup for t in fig.data] == ["nope", "gaussian_log", "gaussian_mul"]
    assert [t.legendgroup for t in build("bias_attention", group="biases").data] == list(b.BIASES)


def test_attention_chart_log_axis():
    assert build("bias_attention", log_y=True).layout.yaxis.type == "log"
    assert build("bias_attention").layout.yaxis.type in (None, "linear", "-")


@pytest.mark.parametrize("name", b.BIASES)
def test_heatmap_shows_the_bias_below_the_diagonal_and_the_mask_above(name):
    fig = build("bias_heatmap", member=name, T=30, t5_shape="seeded")
    bias, mask = fig.data
    z = b.bias_matrix(name, 30, b.Family(t5_shape="seeded"))
    low = np.tril(np.ones((30, 30), bool))
    np.testing.assert_allclose(arr(bias.z)[low], z[low], rtol=1e-6, atol=1e-6)
    assert np.isnan(arr(bias.z)[~low]).all()
    assert (arr(mask.z)[~low] == 1).all() and np.isnan(arr(mask.z)[low]).all()
    assert mask.showscale is False and bias.colorbar.title.text == "bias (nats)"


def test_heatmap_colour_scale_follows_the_sign_of_the_data():
    one_sign = build("bias_heatmap", member="alibi").data[0]
    assert one_sign.colorscale[0][1] != one_sign.colorscale[-1][1] and one_sign.zmid is None
    assert one_sign.zmax == 0 and one_sign.zmin == pytest.approx(-0.5 * 47)
    two_signs = build("bias_heatmap", member="t5", t5_shape="seeded").data[0]
    assert two_signs.zmid == 0 and two_signs.meta == "diverging" and two_signs.zmin == -two_signs.zmax


def test_rotation_vs_bias_panels():
    fig = build("bias_rotation_vs_bias", span=64, d=32, seed=2, n_samples=256)
    prof = b.rope_profile(64, 32, 10000.0, 2, 256)
    for start, key in (("one seeded", "seeded"), ("q = k = all ones", "ones"), ("mean over", "mean")):
        trace = by_name(fig, start)
        np.testing.assert_allclose(arr(trace.y), prof[key], rtol=1e-6, atol=1e-6)
        assert trace.xaxis in (None, "x")
    right = [t for t in fig.data if t.xaxis == "x2"]
    assert len(right) == len(b.BIASES) - 1  # every bias but NoPE's zero line
    kerple = member(fig, "kerple_power")
    np.testing.assert_allclose(arr(kerple.y), b.kerple(np.arange(65), 0.5, 0.5, "power"), rtol=1e-6)


def test_nope_chart():
    fig = build("bias_nope", T=50, d=64, seed=1)
    sig = b.nope_signals(50, 64, 1)
    np.testing.assert_allclose(arr(fig.data[0].y), 1 / np.arange(1, 51), rtol=1e-6)
    np.testing.assert_allclose(arr(fig.data[1].y), sig["variance"], rtol=1e-6)
    err = np.abs(sig["recovered"] - np.arange(50)).max()
    assert f"largest error {err:.1e}" in fig.layout.title.text


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bucket_chart(bidirectional):
    """The chart's x is the lesson's distance Δ = i − j (a key before the query at Δ > 0), T5's own argument
    being j − i = −Δ: the causal buckets lie on the right, where the family's curves are drawn."""
    fig = build("bias_t5_buckets", num_buckets=16, max_distance=40, bidirectional=bidirectional, span=60)
    delta = np.arange(-60, 61)
    y = b.t5_bucket(-delta, bidirectional, 16, 40)
    np.testing.assert_array_equal(arr(fig.data[0].x), delta)
    np.testing.assert_array_equal(arr(fig.data[0].y), y)
    assert "Δ = i − j" in fig.layout.xaxis.title.text and "j − i" not in fig.layout.xaxis.title.text
    assert f"{np.unique(y).size} of 16 used for Δ = i − j" in fig.layout.title.text
    xs = sorted(s.x0 for s in fig.layout.shapes)
    assert xs == ([-40, -4, 4, 40] if bidirectional else [8, 40])
    if not bidirectional:  # keys after the query (Δ < 0) all share bucket 0; the buckets grow to the right
        assert (arr(fig.data[0].y)[delta <= 0] == 0).all() and arr(fig.data[0].y)[-1] == 15


def test_alibi_slopes_chart():
    fig = build("bias_alibi_slopes", n_heads=12)
    first, extra = fig.data
    np.testing.assert_allclose(np.concatenate([arr(first.y), arr(extra.y)]), b.alibi_slopes(12))
    np.testing.assert_array_equal(arr(extra.x), [8, 9, 10, 11])
    # the legend counts heads as the x axis does, from 0: head h has slope 2^(−8(h+1)/8)
    assert first.name == "2^(−8(h+1)/8), h = 0..7"
    np.testing.assert_allclose(arr(first.y), 2.0 ** (-8 * (arr(first.x) + 1) / 8))
    assert fig.layout.yaxis.ticktext[3] == "2^−3" and fig.layout.yaxis.tickvals[3] == 0.125
    assert len(build("bias_alibi_slopes", n_heads=16).data) == 1


@pytest.mark.parametrize("masked", [False, True])
def test_alibi_bloom_chart(masked):
    fig = build("bias_alibi_bloom", masked=masked, T=30, query=12, n_heads=4, head=1)
    ours, bloom = (arr(t.y) for t in fig.data)
    j = np.arange(30)
    np.testing.assert_allclose(ours[:13], -(12 - j[:13]) / 16, rtol=1e-6)
    assert np.isnan(ours[13:]).all()
    np.testing.assert_allclose(bloom[:13], j[:13] / 16, rtol=1e-6)
    np.testing.assert_allclose(bloom[:13] - ours[:13], 12 / 16, rtol=1e-6)  # one constant per query row
    assert np.isnan(bloom[13:]).all() == masked and (masked or bloom[-1] == pytest.approx(29 / 16))
    assert ("m·i = 0.75" in fig.layout.title.text) == masked


@pytest.mark.parametrize(("name", "params", "word"), [
    ("bias_alibi_bloom", dict(query=40, T=40), "query"),
    ("bias_alibi_bloom", dict(masked="no"), "masked"),
    ("bias_distance", dict(span=0), "span"),
    ("bias_distance", dict(y_floor=1.0), "y_floor"),
    ("bias_distance", dict(head=8), "head"),
    ("bias_attention", dict(T=1), "T"),
    ("bias_attention", dict(mass=0.0), "mass"),
    ("bias_attention", dict(group="rope"), "group"),
    ("bias_heatmap", dict(member="rope"), "member"),
    ("bias_heatmap", dict(T=257), "T"),
    ("bias_rotation_vs_bias", dict(d=3), "d"),
    ("bias_nope", dict(d=0), "d"),
    ("bias_t5_buckets", dict(num_buckets=3), "num_buckets"),
    ("bias_t5_buckets", dict(max_distance=4), "max_distance"),
    ("bias_alibi_slopes", dict(n_heads=0), "n_heads"),
])
def test_bad_parameters_raise_value_error_naming_them(name, params, word):
    with pytest.raises(ValueError, match=word):
        build(name, **params)


@pytest.mark.parametrize("name", ["bias_distance", "bias_attention", "bias_rotation_vs_bias"])
def test_t5_is_not_drawn_on_kerple_log_by_default(name):
    """T5 learns one free number per bucket (and head): by default its table is seeded, untrained, so its
    staircase is not drawn exactly on KERPLE log (with t5_shape="kerple_log" every step sits on that curve, and
    students learnt "T5 = KERPLE log")."""
    fig, same = build(name), build(name, t5_shape="kerple_log")
    t5, kerple = member(fig, "t5"), member(fig, "kerple_log")
    gap = np.abs(arr(t5.y) - arr(kerple.y)).max()
    assert gap > (0.05 if name == "bias_attention" else 0.5)  # weights there, biases (nats) elsewhere
    if name != "bias_attention":  # its legend gives each member's reach instead
        assert "seeded N(0, 1²) values, untrained" in t5.name and "values = " in member(same, "t5").name


def test_attention_log_axis_is_not_squeezed_by_the_steepest_member():
    """On the log axis ALiBi's steepest head falls to ~10⁻²⁹ and squeezed every other member into the top band:
    the axis spans LOG_DECADES powers of ten below the largest weight, and the members that fall further are
    named, with how low they go."""
    fig = build("bias_attention", log_y=True)
    top = max(float(arr(t.y).max()) for t in fig.data)
    lo, hi = fig.layout.yaxis.range
    assert hi == pytest.approx(math.log10(top) + 0.1)
    assert lo == pytest.approx(math.log10(top) - fb.LOG_DECADES - 0.05)
    alibi = float(arr(member(fig, "alibi").y).min())
    assert alibi < 1e-20 and math.log10(alibi) < lo  # below the axis...
    note = fig.layout.annotations[0].text
    assert note.startswith("below the axis:<br>ALiBi head 0") and compact_number(alibi) in note  # ...and said so
    kerple = arr(member(fig, "kerple_log").y)
    assert math.log10(float(kerple.min())) > lo  # the others keep the whole axis
    assert build("bias_attention", log_y=False).layout.annotations == ()
