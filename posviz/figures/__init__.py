"""Plotly figure builders: arrays from the math layer -> ``go.Figure``. No streamlit here.

Import a builder directly (``from posviz.figures import sinusoidal_heatmap``) and call ``.show()``
in a notebook, or look one up by name in ``FIGURES`` (what the app and the CLI do).
"""

from posviz.figures._registry import FIGURES, FigureSpec, build, figure
from posviz.figures.cope import *  # noqa: F403
from posviz.figures.gaussian import *  # noqa: F403
from posviz.figures.intro import *  # noqa: F403
from posviz.figures.rope import *  # noqa: F403
from posviz.figures.scaling import *  # noqa: F403
from posviz.figures.sinusoidal import *  # noqa: F403
from posviz.figures.twod import *  # noqa: F403

__all__ = ["FIGURES", "FigureSpec", "build", "figure"]
__all__ += [spec.builder.__name__ for spec in FIGURES.values()]
