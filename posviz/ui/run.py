"""A whole page as Streamlit runs it: a lesson (``run_lesson``, what ``Lesson.run`` calls) or a page without parts
(``plain_page``, the home page). posviz.ui.page draws the page and its sidebar tools; the export settings after
them are posviz.ui.panel's. This module sits above both because panel builds on page: page then needs nothing of
panel's, and no import of the kit goes in a circle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from posviz import i18n
from posviz.i18n import _
from posviz.ui.page import context, draw_lesson, draw_plain_page, keep_language
from posviz.ui.panel import draw_export_settings
from posviz.ui.questions import Question, draw_questions, lesson_questions

if TYPE_CHECKING:
    from posviz.ui.course import Lesson


def run_lesson(lesson: Lesson) -> None:
    """Draw ``lesson`` (``posviz.ui.page.draw_lesson``), its check-yourself questions under the parts (its own
    ``questions=``, else ``posviz.ui.questions``' table), then the export settings at the foot of the sidebar."""
    draw_lesson(lesson)
    _draw_navigation()
    _questions(lesson.slug, lesson_questions(lesson))
    draw_export_settings()


@st.fragment
def _questions(slug: str, items: tuple[Question, ...]) -> None:
    """The lesson's questions in a fragment: picking an answer redraws them alone, not the lesson's figures."""
    keep_language()
    draw_questions(slug, items)


def plain_page(title: str, body: Callable[[], None], *, icon: str = "📐", intro: str = "") -> None:
    """A page that is not a lesson (the home page): title, intro, ``body``, the sidebar tools and the export
    settings."""
    draw_plain_page(title, body, icon=icon, intro=intro)
    _draw_navigation()
    draw_export_settings()


def _draw_navigation() -> None:
    """The sidebar's list of pages, at its top, in the student's language and course order: home, the lessons,
    the glossary (Streamlit's own list, hidden by .streamlit/config.toml, shows file names in English). Each link
    keeps the language. A page run on its own (AppTest of one page file) has no other pages to link: none drawn."""
    from streamlit.errors import StreamlitPageNotFoundError

    from posviz.ui.course import GLOSSARY_PATH, GLOSSARY_TITLE, lessons, reference_pages

    keep = {"lang": i18n.language()} if i18n.language() != i18n.DEFAULT else None
    glossary = next(p for p in reference_pages() if p.stem.endswith(f"_{GLOSSARY_PATH}"))
    links = [("Home.py", _("Home"), "🏠"),
             *((f"pages/{ls.script.name}", _(ls.title), ls.icon) for ls in lessons()),
             (f"pages/{glossary.name}", _(GLOSSARY_TITLE), "📖")]
    with context().navigation:
        try:
            for page, label, icon in links:
                st.page_link(page, label=label, icon=icon, query_params=keep)
        except StreamlitPageNotFoundError:
            return
