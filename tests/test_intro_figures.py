"""The intro lesson's figure builders: registered, data right at defaults and extremes, payloads small."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import intro, theme
from posviz.figures import FIGURES, build
from posviz.figures import intro as fig_intro

NAMES = ["intro_attention", "intro_shuffle", "intro_integer_ranges", "intro_normalised", "intro_binary",
         "intro_binary_vs_sinusoid", "intro_trajectory", "intro_wavelength_limit"]
LONG_TEXT = " ".join(f"word{i}" for i in range(40))

# the largest values the page's controls allow (pages/1_From_integers_to_sinusoids.py)
EXTREMES = {
    "intro_attention": [dict(text=LONG_TEXT, d_model=64, seed=99), dict(text="dog", d_model=4, seed=0)],
    "intro_shuffle": [dict(text=LONG_TEXT, d_model=64, seed=99, shuffle=50), dict(text="a", d_model=4, shuffle=0)],
    "intro_integer_ranges": [dict(text=LONG_TEXT, n_positions=1024, d_model=64, seed=99),
                             dict(text="x", n_positions=8, d_model=4)],
    "intro_normalised": [dict(short=1000, long=1000, position=999), dict(short=2, long=2, position=0)],
    "intro_binary": [dict(n_positions=1024, n_bits=12), dict(n_positions=8, n_bits=2)],
    "intro_binary_vs_sinusoid": [dict(n_positions=1024, n_bits=12, bit=11), dict(n_positions=8, n_bits=2, bit=0)],
    "intro_wavelength_limit": [dict(d_model=64, pairs="all"), dict(d_model=4, pairs="slowest")],
    "intro_trajectory": [dict(n_positions=1024, n_bits=12, bit=10, d_model=64),
                         dict(n_positions=8, n_bits=2, bit=0, d_model=4)],
}


def _json_size(fig: go.Figure) -> int:
    return len(theme.style(fig, "light").to_json().encode())


def _z(trace: go.Heatmap) -> np.ndarray:
    return np.asarray(trace.z, dtype=np.float64)


def test_all_builders_registered_exported_and_keyword_only():
    assert set(NAMES) == {n for n in FIGURES if n.startswith("intro_")}
    assert sorted(fig_intro.__all__) == sorted(NAMES)
    for name in NAMES:
        spec = FIGURES[name]
        assert spec.builder is getattr(fig_intro, name)
        assert spec.summary
        for p in inspect.signature(spec.builder).parameters.values():
            assert p.kind is p.KEYWORD_ONLY and isinstance(p.default, (int, float, str, bool))


@pytest.mark.parametrize("name", NAMES)
def test_defaults_build_without_template_and_under_500_kb(name):
    fig = build(name)
    assert fig.layout.template.layout.font.family != theme.FONT  # no posviz template baked in
    assert fig.layout.title.text
    assert _json_size(fig) < 500_000
    dark = theme.style(build(name), "dark")
    assert dark.layout.template.layout.paper_bgcolor == "#0f1117"


@pytest.mark.parametrize(("name", "params"), [(n, p) for n, ps in EXTREMES.items() for p in ps])
def test_extremes_build_under_2_mb(name, params):
    fig = build(name, **params)
    assert len(fig.data) >= 1
    assert _json_size(fig) < 2_000_000


# --- per-figure data ---------------------------------------------------------------------------------

def test_attention_figure_shows_identical_dog_rows_only_without_positions():
    fig = fig_intro.intro_attention()
    left, right, causal, strip = fig.data
    assert left.type == right.type == causal.type == strip.type == "heatmap"
    # the strip shows the two dog rows' difference on its own scale: 0 without positions, visible with PE
    diff = _z(strip)
    out_pe = intro.attention_demo(positions="sinusoidal").out
    np.testing.assert_array_equal(diff[0], np.zeros(16))
    np.testing.assert_allclose(diff[1], out_pe[1] - out_pe[4], atol=1e-6)
    assert strip.zmax == pytest.approx(np.abs(out_pe[1] - out_pe[4]).max(), rel=1e-6)
    assert strip.zmax < 0.2 * np.abs(_z(right)).max()  # too small to see on the outputs' own scale
    assert f"±{strip.zmax:.2g}" in fig.layout.annotations[3].text
    # where the eye goes first: the strip is on top of the three output panels, its title gives the numbers
    strip_y0 = fig.layout.yaxis4.domain[0]
    assert all(strip_y0 > fig.layout[f"yaxis{n}"].domain[1] for n in ("", "2", "3"))
    assert f"up to {strip.zmax:.2g} with PE" in fig.layout.annotations[3].text
    assert "0 without positions" in fig.layout.annotations[3].text
    assert list(left.y) == ["0: the", "1: dog", "2: chased", "3: another", "4: dog"]
    a, b = _z(left), _z(right)
    assert a.shape == b.shape == (5, 16)
    np.testing.assert_array_equal(a[1], a[4])
    assert np.abs(b[1] - b[4]).max() > 1e-3
    np.testing.assert_allclose(a, intro.attention_demo().out, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b, intro.attention_demo(positions="sinusoidal").out, rtol=1e-6, atol=1e-7)
    assert left.zmid == 0 and left.meta == "diverging"
    assert len(fig.layout.shapes) == 6  # the two repeated rows outlined in all three panels
    assert {s.y0 for s in fig.layout.shapes} == {0.5, 3.5}


def test_attention_figure_draws_the_causal_layer_beside_the_bidirectional_one():
    """The third panel is the same layer under the causal mask, no positions: the two dogs differ there, by more
    than sinusoidal PE makes them differ without the mask (0.67 against 0.057 for the example sentence)."""
    fig = fig_intro.intro_attention()
    causal = _z(fig.data[2])
    out = intro.attention_demo(causal=True).out
    np.testing.assert_allclose(causal, out, rtol=1e-6, atol=1e-7)
    assert [a.text for a in fig.layout.annotations[:3]] == ["no mask, no PE", "no mask, + PE", "causal mask, no PE"]
    gap_causal = np.abs(causal[1] - causal[4]).max()
    gap_pe = np.abs(_z(fig.data[1])[1] - _z(fig.data[1])[4]).max()
    assert gap_causal == pytest.approx(0.666, abs=1e-3) and gap_pe == pytest.approx(0.0572, abs=1e-4)
    assert fig.data[2].zmax >= np.abs(causal).max() - 1e-6  # one colour scale for the three panels
    assert fig.data[2].showscale and not fig.data[0].showscale


def test_attention_figure_without_repeats_has_no_outline_and_caps_tokens():
    fig = fig_intro.intro_attention(text=LONG_TEXT, d_model=8)
    assert len(fig.layout.shapes) == 0
    assert _z(fig.data[0]).shape == (intro.MAX_TOKENS, 8)


def test_shuffle_figure_rows_follow_their_words_without_positions():
    fig = fig_intro.intro_shuffle(shuffle=3)
    order = intro.shuffle_order(5, 3)
    assert not np.array_equal(order, np.arange(5))
    orig, shuf, orig_pe, shuf_pe = (_z(t) for t in fig.data)
    np.testing.assert_allclose(shuf, orig[order], atol=1e-6)
    assert np.abs(shuf_pe - orig_pe[order]).max() > 1e-3
    words = ["the", "dog", "chased", "another", "dog"]
    assert list(fig.data[1].y) == [f"{t}: {words[o]} (was {o})" for t, o in enumerate(order)]


def test_hostile_text_reaches_labels_only_as_words():
    text = "<b>bold</b> <script>alert(1)</script> [x](javascript:y) &amp; **dog** dog"
    for name in ("intro_attention", "intro_shuffle"):
        fig = build(name, text=text)
        labels = [lab for tr in fig.data if tr.name != "row difference" for lab in tr.y]
        assert len(labels) >= 10
        for lab in labels:
            assert re.fullmatch(r"\d+: \w+( \(was \d+\))?", lab), lab
    fig = fig_intro.intro_integer_ranges(text=text, n_positions=16)
    words = {str(c[1]) for tr in fig.data if tr.customdata is not None for c in tr.customdata}
    assert words == {"b", "bold", "script", "alert", "1", "x", "javascript", "y", "amp", "dog"}


def test_integer_ranges_band_rises_with_p_and_embedding_stays_small():
    n, d = 64, 16
    fig = fig_intro.intro_integer_ranges(n_positions=n, d_model=d)
    assert [t.type for t in fig.data] == ["scatter"] * 6
    names = [t.name for t in fig.data if t.showlegend is not False]
    # drawn back to front: the word's own thin band last, on top of the sinusoidal band it overlaps
    assert names == ["embedding + sinusoidal PE", "embedding + p (integer)", "embedding alone"]
    sin_lo, sin_hi, int_lo, int_hi, emb_lo, emb_hi = (np.asarray(t.y, dtype=np.float64) for t in fig.data)
    p = np.arange(n)
    np.testing.assert_allclose(int_lo, emb_lo + p, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(int_hi, emb_hi + p, rtol=1e-6, atol=1e-5)
    assert np.all(emb_hi - emb_lo > 0) and np.abs(np.r_[emb_lo, emb_hi]).max() < 6 * intro.EMBED_STD
    assert np.abs(np.r_[sin_lo, sin_hi]).max() < 1 + 6 * intro.EMBED_STD
    assert int_lo[-1] > 10 * np.abs(emb_hi).max()  # swamped
    _, emb = intro.repeated_sentence(intro.DEFAULT_TEXT, n, d, 0)
    np.testing.assert_allclose(emb_hi, emb.max(axis=1), rtol=1e-6)


def test_normalised_marks_the_same_position_with_two_codes():
    fig = fig_intro.intro_normalised(short=10, long=100, position=5)
    lines = [t for t in fig.data if t.showlegend is not False]
    marks = [t for t in fig.data if t.showlegend is False]
    assert [t.name for t in lines] == ["N = 10", "N = 100"]
    np.testing.assert_allclose(np.asarray(lines[0].y, dtype=float), np.arange(10) / 10, rtol=1e-6)
    assert len(lines[1].y) == 100
    assert [float(m.y[0]) for m in marks] == [0.5, 0.05]
    assert [m.text[0] for m in marks] == ["5/10 = 0.5", "5/100 = 0.05"]


@pytest.mark.parametrize(("position", "short", "long"), [(10, 10, 100), (-1, 10, 100), (50, 100, 40)])
def test_normalised_rejects_a_position_outside_either_sequence(position, short, long):
    with pytest.raises(ValueError, match="position"):
        fig_intro.intro_normalised(short=short, long=long, position=position)


def test_binary_heatmap_is_the_bits_with_flip_periods_in_the_labels():
    fig = fig_intro.intro_binary(n_positions=64, n_bits=6)
    (hm,) = fig.data
    z = _z(hm)
    assert z.shape == (6, 64)
    for p in range(64):
        assert "".join(str(int(b)) for b in z[::-1, p]) == format(p, "b").zfill(6)
    assert list(hm.y) == [f"bit {j} (flips every {2**j})" for j in range(6)]
    assert "repeat" not in fig.layout.title.text
    assert "repeat after 16" in fig_intro.intro_binary(n_positions=40, n_bits=4).layout.title.text


def test_binary_vs_sinusoid_panels_match_the_math():
    fig = fig_intro.intro_binary_vs_sinusoid(n_positions=64, n_bits=6, bit=3)
    hb, hs, line_b, curve_s, dots_s = fig.data
    np.testing.assert_array_equal(_z(hb), intro.binary_encoding(64, 6).T)
    np.testing.assert_allclose(_z(hs), intro.smooth_bits(64, 6).T, atol=1e-6)
    np.testing.assert_array_equal((_z(hs) > 0.5), _z(hb) == 1)
    np.testing.assert_array_equal(np.asarray(line_b.y, dtype=float), intro.binary_encoding(64, 6)[:, 3])
    assert list(hb.y)[3] == "j = 3 (λ = 16)"
    np.testing.assert_array_equal(np.asarray(dots_s.x, dtype=float), np.arange(64))
    np.testing.assert_allclose(np.asarray(dots_s.y, dtype=float), intro.smooth_bits(64, 6)[:, 3], atol=1e-6)
    with pytest.raises(ValueError, match="bit"):
        fig_intro.intro_binary_vs_sinusoid(n_bits=6, bit=6)


@pytest.mark.parametrize("bit", [0, 1, 3])
def test_binary_vs_sinusoid_draws_the_sinusoid_between_the_positions(bit):
    """The smooth bit is a continuous curve through fractional positions, equal to the cosine there (not straight
    lines between its integer samples, which draw bit 0 as a zigzag), with dots at the integer positions."""
    fig = fig_intro.intro_binary_vs_sinusoid(n_positions=32, n_bits=5, bit=bit)
    curve, dots = fig.data[-2:]
    x = np.asarray(curve.x, dtype=float)
    assert curve.mode == "lines" and dots.mode == "markers"
    assert (x % 1 != 0).sum() >= 4 * 31 and x[0] == 0 and x[-1] == 31
    want = 0.5 - 0.5 * np.cos(np.pi * (x - (2**bit - 1) / 2) / 2**bit)
    np.testing.assert_allclose(np.asarray(curve.y, dtype=float), want, atol=1e-6)
    if bit == 0:  # a quarter of the way from 0 to 1: the cosine's 0.1464..., where a straight line gives 0.25
        np.testing.assert_allclose(np.asarray(curve.y, dtype=float)[x == 0.25], [0.5 - 0.5 * math.cos(math.pi / 4)],
                                   atol=1e-6)
    np.testing.assert_array_equal(np.asarray(dots.x, dtype=float), np.arange(32))


@pytest.mark.parametrize("n_positions", [fig_intro.SMOOTH_DOTS_MOST, fig_intro.SMOOTH_DOTS_MOST + 1, 1024])
def test_binary_vs_sinusoid_keeps_each_position_s_value_where_the_dots_would_merge(n_positions):
    """Up to SMOOTH_DOTS_MOST positions the values at integer positions are dots; beyond, an unseen line through
    the same values, so hover still reads each one while the chart draws one path instead of a dot per position."""
    fig = fig_intro.intro_binary_vs_sinusoid(n_positions=n_positions, n_bits=10, bit=2)
    codes = fig.data[-1]
    np.testing.assert_array_equal(np.asarray(codes.x, dtype=float), np.arange(n_positions))
    np.testing.assert_allclose(np.asarray(codes.y, dtype=float), intro.smooth_bits(n_positions, 10)[:, 2], atol=1e-6)
    assert codes.hovertemplate and codes.hoverinfo != "skip"
    if n_positions <= fig_intro.SMOOTH_DOTS_MOST:
        assert codes.mode == "markers" and codes.marker.size == 5
    else:
        assert codes.mode == "lines" and codes.line.width == 0


@pytest.mark.parametrize(("name", "panels"), [("intro_binary", 1), ("intro_binary_vs_sinusoid", 2)])
@pytest.mark.parametrize("n_positions", [64, 256, 257, 1000, 1024])
def test_binary_heatmaps_average_positions_a_pixel_could_not_hold(name, panels, n_positions):
    """Past POSITION_COLUMNS / panels positions a binary heatmap column is the mean of a run of k positions
    (k a power of two): bit j < log2 k, flipping inside each run, is ½ there, the bits above keep their 0s and
    1s, the hover names each run's first and last position and the title says what a column is."""
    fig = build(name, n_positions=n_positions, n_bits=10, **({"bit": 3} if panels == 2 else {}))
    hm = fig.data[0]
    k = fig_intro.position_run(n_positions, panels)
    codes = intro.binary_encoding(n_positions, 10).T  # (bits, positions)
    z = _z(hm)
    if k == 1:
        np.testing.assert_array_equal(z, codes)
        assert "mean" not in fig.layout.title.text
        return
    assert k == 1 << math.ceil(math.log2(n_positions / (fig_intro.POSITION_COLUMNS // panels)))
    assert z.shape == (10, -(-n_positions // k)) and z.shape[1] <= fig_intro.POSITION_COLUMNS // panels
    full = n_positions // k  # runs of k whole positions (the last may be shorter)
    np.testing.assert_array_equal(z[:, :full], codes[:, :full * k].reshape(10, full, k).mean(axis=2))
    low = k.bit_length() - 1
    np.testing.assert_array_equal(z[:low, :full], 0.5)
    assert set(np.unique(z[low:, :full])) <= {0.0, 1.0}
    edges = np.append(np.arange(0, n_positions, k), n_positions) - 0.5
    np.testing.assert_array_equal(np.asarray(hm.x, dtype=float), edges)
    runs = np.asarray(hm.customdata, dtype=float)
    assert runs[0, 0].tolist() == [0, k - 1] and runs[0, -1].tolist() == [(z.shape[1] - 1) * k, n_positions - 1]
    assert f"the mean of {k} positions" in fig.layout.title.text


def _trailing_ones(p: int) -> int:
    s = format(p, "b")
    return len(s) - len(s.rstrip("1"))


def test_trajectory_binary_jumps_between_corners_and_sinusoid_glides():
    fig = fig_intro.intro_trajectory(n_positions=32, bit=2, n_bits=6, d_model=16)
    path_b, path_s, steps_b, steps_s = fig.data
    xb, yb = np.asarray(path_b.x, dtype=float), np.asarray(path_b.y, dtype=float)
    assert set(xb) <= {0.0, 1.0} and set(yb) <= {0.0, 1.0}
    np.testing.assert_array_equal(xb, [(p >> 2) & 1 for p in range(32)])
    np.testing.assert_array_equal(yb, [(p >> 3) & 1 for p in range(32)])
    xs, ys = np.asarray(path_s.x, dtype=float), np.asarray(path_s.y, dtype=float)
    np.testing.assert_allclose(xs**2 + ys**2, 1.0, atol=1e-6)
    np.testing.assert_allclose(xs, np.cos(2 * np.pi * np.arange(32) / 16), atol=1e-6)
    np.testing.assert_allclose(ys, np.sin(2 * np.pi * np.arange(32) / 16), atol=1e-6)
    # counter-clockwise as p grows (the RoPE clock's sense): the cross product of successive points is > 0
    assert np.all(xs[:-1] * ys[1:] - ys[:-1] * xs[1:] > 0)
    # the path markers are coloured by position with a colour bar, and stay out of the legend
    assert not path_b.showlegend and not path_s.showlegend and path_s.marker.showscale
    np.testing.assert_array_equal(np.asarray(path_s.marker.color), np.arange(32))
    assert path_s.marker.colorbar.title.text == "position p"
    sb, ss = np.asarray(steps_b.y, dtype=float), np.asarray(steps_s.y, dtype=float)
    np.testing.assert_allclose(sb, [math.sqrt(_trailing_ones(p) + 1) for p in range(31)], rtol=1e-6)
    assert np.ptp(ss) < 1e-5 and np.ptp(sb) > 1
    labels = {a.text for a in fig.layout.annotations if a.text.startswith("p = ")}
    assert labels == {"p = 0–3,<br>16–19", "p = 4–7,<br>20–23", "p = 8–11,<br>24–27", "p = 12–15,<br>28–31"}
    longer = fig_intro.intro_trajectory(n_positions=64, bit=2, n_bits=6)
    labels = {a.text for a in longer.layout.annotations if a.text.startswith("p = ")}
    assert "p = 0–3,<br>16–19, …" in labels  # long lists are cut, so corner labels never overlap
    ranges = (longer.layout.xaxis.range, longer.layout.yaxis.range, longer.layout.xaxis2.range)
    assert [tuple(r) for r in ranges] == [(-0.5, 1.5), (-0.5, 1.5), (-1.3, 1.3)]
    assert longer.layout.yaxis.scaleanchor == "x" and longer.layout.yaxis2.scaleanchor == "x2"
    with pytest.raises(ValueError, match="bit"):
        fig_intro.intro_trajectory(n_bits=6, bit=5)


def test_wavelength_limit_dips_only_for_the_slowest_pair():
    slow = fig_intro.intro_wavelength_limit(d_model=16, pairs="slowest")
    full = fig_intro.intro_wavelength_limit(d_model=16, pairs="all")
    (ts,), (tf,) = slow.data, full.data
    ys, yf = np.asarray(ts.y, dtype=float), np.asarray(tf.y, dtype=float)
    assert ys.min() < 1e-3 and yf.min() == pytest.approx(yf[0], rel=1e-6)  # k = 1 is the closest, for all pairs
    _, _, mins = intro.distance_profile(intro.MAX_OFFSET, 16, 10000.0, "all")
    np.testing.assert_allclose(yf, mins, rtol=1e-6)
    assert full.layout.xaxis.type == "log"
    wavelength = 2 * math.pi * 10000 ** (14 / 16)
    assert full.layout.shapes[-1].x0 == pytest.approx(wavelength)
    assert any("19,869" in a.text for a in full.layout.annotations)
    assert any(a.x == pytest.approx(math.log10(wavelength)) for a in full.layout.annotations)


def test_builders_are_deterministic():
    for name in NAMES:
        assert build(name).to_json() == build(name).to_json()


@pytest.mark.parametrize(("name", "params", "param"), [
    ("intro_attention", dict(d_model=1000), "d_model"),
    ("intro_attention", dict(text="!!!"), "text"),
    ("intro_shuffle", dict(shuffle=-1), "shuffle"),
    ("intro_integer_ranges", dict(n_positions=10**6), "n_positions"),
    ("intro_binary", dict(n_bits=40), "n_bits"),
    ("intro_trajectory", dict(d_model=7), "d_model"),
])
def test_bad_parameters_raise_value_error_naming_them(name, params, param):
    with pytest.raises(ValueError, match=param):
        build(name, **params)
