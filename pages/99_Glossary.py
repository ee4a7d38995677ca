"""Glossary and notation: every symbol the lessons use, the convention it follows and the clash it avoids.

Not a lesson (it declares no ``ui.Lesson``): the home page links it and parts link its headings with ``ui.term``.
"""

import streamlit as st

from posviz import rope, ui
from posviz.figures.rope import rope_frequency_ladder
from posviz.i18n import N_, _
from posviz.ui.course import GLOSSARY_TITLE
from posviz.ui.glossary import TERMS

D, BASE = 64, 10000.0


def glossary() -> None:
    """One heading per term, anchored for links, then the frequency ladder that shows i, b, θ_i and λ_i at once."""
    st.markdown(" · ".join(f"[{_(t.label)}](#{t.anchor})" for t in TERMS))
    for t in TERMS:
        st.subheader(_(t.heading), anchor=t.anchor)
        st.markdown(_(t.text))
    theta, lam = rope.inv_freq(D, BASE), rope.wavelengths(D, BASE)
    st.subheader(_("The notation in one figure"), anchor="figure")
    ui.figure_panel(
        rope_frequency_ladder, dict(dim=D, base=BASE), key="ladder",
        caption=_("d = {d}, b = {base:,.0f}: pair i = 0 has θ₀ = {theta_first:g} rad/token and λ₀ = "
                  "{wavelength_first:.2f} tokens; the last pair, i = {last}, has θ = {theta_last:.3g} and λ = "
                  "{wavelength_last:,.0f} tokens. The base b is one number; the θᵢ are derived from it.",
                  d=D, base=BASE, theta_first=theta[0], wavelength_first=lam[0], last=theta.size - 1,
                  theta_last=theta[-1], wavelength_last=lam[-1]),
        latex=r"\theta_i = b^{-2i/d},\quad \lambda_i = \frac{2\pi}{\theta_i},\quad i = 0,\dots,d/2-1,"
              r"\quad \Delta = m - n",
        code=[rope.inv_freq, rope.wavelengths])


ui.plain_page(
    GLOSSARY_TITLE, glossary, icon="📖",
    intro=N_("The symbols the lessons use and the conventions behind them, where papers and code disagree: the "
             "pair index against the imaginary unit, the sign of Δ, the base against the frequencies, L against "
             "L′, and which indices count from 0."),
)
