"""The RoPE lesson's animated hands: every pair of a query as a clock hand turning by m·θ_i (``rope_clock``), and
a query and a key shifted together, their angle kept (``rope_qk_turn``).

Both play in the browser (plotly frames, play/pause and a position slider): no server round trip per frame.
Frames are plain dicts with arrays already in plotly's typed-array form, built without plotly's validation:
validating numpy arrays costs ~0.5 ms each, about 0.3 s a build for 300 arrays (the tests validate the frames).
Every number comes from ``posviz.rope``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from posviz import rope
from posviz._validate import check_choice, check_float, check_int
from posviz.figures._common import Panels, animation_controls, compact_number, f32, typed
from posviz.figures._registry import figure
from posviz.figures._rope_draw import CLOCK_STEP, GREY, arc, clock_centres, hand_segments, rings, unit_hands
from posviz.i18n import _
from posviz.theme import COLORS

__all__ = ["rope_clock", "rope_qk_turn"]

MAX_FRAMES = 72
MAX_SLIDER_STEPS = 37  # more frames than that: the position slider steps through every k-th frame, Play shows all
MAX_LIVE_LABELS = 32  # up to this many pairs, the clock's labels can show each angle frame by frame
LABEL_DY = (1.25, 1.62)  # the clock's two label lines sit this far below each circle's centre
# The clock's position slider labels every 10th step when the last step is one of them, else every 12th
# (plotly hides all but every 1st, 2nd, 3rd, ... label when they crowd: 12 suits most of those strides).
SLIDER_LABEL_EVERY = (10, 12)
PAIR_SETS = ("spread", "all", "ends", "stride4")
SPREAD_PAIRS = 16  # the clock's default subset: this many pairs from the fastest to the slowest
MAX_TURN_PAIRS = 8  # rope_qk_turn: small clocks for at most this many pairs (spread fast to slow)
_WRAP_SCALE = [[0.0, COLORS[0]], [0.5, COLORS[0]], [0.5, COLORS[3]], [1.0, COLORS[3]]]


def clock_pairs(n_pairs: int, pairs: str) -> np.ndarray:
    """The pairs the clock draws: "spread" picks SPREAD_PAIRS evenly from pair 0 to the last one (their
    wavelengths evenly spaced on a log scale), "ends" the fastest and slowest 8, "stride4" every 4th."""
    if pairs == "spread" and n_pairs > SPREAD_PAIRS:
        return np.unique(np.round(np.linspace(0, n_pairs - 1, SPREAD_PAIRS)).astype(int))
    if pairs == "ends" and n_pairs > 16:
        return np.concatenate([np.arange(8), np.arange(n_pairs - 8, n_pairs)])
    if pairs == "stride4" and n_pairs > 4:
        return np.arange(0, n_pairs, 4)
    return np.arange(n_pairs)


def clock_still(n_frames: int) -> int:
    """The clock's frame before Play (the page's still and an export's): a third of the way, m = m_max/3, where
    the fastest pairs have turned past a full circle and the slow ones barely moved (at m = 0 every hand points
    the same way); a stop of the slider."""
    return min(_slider_stops(n_frames), key=lambda f: abs(f - (n_frames - 1) / 3))


def _slider_stops(n_frames: int) -> list[int]:
    """The frames a player's slider stops at: every frame up to MAX_SLIDER_STEPS, else every k-th and the last."""
    step = math.ceil((n_frames - 1) / (MAX_SLIDER_STEPS - 1))
    return sorted(set(range(0, n_frames, step)) | {n_frames - 1})


def _player(n_frames: int, labels: list[str], *, duration: int = 90, every: int = 10, still: int = 0) -> dict:
    """Play/pause buttons and a frame slider that run in the browser (the shared ``animation_controls``).

    Above MAX_SLIDER_STEPS frames the slider stops at every k-th frame and the last (plotly draws every step
    on each redraw); Play still shows every frame. Only every ``every``-th stop carries its label. ``still`` is
    the frame the figure's own traces show (a stop of the slider, which starts there).
    """
    stops = _slider_stops(n_frames)
    still = min(stops, key=lambda f: abs(f - still))
    return animation_controls([str(f) for f in stops], [labels[f] if f % every == 0 else "" for f in stops],
                              duration=duration, slider_x=0.24, active=stops.index(still))


def _short(v: float) -> str:
    """A wavelength to 3 significant digits, short: 6.28, 199, 1.49k, 47.1k (never 1.49e+03)."""
    return compact_number(float(f"{v:.3g}"))


# ---------------------------------------------------------------------------- every pair a clock hand

@dataclass(frozen=True)
class _Clock:
    """The clock's pairs: which (sel, P), their channels (P, 2), the positions (F,), each hand at unit length
    (F, P, 2), its unwrapped angle m·θ_i (F, P), θ and λ of every pair, and the circles' centres and grid."""
    sel: np.ndarray
    ch: np.ndarray
    pos: np.ndarray
    uv: np.ndarray
    ang: np.ndarray
    theta: np.ndarray
    lam: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    ncols: int
    nrows: int

    def turned(self, f: int) -> np.ndarray:
        """Whether each pair has completed a full turn at frame ``f`` (|m·θ_i| ≥ 2π)."""
        return np.abs(self.ang[f]) >= rope.TWO_PI

    def status(self, f: int) -> str:
        return _("m = {position:.4g}: {turned} of {pairs} pairs have completed a full turn", position=self.pos[f],
                 turned=int(self.turned(f).sum()), pairs=self.sel.size)


def _clock_hands(dim: int, base: float, m_max: float, n_frames: int, preset: str, seed: int, layout: str,
                 pairs: str) -> _Clock:
    """Rotate the query (``rope.rotate``) at n_frames positions from 0 to m_max and keep the drawn pairs."""
    q = rope.sample_qk(dim, seed, preset)[0]
    theta = rope.inv_freq(dim, base)
    sel = clock_pairs(dim // 2, pairs)  # (P,)
    ch = rope.pair_channels(dim, layout)[sel]  # (P, 2)
    pos = np.linspace(0.0, m_max, n_frames)  # (F,)
    rot = rope.rotate(np.ones((n_frames, 1)) * q, pos, theta, layout)  # (F, d)
    uv = unit_hands(np.stack([rot[:, ch[:, 0]], rot[:, ch[:, 1]]], axis=-1))  # (F, P, 2)
    ncols = min(16, max(1, math.ceil(math.sqrt(2 * sel.size))))
    cx, cy = clock_centres(sel.size, ncols)
    return _Clock(sel, ch, pos, uv, rope.angles(pos, dim, base)[:, sel], theta, rope.wavelengths(dim, base), cx, cy,
                  ncols, math.ceil(sel.size / ncols))


def _clock_labels(c: _Clock, show_angles: bool, still: int) -> tuple[dict, dict | None]:
    """The label lines under each circle, one text trace per line: plotly lays a multi-line text out line by line,
    and every text element costs each redraw (32 more labels add ~10 ms to a slider move). Few pairs: "i, λ" and,
    if asked, the angle on a second line, filled in the browser from customdata (a frame sends P numbers, not P
    strings). Many pairs: "i" and "λ" on two lines in a small font (the angle is in the hover)."""
    few = c.sel.size <= MAX_LIVE_LABELS
    font = dict(size=11 if c.sel.size <= 32 else 8)
    first = dict(type="scatter", x=f32(c.cx), y=f32(c.cy - LABEL_DY[0]), mode="text", hoverinfo="skip",
                 textfont=font, name=_("pair i, wavelength λ_i") if few else _("pair i"),
                 text=[f"i={i}, λ={_short(c.lam[i])}" if few else f"i={i}" for i in c.sel])
    if few and not show_angles:
        return first, None
    second = dict(type="scatter", x=f32(c.cx), y=f32(c.cy - LABEL_DY[1]), mode="text", hoverinfo="skip",
                  textfont=font)
    if few:
        second.update(texttemplate="m·θ=%{customdata:.3~g} rad", customdata=f32(c.ang[still]),
                      name=_("angle m·θ_i at this position"))
    else:
        second.update(text=[f"λ={_short(c.lam[i])}" for i in c.sel], name=_("wavelength λ_i"))
    return first, second


def _clock_frame(c: _Clock, f: int, live: bool) -> list[dict]:
    """Frame ``f``'s traces 2, 3, 4 (and 5 with live angle labels): hands, tips, status (and angles)."""
    hx, hy = hand_segments(c.cx, c.cy, c.uv[f])
    return [dict(type="scatter", x=typed(hx), y=typed(hy)),
            dict(type="scatter", x=typed(c.cx + c.uv[f, :, 0]), y=typed(c.cy + c.uv[f, :, 1]),
                 customdata=typed(c.ang[f]), marker=dict(color=typed(c.turned(f)))),
            dict(type="scatter", text=[c.status(f)])] + [dict(type="scatter", customdata=typed(c.ang[f]))] * live


def _clock_traces(c: _Clock, still: int, first: dict) -> list[dict]:
    """Rings, the first label line, hands, tips (orange once turned fully) and the status line, at ``still``."""
    hx, hy = hand_segments(c.cx, c.cy, c.uv[still])
    hover = [_("pair {pair} (channels {first}, {second})<br>θ_{pair} = {theta:.4g} rad/token"
               "<br>λ_{pair} = {wavelength:.4g} tokens", pair=i, first=c.ch[j, 0], second=c.ch[j, 1],
               theta=c.theta[i], wavelength=c.lam[i]) for j, i in enumerate(c.sel)]
    rx, ry = rings(c.cx, c.cy, 41)
    return [
        dict(type="scatter", x=rx, y=ry, mode="lines", line=dict(color=GREY, width=1), hoverinfo="skip",
             name=_("unit circle per pair")),
        first,
        dict(type="scatter", x=hx, y=hy, mode="lines", line=dict(color=COLORS[0], width=2), hoverinfo="skip",
             name=_("hand (pair rotated by m·θ_i)")),
        dict(type="scatter", x=f32(c.cx + c.uv[still, :, 0]), y=f32(c.cy + c.uv[still, :, 1]), mode="markers",
             customdata=f32(c.ang[still]), hovertext=hover,
             marker=dict(size=6 if c.sel.size > 32 else 9, color=f32(c.turned(still)), colorscale=_WRAP_SCALE,
                         cmin=0, cmax=1),
             hovertemplate=_("%{hovertext}<br>angle m·θ_i = %{customdata:.4g} rad<extra></extra>"),
             name=_("tip (orange once the pair has turned fully)")),
        dict(type="scatter", x=[-1.0], y=[1.4], mode="text", text=[c.status(still)], textposition="middle right",
             hoverinfo="skip", name=_("status")),
    ]


def _clock_layout(c: _Clock, dim: int, base: float, still: int) -> dict:
    """Title, square cells (about, at a 900 px wide chart; at most 200 px a row for few pairs) and the player.
    The status line shows the position, so the slider has no "current value" box, and it labels every 10th or
    12th step only: plotly draws and measures every label on each redraw (~25 ms for 49 steps)."""
    n_frames, (dx, dy) = c.pos.size, CLOCK_STEP
    height = int(min(1100, max(360, 150 + min(880 * (dy * c.nrows + 0.6) / (dx * c.ncols), 200 * c.nrows))))
    every = SLIDER_LABEL_EVERY[0] if (n_frames - 1) % SLIDER_LABEL_EVERY[0] == 0 else SLIDER_LABEL_EVERY[1]
    shown = "" if c.sel.size == dim // 2 else _(" ({shown} of {pairs} pairs shown)", shown=c.sel.size, pairs=dim // 2)
    return dict(
        title=dict(text=_("Clock hands: pair i turns by m·θ_i, θ_i = {base:g}^(-2i/{dim})", base=base, dim=dim)
                   + shown),
        showlegend=False, height=height, hovermode="closest",
        xaxis=dict(visible=False, range=[-1.3, (c.ncols - 1) * dx + 1.3]),
        yaxis=dict(visible=False, scaleanchor="x", range=[-(c.nrows - 1) * dy - 1.8, 1.8]),
        **_player(n_frames, [f"{p:.4g}" for p in c.pos], every=every, still=still),
        margin=dict(l=10, r=10, t=60, b=90),
    )


@figure("rope_clock", animated=True)
def rope_clock(*, dim: int = 16, base: float = 10000.0, m_max: float = 30.0, n_frames: int = 31,
               preset: str = "ones", seed: int = 0, layout: str = "interleaved", pairs: str = "spread",
               show_angles: bool = False) -> go.Figure:
    """Each pair of a query as a clock hand turning by m·θ_i as the position m runs from 0 to m_max.

    Small multiples, one circle per pair (pair 0 top left, fastest); by default 16 pairs spread from the
    fastest to the slowest (every pair up to d = 32), ``pairs="all"`` draws all d/2. Hands are drawn at unit length
    (rotation keeps each pair's length). A hand turns orange once its pair has completed a full turn.
    Play/pause and the position slider run in the browser: no server round trip per frame.
    ``show_angles`` (up to 32 pairs) adds each pair's angle m·θ_i under its clock, frame by frame.
    """
    n_frames = check_int("n_frames", n_frames, 30, MAX_FRAMES)
    m_max = check_float("m_max", m_max, 1.0, 1e6)
    pairs = check_choice("pairs", pairs, PAIR_SETS)
    layout = check_choice("layout", layout, rope.LAYOUTS)
    c = _clock_hands(dim, base, m_max, n_frames, preset, seed, layout, pairs)
    still = clock_still(n_frames)
    first, second = _clock_labels(c, bool(show_angles), still)
    live = second is not None and "texttemplate" in second
    data = _clock_traces(c, still, first) + ([second] if second is not None else [])
    frames = [dict(data=_clock_frame(c, f, live), traces=[2, 3, 4] + [5] * live, name=str(f))
              for f in range(n_frames)]
    fig = go.Figure(data=data, layout=_clock_layout(c, dim, base, still))  # validated: a few traces, cheap
    fig.frames = [go.Frame(fr, _validate=False) for fr in frames]  # the bulk: skip per-attribute checks
    return fig


# ---------------------------------------------------------------------------- q and k turning together

@dataclass(frozen=True)
class _Turn:
    """q at m + c and k at n + c for every shift c (F,): both hands at unit length for every pair (F, d/2, 2),
    the angle k → q and each pair's share of the score (F, d/2), the whole score (F,), the big pair and the
    small clocks' pairs (P,) with their centres."""
    m: float
    n: float
    pair: int
    shifts: np.ndarray
    hq: np.ndarray
    hk: np.ndarray
    angle: np.ndarray
    share: np.ndarray
    total: np.ndarray
    sel: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    ncols: int

    def status(self, f: int) -> str:
        p = self.pair
        return _("c = {shift:.3g}: q at m + c = {query:.4g}, k at n + c = {key:.4g} (m − n = {offset:g})<br>pair "
                 "{pair}: angle k → q = {angle:+.4f} rad, share of the score = {share:+.4f}; whole score q·k = "
                 "{score:+.4f}", shift=self.shifts[f], query=self.m + self.shifts[f], key=self.n + self.shifts[f],
                 offset=self.m - self.n, pair=p, angle=self.angle[f, p], share=self.share[f, p], score=self.total[f])


def _turn_hands(dim: int, base: float, m: float, n: float, pair: int, c_max: float, n_frames: int, seed: int,
                layout: str) -> _Turn:
    """Both hands of every pair at every shift (``rope.qk_pairs``), and the small clocks: the big pair plus
    pairs spread from the fastest to the slowest, MAX_TURN_PAIRS at most."""
    q, k = rope.sample_qk(dim, seed)
    pair = check_int("pair", pair, 0, dim // 2 - 1)
    shifts = np.linspace(0.0, c_max, n_frames)  # (F,)
    hands = rope.qk_pairs(q, k, m + shifts, n + shifts, base, layout)  # q, k: (F, d/2, 2)
    spread = clock_pairs(dim // 2, "spread")
    sel = np.unique(np.concatenate([[pair], spread[::max(1, math.ceil(spread.size / MAX_TURN_PAIRS))]]))
    sel = sel[:MAX_TURN_PAIRS]  # (P,)
    ncols = min(4, sel.size)
    cx, cy = clock_centres(sel.size, ncols)
    return _Turn(m, n, pair, shifts, unit_hands(hands["q"]), unit_hands(hands["k"]), hands["angle"],
                 hands["score"], hands["score"].sum(axis=1), sel, cx, cy, ncols)


def _turn_frame(t: _Turn, f: int) -> list[dict]:
    """Frame ``f``'s traces 1, 2, 3, 5, 6, 7: the big pair's q, k and angle arc; the small q and k hands; status."""
    p = t.pair
    a_k = float(np.arctan2(t.hk[f, p, 1], t.hk[f, p, 0]))
    ax, ay = arc(a_k, a_k + float(t.angle[f, p]), 0.45)
    sq, sk = (hand_segments(t.cx, t.cy, h[f, t.sel]) for h in (t.hq, t.hk))
    return [dict(type="scatter", x=typed([0, t.hq[f, p, 0]]), y=typed([0, t.hq[f, p, 1]])),
            dict(type="scatter", x=typed([0, t.hk[f, p, 0]]), y=typed([0, t.hk[f, p, 1]])),
            dict(type="scatter", x=typed(ax), y=typed(ay)),
            dict(type="scatter", x=typed(sq[0]), y=typed(sq[1])),
            dict(type="scatter", x=typed(sk[0]), y=typed(sk[1])),
            dict(type="scatter", text=[t.status(f)])]


def _turn_panels(t: _Turn, theta: np.ndarray) -> Panels:
    """Panel 1: the big pair's circle, q, k and their angle; panel 2: the small clocks; panel 3: the status."""
    p, first = t.pair, _turn_frame(t, 0)
    query, key, angle = _colored(_("q at m + c"), 0), _colored(_("k at n + c"), 2), _colored(_("angle"), 3)
    big = _("pair {pair}: {query}, {key}, {angle}", pair=p, query=query, key=key, angle=angle)
    g = Panels((((0.0, 0.42), (0.0, 0.8)), ((0.48, 1.0), (0.0, 0.8)), ((0.0, 1.0), (0.9, 1.0))),
               (big, _("each pair at its own speed")), title_size=13)
    ring = np.linspace(0, 2 * np.pi, 61)
    g.scatter(1, x=f32(np.cos(ring)), y=f32(np.sin(ring)), mode="lines", hoverinfo="skip",
              line=dict(color=GREY, width=1), name=_("circle"))
    for trace, name, color in ((first[0], _("q's pair {pair} at m + c", pair=p), COLORS[0]),
                               (first[1], _("k's pair {pair} at n + c", pair=p), COLORS[2])):
        g.add(dict(trace, mode="lines+markers", hoverinfo="skip", name=name,
                   line=dict(color=color, width=3),
                   marker=dict(size=[0, 14], symbol="arrow", angleref="previous", color=color)), 1)
    g.add(dict(first[2], mode="lines", name=_("angle k → q (constant)"), line=dict(color=COLORS[3], width=2),
               hoverinfo="skip"), 1)
    rx, ry = rings(t.cx, t.cy, 61)
    g.scatter(2, x=rx, y=ry, mode="lines", line=dict(color=GREY, width=1), hoverinfo="skip", name=_("pairs"))
    for trace, name, color in ((first[3], _("q's pairs"), 0), (first[4], _("k's pairs"), 2)):
        g.add(dict(trace, mode="lines", line=dict(color=COLORS[color], width=2), hoverinfo="skip",
                   name=name), 2)
    g.add(dict(first[5], x=[0.0], y=[0.5], mode="text", textposition="middle right", hoverinfo="skip",
               name=_("status"), textfont=dict(size=13)), 3)
    g.scatter(2, x=f32(t.cx), y=f32(t.cy - 1.35), mode="text", hoverinfo="skip", name=_("pair labels"),
              text=[f"i={i}, θ={theta[i]:.2g}" for i in t.sel], textfont=dict(size=11))
    return g


def _colored(text: str, color: int) -> str:
    return f"<span style='color:{COLORS[color]}'>{text}</span>"


def _turn_axes(g: Panels, t: _Turn) -> None:
    """Equal scales, no visible axes; the status strip fixed."""
    (dx, dy), nrows = CLOCK_STEP, math.ceil(t.sel.size / t.ncols)
    g.axis("x", 1, range=[-1.25, 1.25], visible=False, constrain="domain")
    g.axis("y", 1, range=[-1.25, 1.25], visible=False, scaleanchor="x", constrain="domain")
    g.axis("x", 2, range=[-1.3, (t.ncols - 1) * dx + 1.3], visible=False, constrain="domain")
    g.axis("y", 2, range=[-(nrows - 1) * dy - 1.7, 1.3], visible=False, scaleanchor="x2", constrain="domain")
    for letter in "xy":
        g.axis(letter, 3, range=[0, 1], visible=False, fixedrange=True)


@figure("rope_qk_turn", animated=True)
def rope_qk_turn(*, dim: int = 8, base: float = 10000.0, m: float = 5.0, n: float = 2.0, pair: int = 0,
                 c_max: float = 24.0, n_frames: int = 49, seed: int = 0, layout: str = "interleaved") -> go.Figure:
    """q at m + c and k at n + c for a shift c from 0 to c_max: both hands turn, their angle and the score stay.

    Left: pair i, large, with the angle from k's hand to q's hand. Right: up to 8 pairs (spread from the
    fastest to the slowest), each turning at its own speed θ_i, each keeping its own angle. The status line
    gives, frame by frame, c, both positions, pair i's angle and share of the score, and the whole score
    (computed at the shifted positions). Plays in the browser: plotly frames, play/pause and a slider.
    """
    n_frames = check_int("n_frames", n_frames, 2, MAX_FRAMES)
    c_max = check_float("c_max", c_max, 0.0, 1e6, lo_open=True)
    m = check_float("m", m, 0.0, 1e6)
    n = check_float("n", n, 0.0, 1e6)
    layout = check_choice("layout", layout, rope.LAYOUTS)
    t = _turn_hands(dim, base, m, n, pair, c_max, n_frames, seed, layout)
    g = _turn_panels(t, rope.inv_freq(dim, base))
    _turn_axes(g, t)
    player = _player(n_frames, [f"{c:.3g}" for c in t.shifts], every=12 if (n_frames - 1) % 12 == 0 else 8)
    player["sliders"][0]["currentvalue"] = dict(visible=False)
    fig = g.figure(title=_("q and k, shifted together: d = {dim}, b = {base:g}", dim=dim, base=base),  # m, n: status
                   showlegend=False, hovermode=False, height=560, margin=dict(l=10, r=10, t=60, b=90), **player)
    fig.frames = [go.Frame(dict(data=_turn_frame(t, f), traces=[1, 2, 3, 5, 6, 7], name=str(f)), _validate=False)
                  for f in range(n_frames)]
    return fig
