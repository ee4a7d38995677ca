"""deploy/serve_class.py: N app processes behind Debian's nginx, sticky per browser, websocket through,
and a killed app process restarted while the other keeps serving.

Needs nginx (``apt-get install nginx``; .ci/run installs it); skipped without it unless
POSVIZ_REQUIRE_BROWSER=1 (CI), where a missing nginx fails. Loopback only, two app processes.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import WebSocketException

from deploy.serve_class import Classroom, free_ports, nginx_conf
from testkit.stream_client import Session, Slider, sticky_cookie

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.package  # the classroom deploy: nginx in front of app processes


@pytest.fixture(scope="module")
def room() -> Iterator[Classroom]:
    if not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        if os.environ.get("POSVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("nginx is not installed (apt-get install nginx) and POSVIZ_REQUIRE_BROWSER=1")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    with Classroom(2, free_ports(1)[0]) as r:
        yield r


def _get(url: str, cookie: str = "") -> tuple[str, str]:
    """(upstream that answered, the Set-Cookie nginx sent) for a GET of ``url``/."""
    req = urllib.request.Request(f"{url}/", headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(req, timeout=30) as resp:
        resp.read()
        return resp.headers["X-Posviz-Upstream"], resp.headers.get("Set-Cookie", "")


def test_config_proxies_every_backend_on_loopback_with_the_upgrade_headers(tmp_path):
    conf = nginx_conf(tmp_path, "127.0.0.1", 8080, [9001, 9002, 9003])
    assert [line.split()[1] for line in conf.splitlines() if line.strip().startswith("server 127")] == \
        ["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"]
    assert "listen 127.0.0.1:8080;" in conf and "hash $posviz_key consistent;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Connection $connection_upgrade;" in conf


def test_config_fails_over_at_once_and_keeps_a_dead_process_out_until_it_is_back(tmp_path):
    conf = nginx_conf(tmp_path, "127.0.0.1", 8080, [9001, 9002], down=frozenset({9002}))
    servers = [line.split() for line in conf.splitlines() if line.strip().startswith("server 127")]
    assert [s[1] for s in servers] == ["127.0.0.1:9001", "127.0.0.1:9002"]  # still both: the hash stays
    assert all("max_fails=1" in s for s in servers) and [s[-1] for s in servers] == ["fail_timeout=5s;", "down;"]
    websocket = conf[conf.index("location = /_stcore/stream"):conf.index("location / ")]
    assert "proxy_next_upstream error timeout http_502 http_503;" in websocket
    assert "proxy_set_header Upgrade $http_upgrade;" in websocket and "proxy_read_timeout 1h;" in websocket
    assert "down" not in nginx_conf(tmp_path, "127.0.0.1", 8080, [9001, 9002])


def test_a_browser_stays_with_one_process_and_new_browsers_spread(room: Classroom):
    backends = {f"127.0.0.1:{p}" for p in room.backends}
    first = [_get(room.url) for _ in range(16)]          # 16 new browsers, no cookie yet
    assert {up for up, _ in first} == backends           # both processes get browsers (chance of not: 2^-15)
    for upstream, set_cookie in first[:6]:
        cookie = set_cookie.split(";", 1)[0]
        assert cookie.startswith("posviz_backend=")
        again = [_get(room.url, cookie) for _ in range(4)]
        assert again == [(upstream, "")] * 4            # same process, and no new cookie


def test_a_session_through_nginx_gets_the_app_with_the_project_theme(room: Classroom):
    async def home():
        async with Session(room.url, sticky_cookie(room.url)) as s:
            return await s.rerun("")

    run = asyncio.run(home())
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]["primaryColor"]
    assert (run.status, run.exceptions, run.primary_color) == (0, [], theme)
    assert len(room.app_pids()) == 2 and all(Path(f"/proc/{pid}").exists() for pid in room.app_pids())


STUDENTS_PER_PROCESS, MOVES, KILL_AFTER, RECOVERY_SECONDS = 2, 20, 16, 15.0
RECONNECT_ERRORS = (OSError, TimeoutError, WebSocketException)


async def _student(url: str, cookie: str, slider: Slider, moves: int, results: list[bool]) -> None:
    """``moves`` slider moves on the Sinusoidal lesson, each a rerun; a move that fails (the connection
    dropped or was refused, the run failed) counts as failed and the next move opens a new connection."""
    session: Session | None = None
    value = slider.value
    try:
        for _ in range(moves):
            ok = False
            try:
                if session is None:
                    session = await Session(url, cookie, timeout=60).__aenter__()
                value = slider.neighbours(value)[-1] if value == slider.value else slider.value
                run = await session.rerun("Sinusoidal", f"{slider.name}={value}")
                ok = run.status == 0 and not run.exceptions
            except RECONNECT_ERRORS:
                if session is not None:
                    await session.__aexit__()
                session = None
            results.append(ok)
            await asyncio.sleep(0.1)
    finally:
        if session is not None:
            await session.__aexit__()


async def _serves_again(room: Classroom, port: int, old_pid: int, cookie: str) -> bool:
    """The process on ``port`` is a new one, answers its health check on its own port, and nginx sends it
    the browser whose cookie hashes to it again: a session through nginx with that cookie runs the app."""
    if room.app_pids()[room.backends.index(port)] == old_pid:
        return False
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as resp:
            if resp.read() != b"ok":
                return False
        upstream, _ = await asyncio.to_thread(_get, room.url, cookie)
        if upstream != f"127.0.0.1:{port}":
            return False
        async with Session(room.url, cookie, timeout=10) as s:
            run = await s.rerun("")
        return run.status == 0 and not run.exceptions
    except RECONNECT_ERRORS:
        return False


def test_a_killed_process_is_restarted_while_the_other_keeps_serving(room: Classroom, capsys):
    # two browsers per process: new cookies until each process has its two (bounded: 64 tries)
    cookies: dict[str, list[str]] = {f"127.0.0.1:{p}": [] for p in room.backends}
    for _ in range(64):
        upstream, set_cookie = _get(room.url)
        if len(cookies[upstream]) < STUDENTS_PER_PROCESS:
            cookies[upstream].append(set_cookie.split(";", 1)[0])
        if all(len(c) == STUDENTS_PER_PROCESS for c in cookies.values()):
            break
    assert all(len(c) == STUDENTS_PER_PROCESS for c in cookies.values()), cookies

    async def opened() -> Slider:
        async with Session(room.url, cookies[f"127.0.0.1:{room.backends[1]}"][0]) as s:
            return (await s.rerun("Sinusoidal")).sliders[0]

    slider = asyncio.run(opened())
    port = room.backends[0]
    victim = room.app_pids()[0]
    results: list[bool] = []

    async def kill_and_wait_for_the_restart() -> float | None:
        deadline = time.monotonic() + 120
        while len(results) < KILL_AFTER and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        while time.monotonic() < killed + RECOVERY_SECONDS:
            if await _serves_again(room, port, victim, cookies[f"127.0.0.1:{port}"][0]):
                return time.monotonic() - killed
            await asyncio.sleep(0.2)
        return None

    async def lesson() -> float | None:
        students = [_student(room.url, c, slider, MOVES, results) for cs in cookies.values() for c in cs]
        *_, recovered = await asyncio.gather(*students, kill_and_wait_for_the_restart())
        return recovered

    recovered = asyncio.run(lesson())
    assert len(results) == 2 * STUDENTS_PER_PROCESS * MOVES
    assert sum(results) >= 0.95 * len(results), f"{len(results) - sum(results)} of {len(results)} moves failed"
    assert recovered is not None, f"the process on port {port} was not serving again {RECOVERY_SECONDS:g} s after"
    log = capsys.readouterr().err
    assert f"app process on port {port} (pid {victim}) exited with code -9 (SIGKILL); restarting it in 1 s" in log
    assert f"restarted app process on port {port} (pid {room.app_pids()[0]}; it had exited with code -9" in log
