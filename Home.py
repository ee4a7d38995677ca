"""posviz home page: what it is, the lesson map (built from the lessons' declarations), how to export and share.

Streamlit runs this script for the address `/` (app.py names it in its `st.App`); pages/ beside it are the lessons.
"""

from pathlib import Path

import streamlit as st

from posviz import ui

PAGES = Path(__file__).resolve().parent / "pages"


def home() -> None:
    """The lessons in course order, then how to export and share."""
    st.header("Lessons")
    for lesson in ui.lessons(PAGES):
        st.page_link(f"pages/{lesson.script.name}", label=f"**{lesson.title}**", icon=lesson.icon)
        st.caption(lesson.summary)

    st.header("Export and share")
    st.markdown(
        "- **Share a view**: every control lives in the page address. Copy the link from the sidebar's "
        "*Share this view* box (or show it as a QR code) and whoever opens it sees exactly your settings.\n"
        "- **Export a figure**: under each figure, *Export / copy as code* downloads PNG, SVG, PDF, "
        "self-contained HTML, CSV or JSON of the plotted numbers (GIF and MP4 for animations). Size (blog "
        "1200×675, square, slide, custom), theme and transparency are in the sidebar's *Export settings*. "
        "The camera icon on a chart saves an SVG at 2× straight from the browser.\n"
        "- **Notebook**: *Copy as code* gives a snippet that rebuilds the figure with `posviz`.\n"
        "- **Command line**: `python -m posviz export --list`, then e.g. "
        "`python -m posviz export sinusoidal_heatmap --d_model 64 -o pe.png`.\n"
        "- **Presenter mode** (sidebar) enlarges fonts, lines and markers for projectors, folds the prose away "
        "and steps through a lesson's parts with Shift + → and Shift + ←."
    )


ui.plain_page(
    "posviz: how transformers encode position", home, icon="📐",
    intro="Interactive lessons on positional encodings, computed from the exact math and checked against the "
          "implementations models ship. Drag a slider and every figure redraws; every view has a link you "
          "can share and every figure can be exported for a slide or a blog post.",
)
