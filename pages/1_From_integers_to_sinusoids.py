import streamlit as st

st.set_page_config(page_title="posviz: From integers to sinusoids", layout="wide")
st.title("From integers to sinusoids")
st.info("This lesson is being written: it will appear here soon.")
