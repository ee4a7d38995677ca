"""Issue 16, "Real configs, pasted as they are published": each config pasted into the Context extension page's
box (part 9) shows no error, and what it shows equals transformers 5.23's rotary module built from the same
text: the per-pair wavelengths drawn for every RoPE block, the cos/sin factor, the target length, the layers of
each block, the NoPE layers, M-RoPE's split and the rotary dims. A config that cannot be read shows the key and
the reason, and nothing of any other model. Each config is pasted once and its page shared by the tests that read
it."""

from __future__ import annotations

import functools
import json
import warnings

import numpy as np
import pytest

from posviz import scaling as sc
from testkit.apptest import assert_clean, chart_specs, frozen, numbers, run_page, warnings_text
from tests.test_cope_figures import arr
from tests.test_scaling_math import REAL, ROTARY

pytestmark = pytest.mark.app

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

PAGE = "pages/4_Context_extension.py"
BOX = "context_extension.config_text"
# microsoft/phi-2 config.json (RoPE keys): 32 heads of 80 channels, partial_rotary_factor 0.4 -> 32 rotate
PHI2 = {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 2048, "partial_rotary_factor": 0.4, "rope_theta": 10000.0, "rope_scaling": None}
CONFIGS = {**REAL, "Phi-2 (partial rotary)": PHI2}
MODULES = {**ROTARY, "phi": ("phi", "PhiRotaryEmbedding")}
LAYER_TYPES = ("full_attention", "sliding_attention")


def hf_rotary(config: dict):
    """transformers' text config and rotary module, built from the config exactly as pasted."""
    import copy
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = transformers.AutoConfig.for_model(**copy.deepcopy(config)).get_text_config()
        module, cls = MODULES[text.model_type]
        rot = getattr(importlib.import_module(f"transformers.models.{module}.modeling_{module}"), cls)(text)
    return text, rot


def hf_blocks(rot) -> dict[str, tuple[np.ndarray, float]]:
    """(inv_freq, attention scaling) per layer type as transformers holds them ("all" for a single block)."""
    per = {t: (getattr(rot, f"{t}_inv_freq").double().numpy(),
               float(getattr(rot, f"{t}_attention_scaling", getattr(rot, "attention_scaling", 1.0))))
           for t in LAYER_TYPES if hasattr(rot, f"{t}_inv_freq")}
    return per or {"all": (rot.inv_freq.double().numpy(), float(rot.attention_scaling))}


@functools.cache
def paste(text: str, preset: str = "Llama 3.1 8B"):
    """The page after ``text`` is pasted into the box, pasted once per text and shared by the tests that read it
    (several tests check different things about the same config)."""
    at = run_page(PAGE, {"part": "models", "preset": preset})
    at.text_area(key=BOX).set_value(text).run()
    return frozen(at)


def pasted(name: str):
    """The page after the config ``name`` is pasted as published (indented JSON)."""
    return paste(json.dumps(CONFIGS[name], indent=2))


def shown_text(at) -> str:
    """Markdown, captions and plain text of the page, markdown escapes removed."""
    import html
    import re

    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.text]
    return html.unescape(re.sub(r"\\(.)", r"\1", "\n".join(map(str, parts))))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_pasted_real_config_shows_transformers_numbers(name):
    config = CONFIGS[name]
    text, rot = hf_rotary(config)
    at = pasted(name)
    assert_clean(at)
    assert not warnings_text(at)
    spec = chart_specs(at)[0]
    assert spec["layout"]["title"]["text"].startswith("pasted config.json: ")
    shown = numbers(at)
    target = text.max_position_embeddings
    assert shown["target length"] == f"{target:,}"
    solid = {t["name"]: arr(t["y"]) for t in spec["data"] if t.get("mode") == "lines+markers" and t["xaxis"] == "x"}
    frame = at.dataframe[0].value
    blocks = hf_blocks(rot)
    assert len(solid) == len(blocks)
    for layer_type, (inv, att) in blocks.items():
        label = "every RoPE layer" if layer_type == "all" else layer_type
        (drawn,) = [y for n, y in solid.items() if n.startswith(label + ":") and n.endswith(f"at {target:,}")]
        np.testing.assert_allclose(drawn, 2 * np.pi / inv, rtol=1e-5)   # the wavelengths drawn = transformers'
        prefix = "" if layer_type == "all" else f"{layer_type}: "
        assert shown[prefix + "cos/sin × A"] == f"{att:.4f}"
        column = "value" if layer_type == "all" else layer_type
        read = dict(zip(frame["key"], frame[column], strict=True))
        assert read["rotary dim d"] == str(2 * inv.size)


def _runs(layers: list[int]) -> str:
    """Independent formatting of layer runs, as the page writes them (first six runs)."""
    runs: list[list[int]] = []
    for i in layers:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    out = ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs[:6])
    return out + (", …" if len(runs) > 6 else "")


@pytest.mark.parametrize("name", [n for n in CONFIGS if "Gemma" in n])
def test_gemma3_shows_which_layers_use_which_block(name):
    text, rot = hf_rotary(CONFIGS[name])
    at = pasted(name)
    shown = shown_text(at)
    n = text.num_hidden_layers
    for layer_type in LAYER_TYPES:
        layers = [i for i, t in enumerate(text.layer_types) if t == layer_type]
        base = text.rope_parameters[layer_type]["rope_theta"]
        assert f"{layer_type} ({'linear ×8' if layer_type == 'full_attention' else 'default'}, b = {base:g}): " \
               f"{len(layers)} of {n} layers ({_runs(layers)})." in shown
    assert len(chart_specs(at)[0]["data"]) >= 4  # plain and scaled curve of both blocks


@pytest.mark.parametrize("name", [n for n in CONFIGS if "no_rope" in n or "Llama 4" in n])
def test_nope_layers_are_named(name):
    text, _ = hf_rotary(CONFIGS[name])
    nope = [i for i, f in enumerate(text.no_rope_layers) if f == 0]
    assert nope  # Llama 4 derives them from no_rope_layer_interval, SmolLM3 lists them
    at = pasted(name)
    assert_clean(at)
    assert f"**No rotation (NoPE)** in {len(nope)} of {text.num_hidden_layers} layers ({_runs(nope)})" in shown_text(at)


def test_configs_without_nope_layers_do_not_claim_any():
    at = pasted("Qwen3 8B")
    assert_clean(at)
    assert "NoPE" not in shown_text(at)


@pytest.mark.parametrize("name", [n for n in CONFIGS if "VL" in n])
def test_mrope_split_is_said_and_drawn(name):
    text, rot = hf_rotary(CONFIGS[name])
    section = text.rope_parameters["mrope_section"]
    inv = rot.inv_freq.double().numpy()
    at = pasted(name)
    assert_clean(at)
    shown = shown_text(at)
    ends = np.cumsum([0, *section])
    spec = chart_specs(at)[0]
    for axis, first, stop in zip(("temporal", "height", "width"), ends[:-1], ends[1:], strict=True):
        assert f"pairs {first}–{stop - 1} (λ " in shown and f"turn with the {axis} position id" in shown
        (trace,) = [t for t in spec["data"] if t["name"] == f"M-RoPE {axis}: pairs {first}–{stop - 1}"]
        np.testing.assert_array_equal(arr(trace["x"]), np.arange(first, stop))
        np.testing.assert_allclose(arr(trace["y"]), 2 * np.pi / inv[first:stop], rtol=1e-5)


@pytest.mark.parametrize("name,rotating,head", [("Phi-2 (partial rotary)", 32, 80),
                                                ("DeepSeek-V3 (decoupled RoPE)", 64, 64)])
def test_rotary_dims_are_said(name, rotating, head):
    text, rot = hf_rotary(CONFIGS[name])
    assert rot.inv_freq.numel() * 2 == rotating
    at = pasted(name)
    shown = shown_text(at)
    whole = "all" if rotating == head else f"{rotating} of"
    assert f"Every head rotates {whole} its {head} channels (d = {rotating}, {rotating // 2} pairs" in shown
    if "DeepSeek" in name:
        assert (f"rotates qk_rope_head_dim = {text.qk_rope_head_dim} channels of the "
                f"{text.qk_rope_head_dim + text.qk_nope_head_dim}-channel query/key head") in shown


BROKEN = {  # config -> the key its message must name
    "Llama 4, high_freq_factor below low_freq_factor": (
        {"model_type": "llama4", "text_config": {**REAL["Llama 4 Scout (rope_scaling, text_config)"]["text_config"],
                                                 "rope_scaling": {"factor": 16.0, "high_freq_factor": 0.5,
                                                                  "low_freq_factor": 1.0, "rope_type": "llama3",
                                                                  "original_max_position_embeddings": 8192}}},
        "rope_scaling.high_freq_factor"),
    "Qwen2-VL, mrope_section not adding up": (
        {**REAL["Qwen2-VL 7B (mrope)"], "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 25]}},
        "rope_scaling.mrope_section"),
    "Gemma 3, unknown rope_type in a layer block": (
        {**REAL["Gemma 3 (transformers 5 per-layer rope_parameters)"],
         "rope_parameters": {"full_attention": {"rope_type": "<b>bold</b>", "rope_theta": 1e6},
                             "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}},
        "rope_parameters.full_attention.rope_type"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_config_shows_key_and_reason_and_no_other_model(name):
    config, key = BROKEN[name]
    with pytest.raises(ValueError) as err:
        sc.describe_config(json.loads(json.dumps(config)))
    assert str(err.value).startswith(key)
    at = paste(json.dumps(config))
    assert_clean(at)
    assert "could not be read" in warnings_text(at) and "nothing is shown for it" in warnings_text(at)
    assert [t.value for t in at.text] == [str(err.value)]   # the message, as plain text
    assert not chart_specs(at) and not at.dataframe           # nothing drawn: no preset swapped in
    assert "Llama 3.1" not in shown_text(at) and "<b>" not in "".join(m.value for m in at.markdown)


def test_layer_type_names_from_the_config_are_escaped():
    config = {"head_dim": 64, "num_hidden_layers": 2, "layer_types": ["*x*_attention", "full_attention"],
              "rope_parameters": {"*x*_attention": {"rope_type": "default", "rope_theta": 100.0},
                                  "full_attention": {"rope_type": "default", "rope_theta": 1e4}}}
    at = paste(json.dumps(config))
    assert_clean(at)
    assert any(r"\*x\*\_attention (default, b = 100): 1 of 2 layers (0)." in m.value for m in at.markdown)


LENGTH_FREE = {  # a scaling block added to a config whose max_position_embeddings is still the trained length
    "dynamic ×2": {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "head_dim": 64,
                   "num_hidden_layers": 2, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                   "rope_scaling": {"type": "dynamic", "factor": 2.0}},
    "linear ×4": {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "head_dim": 64,
                  "num_hidden_layers": 2, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                  "rope_scaling": {"type": "linear", "factor": 4.0}},
}


@pytest.mark.parametrize("name,target", [("dynamic ×2", 8192), ("linear ×4", 16384)])
def test_length_free_block_is_shown_at_factor_times_the_stated_length(name, target):
    """Both target factor × the stated 4,096 (at 4,096 itself the dynamic block would be plain RoPE): transformers'
    rotary module after one call of the target length gives the drawn wavelengths (dynamic: slowest pair divided
    by 3)."""
    import torch

    config = LENGTH_FREE[name]
    _, rot = hf_rotary(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rot(torch.zeros(1), torch.arange(target).view(1, -1))  # dynamic NTK updates its frequencies here
    inv = rot.inv_freq.double().numpy()
    at = paste(json.dumps(config, indent=2))
    assert_clean(at)
    assert numbers(at)["target length"] == f"{target:,}"
    texts = [c.value for c in at.caption]
    assert f"Target length from {sc.config_target_source(sc.read_rope_config(config))}." in texts
    assert any(t.startswith("Target length from factor × max_position_embeddings") for t in texts)
    assert any(f"at the model's target length, {target:,} tokens" in t for t in texts)
    spec = chart_specs(at)[0]
    (drawn,) = [arr(t["y"]) for t in spec["data"] if t.get("mode") == "lines+markers" and t["xaxis"] == "x"]
    np.testing.assert_allclose(drawn, 2 * np.pi / inv, rtol=1e-5)
    if name.startswith("dynamic"):
        assert (sc.inv_freq(64, 1e4) / inv)[-1] == pytest.approx(3.0, rel=1e-5)


def test_interleaved_mrope_is_said_per_axis():
    """Qwen3-VL interleaves its sections (some sixty runs of pairs): the page names each axis once, with how many
    pairs it turns, instead of listing every run."""
    config = {**CONFIGS["Qwen2-VL 7B (mrope)"],
              "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}}
    at = paste(json.dumps(config, indent=2))
    assert_clean(at)
    shown = shown_text(at)
    axis = sc.describe_config(config).mrope_axis
    for a, name in enumerate(("temporal", "height", "width")):
        count = int((axis == a).sum())
        assert shown.count(f"turn with the {name} position id") == 1
        assert f"{count} pairs, interleaved (λ " in shown or f"pairs 0–{count - 1} (λ " in shown
    assert "pairs 1–1 " not in shown
