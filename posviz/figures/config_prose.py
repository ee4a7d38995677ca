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
from posviz.figures.configs import AXIS_NAMES, pair_set
from posviz.figures.scaling_prose import short
from posviz.i18n import N_, _
from posviz.rope import inv_freq

__all__: list[str] = []

Escape = Callable[[str], str]
# the words among the names ``RopeConfig.summary`` and ``sc.config_temperature`` give the values they read (the rest
# are the config's own keys, shown as they are spelled there), for the table and the numbers row
SHOWN_NAMES = {name: name for name in (
    N_("read from"), N_("rope_theta (base)"), N_("head_dim from"), N_("rotary dim d"), N_("cos/sin × A"),
    N_("logits × A²"), N_("softmax scale × (DeepSeek)"), N_("logits × in total"))}


def shown_name(name: str) -> str:
    """A value's name as the table and the numbers row show it: translated when it is a word, else the key."""
    return _(SHOWN_NAMES[name]) if name in SHOWN_NAMES else name


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
    return _("every RoPE layer") if block.layer_type == "all" else escape(block.layer_type[:40])


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
    names = [_("value")] if len(report.blocks) == 1 else [b.layer_type for b in report.blocks]
    return {_("key"): [shown_name(key) for key in rows]} | {n: [r[k] for r in rows.values()]
                                                             for k, n in enumerate(names)}


def config_numbers(report: sc.ConfigReport, temps: list[dict[str, float]]) -> dict[str, str]:
    """The numbers row: the target length, and each block's temperature (prefixed by its layer type when the
    config has several blocks)."""
    numbers = {_("target length"): f"{report.target_length:,}"}
    for b, temp in zip(report.blocks, temps, strict=True):
        prefix = "" if len(report.blocks) == 1 else f"{b.layer_type[:40]}: "
        numbers |= {prefix + shown_name(k): f"{x:.4f}" for k, x in temp.items()}
    return numbers


def _mrope_sentence(report: sc.ConfigReport) -> list[str]:
    """How M-RoPE splits the pairs by mrope_section, with each axis's wavelengths; none without M-RoPE."""
    axes = report.mrope_pairs()
    if not axes:
        return []
    pairs = report.blocks[0].rope.dim // 2
    lam = 2 * np.pi / report.blocks[0].inv_freq                     # (d/2,) wavelengths, tokens
    split = _(", ").join(_("{pairs} (λ {shortest}–{longest} tokens) turn with the {axis} position id",
                           pairs=pair_set(idx), shortest=short(lam[idx].min()), longest=short(lam[idx].max()),
                           axis=_(AXIS_NAMES[axis])) for axis, idx in axes)
    return [_("**M-RoPE** splits the {pairs} pairs by mrope_section {section}: {split} (the coloured squares on the "
              "chart).", pairs=pairs, section=list(report.mrope_section), split=split)]


def layer_sentences(report: sc.ConfigReport, escape: Escape) -> list[str]:
    """Markdown sentences: which layers use which RoPE block, which use none, how M-RoPE splits the pairs and
    how many channels rotate, all from ``describe_config``'s report."""
    n = report.num_hidden_layers
    out = []
    if len(report.blocks) > 1 or report.nope_layers:
        for b in report.blocks:
            where = (_("{used} of {n} layers ({spans})", used=len(b.layers), n=n, spans=spans(b.layers))
                     if b.layers else _("the config does not say which layers") if n is None else _("no layer"))
            out.append(_("{block} ({kind}): {where}.", block=block_label(b, escape), kind=block_kind(b.rope),
                         where=where))
    if report.nope_layers:
        out.append(_("**No rotation (NoPE)** in {nope} of {n} layers ({spans}): queries and keys there carry no "
                     "position from RoPE.", nope=len(report.nope_layers), n=n, spans=spans(report.nope_layers)))
    out += _mrope_sentence(report)
    dims = {(b.rope.dim, b.rope.head_dim, b.rope.head_dim_source, b.rope.partial_rotary_factor): b
            for b in report.blocks}
    for (dim, head_dim, source, prf), b in dims.items():
        values = dict(head_dim=head_dim, dim=dim, pairs=dim // 2, source=source, prf=prf)
        if len(dims) == 1 and dim == head_dim:
            said = _("**Rotary dims.** Every head rotates all its {head_dim} channels (d = {dim}, {pairs} pairs; "
                     "head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).", **values)
        elif len(dims) == 1:
            said = _("**Rotary dims.** Every head rotates {dim} of its {head_dim} channels (d = {dim}, {pairs} "
                     "pairs; head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).", **values)
        elif dim == head_dim:
            said = _("**Rotary dims.** {block}: every head rotates all its {head_dim} channels (d = {dim}, {pairs} "
                     "pairs; head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).",
                     block=block_label(b, escape), **values)
        else:
            said = _("**Rotary dims.** {block}: every head rotates {dim} of its {head_dim} channels (d = {dim}, "
                     "{pairs} pairs; head_dim {head_dim} read from {source}, partial_rotary_factor {prf:g}).",
                     block=block_label(b, escape), **values)
        out.append(said)
    return out


def faster_pairs(block: sc.RopeBlock) -> int:
    """How many of a block's pairs turn faster than plain RoPE with its base (θ'_i > θ_i): none for every method."""
    return int((block.inv_freq > inv_freq(block.rope.dim, block.rope.base) * (1 + 1e-12)).sum())
