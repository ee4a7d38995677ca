"""The page API before lessons declared themselves (``setup_page`` / ``lesson`` / ``choose_part``).

Kept only while the last pages move to :class:`posviz.ui.Lesson`; new pages must not use it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from posviz.ui.page import PageContext, _begin_controls, _draw_tools, _end_controls, context, controls, start_page
from posviz.ui.params import Choice


def setup_page(title: str, *, icon: str = "📐", intro: str = "") -> PageContext:
    """Configure the page and draw its title and intro (the widget keys' slug comes from the title)."""
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") or "page"
    return start_page(slug, title, icon=icon, intro=intro)


def lesson(body: Callable[[], None]) -> None:
    """Draw ``body`` (controls, a part choice, one part) in a fragment, then the sidebar tools."""
    _legacy_fragment(body)
    _draw_tools(context())


@st.fragment
def _legacy_fragment(body: Callable[[], None]) -> None:
    ctx = _begin_controls()
    body()
    _end_controls(ctx)


def choose_part(options: dict[str, str], default: str, *, help: str | None = None) -> str:
    """The URL-bound "lesson part" radio in the main area; returns the chosen part's key."""
    return controls(Choice("part", "lesson part", default=default, options=options, widget="radio", help=help),
                    where="main", columns=1)["part"]
