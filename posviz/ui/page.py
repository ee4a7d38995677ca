"""Drawing a lesson: title and intro, its parts as steps, URL-bound controls, share link, reset, presenter mode.

Every control's value lives in the query string under its name, so a copied link reproduces the view. On a
session's first run a control reads the URL (a bad value falls back to the default with a warning naming the
parameter, before Streamlit ever sees it); afterwards the value is kept in the session (also while the
control is not drawn, because the current part does not use it) and the URL is rewritten after every run to
hold exactly the non-default values.
"""

from __future__ import annotations

import io
import ipaddress
import json
import os
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from posviz import PUBLIC_URL_ENV, i18n
from posviz._speed import freeze_long_lived_heap
from posviz.i18n import N_, _
from posviz.theme import PRESENTER_SCALE, background
from posviz.ui.live.store import FOREGROUND
from posviz.ui.params import Bool, Choice, Param, parse_or_default, values_for

if TYPE_CHECKING:
    from posviz.ui.course import Lesson, Part

_CTX = "_posviz_ctx"
PRESENT = Bool("present", N_("Presenter mode"), default=False,
               help=N_("Bigger fonts, lines and markers, the intro folded away and each part's figure near the top: "
                       "for projectors. Shift + → and Shift + ← step through the parts."))
# the language switch: each language named in its own script; the default follows the browser (see _page_language)
LANGUAGE = Choice("lang", N_("Language"), default=i18n.DEFAULT, options=dict(i18n.LANGUAGES),
                  widget="segmented")
_LANGUAGE_KEY = "_global.lang"
NEXT_KEYS, PREVIOUS_KEYS = "Shift+Right", "Shift+Left"


@dataclass
class PageContext:
    """What the rest of the kit needs to know about the page being drawn."""

    slug: str
    theme: str = "light"
    presenter: bool = False
    figure_font_scale: float = 0.0  # presenter mode's font scale for figures (fits the window); 0: not presenting
    params: dict[str, Param] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    part: Part | None = None  # the part being drawn: ``controls`` draws only the controls it declares
    share_slot: Any = None
    navigation: Any = None  # the sidebar's top, where posviz.ui.run lists the pages
    sidebar_controls: Any = None
    sidebar_used: bool = False
    held: list[Callable[[], None]] | None = None  # presenter mode: numbers drawn after the part's first figure


class Values(dict):
    """Control values by name, also readable as attributes (``v.d``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no control named {name!r} here; controls: {', '.join(self)}") from None


def context() -> PageContext:
    """The current page's context (a bare one outside a lesson)."""
    ctx = st.session_state.get(_CTX)
    if ctx is None:
        ctx = PageContext(slug="page")
        st.session_state[_CTX] = ctx
    return ctx


def _key(slug: str, name: str) -> str:
    return f"{slug}.{name}"


# --- a lesson page -----------------------------------------------------------------------------------------
def draw_lesson(lesson: Lesson) -> None:
    """Draw ``lesson``: title and intro, then (in a fragment) the part choice, the part's controls and the
    part, its step buttons and the share link; then the sidebar tools. ``posviz.ui.run.run_lesson`` adds the
    export settings after them."""
    ctx = start_page(lesson.slug, lesson.title, icon=lesson.icon, intro=lesson.intro)
    _lesson_fragment(lesson)
    _draw_tools(ctx)


def start_page(slug: str, title: str, *, icon: str, intro: str) -> PageContext:
    """Configure the page, create its context and draw its title and intro (folded in presenter mode)."""
    freeze_long_lived_heap()
    warning = _start_language()
    title, intro = _(title), _(intro) if intro else intro
    st.set_page_config(page_title=f"{title} · posviz", page_icon=icon, layout="wide")
    ctx = PageContext(slug=slug, navigation=st.sidebar.container(key="posviz_navigation"))
    st.session_state[_CTX] = ctx
    ctx.theme = "dark" if getattr(st.context.theme, "type", None) == "dark" else "light"
    if warning:
        st.warning(warning, icon="⚠️")
    ctx.presenter = bool(_value(PRESENT, PRESENT, _key("_global", "present"), st.sidebar))
    if ctx.presenter:
        ctx.figure_font_scale = _figure_scale(slug)
        _presenter_css()
    st.title(title)
    if intro and ctx.presenter:
        with st.expander(_("About posviz") if slug == "home" else _("About this lesson")):
            st.markdown(intro)
    elif intro:
        st.markdown(intro)
    return ctx


def browser_language() -> str:
    """The language the browser asks for: Chinese for any ``zh`` locale (``st.context.locale``), else English."""
    return "zh" if (st.context.locale or "").lower().startswith("zh") else i18n.DEFAULT


def _page_language() -> tuple[str, bool]:
    """The language this run shows, and whether the URL asked for one posviz does not speak: the switch's (kept in
    the session), else the URL's ``lang``, else the browser's (:func:`browser_language`)."""
    for key in (_LANGUAGE_KEY, _shadow(_LANGUAGE_KEY)):
        if st.session_state.get(key) in i18n.LANGUAGES:
            return st.session_state[key], False
    value, warning = parse_or_default(replace(LANGUAGE, default=browser_language()), st.query_params.get("lang"))
    return value, warning is not None


def _start_language() -> str | None:
    """Set this run's language (:func:`_page_language`), keep it for the switch and the page's fragments, and put
    it in the URL unless it is what the address without ``lang`` opens in; returns the warning about a bad URL
    value (in the language chosen), if any."""
    raw = st.query_params.get(LANGUAGE.name)
    lang, bad = _page_language()
    i18n.set_language(lang)
    st.session_state[_LANGUAGE_KEY] = st.session_state[_shadow(_LANGUAGE_KEY)] = lang
    if lang == i18n.DEFAULT and browser_language() == i18n.DEFAULT:
        if LANGUAGE.name in st.query_params:
            del st.query_params[LANGUAGE.name]
    elif raw != lang:
        st.query_params[LANGUAGE.name] = lang
    return parse_or_default(replace(LANGUAGE, default=lang), raw)[1] if bad else None


def keep_language() -> None:
    """Show a fragment's rerun in the page's language: a fragment reruns without the page's start (and may run in
    a new thread), so each of the kit's fragments and dialogs calls this first."""
    lang = st.session_state.get(_shadow(_LANGUAGE_KEY))
    i18n.set_language(lang if lang in i18n.LANGUAGES else i18n.DEFAULT)


_SCREEN_KEY = "_posviz.screen"
_SCREEN = st.components.v2.component(
    "posviz_screen", js=(Path(__file__).with_name("screen.js")).read_text(encoding="utf-8"), isolate_styles=False)
CHART_WIDTH = 820  # px: the width a chart gets in a 1280 px window, which figures are laid out for
SCALE_STEPS = (1.0, 1.25, PRESENTER_SCALE)


def _figure_scale(slug: str) -> float:
    """Presenter mode's font scale for figures: ×1.5 (PRESENTER_SCALE) where the window gives a chart at least
    1.5 × CHART_WIDTH px, stepping down to ×1 in a narrower one (screen.js measures it; ×1.5 until it has).
    screen.js also takes the step keys (PageDown/PageUp, as a clicker sends them, and Shift + arrows) before a
    focused slider can, and presses the part's Next / Previous button."""
    asked = (st.session_state.get(_SCREEN_KEY) or {}).get("scale")
    used = float(asked) if asked in SCALE_STEPS else PRESENTER_SCALE
    steps = round(1 / (SCALE_STEPS[1] - SCALE_STEPS[0]))  # scales per unit: 4 for steps of 0.25
    buttons = {side: ".st-key-" + _key(slug, f"part.{side}").replace(".", "-") + " button"
               for side in ("next", "previous")}
    _SCREEN(data=json.dumps({"chart": CHART_WIDTH, "steps": steps, "max": PRESENTER_SCALE, "used": used,
                             **buttons}),
            key=_SCREEN_KEY, default={"scale": None}, on_scale_change=lambda: None)
    return used


def _presenter_css() -> None:
    """Presenter mode: less padding above the lesson, a smaller title, larger prose."""
    st.html("<style>.block-container { padding-top: 1.2rem !important; }"
            "h1 { font-size: 1.9rem !important; padding: 0.2rem 0 !important; }"
            "h2 { font-size: 1.5rem !important; padding: 0.2rem 0 !important; }"
            "[data-testid=stMain] .stMarkdown p, [data-testid=stMain] .stMarkdown li, "
            "[data-testid=stMain] [data-testid=stCaptionContainer] { font-size: 1.3rem !important; "
            "line-height: 1.5; }</style>")


@st.fragment
def _lesson_fragment(lesson: Lesson) -> None:
    with FOREGROUND.running():  # live states built ahead of need wait for the learner's run
        _draw_lesson(lesson)


def _draw_lesson(lesson: Lesson) -> None:
    keep_language()
    ctx = _begin_controls()
    part = _choose_part(lesson)
    values = _lesson_values(lesson, part)
    ctx.part = part
    st.header(_(part.title or part.label))
    part.draw(_PartValues(values, part))
    release_held(ctx)  # a part without a figure: its numbers at its end
    _step_buttons(lesson, part)
    _end_controls(ctx)


def _begin_controls() -> PageContext:
    ctx = context()
    ctx.params = {PRESENT.name: PRESENT}  # reserved name; its toggle is drawn with the tools
    ctx.values = {}
    ctx.part = None
    ctx.held = [] if ctx.presenter else None
    _sync_url(PRESENT, ctx.presenter)
    ctx.share_slot = None  # the share link is drawn once, after every control has synced the URL
    ctx.sidebar_controls = st.sidebar.container()
    ctx.sidebar_used = False
    return ctx


def hold_until_figure(draw: Callable[[], None]) -> bool:
    """In presenter mode, before the part's first figure: keep ``draw`` (numbers) to run just after that figure,
    so the figure starts near the top of the screen; returns whether it was kept (else draw it now)."""
    held = context().held
    if held is None:
        return False
    held.append(draw)
    return True


def release_held(ctx: PageContext) -> None:
    """Draw what ``hold_until_figure`` kept, and from now on draw in place (called after the first figure)."""
    held, ctx.held = ctx.held or [], None
    for draw in held:
        draw()


def _end_controls(ctx: PageContext) -> None:
    with st.sidebar:
        if ctx.sidebar_used:  # a rule between the lesson's controls and the share link
            st.divider()
        ctx.share_slot = st.container()
        _draw_share_link(ctx)
    freeze_long_lived_heap()


class _PartValues(Values):
    """The values a part declared in ``uses``; reading another control is a mistake in the declaration."""

    def __init__(self, values: dict[str, Any], part: Part) -> None:
        super().__init__({k: values[k] for k in part.uses})
        self._part = part.key

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"part {self._part!r} reads control {name!r}: add it to the part's uses=") from None


def _part_param(lesson: Lesson, presenter: bool = False) -> Choice:
    """The part chooser: a radio row, or in presenter mode a one-line select so that the figure starts near the
    top of the screen (the step buttons and Shift + arrows still step through the parts)."""
    first = next(iter(lesson.parts))
    aliases = {alias: p.key for p in lesson.parts.values() for alias in p.aliases}
    return Choice("part", N_("lesson part"), default=first, options={k: p.label for k, p in lesson.parts.items()},
                  widget="select" if presenter else "radio", aliases=aliases)


def _choose_part(lesson: Lesson) -> Part:
    param = _part_param(lesson, context().presenter)
    key = _key(lesson.slug, "part")
    return lesson.parts[_draw(param, param, key, st.container())]


def _lesson_values(lesson: Lesson, part: Part) -> dict[str, Any]:
    """Every lesson control's value (``values_for``: bounds resolved in declaration order); the controls the part
    uses drawn in the sidebar, those of a ``group`` in a folded section of that name."""
    ctx = context()
    ctx.sidebar_used = bool(part.uses)
    groups: dict[str, Any] = {}  # a folded sidebar section per group, made when its first control is drawn

    def draw(control: Param, resolved: Param) -> Any:
        slot = ctx.sidebar_controls if control.name in part.uses else None
        if slot is not None and control.group:
            if control.group not in groups:
                groups[control.group] = slot.expander(_(control.group))
            slot = groups[control.group]
        return _draw(control, resolved, _key(lesson.slug, control.name), slot)

    ctx.values = values_for(lesson.controls, draw)
    return ctx.values


def _step_buttons(lesson: Lesson, part: Part) -> None:
    """"← Previous" and "Next →" at the end of a part, the current step between them; the address follows. In
    presenter mode they are a bar that stays at the bottom of the screen while the part scrolls (with the QR
    code of this view), so the lecturer never scrolls to reach them."""
    keys = list(lesson.parts)
    i = keys.index(part.key)
    key = _key(lesson.slug, "part")
    presenter = context().presenter
    bar = st.container(key=f"{lesson.slug}-steps")
    if presenter:
        st.html(f"<style>{_STEP_BAR_CSS % (f'{lesson.slug}-steps', background(context().theme))}</style>")
    left, middle, right = bar.columns(3, vertical_alignment="center")
    if i > 0:
        previous = lesson.parts[keys[i - 1]]
        left.button(f"← {_(previous.label)}", key=f"{key}.previous", on_click=_go_to_part,
                    args=(key, previous.key), shortcut=PREVIOUS_KEYS,
                    help=_("Previous part ({keys})", keys=PREVIOUS_KEYS))
    with middle, st.container(horizontal=True, horizontal_alignment="center", vertical_alignment="center"):
        st.markdown(_("step {step} / {steps}", step=i + 1, steps=len(keys)))
        if presenter and st.button(_("QR code"), key=f"{key}.qr", help=_("A large QR code of this view for the class")):
            _qr_dialog(share_link())
    if i + 1 < len(keys):
        following = lesson.parts[keys[i + 1]]
        with right, st.container(horizontal=True, horizontal_alignment="right"):
            st.button(f"{_(following.label)} →", key=f"{key}.next", on_click=_go_to_part, args=(key, following.key),
                      shortcut=NEXT_KEYS, help=_("Next part ({keys})", keys=NEXT_KEYS), type="primary")


# presenter mode: the step bar sticks to the bottom of the screen, over the part's end, on the page's background
# (the sticky box is the bar's layout wrapper: the bar itself is as tall as its wrapper and could not move)
_STEP_BAR_CSS = ("[data-testid=stLayoutWrapper]:has(> .st-key-%s) { position: sticky; bottom: 0; z-index: 990; "
                 "padding: 0.4rem 0; background: %s; border-top: 1px solid rgba(128, 128, 128, 0.35); }")


def _go_to_part(key: str, part: str) -> None:
    st.session_state[key] = part
    st.session_state[_shadow(key)] = part


# --- binding one control to the URL and the session ---------------------------------------------------------
def _shadow(key: str) -> str:
    """Session key of a control's value that survives runs in which its widget is not drawn (Streamlit drops
    the state of a widget that a run does not draw)."""
    return f"_value.{key}"


def _value(declared: Param, resolved: Param, key: str, slot: Any) -> Any:
    """The control's value: the widget's if drawn before, else the kept value, else the URL's (a bad URL value
    falls back to the default with a warning naming the parameter); moved into the resolved bounds."""
    if key in st.session_state:
        value = declared.from_widget(st.session_state[key])
    elif _shadow(key) in st.session_state:
        value = st.session_state[_shadow(key)]
    else:
        value, warning = parse_or_default(declared, st.query_params.get(declared.name))
        if warning:
            st.warning(warning, icon="⚠️")
    value = resolved.clamp(value)
    if slot is not None:
        st.session_state[key] = resolved.to_widget(value)
    st.session_state[_shadow(key)] = value
    return value


def _draw(declared: Param, resolved: Param, key: str, slot: Any) -> Any:
    """Bind a control, draw its widget in ``slot`` (None: not drawn this run), sync the URL; return its value."""
    ctx = context()
    if declared.name in ctx.params:
        raise ValueError(f"control name {declared.name!r} used twice on this page")
    ctx.params[declared.name] = resolved
    value = _value(declared, resolved, key, slot)
    if slot is not None:
        resolved.render(slot, key)
    _sync_url(declared, value)
    return value


def controls(*names: str | Param, where: Any = "sidebar", columns: int = 3) -> Values:
    """Draw URL-bound widgets for the part's own controls and return their values by name.

    The part declares them (``@lesson.part(..., controls=...)``); this only says where they go: ``names`` picks
    some (by name or as the declared ``Param``), none means every declared control not drawn yet. ``where``:
    "sidebar", "main" (laid out in ``columns`` columns; the sidebar in presenter mode, so that the part's figure
    comes first) or a Streamlit container.
    """
    ctx = context()
    params = _declared(ctx, names)
    if where == "main" and ctx.presenter:  # with the other controls: the part's figure comes first
        where = "sidebar"
    sidebar = ctx.sidebar_controls if ctx.sidebar_controls is not None else st.sidebar
    container = sidebar if where == "sidebar" else st.container() if where == "main" else where
    ctx.sidebar_used = ctx.sidebar_used or where == "sidebar"
    slots = iter(list(_slots(container, len(params), columns if where == "main" else 1)))

    def draw(param: Param, resolved: Param) -> Any:
        return _draw(param, resolved, _key(ctx.slug, param.name), next(slots))

    shown = values_for(params, draw, earlier=ctx.values)
    ctx.values.update(shown)  # the page's control values, where a live link that sets several settings reads them
    return Values(shown)


def _declared(ctx: PageContext, names: tuple[str | Param, ...]) -> list[Param]:
    """The current part's declared controls named by ``names`` (all not yet drawn if none); a control that is
    not declared, or is declared differently, is a ValueError."""
    if ctx.part is None:
        raise ValueError("ui.controls draws a part's declared controls: call it inside a lesson part")
    if not names:
        return [c for c in ctx.part.controls if c.name not in ctx.params]
    found = []
    for name in names:
        declared = ctx.part.control(name if isinstance(name, str) else name.name)
        if isinstance(name, Param) and name != declared:
            raise ValueError(f"part {ctx.part.key!r}: control {name.name!r} differs from its declaration")
        found.append(declared)
    return found


def _slots(container: Any, n: int, columns: int) -> Iterator[Any]:
    if columns <= 1:
        yield from (container for _slot in range(n))
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


# --- the sidebar tools: presenter mode, reset, share link (with a QR code) ------------------------------------
def _draw_tools(ctx: PageContext) -> None:
    """Presenter mode and reset; the export settings that follow them are posviz.ui.panel's, which builds on this
    module, so posviz.ui.run draws them."""
    with st.sidebar:
        st.divider()
        LANGUAGE.render(st.sidebar, _LANGUAGE_KEY)
        PRESENT.render(st.sidebar, _key("_global", "present"))
        st.button(_("Reset to defaults"), on_click=_reset, args=(ctx.slug,), key=f"{ctx.slug}._reset",
                  help=_("Put every control of this page back to its default value."))
    freeze_long_lived_heap()  # the switch's widget may import a module of Streamlit's on its first draw


def _reset(slug: str) -> None:
    """Every control of the page back to its default, those of parts not shown now included."""
    ctx = st.session_state.get(_CTX)
    if ctx is None:
        return
    drawn = {name: param for name, param in ctx.params.items() if name not in (PRESENT.name, "part")}
    for name, param in drawn.items():
        st.session_state[_key(slug, name)] = param.to_widget(param.default)
        st.session_state[_shadow(_key(slug, name))] = param.default
    prefix = _shadow(f"{slug}.")
    for key in [k for k in st.session_state if str(k).startswith(prefix)]:
        name = key[len(prefix):]
        if name not in drawn and name != "part":  # a control of another part: forget it and its URL value
            del st.session_state[key]
            st.session_state.pop(_key(slug, name), None)
            if name in st.query_params:
                del st.query_params[name]


def share_query(ctx: PageContext | None = None) -> str:
    """The query string (without '?') that restores every non-default control of the page, for a student: without
    presenter mode, which is the lecturer's; with ``lang`` when the page is not in English."""
    ctx = ctx or context()
    pairs = [(name, st.query_params[name]) for name in ctx.params if name in st.query_params and name != PRESENT.name]
    if i18n.language() != i18n.DEFAULT:
        pairs.append((LANGUAGE.name, i18n.language()))
    return urllib.parse.urlencode(pairs)


def _page_address() -> str:
    """This page's address without the query string, as a student should open it.

    The server's public address when it was given one (``posviz app --public-url`` or Streamlit's
    ``browser.serverAddress``), else the address of the lecturer's browser. ``st.context.url`` trims whichever
    page name the browser's address ends with before appending the current page's: on
    ".../Gaussian_kernel_RoPE" it trims "RoPE" and returns ".../Gaussian_kernel_/Gaussian_kernel_RoPE". Its last
    path segment is still the current page, so the address is rebuilt from the host, the server's base path and
    that segment.
    """
    url = (st.context.url or "").split("?")[0]
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return student_address(url, base, _public_root())


def _public_root() -> str | None:
    """The root address the server was told to give students, if any."""
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if public:
        return public
    from streamlit import config

    if config.is_manually_set("browser.serverAddress"):
        port = st.get_option("browser.serverPort") or st.get_option("server.port")
        base = str(st.get_option("server.baseUrlPath") or "").strip("/")
        return f"http://{st.get_option('browser.serverAddress')}:{port}" + (f"/{base}" if base else "")
    return None


def student_address(browser_url: str, base_path: str, public: str | None = None) -> str:
    """The address of the page the browser shows at ``browser_url`` (Streamlit's ``st.context.url``, query
    removed), under the server's ``public`` root when it has one (``http://host:port[/path]``), else on the
    browser's host with Streamlit's ``base_path`` (server.baseUrlPath)."""
    parts = urllib.parse.urlsplit(browser_url)
    if not parts.netloc:
        return browser_url
    path = parts.path.strip("/")
    page = path.rsplit("/", 1)[-1] if path and path != base_path else ""
    if public:  # the root students open, base path included (a proxy may serve the app under its own)
        return public.rstrip("/") + (f"/{page}" if page else "")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(filter(None, (base_path, page))),
                                    "", ""))


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine only (localhost, 127.0.0.0/8, ::1): no phone in the room can open it."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def share_link(ctx: PageContext | None = None) -> str:
    """The full address that restores this view."""
    base = _page_address()
    query = share_query(ctx)
    return f"{base}?{query}" if query else base


def _draw_share_link(ctx: PageContext) -> None:
    if ctx.share_slot is None:
        return
    link = share_link(ctx) or _("(this page's address)")
    with ctx.share_slot:
        st.markdown(_("**Share this view**"))
        st.code(link, language=None, wrap_lines=True)
        st.caption(_("Copy the link (icon at the right): it restores every control of this page."))
        if st.button(_("Show as QR code"), key=f"{ctx.slug}._qr", help=_("A large QR code of this link for the class")):
            _qr_dialog(link)


def _qr_dialog(link: str) -> None:
    """The QR code of ``link`` in a dialog titled in the page's language."""
    st.dialog(_("Open this view on your device"), width="large")(_qr_dialog_body)(link)


def _qr_dialog_body(link: str) -> None:
    keep_language()
    if is_loopback(link):
        st.warning(_("This link points at this computer only (localhost): phones in the room cannot open it. Start "
                     "the app with `posviz app --public-url http://ADDRESS:8501` (ADDRESS: this computer's address "
                     "on the room's network, and `--server.address 0.0.0.0` to let the room in), or serve the class "
                     "as docs/DEPLOY.md shows."), icon="⚠️")
    _left, middle, _right = st.columns(3)  # the middle third: centred, and the link below still on a 1280×800 screen
    middle.image(qr_png(link), width="stretch")
    st.code(link, language=None, wrap_lines=True)


def qr_png(text: str, scale: int = 10) -> bytes:
    """A QR code of ``text`` as PNG bytes (segno, error correction M, quiet zone of 4 modules)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m", micro=False).save(buf, kind="png", scale=scale, border=4)
    return buf.getvalue()


# --- home page and pages without parts ------------------------------------------------------------------------
def draw_plain_page(title: str, body: Callable[[], None], *, icon: str = "📐", intro: str = "") -> None:
    """A page that is not a lesson (the home page): title, intro, ``body``, the sidebar tools
    (``posviz.ui.run.plain_page`` adds the export settings)."""
    ctx = start_page("home", title, icon=icon, intro=intro)
    _begin_controls()
    body()
    release_held(ctx)
    _end_controls(ctx)
    _draw_tools(ctx)
