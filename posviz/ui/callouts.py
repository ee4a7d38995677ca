"""Small teaching elements: pitfall callouts, numeric checks, number rows, and safe text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from posviz.ui.page import context


def say(text: str) -> None:
    """Show untrusted text (user input, URL values) as plain text: never markdown, never HTML."""
    st.text(text)


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
    """A compact row of labelled numbers."""
    cols = st.columns(max(len(values), 1))
    for col, (label, value) in zip(cols, values.items(), strict=False):
        shown = fmt.format(value) if isinstance(value, (int, float)) else str(value)
        col.metric(label, shown)
