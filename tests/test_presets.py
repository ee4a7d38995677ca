"""Every preset parses, matches transformers' own config class for that model, and plots."""

from __future__ import annotations

import copy
import importlib
import json
import logging
import warnings

import numpy as np
import pytest

from posviz import presets, scaling
from posviz.figures import build

transformers = pytest.importorskip("transformers")
logging.getLogger("transformers").setLevel(logging.ERROR)

MODEL = {
    "Llama 2 7B": ("LlamaConfig", "llama"), "Code Llama 7B": ("LlamaConfig", "llama"),
    "Mistral 7B v0.1": ("MistralConfig", "mistral"), "Llama 3 8B": ("LlamaConfig", "llama"),
    "Llama 3.1 8B": ("LlamaConfig", "llama"), "Llama 3.2 1B": ("LlamaConfig", "llama"),
    "Qwen2.5 7B Instruct + YaRN x4": ("Qwen2Config", "qwen2"), "DeepSeek-V2": ("DeepseekV2Config", "deepseek_v2"),
    "DeepSeek-V3": ("DeepseekV3Config", "deepseek_v3"), "gpt-oss 20B": ("GptOssConfig", "gpt_oss"),
    "Phi-3 mini 128k (Apr 2024)": ("Phi3Config", "phi3"), "GPT-NeoX 20B": ("GPTNeoXConfig", "gpt_neox"),
    "Llama 4 Scout 17B-16E": ("Llama4Config", "llama4"), "Gemma 3 27B": ("Gemma3Config", "gemma3"),
    "Qwen3 8B": ("Qwen3Config", "qwen3"), "Qwen2-VL 7B Instruct (M-RoPE)": ("Qwen2VLConfig", "qwen2_vl"),
}

# What the issue asks for, per preset: (rope_type, rotary dim d, base, factor or None)
EXPECTED = {
    "Llama 2 7B": ("default", 128, 1e4, None), "Code Llama 7B": ("default", 128, 1e6, None),
    "Mistral 7B v0.1": ("default", 128, 1e4, None), "Llama 3 8B": ("default", 128, 5e5, None),
    "Llama 3.1 8B": ("llama3", 128, 5e5, 8.0), "Llama 3.2 1B": ("llama3", 64, 5e5, 32.0),
    "Qwen2.5 7B Instruct + YaRN x4": ("yarn", 128, 1e6, 4.0), "DeepSeek-V2": ("yarn", 64, 1e4, 40.0),
    "DeepSeek-V3": ("yarn", 64, 1e4, 40.0), "gpt-oss 20B": ("yarn", 64, 150000.0, 32.0),
    "Phi-3 mini 128k (Apr 2024)": ("longrope", 96, 1e4, 32.0), "GPT-NeoX 20B": ("default", 24, 1e4, None),
    "Llama 4 Scout 17B-16E": ("llama3", 128, 5e5, 16.0), "Gemma 3 27B": ("linear", 128, 1e6, 8.0),
    "Qwen3 8B": ("default", 128, 1e6, None), "Qwen2-VL 7B Instruct (M-RoPE)": ("default", 128, 1e6, None),
}


def test_every_issue_model_is_there_with_a_source():
    assert set(presets.preset_names()) == set(EXPECTED)
    for name in presets.preset_names():
        p = presets.get_preset(name)
        assert len(p.source) > 40 and "config" in p.source


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_reads_as_expected(name):
    cfg = presets.get_preset(name).config
    rc = scaling.read_rope_config(json.loads(json.dumps(cfg)))  # survives a JSON round trip
    rope_type, dim, base, factor = EXPECTED[name]
    assert (rc.rope_type, rc.dim, rc.base) == (rope_type, dim, base)
    assert rc.params.get("factor") == factor


def test_specific_real_values():
    ds2 = scaling.read_rope_config(presets.get_preset("DeepSeek-V2").config)
    assert (ds2.params["mscale"], ds2.params["mscale_all_dim"], ds2.params["original_max_position_embeddings"]) \
        == (0.707, 0.707, 4096)
    ds3 = scaling.read_rope_config(presets.get_preset("DeepSeek-V3").config)
    assert (ds3.params["mscale"], ds3.params["mscale_all_dim"]) == (1.0, 1.0)
    assert scaling.deepseek_softmax_multiplier(40, ds3.params["mscale_all_dim"]) == pytest.approx(1.873854, 1e-6)
    oss = scaling.read_rope_config(presets.get_preset("gpt-oss 20B").config)
    assert oss.params["truncate"] is False
    phi = presets.get_preset("Phi-3 mini 128k (Apr 2024)").config["rope_scaling"]
    assert len(phi["short_factor"]) == len(phi["long_factor"]) == 48
    assert phi["long_factor"][0] == 1.0299999713897705 and phi["long_factor"][-1] == 64.81001281738281
    assert phi["short_factor"][0] == 1.05 and phi["short_factor"][-1] == 3.049999999999997
    neox = scaling.read_rope_config(presets.get_preset("GPT-NeoX 20B").config)
    assert (neox.head_dim, neox.partial_rotary_factor) == (96, 0.25)
    vl = scaling.read_rope_config(presets.get_preset("Qwen2-VL 7B Instruct (M-RoPE)").config)
    assert (vl.params["mrope_section"], vl.params["mrope_interleaved"]) == ((16, 24, 24), False)


def test_get_preset_returns_a_copy():
    a = presets.get_preset("Llama 3.1 8B")
    a.config["rope_scaling"]["factor"] = 99
    assert presets.get_preset("Llama 3.1 8B").config["rope_scaling"]["factor"] == 8.0
    with pytest.raises(ValueError, match="name"):
        presets.get_preset("Llama 9")


@pytest.mark.parametrize("name", list(EXPECTED))
@pytest.mark.parametrize("seq_len", [None, 200000])
def test_preset_matches_transformers_model_config(name, seq_len):
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cls_name, module = MODEL[name]
    cfg_dict = presets.get_preset(name).config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = getattr(transformers, cls_name)(**copy.deepcopy(cfg_dict)).get_text_config()
        per_layer = "full_attention" in cfg.rope_parameters  # Gemma 3: the global layers' block
        kwargs = {"layer_type": "full_attention"} if per_layer else {}
        rope_type = (cfg.rope_parameters["full_attention"] if per_layer else cfg.rope_parameters)["rope_type"]
        if rope_type == "default":
            mod = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
            rot = next(getattr(mod, k) for k in sorted(dir(mod)) if k.endswith("RotaryEmbedding"))
            inv, att = rot.compute_default_rope_parameters(cfg, **kwargs)
        else:
            inv, att = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len, **kwargs)
    ours, our_att = scaling.inv_freq_from_config(cfg_dict, seq_len)
    np.testing.assert_allclose(ours, inv.double().numpy(), rtol=1e-5)
    assert our_att == pytest.approx(float(att), rel=1e-6)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_preset_plots(name):
    fig = build("scaling_config", preset=name)
    ys = [np.asarray(t.y, dtype=float) for t in fig.data if t.y is not None and len(t.y) > 1]
    rc = scaling.read_rope_config(presets.get_preset(name).config)
    assert any(y.size == rc.dim // 2 for y in ys)
    assert all(np.all(np.isfinite(y)) for y in ys)
