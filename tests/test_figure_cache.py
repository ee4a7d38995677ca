"""The figure cache is shared by every session of a server: two sessions with different settings, running at
the same time, each get their own figure, and no page can reach a cached figure to change it."""

from __future__ import annotations

import inspect
from concurrent.futures import ThreadPoolExecutor

from posviz.figures.sinusoidal import sinusoidal_heatmap
from posviz.theme import style
from posviz.ui import panel
from tests.apptest_utils import assert_clean, chart_specs, run_page

PAGE = "pages/2_Sinusoidal.py"


def _heatmap_of(query: dict[str, str]) -> dict:
    at = run_page(PAGE, query)
    assert_clean(at)
    return chart_specs(at)[0]


def test_concurrent_sessions_with_different_settings_get_their_own_figures():
    queries = [{"d": str(d), "layout": layout, "n": "64"} for d in (16, 32, 48) for layout in ("interleaved", "concat")]
    _heatmap_of({"d": "8", "n": "8"})  # first run alone: Streamlit's lazy imports (pandas) are not thread-safe
    with ThreadPoolExecutor(max_workers=3) as pool:
        specs = list(pool.map(_heatmap_of, queries * 2))  # each setting twice, in interleaved order
    for query, spec in zip(queries * 2, specs, strict=True):
        heat = spec["data"][0]
        expected = style(sinusoidal_heatmap(n_positions=64, d_model=int(query["d"]), layout=query["layout"]))
        assert spec["layout"]["title"]["text"] == expected.layout.title.text, f"{query}: another session's figure"
        assert _decoded_len(heat["x"]) == int(query["d"]), f"{query}: another session's figure"


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
