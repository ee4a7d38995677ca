"""The figure panel: chart, caption, formula, "Show the code", exports and "Copy as code".

Figures are built by name from the registry (``posviz.figures.FIGURES``) and kept per settings, theme and
presenter font scale in the process's one store, bounded in bytes (``posviz.ui.live.store``); a live figure is
drawn by ``posviz.ui.live``. Downloads are generated only when clicked (deferred callables), so a rerun never
pays for an export.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from posviz import export, i18n
from posviz.figures import FIGURES
from posviz.figures._registry import spec_of
from posviz.i18n import N_, _
from posviz.ui.callouts import escape_md
from posviz.ui.live import component
from posviz.ui.live.figures import built_figure, cached_call, source_of
from posviz.ui.page import context, keep_language, release_held

_EXPORT_KEY = "_export"
FORMAT_LABELS = {"png": "PNG", "svg": "SVG", "pdf": "PDF", "html": "HTML", "csv": "CSV", "json": "JSON",
                 "gif": "GIF", "mp4": "MP4"}


def cached(fn: Callable) -> Callable:
    """Cache a page's computation per arguments, shared by every session: each caller gets its own copy of the
    result (kept pickled), and all such results of a process share one byte budget (``posviz.ui.live.store``).
    The one cache a page uses; figures are cached by ``figure_panel`` itself."""
    @functools.wraps(fn)
    def call(*args: object, **kwargs: object) -> object:
        return cached_call(fn, args, kwargs)

    return call


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
    with st.sidebar.expander(_("Export settings")):
        presets = {k: f"{_(PRESET_LABELS.get(k, k))} {w}×{h}" for k, (w, h) in export.SIZE_PRESETS.items()}
        presets["custom"] = _("custom")
        preset = st.selectbox(_("size"), list(presets), format_func=presets.__getitem__, key="_export.preset")
        if preset == "custom":
            width = int(st.number_input(_("width (px)"), 100, 4000, 1200, 10, key="_export.w"))
            height = int(st.number_input(_("height (px)"), 100, 4000, 675, 10, key="_export.h"))
        else:
            width, height = export.SIZE_PRESETS[preset]
        scale = st.select_slider(_("scale"), [1.0, 2.0, 3.0], value=2.0, key="_export.scale")
        theme = st.selectbox(_("theme"), list(THEME_LABELS), format_func=lambda t: _(THEME_LABELS[t]),
                             key="_export.theme")
        transparent = st.toggle(_("transparent background"), key="_export.transparent")
        font_needed = missing_cjk_font()
        if font_needed:
            st.caption(font_needed)
    st.session_state[_EXPORT_KEY] = export.ExportOptions(width=width, height=height, scale=scale,
                                                         theme=theme, transparent=transparent,
                                                         presenter=context().presenter)


THEME_LABELS = {"light": N_("light"), "dark": N_("dark"), "blog": N_("blog")}
PRESET_LABELS = {"blog": N_("blog"), "square": N_("square"), "slide": N_("slide")}


def missing_cjk_font() -> str | None:
    """In Chinese, when no font with Chinese glyphs is installed (``fc-list :lang=zh``), a sentence naming the font
    exports need; else None (the figures' font list names it: ``posviz.theme.CJK_FONT``)."""
    from posviz.theme import cjk_font_installed

    if i18n.language() != "zh" or cjk_font_installed():
        return None
    return _cjk_font_sentence()


def _cjk_font_sentence() -> str:
    from posviz.theme import CJK_FONT

    return _("Exported figures need a font with Chinese characters, {font}: install it with `apt-get install "
             "fonts-noto-cjk` (or any font `fc-list :lang=zh` lists); without one, Chinese text exports as "
             "empty boxes.", font=CJK_FONT)


def figure_name(figure: Callable[..., go.Figure]) -> str:
    """The registry name of a figure builder (the name the command line and the exports use)."""
    if not callable(figure):
        raise TypeError(f"pass the figure builder itself (e.g. figure_panel(rope_clock, ...)), not {figure!r}")
    return spec_of(figure).name


def figure_panel(figure: Callable[..., go.Figure], params: Mapping[str, object] | None = None, *,
                 caption: str, latex: str | None = None, code: Sequence[Callable] = (), key: str,
                 height: int | None = None, live: Live = ()) -> None:
    """Draw a figure (its builder, e.g. ``rope_clock``) with its caption, formula, source, exports and notebook
    snippet. The figure is shared by every session with the same settings, so it is never handed to the page.

    ``live`` names slider controls the chart follows while they are dragged (``live="base"``; a mapping
    ``{"control": "figure parameter"}`` when the names differ, ``{"P": AtMost("n_positions", 128)}`` where the page
    draws at most so much, ``{"dim_a": Sets(settings, **given)}`` where the slider sets several settings at once):
    see ``posviz.ui.live``. Every slider that changes the figure's settings is listed
    (tests/test_every_slider_live.py checks it)."""
    ctx = context()
    name = figure_name(figure)
    params = dict(params or {})
    links = _live_links(name, live, params)
    chart = f"{ctx.slug}.{key}.chart"
    config = {"displaylogo": False, "toImageButtonOptions": {"format": "svg", "scale": 2, "filename": name}}
    try:  # a live chart draws the figure's JSON (often kept from its slider's states: no build)
        if links:
            live_chart = component.LiveChart(name, params, links, ctx.params, ctx.slug, ctx.theme,
                                             ctx.figure_font_scale, chart, live_caps(live), live_sets(live),
                                             dict(ctx.values))
            component.draw_chart(live_chart, config)
        else:
            shown = built_figure(name, params, ctx.theme, ctx.figure_font_scale)
    except ValueError as err:
        st.warning(_("{error}. Showing the figure at its default settings.", error=escape_md(str(err))), icon="⚠️")
        params, links = {}, {}
        shown = built_figure(name, {}, ctx.theme, ctx.figure_font_scale)
    if not links:
        st.plotly_chart(shown, theme=None, key=chart, config=config, height=height or "content")
    st.caption(_(caption))
    release_held(ctx)  # presenter mode: the numbers asked for before the figure
    if latex:
        st.latex(latex)
    _extras(name, params, tuple(code), f"{ctx.slug}.{key}")


Live = str | Sequence[str] | Mapping[str, "str | component.AtMost | component.Sets"]


def live_links(live: Live) -> dict[str, str]:
    """``figure_panel``'s ``live`` as live control name -> figure parameter (a slider that sets several settings
    (``Sets``) is named by its own name)."""
    links = {live: live} if isinstance(live, str) else dict(live) if isinstance(live, Mapping) else {n: n for n in live}
    return {c: p.param if isinstance(p, component.AtMost) else c if isinstance(p, component.Sets) else p
            for c, p in links.items()}


def live_sets(live: Live) -> dict[str, component.Sets]:
    """Live control name -> the settings it sets, for the sliders that set several at once (``Sets``)."""
    return {c: p for c, p in live.items() if isinstance(p, component.Sets)} if isinstance(live, Mapping) else {}


def live_caps(live: Live) -> dict[str, float]:
    """Live control name -> the largest value the figure is drawn at, for the links that say (``AtMost``)."""
    return {c: p.at_most for c, p in live.items() if isinstance(p, component.AtMost)} \
        if isinstance(live, Mapping) else {}


def _live_links(name: str, live: Live, params: Mapping[str, object]) -> dict[str, str]:
    """Live control name -> figure parameter, for the parameters this figure is drawn with."""
    links, derived = live_links(live), live_sets(live)
    ctx = context()
    drawn, followed = FIGURES[name].defaults(), {}
    for control, param in links.items():
        sets = set(derived[control].at(ctx.values[control]) if control in derived else {param: None})
        if control not in ctx.params or not sets <= set(drawn):
            raise ValueError(f"live control {control!r} must be a control of this page, and {sorted(sets)} "
                             f"parameters of {name!r}")
        if sets <= set(params):
            followed[control] = param
    return followed


EXTRAS = {"code": N_("Show the code"), "export": N_("Export / copy as code")}


@st.fragment
def _extras(name: str, params: dict[str, object], code: tuple[Callable, ...], key: str) -> None:
    """The source and the export buttons, drawn only when asked for (a fragment: no page rerun)."""
    keep_language()
    choice = st.pills(_("more"), list(EXTRAS), format_func=lambda c: _(EXTRAS[c]), key=f"{key}.extras",
                      label_visibility="collapsed")
    if choice == "code":
        for fn in (FIGURES[name].builder, *code):
            st.code(source_of(fn), language="python")
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
        camera = " " + _("The camera icon on the chart still saves an SVG from your browser.") \
            if "svg" in lacking else ""
        st.caption(escape_md(export.how_to_enable(lacking)) + camera)
    return tuple(f for f in fmts if f not in lacking)


def _export_buttons(name: str, params: dict[str, object], key: str) -> None:
    opts = export_settings()
    size = dict(width=opts.width, height=opts.height, scale=opts.scale, theme=_(THEME_LABELS[opts.theme]))
    st.caption(_("{width}×{height} px ×{scale:g}, {theme} theme, transparent (change in the sidebar's Export "
                 "settings)", **size) if opts.transparent else
               _("{width}×{height} px ×{scale:g}, {theme} theme (change in the sidebar's Export settings)", **size))
    font_needed = missing_cjk_font()
    if font_needed:
        st.caption(font_needed)
    fmts = _offered_formats(name)
    ctx = context()
    n_frames = len(built_figure(name, params, ctx.theme, ctx.figure_font_scale).frames)  # kept: no rebuild
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
            FORMAT_LABELS[fmt], data=i18n.in_language(_deferred(name, params, fmt, opts, tracker, job)),
            file_name=f"{name}.{fmt}",
            mime=export.MIME[fmt], key=job, on_click="ignore")
    for fmt, why in refused.items():
        st.caption(_("{format} not offered: {why}.", format=FORMAT_LABELS[fmt], why=why))
    if any(f in export.RENDERED for f in fmts):
        _export_status(tracker, f"{key}.dl.")
    st.markdown(_("**Copy as code**"))
    st.code(code_snippet(name, params), language="python")


@st.fragment(run_every=2)  # a tiny rerun of these lines alone, only while the export pane is open
def _export_status(tracker: ExportProgress, prefix: str) -> None:
    """While a download of this pane renders its frames, a progress bar per download; while any export waits or
    renders on the server, a line saying so (the download itself says nothing until its file arrives)."""
    keep_language()
    for job, done, total in tracker.running(prefix):
        label = FORMAT_LABELS.get(job.rsplit(".", 1)[-1], _("Export"))
        st.progress(done / total, text=_("{format}: frame {done} of {total} rendered", format=label, done=done,
                                         total=total))
    running, waiting = export.export_status()
    if running + waiting:
        st.caption(_("Exports on this server now: {running} rendering, {waiting} waiting in line (at most {slots} "
                     "render at once; a waiting download starts by itself). If a download says it failed, the "
                     "server stayed busy: press it again in a minute.", running=running, waiting=waiting,
                     slots=export.EXPORT_SLOTS))


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
