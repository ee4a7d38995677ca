"""The files app.py serves beside Streamlit's pages (posviz.ui.served), asked of its routes as a browser asks.

The routes are driven as the ASGI application they are (a Starlette router), so these run in the quick tier;
tests/test_package.py asks a real server, read-only and run by an unprivileged user, for the same files.
"""

from __future__ import annotations

import asyncio
import json

import plotly
import pytest
from starlette.routing import Router

from posviz.ui import served
from posviz.ui.live import routes as live_routes
from posviz.ui.live.store import STORE


def _get(path: str, base: str = "", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` (with request ``headers``) from the routes behind ``base``: status, headers, body."""
    sent: list[dict] = []
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        while not sent or sent[-1].get("more_body", True):  # the client stays until the whole answer came
            await asyncio.sleep(0.001)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
             "root_path": "", "scheme": "http", "server": ("test", 80)}
    asyncio.run(Router(routes=served.routes(base) + live_routes.routes(base))(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], headers, body


def test_plotly_js_is_the_installed_plotly_s_own_bundle_under_its_version():
    status, headers, body = _get(f"/posviz/plotly-{plotly.__version__}.min.js")
    assert status == 200 and body == served.plotly_js_file().read_bytes()
    assert headers["content-type"].startswith("text/javascript") and "immutable" in headers["cache-control"]


def test_an_exact_figure_is_served_from_the_cache_folder_by_its_content_name():
    text = '{"data": [], "layout": {"title": {"text": "served"}}}'
    name = STORE.files.write(text)  # the default folder: $POSVIZ_CACHE_DIR (tests/conftest.py) / exact-figures
    assert (served.exact_dir() / name).is_file()
    status, headers, body = _get(f"/posviz/exact/{name}")
    assert (status, body) == (200, text.encode()) and headers["content-type"] == "application/json"


def test_an_exact_figure_asked_for_as_one_range_is_that_range_whole():
    """The chart asks for a figure as the range "bytes=0-", which the server sends as it is (no gzip while the
    release's script runs): a 206 with the whole file in one body."""
    text = '{"data": [], "layout": {"title": {"text": "served as a range"}}}'
    name = STORE.files.write(text)
    status, headers, body = _get(f"/posviz/exact/{name}", headers={"Range": "bytes=0-"})
    assert (status, body) == (206, text.encode())
    assert headers["content-range"] == f"bytes 0-{len(text) - 1}/{len(text)}"


@pytest.mark.parametrize("name", ["0" * 24 + ".json", "settings.toml", "..%2F..%2Fetc%2Fpasswd", "ABC.json",
                                  "0" * 23 + ".json"])
def test_only_a_figure_that_is_there_is_served(name):
    """A name that is not a content name, or one trimmed (or never written), is a 404: nothing else of the
    folder or the disk is reachable."""
    assert _get(f"/posviz/exact/{name}")[0] == 404


def test_behind_a_base_path_the_routes_and_the_addresses_pages_ask_for_agree():
    assert served.url("/class/", served.PLOTLY_JS) == f"/class/posviz/{served.PLOTLY_JS}"
    assert served.url("", "exact") == "/posviz/exact"
    assert _get(served.url("class", served.PLOTLY_JS), base="class")[0] == 200
    assert _get(served.url("", served.PLOTLY_JS), base="class")[0] == 404


def test_the_cache_folder_is_the_user_s_choice_or_the_platform_s(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.setenv(served.CACHE_ENV, str(tmp_path / "mine"))
    assert served.exact_dir() == tmp_path / "mine" / "exact-figures"
    monkeypatch.delenv(served.CACHE_ENV)
    assert served.cache_dir() == platformdirs.user_cache_path("posviz", appauthor=False)


# --- a live slider's states and exact figures, built on request ----------------------------------------------
def _registered_sigma2() -> tuple[str, dict]:
    """A live chart of the Gaussian kernel following σ2, registered as a page run registers it: its token."""
    from posviz.ui.live import component
    from posviz.ui.params import Float

    sigma2 = Float("sigma2", "σ2", default=20.0, lo=10.0, hi=30.0, step=1.0)
    params = {"alpha1": 0.55, "alpha2": 0.45, "sigma1": 3.0, "sigma2": 20.0}  # settings no other test uses
    live = component.LiveChart("gaussian_kernel_curve", params, {"sigma2": "sigma2"}, {"sigma2": sigma2},
                               "gaussian_kernel_rope", "light", 0.0, "gaussian_kernel_rope.kernel.chart")
    return component.register(live, "sigma2", "sigma2", 300_000, 10_000), params


def test_a_registered_slider_s_states_are_built_on_request():
    token, _ = _registered_sigma2()
    status, headers, body = _get(f"/posviz/states/{token}")
    found = json.loads(body)
    assert status == 200 and headers["content-type"] == "application/json"
    assert found["values"] == [float(v) for v in range(10, 31)] and len(found["states"]) == 21


def test_a_registered_slider_s_exact_figure_is_the_figure_the_page_draws_at_that_value():
    from posviz.ui.live.figures import figure_json


    token, params = _registered_sigma2()
    status, headers, body = _get(f"/posviz/figure/{token}/27")
    drawn = figure_json("gaussian_kernel_curve", {**params, "sigma2": 27.0}, "light", 0.0)
    assert status == 200 and headers["x-posviz-id"] == drawn.id and json.loads(body) == drawn.figure


def _registered_pair_dimension(first: int = 3) -> tuple[str, dict]:
    """The Sinusoidal waves chart following the slider of the first of its two dimensions (a ``Sets`` link: the
    slider sets one item of the figure's ``dims``), drawn at ``first`` and registered as a page run registers it:
    its token."""
    from posviz.ui.live import component
    from posviz.ui.params import Int

    dim_a = Int("dim_a", "j", default=3, lo=0, hi=15)
    params = {"n_positions": 40, "d_model": 16, "base": 10000.0, "dims": (first, 11)}
    link = component.Sets.item("dims", 0, (first, 11))
    live = component.LiveChart("sinusoidal_waves", params, {"dim_a": "dim_a"}, {"dim_a": dim_a}, "sinusoidal",
                               "light", 0.0, "sinusoidal.waves.chart", derived={"dim_a": link},
                               values={"dim_a": first})
    return component.register(live, "dim_a", "dim_a", 300_000, 10_000), params


def test_a_slider_s_states_do_not_depend_on_its_own_value_where_it_sets_one_item_of_a_pair():
    """Letting go of the slider reuses its states: the same token (and states) at every value of the slider."""
    assert _registered_pair_dimension(3)[0] == _registered_pair_dimension(9)[0]


def test_a_slider_that_sets_one_item_of_a_pair_serves_the_figure_with_only_that_item_moved():
    from posviz.ui.live.figures import figure_json

    token, params = _registered_pair_dimension()
    status, _, body = _get(f"/posviz/states/{token}")
    assert status == 200 and json.loads(body)["values"] == list(range(16))
    status, headers, body = _get(f"/posviz/figure/{token}/7")
    drawn = figure_json("sinusoidal_waves", {**params, "dims": (7, 11)}, "light", 0.0)
    assert status == 200 and headers["x-posviz-id"] == drawn.id and json.loads(body) == drawn.figure


@pytest.mark.parametrize("path", ["states/" + "0" * 24, "figure/" + "0" * 24 + "/20", "states/not-a-token",
                                  "figure/TOKEN/27.5", "figure/TOKEN/abc", "figure/TOKEN/31"])
def test_an_unknown_slider_or_a_value_it_cannot_take_is_not_found(path):
    token, _ = _registered_sigma2()
    status, _, _ = _get("/posviz/" + path.replace("TOKEN", token))
    assert status == 404
