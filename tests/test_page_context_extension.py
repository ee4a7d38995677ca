"""AppTest of pages/4_Context_extension.py: every part, extremes, garbage URLs, presets, the paste box."""

from __future__ import annotations

import json

import pytest

from posviz import presets
from tests.apptest_utils import GARBAGE, assert_clean, chart_specs, numbers, run_page, warnings_text
from tests.test_cope_figures import arr

PAGE = "pages/4_Context_extension.py"
PARTS = ["pairs", "ratio", "unseen", "yarn", "temperature", "entropy", "dynamic", "scores", "models", "pitfalls"]
CURVES = PARTS[:8]  # the parts that draw curves for the sidebar's settings (and show the numbers row)
# one chart per part, so a slider move redraws one chart; "pairs" and "yarn" (keys of shared links from before
# the split) open the first of their former charts
TITLES = {"pairs": "Per-pair wavelengths", "ratio": "How much each pair is slowed down", "unseen": "Unseen angles",
          "yarn": "YaRN ramp", "temperature": "Attention temperature", "entropy": "Attention entropy vs length",
          "dynamic": "Dynamic NTK", "scores": "Attention score vs distance", "models": "Llama 3.1 8B"}
CHARTS = {part: int(part in TITLES) for part in PARTS}
EXTREME_HI = {"d": "256", "base": "10000000", "s": "128", "L": "131072", "beta_fast": "128", "beta_slow": "8",
              "truncate": "0", "mscale": "2", "mscale_all_dim": "2", "low_freq_factor": "4",
              "high_freq_factor": "32", "methods": "default,linear,ntk,dynamic,yarn,llama3"}
EXTREME_LO = {"d": "8", "base": "10", "s": "1", "L": "256", "beta_fast": "1", "beta_slow": "0.25",
              "mscale": "0", "mscale_all_dim": "0", "low_freq_factor": "0.25", "high_freq_factor": "1",
              "methods": "yarn"}
KEY = "context_extension"


def _texts(at) -> str:
    return "\n".join(str(t.value) for t in at.text)


@pytest.mark.parametrize("part", PARTS)
def test_defaults_every_part(part):
    at = run_page(PAGE, {"part": part})
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == CHARTS[part]
    for spec in specs:
        assert spec["data"], part
        assert spec["layout"]["title"]["text"].startswith(TITLES[part])
    labels = list(numbers(at))
    if part in CURVES:
        assert labels == ["L' = s·L", "pairs with λ > L", "NTK base b'", "YaRN low, high", "YaRN cos/sin × A",
                          "logits × A²"]
    else:
        assert "L' = s·L" not in labels


SIDEBAR_REACHES = {  # d = 64, s = 16 in the sidebar: what each curve part shows of them
    "pairs": lambda spec: "d = 64, b = 10000, s = 16" in spec["layout"]["title"]["text"],
    "ratio": lambda spec: "(s = 16, L = 4,096)" in spec["layout"]["title"]["text"],
    "unseen": lambda spec: "L' = 65,536" in spec["layout"]["title"]["text"] and len(arr(spec["data"][0]["x"])) == 32,
    "yarn": lambda spec: "d = 64, L = 4,096" in spec["layout"]["title"]["text"],
    "temperature": lambda spec: spec["data"][-1]["name"] == "s = 16",
    "entropy": lambda spec: arr(spec["data"][0]["x"]).max() == pytest.approx(65536, rel=1e-6),
    "dynamic": lambda spec: "(d = 64, L = 4,096, s = 16)" in spec["layout"]["title"]["text"],
    "scores": lambda spec: any("L' = 65,536" in a["text"] for a in spec["layout"]["annotations"]),
}


@pytest.mark.parametrize("part", CURVES)
def test_sidebar_settings_apply_to_every_curve_part(part):
    at = run_page(PAGE, {"part": part, "d": "64", "s": "16"})
    assert_clean(at)
    spec = chart_specs(at)[0]
    assert SIDEBAR_REACHES[part](spec), spec["layout"]["title"]["text"]
    assert numbers(at)["L' = s·L"] == "65,536"


def test_default_wavelength_chart_data():
    at = run_page(PAGE)
    assert_clean(at)
    wl = chart_specs(at)[0]
    names = [t["name"] for t in wl["data"] if t.get("showlegend", True) is not False]
    assert names == ["RoPE (no scaling)", "PI / linear", "NTK-aware (static)", "YaRN", "Llama 3"]
    metrics = numbers(at)
    assert metrics["L' = s·L"] == "32,768" and metrics["YaRN low, high"] == "20, 46"


@pytest.mark.parametrize("extreme", [EXTREME_HI, EXTREME_LO])
@pytest.mark.parametrize("part", CURVES)
def test_controls_at_extremes(extreme, part):
    at = run_page(PAGE, {**extreme, "part": part})
    assert_clean(at)
    assert "invalid value" not in warnings_text(at)
    assert len(chart_specs(at)) == CHARTS[part]


def test_extreme_sizes_reach_the_chart():
    at = run_page(PAGE, {**EXTREME_HI, "part": "pairs"})
    wl = chart_specs(at)[0]
    assert wl["layout"]["title"]["text"].startswith("Per-pair wavelengths, d = 256, b = 1e+07, s = 128")
    assert numbers(at)["L' = s·L"] == "16,777,216"
    assert "Llama 3 needs" not in warnings_text(at)


def test_llama3_band_order_is_repaired_with_a_warning():
    at = run_page(PAGE, {"low_freq_factor": "4", "high_freq_factor": "2"})
    assert_clean(at)
    assert "high_freq_factor = low_freq_factor + 1" in warnings_text(at)


SIDEBAR = ["d", "base", "s", "L", "beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim",
           "low_freq_factor", "high_freq_factor", "methods", "part"]


@pytest.mark.parametrize("junk", ["abc", "nan", "inf", "-1", "1e309", "", "<script>alert(1)</script>"])
def test_garbage_in_every_query_parameter(junk):
    at = run_page(PAGE, dict.fromkeys(SIDEBAR, junk))
    assert_clean(at)
    warn = warnings_text(at)
    for name in SIDEBAR:
        assert f"URL parameter `{name}` had an invalid value" in warn, (name, junk)
    assert "<script>" not in warn
    (spec,) = chart_specs(at)  # every control fell back: the default view, the default part
    assert spec["layout"]["title"]["text"].startswith("Per-pair wavelengths, d = 128, b = 10000, s = 8")


def test_garbage_list_from_utils_on_part_specific_controls():
    for name, part in (("curve", "pairs"), ("ramp", "yarn"), ("qk", "scores"), ("preset", "models")):
        for junk in GARBAGE:
            at = run_page(PAGE, {"part": part, name: junk})
            assert_clean(at)
            assert f"`{name}`" in warnings_text(at)


def test_slider_move_changes_the_chart():
    at = run_page(PAGE)
    before = chart_specs(at)[0]
    at.slider(key=f"{KEY}.d").set_value(64).run()
    assert_clean(at)
    after = chart_specs(at)[0]
    assert "d = 64" in after["layout"]["title"]["text"] and before["layout"]["title"]["text"] != \
        after["layout"]["title"]["text"]


@pytest.mark.parametrize("name", presets.preset_names())
def test_every_preset(name):
    at = run_page(PAGE, {"part": "models", "preset": name})
    assert_clean(at)
    spec = chart_specs(at)[0]
    assert spec["layout"]["title"]["text"].startswith(name)
    frame = at.dataframe[0].value
    read = dict(zip(frame["key"], frame["value"], strict=True))
    assert read["rope_type"] in spec["layout"]["title"]["text"]
    assert any("no pair turns faster" in m.value and "holds" in m.value for m in at.markdown)


def _paste(text: str):
    at = run_page(PAGE, {"part": "models"})
    at.text_area(key=f"{KEY}.config_text").set_value(text).run()
    return at


def test_paste_a_real_config():
    cfg = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
           "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                    "original_max_position_embeddings": 8192,
                                                    "rope_type": "llama3"}}
    at = _paste(json.dumps(cfg, indent=2))
    assert_clean(at)
    assert not warnings_text(at)
    spec = chart_specs(at)[0]
    assert spec["layout"]["title"]["text"].startswith("pasted config.json: llama3, d = 128")
    frame = at.dataframe[0].value
    read = dict(zip(frame["key"], frame["value"], strict=True))
    assert read["rotary dim d"] == "128" and read["factor"] == "8.0" and read["low_freq_factor"] == "1.0"


@pytest.mark.parametrize("text,reason", [
    ('{"rope_theta": 10000,', "not valid JSON"),
    ('{"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4}}', "original_max_position_embeddings"),
    ('{"head_dim": "sixty-four"}', "head_dim"),
    ('{"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e300}}', "factor"),
    ('{"head_dim": 64, "rope_theta": 1e999}', "too large"),
    ('{"head_dim": 64, "rope_scaling": {"type": "<script>alert(1)</script>", "factor": 2}}', "rope_type"),
    ("[" * 5000 + "]" * 5000, "nested"),
    ('{"pad": "' + "x" * 1_000_000 + '"}', "limit"),
    ("[1, 2, 3]", "JSON object"),
])
def test_paste_bad_configs_get_a_precise_plain_text_message(text, reason):
    at = _paste(text)
    assert_clean(at)
    assert "could not be read" in warnings_text(at)
    shown = _texts(at)
    assert reason in shown
    assert "<script>" not in warnings_text(at)
    # falls back to the preset's chart
    assert chart_specs(at)[0]["layout"]["title"]["text"].startswith("Llama 3.1 8B")


@pytest.mark.parametrize("key", ["floor_ceil", "mscale", "linear", "inverted", "beta_fast_zero", "llama3"])
def test_pitfall_toggles_show_wrong_beside_right(key):
    at = run_page(PAGE, {"part": "pitfalls"})
    at.toggle(key=f"{KEY}.pitfall.{key}").set_value(True).run()
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == 2
    wrong, right = (s["layout"]["title"]["text"] for s in specs)
    assert wrong.startswith("✗") and right.startswith("✓")


def test_pitfalls_page_check_holds():
    at = run_page(PAGE, {"part": "pitfalls", "d": "96", "s": "16", "L": "2048"})
    assert_clean(at)
    assert any("Llama 3 = YaRN paper ramp" in m.value and "holds" in m.value for m in at.markdown)


def test_paste_that_reads_but_cannot_compute_is_caught():
    text = json.dumps({"head_dim": 64, "max_position_embeddings": 8192, "rope_scaling": {
        "type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32,
        "original_max_position_embeddings": 1}})
    at = _paste(text)
    assert_clean(at)
    assert "could not be read" in warnings_text(at)
    assert "original_max_position_embeddings" in _texts(at)


def test_deepseek_preset_shows_its_softmax_multiplier():
    at = run_page(PAGE, {"part": "models", "preset": "DeepSeek-V2"})
    assert_clean(at)
    metrics = numbers(at)
    assert metrics["cos/sin × A"] == "1.0000" and metrics["softmax scale × (DeepSeek)"] == "1.5896"


def test_wavelength_part_switches_to_frequencies():
    at = run_page(PAGE, {"curve": "frequency", "d": "64"})
    assert_clean(at)
    (spec,) = chart_specs(at)
    assert spec["layout"]["title"]["text"].startswith("Per-pair frequencies, d = 64")
    rope = next(t for t in spec["data"] if t["name"] == "RoPE (no scaling)")
    assert arr(rope["y"])[0] == pytest.approx(1.0)  # θ_0 = b^0 = 1 rad/token
    at.radio(key=f"{KEY}.curve").set_value("wavelength").run()
    (spec,) = chart_specs(at)
    assert spec["layout"]["title"]["text"].startswith("Per-pair wavelengths, d = 64")
    assert "curve" not in at.query_params  # the default is left out of the shared link
