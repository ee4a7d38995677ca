"""Small teaching elements: pitfall callouts, numeric checks, number rows, and safe text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from posviz.i18n import _
from posviz.ui.page import context, hold_until_figure


def say(text: str) -> None:
    """Show untrusted text (user input, URL values) as plain text: never markdown, never HTML."""
    st.text(text)


def prose(text: str) -> None:
    """Explanatory markdown (constants only) of a part, in the page's language (a constant marked with ``N_`` is
    translated here). In presenter mode it folds into "Notes" so that the part's figure stays near the top of the
    screen."""
    text = _(text)
    if context().presenter:
        with st.expander(_("Notes")):
            st.markdown(text)
    else:
        st.markdown(text)


def escape_md(text: str) -> str:
    """Escape markdown and HTML special characters so ``text`` renders literally in st.markdown."""
    out = []
    for ch in str(text):
        if ch in "\\`*_{}[]()#+-.!|<>~$&\"'":
            out.append(f"&#{ord(ch)};" if ch in "<>&\"'" else "\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def pitfall(title: str, explanation: str, *, key: str, wrong: Callable[[], object] | None = None,
            right: Callable[[], object] | None = None) -> None:
    """A "Pitfall" callout; its toggle shows the wrong version beside the right one. ``title`` and
    ``explanation`` are shown in the page's language (translated already, or marked with ``N_``)."""
    with st.container(border=True):
        st.markdown(_("**⚠️ Pitfall: {title}**", title=_(title)))
        st.markdown(_(explanation))
        if wrong is None and right is None:
            return
        slug = context().slug
        if st.toggle(_("Show the wrong version beside the right one"), key=f"{slug}.pitfall.{key}"):
            left, right_col = st.columns(2)
            with left:
                st.markdown(_("**❌ Wrong**"))
                if wrong is not None:
                    wrong()
            with right_col:
                st.markdown(_("**✅ Right**"))
                if right is not None:
                    right()


def check(label: str, ok: bool, detail: str = "") -> None:
    """A computed check, shown as holding or failing with its numbers (a deliberate failure in a
    pitfall demo is not an error, so this never uses st.error)."""
    label, detail = _(label), _(detail) if detail else detail
    if ok:
        text = _("✅ **{label}** holds — {detail}", label=label, detail=detail) if detail else \
            _("✅ **{label}** holds", label=label)
    else:
        text = _("❌ **{label}** fails — {detail}", label=label, detail=detail) if detail else \
            _("❌ **{label}** fails", label=label)
    with st.container(border=True):
        st.markdown(text)


def numbers(values: Mapping[str, float | int | str], fmt: str = "{:.6g}") -> None:
    """A compact row of labelled numbers: one markdown table, labels over bold values.

    One element instead of a metric per number (each ``st.metric`` in its own column cost the browser
    ~5 ms on every slider move: a row of six was a sixth of a Context extension redraw). In presenter mode a
    row asked for before the part's first figure is drawn just after it, so the figure starts near the top.
    """
    if not values or hold_until_figure(lambda: numbers(values, fmt)):
        return
    shown = [fmt.format(v) if isinstance(v, (int, float)) else str(v) for v in values.values()]
    st.markdown("| " + " | ".join(escape_md(_(label)) for label in values) + " |\n"
                + "|" + ":--|" * len(values) + "\n"
                + "| " + " | ".join(f"**{escape_md(v)}**" for v in shown) + " |")
