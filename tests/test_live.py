"""The states of a live figure (posviz.ui.live): exact figures at the slider's own values, thinned to a cap."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.figures import build
from posviz.theme import style
from posviz.ui import served
from posviz.ui.live import component
from posviz.ui.live import figures as live_figures
from posviz.ui.live import states as live_states_module
from posviz.ui.live.states import (
    FIGURE_BUDGET,
    MAX_STATES,
    MIN_BUDGET,
    STATE_BUDGET,
    _decode,
    live_states,
    shared,
    slider_values,
    spread,
    state_budget,
    stop_frames,
    to_json,
)
from posviz.ui.params import Choice, Float, Int, LogFloat
from testkit.apptest import chart_specs, live_payload, page_paths, reach_for, run_page

BASE = LogFloat("base", "base b", default=10000.0, lo=10.0, hi=1e6)
SIGMA2 = Float("sigma2", "σ2", default=20.0, lo=1.0, hi=500.0, step=1.0)


def _trace_array(value: object) -> np.ndarray:
    return _decode(value) if isinstance(value, dict) else np.asarray(value, dtype=float)


def test_slider_values_are_the_sliders_own_steps():
    assert slider_values(BASE) == BASE.options  # the 1-2-5 select-slider values
    assert slider_values(Int("n", "n", default=8, lo=8, hi=20, step=4)) == (8, 12, 16, 20)
    values = slider_values(Float("s", "s", default=0.5, lo=0.5, hi=2.0, step=0.5))
    assert values == (0.5, 1.0, 1.5, 2.0)
    with pytest.raises(ValueError, match="'c'"):
        slider_values(Choice("c", "c", default="a", options={"a": "A"}))


@given(st.integers(2, 600), st.integers(2, 60), st.data())
def test_spread_keeps_the_ends_and_the_current_value(n_values, n, data):
    values = tuple(range(n_values))
    current = data.draw(st.sampled_from(values))
    chosen = spread(values, n, current)
    assert chosen[0] == values[0] and chosen[-1] == values[-1] and current in chosen
    assert len(chosen) <= min(n, n_values) + 1 and list(chosen) == sorted(set(chosen))


def test_states_of_a_curve_are_the_exact_figures_at_the_slider_values():
    params = dict(alpha1=0.7, alpha2=0.3, sigma1=5.0, sigma2=20.0)
    values, states = live_states("gaussian_kernel_curve", params, "sigma2", slider_values(SIGMA2))
    assert len(values) in (MAX_STATES, MAX_STATES + 1) and 20.0 in values and values[-1] == 500.0
    for v, state in zip(values[::7], states[::7], strict=False):
        exact = style(build("gaussian_kernel_curve", **{**params, "sigma2": v}), "light", False).to_plotly_json()
        for got, want in zip(state["data"], exact["data"], strict=True):
            if isinstance(want.get("y"), dict):  # numeric traces: every k-th point, stored as float32
                y_exact, y_state = _trace_array(want["y"]), _trace_array(got["y"])
                k = -(-len(y_exact) // len(y_state))  # the stride the kit chose
                np.testing.assert_allclose(y_state, y_exact[::k], rtol=1e-6, atol=1e-7)


def test_states_of_a_heatmap_are_the_exact_cells_thinned():
    params = dict(n_positions=100, d_model=128, base=10000.0)
    values, states = live_states("sinusoidal_heatmap", params, "base", slider_values(BASE))
    assert values == BASE.options
    v = values[3]
    exact = build("sinusoidal_heatmap", **{**params, "base": v}).to_plotly_json()["data"][0]
    z_exact = _trace_array(exact["z"])  # (P, d)
    z_state = _trace_array(states[3]["data"][0]["z"])
    k = -(-z_exact.shape[0] // z_state.shape[0])  # the stride the kit chose
    np.testing.assert_allclose(z_state, z_exact[::k, ::k].astype(np.float32))


def test_per_point_hover_labels_held_as_numpy_arrays_are_left_out_of_states():
    """A state carries no hover (nothing hovers during a drag). M-RoPE's token names are a numpy array: at 4,448
    tokens they are left out as a list of them is, so the largest settings' states fit their budget in numbers
    (32 states, not 2 whose labels alone took 250 KB); 40 names (the defaults) are a short label list, kept."""
    largest = build("mrope_ids", n_text_before=32, image_h=16, image_w=16, n_text_mid=32, video_t=16, video_h=16,
                    video_w=16, n_text_after=32, variant="qwen2_5_vl")
    assert len(largest.data[0].customdata) == 4448
    state = live_states_module.thin_state(largest, 62)
    assert [("customdata" in t) for t in state["data"]] == [False] * 3 and len(to_json(state)) < 5_000
    kept = live_states_module.thin_state(build("mrope_ids"), 1)["data"][0]["customdata"]
    assert list(kept) == list(build("mrope_ids").data[0].customdata)


@pytest.mark.parametrize("stride", [2, 3])
def test_a_thinned_grid_given_by_its_cell_edges_keeps_each_cell_over_its_own_positions(stride):
    """A heatmap of runs of positions gives its columns' edges (one more than its columns). A state with every
    k-th column keeps the edge before each kept column and the last one: each kept cell starts where it did and
    reaches the next kept one, so the grid still spans every position (not a grid squeezed to the left)."""
    fig = build("intro_binary", n_positions=1024, n_bits=12)
    edges, z = np.asarray(fig.data[0].x, dtype=float), _trace_array(fig.data[0].z)
    state = live_states_module.thin_state(fig, stride)["data"][0]
    kept_z, kept_edges = _trace_array(state["z"]), _trace_array(state["x"])
    assert kept_edges.size == kept_z.shape[1] + 1
    np.testing.assert_array_equal(kept_edges[:-1], edges[:-1:stride])
    assert kept_edges[-1] == edges[-1] == 1023.5
    np.testing.assert_array_equal(kept_z, z[::stride, ::stride])


@pytest.mark.parametrize("stride", [2, 3])
def test_a_thinned_grid_of_evenly_spaced_rows_keeps_each_row_over_its_own_positions(stride):
    """The sinusoidal table past 256 positions gives its rows as a first centre and a spacing (y0, dy), each row
    the mean of a run of positions. A state with every k-th row keeps the first centre and spaces the kept rows k
    times as far apart: each kept row stays over its own positions, and the table still reaches its last one."""
    fig = build("sinusoidal_heatmap", n_positions=3900, d_model=64)
    trace = fig.data[0]
    state = live_states_module.thin_state(fig, stride)["data"][0]
    kept = _trace_array(state["z"])
    assert state["y0"] == trace.y0 and state["dy"] == pytest.approx(trace.dy * stride)
    np.testing.assert_array_equal(kept, _trace_array(trace.z)[::stride, ::stride])
    last_row_centre = state["y0"] + (kept.shape[0] - 1) * state["dy"]
    assert last_row_centre == pytest.approx(trace.y0 + (len(trace.z) - 1) // stride * stride * trace.dy)
    assert 3900 - 0.5 - stride * trace.dy <= last_row_centre + state["dy"] / 2


def test_a_thinned_grid_of_named_rows_keeps_each_row_at_its_index():
    """FLUX.1's rows are token names on a category axis, and the line under the text tokens is drawn at index
    n_text - 0.5. A state with every third row keeps each row at its own index (Plotly.js would lay named rows
    one per index and the grid would shrink), so the line still parts the text rows from the patches."""
    fig = build("flux_angles", height=14, width=14, n_text=22, patch_rows=3)
    labels = [str(v) for v in fig.data[0].y]
    state = live_states_module.thin_state(fig, 3)
    axis, rows = state["layout"]["yaxis"], state["data"][0]["y"]
    assert rows == list(range(0, len(labels), 3)) == axis["tickvals"]
    assert axis["ticktext"] == labels[::3] and axis["type"] == "linear"
    assert axis["range"] == [len(labels) - 0.5, -0.5]  # top to bottom, as the exact figure's reversed axis
    assert _trace_array(state["data"][0]["z"]).shape[0] == len(rows)
    line = next(s["y0"] for s in state["layout"]["shapes"] if s.get("yref") == "y")
    texts = [i for i, name in zip(rows, axis["ticktext"], strict=True) if name.startswith("text")]
    assert max(texts) < line < min(set(rows) - set(texts))
    exact_note = next(a for a in fig.layout.annotations if a.yref in (None, "y"))
    note = next(a for a in state["layout"]["annotations"] if a["text"] == exact_note.text)
    assert note["y"] == labels.index(exact_note.y)
    assert live_states_module.thin_state(fig, 1)["layout"]["yaxis"]["type"] == "category"  # not thinned: as drawn


@pytest.mark.parametrize("name, params, param, control", [
    ("sinusoidal_heatmap", dict(n_positions=100, d_model=128, base=10000.0), "base", BASE),
    ("sinusoidal_heatmap", dict(n_positions=4096, d_model=1024, base=1e6), "base", BASE),
    ("gaussian_kernel_curve", dict(alpha1=0.7, alpha2=0.3, sigma1=50.0, sigma2=500.0), "sigma2", SIGMA2),
    ("patch_channel", dict(height=64, width=64, d_model=1024, base=10000.0), "base", BASE),
])
def test_states_fit_the_budget_at_defaults_and_the_largest_settings(name, params, param, control):
    values, states = live_states(name, params, param, slider_values(control))
    assert len(to_json(states)) <= STATE_BUDGET
    assert len(values) >= 10  # still enough states to move smoothly


def test_a_small_budget_means_fewer_states_never_an_overflow():
    params = dict(n_positions=100, d_model=128, base=10000.0)
    values, states = live_states("sinusoidal_heatmap", params, "base", slider_values(BASE),
                                      budget=60_000)
    assert len(to_json(states)) <= 60_000 and 10000.0 in values and len(values) >= 2


def test_values_the_builder_rejects_are_not_states(monkeypatch):
    def strict(name: str, **params: object):  # a builder that rejects beta_fast <= beta_slow
        if params["beta_fast"] <= params["beta_slow"]:
            raise ValueError("beta_fast must be larger than beta_slow")
        return build(name, **params)

    monkeypatch.setattr(live_states_module, "build", strict)
    ramp = dict(dim=128, base=10000.0, original_len=4096, beta_fast=32.0, beta_slow=8.0)
    beta_fast = Float("beta_fast", "β", default=32.0, lo=1.0, hi=128.0, step=1.0)
    values, states = live_states("scaling_yarn_ramp", ramp, "beta_fast", slider_values(beta_fast))
    assert min(values) > 8.0 and 32.0 in values and len(states) == len(values)
    with pytest.raises(ValueError, match="fewer than 2 valid values of 'beta_fast'"):
        live_states("scaling_yarn_ramp", {**ramp, "beta_slow": 200.0}, "beta_fast",
                         slider_values(beta_fast))


def test_a_trace_equal_in_every_state_is_sent_once_and_the_states_rebuild_exactly():
    clock = dict(dim=64, base=10000.0, m_max=30.0, n_frames=31)
    values, states = live_states("rope_clock", clock, "base", slider_values(BASE))
    sent = shared(states)
    assert "0" in sent["common"]  # the unit circles do not depend on the base: one copy for all states
    assert "1" not in sent["common"]  # the labels under them (i, λ_i) do
    for full, state in zip(states, sent["states"], strict=True):
        rebuilt = [t if t is not None else sent["common"][str(k)] for k, t in enumerate(state["data"])]
        assert to_json(rebuilt) == to_json(full["data"])
    assert len(to_json(sent)) < len(to_json(states))


def test_states_of_an_animated_figure_carry_its_exact_frames_within_the_budget():
    clock = dict(dim=64, base=10000.0, m_max=30.0, n_frames=31, show_angles=True)
    values, states = live_states("rope_clock", clock, "base", slider_values(BASE))
    assert len(to_json(shared(states))) <= STATE_BUDGET and len(values) == len(BASE.options)
    kept = [f["index"] for f in states[0]["frames"]]
    assert kept[0] == 0 and kept[-1] == 30 and len(kept) >= 5  # evenly spread over the whole animation
    v = values[4]
    exact = build("rope_clock", **{**clock, "base": v}).to_plotly_json()
    for frame in states[4]["frames"]:
        tips = frame["data"][frame["traces"].index(3)]  # trace 3: the tip of every hand at this position
        want = exact["frames"][frame["index"]]["data"][1]
        np.testing.assert_allclose(_trace_array(tips["x"]), _trace_array(want["x"]), rtol=1e-6)
        status = frame["data"][frame["traces"].index(4)]["text"]  # "m = 15: 3 of 16 pairs have completed ..."
        assert status == exact["frames"][frame["index"]]["data"][2]["text"]
        assert status[0].startswith(f"m = {30 * frame['index'] / 30:.4g}:")


def test_states_of_a_long_animation_carry_only_the_frames_its_slider_stops_at_each_named():
    """72 frames: the position slider stops at every other frame (and the last), so a learner can hold the clock
    only there; a state's frames are chosen among those stops and carry the name the slider's steps give them."""
    clock = dict(dim=64, base=10000.0, m_max=30.0, n_frames=72)
    fig = build("rope_clock", **clock)
    stops = [int(step.args[0][0]) for step in fig.layout.sliders[0].steps]
    assert stop_frames(fig) == tuple(stops) and stops[:3] == [0, 2, 4] and stops[-1] == 71
    _, states = live_states("rope_clock", clock, "base", slider_values(BASE))
    for frame in states[0]["frames"]:
        assert frame["index"] in stops and frame["name"] == str(frame["index"])
    assert stop_frames(go.Figure()) == ()  # not animated: no frames at all


LIVE_PAGES = {"Sinusoidal": ({}, {"n": "4096", "d": "1024"}),
              "Gaussian_kernel_RoPE": ({}, {"sigma1": "50", "sigma2": "500"}),
              "RoPE": ({"part": "clock"}, {"part": "clock", "d": "256", "pairs": "all", "frames": "72"}),
              "Context_extension": ({"part": "yarn"}, {"part": "yarn", "d": "256", "L": "131072"}),
              "2D_encodings": ({}, {"H": "64", "W": "64", "D": "1024"})}


@pytest.mark.app
@pytest.mark.parametrize("page", list(LIVE_PAGES))
def test_a_live_figure_and_its_states_fit_the_payload_caps(page):
    """≤ 500 KB per figure at defaults (two live sliders share what the exact figure leaves), ≤ 2 MB at the
    largest settings."""
    path = next(p for p in page_paths()[1:] if p.endswith(f"_{page}.py"))
    defaults, largest = LIVE_PAGES[page]
    assert live_payload(run_page(path, defaults)) <= 500_000
    assert live_payload(run_page(path, largest)) <= 2_000_000


@pytest.mark.app
def test_a_release_draws_the_exact_figure_kept_from_the_states_without_building_it(monkeypatch):
    """The states of RoPE's clock are built from the exact figure at every base the slider offers; a release at
    another base draws that figure as it was kept (no build), and it is the exact figure at the released base."""
    query = {"part": "clock", "seed": "4321", "d": "32"}  # settings no other test draws: nothing cached before
    at = run_page(next(p for p in page_paths() if p.endswith("_RoPE.py")), query)
    reach_for(at, "rope.base")  # the pointer over the slider: its states are fetched
    built = []
    real = live_figures.build
    monkeypatch.setattr(live_figures, "build", lambda name, **kw: built.append(name) or real(name, **kw))
    at.select_slider(key="rope.base").set_value(20000.0).run()
    assert "rope_clock" not in built
    drawn = chart_specs(at)[0]
    expected = style(build("rope_clock", dim=32, base=20000.0, m_max=30.0, n_frames=31, preset="ones", seed=4321,
                           layout="interleaved", pairs="spread", show_angles=False)).to_plotly_json()
    assert drawn["layout"]["title"]["text"] == expected["layout"]["title"]["text"]
    assert drawn["layout"]["title"]["text"].startswith("Clock hands") and "20000" in drawn["layout"]["title"]["text"]
    np.testing.assert_allclose(_trace_array(drawn["frames"][5]["data"][1]["x"]),
                               _trace_array(expected["frames"][5]["data"][1]["x"]), rtol=1e-6)


def test_the_states_share_what_the_exact_figure_leaves_of_the_cap_it_falls_under():
    # a figure at defaults (60 KB): its two sliders share what it leaves of 480 KB, at most 300 KB each
    assert state_budget(60_000, 2) == (FIGURE_BUDGET - 60_000) // 2 == 210_000
    assert state_budget(10_000, 1) == STATE_BUDGET
    # RoPE's largest clock (0.74 MB) is past the defaults' cap: its states fit under the 2 MB cap instead
    assert state_budget(737_273, 1) == STATE_BUDGET
    assert 737_273 + state_budget(737_273, 1) <= 2_000_000
    # never less than MIN_BUDGET, even for a figure near the 2 MB cap (the payload tests bound the total)
    assert state_budget(1_880_000, 1) == MIN_BUDGET
    for exact in range(0, 1_900_000, 10_000):
        for sliders in (1, 2):
            budget = state_budget(exact, sliders)
            assert MIN_BUDGET <= budget <= STATE_BUDGET
            assert exact + sliders * budget <= max(FIGURE_BUDGET, 2_000_000) or budget == MIN_BUDGET


def test_each_state_s_served_file_is_the_exact_figure_at_its_value():
    """The file the page fetches when the learner lets go at a state's value holds the exact figure there, as the
    builder makes it (not the thinned state)."""
    params = {"alpha1": 0.6, "alpha2": 0.4, "sigma1": 4.0}  # settings no other test uses
    sent = component.state_set("gaussian_kernel_curve", params, "sigma2", SIGMA2, "light", 0.0, STATE_BUDGET, True)
    assert len(sent["files"]) == len(sent["values"]) >= 2 and all(sent["files"])
    for value, name in list(zip(sent["values"], sent["files"], strict=True))[::9]:
        expected = style(build("gaussian_kernel_curve", **params, sigma2=value), "light", 0.0).to_json()
        assert (served.exact_dir() / name).read_text(encoding="utf-8") == expected


def test_a_chart_payload_is_plain_json_serialised_once():
    """The chart's data is one JSON text of plain values: the exact figure as a dict (not spliced text), and,
    where the figure is a served file still there, its name instead of the figure."""
    params = {"alpha1": 0.5, "alpha2": 0.5, "sigma1": 7.0, "sigma2": 30.0}
    chart = component.LiveChart("gaussian_kernel_curve", params, {"sigma2": "sigma2"}, {"sigma2": SIGMA2}, "g",
                                "light", 0.0, "g.kernel.chart")
    exact = live_figures.figure_json("gaussian_kernel_curve", params, "light", 0.0)
    payload = component.chart_payload(chart, exact, {}, "")
    assert json.loads(component.encode(payload)) == payload  # nothing but JSON values
    assert payload["exact"] == json.loads(style(build("gaussian_kernel_curve", **params), "light", 0.0).to_json())
    assert payload["exactFile"] is None and payload["exactId"] == exact.id
    assert payload["live"][0]["options"] == list(slider_values(SIGMA2)) and payload["live"][0]["key"] == "g.sigma2"


def test_a_payload_keeps_its_order_while_it_is_the_same_and_a_changed_one_comes_after_every_earlier_one():
    """chart.js draws no payload older than one it drew (two reruns' data can reach it in either order while its
    module loads): a rerun that sends the same payload sends the same text (no redraw, Streamlit's message cache
    still serves it), a changed one a larger order, and the text stays the payload's JSON."""
    kept: dict = {}
    first = component.ordered("c", '{"exactId":"a"}', kept)
    assert component.ordered("c", '{"exactId":"a"}', kept) == first
    changed = json.loads(component.ordered("c", '{"exactId":"b"}', kept))
    other = json.loads(component.ordered("d", '{"exactId":"a"}', kept))
    assert json.loads(first)["exactId"] == "a" and changed["exactId"] == "b"
    assert json.loads(first)["order"] < changed["order"] < other["order"]
    back = json.loads(component.ordered("c", '{"exactId":"a"}', kept))  # back to the first figure: newer still
    assert back["order"] > changed["order"]


def test_states_carry_no_64_bit_integers():
    """Plotly.js draws no int64 array (it refuses the dtype and the state is not drawn): integer data is narrowed
    to int32 where it fits, as plotly.py does for an exact figure, else sent as float64."""
    narrow = live_states_module._encode(np.arange(5, dtype=np.int64))
    assert narrow["dtype"] == "i4"
    assert np.array_equal(live_states_module._decode(narrow), np.arange(5))
    wide = live_states_module._encode(np.array([0, 2**40], dtype=np.int64))
    assert wide["dtype"] == "f8" and live_states_module._decode(wide)[1] == 2**40
    assert live_states_module._encode(np.ones(3))["dtype"] == "f4"
