"""deploy/serve_class.py: N app processes behind Debian's nginx, sticky per browser, websocket through.

Needs nginx (``apt-get install nginx``; .ci/run installs it); skipped without it unless
POSVIZ_REQUIRE_BROWSER=1 (CI), where a missing nginx fails. Loopback only, two app processes.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.serve_class import Classroom, free_ports, nginx_conf
from testkit.stream_client import Session, sticky_cookie

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
