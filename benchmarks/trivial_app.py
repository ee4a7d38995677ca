"""The reference page of the benchmarks: one slider, one 10-point chart. The lesson pages are measured against it."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

k = st.slider("k", 1, 100, 50)
x = np.arange(10)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(x * k / 10))), theme=None)
