"""Serve a class: N ``posviz app`` processes on loopback behind Debian's nginx, with sticky sessions.

    python deploy/serve_class.py                                  # one process per core, http://127.0.0.1:8080
    python deploy/serve_class.py --processes 2 --port 8080
    python deploy/serve_class.py --processes 4 --listen 0.0.0.0   # let the room's network in (see docs/DEPLOY.md)

One Streamlit process runs a session's reruns on one core at a time (Python's GIL), so a class on a
machine with several cores is served by several processes. Each student's browser must keep talking to
the process that holds its session: the websocket, the reconnect after a network blip and the download
URLs of exports all live in that one process. nginx (``apt-get install nginx``) gives every new
browser a ``posviz_backend`` cookie and hashes on it, so a browser stays with its process; a hash on the
client address (``ip_hash``) would also be sticky, but sends a whole NAT'ed room, or every session of
a loopback benchmark, to one process. The app processes listen on 127.0.0.1 only; only nginx faces the
room. Everything lives in one temporary directory (config, logs, nginx's temp files), removed at exit.
Ctrl-C (or SIGTERM) stops nginx and every app process.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]

NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {run}/nginx.pid;
error_log {run}/error.log warn;
events {{ worker_connections 4096; }}

http {{
    access_log off;
    client_body_temp_path {run}/tmp/body;
    proxy_temp_path {run}/tmp/proxy;
    fastcgi_temp_path {run}/tmp/fastcgi;
    uwsgi_temp_path {run}/tmp/uwsgi;
    scgi_temp_path {run}/tmp/scgi;

    # Streamlit's websocket: pass the Upgrade handshake through
    map $http_upgrade $connection_upgrade {{ default upgrade; "" close; }}
    # Sticky sessions: a browser without the cookie gets a random key (this request's id) and the cookie
    # that repeats it; the hash maps the key to the same app process for every later request and websocket.
    map $cookie_posviz_backend $posviz_key {{ "" $request_id; default $cookie_posviz_backend; }}
    map $cookie_posviz_backend $posviz_set_cookie {{
        "" "posviz_backend=$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }}

    upstream posviz {{
        hash $posviz_key consistent;
{servers}
    }}

    server {{
        listen {listen}:{port};
        location / {{
            proxy_pass http://posviz;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            # with the port: Streamlit accepts a websocket only if its Origin matches the Host it sees
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_buffering off;
            client_max_body_size 20m;
            add_header Set-Cookie $posviz_set_cookie always;
            add_header X-Posviz-Upstream $upstream_addr always;  # which app process answered (a loopback port)
        }}
    }}
}}
"""


def nginx_conf(run: Path, listen: str, port: int, backends: list[int]) -> str:
    """nginx.conf text: ``listen:port`` proxied to 127.0.0.1:<each backend>, sticky on a cookie."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in backends)
    return NGINX_CONF.format(run=run, listen=listen, port=port, servers=servers)


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on loopback (bound together so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_healthy(url: str, procs: list[subprocess.Popen], seconds: float = 120) -> None:
    """Poll ``url``/_stcore/health until it answers "ok"; fail early if one of ``procs`` exits."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                log = Path(proc.stdout_path).read_text()[-1500:] if hasattr(proc, "stdout_path") else ""
                raise RuntimeError(f"{' '.join(map(str, proc.args[:4]))} exited with {proc.returncode}:\n{log}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url}/_stcore/health did not answer within {seconds:.0f} s")


def _logged_popen(cmd: list[str], log: Path, **kwargs: object) -> subprocess.Popen:
    """Popen with stdout and stderr going to ``log`` (remembered as ``proc.stdout_path`` for errors)."""
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **kwargs)
    proc.stdout_path = str(log)
    return proc


def _nginx() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if not found:
        raise RuntimeError("nginx is not installed: apt-get install nginx (Debian/Ubuntu)")
    return found


class Classroom:
    """N app processes and nginx in front of them: ``with Classroom(2, 8080) as room: room.url``."""

    def __init__(self, processes: int, port: int, listen: str = "127.0.0.1") -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self.processes, self.port, self.listen = processes, port, listen
        self.url = f"http://127.0.0.1:{port}"
        self.procs: list[subprocess.Popen] = []
        self.backends: list[int] = []
        self.run: Path | None = None

    def _start_apps(self, run: Path) -> None:
        env = dict(os.environ)
        if (CHECKOUT / "posviz" / "__init__.py").is_file():  # a checkout: serve its posviz and app.py
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")]))
        # one secret for all: a cookie signed by one process is valid in all (Streamlit takes it from the
        # environment or a config file only, never from the command line)
        env["STREAMLIT_SERVER_COOKIE_SECRET"] = secrets.token_hex(32)
        self.backends = free_ports(self.processes)
        for i, port in enumerate(self.backends):
            cmd = [sys.executable, "-m", "posviz", "app", "--server.port", str(port), "--server.address",
                   "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
            self.procs.append(_logged_popen(cmd, run / f"app{i}.log", cwd=run, env=env))
        for port in self.backends:
            wait_healthy(f"http://127.0.0.1:{port}", self.procs)

    def _start_nginx(self, run: Path) -> None:
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (run / "tmp" / sub).mkdir(parents=True)
            (run / "tmp" / sub).chmod(0o777)  # nginx's workers drop root to nobody and write here
        (run / "nginx.conf").write_text(nginx_conf(run, self.listen, self.port, self.backends))
        nginx = _nginx()
        check = subprocess.run([nginx, "-t", "-q", "-p", str(run), "-e", str(run / "error.log"), "-c",
                                str(run / "nginx.conf")], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx rejected its configuration: {check.stderr.strip()}")
        self.procs.append(_logged_popen([nginx, "-p", str(run), "-e", str(run / "error.log"), "-c",
                                         str(run / "nginx.conf")], run / "nginx.out"))
        wait_healthy(self.url, self.procs, seconds=30)

    def __enter__(self) -> Classroom:
        self.run = Path(tempfile.mkdtemp(prefix="posviz-class-"))
        self.run.chmod(0o755)
        try:
            self._start_apps(self.run)
            self._start_nginx(self.run)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):  # nginx first, then the apps
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []
        if self.run is not None:
            shutil.rmtree(self.run, ignore_errors=True)
            self.run = None

    def app_pids(self) -> list[int]:
        """Process ids of the app processes (not nginx)."""
        return [p.pid for p in self.procs[: self.processes]]


def _addresses(listen: str, port: int) -> list[str]:
    if listen not in ("0.0.0.0", "::"):
        return [f"http://{listen}:{port}"]
    ips = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    return [f"http://{ip}:{port}" for ip in sorted(ips) if not ip.startswith("127.")] or [f"http://127.0.0.1:{port}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="app processes (default: cores)")
    ap.add_argument("--port", type=int, default=8080, help="nginx's port")
    ap.add_argument("--listen", default="127.0.0.1",
                    help="nginx's address: 127.0.0.1 (this machine only, the default) or 0.0.0.0 (the room)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with Classroom(args.processes, args.port, args.listen) as room:
            print(f"{args.processes} posviz app processes on 127.0.0.1:{','.join(map(str, room.backends))}, "
                  f"nginx in front (run directory {room.run})")
            for address in _addresses(args.listen, args.port):
                print(f"  share: {address}")
            print("Ctrl-C stops everything.", flush=True)
            while all(p.poll() is None for p in room.procs):
                time.sleep(1)
            print("a process exited; stopping the rest", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, ValueError) as err:
        print(f"serve_class: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
