"""Figures of the 2D lesson: sin/cos on a patch grid, patch similarity, MAE's halves, resizing, 2-D RoPE.

Every heatmap is drawn like an image: row 0 at the top, column 0 on the left, one cell per patch. The
numbers come from :mod:`posviz.sinusoidal` and :mod:`posviz.rope2d`; nothing is recomputed here. The
largest map is 64×64 patches per panel (a few thousand cells), so no downsampling is needed.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import rope2d
from posviz._validate import check_choice, check_int
from posviz.figures._common import TWO_LINE_TOP, Panels, curve_mode, f32, subtitled
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.theme import COLORS, CYCLIC, DIVERGING, SEQUENTIAL

__all__ = ["patch_channel", "patch_channels", "patch_similarity_modes", "mae_axis_response",
           "resize_channel", "resize_error_map", "rope2d_two_queries", "mixed_rope_directions",
           "flux_angles", "flux_scores"]

MODE_LABEL = {"concat": N_("concat (row | column)"), "add": N_("add (row + column)"),
              "mae": N_("MAE (column | row)")}
# The axis a channel follows, as rope2d.sincos_2d_channel_info names it
AXIS_WORDS = {"row": N_("row"), "column": N_("column"), "row+column": N_("row+column")}
FRAME = "#9aa0b4"  # outline of each image: visible on white and on the dark theme


def _image_heatmap(z: np.ndarray, name: str, *, diverging: bool = True, zmin: float | None = None,
                   zmax: float | None = None, x: np.ndarray | None = None, y: np.ndarray | None = None,
                   colorscale: object = None, showscale: bool = True, hover: str | None = None,
                   colorbar_x: float | None = None) -> go.Heatmap:
    """One patch-grid heatmap, float32, with names in its hover text."""
    trace = go.Heatmap(
        z=f32(z), x=x if x is not None else np.arange(z.shape[1]), y=y if y is not None else np.arange(z.shape[0]),
        name=name, hovertemplate=hover or _("row %{{y}}, column %{{x}}<br>{name}: %{{z:.4f}}<extra></extra>",
                                            name=name),
        colorscale=colorscale or (DIVERGING if diverging else SEQUENTIAL), zmin=zmin, zmax=zmax,
        showscale=showscale,
    )
    if diverging and colorscale is None:
        trace.update(meta="diverging", zmid=0)
    if colorbar_x is not None:
        trace.update(colorbar=dict(x=colorbar_x, len=0.9))
    return trace


def _image_axes(grid: Panels, panels: tuple[int, ...] = (1,), x_title: str | None = None,
                y_title: str | None = None) -> None:
    """Image orientation (row 0 on top), square patches, the x title on every panel, the y title on the first,
    and a thin frame round each image: a row or column of zeros (white on a diverging scale) still reads as
    part of the image on a white page."""
    x_title = x_title or _("column c (patch)")
    y_title = y_title or _("row r (patch)")
    for i in panels:
        sfx = "" if i == 1 else str(i)
        grid.marks.shapes.append(dict(type="rect", xref=f"x{sfx} domain", yref=f"y{sfx} domain", x0=0, x1=1, y0=0,
                                      y1=1, line=dict(color=FRAME, width=1), fillcolor="rgba(0,0,0,0)"))
        grid.axis("y", i, title=y_title if i == panels[0] else None, autorange="reversed",
                  scaleanchor=f"x{'' if i == 1 else i}", scaleratio=1, constrain="domain")
        grid.axis("x", i, title=x_title, constrain="domain")


def axis_words(axis: object) -> str:
    """The axis a channel follows ("row", "column", "row+column") in the student's language."""
    return _(AXIS_WORDS[str(axis)])


def _channel_label(info: dict[str, np.ndarray], ch: int) -> tuple[str, str]:
    """What channel ``ch`` is ("ch 3: cos, column") and its frequency ("ω=…, λ=… patches")."""
    axis = _("row and column") if str(info["axis"][ch]) == "row+column" else axis_words(info["axis"][ch])
    w = float(info["omega"][ch])
    return (_("ch {channel}: {fn}, {axis}", channel=ch, fn=info["fn"][ch], axis=axis),
            _("ω={omega:.3g}, λ={wavelength:.3g} patches", omega=w, wavelength=2 * np.pi / w))


# ---------------------------------------------------------------------------------------------------
# 1. The patch grid
# ---------------------------------------------------------------------------------------------------

@figure("patch_channel")
def patch_channel(*, height: int = 14, width: int = 14, d_model: int = 64, base: float = 10000.0,
                  combine: str = "mae", channel: int = 0) -> go.Figure:
    """One channel of the 2-D sin/cos encoding drawn as an H×W image: stripes along the axis it follows."""
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    channel = check_int("channel", channel, 0, d_model - 1)
    img = rope2d.sincos_2d_channels(height, width, d_model, base, combine, channel, 1)[:, :, 0]  # (H, W)
    lim = 2.0 if combine == "add" else 1.0
    grid = Panels()
    grid.add(_image_heatmap(img, _("PE channel {channel}", channel=channel), zmin=-lim, zmax=lim))
    _image_axes(grid)
    what, freq = _channel_label(info, channel)
    return grid.figure(title=subtitled(_("{mode}, {channel}", mode=_(MODE_LABEL[combine]), channel=what),
                                       _("{frequency}: one channel as an image", frequency=freq)),
                       margin=dict(t=TWO_LINE_TOP))


@figure("patch_channels")
def patch_channels(*, height: int = 14, width: int = 14, d_model: int = 64, base: float = 10000.0,
                   combine: str = "mae", first: int = 0, n_channels: int = 16, spread: bool = True) -> go.Figure:
    """Small multiples: up to 16 channels as H×W images in one mosaic, labelled by the axis they follow.

    ``spread``: every (D/16)-th channel from ``first``, so all blocks of the layout appear; otherwise
    ``n_channels`` consecutive channels from ``first``. One heatmap trace with blank gutters between the
    tiles (not 16 subplots), so the browser redraws it as fast as a single image.
    """
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    first = check_int("first", first, 0, d_model - 1)
    n_channels = check_int("n_channels", n_channels, 1, 16)
    step = max(1, d_model // n_channels) if spread else 1
    pe = rope2d.sincos_2d_channels(height, width, d_model, base, combine, first, n_channels, step)  # (H, W, n)
    chans = list(range(first, d_model, step))[: pe.shape[2]]
    cols = min(4, len(chans))
    rows = -(-len(chans) // cols)
    gx, gy = max(1, -(-width // 8)), max(1, -(-height // 3))  # gutters; the row gutter holds the tile's label
    mosaic = np.full((rows * (height + gy), cols * width + (cols - 1) * gx), np.nan, dtype=np.float32)
    channel_of = np.full(mosaic.shape, np.nan, dtype=np.float32)
    fig = go.Figure()
    for i, c in enumerate(chans):
        r0, c0 = (i // cols) * (height + gy) + gy, (i % cols) * (width + gx)
        mosaic[r0:r0 + height, c0:c0 + width] = pe[:, :, i]
        channel_of[r0:r0 + height, c0:c0 + width] = c
        fig.add_annotation(x=c0 + (width - 1) / 2, y=r0 - 0.5, yanchor="bottom", showarrow=False,
                           text=_("ch {channel}: {fn} {axis}", channel=c, fn=info["fn"][c],
                                  axis=axis_words(info["axis"][c])), font=dict(size=12))
        fig.add_shape(type="rect", x0=c0 - 0.5, x1=c0 + width - 0.5, y0=r0 - 0.5, y1=r0 + height - 0.5,
                      line=dict(color=FRAME, width=1))
    lim = 2.0 if combine == "add" else 1.0
    fig.add_trace(go.Heatmap(z=mosaic, customdata=channel_of, colorscale=DIVERGING, meta="diverging", zmid=0,
                             zmin=-lim, zmax=lim, name=_("PE channels"), hoverongaps=False,
                             hovertemplate=_("channel %{customdata}: %{z:.4f}<extra></extra>")))
    fig.update_yaxes(autorange="reversed", showticklabels=False, showgrid=False, zeroline=False, ticks="",
                     showline=False, scaleanchor="x", scaleratio=1, constrain="domain")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", showline=False,
                     constrain="domain")
    which = (_("one channel in {step} from {first} of {channels} as {height}×{width} images", step=step, first=first,
               channels=d_model, height=height, width=width) if step > 1 else
             _("channels {first}–{last} of {channels} as {height}×{width} images", first=chans[0], last=chans[-1],
               channels=d_model, height=height, width=width))
    fig.update_layout(title=subtitled(which, _("{mode} (row 0 at the top of each tile)", mode=_(MODE_LABEL[combine]))),
                      height=max(360, 230 * rows), margin=dict(t=TWO_LINE_TOP))
    return fig


# ---------------------------------------------------------------------------------------------------
# 2. Patch similarity and the add-mode collision
# ---------------------------------------------------------------------------------------------------

@figure("patch_similarity_modes")
def patch_similarity_modes(*, height: int = 14, width: int = 14, d_model: int = 64, base: float = 10000.0,
                           row: int = 2, col: int = 9) -> go.Figure:
    """Cosine similarity of patch (row, col) to every patch, for concat, add and MAE side by side."""
    modes = ("concat", "add", "mae")
    sims = {m: rope2d.patch_similarity(height, width, d_model, base, m, row, col) for m in modes}
    grid = Panels.grid(1, 3, [_(MODE_LABEL[m]) for m in modes], hspace=0.06, title_size=16)
    lo = float(min(v.min() for v in sims.values()))
    lo = min(lo, 1.0 - 1e-6)
    for i, m in enumerate(modes):
        grid.add(_image_heatmap(sims[m], _("cos similarity to ({row}, {col})", row=row, col=col), diverging=False,
                                zmin=lo,
                                zmax=1.0, showscale=(i == 2)), i + 1)
        grid.scatter(i + 1, x=[col], y=[row], mode="markers", name=_("query patch"), showlegend=(i == 0),
                     marker=dict(symbol="star", size=15, color="#ffffff", line=dict(width=1.5, color="#111111")),
                     hovertemplate=_("query patch (row {row}, column {col})<extra></extra>", row=row, col=col))
        if row != col and col < height and row < width:
            s = float(sims[m][col, row])
            grid.scatter(
                i + 1, x=[row], y=[col], mode="markers+text", name=_("transposed patch (col, row)"),
                showlegend=(i == 0),
                text=[f"{s:.3f}"], textposition="bottom center",
                marker=dict(symbol="circle-open", size=14, color=COLORS[3], line=dict(width=3)),
                hovertemplate=_("transposed patch (row {row}, column {col})<br>similarity {similarity:.4f}"
                                "<extra></extra>", row=col, col=row, similarity=s))
    _image_axes(grid, (1, 2, 3))
    return grid.figure(title=subtitled(_("Which patches look like patch (row {row}, column {col})?", row=row, col=col),
                                       _("cos similarity of encodings, D = {channels} (colours from {low:.2f} to 1)",
                                         channels=d_model, low=lo)),
                       margin=dict(t=TWO_LINE_TOP),
                       legend=dict(orientation="h", y=-0.18))


# ---------------------------------------------------------------------------------------------------
# MAE's naming quirk (a pitfall of the lesson)
# ---------------------------------------------------------------------------------------------------

@figure("mae_axis_response")
def mae_axis_response(*, height: int = 14, width: int = 14, d_model: int = 64, base: float = 10000.0,
                      combine: str = "mae") -> go.Figure:
    """Per channel, how much the encoding changes for one step along a row vs one step down a column."""
    resp = rope2d.axis_response(height, width, d_model, base, combine)  # (2, d)
    ch = np.arange(d_model)
    fig = go.Figure([
        go.Bar(x=ch, y=f32(resp[0]), name=_("one step along a row (column c → c+1)"), marker_color=COLORS[0],
               hovertemplate=_("channel %{x}<br>along a row: RMS change %{y:.3f}<extra></extra>")),
        go.Bar(x=ch, y=f32(resp[1]), name=_("one step down a column (row r → r+1)"), marker_color=COLORS[1],
               hovertemplate=_("channel %{x}<br>down a column: RMS change %{y:.3f}<extra></extra>")),
    ])
    half = d_model / 2 - 0.5
    if combine in ("mae", "concat"):
        names = ((_("first half: MAE's code calls it emb_h"), _("second half: emb_w")) if combine == "mae"
                 else (_("first half: row (x in row-first code)"), _("second half: column")))
        fig.add_vline(x=half, line_dash="dash", line_color="#888888")
        for x, text in ((d_model / 4 - 0.5, names[0]), (3 * d_model / 4 - 0.5, names[1])):
            fig.add_annotation(x=x, y=1.04, yref="paper", text=text, showarrow=False)
    fig.update_layout(barmode="group", bargap=0.05,
                      title=subtitled(_("Which channels move when you move?"),
                                      _("{mode}, D = {channels}", mode=_(MODE_LABEL[combine]), channels=d_model)),
                      margin=dict(t=TWO_LINE_TOP + 20),
                      xaxis_title=_("channel index"), yaxis_title=_("RMS change per step"),
                      legend=dict(orientation="h", y=-0.2))
    return fig


# ---------------------------------------------------------------------------------------------------
# 3. Resolution change: bicubic resize vs recomputing
# ---------------------------------------------------------------------------------------------------

RECOMPUTE_LABEL = {"scaled": N_("formula at the same fractional positions"),
                   "integer": N_("formula recomputed on the new grid")}
RECOMPUTE_SHORT = {"scaled": N_("formula, same positions"), "integer": N_("formula, new grid")}


@figure("resize_channel")
def resize_channel(*, old_height: int = 14, old_width: int = 14, new_height: int = 20, new_width: int = 20,
                   d_model: int = 64, base: float = 10000.0,
                   combine: str = "mae", channel: int = 0, recompute: str = "scaled") -> go.Figure:
    """One channel after resizing the trained grid: bicubic interpolation, the formula, and their gap."""
    channel = check_int("channel", channel, 0, d_model - 1)
    a, b = rope2d.resize_channel_maps(old_height, old_width, new_height, new_width, d_model, base, combine, recompute,
                                      channel)  # (H', W') each
    lim = 2.0 if combine == "add" else 1.0
    gap = float(np.abs(a - b).max())
    grid = Panels.grid(1, 3, [_("bicubic resize (±{limit:g})", limit=lim), _(RECOMPUTE_SHORT[recompute]),
                              _("difference (max {gap:.3f})", gap=gap)], hspace=0.07, title_size=14)
    grid.add(_image_heatmap(a, _("interpolated"), zmin=-lim, zmax=lim, showscale=False), 1)
    grid.add(_image_heatmap(b, _("formula"), zmin=-lim, zmax=lim, showscale=False), 2)
    dl = max(gap, 1e-6)
    grid.add(_image_heatmap(a - b, _("interpolated − formula"), zmin=-dl, zmax=dl, colorbar_x=1.0), 3)
    _image_axes(grid, (1, 2, 3), x_title=_("column (new grid)"), y_title=_("row (new grid)"))
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    what, freq = _channel_label(info, channel)
    return grid.figure(title=subtitled(_("{old_height}×{old_width} grid used at {new_height}×{new_width}: {channel}",
                                         old_height=old_height, old_width=old_width, new_height=new_height,
                                         new_width=new_width, channel=what),
                                       _("{frequency}; {compared}", frequency=freq,
                                         compared=_(RECOMPUTE_LABEL[recompute]))), margin=dict(t=TWO_LINE_TOP))


@figure("resize_error_map")
def resize_error_map(*, old_height: int = 14, old_width: int = 14, new_height: int = 20, new_width: int = 20,
                     d_model: int = 64, base: float = 10000.0,
                     combine: str = "mae", recompute: str = "scaled") -> go.Figure:
    """Where and in which channels the bicubic resize departs from the formula."""
    per_patch, per_channel = rope2d.resize_error(old_height, old_width, new_height, new_width, d_model, base, combine,
                                                 recompute)
    grid = Panels.grid(1, 2, [_("relative error per patch"), _("RMS error per channel")], widths=(0.42, 0.58),
                       hspace=0.3, title_size=16)
    err = _image_heatmap(per_patch, _("relative error"), diverging=False, zmin=0, colorbar_x=0.3)
    err.colorbar.update(xanchor="left", title=dict(text=_("|Δ| / |formula|"), side="right"))
    grid.add(err, 1)
    info = rope2d.sincos_2d_channel_info(d_model, base, combine)
    axes = np.array([axis_words(a) for a in info["axis"]])
    grid.scatter(
        2, x=np.arange(d_model), y=f32(per_channel), mode=curve_mode(d_model, 64), name=_("RMS error"),
        marker=dict(size=4, color=COLORS[0]), line=dict(color=COLORS[0]),
        customdata=np.stack([axes, info["fn"], np.char.mod("%.3g", 2 * np.pi / info["omega"])], axis=1),
        hovertemplate=_("channel %{x} (%{customdata[1]} of %{customdata[0]}, λ = %{customdata[2]} patches)"
                        "<br>RMS error %{y:.4f}<extra></extra>"))
    _image_axes(grid, (1,), x_title=_("column (new grid)"), y_title=_("row (new grid)"))
    grid.axis("x", 2, title=_("channel index"))
    grid.axis("y", 2, title=_("RMS of interp − formula"))
    return grid.figure(title=subtitled(_("Bicubic {old_height}×{old_width} → {new_height}×{new_width} vs the formula",
                                         old_height=old_height, old_width=old_width, new_height=new_height,
                                         new_width=new_width),
                                       _("{compared}, {mode}, D = {channels}", compared=_(RECOMPUTE_LABEL[recompute]),
                                         mode=_(MODE_LABEL[combine]), channels=d_model)),
                       margin=dict(t=TWO_LINE_TOP),
                       showlegend=False)


# ---------------------------------------------------------------------------------------------------
# 4. RoPE in 2-D
# ---------------------------------------------------------------------------------------------------

@figure("rope2d_two_queries")
def rope2d_two_queries(*, height: int = 14, width: int = 14, dim: int = 64, kind: str = "axial",
                       base: float = 100.0, seed: int = 0, head: int = 0, content: str = "ones",
                       row_a: int = 3, col_a: int = 3, row_b: int = 9, col_b: int = 10,
                       by_offset: bool = False) -> go.Figure:
    """2-D RoPE score of two query patches against every key patch, side by side (axial or mixed).

    With ``by_offset`` the axes are the offset (dx, dy) from each query, so equal offsets line up.
    """
    queries = ((row_a, col_a), (row_b, col_b))
    maps = [rope2d.rope2d_scores(height, width, dim, r, c, kind, base, seed, head, content) for r, c in queries]
    gap = rope2d.shared_offset_gap(maps[0], maps[1], queries[0], queries[1])
    lo = float(min(m.min() for m in maps))
    hi = float(max(m.max() for m in maps))
    lim = max(abs(lo), abs(hi), 1e-9)
    signed = lo < 0  # all-positive maps (q = k = ones, slow frequencies) get a sequential scale for contrast
    zmin, zmax = (-lim, lim) if signed else (lo, max(hi, lo + 1e-9))
    grid = Panels.grid(1, 2, [_("query {name} at (row {row}, column {col})", name="AB"[i], row=r, col=c)
                              for i, (r, c) in enumerate(queries)], hspace=0.08, title_size=16)
    for i, ((r, c), m) in enumerate(zip(queries, maps)):
        x = np.arange(width) - (c if by_offset else 0)
        y = np.arange(height) - (r if by_offset else 0)
        hover = (_("dx %{{x}}, dy %{{y}}<br>score with query {name}: %{{z:.4f}}<extra></extra>", name="AB"[i])
                 if by_offset else
                 _("key row %{{y}}, column %{{x}}<br>score with query {name}: %{{z:.4f}}<extra></extra>",
                   name="AB"[i]))
        grid.add(_image_heatmap(m, _("score, query {name}", name="AB"[i]), diverging=signed, zmin=zmin, zmax=zmax, x=x,
                                y=y, showscale=(i == 1), hover=hover), i + 1)
        qx, qy = (0, 0) if by_offset else (c, r)
        grid.scatter(i + 1, x=[qx], y=[qy], mode="markers", name=_("query {name}", name="AB"[i]), showlegend=False,
                     marker=dict(symbol="star", size=15, color="#ffffff", line=dict(width=1.5, color="#111111")),
                     hovertemplate=_("query {name} (row {row}, column {col})<extra></extra>", name="AB"[i], row=r,
                                     col=c))
    if by_offset:
        _image_axes(grid, (1, 2), x_title=_("dx = key column − query column"), y_title=_("dy = key row − query row"))
        grid.axis("y", 2, matches="y", showticklabels=False)  # equal offsets line up across the panels
    else:
        _image_axes(grid, (1, 2), x_title=_("key column x"), y_title=_("key row y"))
    what = (_("axial RoPE (base {base:g})", base=base) if kind == "axial" else
            _("RoPE-Mixed init (base {base:g}, head {head}, seed {seed})", base=base, head=head, seed=seed))
    return grid.figure(title=subtitled(_("{variant}: same offset → same score", variant=what),
                                       _("head dim {dim}; largest gap over shared offsets {gap:.1e}", dim=dim,
                                         gap=gap)),
                       margin=dict(t=TWO_LINE_TOP))


@figure("mixed_rope_directions")
def mixed_rope_directions(*, dim: int = 64, num_heads: int = 4, base: float = 10.0, seed: int = 0) -> go.Figure:
    """RoPE-Mixed frequency vectors (f_x[k], f_y[k]) of every pair, one colour per head."""
    freqs = rope2d.mixed_rope_freqs(dim, num_heads, base, seed)  # (heads, 2, dim/2)
    fig = go.Figure()
    for h in range(freqs.shape[0]):
        fx, fy = freqs[h]
        fig.add_trace(go.Scatter(
            x=f32(fx), y=f32(fy), mode="markers", name=_("head {head}", head=h),
            marker=dict(size=7, color=COLORS[h % len(COLORS)]), customdata=np.arange(len(fx)),
            hovertemplate=_("head {head}, pair %{{customdata}}<br>f_x %{{x:.4f}}, f_y %{{y:.4f}}<extra></extra>",
                            head=h)))
    fig.update_xaxes(title_text=_("f_x (radians per column step)"), zeroline=True)
    fig.update_yaxes(title_text=_("f_y (radians per row step)"), scaleanchor="x", scaleratio=1, zeroline=True)
    fig.update_layout(title=subtitled(_("RoPE-Mixed at initialisation: a random direction per head"),
                                      _("each head turns along a direction φ and its right angle (seed {seed})",
                                        seed=seed)),
                      margin=dict(t=TWO_LINE_TOP))
    return fig


def _flux_token_labels(height: int, width: int, n_text: int) -> np.ndarray:
    labels = [_("text {index} (0,0,0)", index=i) for i in range(n_text)]
    labels += [_("patch ({row},{col})", row=r, col=c) for r in range(height) for c in range(width)]
    return np.array(labels)


@figure("flux_angles")
def flux_angles(*, height: int = 6, width: int = 6, n_text: int = 8, patch_rows: int = 3) -> go.Figure:
    """FLUX.1 rotation angle (mod 2π) of each of the 64 pairs for every token: text rows are all zero.

    Shows the ``n_text`` text tokens, then the patches of the first ``patch_rows`` grid rows (all columns).
    """
    height = check_int("height", height, 1, 64)
    width = check_int("width", width, 1, 64)
    n_text = check_int("n_text", n_text, 0, 64)
    patch_rows = check_int("patch_rows", patch_rows, 1, 64)
    shown = min(patch_rows, height, max(1, 1024 // width))  # at most 1024 patches: <= 70k cells
    ids = rope2d.flux_ids(height, width, n_text)[: n_text + shown * width]  # text, then the first rows
    ang = np.mod(rope2d.flux_rope_angles(ids), 2 * np.pi)  # (N, 64)
    labels = _flux_token_labels(shown, width, n_text)
    fig = go.Figure(go.Heatmap(
        z=f32(ang), x=np.arange(ang.shape[1]), y=labels, colorscale=CYCLIC, zmin=0, zmax=2 * np.pi,
        name=_("angle"), colorbar=dict(title=_("angle (rad)"), tickvals=[0, np.pi, 2 * np.pi],
                                       ticktext=["0", "π", "2π"]),
        hovertemplate=_("%{y}, pair %{x}<br>angle %{z:.3f} rad<extra></extra>")))
    axes = ((-0.5, _("axis 0"), 1.02), (7.5, _("axis 1: row (56 ch)"), 1.02), (35.5, _("axis 2: column (56 ch)"), 1.02))
    for x, text, y in axes:
        fig.add_vline(x=x, line_color="#888888", line_dash="dot")
        fig.add_annotation(x=x + 0.5, y=y, yref="paper", text=text, showarrow=False, xanchor="left")
    if n_text:
        fig.add_hline(y=n_text - 0.5, line_color=COLORS[3], line_width=2)
        fig.add_annotation(x=4, y=labels[(n_text - 1) // 2], text=_("text tokens: angle 0 on every pair, no rotation"),
                           showarrow=False, xanchor="left", font=dict(color=COLORS[3]), bgcolor="rgba(255,255,255,0.7)")
    fig.update_yaxes(autorange="reversed", type="category", automargin=True,
                     title_text=_("token (text first, then patches row by row)"))
    fig.update_xaxes(title_text=_("rotary pair index k"), range=[-0.5, 63.5])
    count = (_("{text} text tokens + {rows}×{width} patches, first {rows} of {height} grid rows", text=n_text,
               rows=shown, width=width, height=height) if shown < height else
             _("{text} text tokens + {rows}×{width} patches", text=n_text, rows=shown, width=width))
    fig.update_layout(title=subtitled(_("FLUX.1 RoPE angles, axes (16, 56, 56)"), count),
                      height=int(np.clip(200 + 14 * len(ids), 420, 1100)), margin=dict(t=TWO_LINE_TOP))
    return fig


@figure("flux_scores")
def flux_scores(*, height: int = 6, width: int = 6, n_text: int = 8, query: str = "patch", row: int = 2,
                col: int = 3, text_index: int = 0, content: str = "ones") -> go.Figure:
    """FLUX.1 RoPE score of one query token against every text token and every image patch."""
    height = check_int("height", height, 1, 64)
    width = check_int("width", width, 1, 64)
    n_text = check_int("n_text", n_text, 0, 512)
    query = check_choice("query", query, ("patch", "text"))
    if query == "text" and n_text:
        ti = check_int("text_index", text_index, 0, n_text - 1)
        qi, qname = ti, _("text token {index}", index=ti)
    else:
        r, c = check_int("row", row, 0, height - 1), check_int("col", col, 0, width - 1)
        qi, qname = n_text + r * width + c, _("patch (row {row}, column {col})", row=r, col=c)
    s = rope2d.flux_rope_scores(height, width, n_text, qi, content)  # (N,)
    lim = float(max(np.abs(s).max(), 1e-9))
    img = s[n_text:].reshape(height, width)
    signed = img.min() < 0  # all-positive maps get a sequential scale for contrast
    grid = Panels.grid(1, 2, [_("against text tokens (ids 0,0,0)"), _("against image patches (0, row, col)")],
                       widths=(0.3, 0.7), hspace=0.12, title_size=16)
    grid.add(dict(type="bar", x=np.arange(n_text), y=f32(s[:n_text]), name=_("text keys"), marker_color=COLORS[3],
                  hovertemplate=_("text token %{x}<br>score %{y:.4f}<extra></extra>")), 1)
    grid.add(_image_heatmap(img, _("score"), diverging=signed, zmin=-lim if signed else float(img.min()),
                            zmax=lim if signed else float(max(img.max(), img.min() + 1e-9)),
                            hover=_("patch row %{y}, column %{x}<br>score %{z:.4f}<extra></extra>")), 2)
    grid.axis("x", 1, title=_("text token index"))
    grid.axis("y", 1, title=_("score"), range=[-lim * 1.05, lim * 1.05])
    grid.axis("y", 2, title=_("patch row"), autorange="reversed", scaleanchor="x2", scaleratio=1, constrain="domain")
    grid.axis("x", 2, title=_("patch column"), constrain="domain")
    return grid.figure(title=subtitled(_("FLUX.1 RoPE: query = {query}", query=qname),
                                       _("every text token scores the same")),
                       showlegend=False, margin=dict(t=TWO_LINE_TOP))
