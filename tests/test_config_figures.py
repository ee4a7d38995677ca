"""posviz.figures.configs: the plotted data is describe_config's, block by block; a paste is never replaced."""

from __future__ import annotations

import json

import numpy as np
import pytest

from posviz import presets
from posviz import scaling as sc
from posviz.figures.configs import config_blocks, config_source
from posviz.rope import inv_freq


@pytest.mark.parametrize("name", presets.preset_names())
def test_every_block_is_drawn_with_describe_config_numbers(name):
    report = sc.describe_config(presets.get_preset(name).config)
    fig = config_blocks(preset=name)
    assert fig.layout.title.text.startswith(name)
    for block in report.blocks:
        rc = block.rope
        (solid,) = [t for t in fig.data if t.xaxis == "x" and t.mode == "lines+markers"
                    and t.name.startswith(("every RoPE layer" if block.layer_type == "all" else block.layer_type)
                                          + ":")]
        np.testing.assert_allclose(solid.y, 2 * np.pi / block.inv_freq, rtol=1e-6)
        assert f"cos/sin × {block.attention_factor:.4g}" in solid.name
        (plain,) = [t for t in fig.data if t.name == f"plain RoPE, b = {rc.base:g}"][:1]
        np.testing.assert_allclose(plain.y, 2 * np.pi / inv_freq(rc.dim, rc.base), rtol=1e-6)


def test_gemma3_draws_two_blocks_with_their_own_bases():
    fig = config_blocks(preset="Gemma 3 27B")
    solid = [t for t in fig.data if t.xaxis == "x" and t.mode == "lines+markers"]
    assert [t.name.split(":")[0] for t in solid] == ["full_attention", "sliding_attention"]
    theta_global, theta_local = inv_freq(128, 1e6), inv_freq(128, 1e4)
    np.testing.assert_allclose(solid[0].y, 2 * np.pi / (theta_global / 8), rtol=1e-6)  # linear ×8
    np.testing.assert_allclose(solid[1].y, 2 * np.pi / theta_local, rtol=1e-6)          # unscaled local layers


def test_mrope_squares_cover_every_pair_once():
    cfg = {"head_dim": 128, "rope_theta": 1e6, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
    fig = config_blocks(config_json=json.dumps(cfg))
    squares = [t for t in fig.data if t.name.startswith("M-RoPE")]
    assert [t.name for t in squares] == ["M-RoPE temporal: pairs 0–15", "M-RoPE height: pairs 16–39",
                                         "M-RoPE width: pairs 40–63"]
    np.testing.assert_array_equal(np.concatenate([t.x for t in squares]), np.arange(64))


def test_interleaved_mrope_is_one_legend_entry_per_axis():
    """Qwen3-VL's interleaved sections: one square trace per axis holding exactly the pairs transformers' Qwen3-VL
    turns with that id (posviz.scaling.mrope_axis, tested against it), not one per run of pairs."""
    cfg = {"head_dim": 128, "rope_theta": 5e5, "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20],
                                                                "mrope_interleaved": True}}
    fig = config_blocks(config_json=json.dumps(cfg))
    squares = [t for t in fig.data if t.name.startswith("M-RoPE")]
    assert [t.name for t in squares] == ["M-RoPE temporal: 24 pairs, interleaved", "M-RoPE height: 20 pairs, "
                                         "interleaved", "M-RoPE width: 20 pairs, interleaved"]
    axis = sc.mrope_axis((24, 20, 20), True)
    for a, t in enumerate(squares):
        np.testing.assert_array_equal(t.x, np.flatnonzero(axis == a))
    np.testing.assert_array_equal(squares[1].x[:3], [1, 4, 7])


def test_the_config_table_shows_mrope_section_whole():
    """RopeConfig.summary (the page's "what was read" table) gives the three pair counts and their order, not the
    "list of 3 numbers, 16 .. 24" of a long factor list."""
    chunked = {"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
    assert sc.read_rope_config(chunked).summary()["mrope_section"] == \
        "[16, 24, 24] pairs (temporal, height, width), of 64"
    interleaved = {"head_dim": 128, "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20],
                                                     "mrope_interleaved": True}}
    assert sc.read_rope_config(interleaved).summary()["mrope_section"] == \
        "[24, 20, 20] pairs (interleaved t, h, w), of 64"


def test_a_paste_is_read_never_replaced():
    cfg, name = config_source("Llama 3.1 8B", '{"head_dim": 64}')
    assert (cfg, name) == ({"head_dim": 64}, "pasted config.json")
    with pytest.raises(ValueError, match="not valid JSON"):
        config_source("Llama 3.1 8B", '{"head_dim": 64')
    with pytest.raises(ValueError, match="high_freq_factor"):
        config_blocks(config_json=json.dumps({"head_dim": 64, "rope_scaling": {
            "rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1,
            "original_max_position_embeddings": 8192}}))


def _lines(fig) -> dict[str, float]:
    """The horizontal length lines of the left panel, by name: their height."""
    return {t.name: float(t.y[0]) for t in fig.data if t.xaxis == "x" and t.mode == "lines" and len(t.y) == 2
            and t.name.startswith(("L = ", "target "))}


def test_dynamic_block_is_drawn_at_factor_times_its_length():
    """A dynamic block (factor 2) on a config whose max_position_embeddings is still the original length is drawn at
    twice that length, as transformers scales it there (the slowest pair divided by 3); at the length itself it
    would be plain RoPE."""
    import warnings

    import torch
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    cfg = {"hidden_size": 512, "num_attention_heads": 8, "head_dim": 64, "num_hidden_layers": 1,
           "max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "factor": 2.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rot = LlamaRotaryEmbedding(LlamaConfig(**json.loads(json.dumps(cfg))))
        rot(torch.zeros(1), torch.arange(8192).view(1, -1))  # one call at 2L: transformers' dynamic update
    theirs = rot.inv_freq.double().numpy()
    fig = config_blocks(config_json=json.dumps(cfg))
    (solid,) = [t for t in fig.data if t.xaxis == "x" and t.mode == "lines+markers"]
    np.testing.assert_allclose(solid.y, 2 * np.pi / theirs, rtol=1e-6)
    assert solid.name.endswith("at 8,192")
    assert (inv_freq(64) / theirs)[-1] == pytest.approx(3.0)
    assert _lines(fig) == {"L = 4,096": 4096.0, "target 8,192": 8192.0}


def test_linear_block_target_and_gemma3_length():
    """Linear ×4 on a 4,096-token config targets 16,384; Gemma 3 (linear ×8, 131,072 stated as its own length) is
    marked as a target only, since 131,072 is not its training length."""
    linear = {"head_dim": 64, "max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 4.0}}
    assert _lines(config_blocks(config_json=json.dumps(linear))) == {"L = 4,096": 4096.0, "target 16,384": 16384.0}
    assert _lines(config_blocks(preset="Gemma 3 27B")) == {"target 131,072": 131072.0}


# ---------------------------------------------------------------------------- what the lesson says, computed

def test_layer_runs_are_read_back_as_runs():
    from posviz.figures.config_prose import spans

    assert spans((0, 1, 2, 4, 6, 7)) == "0–2, 4, 6–7"
    assert spans(tuple(range(0, 20, 2)), most=3) == "0, 2, 4, …"
    assert spans(()) == ""


def test_gemma3_is_said_block_by_block_with_the_config_text_escaped():
    """Which layers use which block, counted from the config's layer_types; the layer type (the config's own
    text) passes through the escaper the page gives."""
    from posviz.figures import config_prose as cp

    config = presets.get_preset("Gemma 3 27B").config
    report = sc.describe_config(config)
    temps = cp.temperatures(config, report)
    text = config["text_config"]
    n, pattern = text["num_hidden_layers"], text["sliding_window_pattern"]   # every 6th layer is global
    full = [i for i in range(n) if (i + 1) % pattern == 0]
    said = cp.layer_sentences(report, lambda text: f"<{text}>")
    assert said[0].startswith(f"<full_attention> (linear ×8, b = 1e+06): {len(full)} of {n} layers "
                              f"({', '.join(map(str, full[:6]))}, …)")
    assert said[1].startswith("<sliding_attention> (default, b = 10000): ")
    assert said[-1].startswith("**Rotary dims.** Every head rotates all its 128 channels")
    table = cp.config_table(report, temps)
    assert list(table) == ["key", "full_attention", "sliding_attention"]
    assert table["full_attention"][table["key"].index("factor")] == "8.0"
    assert table["sliding_attention"][table["key"].index("factor")] == ""
    numbers = cp.config_numbers(report, temps)
    assert numbers["target length"] == f"{report.target_length:,}"
    assert set(numbers) == {"target length"} | {f"{b}: {k}" for b in ("full_attention", "sliding_attention")
                                                for k in temps[0]}


def test_mrope_pairs_are_said_with_their_wavelengths():
    from posviz.figures import config_prose as cp

    report = sc.describe_config(presets.get_preset("Qwen2-VL 7B Instruct (M-RoPE)").config)
    (mrope,) = [s for s in cp.layer_sentences(report, str) if s.startswith("**M-RoPE**")]
    lam = 2 * np.pi / report.blocks[0].inv_freq
    assert "mrope_section [16, 24, 24]" in mrope and f"pairs 0–15 (λ {lam[0]:,.0f}–{lam[15]:,.0f} tokens)" in mrope


@pytest.mark.parametrize("name", presets.preset_names())
def test_no_preset_turns_a_pair_faster_than_plain_rope(name):
    from posviz.figures.config_prose import faster_pairs

    for block in sc.describe_config(presets.get_preset(name).config).blocks:
        assert faster_pairs(block) == int((block.inv_freq > inv_freq(block.rope.dim, block.rope.base)
                                           * (1 + 1e-12)).sum()) == 0
