"""Small teaching elements: pitfall callouts, numeric checks, number rows, and safe text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from posviz.ui.page import context, hold_until_figure


def say(text: str) -> None:
    """Show untrusted text (user input, URL values) as plain text: never markdown, never HTML."""
    st.text(text)


def prose(text: str) -> None:
    """Explanatory markdown (constants only) of a part. In presenter mode it folds into "Notes" so that the
    part's figure stays near the top of the screen."""
    if context().presenter:
        with st.expander("Notes"):
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
    """A "Pitfall" callout; its toggle shows the wrong version beside the right one."""
    with st.container(border=True):
        st.markdown(f"**⚠️ Pitfall: {title}**")
        st.markdown(explanation)
        if wrong is None and right is None:
            return
        slug = context().slug
        if st.toggle("Show the wrong version beside the right one", key=f"{slug}.pitfall.{key}"):
            left, right_col = st.columns(2)
            with left:
                st.markdown("**❌ Wrong**")
                if wrong is not None:
                    wrong()
            with right_col:
                st.markdown("**✅ Right**")
                if right is not None:
                    right()


def check(label: str, ok: bool, detail: str = "") -> None:
    """A computed check, shown as holding or failing with its numbers (a deliberate failure in a
    pitfall demo is not an error, so this never uses st.error)."""
    mark = "✅" if ok else "❌"
    verdict = "holds" if ok else "fails"
    with st.container(border=True):
        st.markdown(f"{mark} **{label}** {verdict}" + (f" — {detail}" if detail else ""))


def numbers(values: Mapping[str, float | int | str], fmt: str = "{:.6g}") -> None:
    """A compact row of labelled numbers: one markdown table, labels over bold values.

    One element instead of a metric per number (each ``st.metric`` in its own column cost the browser
    ~5 ms on every slider move: a row of six was a sixth of a Context extension redraw). In presenter mode a
    row asked for before the part's first figure is drawn just after it, so the figure starts near the top.
    """
    if not values or hold_until_figure(lambda: numbers(values, fmt)):
        return
    shown = [fmt.format(v) if isinstance(v, (int, float)) else str(v) for v in values.values()]
    st.markdown("| " + " | ".join(escape_md(label) for label in values) + " |\n"
                + "|" + ":--|" * len(values) + "\n"
                + "| " + " | ".join(f"**{escape_md(v)}**" for v in shown) + " |")
