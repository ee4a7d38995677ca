"""Drawing pieces the RoPE lesson's figure modules share: the strided-positions note, a panel title, an angle's
arc, the small clocks (unit circles in a grid, a hand from each centre) and the grey of guide lines.

Only drawing: every number comes from ``posviz.rope``. Private to ``posviz.figures`` (the registry discovers
public modules only).
"""

from __future__ import annotations

import math

import numpy as np

from posviz.figures._common import f32
from posviz.i18n import _

GREY = "#9aa0b4"  # unit circles, reference curves and guides
CLOCK_STEP = (2.6, 3.0)  # small clocks: centre-to-centre distance across and down (radius 1, labels below)


def stride(n: int, cap: int) -> int:
    """Smallest stride that leaves at most ``cap`` of ``n`` items."""
    return max(1, math.ceil(n / cap))


def every(step: int, what: str = "position") -> str:
    """Title note for a figure that shows 1 item in ``step`` ("" when it shows them all); ``what`` is "position" or
    "offset"."""
    if step == 1:
        return ""
    return _(" (1 offset in {step} shown)", step=step) if what == "offset" else _(" (1 position in {step} shown)",
                                                                                  step=step)


def panel_title(text: str, x: float, top: float) -> dict:
    """An annotation centred at paper coordinate ``x`` just above ``top``: a panel's title."""
    return dict(text=text, x=x, y=top, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                showarrow=False, font=dict(size=13))


def arc(a0: float, a1: float, r: float) -> tuple[np.ndarray, np.ndarray]:
    """Points of the arc of radius ``r`` from angle ``a0`` to ``a1`` (radians), as float32 x and y."""
    t = np.linspace(a0, a1, max(8, int(abs(a1 - a0) * 12)))
    return f32(r * np.cos(t)), f32(r * np.sin(t))


def clock_centres(n: int, ncols: int) -> tuple[np.ndarray, np.ndarray]:
    """Centres of ``n`` small clocks, ``ncols`` a row, the first at the top left: (x, y), each (n,)."""
    j = np.arange(n)
    return (j % ncols) * CLOCK_STEP[0], -(j // ncols) * CLOCK_STEP[1]


def rings(cx: np.ndarray, cy: np.ndarray, points: int) -> tuple[np.ndarray, np.ndarray]:
    """One unit circle around each centre, NaN-separated, as float32 x and y (``points`` per circle)."""
    t = np.linspace(0, 2 * np.pi, points)
    x = np.concatenate([np.append(x0 + np.cos(t), np.nan) for x0 in cx])
    y = np.concatenate([np.append(y0 + np.sin(t), np.nan) for y0 in cy])
    return f32(x), f32(y)


def hand_segments(cx: np.ndarray, cy: np.ndarray, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A line from each centre to centre + ``uv`` (P, 2), NaN-separated: x and y, each (3P,), float32."""
    gap = np.full(cx.size, np.nan)
    x = np.stack([cx, cx + uv[:, 0], gap], axis=1).ravel()
    y = np.stack([cy, cy + uv[:, 1], gap], axis=1).ravel()
    return f32(x), f32(y)


def unit_hands(h: np.ndarray) -> np.ndarray:
    """Pairs (F, P, 2) scaled to length 1 by their length in the first frame (a rotation keeps lengths; a zero
    pair stays zero)."""
    length = np.linalg.norm(h[0], axis=-1)  # (P,)
    return h / np.where(length > 0, length, 1.0)[None, :, None]
