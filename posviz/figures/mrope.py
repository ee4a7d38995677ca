"""Figures of M-RoPE (Qwen2-VL): the three position ids of a text + image + video sequence, and the angle each
rotary pair turns by at every token with the pairs split into temporal, height and width sections.

A sequence is described by scalars (text lengths, merged grid sizes), so every figure can be built from the
command line and the page's sliders; the ids and angles come from :mod:`posviz.mrope`. Wang et al. 2024
(Qwen2-VL, arXiv:2409.12191) §2.1; docs/FORMULAS.md §4.5.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import mrope
from posviz._validate import check_choice, check_int
from posviz.figures._common import MAX_CELLS, TWO_LINE_TOP, Panels, f32, subtitled
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.scaling import mrope_axis
from posviz.theme import COLORS, CYCLIC, compact_number

__all__ = ["mrope_ids", "mrope_pair_angles"]

AXES = ("temporal", "height", "width")
AXIS_WORDS = (N_("temporal"), N_("height"), N_("width"))
AXIS_IDS = (N_("temporal id"), N_("height id"), N_("width id"))
AXIS_COLORS = (COLORS[1], COLORS[5], COLORS[2])
AXIS_MARKERS = (dict(symbol="circle", size=12), dict(symbol="diamond", size=9), dict(symbol="x-thin-open", size=7))
SPARSE_TOKENS = 200  # up to this many tokens the markers have their full size; beyond it they shrink


def marker_scale(n_tokens: int) -> float:
    """How large the id markers are drawn for ``n_tokens`` tokens: 1 up to SPARSE_TOKENS, then
    sqrt(SPARSE_TOKENS / n) down to one half. Thousands of tokens share a chart a few hundred pixels wide, where
    full-size markers merge into one blob that hides the steps between segments (and a computer without a graphics
    card paints every pixel of each marker: four times the area of a marker half as wide). The three keep their
    ratios, so a text token's circle, diamond and cross still sit inside one another."""
    return float(np.clip(np.sqrt(SPARSE_TOKENS / max(n_tokens, 1)), 0.5, 1.0))
SEGMENT_COLORS = {"image": COLORS[4], "video": COLORS[3]}
MAX_SIDE = 16  # merged tokens per side of an image or video frame, frames per video


def sequence(*, n_text_before: int = 4, image_h: int = 3, image_w: int = 4, n_text_mid: int = 3, video_t: int = 2,
             video_h: int = 3, video_w: int = 3, n_text_after: int = 3) -> tuple[tuple, ...]:
    """The segments of a text, image, text, video, text sequence (grids before the 2 × 2 merge, as transformers'
    ``*_grid_thw``); ``video_t = 0`` leaves the video and the text after it out."""
    before = check_int("n_text_before", n_text_before, 1, 64)
    ih, iw = (check_int(n, v, 1, MAX_SIDE) for n, v in (("image_h", image_h), ("image_w", image_w)))
    mid = check_int("n_text_mid", n_text_mid, 1, 64)
    vt = check_int("video_t", video_t, 0, MAX_SIDE)
    vh, vw = (check_int(n, v, 1, MAX_SIDE) for n, v in (("video_h", video_h), ("video_w", video_w)))
    after = check_int("n_text_after", n_text_after, 1, 64)
    m = mrope.SPATIAL_MERGE_SIZE
    segs = [("text", before), ("image", 1, m * ih, m * iw), ("text", mid)]
    if vt:
        segs += [("video", vt, m * vh, m * vw), ("text", after)]
    return tuple(segs)


def segment_spans(segments: tuple) -> list[tuple[str, int, int, str]]:
    """(kind, first token, last token, label) of every segment, e.g. ("image", 4, 15, "image 3×4")."""
    out, start = [], 0
    for kind, t, h, w in mrope.check_segments(segments):
        n = t * h * w
        label = (_("text ×{n}", n=n) if kind == "text" else _("image {h}×{w}", h=h, w=w) if kind == "image" else
                 _("video {t}×{h}×{w}", t=t, h=h, w=w))
        out.append((kind, start, start + n - 1, label))
        start += n
    return out


TOKEN_LABEL = {"text": N_("text token {index}"), "image": N_("image token {index}"),
               "video": N_("video token {index}")}


def _token_labels(segments: tuple) -> list[str]:
    labels = []
    for kind, a, b, _label in segment_spans(segments):
        labels += [_(TOKEN_LABEL[kind], index=i - a) for i in range(a, b + 1)]
    return labels


@figure("mrope_ids")
def mrope_ids(*, n_text_before: int = 4, image_h: int = 3, image_w: int = 4, n_text_mid: int = 3, video_t: int = 2,
              video_h: int = 3, video_w: int = 3, n_text_after: int = 3, variant: str = "qwen2_vl",
              second_per_grid_t: float = 1.0, text_after: str = "max_id", ids: str = "mrope") -> go.Figure:
    """The (temporal, height, width) position ids of every token of a text + image (+ video) sequence, as
    Qwen2-VL's ``get_rope_index`` assigns them; ``ids="sequential"`` draws what a text-only model would use
    (0 … N−1 on every axis). Image and video tokens sit on shaded bands; grids are in merged tokens."""
    segs = sequence(n_text_before=n_text_before, image_h=image_h, image_w=image_w, n_text_mid=n_text_mid,
                    video_t=video_t, video_h=video_h, video_w=video_w, n_text_after=n_text_after)
    ids = check_choice("ids", ids, ("mrope", "sequential"))
    pos = (mrope.mrope_position_ids(segs, variant=variant, second_per_grid_t=second_per_grid_t,
                                    text_after=text_after) if ids == "mrope" else mrope.sequential_position_ids(segs))
    n = pos.shape[1]
    labels = np.array(_token_labels(segs))
    scale = marker_scale(n)
    grid = Panels()
    grids = [(kind, a, b, label) for kind, a, b, label in segment_spans(segs) if kind != "text"]
    for k, (kind, a, b, label) in enumerate(grids):  # labels on alternate lines: a narrow band's runs on
        grid.marks.vrect(a - 0.5, b + 0.5, label, color=SEGMENT_COLORS[kind], opacity=0.12, line=k % 2)
    for a in range(len(AXES)):
        grid.scatter(x=np.arange(n), y=f32(pos[a]), mode="markers", name=_(AXIS_IDS[a]),
                     marker=dict(color=AXIS_COLORS[a], symbol=AXIS_MARKERS[a]["symbol"],
                                 size=AXIS_MARKERS[a]["size"] * scale), customdata=labels,
                     hovertemplate=_("token %{{x}} (%{{customdata}})<br>{axis} %{{y}}<extra></extra>",
                                     axis=_(AXIS_IDS[a])))
    grid.axis("x", title=_("token index in the sequence"), range=[-1, n])
    grid.axis("y", title=_("position id"), rangemode="tozero")
    what = "M-RoPE (" + {"qwen2_vl": "Qwen2-VL", "qwen2_5_vl": "Qwen2.5-VL"}[variant] + ")" if ids == "mrope" \
        else _("one id per token, as for text alone")
    detail = _("{tokens} tokens use ids 0 … {largest}; the next generated token gets {next}", tokens=f"{n:,}",
               largest=f"{int(pos.max()):,}", next=f"{int(pos.max()) + 1:,}")
    return grid.figure(title=subtitled(_("Position ids: {scheme}", scheme=what), detail), margin=dict(t=TWO_LINE_TOP),
                       legend=dict(orientation="h", y=-0.2, itemsizing="constant"), height=440)


@figure("mrope_pair_angles")
def mrope_pair_angles(*, n_text_before: int = 4, image_h: int = 3, image_w: int = 4, n_text_mid: int = 3,
                      video_t: int = 2, video_h: int = 3, video_w: int = 3, n_text_after: int = 3,
                      base: float = mrope.QWEN2_VL_THETA, interleaved: bool = False) -> go.Figure:
    """The angle (mod 2π) each of Qwen2-VL's 64 rotary pairs turns by at every token, with the strip above it
    saying which position id each pair reads: mrope_section (16, 24, 24) chunked (Qwen2-VL), or interleaved
    t, h, w, t, h, w … (Qwen3-VL). Head dim 128."""
    segs = sequence(n_text_before=n_text_before, image_h=image_h, image_w=image_w, n_text_mid=n_text_mid,
                    video_t=video_t, video_h=video_h, video_w=video_w, n_text_after=n_text_after)
    section = (24, 20, 20) if interleaved else mrope.MROPE_SECTION  # Qwen3-VL ships [24, 20, 20] interleaved
    pos = mrope.mrope_position_ids(segs)
    shown = min(pos.shape[1], MAX_CELLS // 64)  # the heatmap cell cap: the first tokens of a very long sequence
    ang = np.mod(mrope.mrope_angles(pos[:, :shown], 128, base, section, interleaved), 2 * np.pi)  # (n, 64)
    axis = mrope_axis(section, interleaved)  # (64,)
    grid = Panels((((0.0, 1.0), (0.89, 1.0)), ((0.0, 1.0), (0.0, 0.85))))  # the axis strip over the angles
    pairs = np.arange(axis.size)
    grid.add(go.Heatmap(z=f32(axis[None, :]), x=pairs, y=[0], zmin=-0.5, zmax=2.5, showscale=False,
                        colorscale=[[0, AXIS_COLORS[0]], [1 / 3, AXIS_COLORS[0]], [1 / 3, AXIS_COLORS[1]],
                                    [2 / 3, AXIS_COLORS[1]], [2 / 3, AXIS_COLORS[2]], [1, AXIS_COLORS[2]]],
                        customdata=np.array([[_(AXIS_WORDS[a]) for a in axis]]), name=_("axis"),
                        hovertemplate=_("pair %{x} turns with the %{customdata} id<extra></extra>")), 1)
    grid.add(go.Heatmap(z=f32(ang), x=pairs, y=np.arange(shown), colorscale=CYCLIC, zmin=0, zmax=2 * np.pi,
                        name=_("angle"), colorbar=dict(title=_("angle (rad)"), tickvals=[0, np.pi, 2 * np.pi],
                                                       ticktext=["0", "π", "2π"], len=0.85, y=0.43),
                        hovertemplate=_("token %{y}, pair %{x}<br>angle %{z:.3f} rad<extra></extra>")), 2)
    if interleaved:  # too many runs to label: a legend gives the strip's colours
        for a in range(len(AXES)):
            grid.scatter(1, x=[None], y=[None], mode="markers", name=_(AXIS_IDS[a]),
                         marker=dict(symbol="square", size=12, color=AXIS_COLORS[a]))
    else:
        first = 0
        for a, count in enumerate(section):
            grid.marks.notes.append(dict(x=first + (count - 1) / 2, y=0, xref="x", yref="y", showarrow=False,
                                         text=_("{axis}: pairs {first}–{last}", axis=_(AXIS_WORDS[a]), first=first,
                                                last=first + count - 1),
                                         font=dict(color="#ffffff")))
            first += count
    for kind, a, b, _label in segment_spans(segs):
        if kind != "text" and a < shown:
            grid.marks.shapes.append(dict(type="rect", xref="x2 domain", x0=0, x1=1, yref="y2", y0=a - 0.5,
                                          y1=min(b, shown - 1) + 0.5, line=dict(color=SEGMENT_COLORS[kind], width=2)))
    grid.axis("x", 1, showticklabels=False, range=[-0.5, axis.size - 0.5])
    grid.axis("y", 1, showticklabels=False)
    grid.axis("x", 2, title=_("rotary pair k (θ<sub>k</sub> = b<sup>−2k/128</sup>, fastest first)"),
              range=[-0.5, axis.size - 0.5])
    grid.axis("y", 2, autorange="reversed", title=_("token index in the sequence"))
    title = (_("M-RoPE angles per pair, interleaved, section (24, 20, 20), as Qwen3-VL") if interleaved else
             _("M-RoPE angles per pair, chunked, section (16, 24, 24)"))
    count = (_("{tokens} tokens", tokens=f"{pos.shape[1]:,}") if shown == pos.shape[1] else
             _("first {shown:,} of {tokens:,} tokens", shown=shown, tokens=pos.shape[1]))
    return grid.figure(title=subtitled(title, _("{count}, base {base}; boxes: image and video tokens", count=count,
                                                 base=compact_number(base))),
                       margin=dict(t=TWO_LINE_TOP), height=560, legend=dict(orientation="h", y=-0.14))
