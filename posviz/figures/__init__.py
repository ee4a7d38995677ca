"""Plotly figure builders: arrays from the math layer -> ``go.Figure``. No streamlit here.

Import a builder directly (``from posviz.figures import sinusoidal_heatmap``) and call ``.show()``
in a notebook, or look one up by name in ``FIGURES`` (what the CLI does); ``spec_of(builder)`` gives a
builder's registered name, parameters and summary. Every public module of this package is imported
here (found with ``pkgutil``, so a new lesson's figures module needs no edit of this file) and its
``__all__`` re-exported.
"""

import importlib
import pkgutil

from posviz.figures._registry import FIGURES, FigureSpec, build, figure, spec_of

__all__ = ["FIGURES", "FigureSpec", "build", "figure", "spec_of"]



def _discover() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name in getattr(module, "__all__", ()):
            globals()[name] = getattr(module, name)
            __all__.append(name)


_discover()
