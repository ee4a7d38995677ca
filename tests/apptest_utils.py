"""Helpers for AppTest tests of the app's pages.

``run_page("pages/2_Sinusoidal.py", query={"d": "64"})`` runs a page script from the repo root (so
``import posviz`` works wherever pytest was started) with the given query string and returns the
finished ``AppTest``.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from streamlit.testing.v1 import AppTest

from posviz.ui import live

ROOT = Path(__file__).resolve().parents[1]
GARBAGE = ["abc", "nan", "NaN", "inf", "-inf", "-1", "1e309", "", "99999999999999999999999",
           "<script>alert(1)</script>", "1.5.5", "  "]


def run_page(path: str, query: Mapping[str, str] | None = None, timeout: float = 90) -> AppTest:
    """Run ``path`` (relative to the repo root) once with ``query`` and return the AppTest."""
    os.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / path), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    """No exception and no st.error element on the page."""
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.get("error")]
    assert not errors, errors


def number_items(at: AppTest) -> list[tuple[str, str]]:
    """Every (label, value) shown by ``ui.numbers`` (markdown tables of labels over bold values), in order."""
    def plain(cell: str) -> str:
        return html.unescape(re.sub(r"\\(.)", r"\1", cell.strip().removeprefix("**").removesuffix("**")))

    items = []
    for md in at.markdown:
        lines = md.value.split("\n")
        if len(lines) == 3 and lines[0].startswith("| ") and lines[1].startswith("|:--|"):
            labels, values = (re.split(r"(?<!\\)\|", line.strip()[1:-1]) for line in (lines[0], lines[2]))
            items += [(plain(k), plain(v)) for k, v in zip(labels, values, strict=True)]
    return items


def numbers(at: AppTest) -> dict[str, str]:
    """The numbers shown by ``ui.numbers`` on the page, by label (the last one wins on a repeated label)."""
    return dict(number_items(at))


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figure dicts of every chart on the page, in page order (a live figure's exact figure too)."""
    specs = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            kind = getattr(child, "type", None)
            if kind == "plotly_chart":
                specs.append(json.loads(child.proto.spec))
            elif kind == "bidi_component" and child.proto.component_name == "posviz_live":
                specs.append(live.exact_of(json.loads(json.loads(child.proto.json)))[0])
            walk(child)

    walk(at._tree)
    return specs


def live_payload(at: AppTest) -> int:
    """Bytes a live chart sends: its data, its exact figure (in the data or the file the data names) and its
    states (one live chart per part)."""
    sizes = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == "bidi_component":
                sizes.append((child.proto.component_name, live_bytes(child)))
            walk(child)

    walk(at._tree)
    assert [n for n, _ in sizes] == ["posviz_live", "posviz_live_states"], sizes
    return sum(n for _, n in sizes)


def live_bytes(component: object) -> int:
    """Bytes of a live chart's (or its states') data, plus the exact figure's file if the data names one."""
    text = component.proto.json
    if component.proto.component_name != "posviz_live":
        return len(text)
    payload = json.loads(json.loads(text))
    return len(text) + (live.exact_of(payload)[1] if payload.get("exactFile") else 0)


def warnings_text(at: AppTest) -> str:
    """All warning texts of the page, joined by newlines."""
    return "\n".join(str(w.value) for w in at.warning)


def page_module(slug: str) -> object:
    """The module of the lesson page declaring ``slug`` (imported, not drawn), e.g. for its constants."""
    import sys

    from posviz import ui

    lesson = ui.find(slug, ROOT / "pages")
    return next(m for m in list(sys.modules.values())
                if getattr(m, "__file__", None) and Path(m.__file__).resolve() == lesson.script
                and getattr(m, "lesson", None) is lesson)


def page_paths() -> list[str]:
    """Every page script of the app, the home page first."""
    return ["app.py"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))
