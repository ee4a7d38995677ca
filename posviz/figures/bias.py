"""Figures of the distance-bias lesson: every member's bias against distance, the attention each gives one
query, the (i, j) bias with its causal mask, rotation against bias, NoPE, T5's buckets and ALiBi's slopes.
All numbers come from ``posviz.bias`` (which reuses ``posviz.gaussian`` and ``posviz.rope``)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from posviz import bias as b
from posviz._validate import check_choice, check_float, check_int
from posviz.figures._common import Panels, compact_number, log_ticks
from posviz.figures._common import f32 as _f32
from posviz.figures._registry import figure
from posviz.i18n import _
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL

__all__ = ["bias_distance", "bias_attention", "bias_heatmap", "bias_rotation_vs_bias", "bias_nope",
           "bias_t5_buckets", "bias_alibi_slopes", "bias_alibi_bloom"]

MEMBER_COLORS = {"alibi": COLORS[0], "t5": COLORS[1], "kerple_log": COLORS[2], "kerple_power": COLORS[4],
                 "nope": "#7f7f7f", "gaussian_log": COLORS[3], "gaussian_mul": COLORS[5], "rope": COLORS[9]}
MAX_SPAN = 4096      # distances shown on the curves
MAX_HEATMAP_T = 256  # the (i, j) heatmap: 256² = 65k cells at most
GROUPS = {"all": b.MEMBERS, "gaussian": ("nope", "gaussian_log", "gaussian_mul"), "biases": b.BIASES}
MASK_GREY = [[0.0, "#c9ccd6"], [1.0, "#c9ccd6"]]


def member_label(member: str) -> str:
    """A member's label (``posviz.bias.LABELS``) in the student's language."""
    return _(b.LABELS[member])


def _member_short(member: str, fam: b.Family) -> str:
    """A member's name without its formula: ALiBi's head, T5's buckets, the others' full names."""
    if member == "alibi":
        return _("ALiBi head {head}", head=fam.head)
    if member == "t5":
        return _("T5, {buckets} buckets to {max_distance}", buckets=fam.num_buckets, max_distance=fam.max_distance)
    return _member_name(member, fam)


def _member_name(member: str, fam: b.Family) -> str:
    if member == "alibi":
        return _("ALiBi head {head}: −{slope:.4g}·Δ", head=fam.head, slope=b.alibi_slopes(fam.n_heads)[fam.head])
    if member == "t5":
        if fam.t5_shape == "seeded":
            return _("T5, {buckets} buckets to {max_distance}: seeded N(0, {scale:g}²) values, untrained",
                     buckets=fam.num_buckets, max_distance=fam.max_distance, scale=fam.t5_scale)
        shape = member_label(fam.t5_shape) if fam.t5_shape in b.LABELS else fam.t5_shape
        return _("T5, {buckets} buckets to {max_distance}: values = {shape} at each bucket's start",
                 buckets=fam.num_buckets, max_distance=fam.max_distance, shape=shape)
    if member == "kerple_log":
        return _("KERPLE log −{r1:g}·log(1 + {r2:g}·Δ)", r1=fam.log_r1, r2=fam.log_r2)
    if member == "kerple_power":
        return _("KERPLE power −{r1:g}·Δ^{r2:g}", r1=fam.pow_r1, r2=fam.pow_r2)
    return member_label(member)


def _line(x: np.ndarray, y: np.ndarray, member: str, name: str, **extra: object) -> dict:
    shape = "hv" if member == "t5" else "linear"
    return dict(type="scatter", x=_f32(x), y=_f32(y), mode="lines", name=name, legendgroup=member,
                line=dict(color=MEMBER_COLORS[member], width=3, shape=shape),
                hovertemplate="Δ = %{x}<br>%{y:.4g}<extra>" + member_label(member) + "</extra>", **extra)



def _bias_top(curves: dict[str, np.ndarray]) -> float:
    """The bias axis' top: the largest bias a member draws (``curves``: every member of ``posviz.bias.BIASES``
    over the distances shown; T5's untrained values and the Gaussian's log K can be positive), plus half a nat, so
    no curve is cut off at the top."""
    highest = max(float(np.nanmax(curves[m])) for m in b.BIASES)
    return max(0.0, highest) + 0.5

@figure("bias_distance")
def bias_distance(*, span: int = 128, y_floor: float = -20.0, n_heads: int = 8, head: int = 0,
                  num_buckets: int = 32, max_distance: int = 128, t5_shape: str = "seeded",
                  t5_scale: float = 1.0, log_r1: float = 1.0, log_r2: float = 1.0, pow_r1: float = 0.5,
                  pow_r2: float = 0.5, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                  sigma2: float = 20.0, seed: int = 0) -> go.Figure:
    """The bias each member adds to the logit of a key Δ tokens behind the query, every ALiBi head drawn."""
    fam = b.Family.of(**locals())
    span = check_int("span", span, 1, MAX_SPAN)
    y_floor = check_float("y_floor", y_floor, -1e6, -0.1)
    d = np.arange(span + 1, dtype=np.float64)
    others = np.delete(np.arange(fam.n_heads), fam.head)  # the chosen head is drawn bold below
    ends = b.alibi_distance_bias(fam.n_heads, [0.0, float(span)])[others]  # (H − 1, 2): straight lines
    gap = np.full((others.size, 1), np.nan)
    traces = [dict(type="scatter", x=_f32(np.tile([0.0, span, np.nan], others.size)),
                   y=_f32(np.hstack([ends, gap]).ravel()), customdata=np.repeat(others, 3), mode="lines",
                   legendgroup="heads", name=_("ALiBi, the other {heads} heads", heads=others.size),
                   line=dict(color=MEMBER_COLORS["alibi"], width=1), opacity=0.35,
                   hovertemplate=_("head %{customdata}<br>Δ = %{x}<br>bias = %{y:.4g}<extra>ALiBi</extra>"))
              ][:1 if others.size else 0]
    curves = {m: b.distance_bias(m, d, fam) for m in b.BIASES}
    traces += [_line(d, curves[m], m, _member_name(m, fam)) for m in b.BIASES]
    top = _bias_top(curves)
    layout = dict(
        title=dict(text=_("The bias added to the logit of a key Δ tokens back (Δ = 0..{span})", span=span)),
        xaxis=dict(title=dict(text=_("distance Δ = i − j (tokens)"))),
        yaxis=dict(title=dict(text=_("bias added to the logit (nats)")), range=[y_floor, top]),
        legend=dict(orientation="h", y=-0.22), height=520)
    return go.Figure(data=traces, layout=layout)


@figure("bias_attention")
def bias_attention(*, T: int = 128, group: str = "all", log_y: bool = False, mass: float = 0.9,
                   content_scale: float = 1.0, d: int = 64, base: float = 10000.0, seed: int = 0,
                   n_heads: int = 8, head: int = 0,
                   num_buckets: int = 32, max_distance: int = 128, t5_shape: str = "seeded",
                   t5_scale: float = 1.0, log_r1: float = 1.0, log_r2: float = 1.0, pow_r1: float = 0.5,
                   pow_r2: float = 0.5, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                   sigma2: float = 20.0) -> go.Figure:
    """One query's softmax attention over its T keys under every member, on the same q·k content term."""
    fam = b.Family.of(**locals())
    T = check_int("T", T, 2, b.MAX_ATTENTION_T)
    members = GROUPS[check_choice("group", group, GROUPS)]
    dist = np.arange(T - 1, -1, -1, dtype=np.float64)  # key j = 0..T−1 is Δ = T−1..0 back
    traces = []
    rows = {m: b.attention_row(m, T, fam) for m in members}  # each member's row once: the traces and the log floor
    for m, w in rows.items():
        reach = b.reach(w, mass)
        traces.append(dict(type="scatter", x=_f32(dist), y=_f32(w), mode="lines", legendgroup=m,
                           name=_("{member}: {mass:.0%} within Δ ≤ {reach}", member=member_label(m), mass=mass,
                                  reach=reach),
                           line=dict(color=MEMBER_COLORS[m], width=2.5 if m != "nope" else 1.5,
                                     dash="dot" if m in ("rope", "gaussian_mul") else "solid"),
                           hovertemplate=_("Δ = %{x}<br>weight = %{y:.4g}") + "<extra>" + member_label(m)
                           + "</extra>"))
    yaxis = dict(title=dict(text=_("attention weight (log)") if log_y else _("attention weight")))
    notes = []
    if log_y:
        yaxis.update(type="log", exponentformat="power")
        notes = _log_floor(yaxis, rows, fam)
    layout = dict(
        title=dict(text=_("Attention of the query at i = {query} over its {keys} keys, same q·k for every member",
                          query=T - 1, keys=T)),
        xaxis=dict(title=dict(text=_("distance Δ = i − j of the key (tokens)"))), yaxis=yaxis,
        legend=dict(orientation="h", y=-0.22), height=540, annotations=notes)
    return go.Figure(data=traces, layout=layout)


LOG_DECADES = 6  # bias_attention's log axis spans this many powers of ten below the largest weight


def _log_floor(yaxis: dict, weights: dict[str, np.ndarray], fam: b.Family) -> list[dict]:
    """The log axis of ``bias_attention`` from LOG_DECADES below the largest weight to it: one steep member (ALiBi's
    steepest head reaches 10⁻²⁹) would otherwise squeeze every other into the top band. Members that fall below
    the floor are named in a note, with how low they go."""
    top = max(float(w.max()) for w in weights.values())
    floor = max(min(float(w.min()) for w in weights.values()), top * 10.0 ** -LOG_DECADES)
    yaxis["range"] = [math.log10(floor) - 0.05, math.log10(top) + 0.1]
    below = [_("{member} (to {low})", member=_member_short(m, fam), low=compact_number(float(w.min())))
             for m, w in weights.items() if float(w.min()) < floor]
    if not below:
        return []
    # top right: far keys carry a few hundredths at most, so the top of the plot is empty there
    return [dict(xref="paper", yref="paper", x=0.99, y=0.99, xanchor="right", yanchor="top", showarrow=False,
                 align="right", text=_("below the axis:") + "<br>" + "<br>".join(below))]


@figure("bias_heatmap")
def bias_heatmap(*, member: str = "alibi", T: int = 48, n_heads: int = 8, head: int = 0,
                 num_buckets: int = 32, max_distance: int = 128, t5_shape: str = "seeded",
                 t5_scale: float = 1.0, log_r1: float = 1.0, log_r2: float = 1.0, pow_r1: float = 0.5,
                 pow_r2: float = 0.5, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                 sigma2: float = 20.0, seed: int = 0) -> go.Figure:
    """The bias of one member over (query i, key j): constant along diagonals, the future keys masked."""
    fam = b.Family.of(**locals())
    member = check_choice("member", member, b.BIASES)
    T = check_int("T", T, 2, MAX_HEATMAP_T)
    z = b.bias_matrix(member, T, fam)  # (T, T), −inf above the diagonal
    masked = np.isneginf(z)
    shown = np.where(masked, np.nan, z)
    lo, hi = float(np.nanmin(shown)), float(np.nanmax(shown))
    pos = np.arange(T)
    colour = dict(colorscale=SEQUENTIAL, zmin=lo, zmax=hi if hi > lo else lo + 1.0)
    if lo < 0 < hi:  # two signs (a seeded T5 table): diverging around 0
        lim = max(-lo, hi)
        colour = dict(colorscale=DIVERGING, meta="diverging", zmin=-lim, zmax=lim, zmid=0)
    traces = [
        dict(type="heatmap", z=_f32(shown), x=pos, y=pos, colorbar=dict(title=dict(text=_("bias (nats)"))),
             name=member_label(member),
             hovertemplate=_("query i = %{y}<br>key j = %{x}<br>bias = %{z:.4g}<extra></extra>"), **colour),
        dict(type="heatmap", z=_f32(np.where(masked, 1.0, np.nan)), x=pos, y=pos, colorscale=MASK_GREY,
             showscale=False, name=_("causal mask"),
             hovertemplate=_("query i = %{y}<br>key j = %{x}<br>masked: j > i, bias −∞<extra></extra>")),
    ]
    layout = dict(
        title=dict(text=_("{member} over (i, j), T = {T}; grey: future keys, masked (−∞)",
                          member=_member_name(member, fam), T=T)),
        xaxis=dict(title=dict(text=_("key position j")), constrain="domain"),
        yaxis=dict(title=dict(text=_("query position i")), autorange="reversed", scaleanchor="x"), height=560)
    return go.Figure(data=traces, layout=layout)


@figure("bias_rotation_vs_bias")
def bias_rotation_vs_bias(*, span: int = 256, y_floor: float = -20.0, d: int = 64, base: float = 10000.0,
                          seed: int = 0, n_samples: int = b.ROPE_SAMPLES, n_heads: int = 8, head: int = 0,
                          num_buckets: int = 32, max_distance: int = 128, t5_shape: str = "seeded",
                          t5_scale: float = 1.0, log_r1: float = 1.0, log_r2: float = 1.0, pow_r1: float = 0.5,
                          pow_r2: float = 0.5, alpha1: float = 0.7, alpha2: float = 0.3, sigma1: float = 5.0,
                          sigma2: float = 20.0) -> go.Figure:
    """Left: RoPE's logit against distance (one seeded pair, all-ones, the mean of random pairs). Right: the
    biases on the same axis units. A rotation changes which keys look alike; a bias, how far attention reaches."""
    fam = b.Family.of(**locals())
    span = check_int("span", span, 1, MAX_SPAN)
    y_floor = check_float("y_floor", y_floor, -1e6, -0.1)
    prof = b.rope_profile(span, fam.d, fam.base, fam.seed, n_samples)
    x = prof["delta"]
    grid = Panels.grid(1, 2, [_("RoPE: the logit of q·k at distance Δ (rotation)"),
                              _("biases: added whatever q and k are")], hspace=0.1)
    rope_lines = (("seeded", _("one seeded q, k (seed {seed})", seed=fam.seed), COLORS[9], "solid"),
                  ("ones", _("q = k = all ones (the usual 'decay' curve)"), COLORS[7], "dash"),
                  ("mean", _("mean over {samples} random q, k", samples=n_samples), "#7f7f7f", "dot"))
    for key, name, color, dash in rope_lines:
        grid.scatter(1, x=_f32(x), y=_f32(prof[key]), mode="lines", name=name, line=dict(color=color, dash=dash,
                     width=2), hovertemplate=_("Δ = %{x}<br>logit = %{y:.4g}<extra>RoPE</extra>"))
    curves = {m: b.distance_bias(m, x, fam) for m in b.BIASES}
    for m in b.BIASES:
        if m != "nope":
            grid.add(_line(x, curves[m], m, _member_name(m, fam)), 2)
    top = _bias_top(curves)
    grid.axis("x", 1, title=_("distance Δ = i − j (tokens)"))
    grid.axis("y", 1, title=_("logit q·k/√d (nats)"))
    grid.axis("x", 2, title=_("distance Δ = i − j (tokens)"))
    grid.axis("y", 2, title=_("bias (nats)"), range=[y_floor, top])
    return grid.figure(title=dict(text=_("Rotation against bias, d = {d}, b = {base:g}", d=fam.d, base=fam.base)),
                       legend=dict(orientation="h", y=-0.25), height=520, margin=dict(t=90))


@figure("bias_nope")
def bias_nope(*, T: int = 128, d: int = 256, seed: int = 0) -> go.Figure:
    """NoPE: what uniform causal attention outputs at each position, with a marker on token 0 and with random
    values; both shrink like 1/(i + 1), so the position can be read back."""
    sig = b.nope_signals(T, d, seed)
    i = np.arange(sig["first_token"].size)
    err = float(np.abs(sig["recovered"] - i).max())
    traces = [
        dict(type="scatter", x=i, y=_f32(sig["first_token"]), mode="lines+markers", marker=dict(size=4),
             name=_("output, value 1 on token 0 and 0 elsewhere"), line=dict(color=COLORS[0], width=3),
             hovertemplate=_("i = %{x}<br>output = %{y:.4g}<extra>marker on token 0</extra>")),
        dict(type="scatter", x=i, y=_f32(sig["variance"]), mode="lines", line=dict(color=COLORS[1]),
             name=_("variance over {channels} channels, random N(0, 1) values", channels=d),
             hovertemplate=_("i = %{x}<br>variance = %{y:.4g}<extra>random values</extra>")),
    ]
    layout = dict(
        title=dict(text=_("No position, only the causal mask: 1/output − 1 gives back i (largest error {err:.1e})",
                          err=err)),
        xaxis=dict(title=dict(text=_("query position i (it averages i + 1 keys)"))),
        yaxis=dict(title=dict(text=_("output of uniform causal attention (log)")), type="log",
                   **log_ticks(float(min(sig["first_token"].min(), sig["variance"].min())),
                               float(max(sig["first_token"].max(), sig["variance"].max())))),
        legend=dict(orientation="h", y=-0.22), height=480)
    return go.Figure(data=traces, layout=layout)


@figure("bias_t5_buckets")
def bias_t5_buckets(*, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True,
                    span: int = 200) -> go.Figure:
    """T5's bucket for every distance Δ = i − j (``t5_bucket`` of j − i = −Δ): one bucket per token near the
    query, log-wide buckets further out, one last bucket for everything beyond max_distance."""
    span = check_int("span", span, 1, MAX_SPAN)
    delta = np.arange(-span, span + 1)  # Δ = i − j: positive for a key before the query
    bucket = b.t5_bucket(-delta, bidirectional, num_buckets, max_distance)
    n = num_buckets // 2 if bidirectional else num_buckets
    exact = n // 2
    traces = [dict(type="scatter", x=delta, y=bucket, mode="lines",
                   line=dict(color=MEMBER_COLORS["t5"], shape="hv", width=3),
                   name=_("bucket"), hovertemplate=_("Δ = i − j = %{x}<br>bucket %{y}<extra></extra>"))]
    marks = [(exact, f"max_exact = {exact}"), (max_distance, f"max_distance = {max_distance}")]
    if bidirectional:
        marks += [(-exact, ""), (-max_distance, "")]
    marks = [(x, text) for x, text in marks if -span <= x <= span]
    used = np.unique(bucket).size
    layout = dict(
        shapes=[dict(type="line", x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain",
                     line=dict(color="#9aa0b4", dash="dot")) for x, _ in marks],
        annotations=[dict(text=text, x=x, xref="x", y=1, yref="y domain", yanchor="bottom", showarrow=False)
                     for x, text in marks if text],
        title=dict(text=(_("T5 buckets (bidirectional): {used} of {buckets} used for Δ = i − j in [−{span}, {span}]",
                           used=used, buckets=num_buckets, span=span) if bidirectional else
                         _("T5 buckets (causal): {used} of {buckets} used for Δ = i − j in [−{span}, {span}]",
                           used=used, buckets=num_buckets, span=span))),
        xaxis=dict(title=dict(text=_("distance Δ = i − j (tokens; positive = key before the query)"))),
        yaxis=dict(title=dict(text=_("bucket index"))), showlegend=False, height=440, margin=dict(t=90))
    return go.Figure(data=traces, layout=layout)


@figure("bias_alibi_slopes")
def bias_alibi_slopes(*, n_heads: int = 8) -> go.Figure:
    """ALiBi's slope per head h = 0..H − 1 on a log2 axis: ``2^(−8(h+1)/H)``, a geometric sequence, for 2^k
    heads; for other H, the P-head sequence followed by every other slope of the 2P-head one."""
    slopes = b.alibi_slopes(n_heads)
    n_heads, p = slopes.size, b.alibi_base_heads(n_heads)
    h = np.arange(n_heads)
    k = np.arange(0, int(np.ceil(-np.log2(slopes.min()))) + 1)  # ticks at 2^0 .. 2^−8
    traces = [dict(type="scatter", x=h[sel], y=slopes[sel], mode="markers", name=name,
                   marker=dict(size=9, color=color),
                   hovertemplate=_("head %{x}<br>slope = %{y:.6g}<extra></extra>"))
              for sel, name, color in ((h < p, f"2^(−8(h+1)/{p}), h = 0..{p - 1}", COLORS[0]),
                                       (h >= p, _("odd members of the {heads}-head sequence", heads=2 * p), COLORS[1]))
              if sel.any()]
    layout = dict(
        title=dict(text=_("ALiBi slopes, H = {heads}: from {top:.4g} down to {bottom:.4g}", heads=n_heads,
                          top=slopes.max(), bottom=slopes.min())),
        xaxis=dict(title=dict(text=_("head index h"))),
        yaxis=dict(title=dict(text=_("slope m_h (per token, log axis)")), type="log", tickvals=2.0 ** -k,
                   ticktext=[f"2^−{e}" for e in k]),
        legend=dict(orientation="h", y=-0.22), height=420)
    return go.Figure(data=traces, layout=layout)


@figure("bias_alibi_bloom")
def bias_alibi_bloom(*, masked: bool = False, T: int = 40, query: int = 20, n_heads: int = 8,
                     head: int = 0) -> go.Figure:
    """One query's ALiBi bias over every key: the distance form −m·(i − j) against BLOOM's key-only m·j, with or
    without the causal mask. Masked, the two differ by the constant m·i; unmasked, BLOOM's grows past the query."""
    fam = b.Family(n_heads=n_heads, head=head)
    T = check_int("T", T, 2, MAX_SPAN)
    query = check_int("query", query, 0, T - 1)
    masked = b._check_bool("masked", masked)
    j = np.arange(T)
    seen = j <= query if masked else np.ones(T, bool)
    bloom = b.alibi_key_only(fam.n_heads, T)[fam.head]  # (T,)
    ours = b.distance_bias("alibi", np.maximum(query - j, 0), fam)  # (T,), shown for j <= i only
    slope = b.alibi_slopes(fam.n_heads)[fam.head]
    traces = [
        dict(type="scatter", x=j, y=_f32(np.where(j <= query, ours, np.nan)), mode="lines+markers",
             name=_("−m·(i − j) (the paper; causal): 0 at j = i = {query}", query=query),
             line=dict(color=COLORS[0], width=3),
             marker=dict(size=5), hovertemplate=_("j = %{x}<br>bias = %{y:.4g}<extra>−m·(i − j)</extra>")),
        dict(type="scatter", x=j, y=_f32(np.where(seen, bloom, np.nan)), mode="lines+markers",
             name=_("m·j (BLOOM), keys j ≤ i") if masked else _("m·j (BLOOM), every key: no mask"),
             line=dict(color=COLORS[3], width=2, dash="dash"), marker=dict(size=5),
             hovertemplate=_("j = %{x}<br>bias = %{y:.4g}<extra>m·j</extra>")),
    ]
    layout = dict(
        shapes=[dict(type="line", x0=query, x1=query, xref="x", y0=0, y1=1, yref="y domain",
                     line=dict(color="#9aa0b4", dash="dot"))],
        annotations=[dict(text=_("query i = {query}", query=query), x=query, xref="x", y=1, yref="y domain",
                          yanchor="bottom", showarrow=False)],
        title=dict(text=(_("ALiBi head {head} (m = {slope:.4g}), query at i = {query}:<br>the two differ by m·i = "
                           "{shift:.4g} on every visible key", head=fam.head, slope=slope, query=query,
                           shift=slope * query) if masked else
                         _("ALiBi head {head} (m = {slope:.4g}), query at i = {query}:<br>without the mask, m·j is "
                           "largest on the LAST key", head=fam.head, slope=slope, query=query))),
        xaxis=dict(title=dict(text=_("key position j"))),
        yaxis=dict(title=dict(text=_("bias added to the logit (nats)"))),
        legend=dict(orientation="h", y=-0.22), height=440, margin=dict(t=90))
    return go.Figure(data=traces, layout=layout)
