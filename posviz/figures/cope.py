"""Figure builders for the CoPE lesson: tokens and gates, positions, interpolation, attention, pitfalls.

Every builder calls ``posviz.cope.cope_run`` (cached) and draws its arrays. Token labels come from user
text, so they are always passed through ``html.escape`` before they reach plotly (plotly renders a small
HTML subset in titles, tick labels, annotations and hover labels).
"""

from __future__ import annotations

import html
import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from posviz import cope
from posviz._validate import check_choice
from posviz.figures._common import f32, label_margin, subtitled
from posviz.figures._registry import figure
from posviz.i18n import _
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL

__all__ = ["cope_tokens", "cope_gates_positions", "cope_query_positions", "cope_interpolation",
           "cope_embedding_table", "cope_attention", "cope_positions_map", "cope_position_bounds",
           "cope_gqa_shapes"]

_CHIP_SCALE = [[0.0, "#f1f2f7"], [1.0, COLORS[0]]]
_MAX_TICKS = 32


def _esc(label: str) -> str:
    return html.escape(label, quote=False)


def _ticks(labels: tuple[str, ...], most: int = _MAX_TICKS) -> dict:
    """Axis settings that label index positions with escaped tokens (every k-th one past ``most``)."""
    T = len(labels)
    step = max(1, math.ceil(T / most))
    idx = list(range(0, T, step))
    return dict(tickmode="array", tickvals=idx, ticktext=[f"{_esc(labels[k])} ·{k}" for k in idx],
                tickfont=dict(size=11))


def _lesson(**kw: object) -> cope.CopeRun:
    return cope.cope_run(**kw)  # type: ignore[arg-type]


@figure("cope_tokens")
def cope_tokens(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                bias: float = 0.0, causal: bool = True, npos_max: int = 0, query: int = -1) -> go.Figure:
    """The tokens as chips, shaded by the gate g_ij of the chosen query, with each key's position p_ij.

    A dark chip counts (g ≈ 1), a pale one is skipped (g ≈ 0); the number under a chip is how many counted
    tokens lie between it and the query. Greyed chips are in the query's future (masked).
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max)
    i = cope.pick_index(query, L.T)
    labels = L.tokens.labels
    width, row, x0 = 64.0, 0, 0.0
    boxes = []  # (x0, x1, row)
    for lab in labels:
        w = 1.2 + 0.62 * min(len(lab), 24)
        if x0 + w > width and x0 > 0:
            row, x0 = row + 1, 0.0
        boxes.append((x0, x0 + w, row))
        x0 += w + 0.5
    g, p = L.gates[i], L.positions[i]
    future = np.arange(L.T) > i
    fills = sample_colorscale(_CHIP_SCALE, np.clip(g, 0, 1).tolist())
    xs = np.array([(a + b) / 2 for a, b, _ in boxes])
    ys = np.array([-r * 2 - 0.3 for _, _, r in boxes])
    masked = future & causal
    dark = (g > 0.55) & ~masked
    custom = np.stack([np.arange(L.T), g, p], axis=1).astype(np.float32)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=f32(xs), y=f32(ys), mode="text", text=[_esc(s) for s in labels], name="token",
        textfont=dict(color=["#ffffff" if d else "#1f2330" for d in dark], size=13), hoverinfo="skip"))
    shown = ~masked
    fig.add_trace(go.Scatter(
        x=f32(xs[shown]), y=f32(ys[shown] - 0.85), mode="text", name="p_ij",
        text=[f"{v:.1f}" for v in p[shown]], textfont=dict(size=10, color=COLORS[2]), hoverinfo="skip"))
    # the chips: one horizontal bar per token (a single trace draws much faster than one shape per chip)
    fig.add_trace(go.Bar(
        orientation="h", base=f32([a for a, _, _ in boxes]), x=f32([b - a for a, b, _ in boxes]),
        y=f32(ys), width=1.0, name="chip", customdata=custom,
        marker=dict(color=["#d9dbe3" if m else f for m, f in zip(masked, fills)],
                    opacity=f32(np.where(masked, 0.45, 1.0)),
                    line=dict(color=[COLORS[3] if j == i else "#9aa0b4" for j in range(L.T)],
                              width=f32(np.where(np.arange(L.T) == i, 3.0, 1.0)))),
        hovertemplate=_("key j = %{customdata[0]}<br>gate g_ij = %{customdata[1]:.3f}<br>"
                        "position p_ij = %{customdata[2]:.2f}<extra></extra>")))
    rows = boxes[-1][2] + 1
    fig.update_layout(
        title=_("Tokens (first {cap} tokens): shade = gate g_ij for query i = {i}, green number = position p_ij",
                cap=cope.MAX_TOKENS, i=i) if L.tokens.truncated else
        _("Tokens: shade = gate g_ij for query i = {i}, green number = position p_ij", i=i),
        showlegend=False, height=120 + 62 * rows, margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(visible=False, range=[-0.5, width + 0.5], constrain="domain"),
        # chips keep their shape at any export size
        yaxis=dict(visible=False, range=[-rows * 2 - 0.4, 0.6], scaleanchor="x", scaleratio=1.6,
                   constrain="domain"))
    return fig


def _gates_positions_panels(L: cope.CopeRun, causal: bool) -> list[dict]:
    """The three panels of ``cope_gates_positions``, left to right: gates, positions, distance. Each holds its
    values (masked cells NaN, drawn blank), its name, its x offset on the shared axes and its largest value."""
    T = L.T
    future = L.distance < 0
    hide = future if causal else np.zeros_like(future)  # masked gates left blank, so the causal mask is visible
    gap = max(2, -(-T // 6))
    top = max(float(L.positions.max()), 1.0)
    return [dict(z=np.where(hide, np.nan, L.gates), name="g_ij", off=0, top=1.0, title=_("gates g_ij: 0 → 1")),
            dict(z=np.where(hide, np.nan, L.positions), name="p_ij", off=T + gap, top=top,
                 title=_("positions p_ij: 0 → {top:.3g}", top=top)),
            dict(z=np.where(future, np.nan, L.distance), name="i − j", off=2 * (T + gap), top=max(T - 1.0, 1.0),
                 title=_("distance i − j: 0 → {last}", last=T - 1))]


def _gates_positions_traces(L: cope.CopeRun, panels: list[dict]) -> list:
    """One heatmap per panel, each with its own colour range and a horizontal colour bar under it, and the × marks
    of the positions clamped to npos_max − 1."""
    T = L.T
    idx = np.arange(T)
    keys = np.broadcast_to(idx.astype(np.int32), (T, T))  # hover shows the key j, not the shifted x
    hover = _("query i = %{y}<br>key j = %{customdata}<br>%{fullData.name} = %{z:.3f}<extra></extra>")
    span = panels[-1]["off"] + T  # x from -0.5 to span - 0.5 fills the plot's width
    traces = [go.Heatmap(z=f32(p["z"]), x=idx + p["off"], y=idx, customdata=keys, colorscale=SEQUENTIAL, zmin=0,
                         zmax=p["top"], name=p["name"], hovertemplate=hover,
                         # at the bottom of the figure (yref "container"), centred under its panel
                         colorbar=dict(orientation="h", x=(p["off"] + T / 2) / span, len=T / span, xanchor="center",
                                       yref="container", y=0.02, yanchor="bottom", thickness=10,
                                       tickvals=[0, p["top"]], ticktext=["0", f"{p['top']:.3g}"], outlinewidth=0))
              for p in panels]
    ci, cj = np.nonzero(L.clamped)
    traces.append(go.Scatter(x=(cj + panels[1]["off"]).astype(np.int32), y=ci.astype(np.int32), mode="markers",
                             name=_("clamped to npos_max − 1 = {top}", top=L.npos_max - 1),
                             customdata=cj.astype(np.int32),
                             marker=dict(symbol="x-thin", size=7, line=dict(width=2, color=COLORS[3])),
                             hovertemplate=_("clamped: query %{y}, key %{customdata}<extra></extra>")))
    return traces


def _gates_positions_xaxis(L: cope.CopeRun, panels: list[dict]) -> dict:
    """Token names label the keys under the positions panel; the side panels get a few plain indices. Fixed
    margins instead of automargin (its re-layout passes are slow)."""
    T = L.T
    labels = _ticks(L.tokens.labels, most=12)  # a panel is a third of the width: a dozen rotated labels fit
    side = list(range(0, T, max(1, -(-T // 4))))
    tickvals = [p["off"] + k for p in (panels[0], panels[2]) for k in side] + \
        [panels[1]["off"] + k for k in labels["tickvals"]]
    ticktext = [str(k) for _ in range(2) for k in side] + labels["ticktext"]
    return dict(range=[-0.5, panels[2]["off"] + T - 0.5], tickmode="array", tickvals=tickvals, ticktext=ticktext,
                tickangle=-90, tickfont=dict(size=10), showgrid=False, zeroline=False, automargin=False)


@figure("cope_gates_positions")
def cope_gates_positions(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                         bias: float = 0.0, causal: bool = True, npos_max: int = 0, seed: int = 0,
                         d_head: int = 16) -> go.Figure:
    """Gates g_ij, CoPE positions p_ij and the token distance i − j, query (rows) × key (columns).

    Blank cells are masked (future keys under the causal mask); cells changed by the clamp to
    npos_max − 1 carry an ×. With every gate at 1 the middle panel is the right one plus 1. Each panel
    runs from dark (0) to bright (its own largest value, given in its title).
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max, seed=seed,
                d_head=d_head)
    # The three panels are three heatmaps side by side on ONE pair of axes, a blank gutter between them:
    # separate subplots (6 axes, 3 colorbars, 3 sets of rotated token labels) made this the slowest chart
    # of the lesson to redraw. Each panel keeps its own colour range; its title says what bright means.
    panels = _gates_positions_panels(L, causal)
    layout: dict = dict(
        height=600, showlegend=bool(L.clamped.any()), legend=dict(orientation="h", y=1.08, x=0.3),
        margin=dict(t=110, b=150, l=label_margin(_ticks(L.tokens.labels)["ticktext"]), r=20),
        title=subtitled(_("Which tokens count (T = {T}, rule: {rule}, npos_max = {P})", T=L.T, rule=rule,
                          P=L.npos_max),
                        _("rows: query i · columns: key j · dark 0 → bright: each panel's largest value")),
        annotations=[dict(text=p["title"], x=p["off"] + (L.T - 1) / 2, y=1.0, xref="x", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=14))
                     for p in panels],
        xaxis=_gates_positions_xaxis(L, panels),
        yaxis=dict(title=dict(text=_("query i (token)"), standoff=4), autorange="reversed", showgrid=False,
                   zeroline=False, automargin=False, **_ticks(L.tokens.labels, most=16)))
    return go.Figure(data=_gates_positions_traces(L, panels), layout=layout)


@figure("cope_query_positions")
def cope_query_positions(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                         bias: float = 0.0, causal: bool = True, npos_max: int = 0, seed: int = 0,
                         d_head: int = 16, query: int = -1) -> go.Figure:
    """For one query i: the CoPE position p_ij of every key, beside i − j + 1 (what counting all gives).

    Bars are coloured by the key's gate; the dashed line is the relative position of plain counting; the
    dotted line is the largest position the table holds, npos_max − 1.
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max, seed=seed,
                d_head=d_head)
    i = cope.pick_index(query, L.T)
    keys = np.arange(L.T)
    fig = go.Figure()
    # the legend names the colour scale instead of a colorbar (a colorbar is a whole extra axis to redraw)
    fig.add_trace(go.Bar(x=keys, y=f32(L.positions[i]),
                         name=_("CoPE position p_ij, coloured by the gate g_ij (dark 0 → bright 1)"),
                         marker=dict(color=f32(L.gates[i]), colorscale=SEQUENTIAL, cmin=0, cmax=1),
                         customdata=f32(L.gates[i]),
                         hovertemplate=_("key j = %{x}<br>p_ij = %{y:.3f}<br>g_ij = %{customdata:.3f}"
                                         "<extra></extra>")))
    rel = np.where(keys <= i, i - keys + 1, np.nan)
    fig.add_trace(go.Scatter(x=keys, y=f32(rel), mode="lines+markers", name=_("i − j + 1 (count everything)"),
                             line=dict(dash="dash", color=COLORS[1]), marker=dict(size=5)))
    # labelled on the right, where i − j + 1 is lowest: on the left it starts at i + 1, often this very line
    fig.add_hline(y=L.npos_max - 1, line=dict(dash="dot", color=COLORS[3]),
                  annotation_text=f"npos_max − 1 = {L.npos_max - 1}", annotation_position="bottom right")
    ticks = _ticks(L.tokens.labels)
    fig.update_layout(title=_("Positions seen from query i = {i} ({token})", i=i, token=_esc(L.tokens.labels[i])),
                      xaxis=dict(title=_("key j (token)"), tickangle=-90, **ticks),
                      yaxis=dict(title=_("position (counted tokens)"), rangemode="tozero"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0), height=480,
                      margin=dict(t=110, b=label_margin(ticks["ticktext"])))
    return fig


@figure("cope_interpolation")
def cope_interpolation(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 2.0,
                       bias: float = 0.0, causal: bool = True, npos_max: int = 0, seed: int = 0,
                       d_head: int = 16, emb: str = "random", target: int = 2, strength: float = 6.0,
                       query: int = -1, key: int = 0) -> go.Figure:
    """The integer logits z_i[p] = q_i·e[p] of one query, and the interpolated logit at a fractional p_ij.

    The star sits on the straight line between z_i[⌊p⌋] and z_i[⌈p⌉], a fraction w = p − ⌊p⌋ of the way.
    The default gate scale is 2 (soft gates): at the lesson's scale 10 the gates are nearly 0 or 1 and
    p_ij lands on integers (p = 4.001, w = 0.001), so there is nothing between two embeddings to see.
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max, seed=seed,
                d_head=d_head, emb=emb, target=target, strength=strength)
    i = cope.pick_index(query, L.T)
    j = cope.pick_index(key, L.T)
    d = cope.interpolation_detail(L, i, j)
    ps = np.arange(L.npos_max)
    fig = go.Figure()
    fig.add_vrect(x0=d["floor"], x1=max(d["ceil"], d["floor"] + 1e-3), fillcolor=COLORS[4], opacity=0.18,
                  line_width=0)
    fig.add_trace(go.Scatter(x=ps, y=f32(L.z_int[i]), mode="lines+markers", name="z_i[p] = q_i·e[p]",
                             line=dict(color=COLORS[0]),
                             hovertemplate="p = %{x}<br>z_i[p] = %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[d["floor"], d["ceil"]], y=[d["z_floor"], d["z_ceil"]], mode="markers",
                             name=_("⌊p⌋ and ⌈p⌉"), marker=dict(size=12, color=COLORS[1], symbol="circle-open",
                                                             line=dict(width=3))))
    fig.add_trace(go.Scatter(x=[d["p"]], y=[d["logit"]], mode="markers", name=_("interpolated pos_ij"),
                             marker=dict(size=16, color=COLORS[3], symbol="star"),
                             hovertemplate="p_ij = %{x:.3f}<br>pos_ij = %{y:.3f}<extra></extra>"))
    fig.update_layout(
        title=(_("Query i = {i}, key j = {j}: p = {p:.3f}, w = {w:.3f}<br>", i=i, j=j, p=d["p"], w=d["w"])
               + f"pos_ij = {d['w']:.3f}×({d['z_ceil']:.2f}) + {1 - d['w']:.3f}×({d['z_floor']:.2f}) "
               f"= {d['logit']:.3f}"),
        xaxis=dict(title=_("integer position p (embedding e[p])"), dtick=1 if L.npos_max <= 24 else None),
        yaxis=dict(title=_("position logit")), legend=dict(orientation="h", y=-0.2), height=430)
    return fig


@figure("cope_embedding_table")
def cope_embedding_table(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                         bias: float = 0.0, causal: bool = True, npos_max: int = 0, seed: int = 0,
                         d_head: int = 16, emb: str = "random", query: int = -1, key: int = 0) -> go.Figure:
    """The position embedding table e (d_h × npos_max): one column per integer position.

    The outlined columns are e[⌊p_ij⌋] and e[⌈p_ij⌉], the two embeddings the chosen (i, j) mixes.
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max, seed=seed,
                d_head=d_head, emb=emb)
    i, j = cope.pick_index(query, L.T), cope.pick_index(key, L.T)
    d = cope.interpolation_detail(L, i, j)
    e = L.pos_emb
    lim = float(np.abs(e).max()) or 1.0
    fig = go.Figure(go.Heatmap(z=f32(e), x=np.arange(e.shape[1]), y=np.arange(e.shape[0]),
                               colorscale=DIVERGING, zmid=0, zmin=-lim, zmax=lim, meta="diverging",
                               colorbar=dict(title="e[p]_c"),
                               hovertemplate=_("position p = %{x}<br>channel c = %{y}<br>value = %{z:.3f}"
                                               "<extra></extra>")))
    for col in sorted({d["floor"], d["ceil"]}):
        fig.add_shape(type="rect", x0=col - 0.5, x1=col + 0.5, y0=-0.5, y1=e.shape[0] - 0.5,
                      line=dict(color=COLORS[1], width=3))
    title = _("Embedding table e, seeded random N(0, 1)<br><sup>upstream: learned, starts at 0</sup>") \
        if emb == "random" else _("Embedding table e, sinusoidal<br><sup>upstream: learned, starts at 0</sup>")
    fig.update_layout(title=title, xaxis=dict(title=_("integer position p")),
                      yaxis=dict(title=_("channel c"), autorange="reversed"),
                      height=380)
    return fig


@figure("cope_attention")
def cope_attention(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                   bias: float = 0.0, causal: bool = True, npos_max: int = 0, seed: int = 0, d_head: int = 16,
                   emb: str = "random", target: int = 2, strength: float = 6.0, nodiv: bool = False,
                   query: int = -1) -> go.Figure:
    """Attention of one query over the keys, without and with the CoPE term.

    Without it the toy head sees no position at all; with it, keys whose CoPE position is near p* gain
    weight, wherever they are in tokens.
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max, seed=seed,
                d_head=d_head, emb=emb, target=target, strength=strength, nodiv=nodiv)
    i = cope.pick_index(query, L.T)
    keys = np.arange(i + 1)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=keys, y=f32(L.attn_plain[i, : i + 1]), name=_("softmax(q·k/√d) (no position)"),
                         marker_color=COLORS[7],
                         hovertemplate=_("key j = %{x}<br>weight = %{y:.3f}<extra></extra>")))
    ticks = _ticks(L.tokens.labels[: i + 1])
    label = "softmax(q·k/√d + pos) (nodiv)" if nodiv else "softmax((q·k + pos)/√d) (CoPE)"
    fig.add_trace(go.Bar(x=keys, y=f32(L.attn_cope[i, : i + 1]), name=label, marker_color=COLORS[1],
                         customdata=f32(L.positions[i, : i + 1]),
                         hovertemplate=_("key j = %{x}<br>weight = %{y:.3f}<br>p_ij = %{customdata:.2f}"
                                         "<extra></extra>")))
    fig.update_layout(barmode="group", height=430,
                      title=_("Attention of query i = {i}<br><sup>the query looks for CoPE position "
                              "p* = {target}</sup>", i=i, target=L.target),
                      xaxis=dict(title=_("key j (token)"), tickangle=-90, **ticks),
                      yaxis=dict(title=_("attention weight"), range=[0, 1.02]),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                      margin=dict(t=110, b=label_margin(ticks["ticktext"])))
    return fig


@figure("cope_positions_map")
def cope_positions_map(*, text: str = cope.DEFAULT_TEXT, rule: str = "sentences", scale: float = 10.0,
                       bias: float = 0.0, causal: bool = True, npos_max: int = 0) -> go.Figure:
    """One positions heatmap p_ij, with the future (j > i) outlined and clamped cells marked.

    Without the causal mask on the gates the upper triangle fills in: positions count future tokens.
    """
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=causal, npos_max=npos_max)
    T = L.T
    idx = np.arange(T)
    fig = go.Figure(go.Heatmap(z=f32(L.positions), x=idx, y=idx, colorscale=SEQUENTIAL, zmin=0,
                               colorbar=dict(title="p_ij"), name="p_ij",
                               hovertemplate=_("query i = %{y}<br>key j = %{x}<br>p_ij = %{z:.3f}<extra></extra>")))
    fig.add_trace(go.Scatter(x=[-0.5, T - 0.5, T - 0.5, -0.5], y=[-0.5, -0.5, T - 0.5, -0.5], mode="lines",
                             fill="toself", fillcolor="rgba(0,0,0,0)", line=dict(color=COLORS[3], dash="dot"),
                             name=_("future keys (j > i)"), hoverinfo="skip"))
    ci, cj = np.nonzero(L.clamped)
    fig.add_trace(go.Scatter(x=cj.astype(np.int32), y=ci.astype(np.int32), mode="markers",
                             name=_("clamped to npos_max − 1 = {top}", top=L.npos_max - 1),
                             marker=dict(symbol="x-thin", size=9, line=dict(width=2, color=COLORS[3]))))
    leak = float(np.triu(L.positions, 1).max()) if T > 1 else 0.0
    ticks = _ticks(L.tokens.labels, most=16)  # one label per 2+ rows past 16 tokens: they fit in presenter mode
    fig.update_layout(
        title=(_("p_ij with causal gates on, npos_max = {P}<br>", P=L.npos_max) if causal else
               _("p_ij with causal gates off, npos_max = {P}<br>", P=L.npos_max))
        + _("<sup>largest future position {leak:.2f} · {clamped} clamped cell(s)</sup>", leak=leak, clamped=len(ci)),
        xaxis=dict(constrain="domain", tickangle=-90, **ticks),
        yaxis=dict(title=_("query i (token)"), autorange="reversed", **ticks),
        legend=dict(orientation="h", yref="container", y=0.01, yanchor="bottom"), height=540,
        margin=dict(t=80, l=label_margin(ticks["ticktext"]), b=label_margin(ticks["ticktext"], title=False) + 40))
    return fig


@figure("cope_position_bounds")
def cope_position_bounds(*, text: str = cope.DEFAULT_TEXT, rule: str = "all", scale: float = 40.0,
                         bias: float = 0.0, claim: str = "true") -> go.Figure:
    """The largest position of each query (key j = 0) against a bound: the off-by-one i, or the true i + 1.

    The query's own gate counts, so p_ij can reach i − j + 1; with every gate at 1, p_i0 = i + 1 and the
    claimed bound i is broken on every row.
    """
    claim = check_choice("claim", claim, ("true", "off_by_one"))
    L = _lesson(text=text, rule=rule, scale=scale, bias=bias, causal=True, npos_max=cope.MAX_TOKENS + 1)
    T = L.T
    qi = np.arange(T)
    top = L.positions[:, 0]  # (T,) p_i0 = max_j p_ij under the causal mask
    bound = qi.astype(float) if claim == "off_by_one" else qi + 1.0
    ticks = _ticks(L.tokens.labels)
    over = top > bound + 1e-9
    fig = go.Figure()
    fig.add_trace(go.Bar(x=qi, y=f32(top), name=_("p_i0 = largest position of query i"),
                         marker_color=[COLORS[3] if o else COLORS[2] for o in over],
                         hovertemplate=_("query i = %{x}<br>p_i0 = %{y:.3f}<extra></extra>")))
    name = _("claimed bound: p ≤ i") if claim == "off_by_one" else \
        _("true bound: p_ij ≤ i − j + 1 (= i + 1 at j = 0)")
    fig.add_trace(go.Scatter(x=qi, y=f32(bound), mode="lines+markers", name=name,
                             line=dict(color=COLORS[1], dash="dash")))
    fig.update_layout(title=_("{over} of {T} queries i exceed the bound", over=int(over.sum()), T=T),
                      xaxis=dict(tickangle=-90, **ticks),
                      yaxis=dict(title=_("position"), rangemode="tozero"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                      margin=dict(t=110, b=label_margin(ticks["ticktext"], title=False)), height=440)
    return fig


@figure("cope_gqa_shapes")
def cope_gqa_shapes(*, layout: str = "fixed", num_heads: int = 8, num_kv_heads: int = 2) -> go.Figure:
    """Shapes through grouped-query attention's projections: the fixed layout, or query and key head counts swapped.

    d_model = 64, d_h = 64/num_heads, T = 4; the red row is the error torch raises.
    """
    rows = cope.gqa_shapes(64, num_heads, num_kv_heads, layout)
    failed = ["RuntimeError" in shape for _, shape in rows]
    fill = ["#fde2dd" if f else "rgba(0,0,0,0)" for f in failed]
    fig = go.Figure(go.Table(
        columnwidth=[1.1, 1.9],
        header=dict(values=[_("step"), _("result")], align="left", font=dict(size=13)),
        cells=dict(values=[[_esc(s) for s, _ in rows], [_esc(r) for _, r in rows]], align="left",
                   fill_color=[fill, fill], height=26, font=dict(size=12))))
    who = _("fixed: q → num_heads·d_h, k/v → num_kv_heads·d_h") if layout == "fixed" else \
        _("swapped: q → num_kv_heads·d_h, k → num_heads·d_h")
    fig.update_layout(title=f"{who}<br><sup>num_heads = {num_heads}, num_kv_heads = {num_kv_heads}, d_model = 64"
                            "</sup>",
                      height=90 + 30 * len(rows), margin=dict(l=10, r=10, t=50, b=10))
    return fig
