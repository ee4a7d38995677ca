"""The live chart on the page: a Streamlit v2 component (no iframe), its payload, and what the chart fetches.

``draw_chart`` draws the exact figure with ``chart.js`` and names the sliders it follows. The states of a slider
are not in the script's messages: each slider is registered here under a token (``register``) and the chart
fetches its states from the app's ``states/`` route when the learner reaches for that slider (pointer over it,
keyboard focus) or, for the first few sliders, in idle time; ``figure/`` gives the exact figure at any of the
slider's values, which a key press or a release between two states draws before its rerun is over. Both are
built once per settings in the process's one store and shared by every session, off the script run, so a rerun
never waits for a slider nobody touches.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from posviz import i18n
from posviz.ui import served
from posviz.ui.live import states
from posviz.ui.live.figures import (
    JSON_OVERHEAD,
    JsonFigure,
    built_figure,
    figure_json,
    figure_key,
    json_bytes,
    keep_figure_json,
    settings_key,
)
from posviz.ui.live.store import FOREGROUND, STORE
from posviz.ui.params import LogFloat, Param

_HERE = Path(__file__).parent
# the exact figures of one slider's states are kept (for a release at their values) only if together they
# take at most this share of the store's figure JSON: a larger set would push out every other figure
STATE_FIGURES_SHARE = 0.25


PREFETCHED = 2  # sliders per chart whose states the chart fetches in idle time; the others when reached for
MAX_REQUESTS = 4096  # registered sliders a process remembers (an unknown token: 404, the chart stays as drawn)


def script() -> str:
    """The JavaScript of the live chart."""
    return (_HERE / "chart.js").read_text(encoding="utf-8")


_CHART = st.components.v2.component("posviz_live", js=script(), isolate_styles=False)


@dataclass(frozen=True)
class LiveChart:
    """One live chart of a lesson part: the figure, its settings, and the controls it follows."""

    name: str                      # the figure's registry name
    params: Mapping[str, object]   # its settings as drawn
    links: Mapping[str, str]       # live control name -> the figure parameter it sets
    controls: Mapping[str, Param]  # the page's controls by name
    slug: str                      # the lesson's slug: widget keys are "<slug>.<control>"
    theme: str
    font_scale: float              # presenter mode's figure font scale (0: not presenting)
    chart: str                     # the component's key
    caps: Mapping[str, float] = dataclasses.field(default_factory=dict)  # control -> the largest value drawn
    derived: Mapping[str, Sets] = dataclasses.field(default_factory=dict)  # control -> the settings it sets
    values: Mapping[str, object] = dataclasses.field(default_factory=dict)  # the page's control values


@dataclass(frozen=True)
class AtMost:
    """A live link to a figure parameter that the page draws at ``min(slider value, at_most)`` (a figure that shows
    at most so many positions): ``live={"P": AtMost("n_positions", 128)}``."""

    param: str
    at_most: float


class Sets:
    """A live link whose slider sets several of the figure's settings at once: ``settings(value, **given)`` gives
    them ({figure parameter: setting}) at each value of the slider, as the page computes them, e.g. one item of a
    pair (``live={"dim_a": Sets(pair_with_first, second=v.dim_b)}``) or a setting the page derives from the
    slider's value. ``settings`` is a module-level function and ``given`` plain values, so the link names the same
    states on every run."""

    def __init__(self, settings: Callable[..., Mapping[str, object]], /, **given: object) -> None:
        self.settings = settings
        self.given = tuple(sorted(given.items()))

    @classmethod
    def item(cls, param: str, index: int, items: tuple) -> Sets:
        """The slider sets item ``index`` of the figure's tuple setting ``param`` (``items`` as drawn now): one
        dimension of a pair of dimensions, say. The link keeps the other items only, so its states do not
        depend on the slider's own value."""
        others = tuple(None if i == index else v for i, v in enumerate(items))
        return cls(item_setting, param=param, index=index, items=others)

    def at(self, value: float) -> dict[str, object]:
        """The figure settings the slider sets at ``value``."""
        return dict(self.settings(value, **dict(self.given)))

    def __repr__(self) -> str:
        return f"Sets({self.settings.__module__}.{self.settings.__qualname__}, {self.given!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sets) and (self.settings, self.given) == (other.settings, other.given)

    def __hash__(self) -> int:
        return hash((self.settings, self.given))


def item_setting(value: float, *, param: str, index: int, items: tuple) -> dict[str, tuple]:
    """``{param: items}`` with item ``index`` set to ``value`` (``Sets.item``)."""
    return {param: (*items[:index], value, *items[index + 1:])}


def encode(payload: Mapping[str, object]) -> str:
    """A payload as the JSON text a component is handed (plain JSON values only, serialised once)."""
    return json.dumps(payload, separators=(",", ":"), allow_nan=False)


def fixed_settings(live: LiveChart, control: str, param: str) -> dict[str, object]:
    """Every figure setting that live slider ``control`` (linked to ``param``) does not set."""
    derive = live.derived.get(control)
    moved = derive.at(live.values[control]) if derive is not None else {param: None}
    return {k: v for k, v in live.params.items() if k not in moved}


def version(live: LiveChart, control: str, param: str) -> str:
    """The settings a live slider's states depend on (every figure setting it does not set), as a short name:
    the chart uses only states built for the settings it was drawn with."""
    fixed = settings_key(fixed_settings(live, control, param))
    derive = live.derived.get(control)
    return hashlib.sha1(repr((live.name, fixed, param, live.theme, live.font_scale, derive)).encode()
                        ).hexdigest()[:16]


def current_value(live: LiveChart, control: str, param: str) -> object:
    """The value the chart's figure is drawn at for live slider ``control``."""
    return live.values[control] if control in live.derived else live.params[param]


def chart_payload(live: LiveChart, exact: JsonFigure, config: dict, base: str) -> dict:
    """What the chart draws: the exact figure now (in the payload or, if it is a served file still there, that
    file's name: the page may hold it already, fetched when the learner let go), and the sliders it follows,
    each with the addresses of its states and of its exact figures (``register``)."""
    sliders = []
    budget = states.state_budget(exact.text_bytes, 1)
    for i, (control, param) in enumerate(live.links.items()):
        c = live.controls[control]
        token = register(live, control, param, budget, exact.text_bytes)
        sliders.append({"key": f"{live.slug}.{control}", "current": current_value(live, control, param),
                        "log": isinstance(c, LogFloat), "index": isinstance(c, LogFloat),
                        "options": list(states.slider_values(c)), "version": version(live, control, param),
                        "states": served.url(base, f"states/{token}"), "figure": served.url(base, f"figure/{token}"),
                        "prefetch": i < PREFETCHED})
    served_file = exact.file if exact.file and STORE.files.touch(exact.file) else None
    return {"plotly": served.url(base, served.PLOTLY_JS), "files": served.url(base, "exact") + "/",
            "config": {**config, "responsive": True}, "chart": live.chart, "exactId": exact.id,
            "exactFile": served_file, "exact": None if served_file else exact.figure, "live": sliders}


def draw_chart(live: LiveChart, config: dict) -> None:
    """Draw the live chart at its exact figure (kept from a slider's states, else built)."""
    exact = figure_json(live.name, live.params, live.theme, live.font_scale)
    if exact.file and exact.file in st.session_state.get(UNREACHABLE_KEY, ()):
        exact = dataclasses.replace(exact, file=None)  # this browser could not fetch it: send the figure
    base = str(st.get_option("server.baseUrlPath") or "")
    text = encode(chart_payload(live, exact, config, base))
    _CHART(data=ordered(live.chart, text, st.session_state.setdefault(ORDER_KEY, {})), key=live.chart,
           on_missing_change=functools.partial(_file_missing, live.chart))


ORDER_KEY = "_live.order"  # chart -> (hash of its last payload's text, that payload's order)


class _Orders:
    """Numbers that only grow: the clock's microseconds, or one more than the last where the clock has not moved
    on. A process that replaced another starts above every number the other gave, so a page that outlived a
    restart still takes the new process's payloads as newer."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            self._last = max(time.time_ns() // 1000, self._last + 1)
            return self._last


_ORDERS = _Orders()


def ordered(chart: str, text: str, kept: dict[str, tuple[int, int]]) -> str:
    """The payload ``text`` with its ``order``: a new number when the chart's payload changed since its last
    rerun (``kept``, the session's), the same one (so the same text) when it did not. Streamlit hands a
    component its data once its module has loaded, and two reruns' data that came while it loaded can reach
    chart.js in either order: the chart never draws a payload older than one it has drawn."""
    digest = hash(text)
    last = kept.get(chart)
    if last is None or last[0] != digest:
        last = kept[chart] = (digest, _ORDERS.next())
    return f'{{"order":{last[1]},{text[1:]}'


UNREACHABLE_KEY = "_live.unreachable"  # served files this browser could not fetch (at most 64 remembered)


def _file_missing(chart: str) -> None:
    """The chart could not fetch the served file it was named (trimmed meanwhile, or blocked on the way) and
    asked for a rerun: from now on this browser tab is sent that figure itself."""
    missing = (st.session_state.get(chart) or {}).get("missing")
    unreachable = st.session_state.setdefault(UNREACHABLE_KEY, set())
    if len(unreachable) >= 64:
        unreachable.clear()
    if missing:
        unreachable.add(missing)


def state_set(name: str, fixed: Mapping[str, object], param: str, control: Param, theme: str,
              font_scale: float, budget: int, keep_figures: bool, at_most: float | None = None,
              derive: Sets | None = None, current: float | None = None) -> dict:
    """The states of one live control as plain JSON, shared across sessions: ``{"values", "files", "common",
    "states"}``.
    ``fixed`` holds every figure parameter but the live one, so releasing the slider at a new value reuses them.
    A figure with fewer than two valid values at these settings has none (``{"values": []}``): an ordinary chart
    then. Each exact figure built for a state is written where the page can fetch it (``"files"``: each value's
    served file, or null) and, with ``keep_figures``, kept for a chart drawn later at its value. A slider that
    sets several settings at once (``derive``) passes its value now as ``current``."""
    files: dict[float, str | None] = {}
    settings = derive.at if derive is not None else functools.partial(states.dict_of, param)

    def keep(value: float, fig: go.Figure) -> None:
        files[value] = keep_figure_json(figure_key(name, {**fixed, **settings(value)}, theme, font_scale), fig,
                                        keep_figures)

    def make() -> dict:
        try:
            values, built = states.live_states(name, dict(fixed), param, states.followed_values(control, at_most),
                                               theme=theme, font_scale=font_scale, budget=budget, on_exact=keep,
                                               **({"settings": settings, "current": current} if derive else {}))
        except ValueError:
            return {"values": []}
        shown = {"values": values, "files": [files.get(v) for v in values], **states.shared(built)}
        return json.loads(states.to_json(shown))

    key = (name, settings_key(fixed), param, states.followed_values(control, at_most), theme, font_scale, budget,
           keep_figures, i18n.language(), derive)
    return STORE.state_sets.get_or_make(key, make, json_bytes)


@dataclass(frozen=True)
class SliderStates:
    """What the ``states/`` and ``figure/`` routes need to build a registered slider's states and exact figures:
    the figure, every parameter but the slider's own (``fixed``), the control, and how the page draws it."""

    name: str
    fixed: Mapping[str, object]
    param: str
    control: Param
    theme: str
    font_scale: float
    budget: int
    keep_figures: bool
    language: str
    at_most: float | None = None  # the figure is drawn at min(value, at_most) (AtMost)
    derive: Sets | None = None  # the settings the slider sets at each value, if several (Sets)
    current: float | None = None  # the slider's value the chart was drawn at (for Sets)

    def settings(self, value: float) -> dict[str, object]:
        """The figure's settings with the slider at ``value``."""
        if self.derive is not None:
            return {**self.fixed, **self.derive.at(value)}
        return {**self.fixed, self.param: value if self.at_most is None else min(value, self.at_most)}


_REQUESTS: OrderedDict[str, SliderStates] = OrderedDict()
_REQUESTS_LOCK = threading.Lock()


def register(live: LiveChart, control_name: str, param: str, budget: int, exact_bytes: int) -> str:
    """Remember how to build the states of ``live``'s slider ``control_name`` (setting ``param``) and return its token
    (the same settings always give the same token; the ``MAX_REQUESTS`` most recently drawn are remembered)."""
    control, at_most = live.controls[control_name], live.caps.get(control_name)
    fixed = fixed_settings(live, control_name, param)
    derive = live.derived.get(control_name)
    count = min(states.MAX_STATES, len(states.followed_values(control, at_most)))
    keep = exact_bytes * JSON_OVERHEAD * count <= STATE_FIGURES_SHARE * STORE.figure_json.budget
    current = live.values[control_name] if derive is not None else None
    request = SliderStates(live.name, fixed, param, control, live.theme, live.font_scale, budget, keep,
                           i18n.language(), at_most, derive, current)
    token = hashlib.sha1(repr((version(live, control_name, param), control, budget, request.language, at_most)
                              ).encode()).hexdigest()[:24]
    with _REQUESTS_LOCK:
        _REQUESTS[token] = request
        _REQUESTS.move_to_end(token)
        while len(_REQUESTS) > MAX_REQUESTS:
            _REQUESTS.popitem(last=False)
    return token


def registered(token: str) -> SliderStates | None:
    with _REQUESTS_LOCK:
        return _REQUESTS.get(token)


def states_text(token: str) -> str | None:
    """The states of a registered slider as JSON text ``{"values", "files", "common", "states"}`` (``values``
    empty where the figure has fewer than two valid values at these settings), or None for an unknown token."""
    r = registered(token)
    if r is None:
        return None
    with i18n.using(r.language):
        found = state_set(r.name, r.fixed, r.param, r.control, r.theme, r.font_scale, r.budget, r.keep_figures,
                          r.at_most, r.derive, r.current)
    return encode(found)


def slider_value(control: Param, text: str) -> float | None:
    """The value of ``control``'s slider that ``text`` names (as the browser writes a number), or None."""
    try:
        wanted = float(text)
    except ValueError:
        return None
    for v in states.slider_values(control):
        if math.isclose(v, wanted, rel_tol=1e-9, abs_tol=1e-12):
            return v
    return None


def figure_text(token: str, value_text: str) -> tuple[str, str] | None:
    """The exact figure of a registered slider at one of its values: (its id, its JSON text), the same figure
    (and id) the rerun at that value draws; None for an unknown token or a value the slider cannot take. Raises
    ``ValueError`` where the figure refuses these settings (the rerun then shows the page's warning)."""
    r = registered(token)
    value = slider_value(r.control, value_text) if r is not None else None
    if value is None:
        return None
    params = r.settings(value)
    with i18n.using(r.language), FOREGROUND.running():
        fig = built_figure(r.name, params, r.theme, r.font_scale)
        key = figure_key(r.name, params, r.theme, r.font_scale)
        keep_figure_json(key, fig)
        exact = figure_json(r.name, params, r.theme, r.font_scale)
    return exact.id, encode(exact.figure)
