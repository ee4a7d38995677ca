"""The figure cache is shared by every session of a server: two sessions with different settings, running at
the same time, each get their own figure, and no page can reach a cached figure to change it."""

from __future__ import annotations

import asyncio
import inspect
import urllib.parse

import pytest

from posviz.figures.rope import rope_angle_heatmap
from posviz.theme import style
from posviz.ui import panel
from testkit.apptest import chart_specs, run_page
from testkit.browser import start_server
from testkit.stream_client import Run, Session

pytestmark = pytest.mark.app  # sessions of a real server and AppTest runs of a page

PAGE = "pages/2_Sinusoidal.py"


def test_concurrent_sessions_with_different_settings_get_their_own_figures():
    """Twelve sessions of one real ``streamlit run`` (its scripts run in threads, one per session), six settings
    each asked twice in interleaved order, all at once: each session is drawn its own settings' figure."""
    queries = [{"part": "tables", "d": str(d), "n": str(n)} for d in (16, 32, 48) for n in (64, 128)] * 2

    async def all_at_once(url: str) -> list[Run]:
        async def one(query: dict[str, str]) -> Run:
            async with Session(url, timeout=120) as session:
                return await session.rerun("RoPE", urllib.parse.urlencode(query))
        return await asyncio.gather(*(one(q) for q in queries))

    proc, url = start_server()
    try:
        runs = asyncio.run(all_at_once(url))
    finally:
        proc.terminate()
        proc.wait(10)
    for query, run in zip(queries, runs, strict=True):
        assert run.exceptions == [] and len(run.specs) == 1, query
        spec = run.specs[0]
        expected = style(rope_angle_heatmap(dim=int(query["d"]), n_positions=int(query["n"])))
        assert spec["layout"]["title"]["text"] == expected.layout.title.text, f"{query}: another session's figure"
        assert _decoded_len(spec["data"][0]["x"]) == int(query["n"]), f"{query}: another session's figure"
        assert _decoded_len(spec["data"][0]["y"]) == int(query["d"]) // 2, f"{query}: another session's figure"


def _decoded_len(x: object) -> int:
    import base64

    import numpy as np

    if isinstance(x, dict):
        return len(np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]))
    return len(x)


def test_a_page_never_receives_the_shared_figure():
    """figure_panel draws the cached figure and returns nothing, so no page code can mutate it for others."""
    assert inspect.signature(panel.figure_panel).return_annotation in (None, "None")
    at = run_page(PAGE, {"d": "24"})
    first = chart_specs(at)[0]
    again = chart_specs(run_page(PAGE, {"d": "24"}))[0]
    assert first == again
