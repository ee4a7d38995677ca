"""Helpers for AppTest tests of the app's pages, and the course as declared (lessons, parts, controls).

``run_page("pages/2_Sinusoidal.py", query={"d": "64"})`` runs a page script from the repo root (so
``import posviz`` works wherever pytest was started) with the given query string and returns the
finished ``AppTest``.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from streamlit.testing.v1 import AppTest

from posviz.ui import served
from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text, parse_or_default

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
                specs.append(live_exact(json.loads(json.loads(child.proto.json)))[0])
            walk(child)

    walk(at._tree)
    return specs


def live_charts(at: AppTest) -> list[dict]:
    """The data of every live chart on the page, parsed (``"live"``: the sliders it follows)."""
    found = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == "bidi_component" and child.proto.component_name == "posviz_live":
                found.append(json.loads(json.loads(child.proto.json)))
            walk(child)

    walk(at._tree)
    return found


def reach_for(at: AppTest, key: str) -> list[dict]:
    """What the browser fetches when the learner reaches for the live slider ``key`` (``"rope.base"``): the states
    of that slider for every chart that follows it, built as the app's ``states/`` route builds them."""
    from posviz.ui.live import component

    tokens = [s["states"].rsplit("/", 1)[-1] for chart in live_charts(at) for s in chart["live"] if s["key"] == key]
    assert tokens, f"no live chart follows {key}"
    return [json.loads(component.states_text(t)) for t in tokens]


def live_payload(at: AppTest) -> int:
    """Bytes the largest live chart of the part brings the page: its data, its exact figure (in the data or the
    file the data names) and the largest states one of its sliders fetches when the learner reaches for it."""
    from posviz.ui.live import component

    sizes = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == "bidi_component" and child.proto.component_name == "posviz_live":
                sliders = json.loads(json.loads(child.proto.json))["live"]
                fetched = [len(component.states_text(s["states"].rsplit("/", 1)[-1]) or "") for s in sliders]
                sizes.append(live_bytes(child) + max(fetched, default=0))
            walk(child)

    walk(at._tree)
    assert sizes, "no live chart on the page"
    return max(sizes)


def live_bytes(component: object) -> int:
    """Bytes of a live chart's data, plus the exact figure's file if the data names one."""
    text = component.proto.json
    payload = json.loads(json.loads(text))
    return len(text) + (live_exact(payload)[1] if payload.get("exactFile") else 0)


def live_exact(payload: dict) -> tuple[dict, int]:
    """The exact figure a live chart's payload (its data, parsed) draws and the bytes it takes: in the payload,
    or the served file it names (``"exactFile"``, which the page fetches unless it holds it already)."""
    if payload.get("exactFile"):
        text = (served.exact_dir() / payload["exactFile"]).read_text(encoding="utf-8")
        return json.loads(text), len(text)
    return payload["exact"], len(json.dumps(payload["exact"], separators=(",", ":")))


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
    return ["Home.py"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


# --- the course as declared: every lesson, part and control, without running a page --------------------------
def course() -> list:
    """Every lesson of the app in course order, read from the declarations in pages/."""
    from posviz import ui

    return ui.lessons(ROOT / "pages")


def part_cases() -> list[tuple[object, object]]:
    """(lesson, part) for every part of every lesson."""
    return [(lesson, part) for lesson in course() for part in lesson.parts.values()]


def part_controls(lesson: object, part: object) -> dict[str, Param]:
    """The controls bound to the address while ``part`` is shown: the lesson's (all of them, drawn or not) and the
    part's own, by name."""
    return {c.name: c for c in (*lesson.controls, *part.controls)}


def part_query(lesson: object, part: object) -> dict[str, str]:
    """The query that opens ``part`` (none for the lesson's first part)."""
    return {} if part.key == next(iter(lesson.parts)) else {"part": part.key}


def extreme(param: Param, high: bool) -> str | None:
    """The URL value of ``param`` at the top (``high``) or the bottom of its declared range; a bound that depends on
    other controls is asked for at its largest (``hi_max``) and moved into range by the page."""
    if isinstance(param, (Int, Float)):
        if high:
            return param.to_url(param.hi if isinstance(param.hi, (int, float)) else param.hi_max)
        return param.to_url(param.lo if isinstance(param.lo, (int, float)) else 0)
    if isinstance(param, LogFloat):
        return param.to_url(param.options[-1] if high else param.options[0])
    if isinstance(param, Choice):
        return list(param.options)[-1 if high else 0]
    if isinstance(param, Multi):
        return ",".join(param.options) if high else list(param.options)[0]
    if isinstance(param, Bool):
        return "1" if high else "0"
    if isinstance(param, Text):
        return ("x " * (param.max_chars // 2))[: param.max_chars] if high else ""
    return None


def extreme_query(lesson: object, part: object, high: bool) -> dict[str, str]:
    """Every control of the part at an extreme, and the part."""
    values = {name: v for name, p in part_controls(lesson, part).items() if (v := extreme(p, high)) is not None}
    return {**values, **part_query(lesson, part)}


# hostile URL values, one class after another: text, NaN, infinities, overflow, huge integers, markup, malformed
HOSTILE = ["abc", "nan", "-inf", "1e309", "99999999999999999999999", "<script>alert(1)</script>", "1.5.5"]


def hostile_value(param: Param, turn: int) -> str:
    """A URL value that ``param`` must refuse: the hostile class at ``turn`` (round robin), or the next one the
    control refuses (free text accepts every short text, so it gets one longer than it allows)."""
    if isinstance(param, Text):
        return "<script>" + "x" * param.max_chars
    for k in range(len(HOSTILE)):
        raw = HOSTILE[(turn + k) % len(HOSTILE)]
        if parse_or_default(param, raw)[1] is not None:
            return raw
    raise ValueError(f"control {param.name!r} accepts every hostile value")


def hostile_query(lesson: object, part: object, turn: int) -> dict[str, str]:
    """One hostile value for each control of the part, each control a different class (round robin from
    ``turn``), so one run takes every control down its warn-and-fall-back path."""
    controls = part_controls(lesson, part)
    return {**{name: hostile_value(p, turn + j) for j, (name, p) in enumerate(controls.items())},
            **part_query(lesson, part)}


# --- shared runs: tests that only read a finished page share one run of it ----------------------------------------
_SHARED: dict[tuple[str, tuple[tuple[str, str], ...]], AppTest] = {}
_SHARED_KEPT = 64  # finished runs kept (least recently used dropped first); a run holds its page's figures


def _refuse_rerun(*_args: object, **_kwargs: object) -> AppTest:
    raise RuntimeError("this finished run is shared between tests: use run_page() to set widgets or rerun")


def frozen(at: AppTest) -> AppTest:
    """``at``, made to refuse any further run (so it can be shared by tests that only read it): every rerun
    (AppTest.run, a widget's .run()) goes through AppTest._run."""
    at._run = _refuse_rerun
    return at


def page_at(path: str, **query: str) -> AppTest:
    """``run_page(path, query)``, run once per (path, query) in the session and shared by every test asking for it.

    Only for tests that read the finished page: setting a widget and rerunning would change what the next test reads,
    so a shared run refuses to rerun. The query is a set of values (its order does not matter)."""
    key = (path, tuple(sorted(query.items())))
    at = _SHARED.pop(key, None)
    if at is None:
        at = frozen(run_page(path, query))
    _SHARED[key] = at  # the most recently used last
    while len(_SHARED) > _SHARED_KEPT:
        del _SHARED[next(iter(_SHARED))]
    return at


def garbage_query(names: list[str] | tuple[str, ...], turn: int = 0) -> dict[str, str]:
    """A different ``GARBAGE`` value for each name, round robin from ``turn``: one run sends a page many classes of
    bad value at once (each control parses its own, so the classes do not interfere)."""
    return {name: GARBAGE[(turn + k) % len(GARBAGE)] for k, name in enumerate(names)}


def each_pitfall(at: AppTest, slug: str, keys: Sequence[str]) -> Iterator[str]:
    """Switch the pitfall toggles ``keys`` (``ui.pitfall(..., key=)``) of lesson ``slug`` on one at a time, the
    previous one off in the same run; yield each key once its run is over and the page is clean."""
    previous = None
    for key in keys:
        if previous:
            at.toggle(key=f"{slug}.pitfall.{previous}").set_value(False)
        at.toggle(key=f"{slug}.pitfall.{key}").set_value(True).run()
        assert_clean(at)
        previous = key
        yield key
