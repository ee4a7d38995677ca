"""Every page of the app under AppTest: defaults, all controls at their extremes, hostile URLs.

Controls are discovered from the page itself (the page context records every ``ui.controls`` call), so a
control added to any page is covered here without editing this file.
"""

from __future__ import annotations

import tracemalloc

import pytest

from posviz.ui.params import Bool, Choice, Float, Int, LogFloat, Multi, Param, Text
from tests.apptest_utils import assert_clean, chart_specs, page_paths, run_page, warnings_text

PAGES = page_paths()
HOSTILE = ["abc", "nan", "-inf", "1e309", "", "99999999999999999999999", "<script>alert(1)</script>"]


def page_params(path: str, query: dict[str, str] | None = None) -> dict[str, Param]:
    """The controls a page draws (for ``query``), read from the page context after a clean run."""
    at = run_page(path, query)
    assert_clean(at)
    try:
        return dict(at.session_state["_posviz_ctx"].params)
    except KeyError:  # a page that draws no posviz controls
        return {}


def parts(path: str) -> list[dict[str, str]]:
    """One query per lesson part (pages drawn one part at a time have a Choice named "part")."""
    param = page_params(path).get("part")
    return [{"part": v} for v in param.options] if isinstance(param, Choice) else [{}]


def extreme(param: Param, high: bool) -> str | None:
    if isinstance(param, (Int, Float)):
        return param.to_url(param.hi if high else param.lo)
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


@pytest.mark.parametrize("path", PAGES)
def test_page_runs_clean_at_defaults(path):
    at = run_page(path)
    assert_clean(at)
    assert at.title, "every page has a title"
    if path != "app.py" and page_params(path):
        assert chart_specs(at), "a lesson page draws at least one chart"


@pytest.mark.parametrize("high", [False, True], ids=["all-min", "all-max"])
@pytest.mark.parametrize("path", PAGES)
def test_page_runs_clean_with_every_control_at_an_extreme(path, high):
    for part in parts(path):
        params = page_params(path, part)
        query = {name: v for name, p in params.items() if (v := extreme(p, high)) is not None and name != "part"}
        tracemalloc.start()
        at = run_page(path, {**query, **part})
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert_clean(at)
        assert peak < 256 * 2**20, f"{part}: peak Python/numpy allocation {peak / 2**20:.0f} MB"
        bad = [n for n in params if f"`{n}`" in warnings_text(at)]
        assert not bad, f"valid extreme values rejected for {bad} in {part}"


@pytest.mark.parametrize("raw", HOSTILE)
@pytest.mark.parametrize("path", PAGES)
def test_hostile_query_values_warn_and_fall_back(path, raw):
    for part in parts(path):
        params = page_params(path, part)
        hostile = dict.fromkeys(params, raw)
        at = run_page(path, {**hostile, **part} if part and raw != "" else hostile)
        assert_clean(at)
        text = warnings_text(at)
        for name, param in params.items():
            if isinstance(param, Text) or (name == "part" and part):
                continue  # any short text is a valid sentence (shown as plain text); the part was valid
            if raw == "" and isinstance(param, Multi):
                continue
            if raw == "" and part and name != "part":
                continue  # with part="" the default part is drawn: checked in that part's own run
            assert f"`{name}`" in text, f"no warning for {name}={raw!r} in {part}"
        assert "<script>" not in str([m.value for m in at.markdown])
