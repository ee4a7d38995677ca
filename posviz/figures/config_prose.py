"""What the Context extension lesson says about a real model's config.json, computed from
``posviz.scaling.describe_config``'s report, the one ``config_blocks`` draws: the table of what was read, the
numbers row, which layers use which RoPE block, how M-RoPE splits the pairs, how many channels rotate, and the
check that no pair turns faster than plain RoPE (docs/FORMULAS.md §5). No figure is built here (``__all__`` is
empty); no streamlit.

The config's own text (its layer types) reaches markdown through ``escape``, the page's escaper, so a pasted
config cannot inject markup.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from posviz import scaling as sc
from posviz.figures.scaling_prose import short
from posviz.rope import inv_freq

__all__: list[str] = []

Escape = Callable[[str], str]


def spans(layers: tuple[int, ...], most: int = 6) -> str:
    """Layer indices as runs ("0–4, 6–10, …"), at most ``most`` runs."""
    runs: list[list[int]] = []
    for i in layers:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    text = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:most])
    return text + (", …" if len(runs) > most else "")


def block_label(block: sc.RopeBlock, escape: Escape) -> str:
    """A block's name for prose: its layer type (escaped: it is the config's own text) or 'every RoPE layer'."""
    return "every RoPE layer" if block.layer_type == "all" else escape(block.layer_type[:40])


def block_kind(rc: sc.RopeConfig) -> str:
    """'linear ×8, b = 1e+06': a block's type, factor and base, for prose."""
    factor = rc.params.get("factor")
    return f"{rc.rope_type}" + (f" ×{factor:g}" if factor else "") + f", b = {rc.base:g}"


def temperatures(config: dict, report: sc.ConfigReport) -> list[dict[str, float]]:
    """Per RoPE block of ``report``, what the config does to attention logits (``sc.config_temperature``)."""
    return [sc.config_temperature(config, None if b.layer_type == "all" else b.layer_type) for b in report.blocks]


def config_table(report: sc.ConfigReport, temps: list[dict[str, float]]) -> dict[str, list[str]]:
    """What was read, as table columns: "key", then one column per RoPE block ("value" when there is one) holding
    every value that enters the computation and the block's temperature."""
    rows: dict[str, list[str]] = {}
    for k, (block, temp) in enumerate(zip(report.blocks, temps, strict=True)):
        for key, value in (block.rope.summary() | temp).items():
            rows.setdefault(key, [""] * len(report.blocks))[k] = f"{value:.4f}" if key in temp else str(value)
    names = ["value"] if len(report.blocks) == 1 else [b.layer_type for b in report.blocks]
    return {"key": list(rows)} | {n: [r[k] for r in rows.values()] for k, n in enumerate(names)}


def config_numbers(report: sc.ConfigReport, temps: list[dict[str, float]]) -> dict[str, str]:
    """The numbers row: the target length, and each block's temperature (prefixed by its layer type when the
    config has several blocks)."""
    numbers = {"target length": f"{report.target_length:,}"}
    for b, temp in zip(report.blocks, temps, strict=True):
        prefix = "" if len(report.blocks) == 1 else f"{b.layer_type[:40]}: "
        numbers |= {prefix + k: f"{x:.4f}" for k, x in temp.items()}
    return numbers


def _pair_set(idx: np.ndarray) -> str:
    """'pairs 16–39' for one run of pairs, '24 pairs, interleaved' for pairs spread over the spectrum."""
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return f"pairs {idx[0]}–{idx[-1]}"
    return f"{idx.size} pairs, interleaved"


def _mrope_sentence(report: sc.ConfigReport) -> list[str]:
    """How M-RoPE splits the pairs by mrope_section, with each axis's wavelengths; none without M-RoPE."""
    axes = report.mrope_pairs()
    if not axes:
        return []
    pairs = report.blocks[0].rope.dim // 2
    lam = 2 * np.pi / report.blocks[0].inv_freq                     # (d/2,) wavelengths, tokens
    split = ", ".join(f"{_pair_set(idx)} (λ {short(lam[idx].min())}–{short(lam[idx].max())} tokens) turn with "
                      f"the {axis} position id" for axis, idx in axes)
    return [f"**M-RoPE** splits the {pairs} pairs by mrope_section {list(report.mrope_section)}: {split} "
            "(the coloured squares on the chart)."]


def layer_sentences(report: sc.ConfigReport, escape: Escape) -> list[str]:
    """Markdown sentences: which layers use which RoPE block, which use none, how M-RoPE splits the pairs and
    how many channels rotate, all from ``describe_config``'s report."""
    n = report.num_hidden_layers
    out = []
    if len(report.blocks) > 1 or report.nope_layers:
        for b in report.blocks:
            where = (f"{len(b.layers)} of {n} layers ({spans(b.layers)})" if b.layers else
                     "the config does not say which layers" if n is None else "no layer")
            out.append(f"{block_label(b, escape)} ({block_kind(b.rope)}): {where}.")
    if report.nope_layers:
        out.append(f"**No rotation (NoPE)** in {len(report.nope_layers)} of {n} layers "
                   f"({spans(report.nope_layers)}): queries and keys there carry no position from RoPE.")
    out += _mrope_sentence(report)
    dims = {(b.rope.dim, b.rope.head_dim, b.rope.head_dim_source, b.rope.partial_rotary_factor): b
            for b in report.blocks}
    for (dim, head_dim, source, prf), b in dims.items():
        whole = "all" if dim == head_dim else f"{dim} of"
        who = "Every head" if len(dims) == 1 else f"{block_label(b, escape)}: every head"
        out.append(f"**Rotary dims.** {who} rotates {whole} its {head_dim} channels (d = {dim}, {dim // 2} pairs; "
                   f"head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).")
    return out


def faster_pairs(block: sc.RopeBlock) -> int:
    """How many of a block's pairs turn faster than plain RoPE with its base (θ'_i > θ_i): none for every method."""
    return int((block.inv_freq > inv_freq(block.rope.dim, block.rope.base) * (1 + 1e-12)).sum())
