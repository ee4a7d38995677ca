"""posviz: the math, figures and UI kit behind the positional-encoding lessons.

Layers (imports point one way only): ``posviz.<topic>`` math (numpy/torch) -> ``posviz.figures``
(plotly) -> ``posviz.ui`` (the only streamlit importer) -> ``pages/``. Importing ``posviz`` itself is
cheap: no torch, no plotly, no streamlit.
"""

__version__ = "0.1.0"
