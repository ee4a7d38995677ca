"""What one app process keeps between reruns, in one store whose every part has a budget in bytes.

A server keeps what many students ask again: the built figures (``figure_panel`` draws them), their plotly JSON
(a live chart sends it), the states of live sliders, the results of a page's own computations (``ui.cached``)
and the source shown under "Show the code". Each is a ``ByteBudgetCache``: entries sized in bytes when they
are put, the least recently used dropped first once the part holds more than its budget, so the memory a
process keeps for them is bounded whatever settings the students choose; an entry larger than the whole budget
is handed back but not kept. ``FigureStore`` groups them (one instance, ``STORE``, per process); its total
is what docs/DEPLOY.md adds to a fresh process's memory for the classroom bound. ``POSVIZ_STORE_MB`` scales
every budget (a total in MB; the split stays).

Concurrent sessions asking for the same missing entry wait for one computation (``get_or_make``), as a class
that opens the same lesson at once would otherwise build its figure once per student.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import hashlib
import os
import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from posviz.ui import served

V = TypeVar("V")

MB = 1_000_000
# the share of the store each part gets: figures and their JSON are most of what a lesson keeps
SHARES = {"figures": 0.40, "figure_json": 0.25, "state_sets": 0.15, "computations": 0.17, "sources": 0.03}
DEFAULT_TOTAL = 160 * MB
FILES_BUDGET = 256 * MB  # on disk, in the per-user cache folder
STORE_ENV = "POSVIZ_STORE_MB"


class ByteBudgetCache(Generic[V]):
    """Values by key whose sizes (bytes, given when put) add up to at most ``budget``, the least recently used
    dropped first; shared by the sessions' threads."""

    def __init__(self, name: str, budget: int) -> None:
        if budget < 0:
            raise ValueError(f"budget of {name!r} must be >= 0 bytes, got {budget}")
        self.name, self.budget = name, budget
        self._entries: collections.OrderedDict[Hashable, tuple[V, int]] = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._making: dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable) -> V | None:
        """The value kept under ``key`` (now the most recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: V, nbytes: int) -> None:
        """Keep ``value`` (``nbytes`` bytes) under ``key``; drop the least recently used beyond the budget."""
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes -= old[1] if old else 0
            if nbytes > self.budget:
                return
            self._entries[key] = (value, nbytes)
            self._bytes += nbytes
            while self._bytes > self.budget:
                self._bytes -= self._entries.popitem(last=False)[1][1]

    def get_or_make(self, key: Hashable, make: Callable[[], V], size: Callable[[V], int]) -> V:
        """The value under ``key``, made by ``make`` (and sized by ``size``) if missing; concurrent callers for
        one key wait for a single ``make``."""
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            gate = self._making.setdefault(key, threading.Lock())
        try:
            with gate:
                found = self.get(key)
                if found is None:
                    found = make()
                    self.put(key, found, size(found))
        finally:  # a make that raised (its asker gone, settings refused) leaves no gate behind
            with self._lock:
                if not gate.locked():
                    self._making.pop(key, None)
        return found

    def entry_bytes(self, key: Hashable) -> int | None:
        """The size ``key``'s value was kept with, or None if it is not kept."""
        with self._lock:
            entry = self._entries.get(key)
            return None if entry is None else entry[1]

    def discard(self, key: Hashable) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes -= old[1] if old else 0

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def nbytes(self) -> int:
        """Bytes kept now (at most ``budget``)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)


def content_id(text: str) -> str:
    """The name of the figure ``text`` among the served files (a hash of the text, so a name never stands for
    two figures, whichever process or version wrote it)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:24]


class ServedFigureFiles:
    """Exact figures written as files the app serves (``posviz.ui.served``: the ``exact/`` route), so that when
    the learner lets go of a live slider at a state's value the chart fetches that figure while Streamlit's rerun
    is on its way. The folder (shared by one machine's app processes) keeps at most ``budget`` bytes on disk,
    the least recently written or used removed first; it is read for that after each tenth of the budget this
    process wrote. Where it cannot be written (a read-only install, a full disk) no file is made: the rerun
    then sends the figure itself."""

    def __init__(self, budget: int, folder: Callable[[], Path]) -> None:
        self.budget, self._folder = budget, folder
        self._written = budget  # bytes written since the folder was last trimmed: trim at the first write
        self._lock = threading.Lock()

    @property
    def folder(self) -> Path:
        return self._folder()

    def write(self, text: str) -> str | None:
        """Write the figure ``text`` (plotly JSON) as ``<content_id>.json``; its file name, or None where the
        folder cannot be written (no partial or temporary file is left then)."""
        folder = self.folder
        name = f"{content_id(text)}.json"
        if self.touch(name):  # already there: now the most recently used
            return name
        tmp = folder / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, folder / name)  # whole or not at all, for a request that comes meanwhile
        except OSError:
            with contextlib.suppress(OSError):  # e.g. its folder is a file: there is no temporary file either
                tmp.unlink(missing_ok=True)
            return None
        with self._lock:
            self._written += len(text)
            trim = self._written >= self.budget // 10
            if trim:
                self._written = 0
        if trim:
            self.trim()
        return name

    def touch(self, name: str) -> bool:
        """Whether the file ``name`` is still there; it is then the most recently used."""
        try:
            os.utime(self.folder / name)
        except OSError:  # gone (trimmed), or the folder became unreadable
            return False
        return True

    def trim(self) -> None:
        """Remove the least recently written or used ``*.json`` files until the rest fit in the budget."""
        files = []
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    try:
                        if entry.name.endswith(".json"):
                            stat = entry.stat()
                            files.append((stat.st_mtime, stat.st_size, entry.path))
                    except FileNotFoundError:  # removed by another process meanwhile
                        continue
        except OSError:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.budget:
                break
            Path(path).unlink(missing_ok=True)
            total -= size


@dataclass(frozen=True)
class Usage:
    """One part of the store: bytes kept, its budget, entries."""

    name: str
    nbytes: int
    budget: int
    entries: int


class FigureStore:
    """Every cache of the figure panel and the live charts, each bounded in bytes (see the module's doc)."""

    def __init__(self, total: int = DEFAULT_TOTAL, files: int = FILES_BUDGET,
                 folder: Callable[[], Path] | None = None) -> None:
        parts = {name: int(total * share) for name, share in SHARES.items()}
        self.files = ServedFigureFiles(files, folder or _served_folder)
        self.figures: ByteBudgetCache[Any] = ByteBudgetCache("figures", parts["figures"])
        self.figure_json: ByteBudgetCache[dict] = ByteBudgetCache("figure_json", parts["figure_json"])
        self.state_sets: ByteBudgetCache[dict] = ByteBudgetCache("state_sets", parts["state_sets"])
        self.computations: ByteBudgetCache[bytes] = ByteBudgetCache("computations", parts["computations"])
        self.sources: ByteBudgetCache[str] = ByteBudgetCache("sources", parts["sources"])

    @property
    def parts(self) -> tuple[ByteBudgetCache, ...]:
        return self.figures, self.figure_json, self.state_sets, self.computations, self.sources

    @property
    def budget(self) -> int:
        """Bytes the store may keep in all."""
        return sum(p.budget for p in self.parts)

    def usage(self) -> list[Usage]:
        return [Usage(p.name, p.nbytes, p.budget, len(p)) for p in self.parts]

    def clear(self) -> None:
        for part in self.parts:
            part.clear()


def _served_folder() -> Path:
    return served.exact_dir()  # read at each write: $POSVIZ_CACHE_DIR may change (tests set it)


def _total_from_env() -> int:
    chosen = os.environ.get(STORE_ENV, "").strip()
    if not chosen:
        return DEFAULT_TOTAL
    try:
        total = float(chosen)
    except ValueError:
        raise ValueError(f"{STORE_ENV} must be a number of MB, got {chosen!r}") from None
    if not 0 <= total <= 100_000:
        raise ValueError(f"{STORE_ENV} must be in 0..100000 MB, got {chosen!r}")
    return int(total * MB)


STORE = FigureStore(_total_from_env())

# Figure builds one process runs at once. A build's arrays are the largest memory a rerun takes for a moment
# (up to ~100 MB at a lesson's largest settings), and a class's sessions run their scripts in as many threads:
# unchecked, ten students at large settings would hold ten builds' arrays at once. Two keep both cores busy
# (numpy works outside the GIL) and bound that part of a process's memory by two builds.
BUILDS_AT_ONCE = 2
_BUILD_SLOTS = threading.BoundedSemaphore(BUILDS_AT_ONCE)


@contextlib.contextmanager
def build_slot() -> Iterator[None]:
    """Hold one of the process's ``BUILDS_AT_ONCE`` figure-build slots (waiting for one if all are taken)."""
    with _BUILD_SLOTS:
        yield


class Foreground:
    """Work a learner waits for in this process (a lesson's run, the exact figure a key press asked for): the
    states of a slider, built ahead of need, are built between two of them, so that they never slow the next
    move. A state build waits at most ``patience`` seconds, so a busy server still builds them."""

    def __init__(self, patience: float = 2.0) -> None:
        self.patience = patience
        self._running = 0
        self._idle = threading.Condition()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        with self._idle:
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()

    def wait_idle(self) -> None:
        """Return once no foreground work runs (or after ``patience`` seconds)."""
        with self._idle:
            self._idle.wait_for(lambda: self._running == 0, timeout=self.patience)


FOREGROUND = Foreground()


class AbandonedError(Exception):
    """The browser that asked for a build has gone (its fetch stopped): the rest of the build is not done."""


_WANTED: contextvars.ContextVar[Callable[[], bool]] = contextvars.ContextVar("posviz_wanted", default=lambda: True)


@contextlib.contextmanager
def wanted_while(still_wanted: Callable[[], bool]) -> Iterator[None]:
    """Work in this block (this thread's) is for an asker who may leave: ``still_wanted()`` says whether it is
    still awaited (posviz.ui.live.routes: the browser's request not yet closed)."""
    token = _WANTED.set(still_wanted)
    try:
        yield
    finally:
        _WANTED.reset(token)


def check_wanted() -> None:
    """Raise ``AbandonedError`` if the work this thread does is no longer awaited: a slider's states, built ahead of
    need, stop between two figures when the learner reaches for another slider and the browser stops asking."""
    if not _WANTED.get()():
        raise AbandonedError("the browser that asked for this build has gone")

TRACE_OVERHEAD = 4_000  # the Python objects plotly builds around one trace or frame (validators, dicts)


def object_bytes(value: object) -> int:
    """Bytes a plotly figure's data (or any nest of dicts, lists, strings and numpy arrays) holds: arrays by
    their buffers, strings by their length, containers by their items plus CPython's per-object size."""
    if isinstance(value, np.ndarray):
        return value.nbytes + 112
    if isinstance(value, (str, bytes)):
        return len(value) + 50
    if isinstance(value, dict):
        return 232 + sum(object_bytes(k) + object_bytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 56 + 8 * len(value) + sum(object_bytes(v) for v in value)
    return 32


def figure_bytes(fig: Any) -> int:
    """Bytes a built ``plotly.graph_objects.Figure`` keeps: three times what its data, layout and frames hold
    (plotly keeps validated copies and its own objects beside each trace's properties) and ``TRACE_OVERHEAD``
    per trace and frame; tests/test_live_store.py checks it against what building the figure really kept."""
    held = object_bytes(fig._data) + object_bytes(fig._layout)
    held += sum(object_bytes(frame._props) for frame in fig.frames)
    return 3 * held + TRACE_OVERHEAD * (len(fig.data) + len(fig.frames))
