"""Glossary and notation: every symbol the lessons use, the convention it follows and the clash it avoids.

Not a lesson (it declares no ``ui.Lesson``): the home page links it and parts link its headings with ``ui.term``.
"""

import streamlit as st

from posviz import rope, ui
from posviz.figures.rope import rope_frequency_ladder
from posviz.ui.glossary import TERMS

D, BASE = 64, 10000.0


def glossary() -> None:
    """One heading per term, anchored for links, then the frequency ladder that shows i, b, θ_i and λ_i at once."""
    st.markdown(" · ".join(f"[{t.label}](#{t.anchor})" for t in TERMS))
    for t in TERMS:
        st.subheader(t.heading, anchor=t.anchor)
        st.markdown(t.text)
    theta, lam = rope.inv_freq(D, BASE), rope.wavelengths(D, BASE)
    st.subheader("The notation in one figure", anchor="figure")
    ui.figure_panel(
        rope_frequency_ladder, dict(dim=D, base=BASE), key="ladder",
        caption=f"d = {D}, b = {BASE:,.0f}: pair i = 0 has θ₀ = {theta[0]:g} rad/token and λ₀ = {lam[0]:.2f} "
                f"tokens; the last pair, i = {theta.size - 1}, has θ = {theta[-1]:.3g} and λ = {lam[-1]:,.0f} "
                "tokens. The base b is one number; the θᵢ are derived from it.",
        latex=r"\theta_i = b^{-2i/d},\quad \lambda_i = \frac{2\pi}{\theta_i},\quad i = 0,\dots,d/2-1,"
              r"\quad \Delta = m - n",
        code=[rope.inv_freq, rope.wavelengths])


ui.plain_page(
    "Glossary and notation", glossary, icon="📖",
    intro="The symbols the lessons use and the conventions behind them, where papers and code disagree: the pair "
          "index against the imaginary unit, the sign of Δ, the base against the frequencies, L against L′, and "
          "which indices count from 0.",
)
