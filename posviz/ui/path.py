"""The learning path the home page draws: for each lesson, the lessons to take before it, its minutes, whether it is
core or optional, and a thumbnail of its headline figure built by the figure code itself.

The path data lives in one table, :data:`PATH`, keyed by lesson slug; a lesson may also declare ``needs=``,
``minutes=`` or ``optional=`` itself (``posviz.ui.course.Lesson``), which then wins. Nothing here imports
streamlit: the home page draws what :func:`steps` and :func:`thumbnail` return.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import plotly.graph_objects as go

from posviz import i18n
from posviz.ui.course import Lesson


@dataclass(frozen=True)
class Step:
    """One lesson on the path: the slugs of the lessons to take first, its minutes, and whether it is optional."""

    needs: tuple[str, ...] = ()
    minutes: int = 20
    optional: bool = False


# minutes: about 4 a part, more where a part asks the class to predict before dragging
PATH: dict[str, Step] = {
    "intro": Step((), 30),
    "sinusoidal": Step(("intro",), 20),
    "rope": Step(("sinusoidal",), 55),
    "context_extension": Step(("rope",), 45),
    "2d": Step(("sinusoidal", "rope"), 40),
    "bias": Step(("intro", "rope"), 35),
    # one source article's kernel, not a published model's: a case study to take or skip
    "gaussian_kernel_rope": Step(("rope", "bias"), 20, optional=True),
    "cope": Step(("intro", "bias"), 30),
    "long_context": Step(("context_extension",), 25),
    "real_models": Step(("sinusoidal", "rope", "bias"), 30),
}

THUMBNAIL_HEIGHT = 150  # px: a row of the path, not a figure to read


def step(lesson: Lesson) -> Step:
    """The path data of ``lesson``: what it declares itself, else :data:`PATH`'s row, else the defaults."""
    row = PATH.get(lesson.slug, Step())
    return Step(needs=row.needs if lesson.needs is None else tuple(lesson.needs),
                minutes=row.minutes if lesson.minutes is None else int(lesson.minutes),
                optional=row.optional if lesson.optional is None else bool(lesson.optional))


def steps(items: Iterable[Lesson]) -> list[tuple[int, Lesson, Step]]:
    """(number on the path, lesson, its step) in course order; a ``needs`` naming no lesson of the course raises
    a ValueError naming it (a path must not point at nothing), as does a lesson needing a later one."""
    items = list(items)
    position = {ls.slug: n for n, ls in enumerate(items, start=1)}
    out = []
    for n, lesson in enumerate(items, start=1):
        data = step(lesson)
        for slug in data.needs:
            if slug not in position:
                raise ValueError(f"lesson {lesson.slug!r} needs {slug!r}, which is not a lesson; "
                                 f"lessons: {', '.join(position)}")
            if position[slug] >= n:
                raise ValueError(f"lesson {lesson.slug!r} needs {slug!r}, which comes after it on the path")
        out.append((n, lesson, data))
    return out


def total_minutes(items: Iterable[Lesson], *, optional: bool = True) -> int:
    """Minutes of the whole path (``optional=False``: the core lessons only)."""
    return sum(s.minutes for _, _, s in steps(items) if optional or not s.optional)


def _build_thumbnail(name: str, theme: str) -> go.Figure:
    from posviz.figures import build
    from posviz.theme import style

    fig = style(build(name), theme=theme)
    fig.frames = ()
    fig.update_layout(title=None, sliders=(), updatemenus=(), showlegend=False,
                      height=THUMBNAIL_HEIGHT, width=None, autosize=True, margin=dict(l=4, r=4, t=4, b=4))
    fig.layout.annotations = ()  # words at thumbnail size are noise: the lesson's title sits beside it
    for shape in fig.layout.shapes:
        shape.label = {}
    fig.update_xaxes(showticklabels=False, title=None)
    fig.update_yaxes(showticklabels=False, title=None)
    for trace in fig.data:  # a colour bar or hover text is for a figure one reads, not a thumbnail
        if "showscale" in trace:
            trace.showscale = False
        if "marker" in trace and getattr(trace.marker, "showscale", None):
            trace.marker.showscale = False
        trace.hoverinfo = "skip"
        if isinstance(getattr(trace, "mode", None), str) and "text" in trace.mode:
            trace.mode = trace.mode.replace("+text", "").replace("text+", "").replace("text", "markers")
        if getattr(trace, "texttemplate", None):
            trace.texttemplate = None
    fig.update_layout(coloraxis_showscale=False)
    return fig


def thumbnail(name: str, theme: str = "light") -> go.Figure:
    """A thumbnail of the registered figure ``name``: the figure its builder draws at its defaults (the same
    traces and numbers), without titles, legends, colour bars, tick labels or animation, THUMBNAIL_HEIGHT px tall.
    Built once per process, theme and language (here, waiting for it); each call returns a copy."""
    key = (name, theme, i18n.language())
    with _LOCK:
        known = _BUILT.get(key)
    if known is None:
        known = _build_thumbnail(name, theme)
        with _LOCK:
            _BUILT[key] = known
    return copy.deepcopy(known)


def thumbnail_if_ready(name: str, theme: str = "light") -> go.Figure | None:
    """The thumbnail of ``name`` if it is built, else None, and then it is built in the background (one worker
    for the process): the home page never waits for a lesson's figure, it shows text until the next visit.
    A figure that fails to build stays None (the page shows text; ``thumbnail`` raises the error)."""
    key = (name, theme, i18n.language())
    with _LOCK:
        if key in _BUILT:
            known = _BUILT[key]
            return None if known is _FAILED else copy.deepcopy(known)
        if key in _PENDING:
            return None
        _PENDING.add(key)
    _WORKER.submit(i18n.in_language(_build_in_background), name, theme)  # the worker starts in English
    return None


def _build_in_background(name: str, theme: str) -> None:
    key = (name, theme, i18n.language())
    try:
        fig: object = _build_thumbnail(name, theme)
    except Exception:  # a thumbnail is decoration: its lesson's page reports the error itself
        fig = _FAILED
    with _LOCK:
        _BUILT[key] = fig
        _PENDING.discard(key)


_LOCK = threading.Lock()
_BUILT: dict[tuple[str, str, str], object] = {}  # (figure, theme, language) -> thumbnail
_PENDING: set[tuple[str, str, str]] = set()
_FAILED = object()
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="posviz-thumbnails")
