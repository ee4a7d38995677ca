"""Real models' RoPE settings, as the RoPE-relevant keys of their config.json, each with its source.

Values are copied from the models' published config.json files (or, where a model card tells users to
add a ``rope_scaling`` block, from that card). Only the keys that matter for RoPE are kept; they are
spelled as in the original file (top-level ``rope_theta`` + ``rope_scaling``, nested under ``text_config``
for the multimodal Llama 4 and Gemma 3), so ``posviz.scaling.describe_config`` reads them exactly as it
reads a pasted config.json.
Where we could only check a value against a public copy rather than the model repository itself,
the ``source`` says so.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from posviz._validate import check_choice
from posviz.i18n import N_


@dataclass(frozen=True)
class Preset:
    name: str
    config: dict
    source: str


# Phi-3 LongRoPE lists (48 = head_dim 96 / 2 entries). long_factor: as quoted from Phi-3-mini-128k-instruct's
# config.json in the llama.cpp discussion github.com/ggml-org/llama.cpp/issues/6849 (April 2024 release);
# identical lists (long and short) in the Phi-3-vision-128k-instruct config.json reproduced in
# huggingface/diffusers' OmniGen conversion script.
_PHI3_LONG = [
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968,
    1.2299998998641968, 1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525,
    1.8999998569488525, 2.859999895095825, 3.68999981880188, 5.419999599456787, 5.489999771118164,
    5.489999771118164, 9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055, 30.009998321533203,
    32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
    56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844,
    61.190006256103516, 61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
    63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922, 64.760009765625,
    64.80001068115234, 64.81001281738281, 64.81001281738281,
]
_PHI3_SHORT = [
    1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002, 1.4000000000000004,
    1.4500000000000004, 1.5500000000000005, 1.8500000000000008, 1.9000000000000008, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.1000000000000005, 2.1000000000000005, 2.2,
    2.3499999999999996, 2.3499999999999996, 2.3499999999999996, 2.3499999999999996, 2.3999999999999995,
    2.3999999999999995, 2.6499999999999986, 2.6999999999999984, 2.8999999999999977, 2.9499999999999975,
    3.049999999999997, 3.049999999999997, 3.049999999999997,
]

PRESETS: dict[str, Preset] = {p.name: p for p in [
    Preset("Llama 2 7B", {
        "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
        "rope_theta": 10000.0, "rope_scaling": None,
    }, N_("meta-llama/Llama-2-7b-hf config.json (hidden_size 4096, 32 heads, max_position_embeddings 4096), checked "
       "against public copies; the original file has no rope_theta key (transformers' default 10000 applies; "
       "later dumps of the same config show rope_theta 10000.0).")),
    Preset("Code Llama 7B", {
        "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 16384,
        "rope_theta": 1000000, "rope_scaling": None,
    }, N_("codellama/CodeLlama-7b(-Instruct)-hf config.json: rope_theta 1000000, max_position_embeddings 16384 "
       "(checked against a public dump of the Instruct config); the base change is Code Llama's whole "
       "context-extension recipe.")),
    Preset("Mistral 7B v0.1", {
        "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 32768,
        "rope_theta": 10000.0, "sliding_window": 4096,
    }, N_("mistralai/Mistral-7B-v0.1 config.json (rope_theta 10000.0, max_position_embeddings 32768, "
       "sliding_window 4096), checked against public dumps of the file. Later Mistral 7B releases (v0.2+) use "
       "rope_theta 1e6 and no sliding window.")),
    Preset("Llama 3 8B", {
        "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192,
        "rope_theta": 500000.0, "rope_scaling": None,
    }, N_("meta-llama/Meta-Llama-3-8B config.json (rope_theta 500000.0, max_position_embeddings 8192), checked "
       "against public dumps of the file.")),
    Preset("Llama 3.1 8B", {
        "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    }, N_("meta-llama/Llama-3.1-8B config.json (checked against public dumps: head_dim 128, rope_theta 500000.0, "
       "factor 8, low 1, high 4, original 8192); the same values are in docs/FORMULAS.md §5.5.")),
    Preset("Llama 3.2 1B", {
        "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64, "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    }, N_("meta-llama/Llama-3.2-1B config.json (head_dim 64, factor 32), checked against several public "
       "copies of the file.")),
    Preset("Qwen2.5 7B Instruct + YaRN x4", {
        "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768,
        "rope_theta": 1000000.0,
        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
    }, N_("Qwen/Qwen2.5-7B-Instruct config.json (hidden_size 3584, 28 heads, rope_theta 1000000.0, "
       "max_position_embeddings 32768, no rope_scaling); the rope_scaling block is the one the model card "
       "(and Qwen's vLLM guide) tells users to add for 131,072 tokens.")),
    Preset("DeepSeek-V2", {
        "hidden_size": 5120, "num_attention_heads": 128, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                         "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096, "type": "yarn"},
    }, N_("deepseek-ai/DeepSeek-V2: rope_scaling as in docs/FORMULAS.md §5.4 (mscale = mscale_all_dim = 0.707), "
       "the block public copies of DeepSeek-V2-Lite's config.json carry. Not confirmed for the 236B checkpoint "
       "itself: one unnamed public copy of a 236B-shaped deepseek_v2 config shows mscale 1.0/1.0. RoPE acts on "
       "the 64-dim decoupled part (qk_rope_head_dim).")),
    Preset("DeepSeek-V3", {
        "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096, "type": "yarn"},
    }, N_("deepseek-ai/DeepSeek-V3 config.json (mscale = mscale_all_dim = 1.0, factor 40, "
       "original_max_position_embeddings 4096); values as in docs/FORMULAS.md §5.4 and public copies.")),
    Preset("gpt-oss 20B", {
        "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64, "max_position_embeddings": 131072,
        "rope_theta": 150000,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                         "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
    }, N_("openai/gpt-oss-20b config.json (rope_theta 150000, YaRN factor 32 over 4096, truncate false), "
       "checked against a public copy of the file; gpt-oss-120b has the same RoPE block.")),
    Preset("Phi-3 mini 128k (Apr 2024)", {
        "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": _PHI3_LONG, "short_factor": _PHI3_SHORT, "type": "longrope"},
    }, N_("microsoft/Phi-3-mini-128k-instruct config.json as first released (April 2024): long_factor as "
       "quoted from it in the llama.cpp discussion github.com/ggml-org/llama.cpp/issues/6849. short_factor "
       "could only be verified against the same-generation Phi-3-vision-128k-instruct config.json (reproduced "
       "in diffusers' OmniGen conversion script), whose long_factor is identical; Microsoft replaced both lists "
       "in the June 2024 update, so "
       "today's file differs. Original type \"su\" was renamed \"longrope\" by transformers.")),
    Preset("Llama 4 Scout 17B-16E", {
        "model_type": "llama4",
        "text_config": {
            "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
            "num_hidden_layers": 48, "max_position_embeddings": 10485760, "rope_theta": 500000.0,
            "attention_chunk_size": 8192,
            "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        },
    }, N_("meta-llama/Llama-4-Scout-17B-16E config.json, text_config (RoPE keys): hidden_size 5120, 40 heads of "
       "128, 48 layers, max_position_embeddings 10485760, rope_theta 500000.0, llama3 scaling with factor 16 and "
       "low_freq_factor = high_freq_factor = 1 over 8192, attention_chunk_size 8192; checked against public "
       "copies of the file (test fixtures of other engines). No no_rope_layers list is kept, so transformers' "
       "Llama4TextConfig derives it from no_rope_layer_interval 4: every 4th layer uses no RoPE.")),
    Preset("Gemma 3 27B", {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32, "head_dim": 128,
            "num_hidden_layers": 62, "max_position_embeddings": 131072, "sliding_window": 1024,
            "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        },
    }, N_("google/gemma-3-27b-it config.json, text_config (RoPE keys): 62 layers, 32 heads of 128, sliding_window "
       "1024 with sliding_window_pattern 6 (every 6th layer global), rope_theta 1e6 for the global layers with "
       "linear scaling x8, rope_local_base_freq 1e4 for the sliding-window layers; max_position_embeddings "
       "131072 is Gemma3TextConfig's default (the 128K context of the model card). Checked against public "
       "copies of the file; the 4B and 12B checkpoints share the RoPE keys.")),
    Preset("Qwen3 8B", {
        "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0, "rope_scaling": None,
    }, N_("Qwen/Qwen3-8B config.json (head_dim 128, 32 heads, 36 layers, rope_theta 1000000.0, "
       "max_position_embeddings 40960, rope_scaling null), checked against public copies of the file. The "
       "model card's YaRN block (factor 4 over 32768) is something users add, not part of the file.")),
    Preset("Qwen2-VL 7B Instruct (M-RoPE)", {
        "model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    }, N_("Qwen/Qwen2-VL-7B-Instruct config.json (RoPE keys): hidden_size 3584, 28 heads of 128 with 4 key/value "
       "heads, 28 layers, max_position_embeddings 32768, rope_theta 1000000.0, rope_scaling {type mrope, "
       "mrope_section [16, 24, 24]}; the sizes, max_position_embeddings and rope_theta checked against a "
       "public copy of the values and a public printout of the model's modules (k_proj 3584 -> 512: 4 key/value "
       "heads of 128); the rope_scaling block has the form public copies of the Qwen2.5-VL 7B config and "
       "transformers' Qwen2-VL tests use. The section splits the 64 rotary pairs between the temporal, height "
       "and width ids (docs/FORMULAS.md §4.5); transformers reads type \"mrope\" as the default frequencies.")),
    Preset("GPT-NeoX 20B", {
        "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 2048,
        "rotary_emb_base": 10000, "rotary_pct": 0.25,
    }, N_("EleutherAI/gpt-neox-20b config.json (rotary_pct 0.25 = partial_rotary_factor, rotary_emb_base "
       "10000, 64 heads of 96): only the first 24 channels of each head rotate.")),
]}


def preset_names() -> tuple[str, ...]:
    """The preset names, in display order."""
    return tuple(PRESETS)


def get_preset(name: str) -> Preset:
    """A copy of the named preset (its config can be modified freely)."""
    name = check_choice("name", name, PRESETS)
    p = PRESETS[name]
    return Preset(p.name, copy.deepcopy(p.config), p.source)
