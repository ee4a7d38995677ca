"""Everything a config.json says about positions, for the page's config box: every RoPE block and the layers
that use it, NoPE layers, M-RoPE's split of the pairs (Qwen2-VL), the target length; and pasted text parsed
safely into a config dict. The frequencies come from ``posviz.scaling.config`` (docs/FORMULAS.md §5).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from posviz._validate import check_bool, check_int
from posviz.i18n import _
from posviz.rotary import MAX_DIM
from posviz.scaling.config import (
    RopeConfig,
    _lengths,
    inv_freq_from_rope_config,
    read_rope_config,
    rope_blocks,
)

MAX_CONFIG_CHARS = 100_000  # a real config.json with 48-entry LongRoPE lists is < 10 kB
MAX_LAYERS = 10_000       # num_hidden_layers, layer_types and no_rope_layers (DeepSeek-V3 has 61 layers)


@dataclass(frozen=True)
class RopeBlock:
    """One RoPE block of a config and the layers that use it."""

    layer_type: str                 # "all", or transformers' layer type ("full_attention", "sliding_attention")
    rope: RopeConfig
    inv_freq: np.ndarray            # (d/2,) at the target length
    attention_factor: float
    layers: tuple[int, ...]         # 0-based indices of the layers of this type (all RoPE layers for "all")


@dataclass(frozen=True)
class ConfigReport:
    """What ``describe_config`` reads from a config.json: every RoPE block, NoPE layers, M-RoPE, the target."""

    model_type: str | None
    num_hidden_layers: int | None
    blocks: tuple[RopeBlock, ...]
    nope_layers: tuple[int, ...]     # layers that apply no RoPE at all
    target_length: int
    target_source: str
    mrope_section: tuple[int, ...] | None
    mrope_axis: np.ndarray | None    # (d/2,) 0 = temporal, 1 = height, 2 = width: the position id each pair turns with
    notes: tuple[str, ...]
    original_length: int | None = None  # the original (training) length L the target scales, when the config says

    def mrope_pairs(self) -> list[tuple[str, np.ndarray]]:
        """M-RoPE's pairs per position id, in section order: [("temporal", array([0..15])), ("height", ...), ...].

        One entry per axis whether its pairs are one run (Qwen2-VL's chunked sections) or spread (Qwen3-VL's
        interleaved ones, some sixty runs)."""
        if self.mrope_axis is None:
            return []
        names = ("temporal", "height", "width")
        return [(names[a], np.flatnonzero(self.mrope_axis == a)) for a in range(3) if (self.mrope_axis == a).any()]


def mrope_axis(section: tuple[int, ...] | list[int], interleaved: bool = False) -> np.ndarray:
    """Which position id (0 temporal, 1 height, 2 width) each frequency pair turns with under M-RoPE, (d/2,).

    Qwen2-VL / Qwen2.5-VL (transformers ``Qwen2VLRotaryEmbedding``): the d/2 frequencies are split into
    contiguous sections, section k taking axis k, so [16, 24, 24] gives pairs 0-15 temporal, 16-39 height,
    40-63 width. ``interleaved`` (Qwen3-VL): pairs cycle t, h, w, with pair j on height when
    j ≡ 1 (mod 3) and j < 3·section[1], on width when j ≡ 2 (mod 3) and j < 3·section[2], else temporal.
    """
    if not isinstance(section, (list, tuple)) or not 1 <= len(section) <= 3:
        raise ValueError(f"section must be a list of 1 to 3 pair counts; got {section!r}"[:120])
    sec = [check_int(f"section[{k}]", v, 0, MAX_DIM) for k, v in enumerate(section)]
    n = sum(sec)
    if not 1 <= n <= MAX_DIM // 2:
        raise ValueError(f"section must add up to 1 .. {MAX_DIM // 2} pairs; got {n}")
    if not check_bool("interleaved", interleaved):
        return np.repeat(np.arange(len(sec)), sec)  # (d/2,)
    j = np.arange(n)
    axis = np.zeros(n, dtype=np.int64)
    for a in range(1, len(sec)):
        axis[(j % 3 == a) & (j < 3 * sec[a])] = a
    return axis


def _layer_map(cfg: Mapping, model_type: str | None, blocks: Mapping) -> tuple[int | None, dict[str, list[int]],
                                                                            list[int], list[str]]:
    """Layer indices per RoPE block and the NoPE layers, from ``layer_types``, Gemma 3's
    ``sliding_window_pattern`` or ``no_rope_layers`` (1 = the layer uses RoPE, 0 = NoPE; Llama 4, SmolLM3), in one
    pass over the layers (the NoPE layers are a set while they are collected), so the cost is linear in layers."""
    notes: list[str] = []
    n = cfg.get("num_hidden_layers")
    n = None if n is None else check_int("num_hidden_layers", n, 1, MAX_LAYERS)
    types = cfg.get("layer_types")
    if types is None and n is not None and set(blocks) == {"full_attention", "sliding_attention"}:
        pattern = check_int("sliding_window_pattern", cfg.get("sliding_window_pattern", 6), 1, 10_000)
        types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
        notes.append(_("layer types from sliding_window_pattern {pattern}: "
                       "the last of every {pattern} layers is global",
                       pattern=pattern))
    nope: set[int] = set()
    flags = cfg.get("no_rope_layers")
    if (flags is None or flags == []) and n is not None and "no_rope_layer_interval" in cfg:
        every = check_int("no_rope_layer_interval", cfg["no_rope_layer_interval"], 1, 10_000)
        flags = [int((i + 1) % every != 0) for i in range(n)]
        notes.append(_("no_rope_layers from no_rope_layer_interval {every}: "
                       "the last of every {every} layers uses no RoPE",
                       every=every))
    if flags is not None:
        if not isinstance(flags, (list, tuple)) or (n is not None and len(flags) < n):
            raise ValueError(f"no_rope_layers must be a list of 0/1 flags, one per layer; got {flags!r}"[:160])
        if len(flags[:n]) > MAX_LAYERS:
            raise ValueError(f"no_rope_layers may flag at most {MAX_LAYERS:,} layers; got {len(flags):,}")
        for i, f in enumerate(flags[:n]):
            if check_int(f"no_rope_layers[{i}]", f, 0, 1) == 0:
                nope.add(i)
    per: dict[str, list[int]] = {k: [] for k in blocks}
    if types is not None:
        if not isinstance(types, (list, tuple)) or not all(isinstance(t, str) for t in types):
            raise ValueError(f"layer_types must be a list of strings; got {types!r}"[:160])
        if len(types) > MAX_LAYERS:
            raise ValueError(f"layer_types may name at most {MAX_LAYERS:,} layers; got {len(types):,}")
        for i, t in enumerate(types):
            if i in nope:
                continue
            key = t if t in blocks else "all" if "all" in blocks else None
            if key is None:
                raise ValueError(f"layer_types[{i}] is {t!r}, which has no RoPE block (blocks: {', '.join(blocks)})")
            if blocks[key] is None:
                nope.add(i)
            else:
                per[key].append(i)
    elif n is not None and "all" in blocks:
        per["all"] = [i for i in range(n) if i not in nope]
    return n, per, sorted(nope), notes


def describe_config(config: object) -> ConfigReport:
    """Read everything a config.json says about positions: one ``RopeBlock`` per layer type (frequencies at
    the target length and the attention factor, as transformers 5.23 computes them), the NoPE layers,
    M-RoPE's split of the pairs, the rotary dims (``RopeConfig.dim``, ``head_dim``) and the target length.

    Accepts both spellings (``rope_scaling``, transformers 5's ``rope_parameters`` including per-layer-type
    blocks) and a nested ``text_config``. Anything unreadable raises ValueError naming the key; a config is
    never replaced by another model's values (missing keys take transformers' own class defaults, each noted).
    """
    cfg, model_type, blocks, spelling, notes = rope_blocks(config)
    n, per, nope, layer_notes = _layer_map(cfg, model_type, blocks)
    notes = notes + layer_notes
    resolved: list[tuple[str, RopeConfig]] = []
    for key, block in blocks.items():
        if block is None:
            notes.append(_("{spelling}.{key} is null: those layers use no RoPE", spelling=spelling, key=key))
            continue
        resolved.append((key, read_rope_config(config, key)))
    if not resolved:
        raise ValueError(f"{spelling} declares no RoPE block for any layer type")
    main = dict(resolved).get("all") or dict(resolved).get("full_attention") or resolved[0][1]
    original, target, source = _lengths(main)
    out_blocks = []
    for key, rc in resolved:
        inv, A = inv_freq_from_rope_config(rc, target)
        out_blocks.append(RopeBlock(key, rc, inv, A, tuple(per.get(key, ()))))
        notes += [f"{key}: {note}" if len(resolved) > 1 else note for note in rc.notes if note not in notes]
    if main.head_dim_source.startswith("qk_rope_head_dim"):
        nope_dim = cfg.get("qk_nope_head_dim")
        notes.append(_("DeepSeek's decoupled RoPE: it rotates qk_rope_head_dim = {dim} channels of the "
                       "{channels}-channel query/key head; the qk_nope_head_dim channels carry no position",
                       dim=main.dim, channels=main.dim + int(nope_dim)) if isinstance(nope_dim, int) else
                     _("DeepSeek's decoupled RoPE: it rotates qk_rope_head_dim = {dim} channels; the "
                       "qk_nope_head_dim channels carry no position", dim=main.dim))
    if main.dim < main.head_dim:
        notes.append(_("partial rotary: {dim} of {head_dim} channels per head rotate", dim=main.dim,
                       head_dim=main.head_dim))
    sec = main.params.get("mrope_section")
    axis = mrope_axis(sec, bool(main.params.get("mrope_interleaved"))) if sec else None
    return ConfigReport(model_type, n, tuple(out_blocks), tuple(nope), target, source,
                        tuple(sec) if sec else None, axis, tuple(dict.fromkeys(notes)), original)


class _RefusedNumberError(ValueError):
    """What the JSON parser's hooks raise for a number posviz refuses: passed on as it is, not wrapped."""


def _check_depth(text: str, limit: int) -> None:
    """Refuse nesting deeper than ``limit`` (brackets outside strings) before the parser recurses into it."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise ValueError(_("config text is nested more than {limit} levels deep; a config.json is not",
                                   limit=limit))
        elif ch in "]}":
            depth -= 1


def parse_config_text(text: object, max_chars: int = MAX_CONFIG_CHARS) -> dict:
    """Parse pasted config.json text into a dict, with a precise ValueError for anything else.

    The length is capped before parsing; NaN/Infinity, numbers that overflow a float, integers with
    thousands of digits, deep nesting and non-object JSON are all rejected with a message saying where.
    """
    if not isinstance(text, str):
        raise ValueError(_("config text must be a string; got {kind}", kind=type(text).__name__))
    max_chars = check_int("max_chars", max_chars, 2, 10 * MAX_CONFIG_CHARS)
    if len(text) > max_chars:
        raise ValueError(_("config text is {chars:,} characters; the limit is {limit:,} (a real config.json is a few "
                           "kB)", chars=len(text), limit=max_chars))
    if not text.strip():
        raise ValueError(_("config text is empty: paste the contents of a config.json"))
    _check_depth(text, 20)

    def bad_constant(name: str) -> None:
        raise _RefusedNumberError(_("config text contains {name}, which is not valid JSON for a number", name=name))

    def parse_float(s: str) -> float:
        v = float(s)
        if not math.isfinite(v):
            raise _RefusedNumberError(_("config text contains the number {number}, too large for a float",
                                    number=s[:30]))
        return v

    try:
        value = json.loads(text, parse_constant=bad_constant, parse_float=parse_float)
    except json.JSONDecodeError as e:
        raise ValueError(_("config text is not valid JSON: {reason} at line {line}, column {column}", reason=e.msg,
                           line=e.lineno, column=e.colno)) from None
    except RecursionError:
        raise ValueError(_("config text is nested too deeply")) from None
    except _RefusedNumberError as e:
        raise ValueError(str(e)) from None
    except ValueError as e:
        raise ValueError(_("config text has a number that cannot be read ({detail})", detail=str(e)[:80])) from None
    if not isinstance(value, dict):
        raise ValueError(_("config text must be a JSON object {{...}}; got a JSON {kind}", kind=type(value).__name__))
    return value
