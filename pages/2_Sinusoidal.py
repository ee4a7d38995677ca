import streamlit as st

st.set_page_config(page_title="posviz: Sinusoidal", layout="wide")
st.title("Sinusoidal")
st.info("This lesson is being written: it will appear here soon.")
