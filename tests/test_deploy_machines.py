"""deploy/serve_class.py --upstream: nginx in front of app processes started separately on other hosts.

Two ``posviz app`` processes are started on their own, on 127.0.0.2 and 127.0.0.3 (Linux routes all of 127/8 to
the loopback interface, so each address stands in for a machine of the lecture hall), and ``Classroom`` fronts
them with no local process. Students are browser tabs without drawing (benchmarks/students.py): each opens
the Sinusoidal lesson and moves one of its sliders, every move the widget change a browser sends over
Streamlit's websocket. Needs nginx, as tests/test_deploy.py does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.exceptions import WebSocketException

from benchmarks.students import Tab
from deploy.serve_class import (
    Classroom,
    _arguments,
    _logged_popen,
    free_ports,
    nginx_conf,
    upstream_address,
    wait_healthy,
)

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.package  # app processes behind nginx, on loopback addresses standing in for hosts

HOSTS = ("127.0.0.2", "127.0.0.3")
STUDENTS, CALM_MOVES, MOVES, KILL_AFTER = 10, 8, 40, 120
CONNECTION_ERRORS = (OSError, TimeoutError, WebSocketException)


@dataclass
class Host:
    """An app process started on its own, as on another machine of the hall."""

    address: str       # HOST:PORT
    cmd: list[str]
    log: Path
    env: dict[str, str]
    proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = _logged_popen(self.cmd, self.log, "a", cwd=self.log.parent, env=self.env)
        wait_healthy(f"http://{self.address}", [self.proc])


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def hall(tmp_path_factory) -> Iterator[tuple[Classroom, list[Host]]]:
    if not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        if os.environ.get("POSVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("nginx is not installed (apt-get install nginx) and POSVIZ_REQUIRE_BROWSER=1")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    work = tmp_path_factory.mktemp("hall")
    # every machine gets the same cookie secret, as docs/DEPLOY.md tells the teacher to do
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
    hosts = []
    for i, ip in enumerate(HOSTS):
        port = _free_port(ip)
        cmd = [sys.executable, "-m", "posviz", "app", "--server.address", ip, "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
        hosts.append(Host(f"{ip}:{port}", cmd, work / f"host{i}.log", env))
    try:
        for host in hosts:
            host.start()
        with Classroom(0, free_ports(1)[0], upstreams=[h.address for h in hosts]) as room:
            yield room, hosts
    finally:
        for host in hosts:
            if host.proc is not None and host.proc.poll() is None:
                host.proc.terminate()
                host.proc.wait(20)


def test_config_fronts_local_processes_and_upstreams_alike(tmp_path):
    conf = nginx_conf(tmp_path, "0.0.0.0", 8080, [9001, "10.0.0.11:8501", "10.0.0.12:8501"],
                      down=frozenset({"10.0.0.12:8501"}))
    servers = [line.split() for line in conf.splitlines() if line.strip().startswith("server ") and "{" not in line]
    assert [s[1] for s in servers] == ["127.0.0.1:9001", "10.0.0.11:8501", "10.0.0.12:8501"]
    assert all("max_fails=1" in s and "fail_timeout=5s" in " ".join(s) for s in servers)
    assert [s[-1] for s in servers] == ["fail_timeout=5s;", "fail_timeout=5s;", "down;"]
    assert "hash $posviz_key consistent;" in conf


@pytest.mark.parametrize("bad", ["10.0.0.11", "10.0.0.11:0", "10.0.0.11:65536", ":8501", "::1:8501", "h:x"])
def test_an_upstream_must_be_host_and_port(bad):
    with pytest.raises(ValueError, match="upstream must"):
        upstream_address(bad)
    assert upstream_address("[::1]:8501") == "[::1]:8501"
    with pytest.raises(ValueError, match="processes must be >= 1"):
        Classroom(0, 8080)


def test_with_only_upstreams_the_front_machine_starts_no_process_of_its_own():
    assert _arguments(["--upstream", "10.0.0.11:8501", "--upstream", "10.0.0.12:8501"]).processes == 0
    assert _arguments(["--upstream", "10.0.0.11:8501", "--processes", "2"]).processes == 2
    assert _arguments([]).processes == (os.cpu_count() or 1) and _arguments([]).upstream == []


def _established(address: str) -> int:
    """Open TCP connections whose server end is ``address`` (HOST:PORT on IPv4), read from /proc/net/tcp."""
    ip, port = address.rsplit(":", 1)
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        hex_ip, hex_port = local.split(":")
        if state == "01" and int(hex_port, 16) == int(port) and \
                socket.inet_ntoa(struct.pack("<I", int(hex_ip, 16))) == ip:
            count += 1
    return count


async def _student(url: str, moves: int, results: list[bool]) -> None:
    """Open the Sinusoidal lesson and move its first slider back and forth ``moves`` times; a move whose
    connection dropped or whose run failed counts as lost, and the next move reconnects (the new session
    first runs the page with the widget states the tab holds, as a browser does after a reconnect)."""
    tab = Tab(url, timeout=120)
    await tab.connect()
    opened = await tab.open("Sinusoidal")
    assert opened.ok and tab.controls("slider"), opened
    slider = tab.controls("slider")[0]
    values = slider.values()[-2:]
    connected = True
    try:
        for i in range(moves):
            ok = False
            try:
                if not connected:
                    await tab.connect()
                    connected = (await tab.resume()).ok
                ok = connected and (await tab.change(tab.widgets[slider.id], values[i % 2])).ok
            except CONNECTION_ERRORS:
                with contextlib.suppress(*CONNECTION_ERRORS):
                    await tab.close()
                connected = False
            results.append(ok)
            await asyncio.sleep(0.1)
    finally:
        with contextlib.suppress(*CONNECTION_ERRORS):
            await tab.close()


def test_ten_students_on_two_hosts_meet_no_error(hall):
    room, hosts = hall
    results: list[bool] = []

    async def lesson() -> None:
        await asyncio.gather(*[_student(room.url, CALM_MOVES, results) for _ in range(STUDENTS)])

    asyncio.run(lesson())
    assert results == [True] * STUDENTS * CALM_MOVES
    assert all(up.serving for up in room.upstreams)


def test_killing_one_host_mid_run_costs_under_five_percent_of_moves(hall, capsys):
    room, hosts = hall
    results: list[bool] = []
    killed: dict[str, object] = {}

    async def kill_the_busier_host() -> None:
        deadline = time.monotonic() + 300
        while len(results) < KILL_AFTER and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        students = {h.address: _established(h.address) for h in hosts}
        victim = max(hosts, key=lambda h: students[h.address])
        victim.proc.send_signal(signal.SIGKILL)
        killed.update(host=victim, students=students, moves_before=len(results))

    async def lesson() -> None:
        await asyncio.gather(*[_student(room.url, MOVES, results) for _ in range(STUDENTS)], kill_the_busier_host())

    asyncio.run(lesson())
    victim, students = killed["host"], killed["students"]
    assert sum(students.values()) >= STUDENTS and students[victim.address] >= STUDENTS // 2, students
    assert results[:killed["moves_before"]] == [True] * killed["moves_before"]
    lost = results.count(False)
    assert len(results) == STUDENTS * MOVES and 0 < lost < 0.05 * len(results), f"{lost} of {len(results)} lost"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and next(u for u in room.upstreams if u.address == victim.address).serving:
        time.sleep(0.2)
    assert f"upstream {victim.address} failed 2 health checks in a row; marked down in nginx" in capsys.readouterr().err


def _upstream_of_a_new_browser(url: str) -> str:
    with urllib.request.urlopen(f"{url}/", timeout=30) as resp:
        resp.read()
        return resp.headers["X-Posviz-Upstream"]


def test_a_host_started_again_is_taken_back(hall, capsys):
    room, hosts = hall
    victim = next(h for h in hosts if h.proc.poll() is not None)  # the host the test above killed
    victim.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(u.serving for u in room.upstreams):
        time.sleep(0.2)
    assert f"upstream {victim.address} answers /_stcore/health again; nginx sends browsers to it" in \
        capsys.readouterr().err
    answered = {_upstream_of_a_new_browser(room.url) for _ in range(32)}  # both hosts (chance of not: 2^-31)
    assert answered == {h.address for h in hosts}
