"""The UI kit every page uses; the only part of posviz that imports streamlit.

A page declares a ``Lesson`` (slug, title, controls) and its parts (``@lesson.part``); each part draws with
``figure_panel`` (chart, caption, formula, code, exports), ``pitfall``, ``check``, ``numbers``, ``prose``,
``say`` and, for a part's own controls, ``controls``. See docs/CONTRIBUTING.md for a worked example.
"""

# pandas whole before any page draws: plotly's array checks read pandas from sys.modules without importing it,
# so on a freshly started server a session drawing while another session's thread was still importing pandas met
# a half-initialized module ("partially initialized module 'pandas' has no attribute 'Series'"). Every page
# imports posviz.ui first, and another thread importing it waits until this import has finished.
import pandas  # noqa: F401  (first, before anything that may draw)

import posviz._speed  # noqa: F401  (sets the server's speed switches before any page math runs)
from posviz.ui.callouts import check, escape_md, numbers, pitfall, prose, say
from posviz.ui.course import Lesson, Part, find, href, lessons, link, reference_pages
from posviz.ui.glossary import term, term_href
from posviz.ui.live.component import AtMost, Sets
from posviz.ui.page import PageContext, Values, context, controls, qr_png, share_link, share_query
from posviz.ui.panel import cached, code_snippet, draw_export_settings, figure_name, figure_panel
from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text
from posviz.ui.run import plain_page

__all__ = [
    "AtMost", "Bool", "Choice", "Float", "Int", "Lesson", "LogFloat", "Multi", "PageContext", "Param", "Part", "Sets",
    "Text", "Values", "cached", "check", "code_snippet", "context", "controls", "draw_export_settings", "escape_md",
    "figure_name", "figure_panel", "find", "href", "lessons", "link", "numbers", "pitfall", "plain_page", "prose",
    "qr_png", "reference_pages", "say", "share_link", "share_query", "term", "term_href",
]
