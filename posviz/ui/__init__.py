"""The UI kit every page uses; the only part of posviz that imports streamlit.

``setup_page`` (title, intro) -> ``lesson`` (a fragment holding the rest: controls, parts, sidebar tools),
inside it ``controls`` (URL-bound widgets) -> ``figure_panel`` (chart, caption, formula, code, exports) /
``pitfall`` / ``check`` / ``numbers`` / ``say``.
See docs/CONTRIBUTING.md for a worked example.
"""

import os

# The app's tensors are small and a classroom shares a few cores: one OpenMP thread per op beats waking a
# thread pool (10-30x faster per op measured on a loaded 2-core machine). torch reads this when a page
# first imports it (lazily), so setting it here, before any page math runs, configures the whole server.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from posviz.ui.callouts import check, escape_md, numbers, pitfall, say
from posviz.ui.page import PageContext, Values, choose_part, context, controls, lesson, setup_page, share_query
from posviz.ui.panel import code_snippet, draw_export_settings, figure_panel
from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text

__all__ = [
    "Bool", "Choice", "Float", "Int", "LogFloat", "Multi", "PageContext", "Param", "Text", "Values",
    "check", "choose_part", "code_snippet", "context", "controls", "draw_export_settings", "escape_md",
    "figure_panel", "lesson", "numbers", "pitfall", "say", "setup_page", "share_query",
]
