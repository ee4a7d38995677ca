"""CoPE figures: built at defaults and extremes, checked on their data, hostile text, JSON size."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from posviz import cope
from posviz.figures import FIGURES, build
from posviz.figures import cope as fc
from posviz.theme import style
from testkit.figures import strings
from testkit.figures import trace_array as arr

NAMES = [n for n in FIGURES if n.startswith("cope_")]
LONG = "counting " * 100 + "<b>x</b>"
HOSTILE = "<b>x</b> <script>alert(1)</script> **bold** [link](http://e.x) 🙂👍🏽 数数 مرحبا &amp;"
EXTREMES = dict(text=LONG, rule="attention", scale=40.0, bias=-40.0, causal=False, npos_max=1, seed=999999,
                d_head=64, emb="sinusoidal", target=64, strength=100.0, nodiv=True, query=63, key=63)


def params_for(name, **over):
    keys = FIGURES[name].defaults()
    return {k: v for k, v in over.items() if k in keys}


def json_size(fig):
    return len(pio.to_json(style(fig), validate=False))


def test_all_builders_registered_and_listed():
    assert set(NAMES) == set(fc.__all__)
    assert len(NAMES) == 9
    for name in NAMES:
        assert FIGURES[name].summary


@pytest.mark.parametrize("name", NAMES)
def test_defaults_and_extremes_build_within_size_limits(name):
    fig = build(name)
    assert json_size(fig) < 500_000
    big = build(name, **params_for(name, **EXTREMES))
    assert json_size(big) < 2_000_000


def test_gates_positions_heatmaps_match_the_math():
    L = cope.cope_run()
    fig = build("cope_gates_positions")
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert [t.name for t in heat] == ["g_ij", "p_ij", "i − j"]
    g, p, dist = (arr(t.z) for t in heat)
    assert g.shape == p.shape == (L.T, L.T)
    lower = np.tril(np.ones((L.T, L.T), bool))
    np.testing.assert_allclose(p[lower], L.positions[lower], rtol=1e-6)
    assert np.isnan(p[~lower]).all() and np.isnan(g[~lower]).all()  # the causal mask is shown blank
    i, j = np.indices((L.T, L.T))
    np.testing.assert_array_equal(dist[lower], (i - j)[lower])
    # sentence gates: the four sentence ends count
    assert np.nansum(g[-1] > 0.99) == 4


def test_gates_positions_panels_share_one_pair_of_axes():
    """Three heatmaps side by side on one x axis (one set of axes to redraw), each with its own colour range."""
    L = cope.cope_run()
    fig = build("cope_gates_positions")
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert {t.xaxis for t in fig.data} == {None} and {t.yaxis for t in fig.data} == {None}
    starts = [int(arr(t.x)[0]) for t in heat]
    assert starts[0] == 0 and starts[1] > L.T - 1 and starts[2] > starts[1] + L.T - 1  # blank gutters between
    for t, start in zip(heat, starts, strict=True):
        np.testing.assert_array_equal(arr(t.x), np.arange(L.T) + start)
        np.testing.assert_array_equal(arr(t.customdata)[-1], np.arange(L.T))  # hover names the key j, not x
        assert "%{customdata}" in t.hovertemplate
        # its own colour bar, horizontal, centred under the panel, labelled 0 and the panel's top value
        bar = t.colorbar
        assert bar.orientation == "h" and t.showscale is not False
        span = starts[2] + L.T
        assert bar.x == pytest.approx((start + L.T / 2) / span) and bar.len == pytest.approx(L.T / span)
        assert list(bar.tickvals) == [0, t.zmax] and bar.ticktext[1] == f"{t.zmax:.3g}"
    assert [t.zmax for t in heat] == [1.0, pytest.approx(L.positions.max()), L.T - 1]
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0].endswith("0 → 1") and titles[1].endswith(f"0 → {L.positions.max():.3g}")
    assert titles[2].endswith(f"0 → {L.T - 1}")
    ticks = dict(zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext, strict=True))
    assert ticks[starts[1]] == "CoPE ·0" and ticks[starts[0]] == ticks[starts[2]] == "0"  # tokens under p_ij


def test_clamped_cells_are_marked():
    fig = build("cope_gates_positions", rule="all", scale=40.0, npos_max=3)
    marks = [t for t in fig.data if t.type == "scatter"][0]
    L = cope.cope_run(rule="all", scale=40.0, npos_max=3)
    assert len(arr(marks.x)) == int(L.clamped.sum()) > 0
    ci, cj = np.nonzero(L.clamped)
    np.testing.assert_array_equal(arr(marks.x), cj + arr(fig.data[1].x)[0])  # on the positions panel
    np.testing.assert_array_equal(arr(marks.y), ci)
    np.testing.assert_array_equal(arr(marks.customdata), cj)
    assert arr(fig.data[1].z)[-1, 0] == 2.0


def test_tokens_chips_show_every_token_escaped():
    fig = build("cope_tokens", text="a <b>x</b> b.")
    labels = list(fig.data[0].text)
    assert labels == ["a", "&lt;", "b", "&gt;", "x", "&lt;", "/", "b", "&gt;", "b", "."]
    assert len(fig.data[2].x) == len(labels) and fig.data[2].type == "bar"
    assert [float(v) for v in fig.data[1].text][-1] == pytest.approx(1.0, abs=1e-3)  # "." counts itself


def test_query_positions_bars():
    L = cope.cope_run(rule="words", scale=40.0)
    fig = build("cope_query_positions", rule="words", scale=40.0, query=5)
    np.testing.assert_allclose(arr(fig.data[0].y), L.positions[5], rtol=1e-6)
    rel = arr(fig.data[1].y)
    assert rel[5] == 1 and rel[0] == 6 and np.isnan(rel[6:]).all()
    assert fig.layout.shapes[0].y0 == L.npos_max - 1
    bars = fig.data[0]
    np.testing.assert_allclose(arr(bars.marker.color), L.gates[5], rtol=1e-6)  # coloured by the gate
    assert bars.marker.showscale is not True and "gate" in bars.name  # the legend names the colour, no colorbar


def test_interpolation_figure_values():
    fig = build("cope_interpolation", rule="constant", scale=0.0, query=2, key=0)  # p = 1.5
    L = cope.cope_run(rule="constant", scale=0.0)
    star = fig.data[2]
    assert star.x[0] == pytest.approx(1.5)
    assert star.y[0] == pytest.approx(0.5 * (L.z_int[2, 1] + L.z_int[2, 2]))
    np.testing.assert_allclose(arr(fig.data[0].y), L.z_int[2], rtol=1e-6)


def test_embedding_table_outlines_floor_and_ceil():
    fig = build("cope_embedding_table", rule="constant", scale=0.0, query=2, key=0, emb="sinusoidal")
    e = arr(fig.data[0].z)
    assert e.shape == (16, 28)
    np.testing.assert_allclose(e[:, 0], np.tile([0.0, 1.0], 8), atol=1e-7)  # sin 0, cos 0
    assert sorted(s.x0 + 0.5 for s in fig.layout.shapes) == [1, 2]
    assert fig.data[0].meta == "diverging"


def test_attention_with_and_without_cope():
    L = cope.cope_run()
    fig = build("cope_attention")
    plain, with_cope = arr(fig.data[0].y), arr(fig.data[1].y)
    assert len(plain) == L.T and plain.sum() == pytest.approx(1, abs=1e-5)
    near = np.abs(L.positions[-1] - L.target) < 0.5
    assert with_cope[near].sum() > plain[near].sum() + 0.2
    nodiv = build("cope_attention", nodiv=True)
    assert "nodiv" in nodiv.data[1].name and not np.allclose(arr(nodiv.data[1].y), with_cope)


def test_positions_map_shows_the_leak():
    causal = build("cope_positions_map", rule="constant", scale=0.0)
    leak = build("cope_positions_map", rule="constant", scale=0.0, causal=False)
    assert np.triu(arr(causal.data[0].z), 1).max() == 0
    assert np.triu(arr(leak.data[0].z), 1).max() > 1
    assert "off" in leak.layout.title.text and "on" in causal.layout.title.text


def test_position_bounds_off_by_one_claim_fails_everywhere():
    off = build("cope_position_bounds", claim="off_by_one")
    true = build("cope_position_bounds", claim="true")
    T = cope.tokenize(cope.DEFAULT_TEXT).T
    assert off.layout.title.text.startswith(f"{T} of {T}")
    assert true.layout.title.text.startswith(f"0 of {T}")
    with pytest.raises(ValueError, match="claim"):
        build("cope_position_bounds", claim="nope")


def test_gqa_table_shows_the_error_row():
    broken = build("cope_gqa_shapes", layout="swapped")
    cells = broken.data[0].cells.values
    assert cells[1][-1].startswith("RuntimeError")
    fixed = build("cope_gqa_shapes", layout="fixed")
    assert fixed.data[0].cells.values[1][-1] == "(1, 8, 4, 4)"


@pytest.mark.parametrize("name", [n for n in NAMES if "text" in FIGURES[n].defaults()])
def test_hostile_text_is_escaped_everywhere(name):
    fig = build(name, text=HOSTILE)
    texts = list(strings(fig.to_plotly_json()))
    assert not any("<b>" in s or "<script" in s for s in texts)
    assert json.dumps(fig.to_plotly_json(), default=str)  # serialisable


def test_empty_text_raises_value_error_naming_text():
    with pytest.raises(ValueError, match="text"):
        build("cope_tokens", text="   ")


def test_long_text_is_capped_and_said():
    fig = build("cope_tokens", text=LONG)
    assert len(fig.data[0].text) == cope.MAX_TOKENS
    assert f"first {cope.MAX_TOKENS} tokens" in fig.layout.title.text


def test_interpolation_default_lands_between_two_integers():
    """The default view shows an interpolation: w well inside (0, 1), the star between the two integer logits."""
    fig = build("cope_interpolation")
    star = next(t for t in fig.data if t.name == "interpolated pos_ij")
    ends = next(t for t in fig.data if t.name == "⌊p⌋ and ⌈p⌉")
    p, logit = float(star.x[0]), float(star.y[0])
    lo, hi = (float(v) for v in ends.x)
    w = p - lo
    assert hi == lo + 1 and 0.1 < w < 0.9
    z_lo, z_hi = (float(v) for v in ends.y)
    assert logit == pytest.approx((1 - w) * z_lo + w * z_hi, abs=1e-4)
    assert f"w = {w:.3f}" in fig.layout.title.text
