"""AppTest of the RoPE page: defaults, controls at their extremes, pitfall toggles, hostile URLs."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from posviz import rope
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, run_page, warnings_text

PAGE = "pages/4_RoPE.py"
PARAMS = ["d", "base", "n", "layout", "seed", "m_max", "frames", "preset", "pairs", "m", "kpos", "c", "max_delta"]


def arr(v) -> np.ndarray:
    """A plotly JSON array (plain list or typed {dtype, bdata, shape}) as numpy."""
    if isinstance(v, dict) and "bdata" in v:
        out = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return out.reshape([int(s) for s in str(v["shape"]).split(",")]) if "shape" in v else out
    return np.asarray(v, dtype=np.float64)


def titles(at) -> list[str]:
    return [s["layout"]["title"]["text"] for s in chart_specs(at)]


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_defaults():
    at = run_page(PAGE)
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 9
    clock = specs[0]
    assert len(clock["frames"]) == 49
    assert len(arr(clock["data"][3]["x"])) == 32  # d = 64 -> 32 hands
    assert clock["layout"]["updatemenus"][0]["buttons"][0]["args"][1]["frame"]["redraw"] is False
    assert "Angle" in specs[1]["layout"]["title"]["text"]
    grid = arr(specs[3]["data"][0]["z"])
    assert grid.shape == (256, 256)
    assert np.ptp(np.diagonal(grid, -3)) < 1e-3
    m = metrics(at)
    q, k = rope.sample_qk(64, 0)
    assert float(m["q_m·k_n"]) == pytest.approx(rope.score(q, k, 5, 2), rel=1e-5)
    assert m["q_m·k_n"] == m["q_(m+c)·k_(n+c)"]
    assert m["‖q‖"] == m["‖R_m q‖"]
    assert m["RoPE score at Δ = m − n"] != m["RoPE score at −Δ"]
    assert m["sinusoidal PE·PE at Δ"] == m["sinusoidal PE·PE at −Δ"]
    checks = [md.value for md in at.markdown if md.value.startswith(("✅", "❌"))]
    assert len(checks) == 2 and all(c.startswith("✅") for c in checks)
    assert warnings_text(at) == ""


def test_smallest_settings():
    at = run_page(PAGE, query=dict(d="2", base="10", n="8", m_max="1", frames="30", m="0", kpos="0", c="0",
                                   max_delta="16", layout="half", preset="random", pairs="ends", seed="9999"))
    assert_clean(at)
    assert warnings_text(at) == ""
    specs = chart_specs(at)
    assert len(specs[0]["frames"]) == 30
    assert len(arr(specs[0]["data"][3]["x"])) == 1
    assert arr(specs[1]["data"][0]["z"]).shape == (1, 8)
    assert "half-split" in specs[3]["layout"]["title"]["text"]


def test_largest_settings_cap_and_say_so():
    at = run_page(PAGE, query=dict(d="256", base="1e+07", n="8192", m_max="8192", frames="72", m="8192",
                                   kpos="8192", c="8192", max_delta="8192", pairs="stride4"))
    assert_clean(at)
    assert warnings_text(at) == ""
    info = " ".join(i.value for i in at.info)
    assert "strobe" in info and "1 position in 32" in info
    specs = chart_specs(at)
    assert len(arr(specs[0]["data"][3]["x"])) == 32
    assert arr(specs[3]["data"][0]["z"]).shape == (256, 256)
    assert "shown" in specs[1]["layout"]["title"]["text"]
    sizes = [len(str(s)) for s in specs]
    assert max(sizes) < 2_000_000


def test_slider_change_redraws():
    at = run_page(PAGE)
    at.slider(key="rope.d").set_value(128).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(arr(specs[0]["data"][3]["x"])) == 64
    assert at.query_params["d"] == ["128"] or at.query_params["d"] == "128"


@pytest.mark.parametrize("toggle,wrong_word", [("mixed", "mixed"), ("swap", "swapped"), ("freq", "claim")])
def test_pitfall_toggles_show_wrong_and_right(toggle, wrong_word):
    at = run_page(PAGE)
    before = len(chart_specs(at))
    at.toggle(key=f"rope.pitfall.{toggle}").set_value(True).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == before + 2
    joined = " ".join(str(s["layout"]["title"]["text"]) + " ".join(str(t.get("name")) for t in s["data"])
                      for s in specs)
    assert wrong_word in joined
    if toggle == "mixed":
        wrong = next(s for s in specs if "mixed" in s["layout"]["title"]["text"])
        assert np.ptp(np.diagonal(arr(wrong["data"][0]["z"]), -3)) > 0.1
        m = [x.value for x in at.metric if x.label.startswith("‖R_m q‖/")]
        assert len(m) == 2 and m[0] != m[1]
    if toggle == "swap":
        grids = [arr(s["data"][0]["z"]) for s in specs if "Score" in s["layout"]["title"]["text"]
                 and "(1 position" not in s["layout"]["title"]["text"]]
        swapped = next(arr(s["data"][0]["z"]) for s in specs if "swapped" in s["layout"]["title"]["text"])
        assert any(g.shape == swapped.shape and np.allclose(g.T, swapped, atol=1e-4) for g in grids)


def test_float32_pitfall_numbers():
    at = run_page(PAGE, query=dict(d="128"))
    at.toggle(key="rope.pitfall.f32").set_value(True).run()
    assert_clean(at)
    m = metrics(at)
    assert float(m["m = 10⁵"]) > 1e-3 > float(m["error at m = 10³"])


@pytest.mark.parametrize("garbage", GARBAGE)
def test_garbage_in_every_query_parameter(garbage):
    at = run_page(PAGE, query=dict.fromkeys(PARAMS, garbage))
    assert_clean(at)
    text = warnings_text(at)
    for name in PARAMS:
        assert f"`{name}`" in text, (name, text)
    assert "default" in text
    assert len(chart_specs(at)) == 9
    assert len(arr(chart_specs(at)[0]["data"][3]["x"])) == 32  # fell back to d = 64
    rendered = " ".join(md.value for md in at.markdown)
    assert "<script>" not in rendered
