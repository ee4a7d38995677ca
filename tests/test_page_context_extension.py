"""AppTest of pages/4_Context_extension.py: what every part shows, chosen extremes, lesson-specific fallbacks, the
presets, the paste box, pitfall toggles (every part clean at its declared extremes and with hostile URLs, each control
named: tests/test_pages_all.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from posviz import presets, ui
from posviz import scaling as sc
from testkit.apptest import (
    GARBAGE,
    assert_clean,
    chart_specs,
    each_pitfall,
    garbage_query,
    numbers,
    page_at,
    run_page,
    warnings_text,
)
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
# the numbers row shows what the part's own sidebar controls determine
SIZE_NUMBERS = ["L' = s·L", "pairs with λ > L", "NTK base b'"]
NUMBERS = {**dict.fromkeys(("pairs", "ratio", "unseen", "scores"), [*SIZE_NUMBERS, "YaRN low, high"]),
           "yarn": ["pairs with λ > L", "YaRN low, high"], "temperature": ["YaRN cos/sin × A", "logits × A²"],
           "entropy": [*SIZE_NUMBERS, "YaRN low, high", "YaRN cos/sin × A", "logits × A²"],
           "dynamic": [*SIZE_NUMBERS, "call 1: l = 32,768", "call 2: l = 18,432", "call 3: l = 2,048"],
           "models": ["target length", "cos/sin × A", "logits × A²"], "pitfalls": []}
# the sidebar controls each part reads (the sidebar shows only those)
EVERY_METHOD = ["methods", "d", "base", "s", "L", "beta_fast", "beta_slow", "truncate", "high_freq_factor",
                "low_freq_factor"]
USES = {**dict.fromkeys(("pairs", "ratio", "unseen", "scores"), EVERY_METHOD),
        "yarn": ["d", "base", "L", "beta_fast", "beta_slow", "truncate"],
        "temperature": ["s", "mscale", "mscale_all_dim"],
        "entropy": ["d", "base", "s", "L", "beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim"],
        "dynamic": ["d", "base", "s", "L"], "models": [], "pitfalls": ["d", "base", "s", "L", "high_freq_factor",
                                                                      "low_freq_factor"]}
EXTREME_HI = {"d": "256", "base": "10000000", "s": "128", "L": "131072", "beta_fast": "128", "beta_slow": "8",
              "truncate": "0", "mscale": "2", "mscale_all_dim": "2", "low_freq_factor": "4",
              "high_freq_factor": "32", "methods": "default,linear,ntk,dynamic,yarn,llama3"}
EXTREME_LO = {"d": "8", "base": "10", "s": "1", "L": "256", "beta_fast": "1", "beta_slow": "0.25",
              "mscale": "0", "mscale_all_dim": "0", "low_freq_factor": "0.25", "high_freq_factor": "1",
              "methods": "yarn"}
KEY = "context_extension"
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.app


def part_at(part: str, **query: str):
    """The shared run of ``part`` (a bare link for the first part): for tests that only read it."""
    return page_at(PAGE, **query) if part == "pairs" and not query else page_at(PAGE, **query, part=part)


def _texts(at) -> str:
    return "\n".join(str(t.value) for t in at.text)


@pytest.mark.parametrize("part", PARTS)
def test_defaults_every_part(part):
    at = part_at(part)
    assert_clean(at)
    assert not warnings_text(at)
    specs = chart_specs(at)
    assert len(specs) == CHARTS[part]
    for spec in specs:
        assert spec["data"], part
        assert spec["layout"]["title"]["text"].startswith(TITLES[part])
    assert list(numbers(at)) == NUMBERS[part]


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


def test_every_heading_carries_its_label_number_and_pitfalls_come_last():
    """A part's heading starts with the number of its label ("2. Per-pair scale" -> "2. The per-pair scale ..."),
    as in the other lessons, Pitfalls numbered too and last; the part drawn shows that heading."""
    lesson = ui.find(KEY, ROOT / "pages")
    parts = list(lesson.parts.values())
    for n, part in enumerate(parts, start=1):
        assert part.label.startswith(f"{n}. ") and (part.title or "").startswith(f"{n}. "), (part.label, part.title)
    assert parts[-1].key == "pitfalls" and parts[-1].title == f"{len(parts)}. Pitfalls"
    at = part_at("ratio")
    assert at.header[0].value == "2. The per-pair scale θ_i / θ'_i"


@pytest.mark.parametrize("part", CURVES)
def test_sidebar_settings_apply_to_every_curve_part(part):
    at = part_at(part, d="64", s="16")
    assert_clean(at)
    spec = chart_specs(at)[0]
    assert SIDEBAR_REACHES[part](spec), spec["layout"]["title"]["text"]
    if "L' = s·L" in NUMBERS[part]:
        assert numbers(at)["L' = s·L"] == "65,536"


def test_default_wavelength_chart_data():
    at = page_at(PAGE)
    assert_clean(at)
    wl = chart_specs(at)[0]
    names = [t["name"] for t in wl["data"] if t.get("showlegend", True) is not False]
    assert names == ["RoPE (no scaling)", "PI / linear", "NTK-aware (static)", "YaRN", "Llama 3"]
    metrics = numbers(at)
    assert metrics["L' = s·L"] == "32,768" and metrics["YaRN low, high"] == "20, 46"


@pytest.mark.parametrize("extreme", [EXTREME_HI, EXTREME_LO])
@pytest.mark.parametrize("part", CURVES)
def test_controls_at_extremes(extreme, part):
    at = part_at(part, **extreme)
    assert_clean(at)
    assert "invalid value" not in warnings_text(at)
    assert len(chart_specs(at)) == CHARTS[part]


def test_extreme_sizes_reach_the_chart():
    at = part_at("pairs", **EXTREME_HI)
    wl = chart_specs(at)[0]
    assert wl["layout"]["title"]["text"].startswith("Per-pair wavelengths, d = 256, b = 1e+07, s = 128")
    assert numbers(at)["L' = s·L"] == "16,777,216"
    assert "Llama 3 needs" not in warnings_text(at)


def test_llama3_band_order_cannot_be_inverted_and_the_slider_shows_its_bound():
    """Llama 3 divides by high − low: low_freq_factor's slider stops below high_freq_factor and says so."""
    at = run_page(PAGE, {"low_freq_factor": "4", "high_freq_factor": "2"})
    assert_clean(at)
    low = at.sidebar.slider(key=f"{KEY}.low_freq_factor")
    assert low.max == 1.75 and low.value == 1.75
    assert at.query_params["low_freq_factor"] in ("1.75", ["1.75"])  # the link holds what is drawn
    at.sidebar.slider(key=f"{KEY}.high_freq_factor").set_value(8.0).run()
    assert at.sidebar.slider(key=f"{KEY}.low_freq_factor").max == 4.0  # its own largest value


@pytest.mark.parametrize("part", PARTS)
def test_sidebar_shows_only_the_controls_the_part_reads(part):
    at = part_at(part)
    assert_clean(at)
    shown = sorted(w.key.removeprefix(f"{KEY}.") for kind in ("slider", "select_slider", "multiselect", "toggle",
                                                              "number_input") for w in at.sidebar.get(kind)
                   if str(w.key).startswith(f"{KEY}.") and not str(w.key).startswith(f"{KEY}._"))
    assert shown == sorted(USES[part])


SIDEBAR = ["d", "base", "s", "L", "beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim",
           "low_freq_factor", "high_freq_factor", "methods", "part"]


def test_garbage_in_every_query_parameter():
    """Every control and the part garbage at once, each a different class: the warning's wording, and the default
    view of the default part. (Each part's own controls named on a real page: tests/test_pages_all.py's hostile runs;
    every class of value for every control kind: tests/test_ui_params.py.)"""
    query = garbage_query(SIDEBAR)
    at = page_at(PAGE, **query)
    assert_clean(at)
    warn = warnings_text(at)
    for name in SIDEBAR:
        assert f"URL parameter `{name}` had an invalid value" in warn, (name, query[name])
    assert "<script>" not in warn
    (spec,) = chart_specs(at)  # every control fell back: the default view, the default part
    assert spec["layout"]["title"]["text"].startswith("Per-pair wavelengths, d = 128, b = 10000, s = 8")
    assert set(query.values()) == set(GARBAGE)  # every class in this one run


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
    at = part_at("models", preset=name)
    assert_clean(at)
    spec = chart_specs(at)[0]
    assert spec["layout"]["title"]["text"].startswith(name)
    frame = at.dataframe[0].value
    report = sc.describe_config(presets.get_preset(name).config)
    columns = ["value"] if len(report.blocks) == 1 else [b.layer_type for b in report.blocks]
    assert list(frame.columns) == ["key", *columns]
    for column in columns:
        read = dict(zip(frame["key"], frame[column], strict=True))
        assert read["rope_type"] in spec["layout"]["title"]["text"]
    holds = [m.value for m in at.markdown if "no pair turns faster" in m.value and "holds" in m.value]
    assert len(holds) == len(report.blocks)


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


BAD_PASTES = [  # (text, words of the reason shown)
    ('{"rope_theta": 10000,', "not valid JSON"),
    ('{"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4}}', "original_max_position_embeddings"),
    ('{"head_dim": "sixty-four"}', "head_dim"),
    ('{"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e300}}', "factor"),
    ('{"head_dim": 64, "rope_theta": 1e999}', "too large"),
    ('{"head_dim": 64, "rope_scaling": {"type": "<script>alert(1)</script>", "factor": 2}}', "rope_type"),
    ("[" * 5000 + "]" * 5000, "nested"),
    ('{"pad": "' + "x" * 1_000_000 + '"}', "limit"),
    ("[1, 2, 3]", "JSON object"),
    (json.dumps({"head_dim": 64, "max_position_embeddings": 8192, "rope_scaling": {  # reads, cannot compute
        "type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32,
        "original_max_position_embeddings": 1}}), "original_max_position_embeddings"),
]


def test_paste_bad_configs_get_a_precise_plain_text_message():
    """Each bad config pasted into the box in turn (one page, the box's text replaced each time)."""
    at = run_page(PAGE, {"part": "models"})
    for text, reason in BAD_PASTES:
        at.text_area(key=f"{KEY}.config_text").set_value(text).run()
        assert_clean(at)
        assert "could not be read" in warnings_text(at), reason
        shown = _texts(at)
        assert reason in shown
        assert "<script>" not in warnings_text(at)
        # nothing else is shown for it: before, the Llama 3.1 8B preset was drawn instead without a word
        assert not chart_specs(at) and not at.dataframe


def test_pitfall_toggles_show_wrong_beside_right():
    """Each toggle in turn (the previous one switched off in the same run): the wrong chart, then the right one."""
    at = run_page(PAGE, {"part": "pitfalls"})
    for key in each_pitfall(at, KEY, ("floor_ceil", "mscale", "linear", "inverted", "beta_fast_zero", "llama3")):
        specs = chart_specs(at)
        assert len(specs) == 2, key
        wrong, right = (s["layout"]["title"]["text"] for s in specs)
        assert wrong.startswith("✗") and right.startswith("✓"), key


def test_pitfalls_page_check_holds():
    at = part_at("pitfalls", d="96", s="16", L="2048")
    assert_clean(at)
    assert any("Llama 3 = YaRN paper ramp" in m.value and "holds" in m.value for m in at.markdown)


def test_deepseek_preset_shows_its_softmax_multiplier():
    at = part_at("models", preset="DeepSeek-V2")
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


def _caption(at, start: str) -> str:
    return next(c.value for c in at.caption if c.value.startswith(start))


@pytest.mark.parametrize("query", [{}, {"beta_slow": "0.25"}, {"d": "64", "s": "32", "methods": "default,ntk,yarn"}])
def test_unseen_caption_counts_the_crosses_the_figure_draws(query):
    at = part_at("unseen", **query)
    assert_clean(at)
    spec = chart_specs(at)[0]
    caption = _caption(at, "The grey dashed line")
    training = next(t for t in spec["data"] if t["name"] == "training: L·θ_i")
    assert training["line"]["dash"] == "dash" and training["line"]["color"] == "#8c8c8c"  # the words match the line
    crosses = {t["name"].split(": unseen")[0]: len(arr(t["x"])) for t in spec["data"] if "unseen angles" in t["name"]}
    pairs = int(query.get("d", 128)) // 2
    for line in (t for t in spec["data"] if t["name"].endswith(": L'·θ'_i")):
        label = line["name"].removesuffix(": L'·θ'_i")
        assert f"{label}: {crosses.get(label, 0)} of {pairs}" in caption
    assert ("PI's line lies exactly on the grey one" in caption) == ("linear" in query.get("methods", "linear"))


def test_unseen_pi_line_lies_on_the_training_line():
    spec = chart_specs(part_at("unseen"))[0]
    by_name = {t["name"]: arr(t["y"]) for t in spec["data"]}
    np.testing.assert_allclose(by_name["PI / linear: L'·θ'_i"], by_name["training: L·θ_i"], rtol=1e-6)


@pytest.mark.parametrize("truncate", ["1", "0"])
def test_yarn_ramp_caption_says_where_the_code_ramps(truncate):
    at = part_at("yarn", truncate=truncate)
    assert_clean(at)
    caption = _caption(at, "The code ramps")
    low, high = sc.yarn_correction_range(128, 10000.0, 4096, 32.0, 1.0, truncate == "1")
    for note in ("jquesnelle", "vLLM", "DeepSeek", "transformers' default"):  # implementation notes: in the code
        assert note not in caption
    if truncate == "1":
        assert f"floor(low) = {low:g} and ceil(high) = {high:g}" in caption and "gpt-oss" not in caption
        assert "rounded outwards to whole pairs" in caption
    else:
        assert f"low = {low:.3f} and high = {high:.3f}" in caption and "gpt-oss" in caption
        assert "floor" not in caption
    pair = int((low + high) // 2)
    code = sc.yarn_extrapolation_weight(128, 10000.0, 4096, 32.0, 1.0, truncate == "1", "code")[pair]
    paper = sc.yarn_extrapolation_weight(128, 10000.0, 4096, 32.0, 1.0, truncate == "1", "paper")[pair]
    assert f"pair {pair} keeps weight {code:.2f}" in caption and f"{paper:.2f} with the paper" in caption


def test_gpt_oss_preset_reads_truncate_false():
    at = part_at("models", preset="gpt-oss 20B")
    assert_clean(at)
    frame = at.dataframe[0].value
    assert dict(zip(frame["key"], frame["value"], strict=True))["truncate"] == "False"


@pytest.mark.parametrize("name", ["Llama 3.2 1B", "Llama 3.1 8B", "DeepSeek-V3", "Qwen2.5 7B Instruct + YaRN x4"])
def test_models_target_length_is_config_target_length(name):
    at = part_at("models", preset=name)
    assert_clean(at)
    read = sc.read_rope_config(presets.get_preset(name).config)
    target = sc.config_target_length(read)
    assert numbers(at)["target length"] == f"{target:,}"
    assert f"target length, {target:,} tokens" in _caption(at, "Dashed: plain RoPE")
    assert _caption(at, "Target length from") == f"Target length from {sc.config_target_source(read)}."
    assert any(f"at {target:,} tokens" in m.value for m in at.markdown)


def test_dynamic_part_shows_what_transformers_keeps():
    at = part_at("dynamic")
    assert_clean(at)
    caption = _caption(at, "Press Play")
    assert "as if it were computed afresh" in caption and "longest length seen so far" in caption
    assert "calls whose base differs from the chart's: 1 of 3" in caption
    lengths = np.array([32768, 18432, 2048])
    kept = sc.dynamic_ntk_bases(lengths, 128, 10000.0, 8.0, 4096)
    shown = numbers(at)
    assert shown["call 1: l = 32,768"] == f"b' = {kept[0]:,.0f}"
    fresh = sc.dynamic_base(128, 10000.0, 8.0, 4096, 18432)
    assert shown["call 2: l = 18,432"] == f"b' = {kept[1]:,.0f} (afresh: {fresh:,.0f})" and kept[1] == kept[0]
    assert shown["call 3: l = 2,048"] == "b' = 10,000"  # shorter than L: back to the original base


@pytest.mark.parametrize("query,binned", [({}, True), ({"s": "1", "L": "256"}, False)])
def test_scores_caption_says_how_the_far_view_is_drawn(query, binned):
    at = part_at("scores", **query)
    assert_clean(at)
    caption = _caption(at, "Left, every token")
    far = chart_specs(at)[0]["layout"]["annotations"]
    title = next(a["text"] for a in far if a["text"].startswith("far:"))
    if binned:  # L' = 8 × 4096: 1,000 bins of 32.8 tokens, each a mean line and a min..max band
        width = (8 * 4096 + 1) / 1000
        assert f"each bin of {width:,.3g} tokens" in caption and f"bins of {width:.3g}" in title
    else:
        assert "every token is drawn there" in caption and "every Δ up to L' = 256" in title


def test_temperature_and_entropy_captions_follow_the_factor():
    at = part_at("temperature", s="16")
    assert f"({sc.get_mscale(16.0):.4f} at s = 16)" in _caption(at, "YaRN multiplies")
    cooler = part_at("entropy", mscale="0.5", mscale_all_dim="1")
    assert_clean(cooler)
    A = sc.yarn_attention_factor(8.0, 0.5, 1.0)
    assert A < 1 and f"logits × A² = {A * A:.3f}) is below 1" in _caption(cooler, "Longer contexts")


def test_pitfall_numbers_are_computed():
    at = part_at("pitfalls")
    text = "\n".join(m.value for m in at.markdown)
    low, high = sc.numerator_rounded_yarn_bounds(64, 10000.0, 2048)
    assert f"{low:.3f} and {high:.3f} instead of 8 and 21" in text
    assert f"× {sc.scaled_cos_sin_logit_multiplier(16.0):.3f} at s = 16" in text and "× 1.631" in text


# ---------------------------------------------------------------------------- every caption number, two settings

@pytest.mark.parametrize("query,agree", [({}, False), ({"s": "1"}, True), ({"s": "4", "L": "1024", "d": "64"}, False)])
def test_dynamic_caption_teaches_the_cache_mismatch(query, agree):
    """The caption says that the KV cache holds keys after RoPE and that transformers never rotates them again
    (tests/test_claims.py checks its code), not that a change of base "re-rotates all cached keys"."""
    at = part_at("dynamic", **query)
    assert_clean(at)
    text = _caption(at, "Press Play")
    assert "must hold keys before RoPE" not in text and "re-rotates" not in text
    assert "The KV cache holds keys after RoPE, and transformers never rotates them again" in text
    assert "keep the angles of the old base while new queries turn with the new one" in text
    d, s, L = int(query.get("d", 128)), float(query.get("s", 8)), int(query.get("L", 4096))
    lengths = np.array([int(round(s * L)), (L + int(round(s * L))) // 2, max(1, L // 2)])
    kept = sc.dynamic_ntk_bases(lengths, d, 10000.0, s, L)
    fresh = np.array([sc.dynamic_base(d, 10000.0, s, L, int(n)) for n in lengths])
    differ = int((~np.isclose(kept, fresh)).sum())
    assert (differ == 0) == agree
    assert ("here all three agree with the chart" if agree else f"calls whose base differs from the chart's: "
            f"{differ} of 3") in text
    shown = numbers(at)
    assert shown[f"call 1: l = {lengths[0]:,}"].startswith(f"b' = {kept[0]:,.0f}")


@pytest.mark.parametrize("query", [{}, {"s": "16", "L": "8192", "beta_fast": "16", "d": "64"}])
def test_ratio_caption_numbers(query):
    at = part_at("ratio", **query)
    assert_clean(at)
    d, s, L, bf = int(query.get("d", 128)), float(query.get("s", 8)), int(query.get("L", 4096)), \
        float(query.get("beta_fast", 32))
    low, high = sc.yarn_correction_range(d, 10000.0, L, bf, 1.0, True)
    text = _caption(at, "1 means the pair is untouched")
    assert f"s = {s:g} means fully interpolated" in text
    assert f"YaRN is 1 up to pair {low:g} ('low'), s from pair {high:g} ('high') on" in text


@pytest.mark.parametrize("s", ["8", "2"])
def test_temperature_caption_at_two_scales(s):
    at = part_at("temperature", s=s)
    assert f"({sc.get_mscale(float(s)):.4f} at s = {s})" in _caption(at, "YaRN multiplies")


def test_entropy_caption_at_the_defaults():
    at = part_at("entropy")
    A = sc.yarn_attention_factor(8.0)
    assert f"(logits × A² = {A * A:.3f}) sharpens the softmax back" in _caption(at, "Longer contexts")
