"""Figures of the long-context methods lesson: the base bound for every preset and B_m, xPos's decay, ReRoPE's and
Self-Extend's relative positions, the attention-sink cache over a stream, and PoSE's position ids and coverage.
All numbers come from ``posviz.longctx`` and ``posviz.streams``; the formulas and their sources are
docs/FORMULAS.md §9.1–§9.6, the pitfalls §9.7."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import longctx as lc
from posviz import presets, scaling
from posviz import streams as sm
from posviz._validate import check_bool, check_choice, check_int
from posviz.figures._common import MAX_CELLS, TWO_LINE_TOP, Panels, downsample, f32, log_ticks, subtitled
from posviz.figures._registry import figure
from posviz.i18n import _, ngettext
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL, compact_number

__all__ = ["base_bound_presets", "base_cosine_sum", "xpos_decay_profile", "rerope_matrix", "rerope_score_matrix",
           "self_extend_matrix", "self_extend_angle_plot", "sink_stream_positions", "sink_cache_map",
           "pose_coverage"]

RELATIVE_COLORS = SEQUENTIAL
SINK_LABEL_GAP = 0.12  # sink_cache_map: room between the plot and its colour bar, a share of the plot's width


def base_text(base: float) -> str:
    """A base or a bound to 3 significant digits in the sliders' short form: 10k, 500k, 1M (never 1e+04)."""
    return compact_number(float(f"{base:.3g}"))


def served_length(name: str) -> tuple[int, int, float, str]:
    """(rotary dim, the context the base serves, shipped base, how that length was read) for a preset: the
    pre-scaling length when a scaling block names one, max_position_embeddings / factor for linear scaling
    (positions are divided by the factor), else max_position_embeddings."""
    rc = scaling.read_rope_config(presets.get_preset(name).config)
    original = rc.params.get("original_max_position_embeddings")
    mpe = int(rc.max_position_embeddings or 0)
    if original:
        return rc.dim, int(original), rc.base, "original_max_position_embeddings"
    if rc.rope_type == "linear":
        return rc.dim, int(mpe / float(rc.params["factor"])), rc.base, "max_position_embeddings / factor"
    return rc.dim, mpe, rc.base, "max_position_embeddings"


def preset_bounds() -> list[dict]:
    """For every preset: name, dim, length, shipped base, the bound at that length, the first m with B_m < 0 at
    the shipped base (-1: none up to length) and whether the base meets the condition ("holds"). A base above
    the bound can still fail: the passing bases do not form one interval."""
    rows = []
    for name in presets.preset_names():
        dim, length, base, source = served_length(name)
        bound = lc.base_lower_bound(dim, length)
        first = lc.first_negative_position(dim, base, length)
        rows.append(dict(name=name, dim=dim, length=length, base=base, bound=bound, source=source, first=first,
                         holds=first < 0))
    return rows


@figure("base_bound_presets")
def base_bound_presets() -> go.Figure:
    """Every preset's shipped RoPE base beside Men et al. 2024's lower bound for the context it serves."""
    rows = preset_bounds()
    names = [r["name"] for r in rows]
    y = list(range(len(rows)))
    bases = np.array([r["base"] for r in rows])
    bounds = np.array([r["bound"] for r in rows])
    data = [dict(type="scatter", x=f32([v for r in rows for v in (r["bound"], r["base"], np.nan)]),
                 y=[v for i in y for v in (i, i, None)], mode="lines", line=dict(color="#aaa", width=2),
                 hoverinfo="skip", showlegend=False),
            dict(type="scatter", x=f32(bounds), y=y, mode="markers", name=_("lower bound for the served length"),
                 marker=dict(symbol="line-ns-open", size=18, line=dict(width=3), color=COLORS[3]),
                 customdata=[[r["length"], r["dim"]] for r in rows],
                 hovertemplate=_("bound %{x:.3g}<br>L = %{customdata[0]:,}, d = %{customdata[1]}<extra></extra>"))]
    for holds, name, color, symbol in ((True, _("shipped base: B<sub>m</sub> ≥ 0 up to L"), COLORS[2], "circle"),
                                       (False, _("shipped base: B<sub>m</sub> < 0 somewhere ≤ L"), COLORS[3], "x")):
        pick = [i for i, r in enumerate(rows) if r["holds"] == holds]
        data.append(dict(type="scatter", x=f32(bases[pick]), y=pick, mode="markers", name=name,
                         marker=dict(size=11, color=color, symbol=symbol),
                         customdata=[[rows[i]["first"]] for i in pick],
                         hovertemplate=_("base %{x:.3g}") + ("" if holds else _("<br>first B < 0 at m = "
                                                                               "%{customdata[0]:,}"))
                         + "<extra></extra>"))
    lo, hi = float(min(bases.min(), bounds.min())) / 2, float(max(bases.max(), bounds.max())) * 2
    met = sum(r["holds"] for r in rows)
    labels = [f"{r['name']} · {r['length'] // 1024}k" if r["length"] >= 1024 else r["name"] for r in rows]
    layout = dict(
        title=dict(text=subtitled(_("Shipped base against the lower bound for its context"),
                                  _("{met} of {total} presets keep B<sub>m</sub> ≥ 0 over the context their "
                                    "base serves", met=met, total=len(rows)))),
        margin=dict(t=TWO_LINE_TOP, l=10), height=560,
        xaxis=dict(type="log", title=dict(text=_("RoPE base b (log)")), range=[np.log10(lo), np.log10(hi)],
                   **log_ticks(lo, hi)),
        yaxis=dict(tickmode="array", tickvals=y, ticktext=labels, autorange="reversed", automargin=True,
                   zeroline=False, showgrid=True),
        legend=dict(orientation="h", y=-0.12, x=0), meta=dict(names=names))
    return go.Figure(data, layout=layout)


@figure("base_cosine_sum")
def base_cosine_sum(*, dim: int = 128, base: float = 10000.0, length: int = 8192) -> go.Figure:
    """B_m = Σ_i cos(m θ_i) over m up to twice the context length, its first negative m marked (Men et al. 2024)."""
    first = lc.first_negative_position(dim, base, length)
    m_max = min(2 * length, lc.MAX_BOUND_LENGTH)
    m = np.unique(np.linspace(0, m_max, 2001).round())
    b = lc.cosine_sum(m, dim, base)
    p = Panels()
    p.scatter(x=f32(m), y=f32(b), mode="lines", name="B<sub>m</sub>", line=dict(color=COLORS[0], width=2),
              hovertemplate="m=%{x:,}<br>B=%{y:.3g}<extra></extra>")
    p.marks.hline(0.0, "0", color="#888")
    p.marks.vline(float(length), f"L = {length:,}", color=COLORS[2])
    if first >= 0:
        p.scatter(x=f32([first]), y=f32([lc.cosine_sum([first], dim, base)[0]]), mode="markers",
                  name=_("first B < 0 at m = {first:,}", first=first),
                  marker=dict(color=COLORS[3], size=11, symbol="x"))
        note = _("first negative at m = {first:,}: the bound fails for L = {length:,}", first=first, length=length)
    else:
        note = _("B<sub>m</sub> ≥ 0 for every m ≤ L = {length:,}: the bound holds", length=length)
    p.axis("x", title=_("relative position m (tokens)"), tickformat="~s")
    p.axis("y", title="B<sub>m</sub> = Σ cos(m θ<sub>i</sub>)")
    return p.figure(title=dict(text=subtitled(f"B<sub>m</sub> at d = {dim}, b = {base_text(base)}", note)),
                    margin=dict(t=TWO_LINE_TOP), legend=dict(orientation="h", y=-0.2, x=0))


@figure("xpos_decay_profile")
def xpos_decay_profile(*, dim: int = 128, base: float = 10000.0, gamma: float = 0.4, scale_base: float = 512.0,
                       max_distance: int = 4096) -> go.Figure:
    """RoPE's Σ cos(Δθ_i) beside xPos's Σ ζ_i^(Δ/B) cos(Δθ_i), both over d/2 (Sun et al. 2022), and ζ_i^(Δ/B)
    for the fastest and slowest pairs."""
    prof = lc.xpos_score_profile(max_distance, dim, base, gamma, scale_base)
    step = max(1, (max_distance + 1) // 2000)
    x = prof["distance"][::step]
    decay = lc.xpos_decay(x, dim, gamma, scale_base)
    p = Panels()
    p.scatter(x=f32(x), y=f32(prof["rope"][::step]), mode="lines", name="RoPE: Σ cos(Δθ<sub>i</sub>) / (d/2)",
              line=dict(color="#8a8f9c", width=1.5))
    p.scatter(x=f32(x), y=f32(prof["xpos"][::step]), mode="lines",
              name="xPos: Σ ζ<sub>i</sub><sup>Δ/B</sup> cos(Δθ<sub>i</sub>) / (d/2)",
              line=dict(color=COLORS[0], width=2.5))
    for i, dash in ((0, "dash"), (dim // 2 - 1, "dot")):
        p.scatter(x=f32(x), y=f32(decay[:, i]), mode="lines",
                  name=_("factor of pair {i}: ζ<sup>Δ/B</sup>, ζ = {zeta:.3f}", i=i, zeta=lc.xpos_zeta(dim, gamma)[i]),
                  line=dict(color=COLORS[3] if i == 0 else COLORS[2], dash=dash, width=1.5))
    p.marks.vline(scale_base, f"B = {scale_base:g}", color="#888", top=False)
    p.axis("x", title=_("distance Δ = m − n (tokens)"), tickformat="~s")
    p.axis("y", title=_("score / (d/2), or factor"))
    return p.figure(title=dict(text=subtitled(_("xPos multiplies each pair by ζ<sup>Δ/B</sup>"),
                                              _("at Δ = {distance:,}: RoPE {rope:.3f}, xPos {xpos:.3g}",
                                                distance=max_distance, rope=prof["rope"][-1],
                                                xpos=prof["xpos"][-1]))),
                    margin=dict(t=TWO_LINE_TOP), legend=dict(orientation="h", y=-0.2, x=0))


def _relative_heatmap(p: Panels, rel: np.ndarray, panel: int, zmax: float, name: str) -> None:
    """A relative-position matrix with the causally masked keys (n > m) left blank."""
    T = rel.shape[0]
    shown = rel.astype(np.float64)
    shown[np.triu_indices(T, 1)] = np.nan
    z, rows, cols, _stride = downsample(shown, MAX_CELLS // 2)  # two heatmaps a figure: half the cell cap each
    p.add(dict(type="heatmap", z=z, x=f32(cols), y=f32(rows), zmin=0, zmax=zmax,
               colorscale=RELATIVE_COLORS, name=name, showscale=panel == 1,
               colorbar=dict(title=dict(text=_("relative position")), len=0.9),
               hovertemplate=_("query m=%{y}<br>key n=%{x}<br>r=%{z:.4g}<extra></extra>")), panel)
    p.axis("x", panel, title=_("key n"))
    p.axis("y", panel, title=_("query m") if panel == 1 else None, autorange="reversed")


@figure("rerope_matrix")
def rerope_matrix(*, T: int = 64, window: int = 16, leaky_k: float = 0.0) -> go.Figure:
    """ReRoPE's relative positions (capped at w, or compressed by 1/k past it when leaky) beside plain RoPE's m − n
    (Su 2023), with the last query's row drawn below."""
    T = check_int("T", T, 2, 512)
    rel = lc.rerope_relative(T, window, leaky_k)
    plain = lc.rerope_relative(T, T + 1)
    label = f"leaky ReRoPE (w = {window}, k = {leaky_k:g})" if leaky_k else f"ReRoPE (w = {window})"
    p = Panels.grid(1, 2, titles=(_("plain RoPE: m − n"), label), hspace=0.12)
    _relative_heatmap(p, plain, 1, T - 1, "RoPE")
    _relative_heatmap(p, rel, 2, T - 1, label)
    largest = lc.causal_part(rel).max()
    note = _("largest relative position: {plain} plain, {largest:.4g} with leaky ReRoPE", plain=T - 1,
             largest=largest) if leaky_k else \
        _("largest relative position: {plain} plain, {largest:.4g} with ReRoPE", plain=T - 1, largest=largest)
    return p.figure(title=dict(text=subtitled(_("Relative position each query–key pair is rotated by"), note)),
                    margin=dict(t=TWO_LINE_TOP), height=480)


@figure("rerope_score_matrix")
def rerope_score_matrix(*, T: int = 64, window: int = 16, leaky_k: float = 0.0, dim: int = 64,
                        seed: int = 0) -> go.Figure:
    """Causal logits q·k/√d of one seeded Gaussian q and one k placed at every position (so only the positions
    change the logit) under plain RoPE and under (leaky) ReRoPE, computed with ReRoPE's two passes (Su 2023):
    identical inside the window, different beyond it."""
    T = check_int("T", T, 2, 512)
    dim = check_int("dim", dim, 2, 256, even=True)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    q, k = np.tile(rng.standard_normal(dim), (T, 1)), np.tile(rng.standard_normal(dim), (T, 1))  # (T, d) each
    plain = lc.relative_scores(q, k, lc.rerope_relative(T, T + 1)) / np.sqrt(dim)
    re = lc.rerope_two_pass_scores(q, k, window, leaky_k) / np.sqrt(dim)
    lim = float(np.abs(lc.causal_part(plain)).max())
    label = f"leaky ReRoPE (w = {window}, k = {leaky_k:g})" if leaky_k else f"ReRoPE (w = {window})"
    p = Panels.grid(1, 2, titles=(_("plain RoPE"), label), hspace=0.12)
    for panel, z in ((1, plain), (2, re)):
        shown = z.copy()
        shown[np.triu_indices(T, 1)] = np.nan
        zs, rows, cols, _stride = downsample(shown, MAX_CELLS // 2)
        p.add(dict(type="heatmap", z=zs, x=f32(cols), y=f32(rows), zmin=-lim, zmax=lim, colorscale=DIVERGING,
                   showscale=panel == 1, colorbar=dict(title=dict(text=_("logit"))),
                   hovertemplate="m=%{y}<br>n=%{x}<br>%{z:.3f}<extra></extra>"), panel)
        p.axis("x", panel, title=_("key n"))
        p.axis("y", panel, title=_("query m") if panel == 1 else None, autorange="reversed")
    i, j = np.tril_indices(T)
    near = (i - j) < window
    same = float(np.abs(plain[i[near], j[near]] - re[i[near], j[near]]).max())
    return p.figure(title=dict(text=subtitled(_("Logits q·k/√d: the same q and k at every position"),
                                              _("inside the window the two agree to {same:.1e}; beyond it ReRoPE's "
                                                "logits no longer change with distance", same=same) if not leaky_k else
                                              _("inside the window the two agree to {same:.1e}; beyond it the "
                                                "relative position grows {k:g}× more slowly", same=same, k=leaky_k))),
                    margin=dict(t=TWO_LINE_TOP), height=480)


@figure("self_extend_matrix")
def self_extend_matrix(*, T: int = 64, group: int = 4, window: int = 16, shift: bool = True) -> go.Figure:
    """Self-Extend's relative positions as datamllab/LongLM computes them (Jin et al. 2024), and the last query's
    row against plain RoPE and against the grouped part without its shift."""
    T = check_int("T", T, 2, 512)
    shift = check_bool("shift", shift)
    rel = sm.self_extend_relative(T, group, window, shift)
    last = rel[T - 1]
    keys = np.arange(T)
    distance = T - 1 - keys
    left = _("relative position, G = {group}, W = {window}", group=group, window=window) if shift else \
        _("relative position, G = {group}, W = {window}, no shift", group=group, window=window)
    p = Panels.grid(1, 2, titles=(left, _("last query (m = {last}) against each key", last=T - 1)), hspace=0.14)
    _relative_heatmap(p, rel, 1, T - 1, "Self-Extend")
    order = np.argsort(distance)
    p.scatter(2, x=f32(distance[order]), y=f32(distance[order]), mode="lines", name=_("plain RoPE: m − n"),
              line=dict(color="#8a8f9c", dash="dash"))
    other = sm.self_extend_relative(T, group, window, not shift)[T - 1]
    p.scatter(2, x=f32(distance[order]), y=f32(other[order]), mode="lines",
              name=_("without the shift") if shift else _("with the shift W − W/G"),
              line=dict(color=COLORS[3], width=1.5, dash="dot"))
    p.scatter(2, x=f32(distance[order]), y=f32(last[order]), mode="lines+markers", marker=dict(size=4),
              name=_("as drawn (left)"), line=dict(color=COLORS[0], width=2.5))
    p.marks.vline(float(window), f"W = {window}", panel=2, color=COLORS[2])
    p.axis("x", 2, title=_("distance m − n (tokens)"))
    p.axis("y", 2, title=_("relative position"))
    return p.figure(title=dict(text=subtitled(_("Self-Extend: neighbours exact, the rest grouped"),
                                              _("largest relative position {largest:.4g} for T = {T} "
                                                "(plain RoPE: {plain})", largest=lc.causal_part(rel).max(), T=T,
                                                plain=T - 1))),
                    margin=dict(t=TWO_LINE_TOP), height=480, legend=dict(orientation="h", y=-0.2, x=0.5))


@figure("self_extend_angle_plot")
def self_extend_angle_plot(*, T: int = 64, group: int = 4, window: int = 16, dim: int = 128, base: float = 10000.0,
                              pair: int = 8) -> go.Figure:
    """The angle pair i turns through between the last query and each key, r·θ_i, under plain RoPE and under
    Self-Extend (Jin et al. 2024), the neighbour window marked."""
    T = check_int("T", T, 2, 2048)
    ang = sm.self_extend_angles(T, group, window, dim, base, pair)
    distance = T - 1 - ang["key"]
    order = np.argsort(distance)
    p = Panels()
    p.scatter(x=f32(distance[order]), y=f32(ang["rope"][order]), mode="lines",
              name=_("plain RoPE: (m − n)·θ<sub>i</sub>"),
              line=dict(color="#8a8f9c", dash="dash"))
    p.scatter(x=f32(distance[order]), y=f32(ang["self_extend"][order]), mode="lines",
              name="Self-Extend: r·θ<sub>i</sub>",
              line=dict(color=COLORS[0], width=2.5))
    p.marks.vline(float(window), f"W = {window}", color=COLORS[2])
    p.axis("x", title=_("distance m − n (tokens)"))
    p.axis("y", title=_("angle of pair {pair} (rad)", pair=pair))
    theta = float(ang["rope"][-2])  # the key one token back: θ_i itself
    return p.figure(title=dict(text=subtitled(_("What pair {pair} turns through (θ = {theta:.3g} rad a token)",
                                                pair=pair, theta=theta),
                                              _("to the farthest key: {plain:.3g} rad plain, {grouped:.3g} rad with "
                                                "Self-Extend", plain=ang["rope"][0], grouped=ang["self_extend"][0]))),
                    margin=dict(t=TWO_LINE_TOP), legend=dict(orientation="h", y=-0.2, x=0))


@figure("sink_stream_positions")
def sink_stream_positions(*, steps: int = 400, n_sink: int = 4, window: int = 60, train_length: int = 256) -> go.Figure:
    """The largest RoPE position attention sees at each step of a stream: StreamingLLM's cache positions
    (Xiao et al. 2023) against the tokens' positions in the text, with the training length marked."""
    train_length = check_int("train_length", train_length, 1, 1 << 20)
    cache = sm.sink_positions_over_stream(steps, n_sink, window, True)
    text = sm.sink_positions_over_stream(steps, n_sink, window, False)
    p = Panels()
    p.scatter(x=f32(text["step"]), y=f32(text["max_position"]), mode="lines", name=_("text positions (no shift)"),
              line=dict(color=COLORS[3], width=2, dash="dash"))
    p.scatter(x=f32(cache["step"]), y=f32(cache["max_position"]), mode="lines",
              name=_("cache positions (sinks + window = {cap})", cap=n_sink + window),
              line=dict(color=COLORS[0], width=3))
    p.marks.hline(float(train_length), _("training length {length:,}", length=train_length), color=COLORS[2])
    p.axis("x", title=_("stream step t (tokens generated)"))
    p.axis("y", title=_("largest position / distance RoPE sees"))
    over = int(np.argmax(text["max_position"] >= train_length)) if text["max_position"][-1] >= train_length else -1
    note = _("text positions pass the training length at t = {over:,}; cache positions stop at {top:,}", over=over,
             top=int(cache["max_position"][-1])) if over >= 0 else \
        _("cache positions stop at {top:,}", top=int(cache["max_position"][-1]))
    return p.figure(title=dict(text=subtitled(_("Which positions RoPE sees as the stream grows"), note)),
                    margin=dict(t=TWO_LINE_TOP), legend=dict(orientation="h", y=-0.2, x=0))


@figure("sink_cache_map")
def sink_cache_map(*, steps: int = 120, n_sink: int = 4, window: int = 24) -> go.Figure:
    """What StreamingLLM's cache holds at every step (Xiao et al. 2023): the text index of the token in each cache
    slot, the slot being the RoPE position the token is rotated by."""
    steps = check_int("steps", steps, 2, 1024)
    cap = n_sink + window + 1
    z = np.full((min(cap, steps), steps), np.nan)  # (slot, step): at step t the cache holds at most t + 1 tokens
    for t in range(steps):
        tokens = sm.sink_cache(t, n_sink, window)["token"]
        z[: tokens.size, t] = tokens
    zs, rows, cols, _stride = downsample(z, MAX_CELLS)
    p = Panels()
    # the colour bar stands off the plot by SINK_LABEL_GAP of its width, a column for the sinks' label
    p.add(dict(type="heatmap", z=zs, x=f32(cols), y=f32(rows), colorscale=SEQUENTIAL, zmin=0, zmax=steps - 1,
               colorbar=dict(title=dict(text=_("text index")), x=1 + SINK_LABEL_GAP),
               hovertemplate=_("step %{x}<br>RoPE position %{y}<br>token %{z:.0f}<extra></extra>")))
    if n_sink:
        p.marks.hline(n_sink - 0.5, ngettext("{n} sink<br>below", "{n} sinks<br>below", n_sink), color="#fff",
                      below=True)
        # the label beside the plot, at the line's right end: inside the plot every place is a cell at some
        # setting (the staircase of the first steps at the left, the sink rows themselves at the right)
        p.marks.notes[-1].update(x=1.0, xanchor="left", xshift=4, yanchor="bottom", align="left", font={})
    p.axis("x", title=_("stream step t (the query is token t)"))
    p.axis("y", title=_("cache slot = RoPE position"))
    note = _("slot 0 keeps token 0; the rest slide; positions never pass {top}", top=cap - 1) if n_sink == 1 else \
        _("slots 0..{last} keep tokens 0..{last}; the rest slide; positions never pass {top}", last=n_sink - 1,
          top=cap - 1) if n_sink else _("no sinks: every slot slides; positions never pass {top}", top=cap - 1)
    return p.figure(title=dict(text=subtitled(_("Inside the rolling cache"), note)),
                    margin=dict(t=TWO_LINE_TOP))


@figure("pose_coverage")
def pose_coverage(*, train_length: int = 64, target_length: int = 512, batch: int = 16, seed: int = 0,
                  method: str = "pose") -> go.Figure:
    """Position ids of a training batch (PoSE's skipped chunks, Zhu et al. 2023, or sorted random ids, Ruoss et
    al. 2023) and how many windows contain each relative distance up to the target length."""
    method = check_choice("method", method, ("pose", "random"))
    ids = sm.pose_batch(train_length, target_length, batch, seed, method)
    cover = sm.relative_coverage(ids, target_length)
    p = Panels.grid(1, 2, titles=(_("position ids of each window"), _("windows containing each distance")),
                    hspace=0.12)
    rows = np.repeat(np.arange(ids.shape[0]), ids.shape[1])
    p.scatter(1, x=f32(ids.ravel()), y=f32(rows), mode="markers", marker=dict(size=4, color=COLORS[0]),
              name=_("position id"), showlegend=False,
              hovertemplate=_("window %{y}<br>id %{x}<extra></extra>"))
    p.axis("x", 1, title=_("position id"), range=[-1, target_length])
    p.axis("y", 1, title=_("window in the batch"), range=[batch - 0.5, -0.5])  # windows 0..batch − 1, first on top
    p.scatter(2, x=f32(np.arange(target_length)), y=f32(cover), mode="lines", line=dict(color=COLORS[2], width=2),
              name=_("windows"), showlegend=False, hovertemplate=_("r=%{x}<br>%{y} windows<extra></extra>"))
    p.marks.vline(float(train_length), f"L<sub>c</sub> = {train_length}", panel=2, color="#888", top=False)
    p.marks.notes[-1]["xshift"] = 6  # clear of its dashed line, not drawn over it
    p.axis("x", 2, title=_("relative distance r"), range=[-1, target_length])
    p.axis("y", 2, title=_("windows"))
    covered = int((cover > 0).sum())
    label = "PoSE" if method == "pose" else _("random ids")
    return p.figure(title=dict(text=subtitled(_("{label}: {batch} windows of {length} tokens, target {target:,}",
                                                label=label, batch=batch, length=train_length, target=target_length),
                                              _("{covered:,} of {target:,} relative distances seen ({share:.0%})",
                                                covered=covered, target=target_length,
                                                share=covered / target_length))),
                    margin=dict(t=TWO_LINE_TOP), height=460)
