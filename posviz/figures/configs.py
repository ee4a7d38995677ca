"""Figures of real models' config.json files: every RoPE block a config declares (Gemma 3's global and
sliding-window layers, Llama 4's RoPE layers beside its NoPE ones, Qwen2-VL's M-RoPE split), drawn per pair
from ``posviz.scaling.describe_config`` and nothing else, so the page's captions and the chart read one
computation."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import presets as ps
from posviz import scaling as sc
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.rope import inv_freq
from posviz.theme import COLORS

__all__ = ["config_blocks"]

BLOCK_COLORS = (COLORS[0], COLORS[2], COLORS[3], COLORS[4])   # one per RoPE block (layer type)
LINE_COLOR = "#8a8f9c"                                         # L and the target length
MROPE_COLORS = {"temporal": COLORS[1], "height": COLORS[5], "width": COLORS[6 % len(COLORS)]}
AXIS_NAMES = {"temporal": N_("temporal"), "height": N_("height"), "width": N_("width")}


def config_source(preset: str, config_json: str) -> tuple[dict, str]:
    """The config a view shows and its name: the pasted text when there is any (parsed, never replaced by a
    preset), else the preset's config. An unreadable paste raises the parser's ValueError."""
    if isinstance(config_json, str) and config_json.strip():
        return sc.parse_config_text(config_json), _("pasted config.json")
    return ps.get_preset(preset).config, preset


def pair_set(idx: np.ndarray) -> str:
    """'pairs 16–39' for one run of pairs, '24 pairs, interleaved' for pairs spread over the spectrum."""
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return _("pairs {first}–{last}", first=idx[0], last=idx[-1])
    return _("{n} pairs, interleaved", n=idx.size)


def _block_name(block: sc.RopeBlock) -> str:
    rc = block.rope
    kind = _("every RoPE layer") if block.layer_type == "all" else block.layer_type[:40]
    what = f"{rc.rope_type}, b = {rc.base:g}"
    return _("{block}: {kind}", block=kind, kind=what)


def _title(name: str, report: sc.ConfigReport) -> str:
    """One line naming the config: its type, rotary dim, base and cos/sin factor, or for a config with several
    RoPE blocks, each block's layer type and type (the legend gives their bases and factors)."""
    if len(report.blocks) == 1:
        b = report.blocks[0]
        return f"{name}: {b.rope.rope_type}, d = {b.rope.dim}, b = {b.rope.base:g}, cos/sin × {b.attention_factor:.4g}"
    kinds = _(", ").join(f"{b.layer_type[:30]} {b.rope.rope_type}" for b in report.blocks)
    return _("{name}: {n} RoPE blocks ({kinds})", name=name, n=len(report.blocks), kinds=kinds)


@figure("config_blocks")
def config_blocks(*, preset: str = "Llama 3.1 8B", config_json: str = "") -> go.Figure:
    """Every RoPE block of a model's config.json, per pair: left the wavelength λ_i = 2π/θ'_i of each block at
    the model's target length beside plain RoPE with the block's own base (dashed), with L (when the config
    states it) and the target marked; right the per-pair scale θ_i/θ'_i (dotted: at short lengths, where
    dynamic NTK and LongRoPE differ). M-RoPE configs colour each pair by the position id it turns with
    (temporal, height, width). Everything comes from ``posviz.scaling.describe_config``."""
    cfg, name = config_source(preset, config_json)
    report = sc.describe_config(cfg)
    traces: list[dict] = []

    def add(panel: int, **kw: object) -> None:
        axes = "" if panel == 1 else "2"
        traces.append(dict(type="scatter", xaxis=f"x{axes}", yaxis=f"y{axes}", **kw))

    for k, block in enumerate(report.blocks):
        rc = block.rope
        color = BLOCK_COLORS[k % len(BLOCK_COLORS)]
        i = np.arange(rc.dim // 2)
        theta0 = inv_freq(rc.dim, rc.base)                          # (d/2,) plain RoPE with the block's base
        label = _block_name(block)
        add(1, x=i, y=(2 * np.pi / theta0).astype(np.float32), mode="lines",
            name=_("plain RoPE, b = {base:g}", base=rc.base),
            line=dict(color=color, width=1.5, dash="dash"), opacity=0.7)
        add(1, x=i, y=(2 * np.pi / block.inv_freq).astype(np.float32), mode="lines+markers",
            name=_("{block}, cos/sin × {factor:.4g}, at {target:,}", block=label, factor=block.attention_factor,
                   target=report.target_length),
            line=dict(color=color, width=2.5), marker=dict(size=4),
            hovertemplate=_("pair %{x}<br>λ = %{y:.4g} tokens") + "<extra></extra>")
        add(2, x=i, y=(theta0 / block.inv_freq).astype(np.float32), mode="lines+markers", showlegend=False,
            name=_("{block}: scale", block=label), line=dict(color=color, width=2.5), marker=dict(size=4))
        short, _A = sc.inv_freq_from_rope_config(rc, None)
        if not np.allclose(short, block.inv_freq):
            add(2, x=i, y=(theta0 / short).astype(np.float32), mode="lines",
                name=_("{block} at short lengths", block=label),
                line=dict(color=color, width=1.5, dash="dot"))
    if report.mrope_axis is not None:
        lam = 2 * np.pi / report.blocks[0].inv_freq
        for axis, idx in report.mrope_pairs():
            add(1, x=idx, y=lam[idx].astype(np.float32), mode="markers",
                name=_("M-RoPE {axis}: {span}", axis=_(AXIS_NAMES[axis]), span=pair_set(idx)),
                marker=dict(size=9, color=MROPE_COLORS[axis], symbol="square"))
    pairs = max(b.rope.dim // 2 for b in report.blocks)
    L = report.original_length  # the training length, when the config states it (Gemma 3 gives only its target)
    lines = [(L, f"L = {L:,}", "dash")] if L else []
    if report.target_length != L:
        lines.append((report.target_length, _("target {target:,}", target=report.target_length), "dot"))
    for y, text, dash in lines:  # plain traces: add_hline on a log axis can blow the range up
        add(1, x=[-0.5, pairs - 0.5], y=[y, y], mode="lines", name=text, line=dict(color=LINE_COLOR, dash=dash))
    axis = dict(type="log", title=dict(text=_("λ (tokens)")))
    layout = dict(
        title=_title(name, report), height=480, legend=dict(orientation="h", y=-0.22),
        xaxis=dict(domain=[0.0, 0.45], anchor="y", title=dict(text=_("pair index i"))),
        yaxis=dict(axis, anchor="x"),
        xaxis2=dict(domain=[0.55, 1.0], anchor="y2", title=dict(text=_("pair index i"))),
        # 1, 2, 5 per decade: plotly's default labels every integer of a short log range (1..9), which collide
        # once presenter mode enlarges them
        yaxis2=dict(type="log", anchor="x2", dtick="D2", title=dict(text=_("per-pair scale θ_i/θ'_i"))),
    )
    return go.Figure(traces, layout=layout)
