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


def test_a_paste_is_read_never_replaced():
    cfg, name = config_source("Llama 3.1 8B", '{"head_dim": 64}')
    assert (cfg, name) == ({"head_dim": 64}, "pasted config.json")
    with pytest.raises(ValueError, match="not valid JSON"):
        config_source("Llama 3.1 8B", '{"head_dim": 64')
    with pytest.raises(ValueError, match="high_freq_factor"):
        config_blocks(config_json=json.dumps({"head_dim": 64, "rope_scaling": {
            "rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1,
            "original_max_position_embeddings": 8192}}))
