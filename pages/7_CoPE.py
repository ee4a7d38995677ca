import streamlit as st

st.set_page_config(page_title="posviz: CoPE", layout="wide")
st.title("CoPE")
st.info("This lesson is being written: it will appear here soon.")
