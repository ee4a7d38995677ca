"""posviz home page: what it is, the learning path (built from the lessons' declarations and posviz.ui.path), how
to export and share.

Streamlit runs this script for the address `/` (app.py names it in its `st.App`); pages/ beside it are the lessons.
"""

from pathlib import Path

import streamlit as st

from posviz import i18n, ui
from posviz.figures import spec_of
from posviz.i18n import N_, _, ngettext
from posviz.ui import path
from posviz.ui.course import GLOSSARY_TITLE

PAGES = Path(__file__).resolve().parent / "pages"
GLOSSARY = next(p for p in ui.reference_pages(PAGES) if p.stem.endswith("_Glossary"))


def draw_thumbnail(lesson: ui.Lesson) -> None:
    """The lesson's headline figure at thumbnail size, drawn by its figure code; until the background worker has
    built it (or where it cannot be built), the figure's one-line description instead (in another language than
    English, where that description has no translation, the lesson it belongs to)."""
    fig = path.thumbnail_if_ready(lesson.headline, ui.context().theme) if lesson.headline else None
    if fig is None:
        summary = spec_of(lesson.headline).summary if lesson.headline else lesson.title
        if i18n.language() != i18n.DEFAULT and _(summary) == summary:  # a builder's docstring: English only
            st.caption(_("Headline figure of “{lesson}”", lesson=_(lesson.title)))
        else:
            st.caption(_("Headline figure: {summary}", summary=_(summary)))
        return
    st.plotly_chart(fig, theme=None, key=f"thumb.{lesson.slug}", config={"staticPlot": True, "displayModeBar": False},
                    height=path.THUMBNAIL_HEIGHT)


def home() -> None:
    """The learning path (numbered lessons, what each needs, minutes, core or optional, a thumbnail of its
    headline figure), the glossary, then how to export and share."""
    items = ui.lessons(PAGES)
    steps = path.steps(items)
    titles = {ls.slug: f"{n}. {_(ls.title)}" for n, ls, _step in steps}
    st.header(_("The path"))
    st.markdown(ngettext("{n} lesson, about {core} minutes for the core ones ({total} with the optional case "
                         "study). Each lesson says which to take before it; symbols are explained in the glossary.",
                         "{n} lessons, about {core} minutes for the core ones ({total} with the optional case "
                         "study). Each lesson says which to take before it; symbols are explained in the glossary.",
                         len(items), core=path.total_minutes(items, optional=False),
                         total=path.total_minutes(items)))
    st.page_link(f"pages/{GLOSSARY.name}", label=f"**{_(GLOSSARY_TITLE)}**", icon="📖")
    for n, lesson, step in steps:
        with st.container(border=True):
            left, right = st.columns([1, 3], vertical_alignment="center")
            with left:
                draw_thumbnail(lesson)
            with right:
                st.page_link(f"pages/{lesson.script.name}", label=f"**{n}. {_(lesson.title)}**", icon=lesson.icon)
                st.caption(_(lesson.summary))
                st.markdown(path_line(lesson, step, titles))

    st.header(_("Export and share"))
    st.markdown("\n".join(f"- {_(item)}" for item in EXPORT_AND_SHARE))


def path_line(lesson: ui.Lesson, step: path.Step, titles: dict[str, str]) -> str:
    """The lesson's line on the path: core or optional, its minutes and parts, and the lessons to take before it
    (linked by their numbered titles)."""
    needs = _(", ").join(f"[{titles[s]}]({ui.href(s, PAGES)})" for s in step.needs) or _("nothing (start here)")
    if step.optional:
        return ngettext("**optional case study (take it or skip it)** · about {minutes} min · {n} part · before "
                        "it: {needs}",
                        "**optional case study (take it or skip it)** · about {minutes} min · {n} parts · before "
                        "it: {needs}", len(lesson.parts), minutes=step.minutes, needs=needs)
    return ngettext("**core** · about {minutes} min · {n} part · before it: {needs}",
                    "**core** · about {minutes} min · {n} parts · before it: {needs}", len(lesson.parts),
                    minutes=step.minutes, needs=needs)


EXPORT_AND_SHARE = (
    N_("**Share a view**: every control lives in the page address. Copy the link from the sidebar's "
       "*Share this view* box (or show it as a QR code) and whoever opens it sees exactly your settings."),
    N_("**Export a figure**: under each figure, *Export / copy as code* downloads PNG, SVG, PDF, "
       "self-contained HTML, CSV or JSON of the plotted numbers (GIF and MP4 for animations). Size (blog "
       "1200×675, square, slide, custom), theme and transparency are in the sidebar's *Export settings*. "
       "The camera icon on a chart saves an SVG at 2× straight from the browser."),
    N_("**Notebook**: *Copy as code* gives a snippet that rebuilds the figure with `posviz`."),
    N_("**Command line**: `python -m posviz export --list`, then e.g. "
       "`python -m posviz export sinusoidal_heatmap --d_model 64 -o pe.png`."),
    N_("**Presenter mode** (sidebar) enlarges fonts, lines and markers for projectors, folds the prose away "
       "and steps through a lesson's parts with Shift + → and Shift + ←."),
)

ui.plain_page(
    N_("posviz: how transformers encode position"), home, icon="📐",
    intro=N_("Interactive lessons on positional encodings, computed from the exact math and checked against the "
             "implementations models ship. Drag a slider and every figure redraws; every view has a link you "
             "can share and every figure can be exported for a slide or a blog post."),
)
