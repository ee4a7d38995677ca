"""Figures as the panel and the live charts keep them, all through the process's one store (``store.STORE``).

A figure is named by its registry name, its settings, the theme and the presenter font scale
(``figure_key``). ``built_figure`` is the styled ``plotly`` figure (the panel draws it with ``st.plotly_chart``
and reads its frame count for exports); ``figure_json`` is the same figure as plain JSON (dicts, lists,
strings, numbers: arrays as plotly's base64 ``bdata``), which a live chart's payload carries and serialises
once per rerun. The exact figures a live slider's states are built from are kept as JSON too
(``keep_figure_json``), so letting go at one of those values draws without a build, and written as files the
app serves, so the chart can fetch the figure at that value before the rerun brings it. Every entry is sized in
bytes when it is kept (``store.figure_bytes``; a JSON figure by its text), and the store drops the least
recently used beyond each budget.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from _plotly_utils.basevalidators import is_homogeneous_array
from _plotly_utils.utils import to_typed_array_spec
from plotly.io.json import to_json_plotly

from posviz import i18n
from posviz.figures import build
from posviz.theme import style
from posviz.ui.live.store import STORE, FigureStore, build_slot, content_id, figure_bytes

FigureKey = tuple[str, str, str, float, str]
JSON_OVERHEAD = 1.25  # a parsed JSON figure's objects take about this many bytes per byte of its text


@dataclass(frozen=True)
class JsonFigure:
    """A figure as plain JSON, the hash of its text (``id``: the chart redraws only a figure it does not hold)
    and the served file it was also written to, if any (``store.ServedFigureFiles``)."""

    id: str
    figure: dict
    text_bytes: int
    file: str | None = None


def settings_key(params: Mapping[str, object]) -> str:
    """The settings as text that tells them apart: sorted, lists as tuples, and by ``repr`` (``10000`` and
    ``10000.0`` build different titles)."""
    return repr(tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items())))


def figure_key(name: str, params: Mapping[str, object], theme: str, font_scale: float) -> FigureKey:
    """What names one drawn figure: registry name, settings, theme, presenter font scale (0: not presenting) and
    the language of its text."""
    return name, settings_key(params), theme, float(font_scale), i18n.language()


def built_figure(name: str, params: Mapping[str, object], theme: str, font_scale: float,
                 store: FigureStore = STORE) -> go.Figure:
    """The figure built and styled, shared by every session (read-only: never handed to a page)."""
    def make() -> go.Figure:
        with build_slot():
            return style(build(name, **dict(params)), theme, font_scale)

    return store.figures.get_or_make(figure_key(name, params, theme, font_scale), make, figure_bytes)


# plotly sends the arrays under these keys as they are, never as typed arrays (``convert_to_base64``)
_AS_THEY_ARE = frozenset(("geojson", "layer", "layers", "range"))


def _typed(value: object) -> object:
    """``value`` with every array held by a dict as plotly's typed-array JSON, in new containers: what plotly's
    ``to_dict`` gives, without its deep copy of every array first."""
    if isinstance(value, dict):
        return {k: v if k in _AS_THEY_ARE else _typed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):  # items that are arrays stay arrays (JSON lists), as plotly sends them
        return [_typed(v) if isinstance(v, (dict, list, tuple)) else v for v in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    return to_typed_array_spec(value) if is_homogeneous_array(value) else value


def plain_figure(fig: go.Figure) -> dict:
    """``fig.to_dict()`` (data, layout and frames as plain dicts and lists, arrays as typed-array JSON), built in
    one pass: plotly's own deep-copies every array before encoding it, which took most of a large figure's time.
    tests/test_live_figures.py checks that every figure gives what plotly gives."""
    out = {"data": [{k: v for k, v in _typed(t).items() if k != "uid"} for t in fig._data],
           "layout": _typed(fig._layout)}
    frames = [_typed(f._props) for f in fig.frames]
    return {**out, "frames": frames} if frames else out


def figure_text(fig: go.Figure) -> str:
    """``fig`` as the JSON text ``fig.to_json()`` gives (``plain_figure``, then plotly's own encoder)."""
    return to_json_plotly(plain_figure(fig))


def as_json(fig: go.Figure, file: Callable[[str], str | None] | None = None) -> JsonFigure:
    """``fig`` as a ``JsonFigure``; ``file``, if given, writes its text where the app serves it."""
    text = figure_text(fig)
    return JsonFigure(content_id(text), json.loads(text), len(text), file(text) if file else None)


def _bytes(figure: JsonFigure) -> int:
    return int(figure.text_bytes * JSON_OVERHEAD)


def keep_figure_json(key: FigureKey, fig: go.Figure, keep: bool = True, store: FigureStore = STORE) -> str | None:
    """Write ``fig`` (built for ``key``) where the app serves it and, with ``keep``, keep it as JSON for a live
    chart that draws it later; the served file's name, or None where none could be written."""
    figure = as_json(fig, store.files.write)
    if keep:
        store.figure_json.put(key, figure, _bytes(figure))
    return figure.file


def figure_json(name: str, params: Mapping[str, object], theme: str, font_scale: float,
                store: FigureStore = STORE) -> JsonFigure:
    """The figure as plain JSON: kept from a live slider's states, else made from the built figure."""
    return store.figure_json.get_or_make(figure_key(name, params, theme, font_scale),
                                         lambda: as_json(built_figure(name, params, theme, font_scale, store)),
                                         _bytes)


def json_bytes(value: object) -> int:
    """The bytes a plain JSON value kept in memory takes, estimated from its text."""
    return int(len(json.dumps(value, separators=(",", ":"))) * JSON_OVERHEAD)


def source_of(fn: Callable, store: FigureStore = STORE) -> str:
    """The source of ``fn`` for "Show the code" (kept: read once per function)."""
    def read() -> str:
        try:
            return inspect.getsource(inspect.unwrap(fn))
        except (OSError, TypeError):
            return f"# source of {getattr(fn, '__name__', fn)} is not available"

    key = (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)))
    return store.sources.get_or_make(key, read, lambda text: len(text) + 50)


def cached_call(fn: Callable, args: tuple, kwargs: dict[str, Any], store: FigureStore = STORE) -> Any:
    """``fn(*args, **kwargs)``, its result kept pickled (each caller gets its own copy, as ``st.cache_data``
    gives) under the function's code and the arguments."""
    code = getattr(fn, "__code__", None)
    identity = hashlib.sha1(code.co_filename.encode() + code.co_code + repr(code.co_consts).encode()).hexdigest() \
        if code else ""
    try:
        arguments = pickle.dumps((args, sorted(kwargs.items())), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):  # arguments that cannot be named: not kept
        return fn(*args, **kwargs)
    key = (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)), identity, arguments,
           i18n.language())  # a computation may return text (a caption's sentence)
    blob = store.computations.get_or_make(key, lambda: pickle.dumps(fn(*args, **kwargs),
                                                                    protocol=pickle.HIGHEST_PROTOCOL), len)
    return pickle.loads(blob)
