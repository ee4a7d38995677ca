"""Reading a Hugging Face ``config.json``: which RoPE block, base, rotary dimension and scaling keys it states.

``read_rope_config`` and ``inv_freq_from_config`` read a config dict in either spelling (transformers 5
``rope_parameters`` with ``rope_theta`` inside, possibly one block per layer type, or transformers 4 top-level
``rope_theta`` plus ``rope_scaling`` with ``type`` or ``rope_type``), nested under ``text_config`` or not, and
resolve it the way transformers 5.23 does (including its quirks: ``beta_fast = 0`` silently means 32; a YaRN
``factor`` of null is inferred as ``max_position_embeddings / original_max_position_embeddings`` while a missing
``factor`` key raises; a top-level ``original_max_position_embeddings`` wins), then compute the frequencies with
the rope type's function of ``ROPE_INIT_FUNCTIONS`` (docs/FORMULAS.md §5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from posviz._validate import check_float, check_int
from posviz.i18n import _
from posviz.rotary import MAX_DIM
from posviz.scaling.methods import (
    MAX_BASE,
    MAX_FACTOR,
    MAX_LENGTH,
    ROPE_INIT_FUNCTIONS,
    _factor_list,
    deepseek_softmax_multiplier,
    yarn_attention_factor,
)

ROPE_TYPES = tuple(ROPE_INIT_FUNCTIONS)   # default, linear, ntk, dynamic, yarn, llama3, longrope
_TYPE_ALIASES = {"su": "longrope", "mrope": "default"}


@dataclass(frozen=True)
class RopeConfig:
    """What a config.json says about RoPE, resolved the way transformers resolves it."""

    rope_type: str
    spelling: str                 # "rope_parameters" (transformers 5), "rope_scaling" (4) or "none"
    base: float
    head_dim: int
    head_dim_source: str
    partial_rotary_factor: float
    dim: int
    max_position_embeddings: int | None
    params: dict[str, object] = field(default_factory=dict)   # the scaling keys actually used
    notes: tuple[str, ...] = ()
    model_type: str | None = None   # the text model's type, which decides how a linear block's length is read

    def summary(self) -> dict[str, object]:
        """Flat, display-ready view: every value that enters the computation."""
        out: dict[str, object] = {"rope_type": self.rope_type, "read from": self.spelling,
                                  "rope_theta (base)": self.base, "head_dim": self.head_dim,
                                  "head_dim from": self.head_dim_source,
                                  "partial_rotary_factor": self.partial_rotary_factor,
                                  "rotary dim d": self.dim,
                                  "max_position_embeddings": self.max_position_embeddings}
        for k, v in self.params.items():
            if k == "mrope_section":  # three pair counts: shown whole, with the axes they go to
                order = _("interleaved t, h, w") if self.params.get("mrope_interleaved") else \
                    _("temporal, height, width")
                v = _("{sections} pairs ({order}), of {pairs}", sections=list(v), order=order, pairs=self.dim // 2)
            elif isinstance(v, (list, tuple)):
                v = _("list of {n} numbers, {lo:.4g} .. {hi:.4g}", n=len(v), lo=min(v), hi=max(v))
            out[k] = v
        return out


def _num(config: Mapping, key: str, where: str, lo: float, hi: float, *, default: object = None,
         integer: bool = False, lo_open: bool = False) -> object:
    if key not in config or config[key] is None:
        return default
    name = f"{where}{key}"
    if integer:
        return check_int(name, config[key], int(lo), int(hi))
    return check_float(name, config[key], lo, hi, lo_open=lo_open)


# Defaults transformers 5.23's config classes fill in when a published config.json omits a key (only the keys
# that change RoPE). Copied from the classes' field defaults; tests/test_scaling_math.py checks every entry
# against ``transformers.AutoConfig.for_model(model_type)``.
MODEL_DEFAULTS: dict[str, dict[str, object]] = {
    "gemma3_text": {"rope_theta": 1_000_000.0, "rope_local_base_freq": 10_000.0, "head_dim": 256,
                    "hidden_size": 2304, "num_attention_heads": 8, "num_hidden_layers": 26,
                    "max_position_embeddings": 131_072, "sliding_window_pattern": 6},
    "llama4_text": {"rope_theta": 500_000.0, "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40,
                    "num_hidden_layers": 48, "max_position_embeddings": 131_072, "no_rope_layer_interval": 4},
    "smollm3": {"rope_theta": 2_000_000.0, "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 36,
                "max_position_embeddings": 32_768, "no_rope_layer_interval": 4},
    "qwen2_vl_text": {"rope_theta": 1_000_000.0, "hidden_size": 8192, "num_attention_heads": 64,
                      "num_hidden_layers": 80, "max_position_embeddings": 32_768},
    "qwen2_5_vl_text": {"rope_theta": 1_000_000.0, "hidden_size": 8192, "num_attention_heads": 64,
                        "num_hidden_layers": 80, "max_position_embeddings": 32_768},
    "qwen3_vl_text": {"rope_theta": 500_000.0, "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
                      "num_hidden_layers": 32, "max_position_embeddings": 128_000},
    "qwen3": {"rope_theta": 10_000.0, "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
              "num_hidden_layers": 32, "max_position_embeddings": 32_768},
    "deepseek_v3": {"rope_theta": 10_000.0, "qk_rope_head_dim": 64, "hidden_size": 7168, "num_attention_heads": 128,
                    "num_hidden_layers": 61, "max_position_embeddings": 4096},
}
# The text model a multimodal config.json nests under "text_config" (transformers' sub_configs).
TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "llama4": "llama4_text", "qwen2_vl": "qwen2_vl_text",
                    "qwen2_5_vl": "qwen2_5_vl_text", "qwen3_vl": "qwen3_vl_text"}
LAYER_TYPE_SUFFIX = "_attention"   # per-layer-type blocks are keyed "full_attention", "sliding_attention", ...


def _text_config(config: Mapping) -> tuple[dict, str | None, list[str]]:
    """The text model's config (``text_config`` when nested) with transformers' class defaults filled in."""
    notes: list[str] = []
    model_type = config.get("model_type")
    text = config.get("text_config")
    if text is not None:
        if not isinstance(text, Mapping):
            raise ValueError(_("text_config must be a JSON object; got {kind}", kind=type(text).__name__))
        inner = text.get("model_type")
        model_type = inner if isinstance(inner, str) else TEXT_MODEL_TYPES.get(str(model_type), model_type)
        notes.append(_("read the nested text_config block (transformers builds the text model from it)"))
        config = text
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(_("model_type must be a string; got {kind}", kind=type(model_type).__name__))
    out = dict(config)
    for key, value in MODEL_DEFAULTS.get(model_type or "", {}).items():
        if key not in out:
            out[key] = value
            notes.append(_("{key} is not in the config: transformers' {model_type} default {value!r} is used",
                           key=key, model_type=model_type, value=value))
    return out, model_type, notes


def _is_per_layer(block: Mapping) -> bool:
    """transformers 5 nests one RoPE block per layer type: every key ends in "_attention", every value is a
    block or null (a NoPE layer type)."""
    return bool(block) and all(isinstance(k, str) and k.endswith(LAYER_TYPE_SUFFIX) and
                               (v is None or isinstance(v, Mapping)) for k, v in block.items())


def rope_blocks(config: object) -> tuple[dict, str | None, dict[str, Mapping | None], str, list[str]]:
    """Split a config into its text config, model type, RoPE block per layer type, spelling and notes.

    A single block (transformers 4 ``rope_scaling`` or a flat ``rope_parameters``) is returned under the
    key "all"; transformers 5's per-layer-type ``rope_parameters`` ({"full_attention": {...},
    "sliding_attention": {...}}) as they are; Gemma 3's transformers-4 spelling (``rope_scaling`` for the
    global layers, ``rope_local_base_freq`` for the sliding ones) as the two blocks transformers builds.
    """
    if not isinstance(config, Mapping):
        raise ValueError(_("config must be a JSON object (a dict); got {kind}", kind=type(config).__name__))
    cfg, model_type, notes = _text_config(config)
    spelling, block = "none", None
    for key in ("rope_parameters", "rope_scaling"):
        if cfg.get(key) is not None:
            spelling, block = key, cfg[key]
            break
    if block is not None and not isinstance(block, Mapping):
        raise ValueError(_("{key} must be a JSON object; got {kind}", key=spelling, kind=type(block).__name__))
    if block is not None and _is_per_layer(block):
        return cfg, model_type, dict(block), spelling, notes
    if "rope_local_base_freq" in cfg or model_type == "gemma3_text":
        local = {"rope_type": "default", "rope_theta": cfg.get("rope_local_base_freq", 10_000.0)}
        notes.append(_("Gemma 3: global layers use rope_theta and the scaling block, sliding-window layers "
                       "rope_local_base_freq without scaling"))
        return cfg, model_type, {"full_attention": dict(block or {}), "sliding_attention": local}, spelling, notes
    return cfg, model_type, {"all": dict(block or {})}, spelling, notes


def read_rope_config(config: object, layer_type: str | None = None) -> RopeConfig:
    """Resolve a Hugging Face config dict into a ``RopeConfig``; bad input raises ValueError naming the key.

    ``layer_type`` picks one block of a config with one RoPE block per layer type ("full_attention",
    "sliding_attention"); by default the full-attention block, with a note (``describe_config`` lists all).
    """
    if layer_type is not None and not isinstance(layer_type, str):
        raise ValueError(_("layer_type must be a string such as 'full_attention', or None; got {kind}",
                           kind=type(layer_type).__name__))
    cfg, model_type, blocks, spelling, notes = rope_blocks(config)
    if layer_type is None:
        layer_type = next((k for k in ("all", "full_attention") if k in blocks), next(iter(blocks)))
        if len(blocks) > 1:
            notes.append(_("this config has one RoPE block per layer type ({types}); this view shows {layer_type}",
                           types=", ".join(blocks), layer_type=layer_type))
    elif layer_type not in blocks:
        raise ValueError(_("layer_type must be one of {types} for this config; got {value}",
                           types=", ".join(map(repr, blocks)), value=repr(layer_type)[:120]))
    block = blocks[layer_type]
    if block is None:
        raise ValueError(_("{key}.{layer_type} is null: layers of type {layer_type!r} use no RoPE (NoPE)", key=spelling,
                           layer_type=layer_type))
    where = f"{spelling}." if layer_type == "all" else f"{spelling}.{layer_type}."
    if spelling == "none":
        where = "" if layer_type == "all" else f"{layer_type}."
    return _resolve_block(cfg, block, spelling, where, notes, model_type)

def _resolve_block(config: Mapping, block: Mapping, spelling: str, where: str, notes: list[str],
                   model_type: str | None = None) -> RopeConfig:
    """One RoPE block of ``config`` resolved the way transformers 5.23 resolves it: the type, the base, the
    rotary dimension, the scaling keys the type reads (``_TYPE_PARAMS``) and M-RoPE's sections, in that order."""
    notes = list(notes)
    rope_type = _rope_type(block, where, notes)
    base = _base(config, block, where, notes)
    prf = _partial_rotary_factor(config, block, where)
    head_dim, source = _head_dim(config)
    dim = _rotary_dim(head_dim, prf)
    mpe = _num(config, "max_position_embeddings", "", 1, MAX_LENGTH, integer=True)
    params = _factor_param(block, rope_type, where, mpe)
    if rope_type in ORIGINAL_LENGTH_TYPES:
        params.update(_original_length(config, block, rope_type, where, mpe, params.get("factor"), notes))
    params.update(_TYPE_PARAMS.get(rope_type, _no_params)(block, params, where, dim, notes))
    params.update(_mrope_params(block, dim, where))
    return RopeConfig(rope_type, spelling, float(base), int(head_dim), source, prf, dim, mpe, params, tuple(notes),
                      model_type)


def _rope_type(block: Mapping, where: str, notes: list[str]) -> str:
    """``rope_type`` (or transformers 4's ``type``), with the aliases transformers accepts; "default" if absent."""
    raw_type = block.get("rope_type", block.get("type", "default"))
    if not isinstance(raw_type, str):
        raise ValueError(_("{where}rope_type must be a string; got {kind}", where=where, kind=type(raw_type).__name__))
    rope_type = _TYPE_ALIASES.get(raw_type, raw_type)
    if raw_type in _TYPE_ALIASES:
        notes.append(_("type {raw_type!r} is read as {rope_type!r}", raw_type=raw_type, rope_type=rope_type))
    if rope_type not in ROPE_TYPES:
        raise ValueError(_("{where}rope_type must be one of {types}; got {value!r}", where=where,
                           types=", ".join(map(repr, ROPE_TYPES)), value=raw_type))
    return rope_type


def _base(config: Mapping, block: Mapping, where: str, notes: list[str]) -> float:
    """The base: inside ``rope_parameters`` (transformers 5), else top level (4), else GPT-NeoX's
    ``rotary_emb_base``, else transformers' default 10000."""
    if "rope_theta" in block and block["rope_theta"] is not None:
        return _num(block, "rope_theta", where, 1.0, MAX_BASE, lo_open=True)
    if config.get("rope_theta") is not None:
        return _num(config, "rope_theta", "", 1.0, MAX_BASE, lo_open=True)
    if config.get("rotary_emb_base") is not None:
        return _num(config, "rotary_emb_base", "", 1.0, MAX_BASE, lo_open=True)
    notes.append(_("no rope_theta: transformers' default 10000 is used"))
    return 10000.0


def _partial_rotary_factor(config: Mapping, block: Mapping, where: str) -> float:
    """The share of each head that rotates: the block's, the config's, GPT-NeoX's ``rotary_pct``, else 1."""
    prf = _num(block, "partial_rotary_factor", where, 0.0, 1.0, lo_open=True)
    if prf is None:
        prf = _num(config, "partial_rotary_factor", "", 0.0, 1.0, lo_open=True)
    if prf is None:
        prf = _num(config, "rotary_pct", "", 0.0, 1.0, lo_open=True)
    return 1.0 if prf is None else float(prf)


def _head_dim(config: Mapping) -> tuple[int, str]:
    """``(head_dim, where it came from)``: DeepSeek's ``qk_rope_head_dim``, else ``head_dim``, else
    ``hidden_size // num_attention_heads``."""
    if config.get("qk_rope_head_dim") is not None:
        return (_num(config, "qk_rope_head_dim", "", 2, MAX_DIM, integer=True),
                _("qk_rope_head_dim (DeepSeek's decoupled RoPE part)"))
    if config.get("head_dim"):
        return _num(config, "head_dim", "", 2, MAX_DIM, integer=True), "head_dim"
    if config.get("hidden_size") is None or config.get("num_attention_heads") is None:
        raise ValueError(_("config needs head_dim, or hidden_size and num_attention_heads, to know the rotary "
                           "dimension"))
    hidden = _num(config, "hidden_size", "", 1, 10**7, integer=True)
    heads = _num(config, "num_attention_heads", "", 1, 10**5, integer=True)
    head_dim = hidden // heads
    if head_dim < 2:
        raise ValueError(_("hidden_size // num_attention_heads must be at least 2; got {value}", value=head_dim))
    return head_dim, "hidden_size // num_attention_heads"


def _rotary_dim(head_dim: int, prf: float) -> int:
    """``int(head_dim · partial_rotary_factor)``, which must be even and at least 2."""
    dim = int(head_dim * prf)
    if dim < 2 or dim % 2:
        raise ValueError(_("the rotary dimension int(head_dim·partial_rotary_factor) = int({head_dim}·{prf:g}) = {dim} "
                           "must be even and at least 2", head_dim=head_dim, prf=prf, dim=dim))
    return dim


FACTOR_REQUIRED_TYPES = ("linear", "ntk", "dynamic", "llama3")    # a null or missing factor raises
ORIGINAL_LENGTH_TYPES = ("yarn", "llama3", "longrope")           # types that read original_max_position_embeddings
FACTOR_INFERRED_TYPES = ("yarn", "longrope")                     # a null factor is max / original length


def _factor_param(block: Mapping, rope_type: str, where: str, mpe: int | None) -> dict[str, object]:
    """``{"factor": s}`` for every scaling type (none for "default"). transformers 5.23 raises KeyError for a
    YaRN block without the key, while an explicit null is inferred later (``_original_length``)."""
    if rope_type == "yarn" and "factor" not in block:
        raise ValueError(_("{where}factor is required for rope_type 'yarn': transformers 5.23 raises KeyError for a "
                           "missing key (only an explicit null is inferred, as max_position_embeddings / "
                           "original_max_position_embeddings)", where=where))
    params: dict[str, object] = {}
    if rope_type != "default":
        factor = _num(block, "factor", where, 1.0, MAX_FACTOR)
        if rope_type in FACTOR_REQUIRED_TYPES and factor is None:
            raise ValueError(_("{where}{key} is required for rope_type {rope_type!r}", where=where, key="factor",
                               rope_type=rope_type))
        params["factor"] = factor
    if rope_type == "dynamic" and mpe is None:
        raise ValueError(_("{where}{key} is required for rope_type {rope_type!r}", where="",
                           key="max_position_embeddings", rope_type="dynamic"))
    return params


def _original_length(config: Mapping, block: Mapping, rope_type: str, where: str, mpe: int | None,
                     factor: float | None, notes: list[str]) -> dict[str, object]:
    """``original_max_position_embeddings`` (the top level wins over the block, then ``max_position_embeddings``)
    and, for a null YaRN or LongRoPE factor, the factor transformers infers from the two lengths."""
    if config.get("original_max_position_embeddings") is not None:
        omp = _num(config, "original_max_position_embeddings", "", 1, MAX_LENGTH, integer=True)
        if block.get("original_max_position_embeddings") not in (None, omp):
            notes.append(_("top-level original_max_position_embeddings wins over the block's (transformers)"))
    elif block.get("original_max_position_embeddings") is not None:
        omp = _num(block, "original_max_position_embeddings", where, 1, MAX_LENGTH, integer=True)
    elif mpe is not None:
        omp = mpe
        notes.append(_("no original_max_position_embeddings: max_position_embeddings is used"))
    else:
        raise ValueError(_("{where}{key} is required for rope_type {rope_type!r}", where=where,
                           key="original_max_position_embeddings", rope_type=rope_type))
    out: dict[str, object] = {"original_max_position_embeddings": omp}
    if factor is None and rope_type in FACTOR_INFERRED_TYPES:
        if mpe is None:
            raise ValueError(_("{where}factor is missing and max_position_embeddings is not there to infer it",
                               where=where))
        out["factor"] = mpe / omp
        notes.append(_("factor is null: inferred as max_position_embeddings / original = {factor:g} "
                       "(transformers)", factor=mpe / omp))
        if out["factor"] < 1 and rope_type == "yarn":
            raise ValueError(_("{where}factor inferred as {factor:g} < 1", where=where, factor=out["factor"]))
    return out


def _yarn_params(block: Mapping, params: Mapping, where: str, dim: int, notes: list[str]) -> dict[str, object]:
    """YaRN's ramp ends (``beta_fast = 0`` is read as 32, transformers' ``or``), temperature keys and truncate."""
    out: dict[str, object] = {}
    for key, fallback in (("beta_fast", 32.0), ("beta_slow", 1.0)):
        value = _num(block, key, where, 0.0, 1e6)
        if not value:
            if value == 0:
                notes.append(_("{key} = 0 is read as {fallback:g} (transformers' `or {fallback:g}`)", key=key,
                               fallback=fallback))
            value = fallback
        out[key] = value
    for key in ("mscale", "mscale_all_dim"):
        out[key] = _num(block, key, where, -1e3, 1e3)
    if bool(out["mscale"]) != bool(out["mscale_all_dim"]):
        notes.append(_("only one of mscale / mscale_all_dim is set: transformers ignores it (A = 0.1 ln s + 1)"))
    out["attention_factor"] = _num(block, "attention_factor", where, 0.0, 1e3)
    trunc = block.get("truncate", True)
    if not isinstance(trunc, bool):
        raise ValueError(_("{where}{key} must be true or false; got {value}", where=where, key="truncate",
                           value=repr(trunc)[:60]))
    out["truncate"] = trunc
    notes.append(_("YaRN ramp ends rounded with floor/ceil (truncate true, the default)") if trunc else
                 _("YaRN ramp ends kept fractional (truncate false, as gpt-oss ships)"))
    yarn_attention_factor(params["factor"], out["mscale"], out["mscale_all_dim"],
                          out["attention_factor"])  # raises ValueError for an undefined A
    return out


def _require(block: Mapping, keys: tuple[str, ...], where: str, rope_type: str) -> None:
    """ValueError naming the first of ``keys`` that ``rope_type``'s block lacks (absent or null)."""
    for key in keys:
        if block.get(key) is None:
            raise ValueError(_("{where}{key} is required for rope_type {rope_type!r}", where=where, key=key,
                               rope_type=rope_type))


def _llama3_params(block: Mapping, params: Mapping, where: str, dim: int, notes: list[str]) -> dict[str, object]:
    """Llama 3's band edges ``low_freq_factor <= high_freq_factor`` (equal: Llama 4, no blend band)."""
    _require(block, ("low_freq_factor", "high_freq_factor"), where, "llama3")
    out: dict[str, object] = {key: _num(block, key, where, 0.0, 1e6, lo_open=True)
                              for key in ("low_freq_factor", "high_freq_factor")}
    if out["high_freq_factor"] < out["low_freq_factor"]:
        raise ValueError(_("{where}high_freq_factor must be at least low_freq_factor; got {high:g} < {low:g}",
                           where=where, high=out["high_freq_factor"], low=out["low_freq_factor"]))
    if out["high_freq_factor"] == out["low_freq_factor"]:
        notes.append(_("low_freq_factor == high_freq_factor: no blend band, every pair is either kept or "
                       "divided by factor (Llama 4; transformers accepts it)"))
    return out


def _longrope_params(block: Mapping, params: Mapping, where: str, dim: int, notes: list[str]) -> dict[str, object]:
    """LongRoPE's per-pair lists (dim/2 numbers each) and its optional attention factor."""
    _require(block, ("short_factor", "long_factor"), where, "longrope")
    out: dict[str, object] = {key: [float(x) for x in _factor_list(f"{where}{key}", block[key], dim // 2)]
                              for key in ("short_factor", "long_factor")}
    out["attention_factor"] = _num(block, "attention_factor", where, 0.0, 1e3)
    return out


def _no_params(block: Mapping, params: Mapping, where: str, dim: int, notes: list[str]) -> dict[str, object]:
    """The types that read nothing beyond the factor (default, linear, ntk, dynamic)."""
    return {}


# the keys each rope type reads beyond its factor and original length, one reader per type
_TYPE_PARAMS = {"yarn": _yarn_params, "llama3": _llama3_params, "longrope": _longrope_params}


def _mrope_params(block: Mapping, dim: int, where: str) -> dict[str, object]:
    """M-RoPE's ``mrope_section`` and ``mrope_interleaved`` when the block has them (Qwen2-VL, Qwen3-VL)."""
    if block.get("mrope_section") is None:
        return {}
    section = _mrope_section(block["mrope_section"], dim, where)
    interleaved = block.get("mrope_interleaved", False)
    if not isinstance(interleaved, bool):
        raise ValueError(_("{where}{key} must be true or false; got {value}", where=where, key="mrope_interleaved",
                           value=repr(interleaved)[:60]))
    return {"mrope_section": section, "mrope_interleaved": interleaved}


def _mrope_section(values: object, dim: int, where: str) -> tuple[int, ...]:
    """M-RoPE's pair counts per axis (temporal, height, width); they must add up to dim/2 (transformers splits
    the dim/2 frequencies with them)."""
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= 3:
        raise ValueError(_("{where}mrope_section must be a list of 1 to 3 pair counts; got {value}", where=where,
                           value=repr(values)[:100]))
    sec = tuple(check_int(f"{where}mrope_section[{k}]", v, 0, MAX_DIM) for k, v in enumerate(values))
    if sum(sec) != dim // 2:
        raise ValueError(_("{where}mrope_section must add up to dim/2 = {pairs} pairs; got {sections} (sum {total})",
                           where=where, pairs=dim // 2, sections=list(sec), total=sum(sec)))
    return sec


def inv_freq_from_config(config: dict, seq_len: int | None = None,
                         layer_type: str | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq (d/2,), attention_factor)`` for a Hugging Face config.json dict, as transformers computes it.

    Same numbers as ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)``
    (and the per-model default for "default"), plus "ntk" (static NTK-aware, base·s^(d/(d-2))). ``seq_len``
    matters for "dynamic" (current length) and "longrope" (long factors once > original length).
    The rotary dim is ``int(head_dim · partial_rotary_factor)`` for every type, as in GPT-NeoX/Phi (Llama's
    own default ignores ``partial_rotary_factor``); DeepSeek's ``qk_rope_head_dim`` takes precedence.
    ``layer_type`` picks one block of a per-layer-type config (see ``read_rope_config``).
    """
    return inv_freq_from_rope_config(read_rope_config(config, layer_type), seq_len)


def inv_freq_from_rope_config(rc: RopeConfig, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq (d/2,), attention_factor)`` of an already resolved ``RopeConfig`` (one RoPE block)."""
    if not isinstance(rc, RopeConfig):
        raise ValueError(f"rc must be the RopeConfig returned by read_rope_config; got {type(rc).__name__}")
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, 1, MAX_LENGTH)
    params = {**rc.params, "max_position_embeddings": rc.max_position_embeddings}
    return ROPE_INIT_FUNCTIONS[rc.rope_type](rc.dim, rc.base, params, seq_len)


def config_temperature(config: dict, layer_type: str | None = None) -> dict[str, float]:
    """What a config does to attention logits: the cos/sin factor A, its square, and for DeepSeek-style YaRN
    (``mscale_all_dim`` set) the extra softmax-scale multiplier and the total logit multiplier."""
    rc = read_rope_config(config, layer_type)
    _, A = inv_freq_from_rope_config(rc)
    out = {"cos/sin × A": A, "logits × A²": A * A}
    if rc.rope_type == "yarn" and rc.params.get("mscale_all_dim"):
        ds = deepseek_softmax_multiplier(float(rc.params["factor"]), float(rc.params["mscale_all_dim"]))
        out["softmax scale × (DeepSeek)"] = ds
        out["logits × in total"] = A * A * ds
    return out


def config_target_length(rc: RopeConfig) -> int:
    """The context a config is meant for, ``L' = factor·L`` with L the original (training) length, read as
    transformers 5.23 reads the lengths: for YaRN, Llama 3 and LongRoPE, L is ``original_max_position_embeddings``
    and the model's own ``max_position_embeddings`` wins when it states a longer length (Llama 3.2 1B: 131,072),
    else ``factor·L`` (a block added to a config whose length is still the original, as Qwen's model cards do);
    dynamic NTK scales from L = ``max_position_embeddings`` on (``_compute_dynamic_ntk_parameters``), so its
    target is ``factor·max_position_embeddings``, as is a linear or NTK block's, which reads no length at all
    (except for model types that state their scaled length there, SCALED_LENGTH_MODEL_TYPES); without a factor,
    ``max_position_embeddings`` (4096 when the config gives no length). ``config_target_source`` says which rule
    applied, ``config_original_length`` the L it used."""
    return _lengths(rc)[1]


def config_target_source(rc: RopeConfig) -> str:
    """Which rule ``config_target_length`` used, in words, for the page to print beside the number."""
    return _lengths(rc)[2]


def config_original_length(rc: RopeConfig) -> int | None:
    """The original (training) length L that ``config_target_length`` scales, or None when the config does not
    state it (Gemma 3 gives only its scaled length; a config with no length at all)."""
    return _lengths(rc)[0]


# Model types whose max_position_embeddings already is the length their linear (PI) block reaches: Gemma 3 was
# pretrained on 32K tokens and extended to 128K with factor 8 (Gemma 3 technical report, 2025), and states 131,072.
SCALED_LENGTH_MODEL_TYPES = frozenset({"gemma3_text"})
LENGTH_FREE_TYPES = ("linear", "ntk", "dynamic")  # scaling types whose block names no original length


def _lengths(rc: RopeConfig) -> tuple[int | None, int, str]:
    """(original length L or None, target length, the rule in words) for ``config_target_length``."""
    if not isinstance(rc, RopeConfig):
        raise ValueError(f"rc must be the RopeConfig returned by read_rope_config; got {type(rc).__name__}")
    mpe = rc.max_position_embeddings
    L = rc.params.get("original_max_position_embeddings")
    factor = rc.params.get("factor")
    if factor and mpe is not None and rc.rope_type in LENGTH_FREE_TYPES:
        if rc.rope_type != "dynamic" and rc.model_type in SCALED_LENGTH_MODEL_TYPES:
            return None, int(mpe), _("max_position_embeddings ({model_type} states its scaled length there)",
                                     model_type=rc.model_type)
        why = (_("factor × max_position_embeddings (transformers' dynamic NTK scales from max_position_embeddings "
                 "on)") if rc.rope_type == "dynamic" else
               _("factor × max_position_embeddings (a {rope_type} block names no length: it scales the one the "
                 "config states)", rope_type=rc.rope_type))
        return int(mpe), int(min(MAX_LENGTH, round(float(factor) * int(mpe)))), why
    if mpe is not None and (not factor or L is None or mpe > L):
        return int(L if L is not None else mpe), int(mpe), "max_position_embeddings"
    if factor and L is not None:
        return int(L), int(min(MAX_LENGTH, round(float(factor) * int(L)))), \
            "factor × original_max_position_embeddings"
    if L is not None:
        return int(L), int(L), "original_max_position_embeddings"
    return None, 4096, _("no length in the config: 4096 assumed")
