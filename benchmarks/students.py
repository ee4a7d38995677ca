"""Students as a browser tab speaks to Streamlit: widget changes sent over ``/_stcore/stream``, no drawing.

A browser opens a page with a ``rerun_script`` BackMsg (page name, query string), reads the widgets out of
the deltas that come back (each widget's id, range or options, and the fragment it is drawn in), and on a
change sends ``rerun_script`` again with the widget's new state (``WidgetStates``) and the fragment's id, so
only that fragment reruns. A download button whose file is made on click asks for it with a
``backend_operation_request`` (``deferred_file``) and then GETs the address the answer names. ``Tab`` does all
of that without a DOM, so a capacity benchmark can run tens of students on two cores. Like a browser, a tab
that lost its websocket reconnects and sends the widget states it holds (and the URL its bound widgets wrote).
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from testkit.stream_client import sticky_cookie

EXTRAS_EXPORT = "Export / copy as code"  # the figure panel's pill that opens the export buttons


@dataclass
class Widget:
    """A control as the page drew it: what a student can change and the fragment whose rerun a change asks."""

    id: str
    kind: str                      # "slider", "select_slider", "radio", "pills" or "download"
    fragment: str = ""
    lo: float = 0.0
    hi: float = 0.0
    step: float = 1.0
    integer: bool = True
    options: tuple[str, ...] = ()
    file_id: str = ""              # a download button's deferred file

    @property
    def name(self) -> str:
        """The widget's key without the page's prefix (``rope.base`` -> ``base``), as the URL names it."""
        key = self.id.rsplit("-", 1)[-1]
        return key.split(".", 1)[1] if "." in key else key

    def values(self) -> list[str]:
        """Every value the control can take, as the URL writes it."""
        if self.options:
            return list(self.options)
        n = round((self.hi - self.lo) / self.step)
        return [_fmt(self.lo + i * self.step, self.integer) for i in range(n + 1)]


def _fmt(x: float, integer: bool) -> str:
    return str(round(x)) if integer else f"{round(x, 10):g}"


@dataclass
class Reply:
    """What one rerun sent back: seconds until script_finished, its status, exception messages, bytes."""

    seconds: float
    status: int = -1  # ForwardMsg.ScriptFinishedStatus: 0 page, 3 fragment finished successfully
    exceptions: list[str] = field(default_factory=list)
    nbytes: int = 0

    @property
    def ok(self) -> bool:
        return self.status in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY) \
            and not self.exceptions


def _widget_of(element: object, fragment: str) -> Widget | None:
    kind = element.WhichOneof("type")
    if kind == "slider":
        s = element.slider
        if s.options:
            return Widget(s.id, "select_slider", fragment, options=tuple(s.options))
        return Widget(s.id, "slider", fragment, s.min, s.max, s.step, s.data_type == s.INT)
    if kind == "radio":
        return Widget(element.radio.id, "radio", fragment, options=tuple(element.radio.options))
    if kind == "button_group":
        return Widget(element.button_group.id, "pills", fragment,
                      options=tuple(o.content for o in element.button_group.options))
    if kind == "download_button" and element.download_button.deferred_file_id:
        b = element.download_button
        return Widget(b.id, "download", fragment, options=(b.label,), file_id=b.deferred_file_id)
    return None


class Tab:
    """One student's browser tab: ``async with Tab(url) as tab: await tab.open("RoPE", "part=clock")``."""

    def __init__(self, url: str, timeout: float = 120) -> None:
        self.url, self.timeout = url, timeout
        self.page, self.query = "", ""
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}  # the values this tab has set, sent with every rerun
        self.session_id = ""
        self._seen: set[str] = set()  # widgets the current run drew
        self._ws = None
        self._cookie = ""

    async def __aenter__(self) -> Tab:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the websocket (the sticky cookie first, as a browser's page load gets it from nginx)."""
        self._cookie = await asyncio.to_thread(sticky_cookie, self.url)
        headers = {"Cookie": self._cookie} if self._cookie else {}
        self._ws = await websockets.connect(self.url.replace("http", "ws", 1) + "/_stcore/stream",
                                            subprotocols=["streamlit"], additional_headers=headers,
                                            origin=self.url, max_size=None, open_timeout=self.timeout)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
            self._ws = None

    async def open(self, page: str, query: str = "") -> Reply:
        """Go to ``page`` with ``query`` (a link's URL): a fresh page, no widget state of the last one."""
        self.page, self.query, self.widgets, self.states = page, query, {}, {}
        return await self._rerun()

    async def resume(self) -> Reply:
        """After a reconnect: run the page again with every widget state the tab holds, as a browser does."""
        return await self._rerun()

    async def change(self, widget: Widget, value: str) -> Reply:
        """Set ``widget`` to ``value`` (a slider's number or option text, a pill's text) and rerun its
        fragment, as moving the control does; the URL's bound parameter follows."""
        state = WidgetState(id=widget.id)
        if widget.kind == "slider":
            state.double_array_value.data.append(float(value))
        elif widget.kind == "radio":
            state.string_value = value
        else:
            state.string_array_value.data.append(value)
        self.states[widget.id] = state
        if widget.kind in ("slider", "select_slider"):  # the URL names a part by key, not by its label
            query = dict(urllib.parse.parse_qsl(self.query))
            query[widget.name] = value
            self.query = urllib.parse.urlencode(query)
        return await self._rerun(widget.fragment)

    async def download(self, widget: Widget) -> tuple[float, int]:
        """Click a deferred download button: ask the server to make the file, then fetch it; (seconds, bytes)."""
        msg = BackMsg()
        request_id = uuid.uuid4().hex
        msg.backend_operation_request.request_id = request_id
        msg.backend_operation_request.session_id = self.session_id
        msg.backend_operation_request.deferred_file.file_id = widget.file_id
        t0 = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        async with asyncio.timeout(self.timeout):
            while True:
                fwd = ForwardMsg()
                fwd.ParseFromString(await self._ws.recv())
                if fwd.WhichOneof("type") == "backend_operation_response" and \
                        fwd.backend_operation_response.request_id == request_id:
                    answer = fwd.backend_operation_response
                    break
        if answer.error_msg:
            raise RuntimeError(f"download {widget.options[0]}: {answer.error_msg}")
        address = urllib.parse.urljoin(self.url + "/", answer.deferred_file.url.lstrip("/"))
        body = await asyncio.to_thread(_get, address, self._cookie, self.timeout)
        return time.perf_counter() - t0, len(body)

    async def _rerun(self, fragment: str = "") -> Reply:
        msg = BackMsg()
        msg.rerun_script.page_name = self.page
        msg.rerun_script.query_string = self.query
        msg.rerun_script.widget_states.widgets.extend(self.states.values())
        if fragment:
            msg.rerun_script.fragment_id = fragment
        t0 = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        reply = Reply(0.0)
        self._seen = set()
        async with asyncio.timeout(self.timeout):
            while True:
                raw = await self._ws.recv()
                reply.nbytes += len(raw)
                fwd = ForwardMsg()
                fwd.ParseFromString(raw)
                if self._read(fwd, reply):
                    break
        reply.seconds = time.perf_counter() - t0
        self._forget_unseen(fragment)
        return reply

    def _forget_unseen(self, fragment: str) -> None:
        """Drop the widgets the run redrew none of (a part or a pane no longer on the page), as the browser
        removes them: a full run redraws everything, the lesson's fragment every widget in a fragment, a nested
        fragment (a figure's export pane) its own."""
        lesson = next((w.fragment for w in self.widgets.values() if w.kind == "radio" and w.name == "part"), None)
        for wid, w in list(self.widgets.items()):
            if wid in self._seen:
                continue
            if not fragment or w.fragment == fragment or (fragment == lesson and w.fragment):
                del self.widgets[wid]
                self.states.pop(wid, None)

    def _read(self, fwd: ForwardMsg, reply: Reply) -> bool:
        """File what ``fwd`` says (widgets, exceptions, the session id); whether the run finished."""
        kind = fwd.WhichOneof("type")
        if kind == "new_session":
            self.session_id = fwd.new_session.initialize.session_id or self.session_id
        elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
            element = fwd.delta.new_element
            if element.WhichOneof("type") == "exception":
                reply.exceptions.append(element.exception.message)
            elif widget := _widget_of(element, fwd.delta.fragment_id):
                self.widgets[widget.id] = widget
                self._seen.add(widget.id)
        elif kind == "script_finished":
            reply.status = fwd.script_finished
            return fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
        return False

    def controls(self, kind: str) -> list[Widget]:
        """The page's lesson controls of ``kind`` (not the sidebar's export settings, keyed ``_export...``)."""
        return [w for w in self.widgets.values() if w.kind == kind and not w.id.rsplit("-", 1)[-1].startswith("_")]


def _get(address: str, cookie: str, timeout: float) -> bytes:
    request = urllib.request.Request(address, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=timeout) as resp:
        return resp.read()
