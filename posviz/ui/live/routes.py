"""The app's routes for live sliders: their states and their exact figures, built on request.

``states/<token>`` gives the states of one slider of one drawn chart, ``figure/<token>/<value>`` its exact figure at
one of the slider's values (``posviz.ui.live.component``: a token is registered by the run that drew the chart).
They are built in a worker thread, one at a time per process and route, so that a script run is never queued
behind more than one of each, and a key press's figure never waits behind a slider's states; a request whose
browser has gone is not built, and a slider's states stop building when it goes. app.py adds ``routes()``
beside ``posviz.ui.served.routes()``.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from posviz.ui.live import component
from posviz.ui.live.store import AbandonedError, wanted_while
from posviz.ui.served import url

_TOKEN = re.compile(r"[0-9a-f]{24}")
# one build at a time per process for each route (a lock per route): a figure (one build, asked for by a key
# press) never waits behind a slider's states (tens of builds)
_BUILDS: dict[str, asyncio.Lock] = {}


def _not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)


async def _built(request: Request, build: object, *args: str) -> object:
    """``build(*args)`` in a worker thread, one at a time per route, unless the browser has gone while it waited
    its turn; None if it goes during the build (a slider's states stop between two figures: a browser stops
    asking for states it fetched ahead of need when the learner reaches for another slider, whose own states
    would otherwise wait here behind them)."""
    async with _BUILDS.setdefault(build.__name__, asyncio.Lock()):
        if await request.is_disconnected():
            return None
        gone = threading.Event()
        watch = asyncio.create_task(_watch(request, gone))
        try:
            return await run_in_threadpool(_while_wanted, gone, build, *args)
        except AbandonedError:
            return None
        finally:
            watch.cancel()


GONE_POLL_S = 0.05  # how often a build's request is checked for a browser that has gone


async def _watch(request: Request, gone: threading.Event) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(GONE_POLL_S)
    gone.set()


def _while_wanted(gone: threading.Event, build: Callable[..., object], *args: str) -> object:
    with wanted_while(lambda: not gone.is_set()):
        return build(*args)


async def _states(request: Request) -> Response:
    """The states of one registered live slider (JSON); 404 for a token this process does not know."""
    token = request.path_params["token"]
    text = await _built(request, component.states_text, token) if _TOKEN.fullmatch(token) else None
    return Response(text, media_type="application/json") if text else _not_found()


async def _figure(request: Request) -> Response:
    """The exact figure of one registered live slider at one of its values (JSON, its id in ``X-Posviz-Id``);
    404 for an unknown token or a value the slider cannot take, 422 for settings the figure refuses."""
    token, value = request.path_params["token"], request.path_params["value"]
    if not _TOKEN.fullmatch(token) or len(value) > 40:
        return _not_found()
    try:
        found = await _built(request, component.figure_text, token, value)
    except ValueError:
        return PlainTextResponse("settings refused", status_code=422)
    if not found:
        return _not_found()
    figure_id, text = found
    return Response(text, media_type="application/json", headers={"X-Posviz-Id": figure_id})


def routes(base: str = "") -> list[Route]:
    """The live sliders' routes, behind ``base`` (``server.baseUrlPath``)."""
    return [Route(url(base, "states/{token}"), _states, methods=["GET"]),
            Route(url(base, "figure/{token}/{value}"), _figure, methods=["GET"])]
