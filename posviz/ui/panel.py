"""The figure panel: chart, caption, formula, "Show the code", exports and "Copy as code".

Figures are built by name from the registry (``posviz.figures.FIGURES``) and cached per parameters,
theme and presenter mode (bounded). Downloads are generated only when clicked (deferred callables),
so a rerun never pays for an export.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import inspect
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from posviz import export
from posviz.figures import FIGURES, build
from posviz.figures._registry import spec_of
from posviz.theme import style
from posviz.ui import live as livemod
from posviz.ui import served
from posviz.ui.callouts import escape_md
from posviz.ui.page import context, release_held
from posviz.ui.params import LogFloat

_EXPORT_KEY = "_export"
FORMAT_LABELS = {"png": "PNG", "svg": "SVG", "pdf": "PDF", "html": "HTML", "csv": "CSV", "json": "JSON",
                 "gif": "GIF", "mp4": "MP4"}


def _freeze(params: Mapping[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))


def cached(fn: Callable) -> Callable:
    """Cache a page's computation per arguments, shared by every session (``st.cache_data``: each caller gets
    its own copy of the result), at most 32 settings per function. The one cache a page uses; figures are
    cached by ``figure_panel`` itself."""
    return st.cache_data(max_entries=32, show_spinner=False)(fn)


@st.cache_resource(max_entries=256, show_spinner=False)
def _figure(name: str, frozen: tuple[tuple[str, object], ...], theme: str, presenter: float) -> go.Figure:
    """Build and style a figure (shared across sessions; treated as read-only)."""
    return style(build(name, **dict(frozen)), theme, presenter)


@functools.lru_cache(maxsize=256)
def _source(fn: Callable) -> str:
    try:
        return inspect.getsource(inspect.unwrap(fn))
    except (OSError, TypeError):
        return f"# source of {getattr(fn, '__name__', fn)} is not available"


def code_snippet(name: str, params: Mapping[str, object]) -> str:
    """A notebook snippet that recreates the figure with posviz."""
    builder = FIGURES[name].builder.__name__
    defaults = FIGURES[name].defaults()
    shown = {k: v for k, v in params.items() if defaults.get(k, object()) != v}
    long = [k for k, v in shown.items() if isinstance(v, str) and len(v) > 200]
    args = ", ".join(f"{k}={k}" if k in long else f"{k}={v!r}" for k, v in shown.items())
    header = "".join(f"{k} = open(\"{k}.txt\").read()  # the {len(shown[k]):,}-character text you pasted\n"
                     for k in long)
    return (f"from posviz.figures import {builder}\nfrom posviz.theme import style\n\n{header}"
            f"fig = style({builder}({args}), theme=\"light\")\nfig.show()\n"
            f"# fig.write_image(\"{name}.png\", width=1200, height=675, scale=2)\n")


def export_settings() -> export.ExportOptions:
    """The sidebar's export settings (size preset, theme, background), shared by every figure."""
    ctx = context()
    opts = st.session_state.get(_EXPORT_KEY)
    return opts if isinstance(opts, export.ExportOptions) else export.ExportOptions(theme=ctx.theme)


def draw_export_settings() -> None:
    """Sidebar controls for exports: size preset, custom size, scale, theme, transparency."""
    with st.sidebar.expander("Export settings"):
        presets = {**{k: f"{k} {w}×{h}" for k, (w, h) in export.SIZE_PRESETS.items()}, "custom": "custom"}
        preset = st.selectbox("size", list(presets), format_func=presets.__getitem__, key="_export.preset")
        if preset == "custom":
            width = int(st.number_input("width (px)", 100, 4000, 1200, 10, key="_export.w"))
            height = int(st.number_input("height (px)", 100, 4000, 675, 10, key="_export.h"))
        else:
            width, height = export.SIZE_PRESETS[preset]
        scale = st.select_slider("scale", [1.0, 2.0, 3.0], value=2.0, key="_export.scale")
        theme = st.selectbox("theme", ["light", "dark", "blog"], key="_export.theme")
        transparent = st.toggle("transparent background", key="_export.transparent")
    st.session_state[_EXPORT_KEY] = export.ExportOptions(width=width, height=height, scale=scale,
                                                         theme=theme, transparent=transparent,
                                                         presenter=context().presenter)


def figure_name(figure: Callable[..., go.Figure]) -> str:
    """The registry name of a figure builder (the name the command line and the exports use)."""
    if not callable(figure):
        raise TypeError(f"pass the figure builder itself (e.g. figure_panel(rope_clock, ...)), not {figure!r}")
    return spec_of(figure).name


def figure_panel(figure: Callable[..., go.Figure], params: Mapping[str, object] | None = None, *,
                 caption: str, latex: str | None = None, code: Sequence[Callable] = (), key: str,
                 height: int | None = None, live: str | Sequence[str] | Mapping[str, str] = ()) -> None:
    """Draw a figure (its builder, e.g. ``rope_clock``) with its caption, formula, source, exports and notebook
    snippet. The figure is shared by every session with the same settings, so it is never handed to the page.

    ``live`` names slider controls the chart follows while they are dragged (``live="base"``; a mapping
    ``{"control": "figure parameter"}`` when the names differ): see ``posviz.ui.live``."""
    ctx = context()
    name = figure_name(figure)
    params = dict(params or {})
    links = _live_links(name, live, params)
    try:  # a live chart draws the figure's JSON text (often kept from its slider's states: no build)
        shown = _exact_json(name, _freeze(params), ctx.theme, ctx.figure_presenter) if links else \
            _figure(name, _freeze(params), ctx.theme, ctx.figure_presenter)
    except ValueError as err:
        st.warning(f"{escape_md(str(err))}. Showing the figure at its default settings.", icon="⚠️")
        params, links = {}, {}
        shown = _figure(name, (), ctx.theme, ctx.figure_presenter)
    config = {"displaylogo": False, "toImageButtonOptions": {"format": "svg", "scale": 2, "filename": name}}
    if links:
        chart = f"{ctx.slug}.{key}.chart"
        file = _ahead_of(_exact_key(name, _freeze(params), ctx.theme, ctx.figure_presenter))
        _LIVE(data=_live_chart(name, shown, file, params, links, config, chart), key=chart,
              on_missing_change=functools.partial(_forget_missing, chart))
        ctx.after_part.append(functools.partial(_live_states, name, params, links, chart))
    else:
        st.plotly_chart(shown, theme=None, key=f"{ctx.slug}.{key}.chart", config=config,
                        height=height or "content")
    st.caption(caption)
    release_held(ctx)  # presenter mode: the numbers asked for before the figure
    if latex:
        st.latex(latex)
    _extras(name, params, tuple(code), f"{ctx.slug}.{key}")


def _live_links(name: str, live: str | Sequence[str] | Mapping[str, str],
                params: Mapping[str, object]) -> dict[str, str]:
    """Live control name -> figure parameter, for the parameters this figure is drawn with."""
    links = {live: live} if isinstance(live, str) else dict(live) if isinstance(live, Mapping) else {n: n for n in live}
    ctx = context()
    for control, param in links.items():
        if control not in ctx.params or param not in FIGURES[name].defaults():
            raise ValueError(f"live control {control!r} must be a control of this page and figure parameter "
                             f"{param!r} one of {name!r}'s parameters")
    return {control: param for control, param in links.items() if param in params}


_LIVE = st.components.v2.component("posviz_live", js=livemod.script(), isolate_styles=False)
_STATES = st.components.v2.component("posviz_live_states", js=livemod.script("states"), isolate_styles=False)


@st.cache_resource(max_entries=64, show_spinner=False)
def _live_json(name: str, fixed: tuple[tuple[str, object], ...], param: str, control: Any, theme: str,
               presenter: float, budget: int = livemod.STATE_BUDGET, keep: bool = False) -> str:
    """The scrub states of one live control as JSON text, shared across sessions. ``fixed`` holds every figure
    parameter but the live one, so releasing the slider at a new value reuses them. A figure with fewer than
    two valid values at these settings has none (``{"values": []}``): it is an ordinary chart then. With
    ``keep``, the exact figures built for the states are kept (``_EXACT``) for a release at their values. Each
    is also written where the page can fetch it (``"ahead"``: each state's file, ``livemod.ahead_file``)."""
    ahead: dict[float, str] = {}

    def exact_built(value: float, fig: go.Figure) -> None:
        text = fig.to_json()
        key = _exact_key(name, _freeze({**dict(fixed), param: value}), theme, presenter)
        if keep:
            _EXACT.put(key, text)
        if len(_AHEAD) >= AHEAD_NAMES:  # bounded: a name dropped here is only a file the page is not told of
            _AHEAD.clear()
        with contextlib.suppress(OSError):  # e.g. a read-only install: a release waits for its rerun's figure
            ahead[value] = _AHEAD[key] = livemod.ahead_file(text)

    try:
        values, states = livemod.live_states(name, dict(fixed), param, livemod.slider_values(control),
                                             theme=theme, presenter=presenter, budget=budget, keep=exact_built)
    except ValueError:
        return '"values": []'
    files = [ahead.get(v) for v in values]
    return livemod.to_json({"values": values, "ahead": files, **livemod.shared(states)})[1:-1]


class Shelf:
    """Texts kept by key, the least recently used dropped first so that together they stay within ``max_bytes``
    (characters); shared by the sessions' threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._texts: collections.OrderedDict[Any, str] = collections.OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def put(self, key: Any, text: str) -> None:
        with self._lock:
            self._size += len(text) - len(self._texts.pop(key, ""))
            self._texts[key] = text
            while self._size > self.max_bytes:
                self._size -= len(self._texts.popitem(last=False)[1])

    def get(self, key: Any) -> str | None:
        with self._lock:
            text = self._texts.get(key)
            if text is not None:
                self._texts.move_to_end(key)
            return text

    @property
    def size(self) -> int:
        """Characters kept."""
        return self._size


# the exact figures a live slider's states were built from (40 at most per slider), for a release at one of
# their values: at RoPE's largest clock (0.74 MB each) a release then skips ~80 ms of building and encoding
_EXACT = Shelf(64_000_000)
EXACT_SET_BYTES = 16_000_000  # a slider whose exact figures would take more is not kept (it would churn)


_AHEAD: dict[tuple, str] = {}  # exact key -> the file of that figure (livemod.ahead_file), if written
AHEAD_NAMES = 20_000


def _ahead_of(key: tuple) -> str | None:
    """The served file of the exact figure ``key``, if it is there (then the most recently used: kept)."""
    file = _AHEAD.get(key)
    return file if file and livemod.touch_ahead(file) else None


def _forget_missing(chart: str) -> None:
    """The live chart could not fetch the file it was told of (removed meanwhile): forget that file, so that
    the rerun this asks for sends the figure itself."""
    missing = (st.session_state.get(chart) or {}).get("missing")
    for key in [k for k, file in _AHEAD.items() if file == missing]:
        _AHEAD.pop(key, None)


def _exact_key(name: str, frozen: tuple[tuple[str, object], ...], theme: str, presenter: float) -> tuple:
    return name, repr(frozen), theme, presenter  # repr: 10000 and 10000.0 build different titles


def _exact_json(name: str, frozen: tuple[tuple[str, object], ...], theme: str, presenter: float) -> str:
    """The figure as plotly JSON text: kept from a live slider's states, else built (and cached)."""
    return _EXACT.get(_exact_key(name, frozen, theme, presenter)) or _figure_json(name, frozen, theme, presenter)


def _states_of(name: str, params: Mapping[str, object], param: str) -> tuple[tuple[tuple[str, object], ...], str]:
    """The settings a live parameter's states depend on (every figure parameter but ``param``) and their version:
    the chart uses only states built for the settings it was drawn with."""
    ctx = context()
    fixed = _freeze({k: v for k, v in params.items() if k != param})
    version = hashlib.sha1(repr((name, fixed, param, ctx.theme, ctx.figure_presenter)).encode()).hexdigest()[:16]
    return fixed, version


def _live_chart(name: str, exact: str, file: str | None, params: dict[str, object], links: dict[str, str],
                config: dict, chart: str) -> str:
    """What the live chart draws (JSON text): the exact figure now (``exact``, its JSON; or, if it is a served
    ``file``, that file's name: the page may hold it already, fetched ahead on release), and the sliders it
    follows (their states come after the part, from ``_live_states``)."""
    ctx = context()
    base = str(st.get_option("server.baseUrlPath") or "")
    lives = []
    for control, param in links.items():
        c = ctx.params[control]
        lives.append({"key": f"{ctx.slug}.{control}", "current": params[param], "log": isinstance(c, LogFloat),
                      "index": isinstance(c, LogFloat), "options": livemod.slider_values(c),
                      "version": _states_of(name, params, param)[1]})
    return (f'{{"plotly": {json.dumps(served.url(base, served.PLOTLY_JS))}, '
            f'"ahead": {json.dumps(served.url(base, "exact") + "/")}, '
            f'"config": {json.dumps({**config, "responsive": True})}, "chart": {json.dumps(chart)}, '
            + (f'"exactId": "{file.removesuffix(".json")}", "exactFile": "{file}", "exact": null, ' if file else
               f'"exactId": "{livemod.content_id(exact)}", "exact": {exact}, ')
            + f'"live": {livemod.to_json(lives)}}}')


def _live_states(name: str, params: dict[str, object], links: dict[str, str], chart: str) -> None:
    """Send the states of each live control of ``chart``, once the part is drawn: a release redraws the exact
    figure and its captions first, and only then builds the states the new settings need (the other live
    sliders' states change with the released value)."""
    ctx = context()
    exact = len(_exact_json(name, _freeze(params), ctx.theme, ctx.figure_presenter))
    budget = livemod.state_budget(exact, len(links))  # two live sliders share what the exact figure leaves
    sets = []
    for control, param in links.items():
        fixed, version = _states_of(name, params, param)
        keep = exact * min(livemod.MAX_STATES, len(livemod.slider_values(ctx.params[control]))) <= EXACT_SET_BYTES
        states = _live_json(name, fixed, param, ctx.params[control], ctx.theme, ctx.figure_presenter, budget, keep)
        sets.append(f'{{"key": {json.dumps(f"{ctx.slug}.{control}")}, "version": {json.dumps(version)}, {states}}}')
    _STATES(data=f'{{"chart": {json.dumps(chart)}, "sets": [{", ".join(sets)}]}}', key=f"{chart}.states")


@st.cache_resource(max_entries=256, show_spinner=False)
def _figure_json(name: str, frozen: tuple[tuple[str, object], ...], theme: str, presenter: float) -> str:
    """The cached figure as plotly JSON text (a live chart sends it on every rerun)."""
    return _figure(name, frozen, theme, presenter).to_json()


EXTRAS = {"code": "Show the code", "export": "Export / copy as code"}


@st.fragment
def _extras(name: str, params: dict[str, object], code: tuple[Callable, ...], key: str) -> None:
    """The source and the export buttons, drawn only when asked for (a fragment: no page rerun)."""
    choice = st.pills("more", list(EXTRAS), format_func=EXTRAS.__getitem__, key=f"{key}.extras",
                      label_visibility="collapsed")
    if choice == "code":
        for fn in (FIGURES[name].builder, *code):
            st.code(_source(fn), language="python")
    elif choice == "export":
        _export_buttons(name, params, key)


class ExportProgress:
    """Frames rendered so far by a session's animation downloads, by download button. Written by the download's
    worker thread (which may not draw anything: Streamlit ignores drawing there) and read by the export pane's
    periodic fragment, which draws a progress bar for each. Kept in the session's state, so it ends with it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, tuple[object, int, int]] = {}  # button key -> (run token, frames done, frames)

    def report(self, job: str, token: object, done: int, total: int) -> None:
        with self._lock:
            self._jobs[job] = (token, done, total)

    def finish(self, job: str, token: object) -> None:
        """Forget ``job`` unless a later press of the same button has taken it over."""
        with self._lock:
            if self._jobs.get(job, (token,))[0] is token:
                self._jobs.pop(job, None)

    def running(self, prefix: str) -> list[tuple[str, int, int]]:
        """(button key, frames done, frames) of every job whose key starts with ``prefix``."""
        with self._lock:
            return [(job, done, total) for job, (_, done, total) in self._jobs.items() if job.startswith(prefix)]


_PROGRESS_KEY = "_export.progress"


def _export_progress() -> ExportProgress:
    """The ExportProgress of the viewer's Streamlit session state (made on first use)."""
    tracker = st.session_state.get(_PROGRESS_KEY)
    if not isinstance(tracker, ExportProgress):
        tracker = st.session_state[_PROGRESS_KEY] = ExportProgress()
    return tracker


def _offered_formats(name: str) -> tuple[str, ...]:
    """The formats of ``name`` this installation can make; the others are named in one caption with how to
    enable them (the [export] extra, a browser), rather than drawn as buttons that would fail."""
    fmts = export.formats_for(name)
    lacking = export.unavailable(fmts)
    if lacking:
        camera = " The camera icon on the chart still saves an SVG from your browser." if "svg" in lacking else ""
        st.caption(escape_md(export.how_to_enable(lacking)) + camera)
    return tuple(f for f in fmts if f not in lacking)


def _export_buttons(name: str, params: dict[str, object], key: str) -> None:
    opts = export_settings()
    st.caption(f"{opts.width}×{opts.height} px ×{opts.scale:g}, {opts.theme} theme"
               + (", transparent" if opts.transparent else "") + " (change in the sidebar's Export settings)")
    fmts = _offered_formats(name)
    ctx = context()
    n_frames = len(_figure(name, _freeze(params), ctx.theme, ctx.figure_presenter).frames)  # cached: no rebuild
    refused = {}
    for fmt in fmts:
        try:
            export.check_budget(fmt, opts, n_frames)
        except ValueError as err:
            refused[fmt] = str(err)
    tracker = _export_progress()
    cols = st.columns(4)
    for i, fmt in enumerate(f for f in fmts if f not in refused):
        job = f"{key}.dl.{fmt}"
        cols[i % 4].download_button(
            FORMAT_LABELS[fmt], data=_deferred(name, params, fmt, opts, tracker, job), file_name=f"{name}.{fmt}",
            mime=export.MIME[fmt], key=job, on_click="ignore")
    for fmt, why in refused.items():
        st.caption(f"{FORMAT_LABELS[fmt]} not offered: {why}.")
    if any(f in export.RENDERED for f in fmts):
        _export_status(tracker, f"{key}.dl.")
    st.markdown("**Copy as code**")
    st.code(code_snippet(name, params), language="python")


@st.fragment(run_every=2)  # a tiny rerun of these lines alone, only while the export pane is open
def _export_status(tracker: ExportProgress, prefix: str) -> None:
    """While a download of this pane renders its frames, a progress bar per download; while any export waits or
    renders on the server, a line saying so (the download itself says nothing until its file arrives)."""
    for job, done, total in tracker.running(prefix):
        label = FORMAT_LABELS.get(job.rsplit(".", 1)[-1], "Export")
        st.progress(done / total, text=f"{label}: frame {done} of {total} rendered")
    running, waiting = export.export_status()
    if running + waiting:
        st.caption(f"Exports on this server now: {running} rendering, {waiting} waiting in line (at most "
                   f"{export.EXPORT_SLOTS} render at once; a waiting download starts by itself). If a "
                   "download says it failed, the server stayed busy: press it again in a minute.")


def _deferred(name: str, params: dict[str, object], fmt: str, opts: export.ExportOptions,
              tracker: ExportProgress | None = None, job: str = "") -> Callable[[], Any]:
    """The download's callable, run by Streamlit in a worker thread when the button is pressed: the export
    waits its turn for a render slot and stops once Streamlit would no longer deliver it. An animation reports
    each rendered frame to ``tracker`` under ``job`` (its button's key)."""
    def make() -> bytes:
        token = object()  # this press: a second press of the same button takes the job over

        def report(done: int, total: int) -> None:
            if tracker is not None:
                tracker.report(job, token, done, total)

        try:
            return export.export_figure(name, params, fmt, opts, time_limit=export.DOWNLOAD_TIME_LIMIT_S,
                                        progress=report)
        finally:
            if tracker is not None:
                tracker.finish(job, token)

    return make
