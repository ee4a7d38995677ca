"""posviz: the math, figures and UI kit behind the positional-encoding lessons.

Layers (imports point one way only): ``posviz.<topic>`` math (numpy/torch) -> ``posviz.figures``
(plotly) -> ``posviz.ui`` (the only streamlit importer) -> ``pages/``. Importing ``posviz`` itself is
cheap: no torch, no plotly, no streamlit.
"""

__version__ = "0.1.0"

# The address students open (share links, QR codes): ``posviz app --public-url`` (posviz.cli) sets this variable
# for the app's pages (posviz.ui.page) to read. It lives here, below both, so that the UI kit needs nothing of the
# command that starts it.
PUBLIC_URL_ENV = "POSVIZ_PUBLIC_URL"
