"""Figures of the first lesson, "From integers to sinusoids" (math in ``posviz.intro``).

Each builder takes plain keyword parameters, calls ``posviz.intro`` / ``posviz.sinusoidal`` and returns a
``go.Figure`` without a template. Tokens shown in labels come from ``posviz.intro.tokenize``, so they
hold only word characters (no markup reaches plotly's label parser).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz import intro
from posviz import sinusoidal as sn
from posviz.figures._common import (
    TWO_LINE_TOP,
    Panels,
    column_means,
    column_run,
    curve_mode,
    f32,
    grid_domains,
    label_margin,
    subtitled,
)
from posviz.figures._registry import figure
from posviz.i18n import N_, _
from posviz.theme import COLORS, DIVERGING, SEQUENTIAL

__all__ = ["intro_attention", "intro_shuffle", "intro_integer_ranges", "intro_normalised", "intro_binary",
           "intro_binary_vs_sinusoid", "intro_trajectory", "intro_wavelength_limit"]

def _row_labels(tokens: tuple[str, ...], order: np.ndarray | None = None) -> list[str]:
    """Unique y labels "slot: word" (plus "(was i)" after a shuffle), so repeated words keep their rows."""
    if order is None or np.array_equal(order, np.arange(len(order))):
        return [f"{t}: {w}" for t, w in enumerate(tokens)]
    return [_("{slot}: {word} (was {was})", slot=t, word=w, was=int(o)) for t, (w, o) in enumerate(zip(tokens, order))]


def _output_heatmap(demo: intro.AttentionDemo, labels: list[str], zmax: float, name: str,
                    showscale: bool) -> dict:
    """One layer's outputs as a heatmap trace (a plain dict: plotly validates nothing on a slider move)."""
    return dict(
        type="heatmap", z=f32(demo.out), y=labels, x=np.arange(demo.out.shape[1]), colorscale=DIVERGING,
        meta="diverging", zmid=0, zmin=-zmax, zmax=zmax, showscale=showscale, name=name,
        colorbar=dict(title=dict(text=_("output")), len=0.8),
        hovertemplate=_("{name}<br>token %{{y}}<br>channel %{{x}}<br>output %{{z:.4f}}<extra></extra>", name=name),
    )


def _outline_rows(rows: tuple[int, int] | None, n_cols: int, xref: str, yref: str) -> list[dict]:
    """Boxes (layout shapes) around each of the two rows of a repeated word."""
    return [dict(type="rect", x0=-0.5, x1=n_cols - 0.5, y0=r - 0.5, y1=r + 0.5, xref=xref, yref=yref,
                 line=dict(color=COLORS[1], width=3), fillcolor="rgba(0,0,0,0)") for r in rows or ()]


def _spans(ps: list[int]) -> str:
    """Compact position list: [0, 1, 2, 3, 16, 17] -> "0–3, 16–17"."""
    spans, start = [], ps[0]
    for a, b in zip(ps, ps[1:] + [None]):
        if b != a + 1:
            spans.append(f"{start}" if start == a else f"{start}–{a}")
            start = b
    return ", ".join(spans[:2]) + (", …" if len(spans) > 2 else "")


def _corner_labels(points: np.ndarray) -> dict[tuple[float, float], str]:
    """For each distinct 2-D point of a path, the positions that sit on it ("p = 0–3, 16–19")."""
    where: dict[tuple[float, float], list[int]] = {}
    for p, (x, y) in enumerate(points):
        where.setdefault((float(x), float(y)), []).append(p)
    return {xy: "p = " + _spans(ps).replace(", ", ",<br>", 1) for xy, ps in where.items()}


ATTENTION_PANELS = (("none", False, N_("no mask, no PE")), ("sinusoidal", False, N_("no mask, + PE")),
                    ("none", True, N_("causal mask, no PE")))  # (positions, causal, panel title)


STRIP = (0.8, 1.0)  # intro_attention: paper y of the difference strip, on top where the eye goes first


def _difference_strip(plain: intro.AttentionDemo, with_pe: intro.AttentionDemo, pair: tuple[int, int],
                      d_model: int) -> tuple[str, dict]:
    """The title and heatmap trace of intro_attention's strip: the repeated word's row i − row j without and
    with PE, on its own colour scale (on the outputs' scale the PE difference would not show)."""
    i, j = pair
    diff = np.stack([plain.out[i] - plain.out[j], with_pe.out[i] - with_pe.out[j]])  # (2, d)
    lim = float(max(np.abs(diff).max(), 1e-9))
    gap_plain, gap_pe = (float(np.abs(row).max()) for row in diff)
    title = _("'{word}' twice: row {first} − row {second}, no mask: {gap_plain:.2g} without positions, "
              "up to {gap_pe:.2g} with PE (own scale ±{lim:.2g})", word=plain.tokens[i], first=i, second=j,
              gap_plain=gap_plain, gap_pe=gap_pe, lim=lim)
    trace = dict(type="heatmap", z=f32(diff), x=np.arange(d_model), y=[_("no positions"), _("with PE")],
                 colorscale=DIVERGING, meta="diverging", zmid=0, zmin=-lim, zmax=lim,
                 colorbar=dict(title=dict(text=_("difference"), side="right"), len=STRIP[1] - STRIP[0],
                               y=(STRIP[0] + STRIP[1]) / 2,
                               tickvals=[-lim, lim], ticktext=[f"{-lim:.2g}", f"{lim:.2g}"]),
                 name=_("row difference"),
                 hovertemplate=_("%{{y}}<br>channel %{{x}}<br>row {first} − row {second} = %{{z:.4f}}"
                                 "<extra></extra>", first=i, second=j))
    return title, trace


@figure("intro_attention")
def intro_attention(*, text: str = intro.DEFAULT_TEXT, d_model: int = 16, seed: int = 0) -> go.Figure:
    """One self-attention layer's outputs for a sentence: bidirectional without positions, bidirectional with
    sinusoidal PE, and causal (decoder mask) without positions.

    Left: a word that occurs twice gets two identical output rows (outlined). Middle: after adding sinusoidal
    PE to each slot the two rows differ. Right: the causal mask alone already makes them differ (each copy
    sees a different set of earlier words). The strip on top, where the eye goes first, draws the two rows'
    difference without and with PE (bidirectional) on its own colour scale: on the outputs' scale the PE
    difference (a few hundredths on ±1.4) is invisible, and the rows look the same.
    """
    demos = [intro.attention_demo(text, d_model, seed, positions, causal=causal)
             for positions, causal, _title in ATTENTION_PANELS]
    plain, with_pe = demos[0], demos[1]
    labels = _row_labels(plain.tokens)
    zmax = float(max(max(np.abs(demo.out).max() for demo in demos), 1e-9))
    pair = intro.repeated_pair(plain.tokens)
    # three panels sharing the token axis, built as one layout dict (Panels): make_subplots and update_xaxes
    # validate every property (~15 ms of each slider move that changes d, the seed or the sentence).
    # With a repeated word, a strip on top shows the two rows' difference on its own colour scale: with PE
    # it is small next to the outputs (a few hundredths on a ±1 scale) and would not show in them.
    top = (0.0, STRIP[0] - 0.2) if pair else (0.0, 1.0)
    columns = grid_domains(1, 3, hspace=0.03)
    domains = [(col[0], top) for col in columns] + ([((0.0, 1.0), STRIP)] if pair else [])
    titles = [_(title) for _positions, _causal, title in ATTENTION_PANELS]
    if pair:
        strip_title, strip = _difference_strip(plain, with_pe, pair, d_model)
        titles.append(strip_title)
    grid = Panels(domains, titles, title_size=15)
    for panel, (demo, (_positions, _causal, name)) in enumerate(zip(demos, ATTENTION_PANELS), start=1):
        trace = _output_heatmap(demo, labels, zmax, _(name), panel == len(demos))
        if pair:
            trace["colorbar"] = dict(trace["colorbar"], len=top[1] - top[0], y=(top[0] + top[1]) / 2)
        grid.add(trace, panel)
        grid.axis("x", panel, title=_("output channel"))
        if panel > 1:
            grid.axis("y", panel, matches="y", showticklabels=False)
    grid.axis("y", 1, title=_("token (slot: word)"), autorange="reversed")
    height = max(320, 120 + 26 * len(labels))
    if pair:
        grid.add(strip, 4)
        grid.axis("y", 4, autorange="reversed")
        grid.axis("x", 4, showticklabels=False, ticks="")
        height = int(height / 0.58)
    outlines = [box for n in ("", "2", "3") for box in _outline_rows(pair, d_model, f"x{n}", f"y{n}")]
    return grid.figure(
        shapes=outlines,
        title=dict(text=_("Self-attention outputs softmax(QKᵀ/√d + mask)·V, d = {d}, seed {seed}", d=d_model,
                          seed=seed)),
        # room for the longest token label and the axis title left of it (margins are fixed, no automargin)
        margin=dict(l=label_margin(labels)), height=height)


@figure("intro_shuffle")
def intro_shuffle(*, text: str = intro.DEFAULT_TEXT, d_model: int = 16, seed: int = 0,
                  shuffle: int = 1) -> go.Figure:
    """Shuffle the words: without positions the bidirectional layer's output rows move with their words, unchanged.

    Top row: no positions, original order vs shuffled order (each shuffled row carries its original slot,
    "was i", and equals that original row). Bottom row: with sinusoidal PE by slot, the rows change.
    """
    labels_o, labels_s, demos = None, None, []
    for positions in intro.POSITION_SCHEMES:
        orig = intro.attention_demo(text, d_model, seed, positions, 0)
        shuf = intro.attention_demo(text, d_model, seed, positions, shuffle)
        labels_o, labels_s = _row_labels(orig.tokens), _row_labels(shuf.tokens, shuf.order)
        demos.append((positions, orig, shuf))
    zmax = float(max(max(np.abs(o.out).max(), np.abs(s.out).max()) for _, o, s in demos))
    # the right column's labels ("3: another (was 1)") sit in the gap: as wide as they need on a 700 px chart
    gap = min(0.4, label_margin(labels_s, title=False) / 700)
    grid = Panels.grid(2, 2, (_("no positions, original order"), _("no positions, shuffle seed {seed}", seed=shuffle),
                              _("with sinusoidal PE, original order"),
                              _("with sinusoidal PE, shuffle seed {seed}", seed=shuffle)),
                       hspace=gap, vspace=0.2, title_size=16)
    for r, (positions, orig, shuf) in enumerate(demos):
        original, shuffled = ((_("no positions, original"), _("no positions, shuffled")) if positions == "none"
                              else (_("with sinusoidal PE, original"), _("with sinusoidal PE, shuffled")))
        grid.add(_output_heatmap(orig, labels_o, zmax, original, r == 0), 2 * r + 1)
        grid.add(_output_heatmap(shuf, labels_s, zmax, shuffled, False), 2 * r + 2)
    for panel in (1, 2, 3, 4):
        grid.axis("y", panel, autorange="reversed")
    for panel in (3, 4):
        grid.axis("x", panel, title=_("output channel"))
    return grid.figure(title=dict(text=_("Permutation equivariance: attn(Π·x) = Π·attn(x) only without positions")),
                       height=max(520, 200 + 52 * len(labels_o)), margin=dict(l=label_margin(labels_o, title=False)))


@figure("intro_integer_ranges")
def intro_integer_ranges(*, text: str = intro.DEFAULT_TEXT, n_positions: int = 1000, d_model: int = 16,
                         seed: int = 0) -> go.Figure:
    """Range (min to max over the d channels) of each slot's vector: embedding alone, + p, + sinusoidal PE.

    The sentence is repeated to fill n_positions slots. Adding the integer p lifts every channel by p,
    so by the end of the sequence the word's own values are a thin stripe far below the position.
    """
    tokens, emb = intro.repeated_sentence(text, n_positions, d_model, seed)  # (N, d)
    d_even = d_model - d_model % 2 or 2
    # drawn back to front: the word alone last, so its thin band is on top of the sinusoidal one it overlaps
    variants = (
        (_("embedding + sinusoidal PE"), emb[:, :d_even] + intro.position_codes("sinusoidal", n_positions, d_even),
         COLORS[0]),
        (_("embedding + p (integer)"), emb + intro.integer_encoding(n_positions, d_model), COLORS[3]),
        (_("embedding alone"), emb, COLORS[2]),
    )
    fig = go.Figure()
    p = np.arange(n_positions)
    words = np.array(tokens, dtype=object)
    for name, values, color in variants:
        lo, hi = f32(values.min(axis=1)), f32(values.max(axis=1))
        fig.add_trace(go.Scatter(x=p, y=lo, mode="lines", line=dict(color=color, width=1), showlegend=False,
                                 name=_("{name}: min over channels", name=name), legendgroup=name,
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=p, y=hi, mode="lines", line=dict(color=color, width=1), fill="tonexty", name=name,
            legendgroup=name, customdata=np.stack([lo, words], axis=1),
            hovertemplate=_("{name}<br>position %{{x}} (%{{customdata[1]}})<br>"
                            "min %{{customdata[0]:.3f}}, max %{{y:.3f}}<extra></extra>", name=name)))
    fig.update_layout(
        title=dict(text=_("Channel ranges per position, d = {d}: integer positions swamp the word", d=d_model)),
        xaxis_title=_("position p (token index)"), yaxis_title=_("channel value (min to max)"),
        legend=dict(orientation="h", y=-0.2))
    return fig


@figure("intro_normalised")
def intro_normalised(*, short: int = 10, long: int = 100, position: int = 5) -> go.Figure:
    """Normalised positions p/N for a short and a long sequence: the same position, two different codes."""
    if not 0 <= position < min(short, long):
        raise ValueError(f"position must be in [0, {min(short, long) - 1}] (inside both sequences); "
                         f"got {position}")
    fig = go.Figure()
    for n, color in ((short, COLORS[0]), (long, COLORS[1])):
        codes = intro.normalised_positions(n)
        p = np.arange(n)
        fig.add_trace(go.Scatter(x=p, y=f32(codes), mode=curve_mode(n, 60),
                                 name=f"N = {n}", line=dict(color=color), marker=dict(size=6),
                                 hovertemplate=_("N = {n}<br>position %{{x}}<br>p/N = %{{y:.4f}}<extra></extra>",
                                                 n=n)))
        value = float(codes[position])
        fig.add_trace(go.Scatter(x=[position], y=[value], mode="markers+text", showlegend=False,
                                 marker=dict(size=14, color=color, line=dict(width=2, color="white")),
                                 text=[f"{position}/{n} = {value:.3g}"], textposition="middle right",
                                 hovertemplate=_("position {position} in N = {n}: {value:.4f}<extra></extra>",
                                                 position=position, n=n, value=value)))
    fig.add_vline(x=position, line=dict(dash="dot", color="gray"))
    fig.update_layout(title=dict(text=_("p/N: position {position} gets a different code in every length N",
                                        position=position)),
                      xaxis_title=_("position p (tokens)"), yaxis_title=_("code p/N"), yaxis_range=[-0.05, 1.05])
    return fig


# Heatmap columns of a full-width panel at most: a pixel or more each on a narrow screen (the plot is about 300 px
# wide on a phone); the two side-by-side panels of part 5 hold half as many. More positions than that are shown as
# the mean of runs of 2, 4, 8 ... positions (column_means): drawn one per position, cells narrower than a pixel
# would show a bit that flips at every token as slow stripes.
POSITION_COLUMNS = 256


def position_run(n_positions: int, panels: int = 1) -> int:
    """Positions per heatmap column of a panel that is 1/``panels`` of the figure's width: 1, or the run of
    positions each column averages (a power of two) past POSITION_COLUMNS / panels positions."""
    return column_run(n_positions, POSITION_COLUMNS // panels)


def averaged_columns(n_positions: int, panels: int = 1) -> str:
    """The sentence a caption adds for a binary heatmap of ``n_positions`` in a panel 1/``panels`` of the figure's
    width whose columns are means of runs of positions (position_run); "" when each column is one position."""
    run = position_run(n_positions, panels)
    if run == 1:
        return ""
    return _(" Here each heatmap column is the mean of {run} neighbouring positions: one column per position "
             "would be narrower than a pixel, and the screen would show stripes that are not in the code. "
             "Bits j < {low} flip inside such a run, so they show as their mean, about ½.",
             run=run, low=run.bit_length() - 1)


def position_heatmap(z: np.ndarray, labels: list[str], panels: int, what: str, **style: object) -> tuple[dict, int]:
    """A heatmap trace (plain dict) of ``z`` (one row per label, one column per position) in a panel 1/``panels``
    of the figure's width: a column per position, or each column the mean of a run of k = position_run positions
    (the hover says which); with k. ``what`` names the value in the hover ("bit", "value")."""
    means, edges, k = column_means(z, POSITION_COLUMNS // panels)
    if k == 1:
        cells = dict(z=f32(z), x=np.arange(z.shape[1]),
                     hovertemplate=_("position %{{x}}<br>%{{y}}<br>{what} %{{z:.3g}}<extra></extra>", what=what))
    else:
        first, last = edges[:-1] + 0.5, edges[1:] - 0.5
        runs = np.broadcast_to(np.stack([first, last], axis=1), (len(labels), len(first), 2))
        cells = dict(z=means, x=edges, customdata=runs,
                     hovertemplate=_("positions %{{customdata[0]:.0f}}–%{{customdata[1]:.0f}}<br>%{{y}}<br>"
                                     "mean {what} %{{z:.3g}}<extra></extra>", what=what))
    return dict(type="heatmap", y=labels, colorscale=SEQUENTIAL, zmin=0, zmax=1, **cells, **style), k


def averaged_note(k: int) -> str:
    """What a heatmap of column_means says of its columns: nothing when each is one position."""
    return "" if k == 1 else _("each column: the mean of {k} positions", k=k)


def noted_title(title: str, notes: list[str]) -> tuple[dict, dict]:
    """The figure's title with its non-empty notes on a smaller second line (a title and its notes on one line
    fill a chart beside the sidebar), and the top margin that fits them ({} when there is none)."""
    shown = [note for note in notes if note]
    if not shown:
        return dict(text=title), {}
    return dict(text=subtitled(title, _("; ").join(shown))), {"t": TWO_LINE_TOP}


@figure("intro_binary")
def intro_binary(*, n_positions: int = 64, n_bits: int = 6) -> go.Figure:
    """Binary positions as a heatmap: bit j of p, least significant at the bottom; bit j flips every 2^j. Past
    ``POSITION_COLUMNS`` positions each column is the mean of a run of positions (a bit flipping within it: ½)."""
    bits = intro.binary_encoding(n_positions, n_bits)  # (N, n)
    labels = [_("bit {j} (flips every {period})", j=j, period=intro.flip_period(j)) for j in range(n_bits)]
    trace, k = position_heatmap(bits.T, labels, 1, _("bit"),
                                xgap=1 if n_positions <= 128 else 0, ygap=1,
                                colorbar=dict(title=dict(text=_("bit")), tickvals=[0, 1]))
    repeats = _("codes repeat after {limit} positions", limit=1 << n_bits) if n_positions > 1 << n_bits else ""
    title, top = noted_title(_("Binary code of p, {bits} bits: LSB at the bottom, MSB on top", bits=n_bits),
                             [repeats, averaged_note(k)])
    fig = go.Figure(trace)
    fig.update_layout(title=title, xaxis_title=_("position p (tokens)"), yaxis_title=_("bit j"),
                      height=max(300, 140 + 24 * n_bits), margin=dict(l=label_margin(labels), **top))
    return fig


SMOOTH_STEPS_PER_TOKEN = 8  # samples per token of the smooth curve (bit 0's wavelength of 2 gets 16)
# Dots at the integer positions while they can be told apart in a full-width panel (5 px dots, ~650 px of axis):
# beyond, they merge into one thick line, and each is an SVG element redrawn at every slider move (half the
# chart's redraw at 700 positions).
SMOOTH_DOTS_MOST = 128


@figure("intro_binary_vs_sinusoid")
def intro_binary_vs_sinusoid(*, n_positions: int = 64, n_bits: int = 6, bit: int = 3) -> go.Figure:
    """Binary bits beside smooth bits: each bit's square wave next to a sinusoid of the same wavelength.

    Top: the two heatmaps (bit j and its cosine of wavelength 2^(j+1)), each with at most half of
    ``POSITION_COLUMNS`` columns (beyond, a column is the mean of a run of positions). Bottom: bit ``bit`` and
    its sinusoid over the positions, the sinusoid as a continuous curve (``intro.smooth_bits_at``) with its value
    at each integer position as a dot, up to ``SMOOTH_DOTS_MOST`` positions; beyond, those values are an unseen
    line that still shows each one on hover.
    """
    if not 0 <= bit < n_bits:
        raise ValueError(f"bit must be in [0, {n_bits - 1}] (one of the n_bits = {n_bits} bits); got {bit}")
    bits = intro.binary_encoding(n_positions, n_bits)
    smooth = intro.smooth_bits(n_positions, n_bits)
    x = np.arange(n_positions)
    labels = [f"j = {j} (λ = {2 << j})" for j in range(n_bits)]
    top_left, top_right, bottom = grid_domains(2, 2, heights=(0.62, 0.38), hspace=0.08, vspace=0.16)[:3]
    grid = Panels((top_left, top_right, ((0.0, 1.0), bottom[1])),
                  (_("binary: bit j of p"), _("smooth: ½ − ½cos at wavelength λ = 2^(j+1)"),
                   _("bit {bit} and its sinusoid (wavelength {wavelength} tokens)", bit=bit, wavelength=2 << bit)),
                  title_size=16)
    for col, (name, z) in enumerate(((_("binary"), bits), (_("smooth"), smooth)), start=1):
        trace, _k = position_heatmap(z.T, labels, 2, _("value"), showscale=col == 2, name=name,
                                    colorbar=dict(title=dict(text=_("value"), side="right"), len=0.5, y=0.75))
        grid.add(trace | {"hovertemplate": name + "<br>" + trace["hovertemplate"]}, col)
    grid.scatter(3, x=x, y=f32(bits[:, bit]), mode="lines", line=dict(shape="hv", color=COLORS[3]),
                 name=_("bit {bit} (binary)", bit=bit),
                 hovertemplate=_("position %{x}<br>bit %{y:.0f}<extra>binary</extra>"))
    # the sinusoid is a function of a real position: drawn through fractional ones it is the smooth wave itself
    # (joining its integer samples by straight lines would draw bit 0 as a zigzag), with the codes as dots
    fine = np.linspace(0.0, n_positions - 1, SMOOTH_STEPS_PER_TOKEN * (n_positions - 1) + 1)
    grid.scatter(3, x=fine, y=f32(intro.smooth_bits_at(fine, bit + 1)[:, bit]), mode="lines",
                 line=dict(color=COLORS[0]), name=_("bit {bit} (smooth)", bit=bit), hoverinfo="skip")
    codes = (dict(mode="markers", marker=dict(size=5, color=COLORS[0])) if n_positions <= SMOOTH_DOTS_MOST
             else dict(mode="lines", line=dict(width=0, color=COLORS[0])))
    grid.scatter(3, x=x, y=f32(smooth[:, bit]), **codes,
                 name=_("bit {bit} (smooth) at each position", bit=bit), showlegend=False,
                 hovertemplate=_("position %{x}<br>value %{y:.3f}<extra>smooth</extra>"))
    grid.axis("y", 1, title=_("bit j"))
    grid.axis("y", 2, showticklabels=False)
    grid.axis("x", 3, title=_("position p (tokens)"))
    grid.axis("y", 3, title=_("value"), range=[-0.1, 1.1])
    title, top = noted_title(_("Sinusoids as smooth binary: same wavelengths, no jumps"),
                             [averaged_note(position_run(n_positions, panels=2))])
    return grid.figure(title=title, height=max(560, 380 + 24 * n_bits), legend=dict(orientation="h", y=-0.12),
                       margin=dict(l=label_margin(labels), **top))


@figure("intro_trajectory")
def intro_trajectory(*, n_positions: int = 32, bit: int = 2, n_bits: int = 6, d_model: int = 16) -> go.Figure:
    """The code's path in two dimensions, binary vs sinusoid, and the length of each one-token step.

    Left: bits (j, j+1) of p as (x, y): the point sits still, then jumps between the corners of a square.
    Middle: a (sin, cos) pair with the same period 2^(j+2): the point glides around a circle in equal
    steps. Right: ‖code(p+1) − code(p)‖ over the full codes, n_bits bits vs Vaswani's d_model channels.
    """
    if not 0 <= bit <= n_bits - 2:
        raise ValueError(f"bit must be in [0, {n_bits - 2}] (bits j and j+1 of n_bits = {n_bits}); got {bit}")
    bits = intro.binary_encoding(n_positions, n_bits)
    two_bits = bits[:, bit:bit + 2]  # (N, 2)
    period = 4 << bit
    pair = intro.sinusoid_pair(n_positions, period)[:, ::-1]  # (N, 2) as (cos, sin): counter-clockwise, as RoPE
    sin_codes = intro.position_codes("sinusoidal", n_positions, d_model)
    p = np.arange(n_positions)
    grid = Panels.grid(1, 3, (_("binary: bits {low}, {high}", low=bit, high=bit + 1),
                              _("sinusoid of period {period}", period=period), _("step length")),
                       widths=(0.3, 0.3, 0.4), hspace=0.09, title_size=16)
    for col, (name, path, pts, color) in enumerate(((_("binary"), _("binary path"), two_bits, COLORS[3]),
                                                   (_("sinusoid"), _("sinusoid path"), pair, COLORS[0])), start=1):
        # markers coloured by position, with a colour bar (not a legend entry whose marker would not match)
        bar = dict(title=dict(text=_("position p"), side="right"), orientation="h", x=0.3, len=0.45, thickness=10,
                   yref="container", y=0.01, yanchor="bottom") if col == 2 else None
        grid.scatter(col, x=f32(pts[:, 0]), y=f32(pts[:, 1]), mode="lines+markers", name=path,
                     showlegend=False, line=dict(color=color, width=1.5),
                     marker=dict(size=7, color=p, colorscale=SEQUENTIAL, showscale=col == 2, colorbar=bar),
                     customdata=p, hovertemplate=_("{name}<br>position %{{customdata}}<br>(%{{x:.3f}}, %{{y:.3f}})"
                                                   "<extra></extra>", name=name))
    corners = [dict(x=cx, y=cy, xref="x", yref="y", text=label, showarrow=False,
                    yanchor="bottom" if cy > 0.5 else "top", yshift=6 if cy > 0.5 else -6, font=dict(size=11))
               for (cx, cy), label in _corner_labels(two_bits).items()]
    steps_b = intro.step_lengths(bits) if n_positions > 1 else np.zeros(0)
    steps_s = intro.step_lengths(sin_codes) if n_positions > 1 else np.zeros(0)
    grid.scatter(3, x=p[:-1], y=f32(steps_b), mode="lines+markers", line=dict(color=COLORS[3]),
                 name=_("binary, {bits} bits", bits=n_bits),
                 hovertemplate=_("p = %{x} → p+1<br>step %{y:.3f}<extra>binary</extra>"))
    grid.scatter(3, x=p[:-1], y=f32(steps_s), mode="lines+markers", line=dict(color=COLORS[0]),
                 name=_("sinusoidal, d = {d}", d=d_model),
                 hovertemplate=_("p = %{x} → p+1<br>step %{y:.3f}<extra>sinusoidal</extra>"))
    for col, (xt, yt), lim in ((1, (_("first coordinate"), _("second coordinate")), (-0.5, 1.5)),
                               (2, ("cos(2πp/λ)", "sin(2πp/λ)"), (-1.3, 1.3))):  # square panels: circles look round
        grid.axis("x", col, title=xt, range=list(lim), constrain="domain")
        grid.axis("y", col, title=yt, range=list(lim), scaleanchor="x" if col == 1 else "x2", scaleratio=1,
                  constrain="domain")
    grid.axis("x", 3, title=_("position p (tokens)"))
    grid.axis("y", 3, title="‖code(p+1) − code(p)‖", rangemode="tozero")
    return grid.figure(title=dict(text=_("Binary jumps, sinusoids glide: {positions} positions",
                                         positions=n_positions)),
                       legend=dict(orientation="h", y=-0.22, x=0.62), height=500, margin=dict(b=130),
                       annotations=corners)


@figure("intro_wavelength_limit")
def intro_wavelength_limit(*, d_model: int = 16, base: float = 10000.0, pairs: str = "all") -> go.Figure:
    """How close the code of p + k comes to the code of p, for every offset k up to 200,000.

    Each point is the smallest ‖PE(p+k) − PE(p)‖ among the integer offsets of one log-spaced bin (the
    distance does not depend on p). ``pairs="slowest"`` looks at the slowest pair alone: it comes back to
    its start after one wavelength 2π·base^((d−2)/d). The whole code does not.
    """
    lo, hi, mins = intro.distance_profile(intro.MAX_OFFSET, d_model, base, pairs)
    slowest = float(sn.wavelengths(d_model, base)[-1])
    color = COLORS[0] if pairs == "all" else COLORS[3]
    label = _("all {pairs} pairs", pairs=d_model // 2) if pairs == "all" else _("slowest pair only")
    fig = go.Figure(go.Scatter(
        x=np.sqrt(lo * hi.astype(np.float64)), y=f32(mins), mode="lines+markers", marker=dict(size=4),
        line=dict(color=color), name=label, customdata=np.stack([lo, hi], axis=1),
        hovertemplate=_("{label}<br>offsets k = %{{customdata[0]}} … %{{customdata[1]}}<br>"
                        "smallest distance %{{y:.4g}}<extra></extra>", label=label)))
    fig.add_hline(y=float(mins[0]), line=dict(dash="dot", color="gray"),
                  annotation_text=_("distance to the next token (k = 1)"), annotation_position="top left")
    if slowest <= intro.MAX_OFFSET:
        fig.add_vline(x=slowest, line=dict(dash="dash", color=COLORS[1]))
        # on a log axis an annotation's x is given as log10(x) (add_vline's own annotation lands off-chart)
        fig.add_annotation(x=float(np.log10(slowest)), y=1.0, yref="paper", xanchor="right", yanchor="top",
                           text=_("slowest wavelength<br>2π·b^((d−2)/d) ≈ {wavelength:,.0f}", wavelength=slowest),
                           showarrow=False,
                           font=dict(color=COLORS[1]))
    fig.update_layout(
        title=dict(text=_("Closest repeat of a position's code, d = {d}, b = {base:g}: {label}", d=d_model, base=base,
                          label=label)),
        xaxis=dict(type="log", title_text=_("offset k (tokens, log scale)")),
        yaxis=dict(title_text=_("min ‖PE(p+k) − PE(p)‖ in the bin"), rangemode="tozero"), showlegend=False)
    return fig
