"""The live chart on the page: two Streamlit v2 components (no iframe) and the payloads they are handed.

``draw_chart`` draws the exact figure with ``chart.js`` and names the sliders it follows; ``draw_state_sets``,
called once the lesson part is drawn, hands the states of those sliders to ``state_sets.js``, which files them
where the chart looks for them. Each payload is a dict of plain JSON values (the exact figure and the states as
the store keeps them) serialised once per rerun.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
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
    figure_json,
    figure_key,
    json_bytes,
    keep_figure_json,
    settings_key,
)
from posviz.ui.live.store import STORE
from posviz.ui.params import LogFloat, Param

_HERE = Path(__file__).parent
# the exact figures of one slider's states are kept (for a release at their values) only if together they
# take at most this share of the store's figure JSON: a larger set would push out every other figure
STATE_FIGURES_SHARE = 0.25


def script(kind: str = "chart") -> str:
    """The JavaScript of the live chart (``"chart"``) or of the component that files its states (``"states"``)."""
    return (_HERE / ("chart.js" if kind == "chart" else "state_sets.js")).read_text(encoding="utf-8")


_CHART = st.components.v2.component("posviz_live", js=script("chart"), isolate_styles=False)
_STATE_SETS = st.components.v2.component("posviz_live_states", js=script("states"), isolate_styles=False)


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


def encode(payload: Mapping[str, object]) -> str:
    """A payload as the JSON text a component is handed (plain JSON values only, serialised once)."""
    return json.dumps(payload, separators=(",", ":"), allow_nan=False)


def version(live: LiveChart, param: str) -> str:
    """The settings a live parameter's states depend on (every figure parameter but ``param``), as a short
    name: the chart uses only states built for the settings it was drawn with."""
    fixed = settings_key({k: v for k, v in live.params.items() if k != param})
    return hashlib.sha1(repr((live.name, fixed, param, live.theme, live.font_scale)).encode()).hexdigest()[:16]


def chart_payload(live: LiveChart, exact: JsonFigure, config: dict, base: str) -> dict:
    """What the chart draws: the exact figure now (in the payload or, if it is a served file still there, that
    file's name: the page may hold it already, fetched when the learner let go), and the sliders it follows
    (their states come after the part)."""
    sliders = []
    for control, param in live.links.items():
        c = live.controls[control]
        sliders.append({"key": f"{live.slug}.{control}", "current": live.params[param],
                        "log": isinstance(c, LogFloat), "index": isinstance(c, LogFloat),
                        "options": list(states.slider_values(c)), "version": version(live, param)})
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
    _CHART(data=encode(chart_payload(live, exact, config, base)), key=live.chart,
           on_missing_change=functools.partial(_file_missing, live.chart))


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
              font_scale: float, budget: int, keep_figures: bool) -> dict:
    """The states of one live control as plain JSON, shared across sessions: ``{"values", "files", "common",
    "states"}``.
    ``fixed`` holds every figure parameter but the live one, so releasing the slider at a new value reuses them.
    A figure with fewer than two valid values at these settings has none (``{"values": []}``): an ordinary chart
    then. Each exact figure built for a state is written where the page can fetch it (``"files"``: each value's
    served file, or null) and, with ``keep_figures``, kept for a chart drawn later at its value."""
    files: dict[float, str | None] = {}

    def keep(value: float, fig: go.Figure) -> None:
        files[value] = keep_figure_json(figure_key(name, {**fixed, param: value}, theme, font_scale), fig,
                                        keep_figures)

    def make() -> dict:
        try:
            values, built = states.live_states(name, dict(fixed), param, states.slider_values(control),
                                               theme=theme, font_scale=font_scale, budget=budget, on_exact=keep)
        except ValueError:
            return {"values": []}
        shown = {"values": values, "files": [files.get(v) for v in values], **states.shared(built)}
        return json.loads(states.to_json(shown))

    key = (name, settings_key(fixed), param, states.slider_values(control), theme, font_scale, budget, keep_figures,
           i18n.language())
    return STORE.state_sets.get_or_make(key, make, json_bytes)


def draw_state_sets(live: LiveChart) -> None:
    """Hand the chart the states of each of its live controls, once the part is drawn: a release redraws the
    exact figure and its captions first, and only then builds the states the new settings need (the other live
    sliders' states change with the released value)."""
    exact = figure_json(live.name, live.params, live.theme, live.font_scale)
    exact_bytes = exact.text_bytes
    budget = states.state_budget(exact_bytes, len(live.links))  # two live sliders share what the figure leaves
    sets = []
    for control, param in live.links.items():
        fixed = {k: v for k, v in live.params.items() if k != param}
        count = min(states.MAX_STATES, len(states.slider_values(live.controls[control])))
        keep = exact_bytes * JSON_OVERHEAD * count <= STATE_FIGURES_SHARE * STORE.figure_json.budget
        found = state_set(live.name, fixed, param, live.controls[control], live.theme, live.font_scale, budget, keep)
        sets.append({"key": f"{live.slug}.{control}", "version": version(live, param), **found})
    _STATE_SETS(data=encode({"chart": live.chart, "sets": sets}), key=f"{live.chart}.states")
