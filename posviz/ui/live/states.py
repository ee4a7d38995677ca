"""The states of a live slider: the page's own figure at the slider's values, thinned to fit a byte budget.

The kit builds the figure at the slider's own values (the 1-2-5 steps of a ``LogFloat``, the steps of an ``Int``
or ``Float``; at most ``MAX_STATES`` of them, evenly spread by slider position), each with the page's own
builder. States are for the eye while the thumb moves: each is thinned to every k-th point or cell and stored
as float32 so that all of them fit in ``STATE_BUDGET`` bytes of JSON; the exact figure is drawn on release.
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from posviz.figures import build
from posviz.theme import style
from posviz.ui.live.figures import plain_figure
from posviz.ui.live.store import FOREGROUND, build_slot, check_wanted
from posviz.ui.params import Float, Int, LogFloat, Param

MAX_STATES = 40
STATE_BUDGET = 300_000  # bytes of JSON for all the states of one live slider
FIGURE_BUDGET = 480_000  # a figure at defaults and the states of all its live sliders (the payload cap: 500 KB)
MIN_BUDGET = 60_000  # states of one slider, at the least
LARGE_FIGURE_BUDGET = 1_900_000  # a figure already past FIGURE_BUDGET and its states (the cap at any settings: 2 MB)


def slider_values(control: Param) -> tuple[float, ...]:
    """Every value the (resolved) control's slider can take, in slider order."""
    if isinstance(control, LogFloat):
        return control.options
    if isinstance(control, Int):
        return tuple(range(int(control.lo), int(control.hi) + 1, int(control.step)))
    if isinstance(control, Float):
        n = round((control.hi - control.lo) / control.step)
        return tuple(round(control.lo + i * control.step, 10) for i in range(n + 1))
    raise ValueError(f"control {control.name!r} cannot be live: only Int, Float and LogFloat sliders can")


def followed_values(control: Param, at_most: float | None = None) -> tuple[float, ...]:
    """The slider's values whose figures differ: all of them, or those up to ``at_most`` where the page draws the
    figure at ``min(value, at_most)`` (beyond it the figure stays the one at ``at_most``)."""
    values = slider_values(control)
    return values if at_most is None else tuple(v for v in values if v <= at_most)


def spread(values: Sequence[float], n: int, current: float | None = None) -> tuple[float, ...]:
    """``n`` (>= 2) of ``values`` evenly spread by slider position (ends included), plus ``current`` if given."""
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    idx = set(np.linspace(0, len(values) - 1, min(n, len(values))).round().astype(int).tolist())
    if current in values:
        idx.add(values.index(current))
    return tuple(values[i] for i in sorted(idx))


def _decode(arr: dict) -> np.ndarray:
    flat = np.frombuffer(base64.b64decode(arr["bdata"]), dtype=np.dtype(arr["dtype"]))
    shape = tuple(int(s) for s in str(arr.get("shape", len(flat))).split(","))
    return flat.reshape(shape)


def _encode(a: np.ndarray) -> dict:
    """An array as plotly's base64 ``bdata``: floats as float32, integers as int32 where they fit (Plotly.js reads
    no 64-bit integers; plotly.py narrows them the same way), else float64."""
    if a.dtype.kind == "f":
        a = a.astype(np.float32)
    elif a.dtype.kind in "iu" and a.dtype.itemsize == 8:
        fits = a.size == 0 or (a.min() >= np.iinfo(np.int32).min and a.max() <= np.iinfo(np.int32).max)
        a = a.astype(np.int32 if fits else np.float64)
    a = np.ascontiguousarray(a)
    out = {"dtype": a.dtype.str.lstrip("<|="), "bdata": base64.b64encode(a.tobytes()).decode()}
    if a.ndim > 1:
        out["shape"] = ", ".join(map(str, a.shape))
    return out


def _as_array(v: Any) -> np.ndarray | None:
    if isinstance(v, dict) and "bdata" in v:
        return _decode(v)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float)) for x in v):
        return np.asarray(v)
    return None


SHORT = 64  # a text or customdata array this short is a label (kept while dragging), not per-point hover


def _thin_trace(trace: dict, stride: int) -> dict:
    """A trace with every ``stride``-th point (1-D data) or cell (2-D data, both axes) and float32 numbers.
    Hover is dropped (no hover while dragging); labels (``text`` or ``customdata`` of at most ``SHORT``
    items, e.g. a clock's angle under each hand) are kept, since they change with the parameter too."""
    z = _as_array(trace.get("z"))
    rows = cols = None
    if z is not None and z.ndim == 2:
        rows, cols = z.shape
    out: dict[str, Any] = {}
    for k, v in trace.items():
        if k in ("hovertext", "hovertemplate") or (k in ("text", "customdata") and not _short(v)):
            continue
        a = _as_array(v)
        if isinstance(v, dict) and a is None:
            out[k] = _thin_trace(v, stride) if k in ("marker", "line") else v
        elif k == "z" and rows is not None:
            out[k] = _encode(a[::stride, ::stride])  # (R/k, C/k)
        elif rows is not None and k in ("dx", "dy"):
            out[k] = v * stride  # evenly spaced cells (x0, dx): every stride-th kept, as far apart again
        elif rows is not None and k in ("x", "y") and a is not None and len(a) == (cols if k == "x" else rows) + 1:
            out[k] = _encode(np.append(a[:-1:stride], a[-1]))  # cell edges: a kept cell spans to the next kept one
        elif rows is not None and k in ("x", "y"):
            n = cols if k == "x" else rows
            seq = a if a is not None else v
            out[k] = (_encode(seq[::stride]) if a is not None else list(seq[::stride])) if len(seq) == n else v
        elif a is not None and a.ndim == 1 and rows is None and k not in ("text", "customdata"):
            out[k] = _encode(a[::stride])
        elif isinstance(v, (list, tuple)) and rows is None and len(v) > 2 and k in ("x", "y"):
            out[k] = list(v[::stride])
        else:
            out[k] = a.tolist() if a is not None and a.ndim == 0 else (_encode(a) if a is not None else v)
    return out


def _short(v: object) -> bool:
    a = _as_array(v)
    a = a if a is not None else v if isinstance(v, np.ndarray) else None  # plotly.py keeps labels as numpy arrays
    n = a.size if a is not None else len(v) if isinstance(v, (list, tuple)) else 1
    return n <= SHORT


def thin_state(fig: go.Figure, stride: int, frames: Sequence[int] = ()) -> dict:
    """The figure as a plotly JSON dict for scrubbing: data thinned by ``stride``, the layout without its
    template (the browser reuses the exact figure's) and, of an animated figure, the frames ``frames``
    (each with its index in the figure's frames and its name, which the position slider's steps give: the browser
    shows the one at the slider's stop)."""
    d = plain_figure(fig)
    layout = {k: v for k, v in d.get("layout", {}).items() if k != "template"}
    state = {"data": [_thin_trace(t, stride) for t in d["data"]], "layout": layout}
    if stride > 1:
        _number_categories(d["data"], state["data"], layout, stride)
    if frames:
        every = list(range(len(d["data"])))
        state["frames"] = [{"index": i, "name": f.get("name"), "traces": f.get("traces", every),
                            "data": [_thin_trace(t, stride) for t in f["data"]]}
                           for i, f in ((i, d["frames"][i]) for i in frames)]
    return state


def _number_categories(traces: Sequence[dict], thinned: list[dict], layout: dict, stride: int) -> None:
    """Draw a thinned grid whose rows (or columns) are named on a category axis (FLUX.1's tokens) on a numbered
    axis instead. Plotly.js lays a heatmap on a category axis one row per index whatever the names, so every
    ``stride``-th row alone would shrink the grid to n/stride rows while a line drawn after row n (a shape, at
    index n) stayed put. Each kept row keeps its index, the axis names the kept rows, and annotations placed by
    a row's name move to its index."""
    for t, out in zip(traces, thinned, strict=True):
        z = _as_array(t.get("z"))
        for letter, size in zip("yx", z.shape if z is not None and z.ndim == 2 else (), strict=False):
            labels = t.get(letter)
            if not (isinstance(labels, (list, tuple, np.ndarray)) and len(labels) == size > 1
                    and any(isinstance(v, str) for v in labels)):
                continue
            labels = [str(v) for v in labels]
            ref = t.get(letter + "axis") or letter
            name = letter + "axis" + ref[1:]
            axis = layout.get(name, {})
            ends = [-0.5, size - 0.5]
            kept = list(range(0, size, stride))
            layout[name] = {**{k: v for k, v in axis.items() if k not in ("type", "autorange", "categoryorder",
                                                                         "categoryarray")},
                            "type": "linear", "tickmode": "array", "tickvals": kept, "ticktext": labels[::stride],
                            "range": axis.get("range") or (ends[::-1] if axis.get("autorange") == "reversed" else ends)}
            out[letter] = kept
            index = {label: i for i, label in enumerate(labels)}
            layout["annotations"] = [{**a, letter: index[a[letter]]} if a.get(letter + "ref", letter) == ref
                                     and isinstance(a.get(letter), str) and a[letter] in index else a
                                     for a in layout.get("annotations", ())]


def shared(states: Sequence[dict]) -> dict:
    """``{"common": {k: trace}, "states": [...]}``: a trace equal in every state (a reference line, a clock's
    circles) is sent once, and is ``null`` in each state."""
    texts = [[to_json(t) for t in s["data"]] for s in states]
    same = [k for k in range(len(texts[0])) if all(len(t) == len(texts[0]) for t in texts)
            and all(t[k] == texts[0][k] for t in texts[1:])] if len(states) > 1 else []
    common = {str(k): states[0]["data"][k] for k in same}
    out = [{**s, "data": [None if k in same else t for k, t in enumerate(s["data"])]} for s in states]
    return {"common": common, "states": out}


def _numbers(fig: go.Figure) -> int:
    total = 0
    for t in plain_figure(fig)["data"]:
        for v in t.values():
            a = _as_array(v)
            total += a.size if a is not None else 0
    return total


def _stride(fig: go.Figure, per_state: int) -> int:
    """The stride that brings one state under ``per_state`` bytes (about 5.4 bytes per float32 in base64)."""
    numbers = _numbers(fig)
    has_grid = any(getattr(t, "type", "") in ("heatmap", "contour", "surface") for t in fig.data)
    reduce = max(1.0, numbers * 5.4 / max(per_state - 3000, 1000))
    return max(1, math.ceil(math.sqrt(reduce) if has_grid else reduce))


def stop_frames(fig: go.Figure) -> tuple[int, ...]:
    """The indices of the frames an animated figure's position slider stops at (a long animation's stops at every
    k-th frame): the only positions a learner can hold it at, so the only frames a state needs."""
    names = {str(f.name): i for i, f in enumerate(fig.frames or ())}
    steps = fig.layout.sliders[0].steps if fig.layout.sliders else ()
    stops = tuple(names[str(s.args[0][0])] for s in steps if s.args and str(s.args[0][0]) in names)
    return stops or tuple(range(len(names)))


def live_states(name: str, params: Mapping[str, object], param: str, values: Sequence[float], *,
                theme: str = "light", font_scale: float = 0.0, budget: int = STATE_BUDGET,
                max_states: int = MAX_STATES,
                on_exact: Callable[[float, go.Figure], None] | None = None,
                settings: Callable[[float], Mapping[str, object]] | None = None,
                current: float | None = None) -> tuple[tuple[float, ...], list[dict]]:
    """The figure ``name`` built by its own builder at values of its parameter ``param`` (exact math), thinned
    so that all states, sent as ``shared(states)``, fit in ``budget`` bytes of JSON; returns the values used
    and the states. The states do not depend on ``params[param]`` (if given, it is one of them), so a release
    reuses them. An animated figure's states carry as many of its frames as the budget allows. ``on_exact``, if
    given, is handed each value and its exact figure as built (a release at that value can then skip the build).
    A slider that sets several parameters at once passes ``settings`` (value -> those parameters, which
    ``params`` then need not hold) and its value now as ``current``."""
    if settings is None:
        fixed, current = {k: v for k, v in params.items() if k != param}, params.get(param)
        settings = functools.partial(dict_of, param)
    else:
        fixed = dict(params)
    figures = {}
    for v in spread(tuple(values), max_states, current):
        FOREGROUND.wait_idle()  # built ahead of need: a learner's run or key press first
        check_wanted()  # and not at all once the browser that asked has stopped asking
        try:  # a value the builder rejects with these settings (beta_fast <= beta_slow) is not a state
            with build_slot():
                figures[v] = style(build(name, **{**fixed, **settings(v)}), theme, font_scale)
        except ValueError:
            continue
        if on_exact is not None:
            on_exact(v, figures[v])
    if len(figures) < 2:
        raise ValueError(f"figure {name!r} has fewer than 2 valid values of {param!r} at these settings")
    chosen = tuple(figures)
    stride = _stride(figures[chosen[len(chosen) // 2]], budget // len(chosen))
    every = frames = stop_frames(figures[chosen[0]])
    states = [thin_state(figures[v], stride, frames) for v in chosen]
    size = len(to_json(shared(states)))
    while size > budget and len(frames) > 2:  # an animated figure: fewer frames per state, evenly spread
        frames = spread(every, max(2, min(len(frames) - 1, len(frames) * budget // size)))
        states = [thin_state(figures[v], stride, frames) for v in chosen]
        size = len(to_json(shared(states)))
    while size > budget and len(chosen) > 2:  # a figure whose size grows with the parameter: fewer states
        fewer = spread(chosen, max(2, len(chosen) * budget // size), current)
        states = [s for v, s in zip(chosen, states, strict=True) if v in fewer]
        chosen = fewer
        size = len(to_json(shared(states)))
    return chosen, states


def dict_of(param: str, value: float) -> dict[str, float]:
    """``{param: value}``: the one setting of a slider linked to one figure parameter."""
    return {param: value}


def state_budget(exact: int, sliders: int) -> int:
    """Bytes of JSON for the states of each of the ``sliders`` live sliders of a figure whose exact JSON takes
    ``exact`` bytes: their share of what the figure leaves of ``FIGURE_BUDGET`` (the 500 KB cap at defaults)
    or, for a figure too large for that (larger settings), of ``LARGE_FIGURE_BUDGET`` (the 2 MB cap); at least
    ``MIN_BUDGET`` and at most ``STATE_BUDGET``."""
    small = exact + MIN_BUDGET * sliders <= FIGURE_BUDGET
    room = (FIGURE_BUDGET if small else LARGE_FIGURE_BUDGET) - exact
    return min(STATE_BUDGET, max(MIN_BUDGET, room // sliders))


def to_json(obj: object) -> str:
    """JSON text with plotly's encoder (numpy arrays left in a trace, e.g. nested text, become lists)."""
    return to_json_plotly(obj)
