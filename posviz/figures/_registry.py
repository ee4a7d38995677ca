"""The figure registry: every figure posviz can draw, by name.

A figure builder is a plain function with keyword-only parameters of primitive types (int, float,
str, bool, or tuple[int, ...]) that all have defaults, returning a ``plotly.graph_objects.Figure``
without a template (``posviz.theme.style`` applies one). Registering it with ``@figure`` makes it
available to the app's figure panel, to ``python -m posviz export`` and to notebooks alike, and lets
both list its parameters from the signature.

Figures are passed around by reference: the registered function carries its spec
(``spec_of(sinusoidal_heatmap).name == "sinusoidal_heatmap"``), so a page hands the builder itself to the
figure panel (a typo fails at import), while the name stays for the command line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go


@dataclass(frozen=True)
class FigureSpec:
    name: str
    builder: Callable[..., go.Figure]
    animated: bool
    summary: str

    def defaults(self) -> dict[str, object]:
        """Parameter names and defaults, in signature order."""
        sig = inspect.signature(self.builder)
        return {p.name: p.default for p in sig.parameters.values()}

    def annotations(self) -> dict[str, str]:
        """Parameter names and their annotation text (``int``, ``float``, ``str``, ``bool``...)."""
        sig = inspect.signature(self.builder)
        return {p.name: str(p.annotation) for p in sig.parameters.values()}


FIGURES: dict[str, FigureSpec] = {}


def figure(name: str, *, animated: bool = False) -> Callable[[Callable[..., go.Figure]], Callable[..., go.Figure]]:
    """Register a figure builder under ``name`` (decorator)."""

    def register(fn: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
        if name in FIGURES:
            raise RuntimeError(f"figure {name!r} registered twice")
        for p in inspect.signature(fn).parameters.values():
            if p.kind is not p.KEYWORD_ONLY or p.default is p.empty:
                raise TypeError(f"{name}: parameter {p.name} must be keyword-only with a default")
        summary = (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        FIGURES[name] = fn.figure_spec = FigureSpec(name, fn, animated, summary)  # type: ignore[attr-defined]
        return fn

    return register


def spec_of(figure_ref: str | Callable[..., go.Figure]) -> FigureSpec:
    """The spec of a registered figure, given its builder function or its name (ValueError otherwise)."""
    if callable(figure_ref):
        spec = getattr(figure_ref, "figure_spec", None)
        if not isinstance(spec, FigureSpec) or FIGURES.get(spec.name) is not spec:
            raise ValueError(f"{getattr(figure_ref, '__name__', figure_ref)!r} is not a registered figure builder "
                             "(decorate it with @figure)")
        return spec
    if figure_ref not in FIGURES:
        raise ValueError(f"unknown figure {figure_ref!r}; known: {', '.join(sorted(FIGURES))}")
    return FIGURES[figure_ref]


def build(figure_ref: str | Callable[..., go.Figure], **params: object) -> go.Figure:
    """Build a registered figure (its builder or its name) with ``params`` (unknown names raise ValueError)."""
    spec = spec_of(figure_ref)
    name = spec.name
    unknown = set(params) - set(spec.defaults())
    if unknown:
        raise ValueError(f"figure {name!r} has no parameter {sorted(unknown)[0]!r}; "
                         f"parameters: {', '.join(spec.defaults())}")
    return spec.builder(**params)
