"""posviz home page: what it is, the learning path (built from the lessons' declarations and posviz.ui.path), how
to export and share.

Streamlit runs this script for the address `/` (app.py names it in its `st.App`); pages/ beside it are the lessons.
"""

from pathlib import Path

import streamlit as st

from posviz import ui
from posviz.figures import spec_of
from posviz.ui import path

PAGES = Path(__file__).resolve().parent / "pages"
GLOSSARY = next(p for p in ui.reference_pages(PAGES) if p.stem.endswith("_Glossary"))


def draw_thumbnail(lesson: ui.Lesson) -> None:
    """The lesson's headline figure at thumbnail size, drawn by its figure code; until the background worker has
    built it (or where it cannot be built), the figure's one-line description instead."""
    fig = path.thumbnail_if_ready(lesson.headline, ui.context().theme) if lesson.headline else None
    if fig is None:
        summary = spec_of(lesson.headline).summary if lesson.headline else lesson.title
        st.caption(f"Headline figure: {summary}")
        return
    st.plotly_chart(fig, theme=None, key=f"thumb.{lesson.slug}", config={"staticPlot": True, "displayModeBar": False},
                    height=path.THUMBNAIL_HEIGHT)


def home() -> None:
    """The learning path (numbered lessons, what each needs, minutes, core or optional, a thumbnail of its
    headline figure), the glossary, then how to export and share."""
    items = ui.lessons(PAGES)
    steps = path.steps(items)
    titles = {ls.slug: f"{n}. {ls.title}" for n, ls, _ in steps}
    st.header("The path")
    st.markdown(f"{len(items)} lessons, about {path.total_minutes(items, optional=False)} minutes for the core "
                f"ones ({path.total_minutes(items)} with the optional case study). Each lesson says which to take "
                "before it; symbols are explained in the glossary.")
    st.page_link(f"pages/{GLOSSARY.name}", label="**Glossary and notation**", icon="📖")
    for n, lesson, step in steps:
        with st.container(border=True):
            left, right = st.columns([1, 3], vertical_alignment="center")
            with left:
                draw_thumbnail(lesson)
            with right:
                st.page_link(f"pages/{lesson.script.name}", label=f"**{n}. {lesson.title}**", icon=lesson.icon)
                st.caption(lesson.summary)
                needs = ", ".join(f"[{titles[s]}]({ui.href(s, PAGES)})" for s in step.needs) or "nothing (start here)"
                kind = "optional case study (take it or skip it)" if step.optional else "core"
                st.markdown(f"**{kind}** · about {step.minutes} min · {len(lesson.parts)} parts · before it: {needs}")

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
