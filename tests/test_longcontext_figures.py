"""Figures of the long-context methods lesson: plotted data checked against posviz.longctx and posviz.streams,
sizes bounded."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import export, presets
from posviz import longctx as lc
from posviz import streams as sm
from posviz.figures import longctx as fl
from posviz.figures._registry import FIGURES, build
from posviz.theme import style
from posviz.ui.page import CHART_WIDTH
from testkit.browser import CHROMIUM_ARGS, chromium_path, need_browser
from testkit.figures import trace_array as values
from testkit.text_layout import collect, open_svg, problems

NAMES = fl.__all__
KB = 1000


def test_all_registered_with_defaults_and_small():
    for name in NAMES:
        assert name in FIGURES
        fig = build(name)
        assert isinstance(fig, go.Figure) and fig.data
        assert len(fig.to_json()) < 500 * KB, name


LARGEST = {
    "base_bound_presets": {},
    "base_cosine_sum": dict(dim=256, base=1e9, length=lc.MAX_BOUND_LENGTH),
    "xpos_decay_profile": dict(dim=256, max_distance=1 << 17),
    "rerope_matrix": dict(T=512, window=1, leaky_k=16.0),
    "rerope_score_matrix": dict(T=512, window=1, leaky_k=16.0, dim=256),
    "self_extend_matrix": dict(T=512, group=16, window=1),
    "self_extend_angle_plot": dict(T=2048, group=1, window=1, dim=256, base=1e9, pair=127),
    "sink_cache_map": dict(steps=1024, n_sink=4096, window=1 << 16),
    "sink_stream_positions": dict(steps=1 << 16, n_sink=16, window=1024),
    "pose_coverage": dict(train_length=256, target_length=4096, batch=64, method="random"),
}


@pytest.mark.parametrize("name", NAMES)
def test_largest_settings_stay_under_2mb(name):
    assert len(build(name, **LARGEST[name]).to_json()) < 2000 * KB


def by_name(rows: list[dict], name: str) -> dict:
    return next(r for r in rows if r["name"] == name)


def test_preset_bounds_cover_every_preset_with_its_base():
    rows = fl.preset_bounds()
    assert [r["name"] for r in rows] == list(presets.preset_names())
    fig = fl.base_bound_presets()
    bounds = values(fig.data[1].x)
    bases = {int(i): float(x) for trace in fig.data[2:] for i, x in zip(trace.y, values(trace.x), strict=True)}
    holding = {int(i) for i in fig.data[2].y}
    assert sorted(bases) == list(range(len(rows)))
    for i, (r, bound) in enumerate(zip(rows, bounds, strict=True)):
        assert bound == pytest.approx(lc.base_lower_bound(r["dim"], r["length"]), rel=1e-6)
        assert bases[i] == pytest.approx(r["base"], rel=1e-6)
        assert r["holds"] == (lc.first_negative_position(r["dim"], r["base"], r["length"]) < 0) == (i in holding)
    # a shipped base above its bound that still fails: the passing bases are not one interval
    assert by_name(rows, "Qwen3 8B")["base"] < by_name(rows, "Qwen3 8B")["bound"]
    qwen = by_name(rows, "Qwen2.5 7B Instruct + YaRN x4")
    assert qwen["base"] > qwen["bound"] and not qwen["holds"] and qwen["first"] == 27115
    by = {r["name"]: r for r in rows}
    assert by["Code Llama 7B"]["length"] == 16384 and by["Code Llama 7B"]["holds"]
    assert by["Llama 2 7B"]["length"] == 4096 and not by["Llama 2 7B"]["holds"]  # 1e4 < 2.9e4
    assert by["Llama 3.1 8B"]["length"] == 8192  # the pre-scaling length
    assert by["Gemma 3 27B"]["length"] == 131072 // 8  # linear: positions divided by the factor
    assert by["GPT-NeoX 20B"]["dim"] == 24
    met = sum(r["holds"] for r in rows)
    assert f"{met} of {len(rows)} presets" in fig.layout.title.text


def test_cosine_sum_figure_data_and_marks():
    fig = fl.base_cosine_sum(dim=64, base=1e4, length=4096)
    m, b = values(fig.data[0].x), values(fig.data[0].y)
    np.testing.assert_allclose(b, lc.cosine_sum(m, 64, 1e4), rtol=1e-5, atol=1e-4)
    first = lc.first_negative_position(64, 1e4, 4096)
    assert values(fig.data[1].x)[0] == first and f"m = {first:,}" in fig.layout.title.text
    passing = fl.base_cosine_sum(dim=64, base=1e7, length=4096)
    assert len(passing.data) == 1 and "the bound holds" in passing.layout.title.text


def test_xpos_profile_data():
    fig = fl.xpos_decay_profile(dim=32, max_distance=1000)
    prof = lc.xpos_score_profile(1000, 32)
    np.testing.assert_allclose(values(fig.data[0].y), prof["rope"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values(fig.data[1].y), prof["xpos"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values(fig.data[2].y), lc.xpos_decay(prof["distance"], 32)[:, 0], rtol=1e-5)


def test_rerope_and_self_extend_heatmaps_mask_the_future():
    fig = fl.rerope_matrix(T=20, window=5, leaky_k=2.0)
    z = values(fig.data[1].z)
    want = lc.rerope_relative(20, 5, 2.0)
    tril = np.tril_indices(20)
    np.testing.assert_allclose(z[tril], want[tril], rtol=1e-6)
    assert np.isnan(z[np.triu_indices(20, 1)]).all()
    assert "largest relative position: 19 plain, 12 with leaky ReRoPE" in fig.layout.title.text  # 5 + 14/2
    se = fl.self_extend_matrix(T=24, group=4, window=6)
    z = values(se.data[0].z)
    np.testing.assert_allclose(z[np.tril_indices(24)], sm.self_extend_relative(24, 4, 6)[np.tril_indices(24)])
    last = values(se.data[3].y)  # the last query's row, by distance 0..T-1
    np.testing.assert_allclose(last, sm.self_extend_relative(24, 4, 6)[23][::-1])
    no_shift = values(se.data[2].y)
    np.testing.assert_allclose(no_shift, sm.self_extend_relative(24, 4, 6, shift=False)[23][::-1])


def test_rerope_scores_are_the_two_pass_logits():
    fig = fl.rerope_score_matrix(T=24, window=5, leaky_k=0.0, dim=8, seed=2)
    rng = np.random.default_rng(2)
    q, k = np.tile(rng.standard_normal(8), (24, 1)), np.tile(rng.standard_normal(8), (24, 1))
    tril = np.tril_indices(24)
    want = lc.rerope_two_pass_scores(q, k, 5) / np.sqrt(8)
    np.testing.assert_allclose(values(fig.data[1].z)[tril], want[tril], rtol=1e-5, atol=1e-6)
    plain = values(fig.data[0].z)
    near = (tril[0] - tril[1]) < 5
    np.testing.assert_allclose(plain[tril][near], values(fig.data[1].z)[tril][near], atol=1e-5)
    far = values(fig.data[1].z)[tril][~near]
    assert np.ptp(far) < 1e-5  # beyond w every pair has relative position w: one logit


def test_sink_cache_map_holds_the_cache():
    fig = fl.sink_cache_map(steps=40, n_sink=2, window=6)
    z = values(fig.data[0].z)
    for t in (0, 5, 8, 9, 39):
        tokens = sm.sink_cache(t, 2, 6)["token"]
        np.testing.assert_array_equal(z[: tokens.size, t], tokens)
        assert np.isnan(z[tokens.size:, t]).all()
    assert "positions never pass 8" in fig.layout.title.text


# the sinks control's range on the page (1..16), the window's (8..1024) and the stream's (50..1024 drawn)
SINK_SETTINGS = [dict(steps=400, n_sink=4, window=60), dict(steps=1024, n_sink=16, window=8),
                 dict(steps=50, n_sink=1, window=1024), dict(steps=1024, n_sink=16, window=1024),
                 dict(steps=50, n_sink=16, window=8)]


@pytest.mark.parametrize("params", SINK_SETTINGS, ids=lambda p: "-".join(map(str, p.values())))
def test_sink_label_sits_beside_the_plot_at_the_lines_end(params):
    """Inside the plot every place is a cell at some setting (the first steps' staircase, the sink rows): the
    label stands right of the plot, at the dashed line's height, in the room left before the colour bar."""
    fig = fl.sink_cache_map(**params)
    (line,) = fig.layout.shapes
    (note,) = [a for a in fig.layout.annotations if "below" in a.text]
    n = params["n_sink"]
    assert note.text == f"{n} sink{'s' * (n > 1)}<br>below" and line.y0 == line.y1 == note.y == n - 0.5
    assert (note.xref, note.x, note.xanchor, note.yref, note.yanchor) == ("x domain", 1.0, "left", "y", "bottom")
    assert fig.data[0].colorbar.x == 1 + fl.SINK_LABEL_GAP


@pytest.fixture(scope="module")
def svg_page():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield browser.new_page()
        browser.close()


@pytest.mark.render
@pytest.mark.parametrize("scale", [0.0, 1.5], ids=["column", "presenter1.5"])
@pytest.mark.parametrize("params", SINK_SETTINGS, ids=lambda p: "-".join(map(str, p.values())))
def test_sink_label_clears_the_cells_and_the_colour_bar_when_drawn(svg_page, params, scale):
    """Drawn by kaleido at the 820 px column and at presenter mode's ×1.5 (1230 px): the label's box lies between
    the heatmap's cells and the colour bar, and no text overlaps another or is cut off."""
    width = round(CHART_WIDTH * (scale or 1))
    fig = style(fl.sink_cache_map(**params), "light", scale)
    height = fig.layout.height or 450
    fig.update_layout(width=width, height=height)
    open_svg(svg_page, export.render(fig, "svg", export.ExportOptions(width=width, height=height, theme="light")))
    label = svg_page.locator(".annotation", has_text="below").bounding_box()
    cells = svg_page.locator(".hm image").bounding_box()
    bar = svg_page.locator(".cbfills").bounding_box()
    assert cells["x"] + cells["width"] < label["x"] and label["x"] + label["width"] < bar["x"], (cells, label, bar)
    assert not problems(collect(svg_page, "body > svg")[0])


def test_self_extend_angle_plot_data():
    fig = fl.self_extend_angle_plot(T=40, group=4, window=8, dim=32, base=1e4, pair=3)
    ang = sm.self_extend_angles(40, 4, 8, 32, 1e4, 3)
    np.testing.assert_allclose(values(fig.data[1].y), ang["self_extend"][::-1], rtol=1e-6)
    np.testing.assert_allclose(values(fig.data[0].y), ang["rope"][::-1], rtol=1e-6)
    assert f"{ang['self_extend'][0]:.3g} rad with Self-Extend" in fig.layout.title.text


def test_sink_and_pose_figures():
    fig = fl.sink_stream_positions(steps=300, n_sink=4, window=60, train_length=256)
    assert values(fig.data[1].y).max() == 64 and values(fig.data[0].y)[-1] == 299
    assert "pass the training length at t = 256" in fig.layout.title.text
    pose = fl.pose_coverage(train_length=16, target_length=128, batch=4, seed=3)
    ids = sm.pose_batch(16, 128, 4, 3)
    assert sorted(values(pose.data[0].x).astype(int).tolist()) == sorted(ids.ravel().tolist())
    np.testing.assert_array_equal(values(pose.data[1].y), sm.relative_coverage(ids, 128))
    covered = int((sm.relative_coverage(ids, 128) > 0).sum())
    assert f"{covered:,} of 128 relative distances" in pose.layout.title.text


def test_bad_figure_input_names_the_parameter():
    with pytest.raises(ValueError, match="method"):
        fl.pose_coverage(method="sorted")
    with pytest.raises(ValueError, match="T"):
        fl.rerope_matrix(T=1)


def test_pose_windows_axis_and_chunk_label():
    fig = fl.pose_coverage(train_length=64, target_length=512, batch=16)
    assert tuple(fig.layout.yaxis.range) == (15.5, -0.5)  # windows 0..15, the first on top, no row 16
    [note] = [a for a in fig.layout.annotations if a.text == "L<sub>c</sub> = 64"]
    assert note.x == 64 and note.xanchor == "left" and note.xshift > 0  # beside its dashed line, not on it


def test_figure_text_has_no_raw_subscripts_or_base_exponents():
    figs = [fl.base_cosine_sum(base=1e4), fl.base_bound_presets(), fl.xpos_decay_profile(),
            fl.self_extend_angle_plot(), fl.pose_coverage()]
    for fig in figs:
        texts = [fig.layout.title.text, *(t.name or "" for t in fig.data), *(a.text for a in fig.layout.annotations),
                 fig.layout.xaxis.title.text or "", fig.layout.yaxis.title.text or ""]
        for text in texts:
            assert not any(s in text for s in ("B_m", "θ_i", "ζ_", "^(", "L_c", "e+0")), text
    assert "b = 10k" in fl.base_cosine_sum(base=1e4).layout.title.text
    assert fl.base_text(1e6) == "1M" and fl.base_text(0.0) == "0"
