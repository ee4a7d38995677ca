"""Browser tests of the Distance biases page against a real streamlit server: what its charts draw (every lesson's
load, shared link and bad-link fallback: test_every_lesson.py)."""

from __future__ import annotations

import numpy as np
import pytest

from posviz import bias as b
from testkit.browser import chart_traces, click_and_wait, error_elements, move_slider, open_page

pytestmark = pytest.mark.browser
PAGE = "Distance_biases"


def by_name(traces: list[dict], start: str) -> dict:
    hits = [t for t in traces if (t["name"] or "").startswith(start)]
    assert len(hits) == 1, [t["name"] for t in traces]
    return hits[0]


def test_a_slider_redraws_the_family_and_a_part_switch_shows_one_softmax_each(page, app_url):
    open_page(page, app_url, PAGE)
    assert error_elements(page) == []
    assert page.locator(".js-plotly-plot").count() == 1
    kerple = by_name(chart_traces(page, 0), "KERPLE log")
    np.testing.assert_allclose(kerple["y"], -np.log1p(np.arange(129)), rtol=1e-5, atol=1e-6)

    # the members' settings are folded under a heading each: open KERPLE's as a student would
    r1 = page.get_by_role("slider", name="KERPLE log r1")
    assert not r1.is_visible()
    page.locator("[data-testid=stSidebar] summary", has_text="KERPLE: r1, r2").click()
    r1.wait_for(state="visible", timeout=10_000)
    move_slider(page, "KERPLE log r1", 2)  # 1.0 -> 1.1
    assert error_elements(page) == []
    kerple = by_name(chart_traces(page, 0), "KERPLE log")
    np.testing.assert_allclose(kerple["y"], -1.1 * np.log1p(np.arange(129)), rtol=1e-5, atol=1e-6)
    assert "log_r1=1.1" in page.url

    # part 2 (ALiBi's row and each member's sum do not depend on KERPLE's r1)
    click_and_wait(page, page.get_by_text("2. One query's attention", exact=True))
    assert "part=attention" in page.url and page.locator(".js-plotly-plot").count() == 1
    traces = chart_traces(page, 0)
    assert len(traces) == len(b.MEMBERS)
    for t in traces:
        assert sum(t["y"]) == pytest.approx(1.0, abs=1e-4)
    alibi = by_name(traces, "ALiBi")
    np.testing.assert_allclose(alibi["y"], b.attention_row("alibi", 128), rtol=1e-5, atol=1e-9)

    move_slider(page, "keys T (query at i = T − 1)", -2)  # 128 -> 112
    traces = chart_traces(page, 0)
    assert len(traces[0]["y"]) == 112 and "T=112" in page.url
    assert error_elements(page) == []


def test_shared_link_restores_the_heatmap_view(page, app_url):
    open_page(page, app_url, PAGE, part="matrix", member="t5", t5_shape="seeded", T_map=32, seed=4)
    assert error_elements(page) == []
    bias, mask = chart_traces(page, 0)[:2]
    z = np.array(bias["z"], dtype=float)
    expect = b.bias_matrix("t5", 32, b.Family(t5_shape="seeded", seed=4))
    low = np.tril(np.ones((32, 32), bool))
    np.testing.assert_allclose(z[low], expect[low], rtol=1e-5, atol=1e-6)
    assert np.isnan(z[~low]).all()
    assert np.array(mask["z"], dtype=float)[~low].tolist() == [1.0] * int((~low).sum())
