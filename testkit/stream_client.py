"""A browserless Streamlit client: one session over ``/_stcore/stream``, reruns timed on the server's answers.

Streamlit's browser code opens a websocket, sends a ``rerun_script`` BackMsg (page name and query string)
and draws the ForwardMsgs that come back until ``script_finished``. This client does the same without
drawing, so a test can check what a server sends (the theme from .streamlit/config.toml, charts, exception
elements) and a load benchmark can run many sessions on two cores without a browser per session. Every
control of a lesson is bound to the query string, but a session reads the address only for controls it has no
value for yet: a rerun with ``d=128`` moves the slider only on a fresh session's first run (a real move is a
widget change, as ``benchmarks/students.py`` sends it).

Behind a proxy with sticky sessions the client first GETs ``/`` and keeps the cookies it is given, as a
browser would, so its websocket lands on the app process that served the page.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import time
import urllib.request
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider as SliderProto

from testkit.apptest import live_exact


@dataclass
class Run:
    """What one rerun sent back: seconds until script_finished, bytes, element counts, the theme."""

    seconds: float
    nbytes: int
    status: int                       # ForwardMsg.ScriptFinishedStatus: 0 finished successfully
    charts: int = 0                   # plotly_chart elements and live charts
    exceptions: list[str] = field(default_factory=list)   # messages of exception elements
    alerts: list[str] = field(default_factory=list)       # texts of st.warning / st.error / st.info boxes
    primary_color: str | None = None  # new_session's custom_theme.primary_color (config.toml's [theme])
    sliders: list[Slider] = field(default_factory=list)   # the page's URL-bound sliders, as drawn
    specs: list[dict] = field(default_factory=list)       # every chart's (exact) figure (plotly JSON)
    live: list[dict] = field(default_factory=list)        # the sliders live charts follow (their states' address)


@dataclass(frozen=True)
class Slider:
    """A drawn lesson slider: its URL name, the value it shows, and the values one arrow-key press gives."""

    name: str                      # the query-string key (posviz.ui keys widgets "<page slug>.<name>")
    value: str                     # as the URL writes it
    options: tuple[str, ...] = ()  # a select slider's option texts (then lo, hi, step are unused)
    lo: float = 0.0
    hi: float = 0.0
    step: float = 1.0
    integer: bool = True

    def neighbours(self, value: str) -> list[str]:
        """The values left and right of ``value`` that stay in range."""
        if self.options:
            i = self.options.index(value) if value in self.options else 0
            return [self.options[j] for j in (i - 1, i + 1) if 0 <= j < len(self.options)]
        v = float(value)
        fmt = (lambda x: str(round(x))) if self.integer else (lambda x: f"{x:g}")
        return [fmt(x) for x in (v - self.step, v + self.step) if self.lo <= x <= self.hi]

    @staticmethod
    def from_proto(s: SliderProto) -> Slider | None:
        key = s.id.rsplit("-", 1)[-1]
        if "." not in key or key.startswith("_"):
            return None  # not a lesson control (e.g. the sidebar's export settings)
        name = key.split(".", 1)[1]
        if s.options:  # a select slider: the shown option's text is in raw_value
            options = tuple(s.options)
            value = list(s.raw_value)[0] if s.raw_value else options[int((list(s.default) or [0])[0])]
            return Slider(name, value, options)
        integer = s.data_type == SliderProto.INT
        v = (list(s.value) or list(s.default) or [s.min])[0]
        return Slider(name, str(round(v)) if integer else f"{v:g}", (), s.min, s.max, s.step, integer)


def sticky_cookie(url: str, timeout: float = 10) -> str:
    """GET ``url``/ and return the ``Cookie`` header a browser would send back (empty if none was set)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{url}/", timeout=timeout) as resp:
        resp.read()
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def _count(msg: ForwardMsg, run: Run) -> None:
    kind = msg.WhichOneof("type")
    if kind == "new_session":
        run.primary_color = msg.new_session.custom_theme.primary_color or None
    elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        element = msg.delta.new_element.WhichOneof("type")
        if element == "plotly_chart":
            run.charts += 1
            run.specs.append(json.loads(msg.delta.new_element.plotly_chart.spec))
        elif element == "bidi_component" and msg.delta.new_element.bidi_component.component_name == "posviz_live":
            run.charts += 1  # a live chart: its exact figure is in its data, or the served file the data names
            payload = json.loads(json.loads(msg.delta.new_element.bidi_component.json))
            run.specs.append(live_exact(payload)[0])
            run.live += payload["live"]
        elif element == "exception":
            run.exceptions.append(msg.delta.new_element.exception.message)
        elif element == "alert":
            run.alerts.append(msg.delta.new_element.alert.body)
        elif element == "slider" and (slider := Slider.from_proto(msg.delta.new_element.slider)):
            run.sliders.append(slider)


class Session:
    """One Streamlit session: ``async with Session(url) as s: run = await s.rerun("RoPE", "d=128")``."""

    def __init__(self, url: str, cookie: str = "", timeout: float = 60) -> None:
        self.url, self.cookie, self.timeout = url, cookie, timeout
        self._ws = None

    async def __aenter__(self) -> Session:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        # Origin as a browser sends it: Streamlit refuses a websocket whose Origin does not match its Host
        self._ws = await websockets.connect(self.url.replace("http", "ws", 1) + "/_stcore/stream",
                                            subprotocols=["streamlit"], additional_headers=headers,
                                            origin=self.url, max_size=None, open_timeout=self.timeout)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._ws.close()

    async def rerun(self, page: str, query: str = "") -> Run:
        """Run ``page`` (its URL name, e.g. "RoPE"; "" for the home page) with ``query``; wait for the end."""
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.query_string = query
        t0 = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        run = Run(seconds=0.0, nbytes=0, status=-1)
        async with asyncio.timeout(self.timeout):
            while True:
                raw = await self._ws.recv()
                run.nbytes += len(raw)
                fwd = ForwardMsg()
                fwd.ParseFromString(raw)
                _count(fwd, run)
                if fwd.WhichOneof("type") == "script_finished":
                    run.status = fwd.script_finished
                    break
        run.seconds = time.perf_counter() - t0
        return run
