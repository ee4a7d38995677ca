"""AppTest of the RoPE page: every part at defaults, controls at their extremes, pitfall toggles, hostile URLs."""

from __future__ import annotations

import base64
import json
import time

import numpy as np
import pytest

from posviz import rope
from posviz.figures import rope as rf
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, number_items, numbers, run_page, warnings_text

PAGE = "pages/3_RoPE.py"
GLOBAL = ["d", "base", "n", "layout", "seed", "m", "kpos", "c", "part"]
CLOCK = ["m_max", "frames", "preset", "pairs", "angles"]
# every part draws one chart (a slider move redraws one chart); first words of its title
PARTS = {"clock": "Clock hands", "tables": "Angle m·θ_i", "cossin": "cos/sin tables", "relative": "Score q_m·k_n",
         "leftright": "Left or right?", "layouts": "Pairs in both layouts", "mixed": "Norm after rotation",
         "decay": "The 'long-term decay'", "pitfalls": "float32 angle error"}


def arr(v) -> np.ndarray:
    """A plotly JSON array (plain list or typed {dtype, bdata, shape}) as numpy."""
    if isinstance(v, dict) and "bdata" in v:
        out = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return out.reshape([int(s) for s in str(v["shape"]).split(",")]) if "shape" in v else out
    return np.asarray(v, dtype=np.float64)


def title(spec: dict) -> str:
    return str(spec["layout"]["title"]["text"])



def checks(at) -> list[str]:
    return [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]


@pytest.mark.parametrize("part,words", sorted(PARTS.items()))
def test_every_part_at_defaults_draws_one_chart(part, words):
    at = run_page(PAGE, query={"part": part} if part != "clock" else None)
    assert_clean(at)
    assert warnings_text(at) == ""
    specs = chart_specs(at)
    assert len(specs) == 1
    assert title(specs[0]).startswith(words)
    assert all(c.startswith("✅") for c in checks(at))


def test_every_part_is_offered_and_old_links_open_the_first_half():
    at = run_page(PAGE)
    assert at.radio(key="rope.part").options == [
        "1. Clock hands", "2a. Angles", "2b. Stored tables", "3a. Only m − n matters", "3b. Left or right",
        "4a. Two layouts", "4b. Mixed layout", "5. The decay story", "6. Pitfalls"]
    # links shared before the split (part=tables, relative, layouts) open the first chart of the old part
    for part, words in (("tables", "Angle m·θ_i"), ("relative", "Score q_m·k_n"), ("layouts", "Pairs in both")):
        assert title(chart_specs(run_page(PAGE, query={"part": part}))[0]).startswith(words)


def test_clock_defaults():
    at = run_page(PAGE)
    clock = chart_specs(at)[0]
    assert len(clock["frames"]) == 31  # positions 0, 1, ..., 30: one token per frame
    # d = 64 -> 32 pairs, of which 16 are drawn by default, pair 0 (fastest) to pair 31 (slowest)
    assert clock["data"][1]["text"][0].startswith("i=0,") and clock["data"][1]["text"][-1].startswith("i=31,")
    assert len(arr(clock["data"][3]["x"])) == 16
    assert clock["layout"]["updatemenus"][0]["buttons"][0]["args"][1]["frame"]["redraw"] is False
    steps = clock["layout"]["sliders"][0]["steps"]
    assert [s["label"] for s in steps][:11] == ["0"] + [""] * 9 + ["10"]  # a light slider: every 10th label
    assert [s["args"][0][0] for s in steps] == [str(f) for f in range(31)]  # but a step for every frame
    assert [t["name"] for t in clock["data"]][-1] == "status"  # no angle line by default: 16 labels, not 32
    assert clock["frames"][5]["traces"] == [2, 3, 4]
    assert len(str(clock)) < 150_000


def test_clock_angle_labels_on_request():
    at = run_page(PAGE, query={"angles": "1"})
    assert_clean(at)
    clock = chart_specs(at)[0]
    angle_line = clock["data"][5]
    assert angle_line["texttemplate"] == "m·θ=%{customdata:.3~g} rad"
    theta = rope.inv_freq(64, 10000.0)[rf._pair_subset(32, "spread")]  # the 16 pairs drawn
    frame = clock["frames"][7]
    assert frame["traces"] == [2, 3, 4, 5]
    np.testing.assert_allclose(arr(frame["data"][3]["customdata"]), 7 * theta, rtol=1e-6)  # m = 7


def test_relative_part_numbers_and_grid():
    at = run_page(PAGE, query={"part": "relative"})
    (grid_spec,) = chart_specs(at)
    grid = arr(grid_spec["data"][0]["z"])
    assert grid.shape == (256, 256)
    assert np.ptp(np.diagonal(grid, -3)) < 1e-3
    m = numbers(at)
    q, k = rope.sample_qk(64, 0)
    assert float(m["q_m·k_n"]) == pytest.approx(rope.score(q, k, 5, 2), rel=1e-5)
    assert m["q_m·k_n"] == m["q_(m+c)·k_(n+c)"]
    assert m["‖q‖"] == m["‖R_m q‖"]
    assert len(checks(at)) == 1


def test_left_right_part_numbers_and_curves():
    at = run_page(PAGE, query={"part": "leftright"})
    (vs_spec,) = chart_specs(at)
    assert "Left or right" in title(vs_spec)
    rope_at, mirror = arr(vs_spec["data"][0]["y"]), arr(vs_spec["data"][1]["y"])
    np.testing.assert_allclose(mirror, rope_at[::-1], atol=1e-5)  # the mirror curve is the score at -Δ
    assert np.abs(rope_at - mirror).max() > 0.1  # and RoPE's score tells the two sides apart
    m = numbers(at)
    q, k = rope.sample_qk(64, 0)
    assert float(m["RoPE score at Δ = m − n"]) == pytest.approx(rope.score(q, k, 5, 2), rel=1e-5)
    assert m["RoPE score at Δ = m − n"] != m["RoPE score at −Δ"]
    assert m["sinusoidal PE·PE at Δ"] == m["sinusoidal PE·PE at −Δ"]


def test_layouts_part_check_and_pairing():
    at = run_page(PAGE, query={"part": "layouts", "d": "8"})
    assert_clean(at)
    pairing = chart_specs(at)[0]
    perm = arr(pairing["data"][0]["x"]).reshape(-1, 3)
    assert perm[:, 0].tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert checks(at)[0].startswith("✅ **Permuting q and k by P")


def test_smallest_settings():
    query = dict(d="2", base="10", n="8", m_max="1", frames="30", m="0", kpos="0", c="0", max_delta="16",
                 layout="half", preset="random", pairs="ends", seed="9999")
    for part in PARTS:
        at = run_page(PAGE, query={**query, "part": part})
        assert_clean(at)
        assert warnings_text(at) == ""
        specs = chart_specs(at)
        if part == "clock":
            assert len(specs[0]["frames"]) == 30
            assert len(arr(specs[0]["data"][3]["x"])) == 1
        if part == "tables":
            assert arr(specs[0]["data"][0]["z"]).shape == (1, 8)
        if part == "cossin":
            assert [arr(t["z"]).shape for t in specs[0]["data"]] == [(8, 2)] * 4
        if part == "relative":
            assert "half-split" in title(specs[0])


def test_largest_settings_cap_say_so_and_stay_fast():
    query = dict(d="256", base="1e+07", n="8192", m_max="8192", frames="72", m="8192", kpos="8192", c="8192",
                 max_delta="8192", pairs="stride4", angles="1")
    for part in PARTS:
        t0 = time.perf_counter()
        at = run_page(PAGE, query={**query, "part": part})
        assert time.perf_counter() - t0 < 10  # generous: AppTest start-up plus a cold cache on a shared box
        assert_clean(at)
        assert warnings_text(at) == ""
        specs = chart_specs(at)
        info = " ".join(i.value for i in at.info)
        assert max(len(str(s)) for s in specs) < 2_000_000
        if part == "clock":
            assert "strobe" in info
            assert len(arr(specs[0]["data"][3]["x"])) == 32
            assert len(specs[0]["frames"]) == 72 and specs[0]["frames"][0]["traces"] == [2, 3, 4, 5]  # live angles
            assert len(json.dumps(specs[0])) < 1_000_000  # the bound for the animation at d = 256
        if part == "relative":
            assert "1 position in 32" in info
            assert arr(specs[0]["data"][0]["z"]).shape == (256, 256)
        if part == "tables":
            assert "(1 position in 7 shown)" in title(specs[0])
        if part == "cossin":
            assert "(first 64 of 8192 positions shown)" in title(specs[0])
        t0 = time.perf_counter()  # a warm rerun at the largest settings stays under 2 s
        at.run()
        assert time.perf_counter() - t0 < 2.0, part


def test_slider_change_redraws():
    at = run_page(PAGE)
    at.slider(key="rope.d").set_value(128).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(arr(specs[0]["data"][3]["x"])) == 16  # 16 of the 64 pairs
    assert specs[0]["data"][1]["text"][-1].startswith("i=63,")  # down to the slowest pair of d = 128
    at.selectbox(key="rope.pairs").set_value("all").run()
    assert len(arr(chart_specs(at)[0]["data"][3]["x"])) == 64


def test_part_switch():
    at = run_page(PAGE)
    at.radio(key="rope.part").set_value("decay").run()
    assert_clean(at)
    specs = chart_specs(at)
    assert "decay" in title(specs[0])
    b = arr(specs[0]["data"][0]["y"])
    assert b[0] == pytest.approx(16.5)  # B(0) = (d/2 + 1)/2 at d = 64


@pytest.mark.parametrize("part,toggle,wrong_word", [("mixed", "mixed", "mixed"), ("pitfalls", "swap", "swapped"),
                                                     ("pitfalls", "freq", "claim")])
def test_pitfall_toggles_show_wrong_and_right(part, toggle, wrong_word):
    at = run_page(PAGE, query={"part": part})
    before = len(chart_specs(at))
    at.toggle(key=f"rope.pitfall.{toggle}").set_value(True).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == before + 2
    joined = " ".join(title(s) + " ".join(str(t.get("name")) for t in s["data"]) for s in specs)
    assert wrong_word in joined
    if toggle == "mixed":
        wrong = next(s for s in specs if "mixed" in title(s))
        assert np.ptp(np.diagonal(arr(wrong["data"][0]["z"]), -3)) > 0.1
        m = [v for k, v in number_items(at) if k.startswith("‖R_m q‖/")]
        assert len(m) == 2 and m[0] != m[1]
        drift = [float(v) for k, v in number_items(at) if k.startswith("largest |‖R_m q‖/‖q‖ − 1|, m < 256")]
        assert len(drift) == 2 and drift[0] > 1e-3 and drift[1] < 1e-12  # wrong side drifts, right side not
    if toggle == "swap":
        swapped = next(arr(s["data"][0]["z"]) for s in specs if "swapped" in title(s))
        right = next(arr(s["data"][0]["z"]) for s in specs
                     if title(s).startswith("Score") and "swapped" not in title(s))
        np.testing.assert_allclose(right.T, swapped, atol=1e-4)


def test_float32_pitfall_numbers():
    at = run_page(PAGE, query=dict(d="128", part="pitfalls"))
    at.toggle(key="rope.pitfall.f32").set_value(True).run()
    assert_clean(at)
    m = numbers(at)
    assert float(m["m = 10⁵"]) > 1e-3 > float(m["error at m = 10³"])


@pytest.mark.parametrize("garbage", GARBAGE)
def test_garbage_in_every_query_parameter(garbage):
    at = run_page(PAGE, query=dict.fromkeys(GLOBAL + CLOCK, garbage))
    assert_clean(at)
    text = warnings_text(at)
    for name in GLOBAL + CLOCK:
        assert f"`{name}`" in text, (name, text)
    assert "default" in text
    specs = chart_specs(at)
    assert len(specs) == 1 and specs[0]["data"][1]["text"][-1].startswith("i=31,")  # clock part, d = 64
    rendered = " ".join(md.value for md in at.markdown)
    assert "<script>" not in rendered


@pytest.mark.parametrize("garbage", ["abc", "nan", "1e309", "<script>alert(1)</script>", "-1", "15"])
def test_garbage_in_decay_control(garbage):
    at = run_page(PAGE, query={"part": "decay", "max_delta": garbage})
    assert_clean(at)
    assert "`max_delta`" in warnings_text(at) and "1024" in warnings_text(at)
    assert len(arr(chart_specs(at)[0]["data"][0]["y"])) == 1025
