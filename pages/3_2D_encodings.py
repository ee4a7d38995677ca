import streamlit as st

st.set_page_config(page_title="posviz: 2D encodings", layout="wide")
st.title("2D encodings")
st.info("This lesson is being written: it will appear here soon.")
