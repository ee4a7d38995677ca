"""The UI kit every page uses; the only part of posviz that imports streamlit.

A page declares a ``Lesson`` (slug, title, controls) and its parts (``@lesson.part``); each part draws with
``figure_panel`` (chart, caption, formula, code, exports), ``pitfall``, ``check``, ``numbers``, ``prose``,
``say`` and, for a part's own controls, ``controls``. See docs/CONTRIBUTING.md for a worked example.
"""

import os

# The app's tensors are small and a classroom shares a few cores: one OpenMP thread per op beats waking a
# thread pool (10-30x faster per op measured on a loaded 2-core machine). torch reads this when a page
# first imports it (lazily), so setting it here, before any page math runs, configures the whole server.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from posviz.ui.callouts import check, escape_md, numbers, pitfall, prose, say
from posviz.ui.course import Lesson, Part, find, href, lessons
from posviz.ui.page import PageContext, Values, context, controls, plain_page, qr_png, share_link, share_query
from posviz.ui.panel import code_snippet, draw_export_settings, figure_name, figure_panel
from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text

__all__ = [
    "Bool", "Choice", "Float", "Int", "Lesson", "LogFloat", "Multi", "PageContext", "Param", "Part", "Text",
    "Values", "check", "code_snippet", "context", "controls", "draw_export_settings", "escape_md",
    "figure_name", "figure_panel", "find", "href", "lessons", "numbers", "pitfall", "plain_page", "prose",
    "qr_png", "say", "share_link", "share_query",
]
