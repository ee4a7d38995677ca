"""posviz: `streamlit run app.py` serves the course.

The home page is Home.py and the lessons are pages/*.py; this file adds the routes that serve what live charts
load (Plotly.js from the installed plotly, exact figures from the per-user cache folder: posviz.ui.served; a
slider's states and its exact figure at a value, built on request: posviz.ui.live.routes), so that nothing is
ever written beside the app.
"""

from pathlib import Path

import streamlit as st
from streamlit import config

from posviz.ui import served
from posviz.ui.live import routes as live_routes

base = config.get_option("server.baseUrlPath") or ""
app = st.App(Path(__file__).with_name("Home.py"), routes=served.routes(base) + live_routes.routes(base))
