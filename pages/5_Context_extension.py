import streamlit as st

st.set_page_config(page_title="posviz: Context extension", layout="wide")
st.title("Context extension")
st.info("This lesson is being written: it will appear here soon.")
