import streamlit as st

st.set_page_config(page_title="posviz: RoPE", layout="wide")
st.title("RoPE")
st.info("This lesson is being written: it will appear here soon.")
