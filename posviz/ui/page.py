"""Page scaffolding: title and intro, URL-bound controls, share link, reset, presenter mode.

Every control's value lives in the query string under its name, so a copied link reproduces the view.
On a session's first run a control reads the URL (bad values fall back to the default with a warning
naming the parameter, before Streamlit ever sees them); afterwards the widget owns the value and the
URL is rewritten after every run to hold exactly the non-default values.
"""

from __future__ import annotations

import gc
import re
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from posviz.ui.params import Bool, Choice, Param, parse_or_default

_CTX = "_posviz_ctx"
_PRESENT_KEY = "_global.present"
PRESENT = Bool("present", "Presenter mode", default=False,
               help="Bigger fonts, thicker lines and larger markers, for projectors.")


@dataclass
class PageContext:
    """What the rest of the kit needs to know about the page being drawn."""

    slug: str
    theme: str = "light"
    presenter: bool = False
    params: dict[str, Param] = field(default_factory=dict)
    share_slot: Any = None
    sidebar_controls: Any = None
    sidebar_used: bool = False


class Values(dict):
    """Control values by name, also readable as attributes (``p.d``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def context() -> PageContext:
    """The current page's context (a bare one if ``setup_page`` was not called)."""
    ctx = st.session_state.get(_CTX)
    if ctx is None:
        ctx = PageContext(slug="page")
        st.session_state[_CTX] = ctx
    return ctx


def _key(slug: str, name: str) -> str:
    return f"{slug}.{name}"


_frozen_at_modules = 0


def freeze_long_lived_heap() -> bool:
    """Put every object alive now into the garbage collector's permanent generation; True if it did.

    Streamlit runs a full ``gc.collect(2)`` after every script run (option ``runner.postScriptGC``). With
    numpy, plotly and Streamlit loaded that walks a few hundred thousand objects, about 40 ms of every
    slider move. Objects frozen here (modules, classes, cached figures) are skipped by those collections,
    so they only walk what the latest runs created. It freezes again only when new modules were imported
    since the last time, a handful of times per server process, which bounds what can stay frozen after
    it becomes garbage.
    """
    global _frozen_at_modules
    if len(sys.modules) == _frozen_at_modules:
        return False
    gc.collect()
    gc.freeze()
    _frozen_at_modules = len(sys.modules)
    return True


def setup_page(title: str, *, icon: str = "📐", intro: str = "") -> PageContext:
    """Configure the page and draw its title and intro; return its context.

    The rest of the page (controls, lesson parts, sidebar tools) is drawn by :func:`lesson`.
    """
    freeze_long_lived_heap()
    st.set_page_config(page_title=f"{title} · posviz", page_icon=icon, layout="wide")
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") or "page"
    ctx = PageContext(slug=slug)
    st.session_state[_CTX] = ctx
    theme = getattr(st.context.theme, "type", None)
    ctx.theme = "dark" if theme == "dark" else "light"
    st.title(title)
    if intro:
        st.markdown(intro)
    return ctx


def lesson(body: Callable[[], None]) -> None:
    """Draw the page's controls and lesson parts with ``body`` in a fragment, then the sidebar tools.

    A control change reruns only the fragment: the title, intro, page navigation and sidebar tools
    (presenter mode, reset, export settings) are neither rebuilt nor re-sent, and what the browser
    redraws is the lesson's controls and its one part. The share link, which changes with every control,
    is drawn at the end of the fragment, below the lesson's sidebar controls; the tools follow it.
    """
    _lesson_fragment(body)
    _draw_tools(context())


@st.fragment
def _lesson_fragment(body: Callable[[], None]) -> None:
    ctx = context()
    ctx.params = {PRESENT.name: PRESENT}  # reserved name; its toggle is drawn with the tools
    ctx.presenter = bool(_bind(PRESENT, _PRESENT_KEY))
    _sync_url(PRESENT, ctx.presenter)
    ctx.share_slot = None  # the share link is drawn once, after every control has synced the URL
    ctx.sidebar_controls = st.sidebar.container()
    ctx.sidebar_used = False
    body()
    with st.sidebar:
        if ctx.sidebar_used:  # a rule between the lesson's controls and the share link
            st.divider()
        ctx.share_slot = st.container()
        _draw_share_link(ctx)
    # A lesson may import a module on its first run (CoPE imports torch when it first computes): freeze
    # again, or every later slider move, a fragment rerun that never reaches setup_page, walks it in gc.
    freeze_long_lived_heap()


def _draw_tools(ctx: PageContext) -> None:
    with st.sidebar:
        st.divider()
        PRESENT.render(st.sidebar, _PRESENT_KEY)
        st.button("Reset to defaults", on_click=_reset, args=(ctx.slug,), key=f"{ctx.slug}._reset",
                  help="Put every control of this page back to its default value.")
    from posviz.ui.panel import draw_export_settings  # panel imports this module

    draw_export_settings()
    if ctx.presenter:  # prose and captions larger; metrics and widgets keep their size (they would truncate)
        st.html("<style>.stMarkdown p, .stMarkdown li, [data-testid=stCaptionContainer] "
                "{ font-size: 1.3rem !important; line-height: 1.5; }</style>")


def _reset(slug: str) -> None:
    ctx = st.session_state.get(_CTX)
    if ctx is None:
        return
    for name, param in ctx.params.items():
        if name != PRESENT.name:
            st.session_state[_key(slug, name)] = param.to_widget(param.default)


def controls(*params: Param, where: Any = "sidebar", columns: int = 3) -> Values:
    """Draw URL-bound widgets for ``params`` and return their validated values by name."""
    ctx = context()
    sidebar = ctx.sidebar_controls if ctx.sidebar_controls is not None else st.sidebar
    container = sidebar if where == "sidebar" else st.container() if where == "main" else where
    ctx.sidebar_used = ctx.sidebar_used or where == "sidebar"
    slots = _slots(container, len(params), columns if where == "main" else 1)
    values = Values()
    for param, slot in zip(params, slots, strict=True):
        if param.name in ctx.params:
            raise ValueError(f"control name {param.name!r} used twice on this page")
        ctx.params[param.name] = param
        key = _key(ctx.slug, param.name)
        _bind(param, key)
        param.render(slot, key)
        values[param.name] = param.from_widget(st.session_state[key])
        _sync_url(param, values[param.name])
    _draw_share_link(ctx)
    return values


def choose_part(options: dict[str, str], default: str, *, help: str | None = None) -> str:
    """The URL-bound "lesson part" radio in the main area, with the note on why parts are drawn one at a
    time; returns the chosen part's key. One part at a time keeps every slider move to one chart."""
    part = controls(Choice("part", "lesson part", default=default, options=options, widget="radio", help=help),
                    where="main", columns=1)["part"]
    st.caption("One part is drawn at a time so that every slider move redraws quickly; the sidebar's controls "
               "apply to all parts.")
    return part


def _bind(param: Param, key: str) -> Any:
    """The control's value; on a session's first run it comes from the URL (a bad value falls back to the
    default, with a warning naming the parameter)."""
    if key not in st.session_state:
        value, warning = parse_or_default(param, st.query_params.get(param.name))
        if warning:
            st.warning(warning, icon="⚠️")
        st.session_state[key] = param.to_widget(value)
    return param.from_widget(st.session_state[key])


def _slots(container: Any, n: int, columns: int) -> Iterator[Any]:
    if columns <= 1:
        yield from (container for _ in range(n))
        return
    cols = container.columns(min(columns, n) or 1)
    yield from (cols[i % len(cols)] for i in range(n))


def _sync_url(param: Param, value: Any) -> None:
    if value == param.default:
        if param.name in st.query_params:
            del st.query_params[param.name]
    else:
        text = param.to_url(value)
        if st.query_params.get(param.name) != text:
            st.query_params[param.name] = text


def share_query(ctx: PageContext | None = None) -> str:
    """The query string (without '?') that restores every non-default control of the page."""
    ctx = ctx or context()
    pairs = [(name, st.query_params[name]) for name in ctx.params if name in st.query_params]
    return urllib.parse.urlencode(pairs)


def _page_address() -> str:
    """This page's address without the query string.

    ``st.context.url`` trims whichever page name the browser's address ends with before appending the
    current page's: on ".../Gaussian_kernel_RoPE" it trims "RoPE" and returns
    ".../Gaussian_kernel_/Gaussian_kernel_RoPE". Its last path segment is still the current page, so the
    address is rebuilt from the host, the server's base path and that segment.
    """
    url = (st.context.url or "").split("?")[0]
    parts = urllib.parse.urlsplit(url)
    if not parts.netloc:
        return url
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    path = parts.path.strip("/")
    page = path.rsplit("/", 1)[-1] if path and path != base else ""
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(filter(None, (base, page))), "", ""))


def _draw_share_link(ctx: PageContext) -> None:
    if ctx.share_slot is None:
        return
    base = _page_address()
    query = share_query(ctx)
    link = f"{base}?{query}" if query else base or "(this page's address)"
    with ctx.share_slot:
        st.markdown("**Share this view**")
        st.code(link, language=None, wrap_lines=True)
        st.caption("Copy the link (icon at the right): it restores every control of this page.")
