"""A whole page as Streamlit runs it: a lesson (``run_lesson``, what ``Lesson.run`` calls) or a page without parts
(``plain_page``, the home page). posviz.ui.page draws the page and its sidebar tools; the export settings after
them are posviz.ui.panel's. This module sits above both because panel builds on page: page then needs nothing of
panel's, and no import of the kit goes in a circle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from posviz.ui.page import draw_lesson, draw_plain_page, keep_language
from posviz.ui.panel import draw_export_settings
from posviz.ui.questions import Question, draw_questions, lesson_questions

if TYPE_CHECKING:
    from posviz.ui.course import Lesson


def run_lesson(lesson: Lesson) -> None:
    """Draw ``lesson`` (``posviz.ui.page.draw_lesson``), its check-yourself questions under the parts (its own
    ``questions=``, else ``posviz.ui.questions``' table), then the export settings at the foot of the sidebar."""
    draw_lesson(lesson)
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
    draw_export_settings()
