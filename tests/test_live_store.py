"""The store of what an app process keeps between reruns (posviz.ui.live.store): every part bounded in bytes."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.figures import FIGURES, build
from posviz.theme import style
from posviz.ui.live import figures as live_figures
from posviz.ui.live import routes as live_routes
from posviz.ui.live.store import (
    MB,
    SHARES,
    STORE_ENV,
    AbandonedError,
    ByteBudgetCache,
    FigureStore,
    Foreground,
    ServedFigureFiles,
    _total_from_env,
    check_wanted,
    content_id,
    figure_bytes,
    wanted_while,
)

ROOT = Path(__file__).resolve().parents[1]


def test_a_part_drops_the_least_recently_used_to_stay_within_its_bytes():
    cache = ByteBudgetCache("t", budget=10)
    cache.put("a", "1234", 4)
    cache.put("b", "5678", 4)
    assert cache.get("a") == "1234"  # a is now the most recently used
    cache.put("c", "90ab", 4)  # 12 > 10: the least recently used (b) goes
    assert (cache.get("a"), cache.get("b"), cache.get("c"), cache.nbytes) == ("1234", None, "90ab", 8)
    cache.put("a", "123456", 6)  # replacing a value counts its new size only
    assert cache.nbytes == 10 and cache.get("c") == "90ab"
    cache.put("d", "x" * 11, 11)  # larger than the whole budget: not kept, and nothing else is dropped for it
    assert cache.get("d") is None and cache.nbytes == 10 and len(cache) == 2
    assert cache.entry_bytes("a") == 6 and cache.entry_bytes("d") is None


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 40)), max_size=200), st.integers(0, 100))
def test_whatever_is_put_the_bytes_kept_never_pass_the_budget(puts, budget):
    cache = ByteBudgetCache("t", budget)
    for key, nbytes in puts:
        cache.put(key, nbytes, nbytes)
        assert cache.nbytes <= budget
        assert cache.nbytes == sum(cache.entry_bytes(k) or 0 for k in range(31))
    if puts and puts[-1][1] <= budget:  # the latest value is always kept if it fits
        assert cache.get(puts[-1][0]) == puts[-1][1]


def test_a_negative_budget_is_refused_naming_the_part():
    with pytest.raises(ValueError, match="'figures' must be >= 0 bytes, got -1"):
        ByteBudgetCache("figures", -1)


def test_concurrent_callers_of_one_missing_key_wait_for_a_single_computation():
    cache = ByteBudgetCache("t", 1000)
    calls, start = [], threading.Barrier(8)

    def make() -> str:
        calls.append(1)
        return "built"

    def ask() -> None:
        start.wait()
        assert cache.get_or_make("k", make, len) == "built"

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and cache.get("k") == "built"


def test_the_store_splits_its_total_and_the_environment_sets_it(monkeypatch):
    store = FigureStore(total=100 * MB)
    assert store.budget <= 100 * MB and abs(sum(SHARES.values()) - 1) < 1e-9
    assert {u.name: u.budget for u in store.usage()} == {k: int(100 * MB * v) for k, v in SHARES.items()}
    monkeypatch.setenv(STORE_ENV, "64")
    assert _total_from_env() == 64 * MB
    monkeypatch.setenv(STORE_ENV, "lots")
    with pytest.raises(ValueError, match="POSVIZ_STORE_MB must be a number of MB, got 'lots'"):
        _total_from_env()


@pytest.mark.parametrize("name, params", [
    ("rope_clock", dict(dim=64, pairs="all", n_frames=31)),
    ("sinusoidal_heatmap", dict(n_positions=512, d_model=256)),
    ("gaussian_kernel_curve", {}),
])
def test_a_figure_s_size_is_at_least_what_building_it_kept(name, params):
    """``figure_bytes`` (what the store counts for a built figure) is no less than the memory the figure holds,
    measured by tracemalloc (what stays allocated once it is built), and within 4x of it."""
    style(build(name, **params), "light", 0.0)  # imports and plotly's validators, once
    gc.collect()
    tracemalloc.start()
    fig = style(build(name, **params), "light", 0.0)
    gc.collect()  # what the build left for the collector is not kept
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert kept <= figure_bytes(fig) <= 4 * kept + 50_000


def test_the_store_keeps_figures_as_json_and_a_page_s_results_as_copies():
    store = FigureStore(total=10 * MB)
    params = {"alpha1": 0.5, "alpha2": 0.5, "sigma1": 3.0, "sigma2": 11.0}
    one = live_figures.figure_json("gaussian_kernel_curve", params, "light", 0.0, store)
    assert live_figures.figure_json("gaussian_kernel_curve", params, "light", 0.0, store) is one
    built = style(build("gaussian_kernel_curve", **params), "light", 0.0)
    assert one.id == content_id(built.to_json()) and one.figure["layout"]["title"] == built.to_plotly_json()[
        "layout"]["title"]
    assert store.figures.nbytes > 0 and store.figure_json.nbytes == int(one.text_bytes * live_figures.JSON_OVERHEAD)

    def squares(n: int) -> np.ndarray:
        return np.arange(n) ** 2

    first = live_figures.cached_call(squares, (5,), {}, store)
    first[0] = 99  # the caller's own copy
    assert live_figures.cached_call(squares, (5,), {}, store).tolist() == [0, 1, 4, 9, 16]
    assert store.computations.nbytes > 0 and len(store.computations) == 1


def test_served_files_are_named_by_their_text_and_trimmed_to_the_disk_budget(tmp_path):
    files = ServedFigureFiles(300, lambda: tmp_path)
    a, b = '{"a": 1}' * 10, '{"b": 2}' * 10  # 80 bytes each
    name = files.write(a)
    assert name == f"{content_id(a)}.json" and (tmp_path / name).read_text(encoding="utf-8") == a
    assert files.write(a) == name and files.write(b) != name
    names = [files.write(str(i) * 100) for i in range(3)]  # 300 more bytes: past the budget, the oldest go
    for age, n in zip((30, 20, 10), names, strict=True):
        os.utime(tmp_path / n, (1e9 - age, 1e9 - age))
    assert files.touch(names[0])  # used again: now the most recent
    newest = files.write("x" * 100)
    assert sum(p.stat().st_size for p in tmp_path.glob("*.json")) <= 300
    assert {names[0], newest} <= {p.name for p in tmp_path.glob("*.json")} and not files.touch(names[1])
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_folder_that_cannot_be_written_costs_the_file_and_leaves_nothing_behind(tmp_path, monkeypatch):
    """A read-only place (a folder path under a file) and a disk that fills mid-write both give no file (the
    rerun sends the figure itself); the full disk's temporary file is removed, an earlier file is left whole."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert ServedFigureFiles(10**6, lambda: blocked / "exact").write('{"data": []}') is None
    folder = tmp_path / "exact"
    files = ServedFigureFiles(10**6, lambda: folder)
    kept = files.write('{"kept": 1}')

    def fill_the_disk(self, text, encoding=None):
        with open(self, "w", encoding=encoding) as f:
            f.write(text[: len(text) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", fill_the_disk)
    assert files.write('{"data": [1, 2, 3, 4]}') is None
    assert sorted(p.name for p in folder.iterdir()) == [kept]
    assert (folder / kept).read_text(encoding="utf-8") == '{"kept": 1}'


SETTINGS_WALK = """
import os, random, resource
from posviz.ui.live import figures
from posviz.ui.live.store import STORE

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024

rng = random.Random(7)
def one():
    figures.figure_json("sinusoidal_heatmap", dict(n_positions=rng.randrange(64, 2048),
                        d_model=2 * rng.randrange(32, 512), base=10000.0), "light", 0.0)
    figures.figure_json("rope_clock", dict(dim=2 * rng.randrange(4, 64), n_frames=31), "light", 0.0)
for _ in range(6):
    one()
warm = rss()
for _ in range(90):
    one()
kept = sum(u.nbytes for u in STORE.usage())
print(warm, rss(), kept, STORE.budget)
"""


@pytest.mark.app
def test_a_process_walking_through_new_settings_stays_within_its_store_budget():
    """A process that builds 180 figures at settings never seen before (as a class choosing random slider
    values does) keeps at most the store's budget (here 24 MB) for them: its RSS grows by less than the budget
    plus 40 MB (the heap's slack around freed figures), not by what all 180 figures would take (about 140 MB
    more with no budget)."""
    env = {**os.environ, STORE_ENV: "24", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SETTINGS_WALK], capture_output=True, text=True, env=env,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    warm, end, kept, budget = map(int, done.stdout.split())
    assert budget == 24 * MB and kept <= budget
    assert end - warm < budget + 40 * MB, f"RSS grew {(end - warm) / MB:.0f} MB"


def test_at_most_two_figures_are_built_at_once(monkeypatch):
    """Sessions asking for figures at once wait for a build slot: a process never holds more than
    ``BUILDS_AT_ONCE`` builds' arrays together."""
    import time

    from posviz.ui.live import store as store_module

    running, most, lock = [0], [0], threading.Lock()
    real = live_figures.build

    def counted(name: str, **params: object):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)  # long enough for the other threads to arrive
        with lock:
            running[0] -= 1
        return real(name, **params)

    monkeypatch.setattr(live_figures, "build", counted)
    store = FigureStore(total=10 * MB)
    threads = [threading.Thread(target=live_figures.built_figure,
                                args=("gaussian_kernel_curve", {"sigma2": 10.0 + i}, "light", 0.0, store))
               for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.figures) == 6 and most[0] == store_module.BUILDS_AT_ONCE == 2


def test_states_built_ahead_of_need_wait_for_the_learner_s_work():
    """A state build waits while a lesson runs or a key press's figure is built, and goes on once none is left."""
    foreground, done = Foreground(patience=60), threading.Event()
    builder = threading.Thread(target=lambda: (foreground.wait_idle(), done.set()))
    with foreground.running(), foreground.running():  # two runs at once
        builder.start()
        builder.join(0.05)
        assert not done.is_set()  # still waiting: learners' work is running
    builder.join(10)
    assert done.is_set()
    foreground.wait_idle()  # nothing running: no wait at all


class _Leaving:
    """A request whose browser stays for ``checks`` looks at it, then goes (as a fetch stopped by the page)."""

    def __init__(self, checks: int) -> None:
        self.checks, self.seen = checks, 0

    async def is_disconnected(self) -> bool:
        self.seen += 1
        return self.seen > self.checks


def _steps(done: list[int]):
    """A build of ``n`` steps of 20 ms that goes on only while it is still wanted (as a slider's states do)."""
    def build(n: str) -> str:
        for i in range(int(n)):
            check_wanted()
            done.append(i)
            time.sleep(0.02)
        return "built"
    build.__name__ = f"steps_{id(done)}"  # a lock of its own among the routes'
    return build


def test_a_build_stops_between_two_steps_once_the_browser_that_asked_has_gone():
    done: list[int] = []
    assert asyncio.run(live_routes._built(_Leaving(checks=2), _steps(done), "200")) is None
    assert 1 <= len(done) < 50  # gone after ~50 ms of 4 s: no more than the steps under way then


def test_a_build_whose_browser_stays_is_built_whole_and_one_never_asked_for_is_not_begun():
    done: list[int] = []
    assert asyncio.run(live_routes._built(_Leaving(checks=10**6), _steps(done), "5")) == "built"
    assert done == [0, 1, 2, 3, 4]
    gone: list[int] = []
    assert asyncio.run(live_routes._built(_Leaving(checks=0), _steps(gone), "5")) is None and gone == []


def test_a_slider_s_states_stop_between_two_figures_when_no_longer_wanted(monkeypatch):
    """live_states builds no further figure once its asker has gone, and the store keeps no set for it (the next
    ask builds it again, whole)."""
    from posviz.ui.live import states

    built: list[float] = []
    real = states.build
    monkeypatch.setattr(states, "build", lambda name, **p: (built.append(p["sigma2"]), real(name, **p))[1])
    with wanted_while(lambda: len(built) < 3), pytest.raises(AbandonedError):
        states.live_states("gaussian_kernel_curve", {}, "sigma2", [4.0, 8.0, 16.0, 32.0, 64.0, 128.0])
    assert built == [4.0, 8.0, 16.0]
    store = FigureStore(total=10 * MB)
    with wanted_while(lambda: False), pytest.raises(AbandonedError):
        store.state_sets.get_or_make("k", check_wanted, len)
    assert store.state_sets.get("k") is None and not store.state_sets._making  # no set, no gate left behind


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_figure_s_json_text_is_plotly_s_own_to_the_byte(name):
    fig = style(build(name), "dark", 1.5)  # every figure at its defaults, in presenter mode (frames, templates)
    assert live_figures.figure_text(fig) == fig.to_json()


def test_arrays_in_lists_and_under_plotly_s_skipped_keys_are_sent_as_plotly_sends_them():
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=np.arange(3), y=np.array([1.5, 2.5, 3.5]), customdata=[np.arange(2), np.ones(2)]),
                    layout=dict(xaxis=dict(range=np.array([0.0, 2.0])), yaxis=dict(tickvals=np.arange(3) * 2)))
    fig.frames = [go.Frame(data=[dict(type="scatter", y=np.array([3.0, 2.0, 1.0]), uid="u")])]
    assert live_figures.figure_text(fig) == fig.to_json()
