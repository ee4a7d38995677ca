import streamlit as st

st.set_page_config(page_title="posviz: Gaussian kernel RoPE", layout="wide")
st.title("Gaussian kernel RoPE")
st.info("This lesson is being written: it will appear here soon.")
